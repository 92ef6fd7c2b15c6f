"""The catalogs the log acts on: the interface every engine implements, the memory catalog and the Spark catalog."""
