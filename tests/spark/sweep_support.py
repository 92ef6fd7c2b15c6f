"""Support for crash sweeps on real Spark: what a table looks like (schema + rows), what the warehouse holds, and
which crash points of a trace are worth a Spark run (the record.* points inside each log write are swept
exhaustively on the in-memory catalog; between a step's ``after`` and the next step's ``before`` nothing happens)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from ddl_log import AtomicDDL

ENGINE_INDEPENDENT = ("record.",)


def spark_worthy(points: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Every point of the trace except the record-level ones and an ``.after`` immediately followed by a ``.before``
    (the same instant as far as the catalog is concerned)."""
    kept: list[tuple[str, int]] = []
    filtered = [p for p in points if not p[0].startswith(ENGINE_INDEPENDENT)]
    for index, (name, nth) in enumerate(filtered):
        following = filtered[index + 1][0] if index + 1 < len(filtered) else ""
        if name.endswith(".after") and following.endswith(".before"):
            continue
        kept.append((name, nth))
    return kept


def table_state(spark: Any, name: str) -> tuple[str, int, Any] | None:
    """Schema, row count and a checksum of the rows; None when no such table."""
    if not spark.catalog.tableExists(name):
        return None
    frame = spark.table(name)
    rows = sorted(tuple(str(v) for v in row) for row in frame.collect())
    digest = hashlib.sha256(repr(rows).encode()).hexdigest()[:16]  # stable across processes, unlike hash()
    return frame.schema.simpleString(), len(rows), digest


def user_tables(spark: Any, db: str = "default") -> set[str]:
    return {row["tableName"] for row in spark.sql(f"SHOW TABLES IN `{db}`").collect() if not row["isTemporary"]}


def warehouse_dirs(warehouse: Path) -> set[str]:
    return {entry.name for entry in warehouse.iterdir() if entry.is_dir()} if warehouse.is_dir() else set()


def table_dirs(spark: Any, names: set[str], db: str = "default") -> set[str]:
    """The directory names the tables ``names`` live in (after a swap, a table's directory is not its name)."""
    dirs = set()
    for name in names:
        rows = spark.sql(f"DESCRIBE TABLE EXTENDED `{db}`.`{name}`").collect()
        location = next(row["data_type"] for row in rows if row["col_name"] == "Location")
        dirs.add(location.rstrip("/").rpartition("/")[2])
    return dirs


def table_kind(spark: Any, name: str, db: str = "default") -> str:
    rows = spark.sql(f"DESCRIBE TABLE EXTENDED `{db}`.`{name}`").collect()
    return str(next(row["data_type"] for row in rows if row["col_name"] == "Type"))


def assert_clean_log(ddl: AtomicDDL) -> None:
    assert ddl.active_chains() == [], "recovery left an active chain"
    assert ddl.abandoned_chains() == [], "recovery abandoned a chain"


CATALOG_STEPS = ("create_tmp", "fill_tmp", "exchange", "retire", "move_orig", "install", "drop_backup")


def catalog_points(points: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The instants around each catalog operation and the commit point: where Spark states differ. (Every point,
    record-level ones included, is swept on the in-memory catalog in tests/unit/test_statement_sweeps.py.)"""
    kept = []
    for name, nth in spark_worthy(points):
        parts = name.split(".")
        if (".do." in name or name.startswith(("forward.", "undo.", "fill.")) or name == "commit.after_binlog"
                or (parts[0] == "replace" and parts[1] in CATALOG_STEPS)
                or (name.endswith(".log.after") and parts[0].startswith(("drop_", "alter_table_forward")))):
            kept.append((name, nth))
    return kept
