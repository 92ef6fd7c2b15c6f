"""Spark's error conditions and their SQLSTATEs, read from the table Spark itself ships (``error-conditions.json``
inside pyspark's ``spark-common-utils`` jar), so that a typed error of the project that names a condition also
gives the SQLSTATE plain Spark gives for it, on whichever Spark is installed, without starting one."""

from __future__ import annotations

import functools
import importlib.util
import json
import zipfile
from pathlib import Path

TABLE = "error/error-conditions.json"


@functools.cache
def sqlstates() -> dict[str, str]:
    """Every condition (``NAME`` and ``NAME.SUB``) with its SQLSTATE; empty when pyspark's jars are not there."""
    spec = importlib.util.find_spec("pyspark")
    places = list(spec.submodule_search_locations or ()) if spec is not None else []
    for place in places:
        for jar in sorted(Path(place, "jars").glob("spark-common-utils_*.jar")):
            with zipfile.ZipFile(jar) as archive:
                conditions = json.loads(archive.read(TABLE))
            return dict(flatten(conditions))
    return {}


def flatten(conditions: dict[str, dict[str, object]]) -> list[tuple[str, str]]:
    rows = []
    for name, entry in conditions.items():
        state = entry.get("sqlState")
        if isinstance(state, str):
            rows.append((name, state))
        subclasses = entry.get("subClass")
        for sub, subentry in (subclasses.items() if isinstance(subclasses, dict) else ()):
            own = subentry.get("sqlState") if isinstance(subentry, dict) else None
            if isinstance(own, str) or isinstance(state, str):
                rows.append((f"{name}.{sub}", own if isinstance(own, str) else str(state)))
    return rows


def sqlstate_of(condition: str | None) -> str | None:
    """The SQLSTATE Spark raises ``condition`` with (None: no condition, or one this Spark does not know)."""
    if condition is None:
        return None
    table = sqlstates()
    return table.get(condition) or table.get(condition.split(".")[0])
