"""The Spark session catalog (Hive metastore) as a :class:`storage.catalogs.ports.Catalog`."""
