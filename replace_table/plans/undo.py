"""Undo statements: RENAME TABLE, ALTER SCHEMA SWAP WITH, CREATE DATABASE, CREATE [OR REPLACE] VIEW / ALTER VIEW,
ALTER VIEW RENAME and SET / UNSET TBLPROPERTIES, CREATE FUNCTION, the in-place ALTER TABLE changes (properties, a
column comment). Each is a list of pairs, an action logged on chain C and the catalog call it protects, then the commit:

====  =============  =======================================================================================
step  name           effect
====  =============  =======================================================================================
1     ``log``        C: log the pair's action (what undo needs: the old definition, the old name ...)
2     ``free_name``  RENAME TABLE: the name-hold pre-flight of the new name
                     (:func:`actions.name_holds.free_directory_of_dropped`)
3     ``do``         the catalog call; back to step 1 while pairs remain
4     ``commit``     the XID in C, the binlog event (commit point), C closed
====  =============  =======================================================================================

On any error before the commit point C is replayed (no side effect remains) and :class:`StatementFailedError`
raised; a failure after it is reported as a :class:`CommittedWithPendingWorkWarning` (the statement succeeded;
recovery closes the chain). Crash points ``<statement>.log/do.before/after``, those of the commit in
:mod:`chains.commit`."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from functools import partial

import attrs

from actions.context import ActionContext
from actions.errors import CommittedWithPendingWorkWarning
from actions.kinds.alter_table import RestoreColumnComment, RestoreProperties, log_alter_table
from actions.kinds.create_db import log_create_database
from actions.kinds.create_function import log_create_function
from actions.kinds.create_view import log_create_view
from actions.kinds.rename_table import log_rename_table
from actions.kinds.rename_view import log_rename_view
from actions.name_holds import free_directory_of_dropped
from chains.binlog import BinlogEvent
from chains.log import DDLLog
from replace_table.machine import Outcome, Plan, Step, run_plan
from replace_table.statement_log import StatementLog
from storage.catalogs.interface import FunctionDefinition, ViewDefinition
from storage.catalogs.names import TableName

Operation = Callable[[], object]


@attrs.frozen
class Logged:
    """One pair: ``log(log, chain)`` logs the action on C (a kind's helper); ``do()`` is the catalog call;
    ``frees``: the name whose default directory the call needs (RENAME TABLE's new name)."""

    log: Callable[[DDLLog, int], object]
    do: Operation
    frees: TableName | None = None


@attrs.define
class UndoRun:
    log: StatementLog
    pairs: Sequence[Logged]
    objects: tuple[str, ...]
    index: int = -1

    @property
    def pair(self) -> Logged:
        return self.pairs[self.index]


def has_next(run: UndoRun) -> bool:
    return run.index + 1 < len(run.pairs)


def log_next(run: UndoRun) -> None:
    run.index += 1
    run.pair.log(run.log.log, run.log.undo_chain())


def frees_name(run: UndoRun) -> bool:
    return run.pair.frees is not None


def free_name(run: UndoRun) -> None:
    assert run.pair.frees is not None
    free_directory_of_dropped(run.log.ctx, run.pair.frees)


def do(run: UndoRun) -> None:
    run.pair.do()


def commit(run: UndoRun) -> None:
    run.log.commit(run.objects)


def undo_plan(prefix: str, *, frees_names: bool = False) -> Plan[UndoRun]:
    """The plan of one undo statement kind (its crash points ``<prefix>.log/do``, declared on import)."""
    steps = [Step("log", "log", log_next, after=("start", "do"), when=has_next, publishes=True)]
    if frees_names:
        steps.append(Step("free_name", "act", free_name, after=("log",), when=frees_name))
    steps += [Step("do", "act", do, after=("log", "free_name") if frees_names else ("log",)),
              Step("commit", "commit", commit, after=("do",), points=False)]
    return Plan(prefix, steps)


RENAME = undo_plan("rename", frees_names=True)
CREATE_DATABASE = undo_plan("create_database")
CREATE_VIEW = undo_plan("create_view")
ALTER_VIEW_PROPERTIES = undo_plan("alter_view_properties")
RENAME_VIEW = undo_plan("rename_view")
CREATE_FUNCTION = undo_plan("create_function")
ALTER_TABLE = undo_plan("alter_table")
SWAP_SCHEMAS = undo_plan("swap_schemas")


def committed_anyway(outcome: Outcome, log: StatementLog, *, verb: str, subject: str) -> BinlogEvent | None:
    """The event of a statement that committed; a failure after its commit point is a warning (recovery closes
    the chain), and its event is read back."""
    if outcome.error is None:
        return outcome.event
    warnings.warn(CommittedWithPendingWorkWarning(
        f"{verb} {subject} committed; closing its log chain failed ({outcome.error}): recovery closes it"),
        stacklevel=4)
    return log.committed_event()


def run_undo(ctx: ActionContext, plan: Plan[UndoRun], statement: str, pairs: Sequence[Logged], *, verb: str,
             subject: str, objects: tuple[str, ...]) -> BinlogEvent | None:
    """Run the undo statement of ``pairs``; its binlog event (None with the binlog off)."""
    log = StatementLog(ctx, statement)
    outcome = run_plan(plan, UndoRun(log, pairs, objects), log, verb=verb, subject=subject)
    return committed_anyway(outcome, log, verb=verb, subject=subject)


# ------------------------------------------------------------------ the statements


def rename_tables(ctx: ActionContext, statement: str, plan: Sequence[tuple[TableName, TableName, str]], *,
                  verb: str, rename: Callable[[TableName, TableName], None]) -> BinlogEvent | None:
    """RENAME TABLE of the checked ``plan`` (old, new, identity of the moved table), each by ``rename``."""
    pairs = [Logged(partial(_log_rename, old=old, new=new, tag=tag), partial(rename, old, new), frees=new)
             for old, new, tag in plan]
    subject = ", ".join(f"{old} TO {new}" for old, new, _ in plan)
    objects = tuple(str(name) for old, new, _ in plan for name in (old, new))
    return run_undo(ctx, RENAME, statement, pairs, verb=verb, subject=subject, objects=objects)


def _log_rename(log: DDLLog, chain: int, *, old: TableName, new: TableName, tag: str) -> object:
    return log_rename_table(log, chain, old, new, tag)


def create_database(ctx: ActionContext, statement: str, db: str, *, tag: str, owns_location: bool,
                    create: Operation, verb: str) -> BinlogEvent | None:
    """CREATE DATABASE ``db`` by ``create``, tagged ``tag``; undo drops it, its directory when it ``owns_location``."""
    pair = Logged(lambda log, chain: log_create_database(log, chain, db, tag, owns_location=owns_location), create)
    return run_undo(ctx, CREATE_DATABASE, statement, [pair], verb=verb, subject=db, objects=(db,))


def put_view(ctx: ActionContext, statement: str, name: TableName, old: ViewDefinition | None,
             definition: ViewDefinition, *, verb: str, change: Operation | None = None) -> BinlogEvent | None:
    """CREATE [OR REPLACE] VIEW / ALTER VIEW: the old definition (or none) logged, the new one put in place (by
    ``change`` when given: a change Spark makes without re-analysing the view). The new one is logged as the catalog
    will report it (``stored_view``): undo knows the view by it."""
    made = ctx.catalog.views.stored_view(name, definition, reanalysed=change is None)
    pair = Logged(lambda log, chain: log_create_view(log, chain, name, old, made),
                  change or (lambda: ctx.catalog.views.create_view(name, definition, replace=old is not None)))
    return run_undo(ctx, CREATE_VIEW, statement, [pair], verb=verb, subject=str(name), objects=(str(name),))


def rename_view(ctx: ActionContext, statement: str, old: TableName, new: TableName, *, identity: str | None,
                definition: ViewDefinition, verb: str) -> BinlogEvent | None:
    pair = Logged(lambda log, chain: log_rename_view(log, chain, old, new, identity, definition),
                  lambda: ctx.catalog.views.rename_view(old, new))
    return run_undo(ctx, RENAME_VIEW, statement, [pair], verb=verb, subject=f"{old} TO {new}",
                    objects=(str(old), str(new)))


def create_function(ctx: ActionContext, statement: str, name: TableName, old: FunctionDefinition | None,
                    definition: FunctionDefinition, *, verb: str) -> BinlogEvent | None:
    pair = Logged(lambda log, chain: log_create_function(log, chain, name, old, definition),
                  lambda: ctx.catalog.functions.create_function(name, definition, replace=old is not None))
    return run_undo(ctx, CREATE_FUNCTION, statement, [pair], verb=verb, subject=str(name), objects=(str(name),))


def change_properties(ctx: ActionContext, statement: str, name: TableName, identity: str | None,
                      old: Sequence[tuple[str, str | None]], change: Operation, *, view: bool,
                      verb: str) -> BinlogEvent | None:
    """SET / UNSET TBLPROPERTIES of a table or a ``view`` by ``change``: the ``old`` value of every key (None: not
    set) logged, put back by undo."""
    restore = RestoreProperties(tuple(old), view=view)
    pair = Logged(lambda log, chain: log_alter_table(log, chain, name, identity, restore), change)
    return run_undo(ctx, ALTER_VIEW_PROPERTIES if view else ALTER_TABLE, statement, [pair], verb=verb,
                    subject=str(name), objects=(str(name),))


def change_column_comment(ctx: ActionContext, statement: str, name: TableName, identity: str, *, column: str,
                          old: str | None, change: Operation) -> BinlogEvent | None:
    restore = RestoreColumnComment(column, old)
    pair = Logged(lambda log, chain: log_alter_table(log, chain, name, identity, restore), change)
    return run_undo(ctx, ALTER_TABLE, statement, [pair], verb="ALTER TABLE", subject=str(name),
                    objects=(str(name),))
