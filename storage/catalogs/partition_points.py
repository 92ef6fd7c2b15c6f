"""The crash points of a partitioned table's DROP and UNDROP in the metastore
(:mod:`storage.catalogs.spark.hms.partition_reads`), declared here, beside the engines, so that every crash point is
known without Spark (``ddl-log crash-points``), as :mod:`storage.catalogs.fill` does for its own."""

from __future__ import annotations

from storage import crashpoints

EXTERNAL_DONE = crashpoints.declare("drop_partitioned.external", "a partitioned table being dropped is external")
RENAMED = crashpoints.declare("drop_partitioned.renamed", "a partitioned table being dropped has its holder's name")
CREATED_DISCOVERING = crashpoints.declare("create_partitioned.created",
                                          "a partitioned table being made exists, its partitions found in its files")
PARTITIONS_ADDED = crashpoints.declare("create_partitioned.partitions_added",
                                       "a partitioned table being made has its partitions registered")
HOLDER_CREATED = crashpoints.declare(
    "create_partitioned.holder_created", "a partitioned table being made with a partition outside its directory "
    "exists under its holder's name")
HOLDER_FILLED = crashpoints.declare("create_partitioned.holder_filled",
                                    "the holder of a partitioned table being made has its partitions registered")
HOLDER_RENAMED = crashpoints.declare("create_partitioned.holder_renamed",
                                     "a partitioned table being made has its name, external, every partition in it")
KEPT_RENAME_CREATED = crashpoints.declare(
    "rename_keeping_directory.created", "a table renamed to a work name without moving its directory exists under "
    "both names, at one directory")
