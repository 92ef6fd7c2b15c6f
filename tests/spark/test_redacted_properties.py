"""Table properties Spark redacts in its outputs (``SHOW TBLPROPERTIES``, DESCRIBE: a key or value matching
``spark.redaction.regex`` shown as ``*********(redacted)``) are read as stored where a statement copies a table's
definition: INSERT OVERWRITE and TRUNCATE of a Hive serde table (whose empty copy is made by a CREATE statement from
the table's metadata) run as in plain Spark and keep the value; before, they were refused, the copy holding the
placeholder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL

pytestmark = pytest.mark.spark

TABLES = {
    "hive": "CREATE TABLE {t} (a INT) STORED AS parquet TBLPROPERTIES ('api_password'='hunter2', 'kept'='k')",
    "hive_partitioned": "CREATE TABLE {t} (a INT) PARTITIONED BY (p INT) STORED AS parquet "
                        "TBLPROPERTIES ('api_password'='hunter2', 'kept'='k')",
}
STATEMENTS = {
    "hive": ["INSERT OVERWRITE TABLE {t} SELECT 7", "TRUNCATE TABLE {t}"],
    "hive_partitioned": ["INSERT OVERWRITE TABLE {t} PARTITION (p=1) SELECT 7", "TRUNCATE TABLE {t}"],
}


def stored(spark: Any, table: str) -> dict[str, str]:
    properties = spark._jsparkSession.sharedState().externalCatalog().getTable("default", table).properties()
    return {key: str(properties.get(key).get()) for key in ("api_password", "kept") if properties.contains(key)}


@pytest.mark.parametrize("kind", sorted(TABLES))
def test_a_statement_copying_the_definition_keeps_a_redacted_property_as_stored(clean_spark: Any, tmp_path: Path,
                                                                                 kind: str) -> None:
    spark = clean_spark
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        for index, statement in enumerate(STATEMENTS[kind]):
            table = f"{kind}_{index}"
            spark.sql(TABLES[kind].format(t=table))
            ddl.sql(statement.format(t=table))
            assert stored(spark, table) == {"api_password": "hunter2", "kept": "k"}, statement
            assert spark.table(table).count() == (1 if statement.startswith("INSERT") else 0)
