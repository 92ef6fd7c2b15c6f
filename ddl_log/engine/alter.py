"""ALTER TABLE on the DDL log (seed mysql-wl7743 D/E): in-place changes are logged with the old metadata; what
Spark cannot do in place for parquet/Hive tables (change a column's type, drop columns) rebuilds the table into
TMP from the old rows and swaps it in with the CREATE OR REPLACE machinery, so any failure leaves the old table."""

from __future__ import annotations

from typing import ClassVar

import attrs

from actions.context import ActionContext
from actions.errors import StatementFailedError
from actions.results import NOTHING_DONE, StatementResult
from chains.lock_keys import LockKeys
from chains.retention import check_retention_property
from ddl_log.engine.alter_ops import (
    AddColumns,
    AddPartition,
    AlterOp,
    ChangeColumn,
    ChangeColumnType,
    ColumnComment,
    DropColumns,
    DropPartition,
    SetProperties,
    UnsetProperties,
    alter_table_text,
)
from ddl_log.engine.lookups import missing_table
from ddl_log.engine.partition_specs import checked_spec
from ddl_log.engine.release_name import held_directory_error
from ddl_log.engine.schema import check_column_list, check_type, parse_schema, same_type
from ddl_log.engine.texts import sql_string
from ddl_log.engine.typed import Statement
from replace_table.plans import forward, undo
from replace_table.plans.replace import replace_version
from storage.catalogs.interface import (
    CONVERSION_FAILURE_MARK,
    TAG_PROPERTY,
    ColumnChange,
    Fill,
    TableMetadata,
    TableSpec,
)
from storage.catalogs.lookup_scope import reuse_lookups
from storage.catalogs.names import TableName, quote_ident
from storage.catalogs.ports import Catalog
from storage.catalogs.rules import check_settable_properties
from storage.errors import (
    CatalogError,
    InvalidDefinitionError,
    InvalidNameError,
    NoSuchObjectError,
    NotAtomicError,
    ObjectExistsError,
)


def _column(metadata: TableMetadata, name: TableName, column: str) -> str:
    found = metadata.column(column)
    if found is None:
        raise NoSuchObjectError.column(f"column {column!r} does not exist in {name}", column)
    return found.name


@attrs.frozen(kw_only=True)
class AlterTable(Statement):
    """ALTER TABLE: in-place changes logged with the old metadata; type changes and column drops rebuild the table
    from its old rows and swap it in (the old table is untouched if any row fails to convert)."""

    label: ClassVar[str] = "ALTER TABLE"
    name: TableName
    op: AlterOp

    @classmethod
    def of(cls, name: str | TableName, op: AlterOp, *, text: str | None = None) -> AlterTable:
        return cls(name=TableName.of(name), op=op, text=text)

    def canonical_text(self) -> str:
        return alter_table_text(self.name.quoted, self.op)

    def lock_keys(self) -> LockKeys:
        return LockKeys.objects(self.name)

    def run(self, ctx: ActionContext) -> StatementResult:
        result = alter_table(ctx, self.name, self.op, statement=self.binlog_text)
        return NOTHING_DONE if result is None else result


def alter_table(ctx: ActionContext, name: TableName, op: AlterOp, *, statement: str) -> StatementResult | None:
    """One read of the table (a classic session's record) gives its metadata and its identity, and serves the
    statement's checks and its forward action's (the change forgets it first)."""
    with reuse_lookups():
        return _alter_table(ctx, name, op, statement=statement)


def _alter_table(ctx: ActionContext, name: TableName, op: AlterOp, *, statement: str) -> StatementResult | None:
    catalog = ctx.catalog
    metadata = catalog.definitions.table_metadata(name)
    tag = catalog.names.identity(name)
    if metadata is None or tag is None:
        if isinstance(op, SetProperties | UnsetProperties):  # Spark points at ALTER VIEW for these only
            raise missing_table(catalog, name, hint="use ALTER VIEW", condition="EXPECT_TABLE_NOT_VIEW.USE_ALTER_VIEW")
        raise missing_table(catalog, name)
    if isinstance(op, ChangeColumn):
        plain = _plain_change(catalog, name, metadata, op)
        if plain is None:
            return NOTHING_DONE
        op = plain
    if isinstance(op, SetProperties | UnsetProperties):
        return _alter_properties(ctx, name, tag, metadata, op, statement)
    if isinstance(op, ColumnComment):
        column = _column(metadata, name, op.column)
        old = metadata.column(column)
        comment = op.comment
        event = undo.change_column_comment(ctx, statement, name, tag, column=column,
                                           old=old.comment if old else None,
                                           change=lambda: catalog.definitions.set_column_comment(name, column, comment))
        return StatementResult(objects=(str(name),), event=event)
    if isinstance(op, AddColumns):
        added = parse_schema(op.columns)
        check_column_list(op.columns)
        for new_column in added:
            if metadata.column(new_column.name) is not None:
                raise ObjectExistsError.column(f"column {new_column.name!r} already exists in {name}", new_column.name)
        catalog.definitions.check_alter(name,
                                        op.clause())  # what Spark refuses in the column list, refused before the log
        event = forward.add_columns(ctx, statement, name, tag, added, op.columns)
        return StatementResult(objects=(str(name),), event=event)
    if isinstance(op, AddPartition | DropPartition):
        return _change_partitions(ctx, name, tag, metadata, op, statement)
    if isinstance(op, ChangeColumnType | DropColumns):
        return _rebuild(ctx, name, metadata, op, statement)
    raise CatalogError(f"unsupported ALTER TABLE operation {op!r}", str(name))


def _plain_change(catalog: Catalog, name: TableName, metadata: TableMetadata,
                  op: ChangeColumn) -> ColumnComment | ChangeColumnType | None:
    """What a Hive-style CHANGE COLUMN asks of these tables, as Spark reads it: a comment change, a type change (a
    rebuild here, as ALTER COLUMN ... TYPE), or nothing (same type, no comment). A new name, a position or NOT NULL
    are refused by Spark's own analysis of the clause, with its error."""
    column = _column(metadata, name, op.column)
    if op.new_name.lower() != op.column.lower() or op.position or op.not_null:
        catalog.definitions.check_alter(name, op.clause())
        raise InvalidDefinitionError(f"ALTER TABLE {name} {op.clause()}: renaming, moving or making a column NOT "
                                     "NULL is not supported for this table", str(name))
    check_type(op.type, column)
    current = metadata.column(column)
    if current is not None and same_type(current.type, op.type):
        return None if op.comment is None else ColumnComment(column, op.comment)
    return ChangeColumnType(column, op.type, op.comment)


def _alter_properties(ctx: ActionContext, name: TableName, tag: str, metadata: TableMetadata,
                      op: SetProperties | UnsetProperties, statement: str) -> StatementResult:
    current = metadata.property_map
    if metadata.comment is not None:  # Spark's property 'comment' is the table's comment (SET, UNSET, COMMENT ON)
        current["comment"] = metadata.comment
    keys = tuple(op.properties) if isinstance(op, SetProperties) else op.keys
    if TAG_PROPERTY in keys:
        raise InvalidNameError(f"table property {TAG_PROPERTY!r} is reserved for the DDL log", TAG_PROPERTY)
    check_settable_properties(keys, str(name), setting=isinstance(op, SetProperties))
    if isinstance(op, SetProperties):
        check_retention_property(op.properties.items(), name)
    if isinstance(op, UnsetProperties):
        # Spark (4.x) ignores keys that are not set, with or without IF EXISTS; none set: nothing to change.
        keys = tuple(key for key in keys if key in current)
        if not keys:
            return NOTHING_DONE
        op = UnsetProperties(keys, op.if_exists)
    old = {key: current.get(key) for key in keys}
    catalog = ctx.catalog

    def change() -> None:
        if isinstance(op, SetProperties):
            catalog.definitions.set_properties(name, dict(op.properties))
        else:
            catalog.definitions.unset_properties(name, tuple(op.keys))

    event = undo.change_properties(ctx, statement, name, tag, tuple(old.items()), change, view=False,
                                   verb="ALTER TABLE")
    return StatementResult(objects=(str(name),), event=event)


def _change_partitions(ctx: ActionContext, name: TableName, tag: str, metadata: TableMetadata,
                       op: AddPartition | DropPartition, statement: str) -> StatementResult | None:
    """ADD or DROP PARTITION, checked as Spark checks them before anything is done: every spec of an ADD names
    every partition column and an existing one fails it (IF NOT EXISTS: skipped); a DROP's spec may name some of
    them and matches every partition it names, one that matches none fails it (IF EXISTS: skipped). Values are
    Spark's lookup's: cast to the column types (p='01' is p=1; a value that does not convert fails with
    CAST_INVALID_INPUT, IF [NOT] EXISTS or not). Logged as one change that rolls forward."""
    catalog = ctx.catalog
    adding = isinstance(op, AddPartition)
    action = f"ALTER TABLE {'ADD' if adding else 'DROP'} PARTITION"
    specs = [checked_spec(metadata, name, spec, action=action, whole=adding) for spec in op.specs]
    skips = op.if_not_exists if isinstance(op, AddPartition) else op.if_exists
    changed = []
    for spec in specs:
        if bool(catalog.definitions.list_partitions(name, spec)) == adding:  # there already, or not there
            if skips:
                continue
            if adding:
                raise ObjectExistsError.partition(f"partition {spec} already exists in {name}", str(name))
            raise NoSuchObjectError.partition(f"partition {spec} does not exist in {name}", str(name))
        if spec not in changed:
            changed.append(spec)
    if not changed:
        return None
    event = forward.change_partitions(ctx, statement, name, tag, add=adding, specs=changed)
    return StatementResult(objects=(str(name),), event=event)


def _rebuild(ctx: ActionContext, name: TableName, metadata: TableMetadata, op: ChangeColumnType | DropColumns,
             statement: str) -> StatementResult | None:
    """Rebuild into TMP and swap it in; a failure or crash before the commit leaves the old table.

    TMP is a copy of the table's whole definition with only the named column changed (:class:`ColumnChange`:
    bucketing, OPTIONS, comments, defaults, the table kind all stay), filled from the old rows. A retyped column is
    converted strictly whatever ``spark.sql.ansi.enabled`` says: :func:`strict_cast` fails the statement on the
    first value that does not convert (where a plain CAST with ANSI off would make it NULL)."""
    if metadata.external:
        what = "ALTER COLUMN ... TYPE" if isinstance(op, ChangeColumnType) else "DROP COLUMNS"
        raise NotAtomicError(f"ALTER TABLE ... {what} of the external table {name} cannot be atomic: its files live "
                             "at the table's own location, which a rebuilt version cannot replace in one step",
                             str(name))
    selected: list[str] = []
    if isinstance(op, ChangeColumnType):
        target = _column(metadata, name, op.column)
        check_type(op.type, target)
        change = ColumnChange(retype=(target, op.type), comment=op.comment)
        for column in metadata.columns:
            ident = quote_ident(column.name)
            selected.append(f"{strict_cast(name, column.name, op.type)} AS {ident}" if column.name == target
                            else ident)
    else:
        dropped: dict[str, None] = {}
        for column_name in op.columns:
            if metadata.column(column_name) is None:
                if op.if_exists:
                    continue
                raise NoSuchObjectError.column(f"column {column_name!r} does not exist in {name}", column_name)
            dropped[_column(metadata, name, column_name)] = None
        if not dropped:
            return None
        lowered = {column.lower() for column in dropped}
        if lowered & {p.lower() for p in metadata.partitioned_by}:
            raise CatalogError(f"cannot drop a partition column of {name}", str(name))
        selected = [quote_ident(c.name) for c in metadata.columns if c.name.lower() not in lowered]
        partitioning = {p.lower() for p in metadata.partitioned_by}
        if all(c.name.lower() in lowered | partitioning for c in metadata.columns):
            # a table of partition columns only cannot be written (Spark's writer fails the job): refused up front
            raise CatalogError(f"cannot drop every data column of {name}", str(name))
        change = ColumnChange(drop=tuple(dropped))
    query = f"SELECT {', '.join(selected)} FROM {name.quoted}"
    ctx.catalog.data.check_create(TableSpec(as_select=query), name)  # the new type, analysed by the engine
    copy = TableSpec(like=name, copy=True, alter=change)
    try:
        return replace_version(ctx, name, copy, statement, verb="ALTER TABLE",
                               fill=Fill(as_select=query, partitions_of=name), orig_must_exist=True)
    except StatementFailedError as error:
        raise held_directory_error(ctx, name, "ALTER TABLE", error) from error.cause


def strict_cast(table: TableName, column: str, type_text: str) -> str:
    """``column`` converted to ``type_text``, failing on a value that does not convert whatever the session's ANSI
    setting: ``try_cast`` (ANSI rules, NULL instead of an error) and ``raise_error`` when it gave NULL for a value."""
    ident = quote_ident(column)
    converted = f"try_cast({ident} AS {type_text})"
    message = sql_string(f"{CONVERSION_FAILURE_MARK}ALTER TABLE {table}: a value of column {column} does not convert "
                         f"to {type_text}: ")
    return (f"CASE WHEN {ident} IS NULL THEN NULL WHEN {converted} IS NULL THEN raise_error(concat({message}, "
            f"CAST({ident} AS STRING))) ELSE {converted} END")
