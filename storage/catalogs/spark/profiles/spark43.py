"""Spark 4.3 (4.3.0 to 4.3.x, the built-in Hive 2.3.10 metastore client): 4.0's conditions and JVM classes (the suite
found no condition or class the catalog uses renamed), and behaviours of its own: ``DROP TABLE`` of a view drops the
view, ``DROP FUNCTION`` of a missing function fails with ``ROUTINE_NOT_FOUND``, and the ``TIME`` type parses and
analyses but a CREATE of it fails when it runs while ``spark.sql.timeType.enabled`` is off (its default). Lines
between 4.0 and 4.3 without facts of their own get these (:func:`~storage.catalogs.spark.profiles.facts_for`: the
newest known line's)."""

from __future__ import annotations

import attrs

from storage.catalogs.spark.profiles import spark40
from storage.catalogs.spark.profiles.facts import DisabledType

FACTS = attrs.evolve(spark40.FACTS, line="4.3", drop_table_drops_views=True,
                     missing_function_condition="ROUTINE_NOT_FOUND",
                     disabled_types=(DisabledType('"time(', "spark.sql.timeType.enabled", "UNSUPPORTED_TIME_TYPE",
                                                  "The data type TIME is not supported."),))
