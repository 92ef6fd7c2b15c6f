"""Table shapes: everything a table's definition can hold, as a small frozen value that renders itself as the plain
Spark SQL that creates and fills it. A shape is written by the tests and executed only by Spark (never by the
project), so that what the project must preserve is exactly what Spark made.

A shape's repr is that SQL, for the table name ``t``: a failing example reads as the script that reproduces it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import attrs

HIVE_FORMATS = {"hive-orc": "ORC", "hive-parquet": "PARQUET", "hive-textfile": "TEXTFILE"}
"""Hive serde tables (``STORED AS``), by the name the strategies use for them."""
DATA_SOURCES = ("parquet", "orc", "json", "csv")
"""Data source tables (``USING``)."""
NESTED_PREFIXES = ("ARRAY<", "MAP<", "STRUCT<")


def sql_string(value: str) -> str:
    """A Spark SQL string literal (backslash escapes, as Spark's parser reads them). Written here, not imported from
    the project: the tests must not share the code whose output they check."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def ident(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def is_nested(sql_type: str) -> bool:
    return sql_type.upper().startswith(NESTED_PREFIXES)


def is_char(sql_type: str) -> bool:
    """CHAR(n) / VARCHAR(n): their values are written as plain strings (Spark casts to them by store assignment,
    which is where the length is checked)."""
    return re.fullmatch(r"(VAR)?CHAR\(\d+\)", sql_type.upper()) is not None


def typed(literal: str | None, sql_type: str) -> str:
    """A value of ``sql_type`` in a VALUES list or SELECT: ``literal`` (None: NULL) cast to the type, so that Spark
    infers nothing from the literal (CHAR/VARCHAR take the string as it is)."""
    if is_char(sql_type):
        return "CAST(NULL AS STRING)" if literal is None else literal
    return f"CAST({'NULL' if literal is None else literal} AS {sql_type})"


@attrs.frozen
class Column:
    """One column as declared. ``default`` is SQL text (a literal), ``comment`` the comment's value."""

    name: str
    type: str
    not_null: bool = False
    default: str | None = None
    comment: str | None = None

    def declaration(self, *, with_options: bool = True) -> str:
        text = f"{ident(self.name)} {self.type}"
        if with_options and self.not_null:
            text += " NOT NULL"
        if with_options and self.default is not None:
            text += f" DEFAULT {self.default}"
        if self.comment is not None:
            text += f" COMMENT {sql_string(self.comment)}"
        return text


@attrs.frozen
class Buckets:
    """``CLUSTERED BY (columns) [SORTED BY (sort)] INTO count BUCKETS``."""

    count: int
    columns: tuple[str, ...]
    sort: tuple[str, ...] = ()

    def clause(self) -> str:
        text = f"CLUSTERED BY ({', '.join(map(ident, self.columns))})"
        if self.sort:
            text += f" SORTED BY ({', '.join(map(ident, self.sort))})"
        return f"{text} INTO {self.count} BUCKETS"


@attrs.frozen(repr=False)
class Shape:
    """A table: its columns (data columns first, then the ``partition_count`` partition columns), format, storage
    options, bucketing, comment, properties, MANAGED or EXTERNAL, its rows (SQL literals, None for NULL, one per
    column) and at most one partition that exists without rows."""

    columns: tuple[Column, ...]
    format: str = "parquet"
    options: tuple[tuple[str, str], ...] = ()
    """``OPTIONS`` of a data source table; for ``hive-textfile``, ``(("field.delim", d),)`` renders as
    ``ROW FORMAT DELIMITED FIELDS TERMINATED BY d``."""
    partition_count: int = 0
    buckets: Buckets | None = None
    comment: str | None = None
    properties: tuple[tuple[str, str], ...] = ()
    external: bool = False
    rows: tuple[tuple[str | None, ...], ...] = ()
    empty_partition: tuple[str, ...] | None = None

    @property
    def hive(self) -> bool:
        return self.format in HIVE_FORMATS

    @property
    def data_columns(self) -> tuple[Column, ...]:
        return self.columns[: len(self.columns) - self.partition_count]

    @property
    def partition_columns(self) -> tuple[Column, ...]:
        return self.columns[len(self.columns) - self.partition_count:]

    def column(self, name: str) -> Column:
        return next(c for c in self.columns if c.name == name)

    def create_sql(self, name: str, location: str | None) -> str:
        """The CREATE TABLE statement of this shape as ``name``; ``location`` is used when the shape is EXTERNAL."""
        parts = [f"CREATE TABLE {name}"]
        if self.hive:
            parts.append(f"({', '.join(c.declaration() for c in self.data_columns)})")
            if self.partition_columns:
                declared = ", ".join(c.declaration(with_options=False) for c in self.partition_columns)
                parts.append(f"PARTITIONED BY ({declared})")
            if self.buckets:
                parts.append(self.buckets.clause())
            for key, value in self.options:
                assert key == "field.delim", "a Hive text table's only storage option is its field delimiter"
                parts.append(f"ROW FORMAT DELIMITED FIELDS TERMINATED BY {sql_string(value)}")
            parts.append(f"STORED AS {HIVE_FORMATS[self.format]}")
        else:
            parts.append(f"({', '.join(c.declaration() for c in self.columns)}) USING {self.format}")
            if self.options:
                parts.append(f"OPTIONS ({pairs(self.options)})")
            if self.partition_columns:
                parts.append(f"PARTITIONED BY ({', '.join(ident(c.name) for c in self.partition_columns)})")
            if self.buckets:
                parts.append(self.buckets.clause())
        if self.external:
            assert location is not None, "an EXTERNAL shape needs a location"
            parts.append(f"LOCATION {sql_string(location)}")
        if self.comment is not None:
            parts.append(f"COMMENT {sql_string(self.comment)}")
        if self.properties:
            parts.append(f"TBLPROPERTIES ({pairs(self.properties)})")
        return " ".join(parts)

    def fill_sql(self, name: str) -> list[str]:
        """The statements that put the rows (and the empty partition) into the table ``name``."""
        statements = []
        if self.rows:
            statements.append(f"INSERT INTO {name} VALUES {values(self.rows, self.columns)}")
        if self.empty_partition is not None:
            spec = ", ".join(f"{ident(c.name)} = {v}" for c, v in zip(self.partition_columns, self.empty_partition,
                                                                         strict=True))
            statements.append(f"ALTER TABLE {name} ADD PARTITION ({spec})")
        return statements

    def script(self, name: str = "t", location: str = "<tmp>/t") -> str:
        return ";\n".join([self.create_sql(name, location), *self.fill_sql(name)])

    def __repr__(self) -> str:
        return self.script()

    # -- derived shapes (what a statement that changes the definition should leave)

    def with_type(self, column: str, sql_type: str) -> Shape:
        """This shape with ``column`` declared as ``sql_type`` (everything else as it was)."""
        changed = tuple(attrs.evolve(c, type=sql_type) if c.name == column else c for c in self.columns)
        return attrs.evolve(self, columns=changed)

    def without(self, dropped: Iterable[str]) -> Shape:
        """This shape without the data columns ``dropped`` (the bucket spec still names what it named, so Spark
        refuses the shape when a bucket or sort column goes)."""
        gone = {name.lower() for name in dropped}
        assert not gone & {c.name.lower() for c in self.partition_columns}, "partition columns are never dropped"
        keep = [i for i, c in enumerate(self.columns) if c.name.lower() not in gone]
        return attrs.evolve(self, columns=tuple(self.columns[i] for i in keep),
                            rows=tuple(tuple(row[i] for i in keep) for row in self.rows))


def hive_bucketed_by_mixed_case(shape: Shape) -> bool:
    """A Hive serde table whose bucket or sort columns have upper-case letters: the Hive metastore checks them against
    its lower-cased columns in a direct create or rename ("Bucket columns ... is not part of the table columns";
    plain Spark's ALTER TABLE ... RENAME TO fails the same way), which the project's rename path runs into (a
    partitioned Hive serde table's work table is renamed in; an unpartitioned one's is created under the name from its
    whole record, which passes)."""
    names = () if shape.buckets is None else (*shape.buckets.columns, *shape.buckets.sort)
    return shape.hive and any(name != name.lower() for name in names)


def pairs(items: Iterable[tuple[str, str]]) -> str:
    return ", ".join(f"{sql_string(k)} = {sql_string(v)}" for k, v in items)


def values(rows: Iterable[tuple[str | None, ...]], columns: tuple[Column, ...]) -> str:
    """``(v, ...), (v, ...)``: each value cast to its column's type."""
    return ", ".join("(" + ", ".join(typed(v, c.type) for v, c in zip(row, columns, strict=True)) + ")"
                     for row in rows)


def select_values(rows: tuple[tuple[str | None, ...], ...], columns: tuple[Column, ...]) -> str:
    """A query yielding ``rows`` as columns named like ``columns`` (no row at all when ``rows`` is empty)."""
    names = ", ".join(ident(c.name) for c in columns)
    if not rows:
        nulls = (tuple(None for _ in columns),)
        return f"SELECT * FROM VALUES {values(nulls, columns)} AS v({names}) WHERE false"
    return f"SELECT * FROM VALUES {values(rows, columns)} AS v({names})"
