"""CREATE OR REPLACE TABLE with declared columns and its rows (``CreateOrReplaceTable.rows``, what the dbt adapter's
seed sends): one statement, the rows inserted as INSERT INTO inserts them; a row Spark's store assignment refuses
fails the statement and leaves the old table, its rows and the binlog as they were."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from ddl_log import AtomicDDL, InvalidDefinitionError, StatementFailedError

pytestmark = pytest.mark.spark

ROWS = "SELECT * FROM VALUES (CAST('1' AS INT), 'ab'), (2, NULL)"


def statement(ddl: AtomicDDL, rows: str, body: str = "(k INT, code VARCHAR(2)) USING parquet") -> Any:
    (created,) = ddl.statements_of(f"CREATE OR REPLACE TABLE default.seeded {body}")
    return attrs.evolve(created, rows=rows)


def test_columns_and_rows_are_one_replace(spark: Any, tmp_path: Any, clean_spark: Any) -> None:
    with AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0) as ddl:
        ddl.execute(statement(ddl, ROWS))
        spark.sql("INSERT INTO default.seeded VALUES (9, 'zz')")  # the old version's rows
        before = len(ddl.binlog_events())
        with pytest.raises(StatementFailedError):  # 'abc' is too long for VARCHAR(2), as INSERT INTO says
            ddl.execute(statement(ddl, "SELECT * FROM VALUES (3, 'abc')"))
        assert sorted(spark.table("default.seeded").collect()) == [(1, "ab"), (2, None), (9, "zz")]
        assert len(ddl.binlog_events()) == before and ddl.active_chains() == []
        result = ddl.execute(statement(ddl, "SELECT 4, 'cd'"))
        assert result.path == "swap"
        assert sorted(tuple(row) for row in spark.table("default.seeded").collect()) == [(4, "cd")]
        described = spark.sql("DESCRIBE TABLE default.seeded").collect()
        assert [(row.col_name, row.data_type) for row in described] == [("k", "int"), ("code", "varchar(2)")]
        with pytest.raises(InvalidDefinitionError):  # a definition with a query of its own takes no rows
            ddl.execute(statement(ddl, ROWS, "USING parquet AS SELECT 1 AS k"))
