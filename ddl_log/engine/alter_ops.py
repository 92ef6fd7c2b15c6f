"""What one ``ALTER TABLE`` statement asks for, as small frozen values: the SQL front end builds them and
:meth:`AtomicDDL.alter_table` runs them. Column and partition names are plain identifiers (backquotes already
removed); :meth:`clause` renders an operation back as a canonical, fully quoted Spark clause (for the binlog of
calls made through the Python API)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeAlias

import attrs

from ddl_log.engine.texts import partition_text, sql_string
from storage.catalogs.names import quote_ident


def _pairs(items: Mapping[str, str]) -> str:
    return ", ".join(f"{sql_string(k)} = {sql_string(v)}" for k, v in items.items())


def _frozen_dict(value: Mapping[str, str]) -> dict[str, str]:
    return dict(value)


def _names(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


@attrs.frozen
class AddColumns:
    """``ADD COLUMNS (c INT COMMENT 'x', d STRING)``: ``columns`` is the column list text, for
    :func:`ddl_log.engine.schema.parse_schema`."""

    columns: str

    def clause(self) -> str:
        """As written: Spark reads the column list itself (its types, NOT NULL, DEFAULT ...)."""
        return f"ADD COLUMNS ({self.columns})"


@attrs.frozen
class SetProperties:
    """``SET TBLPROPERTIES ('k' = 'v', ...)``; values are strings as Spark stores them (``1`` -> ``"1"``)."""

    properties: dict[str, str] = attrs.field(converter=_frozen_dict)

    def clause(self) -> str:
        return f"SET TBLPROPERTIES ({_pairs(self.properties)})"


@attrs.frozen
class UnsetProperties:
    """``UNSET TBLPROPERTIES [IF EXISTS] ('k', ...)``."""

    keys: tuple[str, ...] = attrs.field(converter=_names)
    if_exists: bool = False

    def clause(self) -> str:
        keys = ", ".join(sql_string(k) for k in self.keys)
        return f"UNSET TBLPROPERTIES {'IF EXISTS ' if self.if_exists else ''}({keys})"


@attrs.frozen
class ColumnComment:
    """``ALTER COLUMN c COMMENT 'text'``."""

    column: str
    comment: str

    def clause(self) -> str:
        return f"ALTER COLUMN {quote_ident(self.column)} COMMENT {sql_string(self.comment)}"


@attrs.frozen
class ChangeColumnType:
    """``ALTER COLUMN c TYPE bigint``: ``type`` is the Spark type text. Spark cannot do it in place for parquet/Hive
    tables, so it is a rebuild. ``comment``: the column's new comment (``CHANGE COLUMN c c T COMMENT '...'``), None
    keeps it."""

    column: str
    type: str
    comment: str | None = None

    def clause(self) -> str:
        if self.comment is not None:
            return (f"CHANGE COLUMN {quote_ident(self.column)} {quote_ident(self.column)} {self.type} "
                    f"COMMENT {sql_string(self.comment)}")
        return f"ALTER COLUMN {quote_ident(self.column)} TYPE {self.type}"


@attrs.frozen
class ChangeColumn:
    """Hive's ``CHANGE [COLUMN] old new type [COMMENT c] [FIRST | AFTER x]``, as Spark runs it on these tables: the
    same name and type change the comment; another type is a type change (:class:`ChangeColumnType`, a rebuild);
    a new name, a position (``position`` its text) or NOT NULL are refused as Spark refuses them."""

    column: str
    new_name: str
    type: str
    comment: str | None = None
    position: str | None = None
    not_null: bool = False

    def clause(self) -> str:
        text = f"CHANGE COLUMN {quote_ident(self.column)} {quote_ident(self.new_name)} {self.type}"
        if self.not_null:
            text += " NOT NULL"
        if self.comment is not None:
            text += f" COMMENT {sql_string(self.comment)}"
        return text + (f" {self.position}" if self.position else "")


@attrs.frozen
class DropColumns:
    """``DROP COLUMN[S] [IF EXISTS] (a, b)`` (a rebuild)."""

    columns: tuple[str, ...] = attrs.field(converter=_names)
    if_exists: bool = False

    def clause(self) -> str:
        names = ", ".join(quote_ident(c) for c in self.columns)
        return f"DROP COLUMNS {'IF EXISTS ' if self.if_exists else ''}({names})"


def _specs(value: Mapping[str, str] | Iterable[Mapping[str, str]]) -> tuple[dict[str, str], ...]:
    """One spec (a mapping) or several, as a tuple of specs."""
    if isinstance(value, Mapping):
        return (dict(value),)
    specs = tuple(dict(spec) for spec in value)
    if not specs:
        raise ValueError("at least one partition spec")
    return specs


@attrs.frozen
class AddPartition:
    """``ADD [IF NOT EXISTS] PARTITION (p = 'v', ...) [PARTITION (...) ...]``: one partition or several (``specs``:
    one spec or a list of them), each naming every partition column, values as strings. Added in one metastore
    call, all or none, as Spark's."""

    specs: tuple[dict[str, str], ...] = attrs.field(converter=_specs)
    if_not_exists: bool = False

    def clause(self) -> str:
        return f"ADD {'IF NOT EXISTS ' if self.if_not_exists else ''}{' '.join(partition_text(s) for s in self.specs)}"


@attrs.frozen
class DropPartition:
    """``DROP [IF EXISTS] PARTITION (p = 'v', ...) [, PARTITION (...) ...] [PURGE]``: every partition each spec
    matches (a spec may name some of the partition columns, as Spark's), values as strings. ``purge``: Spark's
    PURGE (the files are deleted, not moved to a trash, which is what the log's drop does in any case)."""

    specs: tuple[dict[str, str], ...] = attrs.field(converter=_specs)
    if_exists: bool = False
    purge: bool = False

    def clause(self) -> str:
        specs = ", ".join(partition_text(s) for s in self.specs)
        return f"DROP {'IF EXISTS ' if self.if_exists else ''}{specs}{' PURGE' if self.purge else ''}"


AlterOp: TypeAlias = (
    AddColumns | SetProperties | UnsetProperties | ColumnComment | ChangeColumnType | ChangeColumn | DropColumns
    | AddPartition | DropPartition
)
"""Every ALTER TABLE operation the DDL log knows."""

IN_PLACE_OPS: tuple[type, ...] = (AddColumns, SetProperties, UnsetProperties, ColumnComment, AddPartition,
                                  DropPartition)
"""Operations Spark can do in place on a parquet/Hive table (logged with the old metadata for undo); the others
(:class:`ChangeColumnType`, :class:`DropColumns`) rebuild the table and swap it in."""


def alter_table_text(name: str, op: AlterOp) -> str:
    """``ALTER TABLE <name> <clause>`` where ``name`` is already quoted."""
    return f"ALTER TABLE {name} {op.clause()}"
