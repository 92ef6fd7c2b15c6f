"""Spark's ``IDENTIFIER(<constant string>)`` in place of an object name, through ``AtomicDDL.sql`` on real Spark: the
same objects and rows as the same script through plain ``spark.sql``, each routed statement logged (binlogged)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL
from tests.spark.sweep_support import table_state, user_tables

pytestmark = pytest.mark.spark

SCRIPT = (
    "CREATE DATABASE IF NOT EXISTS ident_db",
    "CREATE TABLE IDENTIFIER('ident_db.' || 'tab') (a INT) USING parquet",
    "INSERT INTO IDENTIFIER('ident_db.ta' || 'b') VALUES (1), (2)",
    "CREATE TABLE IDENTIFIER('ident_db.copy') USING parquet AS SELECT a FROM ident_db.tab",
    "INSERT OVERWRITE TABLE IDENTIFIER('ident_db.copy') SELECT a * 10 AS a FROM ident_db.tab",
    "ALTER TABLE IDENTIFIER('ident_db.copy') RENAME TO ident_db.renamed",
    "CREATE VIEW IDENTIFIER('ident_db.v') AS SELECT a FROM ident_db.renamed",
    "TRUNCATE TABLE IDENTIFIER('`ident_db`.`tab`')",
    "DROP VIEW IDENTIFIER('ident_db.v')",
)


def state(spark: Any) -> tuple[Any, ...]:
    return (sorted(str(name) for name in user_tables(spark)),
            [row.a for row in spark.sql("SELECT a FROM ident_db.renamed ORDER BY a").collect()],
            table_state(spark, "ident_db.tab"))


def test_identifier_clauses_name_the_same_objects_as_on_plain_spark(clean_spark: Any, tmp_path: Path) -> None:
    spark = clean_spark
    for statement in SCRIPT:
        spark.sql(statement)
    plain = state(spark)
    spark.sql("DROP DATABASE ident_db CASCADE")

    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        ddl.sql(";\n".join(SCRIPT))
        logged = [event.statement for event in ddl.binlog_events()]
    assert state(spark) == plain
    assert len(logged) == len(SCRIPT), logged
