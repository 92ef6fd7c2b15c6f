"""The crash point between a Spark statement that leaves a table under its user's name with its identity tag as a
visible property (a CREATE of a name that is not a work name, Spark's own RENAME of a work table) and the metastore
write that moves the tag under the hidden key (:mod:`storage.catalogs.spark.sql.data_jobs`); declared here,
beside the engines, so that it is known without Spark (``ddl-log crash-points``)."""

from __future__ import annotations

from storage import crashpoints

TAG_VISIBLE = crashpoints.declare("create.tag_visible",
                                  "a table just created carries its tag as a visible property, not yet hidden")
