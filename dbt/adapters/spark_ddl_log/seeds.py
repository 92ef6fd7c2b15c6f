"""A dbt seed as the adapter's one statement: its table's columns and clauses (as dbt-spark's seed creates them) and
its rows (dbt-spark's batched VALUES, each value cast to its column's type and bound as dbt-spark binds it)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import attrs

_CHAR_TYPES = re.compile(r"\b(?:var)?char\s*\(", re.IGNORECASE)


@attrs.frozen
class SeedRows:
    """``create``: CREATE OR REPLACE TABLE ``relation`` with the seed's columns, then ``clauses`` (file format,
    partitioning, clustering, location, comment); ``names`` as in the CSV, ``quoted`` as the column list writes them,
    ``types`` as declared; ``batches``: each a VALUES list with binding characters and its bindings; a partition
    column of ``partition_by`` comes last in the table, as Spark puts it."""

    create: str
    relation: str
    clauses: str
    names: list[str]
    quoted: list[str]
    types: list[str]
    partition_by: Any
    batches: list[list[Any]]

    @property
    def count(self) -> int:
        return sum(len(bindings) for _, bindings in self.batches) // max(len(self.names), 1)

    @property
    def has_char_types(self) -> bool:
        return any(_CHAR_TYPES.search(kind) for kind in self.types)

    def ordered(self) -> list[tuple[str, str]]:
        """(quoted name, type) in the table's order: the partition columns last."""
        last = [str(column).lower() for column in _listed(self.partition_by)]
        columns = list(zip(self.names, self.quoted, self.types, strict=True))
        order = [(q, t) for n, q, t in columns if n.lower() not in last]
        return order + [(q, t) for column in last for n, q, t in columns if n.lower() == column]

    def rows(self, bind: Callable[[Any], str | float]) -> str | None:
        """A SELECT of the rows by column name, each value bound by ``bind`` (None: the seed has no rows)."""
        selects = [f"SELECT * FROM VALUES {values}" % tuple(bind(value) for value in bindings)
                   for values, bindings in self.batches]
        if not selects:
            return None
        return (f"SELECT {', '.join(q for q, _ in self.ordered())} FROM ({' UNION ALL '.join(selects)}) "
                f"AS `spark_ddl_log_seed_rows`({', '.join(self.quoted)})")

    def as_select_statement(self, bind: Callable[[Any], str | float]) -> str:
        """The seed as SQL text, one CREATE OR REPLACE TABLE ... AS SELECT of its typed rows bound by ``bind`` (no
        rows: of typed NULLs, LIMIT 0): what a client of the Thrift server can send."""
        rows = self.rows(bind)
        if rows is None:
            rows = "SELECT " + ", ".join(f"CAST(NULL AS {t}) AS {q}" for q, t in self.ordered()) + " LIMIT 0"
        return " ".join(part for part in (f"create or replace table {self.relation}", self.clauses.strip(), "as",
                                          rows) if part)

    @staticmethod
    def binding(value: Any) -> str | float:
        """As dbt-spark's session method binds seed values: numbers as floats, the rest as SQL strings (None too, as
        ``'None'``: dbt-spark's session method loads that)."""
        if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, dt.datetime):
            return f"'{value.strftime('%Y-%m-%d %H:%M:%S.%f')[:-3]}'"
        return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def _listed(columns: Any) -> list[Any]:
    """dbt's ``partition_by``: none, one column, or a list."""
    if columns is None:
        return []
    return [columns] if isinstance(columns, str) else list(columns)
