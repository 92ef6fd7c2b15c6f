"""A CREATE TABLE AS SELECT issued as ``spark.sql`` on an attached session is analysed and its write planned by
Spark as often as plain Spark's own CTAS (the routed statement's check analyses it under its work table's name, whose
create runs that plan): the rules that act on a CREATE and its write change a plan as often, measured with Spark's
rule metering (tests/spark/test_analysed_once.py has the ``ddl.sql`` and API forms, where every rule runs as often).
The routed path analyses one more plan that is no CREATE besides (rules run, changing nothing, a few more times:
found 2026-12-01, not yet attributed)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.attached.conftest import Attached
from tests.spark.test_analysed_once import ROWS, rules_run_by

pytestmark = pytest.mark.spark

CREATE_RULES = (
    "org.apache.spark.sql.execution.datasources.DataSourceAnalysis",
    "org.apache.spark.sql.execution.datasources.PreprocessTableCreation",
    "org.apache.spark.sql.execution.datasources.V1Writes",
    "org.apache.spark.sql.catalyst.analysis.ResolveSessionCatalog",
    "org.apache.spark.sql.catalyst.analysis.Analyzer$ResolveRelations",
)
"""Rules that resolve a CREATE ... AS SELECT's target and plan its write: analysed twice, it changes a plan twice."""


def test_a_routed_create_table_as_select_runs_the_rules_plain_spark_runs(clean_spark: Any,
                                                                        attached: Attached) -> None:
    spark, session = clean_spark, attached.session
    session.sql(f"CREATE TABLE warm USING parquet AS {ROWS}")  # classes loaded, caches filled on both sides
    spark.sql(f"CREATE TABLE plain_warm USING parquet AS {ROWS}")
    plain = rules_run_by(spark, lambda: spark.sql(f"CREATE TABLE plain_t USING parquet AS {ROWS}"))
    routed = rules_run_by(spark, lambda: session.sql(f"CREATE TABLE t USING parquet AS {ROWS}"))
    # runs that changed a plan: a CREATE analysed or its write planned twice changes one twice
    changed = {rule: routed.get(rule, (0, 0))[0] for rule in CREATE_RULES}
    assert changed == {rule: plain.get(rule, (0, 0))[0] for rule in CREATE_RULES}
    assert changed[CREATE_RULES[0]] == 1  # the rules are named as Spark names them
    assert attached.ddl.binlog_events()[-1].statement.startswith("CREATE TABLE t")
