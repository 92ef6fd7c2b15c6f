"""The Spark catalog's parts that speak Spark SQL text (``spark.sql``): tables, views, functions, databases."""
