"""Services the tests start for themselves (a Hive metastore Thrift service run from pyspark's own jars)."""
