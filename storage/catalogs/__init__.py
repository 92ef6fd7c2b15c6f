"""The catalogs the log acts on: the interface every engine implements, the memory catalog and the Spark catalog."""

from storage.catalogs import deletion_points as deletion_points  # its crash point, known without Spark
from storage.catalogs import partition_points as partition_points  # its crash points, known without Spark
from storage.catalogs import tag_points as tag_points  # its crash point, known without Spark
