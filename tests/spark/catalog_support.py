"""Helpers of the The Spark catalog tests (test_spark_catalog*.py, test_spark_objects/databases/alter.py): names,
hostile user text, specs, and what a table or directory holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from storage.catalogs.interface import Column, TableSpec
from storage.catalogs.names import TableName

HOSTILE = "it's \\ a \"test\" ${env:HOME} ${spark.app.name} -- /* \n ü 漢字 🙂 ' \\"
"""User text with every kind of byte that could break quoting, substitution or a log line."""
ABS = "org.apache.hadoop.hive.ql.udf.generic.GenericUDFAbs"
UPPER = "org.apache.hadoop.hive.ql.udf.generic.GenericUDFUpper"
BOOM_SELECT = "SELECT CASE WHEN id = 5000 THEN raise_error('boom') ELSE id END AS v, id % 3 AS k FROM range(10000)"


def T(name: str, db: str = "default") -> TableName:  # noqa: N802 - reads like a constructor
    return TableName(db, name)


def columns(*pairs: tuple[str, str]) -> tuple[Column, ...]:
    return tuple(Column(name, type_) for name, type_ in pairs)


SIMPLE = TableSpec(columns=columns(("a", "int"), ("b", "string")))


def describe(spark: Any, name: TableName) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(spark.sql(f"DESCRIBE TABLE EXTENDED {name.quoted} AS JSON").first()[0])
    return result


def properties(spark: Any, name: TableName) -> dict[str, str]:
    return {row["key"]: row["value"] for row in spark.sql(f"SHOW TBLPROPERTIES {name.quoted}").collect()}


def tree(path: Path) -> list[str]:
    """Every file and directory under ``path``, relative, sorted (empty when ``path`` is missing)."""
    if not path.exists():
        return []
    return sorted(str(entry.relative_to(path)) for entry in path.rglob("*"))


def assert_short(error: BaseException) -> None:
    """Users see one short line: no JVM stack trace, no SQL excerpt, no chained Spark exception."""
    text = str(error)
    assert "\n" not in text, text
    assert "\tat " not in text and "JVM stacktrace" not in text and "== SQL" not in text, text
    assert len(text) < 500, text
    assert error.__cause__ is None, "the Spark exception is not chained for display"
    assert error.__context__ is None or error.__suppress_context__, "nor shown as context"
