"""The crash point of a CREATE between Spark's statement, which writes the new table's identity tag as a visible
property, and the metastore write that moves it under the hidden key
(:mod:`storage.catalogs.spark.sql.table_create`); declared here, beside the engines, so that it is known without
Spark (``ddl-log crash-points``)."""

from __future__ import annotations

from storage import crashpoints

TAG_VISIBLE = crashpoints.declare("create.tag_visible",
                                  "a table just created carries its tag as a visible property, not yet hidden")
