"""The crash point of a local directory's deletion (:mod:`storage.catalogs.spark.fs.leftover_files`), declared here,
beside the engines, so that every crash point is known without Spark (``ddl-log crash-points``), as
:mod:`storage.catalogs.partition_points` does for the metastore's."""

from __future__ import annotations

from storage import crashpoints

SET_ASIDE = crashpoints.declare("delete_data.set_aside", "a directory being deleted is renamed aside, not yet removed")
