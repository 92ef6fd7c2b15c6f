"""The Spark catalog's parts that work on the Hive metastore's own records through Py4J (one ``alter_table`` swaps a
whole definition)."""
