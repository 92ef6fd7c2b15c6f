"""The statements that build a new version of a table and install it through the replace plan
(:mod:`replace_table.plans.replace`): CREATE TABLE and CREATE OR REPLACE TABLE in every form, TRUNCATE TABLE and
INSERT OVERWRITE. The old table stays readable and intact until the new version is complete and the statement is
binlogged; any failure or crash before that leaves exactly the old table (or no table)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

import attrs

from actions.context import ActionContext
from actions.errors import StatementFailedError
from actions.results import NOTHING_DONE, StatementResult
from chains.lock_keys import LockKeys, database_key, object_key
from chains.retention import check_retention_property
from chains.version_records import PartitionValues
from ddl_log.engine.lookups import missing_table
from ddl_log.engine.overwrite import check_rewritable, overwrite_text, plan_overwrite, resolve_mode
from ddl_log.engine.partition_specs import checked_spec
from ddl_log.engine.release_name import held_directory_error
from ddl_log.engine.schema import SchemaLike, table_spec
from ddl_log.engine.texts import create_table_text, partition_text, sql_string
from ddl_log.engine.typed import Reads, Statement
from replace_table.plans.replace import replace_version
from replace_table.plans.replace_run import ReplaceResult, ReplaceRun
from storage.catalogs.fill import column_clause
from storage.catalogs.interface import CreateText, Fill, TableSpec
from storage.catalogs.lookup_scope import reuse_lookups
from storage.catalogs.names import TableName, quote_ident
from storage.catalogs.rules import check_new_name
from storage.errors import (
    InvalidDefinitionError,
    InvalidNameError,
    NoSuchObjectError,
    ObjectExistsError,
    WrongObjectKindError,
)


@attrs.frozen
class EmptiedPartitions:
    """``TRUNCATE TABLE t PARTITION (...)``: the checked ``spec`` (some or all partition columns, the table's names,
    in its order) and the partitions it ``matched`` (values as the catalog lists them)."""

    spec: dict[str, str]
    matched: tuple[dict[str, str], ...]

    def fill(self, name: TableName, partitioned_by: Sequence[str]) -> Fill:
        """What fills the work table where the catalog cannot take the empty path: no rows, every partition the spec
        does not match kept with its files, all of them registered (those matched empty)."""
        partition = tuple((column, self.spec.get(column)) for column in partitioned_by)
        return Fill(keep=name, replaces="matching", partition=partition, partitions_of=name, empties=True)


def build_version(ctx: ActionContext, target: TableName, spec: TableSpec | None, statement: str, *, verb: str,
                  orig_must_exist: bool | None, fill: Fill | None = None,
                  emptied: EmptiedPartitions | None = None) -> ReplaceResult:
    """Build and install a new version of ``target`` (``spec`` None: an empty copy of the table itself, whose
    definition is then read under the statement's lock, with its partitions registered and empty as Spark's
    TRUNCATE keeps them, or, ``emptied``, with the rows of the other partitions; in one metastore call where the
    catalog can). The caller holds the statement's locks."""
    empty: Callable[[], Fill | None] | None = None
    given = spec is not None
    if spec is None:  # TRUNCATE: ORIG's own definition without rows

        def empty() -> Fill | None:
            """What the machine needs when it cannot take the one-call path (``Swaps.plan_empty_swap``, which
            refuses external and Hive serde tables, views and partitions located away from their table): Spark's
            refusals, then the partitions to keep registered and empty, as Spark's TRUNCATE keeps them."""
            metadata = ctx.catalog.definitions.table_metadata(target)
            if metadata is None:
                raise missing_table(ctx.catalog, target)
            check_rewritable(target, metadata, verb)
            if emptied is not None:
                return emptied.fill(target, metadata.partitioned_by)
            return Fill(partitions_of=target) if metadata.partitioned_by else None

        spec = TableSpec(like=target, copy=True)  # no check_create: the machine checks that it exists
    definition = spec

    def check(run: ReplaceRun) -> None:
        """Before anything is logged or looked up (Spark analyses the definition before it looks at the name), under
        TMP's name and tag: TMP's create runs the plan Spark's analyzer made here."""
        ctx.catalog.data.check_create(definition, target, work=run.tmp, tag=run.log.tag)
        if orig_must_exist is None and ctx.catalog.views.view_definition(target) is not None:
            raise WrongObjectKindError.view_not_table(target, "a view is not replaced by a table",
                                                      condition="EXPECT_TABLE_NOT_VIEW.NO_ALTERNATIVE")
        if orig_must_exist is False and ctx.catalog.views.view_definition(target) is not None:
            raise ObjectExistsError.relation(f"{target} is a view, not a table", target)
        check_retention_property(definition.properties, target)
        check_new_name(target)

    with reuse_lookups():  # one lookup of each name serves the checks; every change forgets what it touches
        try:  # the kept versions of a dropped table of the name may hold its directory: the plan frees it first
            return replace_version(ctx, target, spec, statement, verb=verb, orig_must_exist=orig_must_exist,
                                   fill=fill, empty=empty, emptied=None if emptied is None else emptied.matched,
                                   frees_name=True, check=check if given else None,
                                   keeps_statistics=not given)
        except NoSuchObjectError as error:
            if orig_must_exist and error.name == str(target):  # refused before anything was done
                raise missing_table(ctx.catalog, target) from None
            raise
        except StatementFailedError as error:
            raise held_directory_error(ctx, target, verb, error) from error.cause


def _spec_keys(name: TableName, spec: TableSpec) -> LockKeys:
    like = (object_key(spec.like),) if spec.like is not None else ()
    return LockKeys((object_key(name), *like), (database_key(name.db),))


@attrs.frozen(kw_only=True)
class CreateOrReplaceTable(Statement):
    """CREATE OR REPLACE TABLE (columns, LIKE, AS SELECT or a DataFrame); ``must_exist``: REPLACE TABLE, which Spark
    requires the table for."""

    label: ClassVar[str] = "CREATE OR REPLACE TABLE"
    transactional: ClassVar[bool] = True
    name: TableName
    spec: TableSpec
    must_exist: bool = False
    rows: str | None = None
    """A SELECT whose rows the new version holds, inserted after the create as INSERT INTO inserts them (by
    position, each value cast to its column's type as Spark's store assignment casts it), in the same statement:
    a table of declared columns and its rows at once, what a dbt seed is (a columns or LIKE form only)."""
    partitions: tuple[PartitionValues, ...] = ()
    """Partitions the new version registers besides those its rows go to, empty (a replica installing a source's
    version that had empty partitions, :attr:`chains.version_records.VersionRecord.partitions`)."""

    @classmethod
    def of(cls, name: str | TableName, *, schema: SchemaLike | None = None, like: str | TableName | None = None,
           as_select: str | None = None, df: Any = None, using: str | None = None, partitioned_by: Iterable[str] = (),
           properties: dict[str, str] | None = None, comment: str | None = None, create_text: CreateText | None = None,
           must_exist: bool = False, text: str | None = None) -> CreateOrReplaceTable:
        spec = table_spec(schema=schema, like=like, as_select=as_select, df=df, using=using,
                          partitioned_by=partitioned_by, properties=properties, comment=comment, text=create_text)
        return cls(name=TableName.of(name), spec=spec, must_exist=must_exist, text=text)

    def canonical_text(self) -> str:
        return create_table_text(self.name, self.spec, or_replace=True)

    def lock_keys(self) -> LockKeys:
        return _spec_keys(self.name, self.spec)

    def changed_keys(self) -> tuple[str, ...]:
        return (object_key(self.name),)

    def reads(self) -> Reads:
        return Reads.of(name=self.spec.like, query=self.spec.as_select, frame=self.spec.df)

    def run(self, ctx: ActionContext) -> ReplaceResult:
        verb = "REPLACE TABLE" if self.must_exist else self.label
        if self.rows is not None and (self.spec.as_select is not None or self.spec.df is not None):
            raise InvalidDefinitionError(f"rows are given for {self.name}, whose definition has its own query",
                                         str(self.name))
        return build_version(ctx, self.name, self.spec, self.binlog_text, verb=verb,
                             orig_must_exist=True if self.must_exist else None,
                             fill=self._fill())

    def _fill(self) -> Fill | None:
        if self.rows is None and not self.partitions:
            return None
        return Fill(as_select=self.rows, copy_partitions=self.partitions)


@attrs.frozen(kw_only=True)
class CreateTable(Statement):
    """CREATE TABLE [IF NOT EXISTS]: built under a TMP name and renamed in, so no reader ever sees it partly filled
    and a failure or crash leaves no table, no files and no binlog event. With IF NOT EXISTS a table or view of that
    name makes it do nothing, as in Spark."""

    label: ClassVar[str] = "CREATE TABLE"
    transactional: ClassVar[bool] = True
    name: TableName
    spec: TableSpec
    if_not_exists: bool = False

    @classmethod
    def of(cls, name: str | TableName, *, if_not_exists: bool = False, schema: SchemaLike | None = None,
           like: str | TableName | None = None, as_select: str | None = None, df: Any = None,
           using: str | None = None, partitioned_by: Iterable[str] = (), properties: dict[str, str] | None = None,
           comment: str | None = None, create_text: CreateText | None = None,
           text: str | None = None) -> CreateTable:
        spec = table_spec(schema=schema, like=like, as_select=as_select, df=df, using=using,
                          partitioned_by=partitioned_by, properties=properties, comment=comment, text=create_text)
        return cls(name=TableName.of(name), spec=spec, if_not_exists=if_not_exists, text=text)

    def canonical_text(self) -> str:
        return create_table_text(self.name, self.spec, or_replace=False, if_not_exists=self.if_not_exists)

    def lock_keys(self) -> LockKeys:
        return _spec_keys(self.name, self.spec)

    def changed_keys(self) -> tuple[str, ...]:
        return (object_key(self.name),)

    def reads(self) -> Reads:
        return Reads.of(name=self.spec.like, query=self.spec.as_select, frame=self.spec.df)

    def run(self, ctx: ActionContext) -> StatementResult:
        if self.if_not_exists and (ctx.catalog.names.exists(self.name) or ctx.catalog.views.view_definition(self.name)):
            like = self.spec.like
            if (like is not None and not ctx.catalog.names.exists(like)
                    and ctx.catalog.views.view_definition(like) is None):
                # Spark resolves the LIKE source first, whether or not the name is taken
                raise NoSuchObjectError.relation(f"table or view {like} does not exist", str(like))
            return NOTHING_DONE
        return build_version(ctx, self.name, self.spec, self.binlog_text, verb=self.label, orig_must_exist=False)


@attrs.frozen(kw_only=True)
class TruncateTable(Statement):
    """TRUNCATE TABLE [PARTITION (...)]: an empty copy of the table's whole definition swapped in, or, with
    ``partition`` (some or all partition columns, values as strings), a copy holding every partition the spec does
    not match, files taken whole, those it matches registered and empty, as Spark's TRUNCATE leaves them; a failure
    or crash before the commit keeps the old rows."""

    label: ClassVar[str] = "TRUNCATE TABLE"
    transactional: ClassVar[bool] = True
    name: TableName
    partition: Mapping[str, str] | None = None

    @classmethod
    def of(cls, name: str | TableName, *, partition: Mapping[str, str] | None = None,
           text: str | None = None) -> TruncateTable:
        if partition is not None and not partition:
            raise InvalidNameError("partition names at least one partition column", str(name))
        return cls(name=TableName.of(name), partition=None if partition is None else dict(partition), text=text)

    def canonical_text(self) -> str:
        if not self.partition:
            return f"TRUNCATE TABLE {self.name.quoted}"
        return f"TRUNCATE TABLE {self.name.quoted} {partition_text(self.partition)}"

    def lock_keys(self) -> LockKeys:
        return LockKeys.objects(self.name)

    def run(self, ctx: ActionContext) -> StatementResult:
        with reuse_lookups():  # the checks' reads of the table serve the plan's (build_version's scope is this one)
            emptied = None if self.partition is None else self._emptied(ctx, self.partition)
            if self.partition is not None and emptied is None:
                return NOTHING_DONE
            return build_version(ctx, self.name, None, self.binlog_text, verb=self.label, orig_must_exist=True,
                                 emptied=emptied)

    def _emptied(self, ctx: ActionContext, partition: Mapping[str, str]) -> EmptiedPartitions | None:
        """Spark's checks of a TRUNCATE ... PARTITION, in its order, before anything is logged, and the partitions
        the spec matches; None where a spec of some partition columns matches none (Spark's truncates nothing)."""
        catalog = ctx.catalog
        metadata = catalog.definitions.table_metadata(self.name)
        if metadata is None:
            raise missing_table(catalog, self.name)
        check_rewritable(self.name, metadata, self.label)
        spec = checked_spec(metadata, self.name, partition, action=self.label)
        matched = tuple(catalog.definitions.list_partitions(self.name, spec))
        if matched:
            return EmptiedPartitions(spec, matched)
        if len(spec) == len(metadata.partitioned_by):
            raise NoSuchObjectError.partition(f"partition {spec} does not exist in {self.name}", str(self.name))
        return None


@attrs.frozen(kw_only=True)
class InsertOverwrite(Statement):
    """INSERT OVERWRITE TABLE t [PARTITION (a='1', b)] [IF NOT EXISTS] SELECT ...: the new version is built in a copy
    of the table and swapped in at the commit; the SELECT may read t itself and runs once.

    What is replaced follows Spark (:mod:`ddl_log.engine.overwrite`): ``overwrite_mode`` ``static`` / ``dynamic``,
    by default the session's ``spark.sql.sources.partitionOverwriteMode`` when the statement runs; ``partition``
    maps every partition column to a static value or None (dynamic). IF NOT EXISTS with an existing partition does
    nothing."""

    label: ClassVar[str] = "INSERT OVERWRITE"
    transactional: ClassVar[bool] = True
    name: TableName
    as_select: str | None = None
    df: Any = attrs.field(default=None, eq=False, repr=False)
    partition: Mapping[str, str | None] | None = None
    overwrite_mode: str | None = None
    if_not_exists: bool = False
    columns: tuple[str, ...] = ()
    """``INSERT OVERWRITE t (b, a) SELECT ...``: the table's columns the rows' columns go to, in order."""
    by_name: bool = False
    """``INSERT OVERWRITE t BY NAME SELECT ...``: the rows' columns go to the table's columns of their names."""

    @classmethod
    def of(cls, name: str | TableName, *, as_select: str | None = None, df: Any = None,
           partition: Mapping[str, str | None] | None = None, overwrite_mode: str | None = None,
           if_not_exists: bool = False, columns: Sequence[str] | None = None, by_name: bool = False,
           text: str | None = None) -> InsertOverwrite:
        if (as_select is None) == (df is None):
            raise InvalidNameError("give exactly one of as_select, df", str(name))
        if columns is not None and (by_name or not columns or isinstance(columns, str)):
            raise InvalidNameError("columns is a non-empty list of column names, without by_name", str(name))
        return cls(name=TableName.of(name), as_select=as_select, df=df,
                   partition=None if partition is None else dict(partition), overwrite_mode=overwrite_mode,
                   if_not_exists=if_not_exists, columns=tuple(columns or ()), by_name=by_name, text=text)

    def reads(self) -> Reads:
        return Reads.of(query=self.as_select, frame=self.df)

    def canonical_text(self) -> str:
        text = f"INSERT OVERWRITE TABLE {self.name.quoted}"
        if self.partition:
            parts = [quote_ident(c) if v is None else f"{quote_ident(c)}={sql_string(v)}"
                     for c, v in self.partition.items()]
            text += f" PARTITION ({', '.join(parts)})"
        if self.if_not_exists:
            text += " IF NOT EXISTS"
        if self.by_name or self.columns:
            text += " " + column_clause(self.columns, by_name=self.by_name)
        return text + " " + (self.as_select or "/* DataFrame */")

    def lock_keys(self) -> LockKeys:
        return LockKeys.objects(self.name)

    def run(self, ctx: ActionContext) -> StatementResult:
        catalog = ctx.catalog
        with reuse_lookups():
            # the one-call reading of the table (a classic session); what it does not cover (no location: an
            # external table on Spark Connect) the full metadata
            found = catalog.definitions.recorded_definition(self.name)
            metadata = found[1] if found is not None else catalog.definitions.table_metadata(self.name)
            if metadata is None:
                raise missing_table(catalog, self.name)
            mode = resolve_mode(catalog, self.overwrite_mode, self.name, metadata)
            check_rewritable(self.name, metadata, self.label)
            plan = plan_overwrite(catalog, self.name, metadata, as_select=self.as_select, df=self.df,
                                  partition=self.partition, mode=mode, if_not_exists=self.if_not_exists,
                                  columns=self.columns, by_name=self.by_name)
            if plan.skip:
                return NOTHING_DONE
            text = self.text or overwrite_text(self.name, plan.fill, if_not_exists=self.if_not_exists)
            # an empty copy, properties and comment kept as Spark's; written without a static partition, its
            # partitions are its directories until the install (no records of its own to add and drop)
            copy = TableSpec(like=self.name, copy=True,
                             partitions_in_files=bool(metadata.partitioned_by) and not plan.fill.static)
            # direct: written straight into the new version's directory where the catalog can (a partitioned
            # table's too when its partition columns are all dynamic)
            return replace_version(ctx, self.name, copy, text, verb=self.label, orig_must_exist=True, fill=plan.fill,
                                   keeps_statistics=True, direct=True)
