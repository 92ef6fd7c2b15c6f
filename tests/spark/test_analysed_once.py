"""A statement the log runs is parsed, analysed and optimised by Spark as often as plain Spark's own statement: its
check analyses it before anything is logged (what Spark refuses is refused first), and the statement then runs the
plan that check made (a CREATE's under its work table's name and tag). Measured with Spark's own rule metering:
every analyzer and optimizer rule runs (and changes the plan) as many times for the atomic statement as for the
plain one; a CTAS created in place changes the plan as often and runs no rule more often (it runs Spark's write job,
not the CTAS command's own execution). A second analysis cost 15 to 25 ms per statement."""

from __future__ import annotations

import re
from typing import Any

import pytest

from ddl_log import AtomicDDL
from storage.catalogs.spark.profile import jvm_of

pytestmark = pytest.mark.spark

ROWS = "SELECT id, id * 2 AS v, concat('r', id) AS s FROM range(10)"


def rule_runs(spark: Any) -> dict[str, tuple[int, int]]:
    """Per rule of Spark's analyzer and optimizer: (runs that changed the plan, runs), counted since the JVM began."""
    jvm = jvm_of(spark)
    assert jvm is not None
    report = str(jvm.view.org.apache.spark.sql.catalyst.rules.RuleExecutor.dumpTimeSpent())
    found = (re.match(r"(\S+)\s+\d+ / \d+\s+(\d+) / (\d+)", line) for line in report.splitlines())
    return {m.group(1): (int(m.group(2)), int(m.group(3))) for m in found if m}


def rules_run_by(spark: Any, statement: Any) -> dict[str, tuple[int, int]]:
    before = rule_runs(spark)
    statement()
    after = rule_runs(spark)
    return {rule: (runs[0] - before.get(rule, (0, 0))[0], runs[1] - before.get(rule, (0, 0))[1])
            for rule, runs in after.items() if runs != before.get(rule, (0, 0))}


@pytest.mark.parametrize("form", ["sql", "api"])
def test_a_create_table_as_select_runs_the_rules_plain_spark_runs(clean_spark: Any, tmp_path: Any, form: str) -> None:
    spark = clean_spark
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        ddl.sql(f"CREATE TABLE warm USING parquet AS {ROWS}")  # classes loaded, caches filled on both sides
        spark.sql(f"CREATE TABLE plain_warm USING parquet AS {ROWS}")
        plain = rules_run_by(spark, lambda: spark.sql(f"CREATE TABLE plain_t USING parquet AS {ROWS}"))
        if form == "sql":
            atomic = rules_run_by(spark, lambda: ddl.sql(f"CREATE TABLE t USING parquet AS {ROWS}"))
        else:
            atomic = rules_run_by(spark, lambda: ddl.create_table("t", as_select=ROWS, using="parquet"))
    # the direct create runs Spark's CTAS as far as its rows (its own write job), not the command's own execution:
    # every rule changes the plan as often as for plain Spark, none runs more often (the command node itself is
    # neither analysed again nor optimised)
    for rule in set(atomic) | set(plain):
        ours, theirs = atomic.get(rule, (0, 0)), plain.get(rule, (0, 0))
        assert ours[0] == theirs[0] and ours[1] <= theirs[1], (rule, ours, theirs)


def test_an_insert_into_runs_the_rules_plain_spark_runs(clean_spark: Any, tmp_path: Any) -> None:
    spark = clean_spark
    spark.sql("CREATE TABLE plain_t (id BIGINT, v BIGINT, s STRING) USING parquet")
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        ddl.sql("CREATE TABLE t (id BIGINT, v BIGINT, s STRING) USING parquet")
        ddl.sql(f"INSERT INTO t {ROWS}")
        spark.sql(f"INSERT INTO plain_t {ROWS}")
        plain = rules_run_by(spark, lambda: spark.sql(f"INSERT INTO plain_t {ROWS}"))
        atomic = rules_run_by(spark, lambda: ddl.sql(f"INSERT INTO t {ROWS}"))
    assert atomic == plain


def test_an_insert_overwrite_written_in_place_runs_the_rules_plain_spark_runs(clean_spark: Any, tmp_path: Any) -> None:
    """The write path's job is Spark's analysed INSERT pointed at the new directory and marked analysed, so Spark's
    analyzer does not run on it again: every analyzer rule runs as often as for plain Spark's INSERT OVERWRITE."""
    spark = clean_spark
    spark.sql("CREATE TABLE plain_t (id BIGINT, v BIGINT, s STRING) USING parquet")
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        ddl.sql("CREATE TABLE t (id BIGINT, v BIGINT, s STRING) USING parquet")
        assert ddl.insert_overwrite("t", as_select=ROWS).path == "write"
        spark.sql(f"INSERT OVERWRITE plain_t {ROWS}")
        plain = rules_run_by(spark, lambda: spark.sql(f"INSERT OVERWRITE plain_t {ROWS}"))
        atomic = rules_run_by(spark, lambda: ddl.sql(f"INSERT OVERWRITE t {ROWS}"))

    def analyzer_runs(runs: dict[str, tuple[int, int]]) -> dict[str, int]:
        # how often each analyzer rule ran (what it changed differs: the job is the rows' INSERT INTO, not the
        # INSERT OVERWRITE, whose resolution of the table differs)
        return {rule: count for rule, (_, count) in runs.items() if ".catalyst.analysis." in rule}

    assert analyzer_runs(atomic) == analyzer_runs(plain)
