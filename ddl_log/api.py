"""The public Python API: :class:`AtomicDDL` opens a home's log and binlog, runs recovery first (as a database
server does at start), then runs DDL statements atomically on a Spark session (or any :class:`Catalog`)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any

from chains.binlog import BinlogEvent, BinlogLike
from chains.catalog_binlog import home_binlog
from chains.deletions import PendingDeletion, due_deletions, is_waiting, pending_deletions
from chains.entries import ActionEntry, ExecuteEntry
from chains.log import DEFAULT_COMPACT_BYTES, DDLLog
from ddl_log.dispatch import HANDLERS
from ddl_log.driver_session import SessionChoice, close_catalog, driver_session
from ddl_log.locks import DEFAULT_LOCK_WAIT_SECONDS, chain_keys, database_key, function_key, metadata_locks, object_key
from ddl_log.recovery import ChainOutcome, RecoveryReport, delete_versions_of_dropped, recover, run_due_deletions
from ddl_log.statements.alter import alter_table
from ddl_log.statements.alter_ops import AlterOp, alter_table_text
from ddl_log.statements.driver import Parts
from ddl_log.statements.overwrite import check_rewritable, overwrite_text, plan_overwrite, resolve_mode
from ddl_log.statements.schema import SchemaLike, table_spec
from ddl_log.statements.tables import create_database, drop_database, drop_tables, rename_tables
from ddl_log.statements.texts import (
    create_table_text,
    drop_database_text,
    drop_text,
    function_text,
    rename_tables_text,
    view_text,
)
from ddl_log.statements.typed import Statement
from ddl_log.statements.views import (
    alter_view,
    create_function,
    create_view,
    drop_function,
    drop_views,
    rename_view,
)
from ddl_log.takeover import TakeoverReport, check_objects, note_takeover, start_takeover, stop_takeover, take_over_dead
from replace_table.machine import DEFAULT_GRACE_SECONDS, ReplaceResult, ReplaceTable
from storage.catalogs.interface import Catalog, CreateText, Fill, FunctionDefinition, TableSpec, ViewDefinition
from storage.catalogs.lookup_scope import reuse_lookups
from storage.catalogs.names import TableName, check_identifier, quote_ident
from storage.errors import InvalidNameError, ObjectExistsError
from storage.records.fileops import REAL_FILE_OPS, FileOps
from storage.records.home import open_home

if TYPE_CHECKING:
    from ddl_log.sql import SqlResult


class AtomicDDL:
    """Atomic, crash-safe DDL for one home (log, binlog and, by default, an embedded Spark + Derby metastore).

    ``spark``: a SparkSession (classic or Connect) to use; default: the embedded session under ``home``.
    ``metastore_uri`` (``thrift://host:port``), ``warehouse``: instead, a session on that shared metastore service.
    ``catalog``: any :class:`Catalog` instead of Spark (unit tests of the log).
    ``binlog``: write committed statements to the binlog (the commit point); off: closing the chain commits.
    ``lease_seconds``, ``takeover_interval``: a database home's lease, and how often dead drivers' homes are taken over.
    ``lock_wait_seconds``: on a database home, how long a statement waits for another driver's metadata locks.
    """

    def __init__(
        self,
        spark: Any = None,
        home: str | os.PathLike[str] | None = None,
        *,
        metastore_uri: str | None = None, warehouse: str | os.PathLike[str] | None = None,
        binlog: bool = True,
        catalog: Catalog | None = None,
        file_ops: FileOps = REAL_FILE_OPS,
        compact_bytes: int = DEFAULT_COMPACT_BYTES,
        binlog_segment_bytes: int | None = None,
        wait_seconds: float = 0.0,
        grace_seconds: float = DEFAULT_GRACE_SECONDS,
        lease_seconds: float | None = None, takeover_interval: float | None = None,
        lock_wait_seconds: float = DEFAULT_LOCK_WAIT_SECONDS,
    ) -> None:
        self._session_choice = SessionChoice.of(spark, metastore_uri, warehouse)
        self.home = open_home(home, wait_seconds=wait_seconds, lease_seconds=lease_seconds)  # a dir or a database
        try:
            self.log = DDLLog(self.home.log_store(file_ops), compact_bytes=compact_bytes)
            segment_options = {} if binlog_segment_bytes is None else {"segment_bytes": binlog_segment_bytes}
            self.binlog_file = home_binlog(self.home, self.log.allocate_id, file_ops, **segment_options)
            self.log.reserve_ids(self.binlog_file.max_xid + 1)
        except BaseException:
            self.home.release()
            raise
        self.binlog_enabled = binlog
        self.grace_seconds = grace_seconds
        self._spark = spark
        self._catalog = catalog
        self.locks = metadata_locks(self.home, lock_wait_seconds)
        try:
            self.last_recovery = note_takeover(self.home, self.recover())
        except BaseException:
            self.close()  # a dying process lets go of its files and lock too
            raise
        self.takeover = start_takeover(self.home, lambda: self.catalog, self._lock_chain, binlog, takeover_interval)

    def take_over_dead(self) -> TakeoverReport:
        """Recover the interrupted statements of every dead driver's database home now (ddl_log/takeover.py)."""
        return take_over_dead(self.takeover)

    # ------------------------------------------------------------------ parts

    @property
    def binlog(self) -> BinlogLike | None:
        """The binlog statements write to; None when the binlog is off."""
        return self.binlog_file if self.binlog_enabled else None

    @property
    def spark(self) -> Any:
        self._spark = self._spark if self._spark is not None else driver_session(self.home, self._session_choice)
        return self._spark

    @property
    def catalog(self) -> Catalog:
        if self._catalog is None:
            from storage.catalogs.spark.catalog import SparkCatalog

            self._catalog = SparkCatalog(self.spark)
        return self._catalog

    # ------------------------------------------------------------------ recovery and inspection

    def recover(self, *, retry_abandoned: bool = False) -> RecoveryReport:
        """Undo or finish every interrupted statement. Starts Spark only if some chain has to run.

        Safe beside running statements: a chain that a statement of this process is running is left to it, and
        every other chain is replayed under the metadata locks of its objects. ``retry_abandoned``: give abandoned
        chains new tries (after the cause is fixed)."""
        self.last_recovery = recover(self.log, self.binlog_file, lambda: self.catalog,
                                     write_binlog=self.binlog_enabled, lock_chain=self._lock_chain,
                                     retry_abandoned=retry_abandoned)
        return self.last_recovery

    def _lock_chain(self, actions: list[ActionEntry]) -> AbstractContextManager[None]:
        exclusive, shared = chain_keys(actions)
        return self.locks.hold(exclusive, shared=shared)

    @contextmanager
    def _statement(self, exclusive: list[str], shared: Iterable[str] = ()) -> Iterator[None]:
        """Run a statement: its metadata locks held, and the chains it creates marked as its own, so that a
        recover() on another thread never replays them under it. Refused (nothing written) while the session's
        current catalog is not the one the statement's ``db.name`` objects live in."""
        self.catalog.check_current_catalog()
        with self.locks.hold(exclusive, shared=shared), self.log.owning():
            check_objects(self.takeover, exclusive)  # a dead driver's half-changed object waits for its takeover
            yield
        self.run_due_deletions()

    def active_chains(self) -> list[ExecuteEntry]:
        """Chains of statements in flight or interrupted; not-yet-due deletions are :meth:`pending_deletions`."""
        return [chain for chain in self.log.active_chains() if not is_waiting(self.log, chain, time.time())]

    def pending_deletions(self) -> list[PendingDeletion]:
        """Old table directories kept for readers until their grace period is over, soonest first."""
        return pending_deletions(self.log)

    def run_due_deletions(self, dropped: Iterable[TableName] = ()) -> list[ChainOutcome]:
        """Delete old table directories whose grace period is over (each statement does), and those of ``dropped``."""
        dropped = frozenset(dropped)
        due = due_deletions(self.log, time.time(), dropped)
        return run_due_deletions(self.log, self.binlog, self.catalog, self._lock_chain, dropped) if due else []

    def abandoned_chains(self) -> list[ExecuteEntry]:
        return self.log.abandoned_chains()

    def binlog_events(self, since_seq: int = 0) -> list[BinlogEvent]:
        return list(self.binlog_file.events(since_seq))

    # ------------------------------------------------------------------ statements

    def _parts(self) -> Parts:
        return Parts(self.log, self.binlog, self.catalog, self.grace_seconds)

    def _table_statement(self, name: str | TableName, spec: TableSpec | None, statement: str, *, verb: str,
                         orig_must_exist: bool | None, fill: Fill | None = None) -> ReplaceResult:
        """Run a statement through the replace machine; ``spec`` None: an empty copy of the table, read locked."""
        target = TableName.of(name)
        keys = [object_key(target.db, target.name)]
        if spec is not None and spec.like is not None:
            keys.append(object_key(spec.like.db, spec.like.name))
        with self._statement(keys, shared=[database_key(target.db)]):
            if spec is None:
                check_rewritable(target, self.catalog.table_metadata(target), verb)
                spec = TableSpec(like=target, copy=True)  # no check_create: the machine checks that it exists
            else:
                if orig_must_exist is not True and self.catalog.view_definition(target) is not None:
                    raise ObjectExistsError(f"{target} is a view, not a table", str(target))
                self.catalog.check_create(spec, target)
            with reuse_lookups():  # one lookup of each name serves the checks; every change forgets what it touches
                delete_versions_of_dropped(self.log, self.binlog, self.catalog, target)  # they hold its directory
                return ReplaceTable(self.log, self.binlog, self.catalog, target, spec, statement, verb=verb,
                                    orig_must_exist=orig_must_exist, fill=fill, grace_seconds=self.grace_seconds).run()

    def create_or_replace_table(
        self,
        name: str | TableName,
        *,
        schema: SchemaLike | None = None,
        like: str | TableName | None = None,
        as_select: str | None = None,
        df: Any = None,
        using: str | None = None,
        partitioned_by: Iterable[str] = (),
        properties: dict[str, str] | None = None,
        comment: str | None = None,
        statement: str | None = None,
        must_exist: bool = False,
        text: CreateText | None = None,
    ) -> ReplaceResult:
        """CREATE OR REPLACE TABLE ``name``: the old table stays readable and intact until the new one is complete
        and the statement is binlogged; any failure or crash before that leaves exactly the old table. ``using``
        None: the session's default data source, as in Spark. ``must_exist``: REPLACE TABLE (no table, no change).
        ``text``: the statement as written (the SQL front end's), which Spark then runs under the TMP name."""
        spec = table_spec(schema=schema, like=like, as_select=as_select, df=df, using=using,
                          partitioned_by=partitioned_by, properties=properties, comment=comment, text=text)
        target = TableName.of(name)
        text_ = statement or create_table_text(target, spec, or_replace=True)
        verb = "REPLACE TABLE" if must_exist else "CREATE OR REPLACE TABLE"
        return self._table_statement(target, spec, text_, verb=verb, orig_must_exist=True if must_exist else None)

    def create_table(
        self,
        name: str | TableName,
        *,
        if_not_exists: bool = False,
        schema: SchemaLike | None = None,
        like: str | TableName | None = None,
        as_select: str | None = None,
        df: Any = None,
        using: str | None = None,
        partitioned_by: Iterable[str] = (),
        properties: dict[str, str] | None = None,
        comment: str | None = None,
        statement: str | None = None,
        text: CreateText | None = None,
    ) -> ReplaceResult | None:
        """CREATE TABLE [IF NOT EXISTS] (column list, LIKE, AS SELECT or a DataFrame), atomic: it is built under a
        TMP name and renamed in, so no reader ever sees it partly filled and a failure or crash leaves no table, no
        files and no binlog event. With IF NOT EXISTS an existing table is left alone (None is returned)."""
        spec = table_spec(schema=schema, like=like, as_select=as_select, df=df, using=using,
                          partitioned_by=partitioned_by, properties=properties, comment=comment, text=text)
        target = TableName.of(name)
        text_ = statement or create_table_text(target, spec, or_replace=False, if_not_exists=if_not_exists)
        if if_not_exists:
            with self._statement([object_key(target.db, target.name)]):
                if self.catalog.exists(target) or self.catalog.view_definition(target) is not None:
                    return None  # a view holds the name: Spark's CREATE TABLE IF NOT EXISTS does nothing too
        return self._table_statement(target, spec, text_, verb="CREATE TABLE", orig_must_exist=False)

    def truncate_table(self, name: str | TableName, *, statement: str | None = None) -> ReplaceResult:
        """TRUNCATE TABLE: an empty copy (LIKE) swapped in; a failure or crash before the commit keeps the old rows."""
        target = TableName.of(name)
        return self._table_statement(target, None, statement or f"TRUNCATE TABLE {target.quoted}",
                                     verb="TRUNCATE TABLE", orig_must_exist=True)

    def insert_overwrite(self, name: str | TableName, *, as_select: str | None = None, df: Any = None,
                         statement: str | None = None, partition: Mapping[str, str | None] | None = None,
                         overwrite_mode: str | None = None, if_not_exists: bool = False) -> ReplaceResult | None:
        """INSERT OVERWRITE TABLE t [PARTITION (a='1', b)] [IF NOT EXISTS] SELECT ...: the new table version is built
        in a copy (LIKE t) and swapped in at the commit; the SELECT may read t itself and runs once.

        What is replaced follows Spark (:mod:`ddl_log.statements.overwrite`): ``overwrite_mode`` ``static`` /
        ``dynamic``, by default the session's ``spark.sql.sources.partitionOverwriteMode`` at this moment (static
        without Spark); ``partition`` maps every partition column to a static value or None (dynamic). The
        partitions kept are copied into the new version; any crash leaves all replaced partitions old or all new.
        IF NOT EXISTS with an existing partition does nothing (None)."""
        if (as_select is None) == (df is None):
            raise InvalidNameError("give exactly one of as_select, df", str(name))
        target = TableName.of(name)
        keys = [object_key(target.db, target.name)]
        with self._statement(keys, shared=[database_key(target.db)]):
            mode = resolve_mode(self.catalog, overwrite_mode, target)
            metadata = self.catalog.table_metadata(target)
            check_rewritable(target, metadata, "INSERT OVERWRITE")
            plan = plan_overwrite(self.catalog, target, metadata, as_select=as_select, df=df, partition=partition,
                                  mode=mode, if_not_exists=if_not_exists)
            if plan.skip:
                return None
            text = statement or overwrite_text(target, plan.fill, if_not_exists=if_not_exists)
            copy = TableSpec(like=target, copy=True)  # an empty copy, properties and comment kept as Spark keeps them
            with reuse_lookups():
                return ReplaceTable(self.log, self.binlog, self.catalog, target, copy, text, verb="INSERT OVERWRITE",
                                    orig_must_exist=True, fill=plan.fill, grace_seconds=self.grace_seconds).run()

    def rename_tables(self, pairs: Iterable[tuple[str | TableName, str | TableName]], *,
                      statement: str | None = None) -> BinlogEvent | None:
        """RENAME TABLE a TO b, c TO d: all or none; on failure or crash the renames are undone in reverse order."""
        names = [(TableName.of(old), TableName.of(new)) for old, new in pairs]
        if not names:
            raise InvalidNameError("RENAME TABLE needs at least one pair", "")
        keys = [object_key(n.db, n.name) for pair in names for n in pair]
        with self._statement(keys, shared=[database_key(n.db) for pair in names for n in pair]):
            return rename_tables(self._parts(), names, statement or rename_tables_text(names))

    def drop_tables(self, names: Iterable[str | TableName], *, if_exists: bool = False, purge: bool = False,
                    statement: str | None = None) -> list[TableName]:
        """DROP TABLE a, b: all names checked first (nothing dropped on a missing one); then rolls forward. A managed
        table's files stay for the grace period (a reader that resolved it reads it whole), ``purge``: not."""
        targets = [TableName.of(n) for n in names]
        text = statement or drop_text("TABLE", targets, if_exists=if_exists) + (" PURGE" if purge else "")
        with self._statement([object_key(n.db, n.name) for n in targets], shared=[database_key(n.db) for n in targets]):
            return drop_tables(self._parts(), targets, if_exists=if_exists, statement=text, purge=purge)

    def create_database(self, name: str, *, if_not_exists: bool = False, comment: str | None = None,
                        properties: dict[str, str] | None = None, statement: str | None = None) -> bool:
        """CREATE DATABASE [IF NOT EXISTS]: a crash before the commit leaves no database."""
        db = check_identifier(name)
        text = statement or "CREATE DATABASE " + ("IF NOT EXISTS " if if_not_exists else "") + quote_ident(db)
        with self._statement([database_key(db)]):
            return create_database(self._parts(), db, if_not_exists=if_not_exists, comment=comment,
                                   properties=tuple(sorted((properties or {}).items())), statement=text)

    def current_database(self) -> str:
        """The session's current database (unqualified names in SQL resolve against it)."""
        return str(self.spark.catalog.currentDatabase())

    def execute(self, statement: Statement[str]) -> object:
        """Run a typed statement (as the SQL front end reads them) through its method, chosen by its type."""
        handler = HANDLERS.get(type(statement))
        if handler is None:
            raise TypeError(f"AtomicDDL cannot run a {type(statement).__name__}")
        return handler.run(self, statement)

    @staticmethod
    def statement_options(kind: type[Statement[Any]]) -> frozenset[str] | None:
        """The optional clauses :meth:`execute` runs for statements of type ``kind``; None: it cannot run them."""
        handler = HANDLERS.get(kind)
        return None if handler is None else handler.options

    def sql(self, text: str, *, allow_non_atomic: bool = False) -> list[SqlResult]:
        """Run a SQL script: every DDL statement this project makes atomic goes through the DDL log, anything else
        to ``spark.sql`` unchanged. A DDL form that cannot be made atomic is refused unless ``allow_non_atomic``."""
        from ddl_log.sql import run_sql

        return run_sql(self, text, allow_non_atomic=allow_non_atomic)

    def drop_database(self, name: str, *, if_exists: bool = False, cascade: bool = False,
                      statement: str | None = None) -> bool:
        """DROP DATABASE [CASCADE]: every table, view and function in it goes, or (before the log write) nothing."""
        db = check_identifier(name)
        text = statement or drop_database_text(db, if_exists=if_exists, cascade=cascade)
        with self._statement([database_key(db)]):
            return drop_database(self._parts(), db, if_exists=if_exists, cascade=cascade, statement=text)

    def alter_table(self, name: str | TableName, op: AlterOp, *, statement: str | None = None) -> object:
        """ALTER TABLE: in-place changes logged with the old metadata; type changes and column drops rebuild the
        table from its old rows and swap it in (the old table is untouched if any row fails to convert)."""
        target = TableName.of(name)
        text = statement or alter_table_text(target.quoted, op)
        with self._statement([object_key(target.db, target.name)], shared=[database_key(target.db)]):
            return alter_table(self._parts(), target, op, statement=text)

    # ------------------------------------------------------------------ views and functions

    def create_view(self, name: str | TableName, *, as_select: str, or_replace: bool = False,
                    comment: str | None = None, columns: Iterable[str] = (), if_not_exists: bool = False,
                    statement: str | None = None) -> BinlogEvent | None:
        target = TableName.of(name)
        definition = ViewDefinition(as_select, comment, tuple(columns))
        text = statement or view_text(target, as_select, or_replace=or_replace, comment=comment,
                                      columns=definition.columns)
        with self._statement([object_key(target.db, target.name)], shared=[database_key(target.db)]):
            return create_view(self._parts(), target, definition, or_replace=or_replace, statement=text,
                               if_not_exists=if_not_exists)

    def alter_view(self, name: str | TableName, *, as_select: str, statement: str | None = None) -> BinlogEvent | None:
        target = TableName.of(name)
        text = statement or f"ALTER VIEW {target.quoted} AS {as_select}"
        with self._statement([object_key(target.db, target.name)], shared=[database_key(target.db)]):
            return alter_view(self._parts(), target, as_select, statement=text)

    def rename_view(self, old: str | TableName, new: str | TableName, *,
                    statement: str | None = None) -> BinlogEvent | None:
        source, target = TableName.of(old), TableName.of(new)
        text = statement or f"ALTER VIEW {source.quoted} RENAME TO {target.quoted}"
        with self._statement([object_key(n.db, n.name) for n in (source, target)],
                             shared=[database_key(source.db)]):
            return rename_view(self._parts(), source, target, statement=text)

    def drop_views(self, names: Iterable[str | TableName], *, if_exists: bool = False,
                   statement: str | None = None) -> list[TableName]:
        targets = [TableName.of(n) for n in names]
        text = statement or drop_text("VIEW", targets, if_exists=if_exists)
        with self._statement([object_key(n.db, n.name) for n in targets], shared=[database_key(n.db) for n in targets]):
            return drop_views(self._parts(), targets, if_exists=if_exists, statement=text)

    def create_function(self, name: str | TableName, *, class_name: str,
                        resources: Iterable[tuple[str, str]] = (), or_replace: bool = False,
                        if_not_exists: bool = False, statement: str | None = None) -> BinlogEvent | None:
        target = TableName.of(name)
        definition = FunctionDefinition(class_name=class_name, resources=tuple((k.lower(), u) for k, u in resources))
        text = statement or function_text(target, class_name, definition.resources, or_replace=or_replace)
        with self._statement([function_key(target)], shared=[database_key(target.db)]):
            return create_function(self._parts(), target, definition, or_replace=or_replace, statement=text,
                                   if_not_exists=if_not_exists)

    def create_sql_function(self, name: str | TableName, *, params: str, returns: str, body: str,
                            or_replace: bool = False, if_not_exists: bool = False,
                            statement: str | None = None) -> BinlogEvent | None:
        target = TableName.of(name)
        definition = FunctionDefinition(params=params, returns=returns, body=body)
        head = "CREATE OR REPLACE FUNCTION" if or_replace else "CREATE FUNCTION"
        text = statement or f"{head} {target.quoted}({params}) RETURNS {returns} RETURN {body}"
        with self._statement([function_key(target)], shared=[database_key(target.db)]):
            return create_function(self._parts(), target, definition, or_replace=or_replace, statement=text,
                                   if_not_exists=if_not_exists)

    def drop_function(self, name: str | TableName, *, if_exists: bool = False, statement: str | None = None) -> bool:
        target = TableName.of(name)
        text = statement or drop_text("FUNCTION", [target], if_exists=if_exists)
        with self._statement([function_key(target)], shared=[database_key(target.db)]):
            return drop_function(self._parts(), target, if_exists=if_exists, statement=text)

    # ------------------------------------------------------------------ life cycle

    def close(self) -> None:
        """Release files and the home lock (the Spark session is left to its owner)."""
        stop_takeover(self)
        self.log.close_file()
        self.binlog_file.close()
        self.home.release()
        close_catalog(self._catalog)  # its own metastore client; a session it was given stays open

    def abandon(self) -> None:
        """Drop every file handle without writing anything: what the kernel does when the process dies.
        Used by in-process crash tests before they re-open the home."""
        self.close()

    def __enter__(self) -> AtomicDDL:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
