"""TRUNCATE and INSERT OVERWRITE build the new version as an empty copy of the table (one metastore call where the
metastore alone can make it): the table they leave must be defined exactly as after Spark's own statement."""

from __future__ import annotations

import re
from typing import Any

import pytest

from ddl_log import AtomicDDL

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("spare_shared")]

DEFINITIONS = {
    "properties_and_comment": "(a INT, b STRING) USING parquet COMMENT 'hello \\'quoted\\'' "
                              "TBLPROPERTIES ('team' = 'etl', 'odd' = 'tab\\there')",
    "options_and_buckets": "(a INT, b STRING) USING parquet OPTIONS ('compression' = 'gzip') "
                           "CLUSTERED BY (a) SORTED BY (a) INTO 4 BUCKETS",
    "partitioned": "(a INT, p STRING) USING parquet PARTITIONED BY (p) TBLPROPERTIES ('k' = 'v')",
    "orc_with_column_comments": "(a INT COMMENT 'the key', b DECIMAL(10, 2) NOT NULL) USING orc",
}


def definition(spark: Any, name: str) -> str:
    """SHOW CREATE TABLE without what must differ: the table's name, its location and the log's tag."""
    text = spark.sql(f"SHOW CREATE TABLE {name}").collect()[0][0]
    text = text.replace(f"spark_catalog.default.{name}", "T")
    text = re.sub(r"LOCATION '[^']*'\n", "", text)
    head, _, properties = text.partition("TBLPROPERTIES (")
    kept = [line.strip().rstrip(",").removesuffix(")") for line in properties.strip().splitlines()]
    kept = [line for line in kept if line and not line.startswith("'spark_ddl_log.tag'")]
    return head + (f"TBLPROPERTIES ({', '.join(kept)})" if kept else "")


def statistics(spark: Any, name: str) -> str | None:
    rows = spark.sql(f"DESCRIBE TABLE EXTENDED {name}").collect()
    return next((row[1] for row in rows if row[0] == "Statistics"), None)


def make(spark: Any, name: str, shape: str) -> None:
    """A table of ``shape`` with one row and computed statistics."""
    spark.sql(f"CREATE TABLE {name} {DEFINITIONS[shape]}")
    spark.sql(f"INSERT INTO {name} VALUES (1, 2.5)" if "decimal" in DEFINITIONS[shape].lower() else
              f"INSERT INTO {name} SELECT * FROM VALUES (1, 'x') AS v(a, b)")
    spark.sql(f"ANALYZE TABLE {name} COMPUTE STATISTICS")


@pytest.fixture(scope="module")
def sources(spark: Any, shared_db: str) -> dict[str, str]:
    """For each shape, the table INSERT OVERWRITE selects from: made once for the module, only read."""
    names = {shape: f"{shared_db}.{shape}" for shape in DEFINITIONS}
    for shape, name in names.items():
        make(spark, name, shape)
    return names


@pytest.mark.parametrize("shape", sorted(DEFINITIONS))
@pytest.mark.parametrize("statement", ["truncate", "insert_overwrite"])
def test_the_copy_is_defined_as_after_sparks_own_statement(spark, tmp_path, sources, shape, statement):
    for name in ("plain", "ours"):
        make(spark, name, shape)
    ddl = AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0)
    if statement == "truncate":
        spark.sql("TRUNCATE TABLE plain")
        ddl.truncate_table("ours")
    else:
        spark.sql(f"INSERT OVERWRITE TABLE plain SELECT * FROM {sources[shape]}")
        ddl.insert_overwrite("ours", as_select=f"SELECT * FROM {sources[shape]}")
    ddl.close()
    assert definition(spark, "ours") == definition(spark, "plain")
    assert sorted(map(tuple, spark.table("ours").collect())) == sorted(map(tuple, spark.table("plain").collect()))
    if statement == "truncate" and shape != "partitioned":
        assert statistics(spark, "ours") == statistics(spark, "plain")


def test_the_empty_copy_of_a_managed_data_source_table_is_made_by_the_metastore_alone(spark, tmp_path):
    """No CREATE TABLE LIKE through Spark (and no DESCRIBE for the properties): one metastore call."""
    spark.sql(f"CREATE TABLE t {DEFINITIONS['properties_and_comment']}")
    ddl = AtomicDDL(spark=spark, home=tmp_path / "home", grace_seconds=0)
    spark_creates: list[Any] = []
    engine_create = ddl.catalog.data.create_by_statement
    ddl.catalog.data.create_by_statement = lambda *args: spark_creates.append(args) or engine_create(*args)
    ddl.truncate_table("t")
    ddl.close()
    assert spark_creates == []
    assert spark.sql("SHOW TABLES").filter("tableName LIKE 'ddllog%'").count() == 0
