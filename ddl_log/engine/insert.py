"""INSERT INTO, crash-atomic: all the new rows or none, whatever instant the process dies.

Spark's own INSERT moves its task files into the table one by one at job commit, so a kill in the middle leaves part
of the rows. Here the rows are written aside first and moved in only after the commit point:

====  ===========================  =========================================================================
step  what                         log
====  ===========================  =========================================================================
1     log TMP                      C (undo): CREATE_TABLE of TMP; undo drops it with its files
2     create TMP                   an empty copy of the table's whole definition, at its own directory
3     fill TMP                     Spark's own ``INSERT INTO TMP ...`` (the statement as written, its table
                                   name replaced): positions, casts, defaults, partitions, errors are Spark's
4     log the moves                D (roll-forward, linked to C): MOVE_FILES (every file of TMP and where it
                                   goes in the table, the partitions), then DROP_TABLE of TMP. One write
5     commit                       the XID in C, the binlog event (the commit point: it records the files and
                                   the table version they go into, for replicas), C closed
6     move                         replay D: each file renamed into the table, the new partitions registered
                                   in one call, TMP dropped with what is left of it
====  ===========================  =========================================================================

A crash before step 5 undoes C (TMP and its files go; the table never had a new row); after it, recovery replays D
(moves already made are not made again). What readers of the table see: nothing new until step 6, then the files
appear one rename at a time, as they do during plain Spark's own job commit (a reader that lists the directory in
that instant reads part of the new rows; a partitioned table's new partitions appear all at once).
"""

from __future__ import annotations

import secrets
import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

from actions.commit_or_undo import undo_unless_committed
from actions.context import ActionContext
from actions.errors import CommittedWithPendingWorkWarning
from actions.kinds.create_table import log_create_table
from actions.kinds.drop_table import log_drop_table
from actions.kinds.move_files import log_move_files
from actions.locking import LockKeys
from actions.replay import replay_chain
from actions.results import StatementResult
from chains.commit import commit_chain, committed_event
from chains.entries import ChainKind
from chains.versions import AddedFile, AddedFiles
from ddl_log.engine.lookups import missing_table
from ddl_log.engine.texts import sql_string
from ddl_log.engine.typed import Statement
from replace_table.machine import work_names
from storage import crashpoints
from storage.catalogs.file_moves import MovePlan, file_mover_of
from storage.catalogs.insert_checks import check_insert_of
from storage.catalogs.interface import TAG_PROPERTY, Fill, TableMetadata, TableSpec
from storage.catalogs.names import TableName, quote_ident
from storage.errors import CatalogError, DDLLogError, InvalidNameError, NotAtomicError

STEPS = ("log_tmp", "create_tmp", "fill_tmp", "log_moves", "commit", "move")
POINTS = {step: (crashpoints.declare(f"insert.{step}.before", f"INSERT INTO: before {step}"),
                 crashpoints.declare(f"insert.{step}.after", f"INSERT INTO: after {step}")) for step in STEPS}


@attrs.frozen(kw_only=True)
class InsertResult(StatementResult):
    """``files``: how many data files the statement added to the table; ``moves_pending``: committed, but moving
    them in failed (recovery finishes it)."""

    files: int = 0
    moves_pending: bool = False


@attrs.frozen(kw_only=True)
class InsertInto(Statement):
    """INSERT INTO [TABLE] t [PARTITION (...)] [(columns)] SELECT ... | VALUES ...: the rows a query or a DataFrame
    gives appended to ``t``, all or none (see the module). ``fill``: what goes in (the SQL text after the table's
    name as written, or a SELECT / DataFrame with a ``partition`` spec from the Python API; a replica's copy of a
    source INSERT's files)."""

    label: ClassVar[str] = "INSERT INTO"
    name: TableName
    fill: Fill = attrs.field(eq=False)

    @classmethod
    def of(cls, name: str | TableName, *, as_select: str | None = None, df: Any = None, body: str | None = None,
           partition: Mapping[str, str | None] | None = None, text: str | None = None) -> InsertInto:
        if sum(value is not None for value in (as_select, df, body)) != 1:
            raise InvalidNameError("give exactly one of as_select, df", str(name))
        spec = tuple((str(c), None if v is None else str(v)) for c, v in (partition or {}).items())
        return cls(name=TableName.of(name), fill=Fill(as_select=as_select, df=df, insert_text=body, partition=spec),
                   text=text)

    def canonical_text(self) -> str:
        text = f"INSERT INTO TABLE {self.name.quoted}"
        if self.fill.insert_text is not None:
            return f"{text} {self.fill.insert_text}"
        if self.fill.partition:
            parts = [quote_ident(c) if v is None else f"{quote_ident(c)}={sql_string(v)}"
                     for c, v in self.fill.partition]
            text += f" PARTITION ({', '.join(parts)})"
        return text + " " + (self.fill.as_select or "/* DataFrame */")

    def lock_keys(self) -> LockKeys:
        return LockKeys.objects(self.name)

    def run(self, ctx: ActionContext) -> InsertResult:
        found = ctx.catalog.recorded_definition(self.name)  # one metastore call on a classic session
        if found is None:
            raise missing_table(ctx.catalog, self.name)
        metadata = found[1]
        if metadata.external:
            raise NotAtomicError(f"INSERT INTO the external table {self.name} cannot be atomic: its files live at the "
                                 "table's own location, outside the log's (allow_non_atomic=True or "
                                 "--allow-non-atomic runs Spark's own statement)", str(self.name))
        self.check(metadata)
        check_insert_of(ctx.catalog, self.name, self.fill)  # what Spark refuses, refused before anything is logged
        return InsertRun(ctx, self, metadata).run()

    def check(self, metadata: TableMetadata) -> None:
        """What the table must be beyond an existing managed table (nothing here; a replica checks its shape)."""


class InsertRun:
    """One INSERT INTO, driven step by step (the module's table)."""

    def __init__(self, ctx: ActionContext, statement: InsertInto, metadata: TableMetadata) -> None:
        self.ctx, self.name, self.fill, self.metadata = ctx, statement.name, statement.fill, metadata
        self.text = statement.binlog_text
        self.mover = file_mover_of(ctx.catalog, self.name)
        self.xid = ctx.log.allocate_id() if ctx.binlog is None else ctx.binlog.new_xid()
        self.tmp, _ = work_names(self.name, self.xid)
        self.tag = f"x{self.xid}-{secrets.token_hex(8)}"
        self.undo_chain = -1
        self.move_chain: int | None = None
        self.plan = MovePlan("")

    def step(self, name: str, work: Any) -> Any:
        before, after = POINTS[name]
        before()
        result = work()
        after()
        return result

    def run(self) -> InsertResult:
        ctx, log = self.ctx, self.ctx.log
        identity = self.metadata.property_map.get(TAG_PROPERTY) or ctx.catalog.identity(self.name)
        event = None
        try:
            self.undo_chain = log.new_chain(ChainKind.UNDO, self.text)
            self.step("log_tmp", lambda: log_create_table(log, self.undo_chain, self.tmp, self.tag,
                                                          owns_location=True, late_writes=ctx.orphan_window()))
            self.step("create_tmp", lambda: ctx.catalog.create(self.tmp, TableSpec(like=self.name, copy=True),
                                                               self.tag))
            self.step("fill_tmp", self.fill_tmp)
            self.plan = self.mover.plan_moves(self.tmp, self.name, partitioned=bool(self.metadata.partitioned_by))
            self.step("log_moves", lambda: self.log_moves(identity))
            event = self.step("commit", lambda: commit_chain(
                log, ctx.binlog, self.undo_chain, self.text, (str(self.name),), xid=self.xid,
                added=self.added(identity) if ctx.record_versions else None))
        except Exception as error:
            failure = undo_unless_committed(ctx, self.undo_chain, error, verb="INSERT INTO", subject=str(self.name),
                                            cancel=() if self.move_chain is None else (self.move_chain,))
            if failure is not None:
                raise failure from error
            event = committed_event(log, ctx.binlog, self.undo_chain)
            return self.result(event, pending=self.finish(error))
        return self.result(event, pending=self.finish(None))

    def fill_tmp(self) -> None:
        try:
            if self.fill.copy_files or self.fill.copy_partitions:  # a replica: the source's files, as files
                self.mover.copy_in(self.tmp, self.fill)
            else:
                self.ctx.catalog.insert(self.tmp, self.fill)
        except CatalogError as error:  # Spark's message names the work table: name the statement's table instead
            raise renamed(error, self.tmp, self.name) from None

    def log_moves(self, identity: str | None) -> None:
        log = self.ctx.log
        with log.batch():
            self.move_chain = log.new_chain(ChainKind.FORWARD, self.text, master=self.undo_chain)
            log_move_files(log, self.move_chain, self.name, identity, self.plan)
            log_drop_table(log, self.move_chain, self.tmp, self.tag, keep_files=False)

    def added(self, identity: str | None) -> AddedFiles:
        return AddedFiles(
            table=str(self.name), location=self.plan.location, identity=identity,
            files=tuple(AddedFile(move.target, move.partition) for move in self.plan.moves),
            partitions=self.plan.partitions, columns=tuple((c.name, c.type) for c in self.metadata.columns),
            partitioned_by=self.metadata.partitioned_by, provider=self.metadata.provider)

    def finish(self, error: Exception | None) -> bool:
        """After the commit: move the files in now (D); True when that is left to recovery."""
        if error is None and self.move_chain is not None:
            try:
                self.step("move", lambda: replay_chain(self.ctx, self.move_chain))
                return False
            except DDLLogError as failed:
                error = failed
        warnings.warn(CommittedWithPendingWorkWarning(
            f"INSERT INTO {self.name} committed; moving its files in failed ({error}): recovery finishes it"),
            stacklevel=4)
        return True

    def result(self, event: Any, *, pending: bool) -> InsertResult:
        return InsertResult(objects=(str(self.name),), event=event, files=len(self.plan.moves),
                            moves_pending=pending, detail=f"{len(self.plan.moves)} files added")


def renamed(error: CatalogError, tmp: TableName, name: TableName) -> CatalogError:
    """``error`` with the work table's name replaced by the statement's table's, in its message and ``name``."""
    if error.args and isinstance(error.args[0], str):
        message = error.args[0]
        for old, new in ((tmp.quoted, name.quoted), (str(tmp), str(name)), (tmp.name, name.name)):
            message = message.replace(old, new)
        error.args = (message, *error.args[1:])
    if error.name in (str(tmp), tmp.name):
        error.name = str(name)
    return error
