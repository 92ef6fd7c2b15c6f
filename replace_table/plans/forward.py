"""Roll-forward statements: DROP TABLE, DROP VIEW, DROP FUNCTION, DROP DATABASE, and the ALTER TABLE changes Spark
cannot invert in place (ADD COLUMNS, ADD / DROP PARTITION). Every name is checked first (by the statement); then

====  ========  ================================================================================================
step  name      effect
====  ========  ================================================================================================
1     ``log``   the commit: chain C (roll-forward; its first action DROP_INIT, which binlogs what the others did;
                inside a transaction none, and C linked to the transaction's anchor: :mod:`replace_table.transaction`)
                and, for the files a drop keeps for readers, their deletion chains (DELETE_DATA, due when said,
                each proving when it runs that nothing uses the directory; a version when it is one), in one
                durable write. Once logged the chain always completes: if the process dies, recovery finishes it
                and binlogs it as generated
2     ``do``    replay C now. An object the engine refuses to drop is given up on: the others are dropped, the
                binlog names only those, and :class:`StatementFailedError` (with ``completed``) tells the caller
====  ========  ================================================================================================
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import partial

import attrs

from actions.context import ActionContext
from actions.errors import StatementFailedError
from actions.kept_versions import retention_of
from actions.kinds.alter_table import AddColumnsChange, AlterChange, PartitionChange, log_alter_table
from actions.kinds.delete_data import KeptVersion, log_delete_data
from actions.kinds.drop_db import log_drop_database
from actions.kinds.drop_function import log_drop_function
from actions.kinds.drop_init import dropped_object_name, log_drop_init
from actions.kinds.drop_table import log_drop_table
from actions.kinds.drop_view import log_drop_view
from actions.version_history import kept_version
from chains.binlog import BinlogEvent
from chains.entries import ActionType
from chains.log import DDLLog
from replace_table.machine import Plan, Step, run_plan
from replace_table.statement_log import StatementLog
from storage.catalogs.interface import Column, DatabaseObjects, FunctionDefinition, ViewDefinition
from storage.catalogs.names import TableName

LogAction = Callable[[DDLLog, int], object]
"""Logs one action on chain C (a kind's helper, :mod:`actions.kinds`, with its arguments bound)."""


@attrs.frozen
class KeptFiles:
    """Files a roll-forward chain leaves in place: ``owner``'s directory ``location``, deleted at ``due``; while
    ``version`` is set they are a restorable table version (UNDROP)."""

    owner: TableName
    location: str
    due: float
    version: KeptVersion | None = None


@attrs.define
class ForwardRun:
    log: StatementLog
    actions: Sequence[LogAction]
    kept_files: Sequence[KeptFiles]
    verb: str
    written: int = 0
    event: BinlogEvent | None = None


def log_chain(run: ForwardRun) -> None:
    position = run.log.forward_chain()
    with run.log.batch() as log:
        for kept in run.kept_files:
            log_delete_data(log, run.log.unlinked(), kept.owner, kept.location, kept.due, kept.version)
        for log_action in run.actions:
            log_action(log, position)
    run.written = len(run.log.ctx.events)


def replay(run: ForwardRun) -> None:
    events = run.log.ctx.events
    assert run.log.chain_c is not None
    outcome = run.log.replay(run.log.chain_c, skip_failures=True)
    if outcome.skipped:
        failed = ", ".join(dropped_object_name(f.action) for f in outcome.skipped)
        done = tuple(dropped_object_name(a) for a in outcome.ran if a.type is not ActionType.DROP_INIT)
        raise StatementFailedError(run.verb, failed, outcome.skipped[0].cause, completed=done) from outcome.skipped[0]
    run.event = events[-1] if len(events) > run.written else None


def forward_plan(prefix: str) -> Plan[ForwardRun]:
    return Plan(prefix, [Step("log", "commit", log_chain), Step("do", "retire", replay)])


DROP_TABLES = forward_plan("drop_tables")
DROP_DATABASE = forward_plan("drop_database")
DROP_VIEWS = forward_plan("drop_views")
DROP_FUNCTION = forward_plan("drop_function")
ALTER_TABLE_FORWARD = forward_plan("alter_table_forward")


def run_forward(ctx: ActionContext, plan: Plan[ForwardRun], statement: str, actions: Sequence[LogAction], *,
                verb: str, subject: str, objects: tuple[str, ...],
                kept_files: Sequence[KeptFiles] = ()) -> BinlogEvent | None:
    """Log ``actions`` (in replay order) as one roll-forward chain, then replay it live; its binlog event. First in
    the chain its DROP_INIT, which binlogs ``statement`` for ``objects`` once the rest is done; inside a transaction
    none: the statement's event is in the transaction's group, and its chain runs once the transaction committed."""
    log = StatementLog(ctx, statement)
    if log.transaction is None:
        actions = [partial(log_drop_init, statement=statement, objects=objects), *actions]
    else:
        log.forward_objects = objects
    run = ForwardRun(log, actions, kept_files, verb)
    run_plan(plan, run, log, verb=verb, subject=subject)
    return run.event


# ------------------------------------------------------------------ the statements


def drop_tables(ctx: ActionContext, statement: str, targets: Sequence[tuple[TableName, str]], *, purge: bool,
                verb: str) -> BinlogEvent | None:
    """DROP TABLE of the checked ``targets`` (name, identity); unless ``purge`` their files stay for the grace
    period (a version, UNDROP, where the catalog can keep the table's whole definition)."""
    objects = tuple(str(name) for name, _ in targets)
    actions: list[LogAction] = [partial(_log_drop_table, name=name, tag=identity, keep_files=not purge)
                                for name, identity in targets]
    kept = [] if purge else kept_table_files(ctx, [name for name, _ in targets], verb)
    return run_forward(ctx, DROP_TABLES, statement, actions, verb=verb, subject=", ".join(objects), objects=objects,
                       kept_files=kept)


def drop_database(ctx: ActionContext, statement: str, db: str, objects: DatabaseObjects, *,
                  verb: str) -> BinlogEvent | None:
    """DROP DATABASE of the checked ``db`` holding ``objects``: every function, view and table in it, then the
    database. The tables' files and the database's directory stay for the grace period."""
    catalog = ctx.catalog
    actions: list[LogAction] = []
    for name in objects.functions:
        function = catalog.functions.function_definition(name)
        if function is not None:
            actions.append(partial(log_drop_function, name=name, definition=function))
    for name in objects.views:
        view = catalog.views.view_definition(name)
        if view is not None:
            actions.append(partial(log_drop_view, name=name, identity=catalog.views.view_identity(name),
                                   definition=view))
    actions += [partial(_log_drop_table, name=name, tag=catalog.names.identity(name), keep_files=True)
                for name in objects.tables]
    # The database's identity: recovery drops this database, never one created anew under the name. Its
    # directory stays with its tables' files for their readers, deleted after the grace period once unused.
    actions.append(partial(log_drop_database, db=db, tag=catalog.databases.tag_database(db), keep_files=True))
    kept = kept_table_files(ctx, list(objects.tables), verb)
    location = catalog.databases.database_location(db)
    if location is not None:  # it holds its tables' kept versions: it goes after the last of them
        due = max([time.time() + ctx.grace_seconds, *(files.due for files in kept)])
        kept.append(KeptFiles(TableName(db, "*"), location, due))
    return run_forward(ctx, DROP_DATABASE, statement, actions, verb=verb, subject=db, objects=(db,), kept_files=kept)


def drop_views(ctx: ActionContext, statement: str,
               targets: Sequence[tuple[TableName, str | None, ViewDefinition]], *, verb: str) -> BinlogEvent | None:
    """DROP VIEW of the checked ``targets`` (name, identity, definition)."""
    objects = tuple(str(name) for name, _, _ in targets)
    actions: list[LogAction] = [partial(log_drop_view, name=name, identity=identity, definition=definition)
                                for name, identity, definition in targets]
    return run_forward(ctx, DROP_VIEWS, statement, actions, verb=verb, subject=", ".join(objects), objects=objects)


def drop_function(ctx: ActionContext, statement: str, name: TableName, definition: FunctionDefinition, *,
                  verb: str) -> BinlogEvent | None:
    actions: list[LogAction] = [partial(log_drop_function, name=name, definition=definition)]
    return run_forward(ctx, DROP_FUNCTION, statement, actions, verb=verb, subject=str(name), objects=(str(name),))


def add_columns(ctx: ActionContext, statement: str, name: TableName, tag: str, columns: Sequence[Column],
                text: str) -> BinlogEvent | None:
    """ALTER TABLE ADD COLUMNS (``text``: the column list as written, what Spark runs)."""
    return _alter_forward(ctx, statement, name, tag, AddColumnsChange(tuple(columns), text))


def change_partitions(ctx: ActionContext, statement: str, name: TableName, tag: str, *, add: bool,
                      specs: Sequence[dict[str, str]]) -> BinlogEvent | None:
    """ALTER TABLE ADD PARTITION / DROP PARTITION of the checked ``specs`` (one change: all or, rolled forward by
    recovery, all)."""
    return _alter_forward(ctx, statement, name, tag, PartitionChange(add, tuple(tuple(s.items()) for s in specs)))


def _alter_forward(ctx: ActionContext, statement: str, name: TableName, tag: str,
                   change: AlterChange) -> BinlogEvent | None:
    """Changes Spark cannot invert in place roll forward once logged (like DROP): done now, or by recovery."""
    return run_forward(ctx, ALTER_TABLE_FORWARD, statement,
                       [partial(log_alter_table, name=name, tag=tag, change=change)],
                       verb="ALTER TABLE", subject=str(name), objects=(str(name),))


def _log_drop_table(log: DDLLog, chain: int, *, name: TableName, tag: str | None, keep_files: bool) -> object:
    return log_drop_table(log, chain, name, tag, keep_files=keep_files)


def kept_table_files(ctx: ActionContext, names: list[TableName], operation: str) -> list[KeptFiles]:
    """The files of the managed ones of ``names`` that a drop keeps: for readers, and as a restorable version
    (UNDROP) where the catalog can keep the table's whole definition."""
    kept = []
    now = time.time()
    for name in names:
        version = ctx.catalog.versions.version_of(name)
        if version is not None:
            kept.append(KeptFiles(name, version.location, now + retention_of(ctx, version),
                                  kept_version(ctx, version, name, operation, dropped=True)))
            continue
        location = ctx.catalog.definitions.table_location(name)
        if location is not None:
            kept.append(KeptFiles(name, location, now + ctx.grace_seconds))
    return kept
