"""A partitioned table's directory as plain Spark leaves it, through an attached session's own calls (``spark.sql``,
``insertInto``): Spark's overwrite of some partitions deletes only the directories it replaces and its TRUNCATE
empties only the partitions the records name, so everything else under the table outlives the statement. The new
version the log writes at a directory of its own must hold it too: partition directories no record names (files
landed for a later ``MSCK REPAIR TABLE``, one with nothing but a ``_SUCCESS``, an empty one), the ``_SUCCESS`` of a
kept partition (a pipeline's sensor waits for it), partition values with odd bytes (escaped ``/`` and ``=``, spaces,
non-ASCII, the NULL partition). Each call runs on ``ours`` through the log and on ``plain`` as plain Spark: the same
markers, and after a repair the same partitions and rows. Before 2026-12-04 (sixth) every marker and every
directory without a data file was lost."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.spark.sweep_support import assert_clean_log
from tests.spark.test_unregistered_partitions import location

pytestmark = pytest.mark.spark

MODE = "spark.sql.sources.partitionOverwriteMode"
CREATES = {
    "data source": "CREATE TABLE {t} (id INT, p STRING) USING parquet PARTITIONED BY (p)",
    "Hive serde": "CREATE TABLE {t} (id INT) PARTITIONED BY (p STRING) STORED AS parquet",
}
LANDED = ("p=l%2Fz", "p=ü é", "p=l%3Dq", "p=__HIVE_DEFAULT_PARTITION__", "p=x%2Fy")
"""Directories with a data file landed in them (``p=x%2Fy`` is also a partition's: a file added to it)."""
MARKED = ("p=ü", "p=l%2Fz", "p=x%2Fy")
"""Directories with a ``_SUCCESS``: a kept partition, a landed one, the one the static overwrite replaces."""

CALLS: dict[str, tuple[str, Callable[[Any, str], Any]]] = {  # the overwrite mode, the call on table t
    "spark.sql dynamic overwrite": ("dynamic", lambda s, t: s.sql(f"INSERT OVERWRITE TABLE {t} SELECT 9, 'a b'")),
    "spark.sql static overwrite": ("static",
                                   lambda s, t: s.sql(f"INSERT OVERWRITE TABLE {t} PARTITION (p = 'x/y') SELECT 9")),
    "spark.sql static overwrite of a landed directory": (
        "static", lambda s, t: s.sql(f"INSERT OVERWRITE TABLE {t} PARTITION (p = 'l/z') SELECT 9")),
    "spark.sql TRUNCATE": ("static", lambda s, t: s.sql(f"TRUNCATE TABLE {t}")),
    "insertInto dynamic overwrite": (
        "dynamic", lambda s, t: s.range(1).selectExpr("CAST(9 AS INT) AS id", "'x/y' AS p").write.insertInto(
            t, overwrite=True)),
}


def make(spark: Any, table: str, create: str) -> None:
    """``table`` with partitions ``a b``, ``x/y`` and ``ü``, and under its directory: :data:`LANDED`, a
    ``_SUCCESS`` in each of :data:`MARKED`, ``p=empty`` (nothing in it) and ``p=succ`` (a ``_SUCCESS`` only)."""
    spark.sql(create.format(t=table))
    spark.sql(f"INSERT INTO {table} PARTITION (p) VALUES (1, 'a b'), (2, 'x/y'), (3, 'ü')")
    root = location(spark, table)
    source = next(path for path in (root / "p=a b").iterdir() if not path.name.startswith((".", "_")))
    for directory in LANDED:
        (root / directory).mkdir(exist_ok=True)
        shutil.copy(source, root / directory / "part-landed")
    for directory in (*MARKED, "p=succ"):
        (root / directory).mkdir(exist_ok=True)
        (root / directory / "_SUCCESS").write_text("")
    (root / "p=empty").mkdir()


def markers(spark: Any, table: str) -> list[str]:
    root = location(spark, table)
    return sorted(str(path.relative_to(root)) for path in root.glob("p=*/_SUCCESS"))


def repaired(spark: Any, table: str) -> tuple[list[str], list[tuple[str, int]]]:
    """``table``'s partitions and its rows by partition after ``MSCK REPAIR TABLE``."""
    spark.sql(f"MSCK REPAIR TABLE {table}")
    spark.catalog.refreshTable(table)
    partitions = sorted(row[0] for row in spark.sql(f"SHOW PARTITIONS {table}").collect())
    counts = spark.sql(f"SELECT p, count(*) FROM {table} GROUP BY p").collect()
    return partitions, sorted((str(row[0]), row[1]) for row in counts)


@pytest.mark.parametrize("create", CREATES)
@pytest.mark.parametrize("call", CALLS)
def test_the_table_directory_is_left_as_plain_spark_leaves_it(clean_spark: Any, attached: Any, tmp_path: Path,
                                                              call: str, create: str) -> None:
    spark = clean_spark
    make(spark, "ours", CREATES[create])
    make(spark, "plain", CREATES[create])
    mode, run = CALLS[call]
    attached.session.conf.set(MODE, mode)
    spark.conf.set(MODE, mode)
    try:
        run(attached.session, "ours")
        run(spark, "plain")
    finally:
        spark.conf.unset(MODE)
    assert markers(spark, "ours") == markers(spark, "plain")
    assert repaired(spark, "ours") == repaired(spark, "plain")
    assert attached.ddl.binlog_events()  # it went through the log
    assert_clean_log(attached.ddl)
