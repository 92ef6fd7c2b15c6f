"""Servers the production setup runs beside the drivers, started from the project's own code: a PostgreSQL cluster
(:mod:`ddl_log.ops.postgres`) and a Hive metastore service from the jars pyspark ships
(:mod:`ddl_log.ops.metastore`)."""
