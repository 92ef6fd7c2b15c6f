"""Spark 4.1 (4.1.0 to 4.1.x): 4.3's facts (the TIME type, the JVM writer plans) but 4.0's answers in two places:
``DROP TABLE`` of a view is refused (``WRONG_COMMAND_FOR_OBJECT_TYPE``) and ``DROP FUNCTION`` of a missing function
fails with ``UNRESOLVED_ROUTINE``. Found by the smoke list run on pyspark 4.1.4 (2026-11-29: 187
passed, these 2 failed with 4.3's facts); pyspark 4.2.1 answers both as 4.3 does."""

from __future__ import annotations

import attrs

from storage.catalogs.spark.profiles import spark40, spark43

FACTS = attrs.evolve(spark43.FACTS, line="4.1", drop_table_drops_views=False,
                     missing_function_condition=spark40.FACTS.missing_function_condition)
