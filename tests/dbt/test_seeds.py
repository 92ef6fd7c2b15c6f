"""A seed is one atomic statement of the adapter (CREATE OR REPLACE TABLE with the seed's columns and its rows), and it
makes the table plain dbt-spark makes: the same column types (inferred, ``column_types`` overrides, VARCHAR and
DECIMAL included), names (``quote_columns``), partitioning and rows (empty cells NULL), measured side by side in one
run; a seed seeded again is replaced in one binlogged statement and leaves the log with nothing to do."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from dbt.adapters.spark_ddl_log.homes import close_all
from tests.dbt.conftest import full_only

SEEDS = {
    "typed.csv": "id,name,price,day,at,flag,code\n"
                 "1,anna,3.50,2024-01-31,2024-01-31 10:00:00,true,ab\n"
                 "2,,12.25,,2024-02-01 00:00:01,false,\n"
                 "3,carl,,2024-03-01,,,xyzw\n",
    "parted.csv": "a,b,p\n1,x,10\n2,y,10\n3,z,20\n",
    "quoted.csv": "first name,Last Name\nada,lovelace\n",
    "empty.csv": "k,v\n",
}
CONFIG = {
    "typed": {"+column_types": {"id": "int", "price": "decimal(10,2)", "code": "varchar(4)"}},
    "parted": {"+partition_by": "p"},
    "quoted": {"+quote_columns": True},
}
SCHEMAS = {"plain": "seeds_plain", "atomic": "seeds_atomic"}


def seed(project: Path, target: str) -> None:
    from dbt.cli.main import dbtRunner

    result = dbtRunner().invoke(["seed", "--project-dir", str(project), "--profiles-dir", str(project),
                                 "--target", target, "--quiet"])
    assert result.success, result.exception


def table(spark: Any, schema: str, name: str) -> tuple[list[tuple[str, str]], list[tuple[Any, ...]], list[str]]:
    """Columns as DESCRIBE gives them (declared types: VARCHAR stays VARCHAR), rows, partition columns."""
    qualified = f"`{schema}`.`{name}`"
    described = spark.sql(f"DESCRIBE TABLE {qualified}").collect()
    columns = [(row.col_name, row.data_type) for row in described if row.col_name and not row.col_name.startswith("#")]
    rows = sorted((tuple(row) for row in spark.table(qualified).collect()), key=repr)
    partitions = [column.name for column in spark.catalog.listColumns(qualified) if column.isPartition]
    return columns, rows, partitions


@pytest.fixture
def project(spark: Any, tmp_path: Path) -> Any:
    (tmp_path / "seeds").mkdir()
    for name, text in SEEDS.items():
        (tmp_path / "seeds" / name).write_text(text)
    (tmp_path / "dbt_project.yml").write_text(yaml.safe_dump(
        {"name": "seeds", "version": "1.0", "config-version": 2, "profile": "seeds",
         "seeds": {"seeds": CONFIG}}))
    common = {"method": "session", "host": "localhost", "threads": 1}
    outputs = {"plain": {"type": "spark", "schema": SCHEMAS["plain"], **common},
               "atomic": {"type": "spark_ddl_log", "schema": SCHEMAS["atomic"], "grace_seconds": 0,
                          "ddl_log_home": str(tmp_path / "ddl_home"), **common}}
    (tmp_path / "profiles.yml").write_text(yaml.safe_dump({"seeds": {"target": "plain", "outputs": outputs}}))
    yield tmp_path
    close_all()
    warehouse = Path(str(spark.conf.get("spark.sql.warehouse.dir")).removeprefix("file:"))
    for schema in SCHEMAS.values():
        spark.sql(f"DROP DATABASE IF EXISTS `{schema}` CASCADE")
        shutil.rmtree(warehouse / f"{schema}.db", ignore_errors=True)


@full_only
def test_a_seed_is_one_statement_making_the_table_plain_dbt_spark_makes(spark: Any, project: Path) -> None:
    from ddl_log import AtomicDDL

    seed(project, "plain")
    seed(project, "atomic")
    for name in ("typed", "parted", "quoted", "empty"):
        assert table(spark, SCHEMAS["atomic"], name) == table(spark, SCHEMAS["plain"], name), name
    columns, rows, partitions = table(spark, SCHEMAS["atomic"], "typed")
    assert ("code", "varchar(4)") in columns and ("price", "decimal(10,2)") in columns and ("id", "int") in columns
    assert len(rows) == 3 and partitions == []
    assert table(spark, SCHEMAS["atomic"], "parted")[2] == ["p"]
    # Spark puts a partition column last in the table: a CSV with it in the middle still loads each value into its
    # column (as the stage-and-replace adapter did; plain dbt-spark inserts by position)
    (project / "seeds" / "parted.csv").write_text("a,p,b\n1,10,x\n2,20,y\n")
    seed(project, "atomic")  # seeded again: each seed replaced by one statement
    rows = sorted(tuple(row) for row in spark.sql(f"SELECT a, p, b FROM {SCHEMAS['atomic']}.parted").collect())
    assert rows == [(1, 10, "x"), (2, 20, "y")]
    close_all()
    with AtomicDDL(spark=spark, home=project / "ddl_home") as ddl:
        assert ddl.active_chains() == [] and ddl.abandoned_chains() == []
        texts = [event.statement for event in ddl.binlog_events()]
    for name in ("typed", "parted", "quoted", "empty"):
        ours = [text for text in texts if f"{SCHEMAS['atomic']}.{name}" in text]
        assert len(ours) == 2 and all(text.lower().lstrip().startswith("create or replace table") for text in ours)
    assert not [text for text in texts if "seed_stage" in text]
