"""INSERT INTO, crash-atomic: all the new rows or none, whatever instant the process dies.

Spark's own INSERT moves its task files into the table one by one at job commit, so a kill in the middle leaves part
of the rows. Two plans, the catalog's file mover choosing (``FileMover.names_jobs``):

**In place** (``insert_in_place``): where the engine names every file of a write job with an id given beforehand (a
classic Spark session with the project's jar; :mod:`storage.catalogs.spark.fs.named_jobs`), Spark's own job writes
the rows where plain Spark writes them, and nothing is moved after the commit point. A replica's copy of a source's
files is written in place everywhere: it names its copies with the id itself (``FileMover.copy_in`` with the job),
each appearing whole, so no file is renamed into the table on an object store:

====  ===============  =====================================================================================
step  name             effect
====  ===============  =====================================================================================
1     ``log_job``      C (undo): REMOVE_JOB_FILES (the table's directory, the job id, its partitions before);
                       undo deletes every file named with the id and drops the partitions the table lacked
2     ``fill``         Spark's own ``INSERT INTO t ...`` (the statement as written), its job named with the id:
                       positions, casts, defaults, partitions, statistics, errors are Spark's (a replica: the
                       source's files copied, each under a name with the id, its partitions registered)
3     ``commit``       the XID in C, the binlog event (the job's files and partitions, for replicas), C closed
====  ===============  =====================================================================================

A crash before step 3 undoes C: the job's files go wherever Spark's commit had put them (the table, a partition, a
staging directory), with the partitions it added; after it, nothing is left to do. What readers see: the rows as
Spark's job commit moves them in (as with plain Spark), then, a few milliseconds later, the commit point; a crash in
between removes rows a reader may have seen (the only window where a reader sees rows that do not stay).

**Aside** (``insert``): elsewhere (a Spark Connect session, a session without the jar or with another commit
protocol, and inside a DDL transaction, where nothing may be seen before COMMIT)
the rows are written aside first and moved in only after the commit point:

====  ===============  =====================================================================================
step  name             effect
====  ===============  =====================================================================================
1     ``log_tmp``      C (undo): CREATE_TABLE of TMP; undo drops it with its files
2     ``create_tmp``   an empty copy of the table's whole definition, at its own directory
3     ``fill_tmp``     Spark's own ``INSERT INTO TMP ...`` (the statement as written, its table name replaced):
                       positions, casts, defaults, partitions, errors are Spark's
4     ``log_moves``    D (roll-forward, linked to C): MOVE_FILES (every file of TMP and where it goes in the
                       table, the partitions), then DROP_TABLE of TMP. One write
5     ``commit``       the XID in C, the binlog event (the commit point: it records the files and the table
                       version they go into, for replicas), C closed
6     ``move``         replay D: each file renamed into the table, the new partitions registered in one call,
                       TMP dropped with what is left of it
====  ===============  =====================================================================================

A crash before step 5 undoes C (TMP and its files go; the table never had a new row); after it, recovery replays D
(moves already made are not made again). What readers of the table see: nothing new until step 6, then the files
appear one rename at a time, as they do during plain Spark's own job commit (a reader that lists the directory in
that instant reads part of the new rows; a partitioned table's new partitions appear all at once).
"""

from __future__ import annotations

import contextlib
import uuid
import warnings

import attrs

from actions.context import ActionContext
from actions.errors import CommittedWithPendingWorkWarning
from actions.kinds.create_table import log_create_table
from actions.kinds.drop_table import log_drop_table
from actions.kinds.move_files import log_move_files
from actions.kinds.remove_job_files import RemoveJobFilesPayload, log_remove_job_files
from actions.results import StatementResult
from chains.version_records import AddedFile, AddedFiles
from replace_table.machine import Plan, Step, run_plan
from replace_table.statement_log import StatementLog
from storage.catalogs.file_moves import FileMove, FileMover, MovePlan, PartitionValues, WriteJob
from storage.catalogs.interface import Fill, TableMetadata, TableSpec, tag_in
from storage.catalogs.names import TableName
from storage.errors import CatalogError, HomeFencedError


@attrs.frozen(kw_only=True)
class InsertResult(StatementResult):
    """``files``: how many data files the statement added to the table; ``moves_pending``: committed, but moving
    them in failed (recovery finishes it)."""

    files: int = 0
    moves_pending: bool = False


@attrs.define
class InsertRun:
    """``fill``'s rows appended to the existing managed table ``name`` (its definition ``metadata``)."""

    ctx: ActionContext
    log: StatementLog
    name: TableName
    fill: Fill
    metadata: TableMetadata
    mover: FileMover
    tmp: TableName = attrs.field(init=False)
    identity: str | None = None
    plan: MovePlan = attrs.field(factory=lambda: MovePlan(""))
    move_chain: int | None = None
    job: RemoveJobFilesPayload | None = None
    """In place: the job's id, the table's directory and partitions before."""

    def __attrs_post_init__(self) -> None:
        self.tmp, _ = self.log.work_names(self.name)


def log_tmp(run: InsertRun) -> None:
    log_create_table(run.ctx.log, run.log.undo_chain(), run.tmp, run.log.tag, owns_location=True,
                     late_writes=run.ctx.orphan_window())


def create_tmp(run: InsertRun) -> None:
    run.ctx.catalog.data.create(run.tmp, TableSpec(like=run.name, copy=True), run.log.tag)


def fill_tmp(run: InsertRun) -> None:
    try:
        if copies_files(run.fill):
            run.mover.copy_in(run.tmp, run.fill)
        else:
            run.ctx.catalog.data.insert(run.tmp, run.fill)
    except CatalogError as error:  # Spark's message names the work table: name the statement's table instead
        raise renamed(error, run.tmp, run.name) from None


def log_moves(run: InsertRun) -> None:
    run.plan = run.mover.plan_moves(run.tmp, run.name, partitioned=bool(run.metadata.partitioned_by))
    with run.log.batch() as log:
        run.move_chain = run.log.link()
        log_move_files(log, run.move_chain, run.name, run.identity, run.plan)
        log_drop_table(log, run.move_chain, run.tmp, run.log.tag, keep_files=False)


def commit(run: InsertRun) -> None:
    run.log.commit((str(run.name),), added=added(run) if run.ctx.record_versions else None)


def move(run: InsertRun) -> None:
    run.log.retire([run.move_chain])


INSERT = Plan("insert", [Step("log_tmp", "log", log_tmp), Step("create_tmp", "act", create_tmp),
                         Step("fill_tmp", "act", fill_tmp), Step("log_moves", "log", log_moves),
                         Step("commit", "commit", commit), Step("move", "retire", move)],
              describe="INSERT INTO: {when} {step}")


def log_job(run: InsertRun) -> None:
    assert run.job is not None
    log_remove_job_files(run.ctx.log, run.log.undo_chain(), run.name, run.identity, run.job)


def fill_in_place(run: InsertRun) -> None:
    assert run.job is not None
    job = WriteJob(run.job.job, run.job.location)
    if copies_files(run.fill):
        run.mover.copy_in(run.name, run.fill, job=job)
    else:
        run.ctx.catalog.data.insert(run.name, run.fill, job=job)


def copies_files(fill: Fill) -> bool:
    """Whether ``fill`` is a replica's: the source's files, copied as files (no query)."""
    return bool(fill.copy_files or fill.copy_partitions)


def commit_in_place(run: InsertRun) -> None:
    assert run.job is not None
    files = run.mover.job_files(run.job.location, run.job.job)
    run.plan = MovePlan(run.job.location, files or (), new_partitions(run, files or ()))
    run.log.commit((str(run.name),), added=added(run) if run.ctx.record_versions and files is not None else None)


IN_PLACE = Plan("insert_in_place", [Step("log_job", "log", log_job),
                                    Step("fill", "act", fill_in_place, publishes=True),
                                    Step("commit", "commit", commit_in_place)],
                describe="INSERT INTO in place: {when} {step}")


def in_place_job(ctx: ActionContext, log: StatementLog, name: TableName, fill: Fill, metadata: TableMetadata,
                 mover: FileMover) -> RemoveJobFilesPayload | None:
    """The job an in-place INSERT logs (the module's first plan), or None where it writes aside. A replica's copy
    of a source's files names its copies itself (:meth:`FileMover.copy_in` with the job), whatever the engine's
    jobs can do."""
    if log.transaction is not None or not (copies_files(fill) or mover.names_jobs(name)):
        return None
    location = ctx.catalog.definitions.table_location(name)
    if location is None:
        return None
    partitions = (tuple(tuple(p.items()) for p in ctx.catalog.definitions.list_partitions(name))
                  if metadata.partitioned_by else None)
    return RemoveJobFilesPayload(location.rstrip("/"), str(uuid.uuid4()), partitions, ctx.orphan_window())


def discard_fenced_job(run: InsertRun) -> None:
    """A driver fenced off while its in-place INSERT ran (paused past its lease, its home taken over) undoes
    nothing through the log, which the taker owns now; but its job may have committed files after the taker's undo
    deleted the job's files. They carry the job's id, so they are deleted here, and only they (the partitions the job
    registered stay: the taker may have made some of them since; they hold no row of the statement)."""
    if run.job is None:
        return
    with contextlib.suppress(CatalogError):  # what is left, the taker's sweep or an operator finds by the job id
        run.mover.remove_job_files(run.name, run.job.location, run.job.job)


def new_partitions(run: InsertRun, files: tuple[FileMove, ...]) -> tuple[PartitionValues, ...]:
    """The partitions the job's files are in and those the table lacked before (a static partition of no row)."""
    assert run.job is not None
    if run.job.partitions is None:
        return ()
    before = set(run.job.partitions)
    now = [tuple(p.items()) for p in run.ctx.catalog.definitions.list_partitions(run.name)] \
        if run.ctx.record_versions else []
    found = [file.partition for file in files] + [p for p in now if p not in before]
    return tuple(dict.fromkeys(found))


def insert_rows(ctx: ActionContext, statement: str, name: TableName, fill: Fill,
                metadata: TableMetadata) -> InsertResult:
    """INSERT INTO the checked managed table ``name`` (the module's table)."""
    log = StatementLog(ctx, statement)
    run = InsertRun(ctx, log, name, fill, metadata, ctx.catalog.data.file_mover())
    run.identity = tag_in(metadata.property_map) or ctx.catalog.names.identity(name)
    run.job = in_place_job(ctx, log, name, fill, metadata, run.mover)
    plan = INSERT if run.job is None else IN_PLACE
    try:
        outcome = run_plan(plan, run, log, verb="INSERT INTO", subject=str(name))
    except HomeFencedError:
        discard_fenced_job(run)
        raise
    event = outcome.event
    if outcome.error is not None:
        event = log.committed_event()
    if outcome.pending:
        warnings.warn(CommittedWithPendingWorkWarning(
            f"INSERT INTO {name} committed; moving its files in failed ({outcome.error or outcome.retire_error}): "
            "recovery finishes it"), stacklevel=3)
    return InsertResult(objects=(str(name),), event=event, files=len(run.plan.moves), moves_pending=outcome.pending,
                        detail=f"{len(run.plan.moves)} files added")


def added(run: InsertRun) -> AddedFiles:
    metadata = run.metadata
    return AddedFiles(
        table=str(run.name), location=run.plan.location, identity=run.identity,
        files=tuple(AddedFile(move.target, move.partition) for move in run.plan.moves),
        partitions=run.plan.partitions, columns=tuple((c.name, c.type) for c in metadata.columns),
        partitioned_by=metadata.partitioned_by, provider=metadata.provider)


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
