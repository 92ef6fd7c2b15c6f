"""The Spark session catalog (Hive metastore) as a :class:`storage.catalogs.interface.Catalog`."""
