"""TRUNCATE TABLE and INSERT OVERWRITE (every form and mode) leave exactly what plain Spark's own statement leaves.

Plain Spark runs these statements itself, so the expectation is differential: the same shape is made twice, plain
Spark runs the statement on one table and the project on the other, and the two are compared (definition, rows,
partitions). Where plain Spark refuses the statement (TRUNCATE of an EXTERNAL table, a dynamic partition insert into
a Hive table in strict mode, ...), the project must refuse it too, naming the table, and change nothing at all.

The two general properties leave out EXTERNAL tables for INSERT OVERWRITE (refused as not atomic: a property of
its own below) and Hive tables bucketed by a mixed-case column (a known defect: a strict xfail property below, which
turns red when it is fixed). TRUNCATE of an EXTERNAL table, of a partitioned table, and static overwrites of
partitioned Hive tables each keep a property of their own too (once defects, now fixed).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ddl_log import NotAtomicError, UnsupportedStatementError
from tests.preservation.cases import InsertInto, InsertOverwrite, Truncate, insert_intos, insert_overwrites, truncates
from tests.preservation.conftest import budget
from tests.preservation.harness import RECORD, Bench, Example, Outcome, judge, note_route, space
from tests.preservation.shapes import HIVE_FORMATS, hive_bucketed_by_mixed_case

pytestmark = pytest.mark.spark
MODE = "spark.sql.sources.partitionOverwriteMode"


def run_differential(bench: Bench, case: Truncate | InsertOverwrite) -> None:
    with bench.example() as example:
        table, twin = example.make(case.shape, "ours"), example.make(case.shape, "spark")
        spark = example.run(lambda: example.spark.sql(case.statement(twin)), case.settings)
        before, binlog_before = example.snapshot(table), example.binlog_size()
        outcome = run_project(example, case, table)
        note_route(outcome)
        expected = None if spark.refused else example.snapshot(twin)
        bench.verdict(case, judge(example, table, expected=expected, spark_said=spark.describe(), outcome=outcome,
                                  before=before, binlog_before=binlog_before))


def run_project(example: Example, case: Truncate | InsertOverwrite, table: str) -> Outcome:
    """The project's statement: through the SQL front end (a script that SETs the mode first, when the case has
    one), or through the Python API (the mode as ``overwrite_mode``, the session left at its default)."""
    ddl = example.ddl
    if isinstance(case, Truncate):
        if case.via == "api":
            return example.run(lambda: ddl.truncate_table(table))
        return example.run(lambda: ddl.sql(case.statement(table)))
    if isinstance(case, InsertInto) and case.via == "api":
        return example.run(lambda: ddl.insert_into(table, as_select=case.query(), partition=case.partition()))
    if case.via == "api":
        return example.run(lambda: ddl.insert_overwrite(table, as_select=case.query(), partition=case.partition(),
                                                        overwrite_mode=case.mode, if_not_exists=case.if_not_exists))
    script = "".join(f"SET {key}={value};\n" for key, value in case.settings.items()) + case.statement(table)
    with example.settings({MODE: str(example.spark.conf.get(MODE))}):  # the script's SET is undone afterwards
        return example.run(lambda: ddl.sql(script))


def unless_known(case: Truncate | InsertOverwrite) -> bool:
    """Not a case of a known defect (each has its own property below), unless in a discovery run."""
    return bool(RECORD) or not hive_bucketed_by_mixed_case(case.shape)


@given(case=truncates(**space(external=False)).filter(unless_known))
@budget(6)
def test_truncate_leaves_what_sparks_truncate_leaves(bench: Bench, case: Truncate) -> None:
    run_differential(bench, case)


def hive_static_overwrite(case: InsertOverwrite) -> bool:
    """An INSERT OVERWRITE in static mode of a partitioned Hive serde table, not of one whole partition: plain Spark
    follows Hive and replaces only the partitions the query writes rows to (as in dynamic mode); the project
    replaces what a data source table's static overwrite replaces (a known defect)."""
    full = case.spec is not None and all(value is not None for _, value in case.spec)
    return case.shape.hive and bool(case.shape.partition_columns) and case.mode != "dynamic" and not full


@given(case=insert_overwrites(**space(external=False)).filter(unless_known))
@budget(10)
def test_insert_overwrite_leaves_what_sparks_insert_overwrite_leaves(bench: Bench, case: InsertOverwrite) -> None:
    run_differential(bench, case)


@given(case=insert_intos(**space(external=False)).filter(unless_known))
@budget(3)
def test_insert_into_leaves_what_sparks_insert_into_leaves(bench: Bench, case: InsertInto) -> None:
    run_differential(bench, case)


# -- known defects and documented limitations, one property each (every example has the feature)


@given(case=truncates(external=True, partitions=(0, 0)))
@budget(3)
def test_truncate_of_an_external_table_is_refused_as_spark_refuses_it(bench: Bench, case: Truncate) -> None:
    run_differential(bench, case)


@given(case=truncates(external=False, partitions=(1, 2)).filter(lambda case: case.shape.rows
                                                                or case.shape.empty_partition))
@budget(3)
def test_truncate_of_a_partitioned_table_keeps_its_partitions(bench: Bench, case: Truncate) -> None:
    run_differential(bench, case)


@given(case=insert_overwrites(external=True))
@budget(3)
def test_insert_overwrite_of_an_external_table_is_refused_as_not_atomic_and_changes_nothing(
        bench: Bench, case: InsertOverwrite) -> None:
    """Spark rewrites an external table's files in place, which no swap can make atomic (README, "SQL front end"):
    the project refuses it, naming the table, and leaves table and binlog as they were."""
    with bench.example() as example:
        table = example.make(case.shape, "ours")
        before, binlog_before = example.snapshot(table), example.binlog_size()
        outcome = run_project(example, case, table)
        assert isinstance(outcome.error, NotAtomicError | UnsupportedStatementError), outcome.describe()
        assert table.split(".")[-1] in str(outcome.error)
        assert example.snapshot(table) == before and example.binlog_size() == binlog_before


@given(case=insert_overwrites(formats=("hive-orc", "hive-parquet"), partitions=(1, 2), external=False,
                              empty_partition=True).filter(lambda case: hive_static_overwrite(case)
                                                           and case.shape.empty_partition is not None))
@budget(3)
def test_static_insert_overwrite_of_a_partitioned_hive_table_replaces_what_spark_replaces(
        bench: Bench, case: InsertOverwrite) -> None:
    run_differential(bench, case)


HIVE_BUCKETED = {"formats": tuple(HIVE_FORMATS), "bucketed": True, "external": False, "partitions": (0, 0)}


@pytest.mark.xfail(strict=True, reason="defect: TRUNCATE and INSERT OVERWRITE fail on a Hive serde table bucketed by "
                                       "a mixed-case column (the metastore refuses the project's copy and rename: "
                                       "'Bucket columns X is not part of the table columns'), where plain Spark's "
                                       "statements succeed")
@given(case=st.one_of(truncates(**HIVE_BUCKETED), insert_overwrites(**HIVE_BUCKETED)).filter(
    lambda case: hive_bucketed_by_mixed_case(case.shape)))
@budget(3)
def test_truncate_and_insert_overwrite_of_a_hive_table_bucketed_by_a_mixed_case_column(
        bench: Bench, case: Truncate | InsertOverwrite) -> None:
    run_differential(bench, case)


@given(case=insert_intos(**HIVE_BUCKETED).filter(lambda case: hive_bucketed_by_mixed_case(case.shape)))
@budget(2)
def test_insert_into_a_hive_table_bucketed_by_a_mixed_case_column(bench: Bench, case: InsertInto) -> None:
    """Written in place (the test session has the project's jar), no empty copy is made, so the metastore's bucket
    column check that refused the copy of such a table ('Bucket columns X is not part of the table columns') is never
    met: the rows arrive as with plain Spark. (Written aside, on a session without the jar, it still fails: see
    docs/limitations.md.)"""
    run_differential(bench, case)
