"""The version a binlog event records (for replicas) is the version the metastore holds after the statement: the
record the statement itself wrote is read back without a metastore call (``MetastoreClient.installed``), and must
describe exactly what a fresh read of the table gives, for every statement that records one and every kind of
table it may write."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ddl_log import AtomicDDL
from replace_table.plans.recorded_version import installed_version
from storage.catalogs.names import TableName

pytestmark = pytest.mark.spark

STATEMENTS = [
    "CREATE TABLE vr USING parquet AS SELECT 1 AS v, 'a' AS s",
    "CREATE OR REPLACE TABLE vr USING parquet COMMENT 'c' TBLPROPERTIES ('k'='v') AS SELECT 2 AS v, 'b' AS s",
    "INSERT OVERWRITE TABLE vr SELECT 3, 'c'",
    "CREATE OR REPLACE TABLE vr USING orc PARTITIONED BY (p) AS SELECT 4 AS v, 1 AS p",
    "INSERT OVERWRITE TABLE vr SELECT 5, 2",
    "INSERT OVERWRITE TABLE vr PARTITION (p = 1) SELECT 6",
    "CREATE OR REPLACE TABLE vr USING parquet CLUSTERED BY (v) INTO 2 BUCKETS AS SELECT 7 AS v",
    "CREATE OR REPLACE TABLE vr USING json OPTIONS ('compression'='none') AS SELECT 8 AS v, 'x' AS s",
    "CREATE OR REPLACE TABLE vr STORED AS parquet AS SELECT 9 AS v",
    "INSERT OVERWRITE TABLE vr SELECT 10",
]


@pytest.fixture
def ddl(clean_spark: Any, tmp_path: Any) -> Iterator[AtomicDDL]:
    with AtomicDDL(spark=clean_spark, home=tmp_path / "home", retention_seconds=3600) as engine:
        yield engine


def test_every_recorded_version_equals_a_fresh_read_of_the_table(ddl: AtomicDDL) -> None:
    for statement in STATEMENTS:
        if "STORED AS" in statement:  # RESTORE first: a Hive serde table's definition cannot be kept whole
            history = ddl.sql("DESCRIBE HISTORY vr")[-1].result.rows
            restored = [row.version for row in history if row.operation == "INSERT OVERWRITE"][-1]  # unpartitioned
            statement_and_record(ddl, f"RESTORE TABLE vr TO VERSION AS OF {restored}")
        statement_and_record(ddl, statement)


def statement_and_record(ddl: AtomicDDL, statement: str) -> None:
    ddl.sql(statement)
    recorded = ddl.binlog_events()[-1].version
    assert recorded is not None, statement
    assert recorded == installed_version(ddl.context(), TableName.of("default.vr")), statement
