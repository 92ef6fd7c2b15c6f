"""The small statements between a pipeline's data jobs (a dbt run's schemas, views and table properties, a migration's
ALTERs, a notebook's partitions) through ``ddl.sql`` beside the same text through ``spark.sql``, paired in one run as
``bench/test_statements.py`` pairs its statements. Plain Spark runs each in one or two metastore calls; what the log
adds (its lookups of the object, the old definition it logs for an undo, a durable write and the binlog's) must stay
a few milliseconds: the first run of this file found up to 95 ms of reads on some of them (three Spark statements to
read a table's metadata, a DESCRIBE per view, three SHOW statements per dropped database).

``{k}`` in a statement is the kind (``plain``, ``paired``, ``atomic``: each side has objects of its own) and ``{n}``
the round, so that every round makes or changes something new.
"""

from __future__ import annotations

from typing import Any

import pytest

from bench.conftest import run
from bench.test_statements import Scenario, cases, measure_paired

ROUNDS = 11
BASE = "CREATE TABLE IF NOT EXISTS `default`.`{table}_{k}` (a INT, b STRING) USING parquet"


def small(id: str, group: str, statement: str, *, prepare: tuple[str, ...] = (),
          setup: tuple[str, ...] = (), cleanup: tuple[str, ...] = ()) -> Scenario:
    """``statement`` after ``prepare`` (once per kind) and ``setup`` (before each round, untimed); ``cleanup`` once
    at the end, for every round's ``{n}`` (what the default database's clean-up does not drop)."""
    rounds: dict[str, int] = {}

    def text(template: str, kind: str, n: int | None = None) -> str:
        return template.format(k=kind, n=rounds.get(kind, 0) if n is None else n)

    def do_setup(spark: Any, kind: str) -> None:
        rounds[kind] = rounds.get(kind, 0) + 1
        run(spark, *(text(s, kind) for s in setup))

    def check(spark: Any, kind: str) -> None:
        for n in range(1, rounds.get(kind, 0) + 1):
            run(spark, *(text(s, kind, n) for s in cleanup))

    return Scenario(id, group, 0,
                    plain=lambda spark, kind: run(spark, text(statement, kind)),
                    atomic=lambda ddl, kind: ddl.sql(text(statement, kind)),
                    setup=do_setup, prepare=lambda spark, kind: run(spark, *(text(s, kind) for s in prepare)),
                    check=check)


SMALL = [
    small("set_tblproperties", "ALTER TABLE SET TBLPROPERTIES",
          "ALTER TABLE `default`.`sp_{k}` SET TBLPROPERTIES ('round' = '{n}')",
          prepare=(BASE.format(table="sp", k="{k}"),)),
    small("add_columns", "ALTER TABLE ADD COLUMNS",
          "ALTER TABLE `default`.`ac_{k}` ADD COLUMNS (c{n} INT)", prepare=(BASE.format(table="ac", k="{k}"),)),
    small("column_comment", "ALTER TABLE ALTER COLUMN COMMENT",
          "ALTER TABLE `default`.`cc_{k}` ALTER COLUMN a COMMENT 'round {n}'",
          prepare=(BASE.format(table="cc", k="{k}"),)),
    small("add_partition", "ALTER TABLE ADD PARTITION",
          "ALTER TABLE `default`.`ap_{k}` ADD PARTITION (p = {n})",
          prepare=("CREATE TABLE IF NOT EXISTS `default`.`ap_{k}` (a INT, p INT) USING parquet PARTITIONED BY (p)",)),
    small("drop_partition", "ALTER TABLE DROP PARTITION",
          "ALTER TABLE `default`.`dp_{k}` DROP PARTITION (p = {n})",
          prepare=("CREATE TABLE IF NOT EXISTS `default`.`dp_{k}` (a INT, p INT) USING parquet PARTITIONED BY (p)",),
          setup=("ALTER TABLE `default`.`dp_{k}` ADD PARTITION (p = {n})",)),
    small("create_table", "CREATE TABLE (columns, no rows)",
          "CREATE TABLE `default`.`ct_{k}_{n}` (a INT, b STRING) USING parquet"),
    small("create_view", "CREATE VIEW", "CREATE VIEW `default`.`cv_{k}_{n}` AS SELECT 1 AS x"),
    small("create_or_replace_view", "CREATE OR REPLACE VIEW",
          "CREATE OR REPLACE VIEW `default`.`crv_{k}` AS SELECT a FROM `default`.`vb_{k}` WHERE a > {n}",
          prepare=(BASE.format(table="vb", k="{k}"),)),
    small("alter_view", "ALTER VIEW AS",
          "ALTER VIEW `default`.`av_{k}` AS SELECT a FROM `default`.`avb_{k}` WHERE a > {n}",
          prepare=(BASE.format(table="avb", k="{k}"),
                   "CREATE OR REPLACE VIEW `default`.`av_{k}` AS SELECT a FROM `default`.`avb_{k}`")),
    small("drop_view", "DROP VIEW", "DROP VIEW `default`.`dv_{k}_{n}`",
          setup=("CREATE VIEW `default`.`dv_{k}_{n}` AS SELECT 1 AS x",)),
    small("create_database", "CREATE DATABASE", "CREATE DATABASE `cdb_{k}_{n}`",
          cleanup=("DROP DATABASE IF EXISTS `cdb_{k}_{n}`",)),
    small("drop_database", "DROP DATABASE", "DROP DATABASE `ddb_{k}_{n}`", setup=("CREATE DATABASE `ddb_{k}_{n}`",)),
]


@pytest.mark.parametrize(("scenario", "kind"), cases(SMALL))
def test_small_statement(benchmark: Any, ddl: Any, clean: Any, scenario: Scenario, kind: str) -> None:
    measure_paired(benchmark, ddl, clean, scenario, kind, rounds=ROUNDS, warmup=1)
