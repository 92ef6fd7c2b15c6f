"""A replace as one plan: the algorithm of seed MDEV-25292 (the new version built under the TMP name while ORIG stays
readable, steps 1-3), then one of four paths, chosen by conditions on the machine's transitions:

* swap (:mod:`~replace_table.plans.swap_path`): ORIG exists and takes TMP's whole definition in one call;
* rename (:mod:`~replace_table.plans.rename_path`): ORIG -> BACKUP, TMP -> ORIG, where the swap is refused;
* create (:mod:`~replace_table.plans.create_path`): ORIG does not exist and is created with TMP's definition
  (files where TMP wrote them), or, where that cannot be kept whole, TMP is renamed to ORIG;
* empty (:mod:`~replace_table.plans.empty_path`): TRUNCATE in one call, no TMP table;
* write (:mod:`~replace_table.plans.write_path`): INSERT OVERWRITE, or a CREATE OR REPLACE's CTAS, written into
  the new version's directory, no TMP table.

====  ===========================  =========================================================================
step  name                         effect
====  ===========================  =========================================================================
1     ``log_tmp``                  C: log CREATE_TABLE of TMP (undo drops TMP, files included, and on a
                                   cluster logs a sweep of TMP for after the orphan window)
2     ``create_tmp``               create TMP at its own directory (a CTAS fills it in the same call)
3     ``fill_tmp``                 fill TMP from a SELECT / DataFrame (INSERT; a no-op otherwise); the write
                                   path's job writes the new version's directory instead (no TMP table)
4-    the path's steps             swap or rename chosen once TMP is built (``Swaps.plan_swap``, one look at
                                   each definition); create and empty before anything is logged. Inside a
                                   transaction the path runs at COMMIT from its first change of ORIG's name
                                   (the swap's ``exchange``, the rename path's and the create path's first log
                                   step): TMP is built aside, and a swap's log write is done before COMMIT
====  ===========================  =========================================================================

On an error before the commit: the linked chains cancelled, C replayed (new ORIG dropped or the old definition put
back, BACKUP renamed back, TMP dropped), :class:`StatementFailedError` raised. Every step is bracketed by crash
points ``replace.<step>.before/after``; ``replace.exchange.between`` sits right before the install call (ORIG's old
definition logged, the catalog not changed yet)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from actions.context import ActionContext
from actions.name_holds import free_directory_of_dropped
from replace_table.machine import Plan, StatementMachine, Step
from replace_table.plans import create_path, rename_path, swap_path
from replace_table.plans.empty_path import choose_empty
from replace_table.plans.replace_run import (
    ReplaceResult,
    ReplaceRun,
    TmpWork,
    builds_tmp,
    commit,
    create_tmp,
    creates,
    files_read,
    fill_tmp,
    fills,
    frees_name_for_rename,
    log_tmp,
    renames,
    renames_tmp_in,
    retire_old,
    swaps,
)
from replace_table.plans.write_path import choose_created, choose_replaced, choose_write
from replace_table.statement_log import StatementLog
from storage.catalogs.interface import Fill, TableSpec
from storage.catalogs.names import TableName
from storage.catalogs.rules import check_name
from storage.errors import NoSuchObjectError, ObjectExistsError


def forgets_tmp(run: ReplaceRun) -> bool:
    """The create path made TMP (not a direct create): it leaves the metastore after the commit."""
    return creates(run) and run.write_job is None


def free_name(run: ReplaceRun) -> None:
    free_directory_of_dropped(run.ctx, run.orig)


REPLACE: Plan[ReplaceRun] = Plan("replace", [
    Step("log_tmp", "log", log_tmp, after=("start",)),
    Step("create_tmp", "act", create_tmp, when=builds_tmp),
    Step("fill_tmp", "act", fill_tmp, after=("create_tmp", "log_tmp"), when=fills),
    Step("log_swap", "log", swap_path.log_swap, after=("fill_tmp", "log_tmp"), when=swaps),
    Step("exchange", "act", swap_path.exchange, publishes=True),
    Step("log_rename", "log", rename_path.log_rename, after=("fill_tmp",), when=renames, publishes=True),
    Step("move_orig", "act", rename_path.move_orig),
    Step("log_kept", "log", rename_path.log_kept),
    Step("free_name", "act", free_name, after=("fill_tmp",), when=frees_name_for_rename),
    Step("log_orig_create", "log", create_path.log_orig_create, after=("log_kept", "log_tmp", "fill_tmp", "free_name"),
         when=renames_tmp_in, publishes=True),
    Step("install", "act", create_path.install),
    Step("commit", "commit", commit, after=("exchange", "install")),
    Step("retire", "retire", retire_old, after=("commit",), when=swaps),
    Step("drop_backup", "retire", retire_old, after=("commit",), when=renames),
    Step("forget_tmp", "retire", create_path.forget_tmp, after=("commit",), when=forgets_tmp),
], describe="CREATE OR REPLACE: {when} step {step}")


def replace_machine(ctx: ActionContext, name: TableName, spec: TableSpec, statement: str, *,
                    verb: str = "CREATE OR REPLACE TABLE", orig_must_exist: bool | None = None,
                    fill: Fill | None = None, empty: Callable[[], Fill | None] | None = None,
                    emptied: Sequence[Mapping[str, str]] | None = None, frees_name: bool = False,
                    make_tmp: TmpWork | None = None,
                    fill_tmp: TmpWork | None = None, keeps_statistics: bool = False,
                    check: TmpWork | None = None, direct: bool = False) -> StatementMachine[ReplaceRun]:
    """The checked machine of one statement that builds a new version of ``name`` from ``spec`` and installs it
    (nothing done yet: :meth:`~replace_table.machine.StatementMachine.run` it, or its phases one by one).

    ``orig_must_exist``: True for statements that rebuild an existing table (TRUNCATE, INSERT OVERWRITE), False for
    CREATE TABLE (never replaces), None for CREATE OR REPLACE. ``fill`` inserts rows into TMP. ``empty``: the new
    version is ORIG's own definition without rows (TRUNCATE, :mod:`~replace_table.plans.empty_path`), or without
    the rows of the ``emptied`` partitions only (``TRUNCATE TABLE ... PARTITION``). ``frees_name``:
    run
    the name-hold pre-flight first. ``make_tmp`` / ``fill_tmp``: another way to make and fill TMP (a replica's copy).
    ``keeps_statistics``: see :attr:`ReplaceRun.keeps_statistics`. ``check``: the statement's checks, run before
    anything else once the run knows its TMP name and tag (what Spark refuses is refused first; the check may
    analyse the statement as TMP's create will run it). ``direct``: ``fill`` may be written straight into the new
    version's directory, no TMP table (:mod:`~replace_table.plans.write_path`), where the catalog can.
    ``ctx.grace_seconds``: how long ORIG's old files outlive a swap."""
    log = StatementLog(ctx, statement, makes_version=verb)
    run = ReplaceRun(ctx=ctx, log=log, orig=name, spec=spec, verb=verb, fill=fill, frees_name=frees_name,
                     make_tmp=make_tmp, fill_tmp=fill_tmp, keeps_statistics=keeps_statistics)
    if check is not None:
        check(run)
    run.orig_identity = ctx.catalog.names.identity(name)
    run.orig_files = files_read(ctx, name, run.orig_identity)
    if orig_must_exist is True and not run.orig_exists:
        raise NoSuchObjectError.relation(f"table {name} does not exist", str(name))
    if orig_must_exist is False and run.orig_exists:
        raise ObjectExistsError.relation(f"table {name} already exists", str(name))
    if not run.orig_exists:
        check_name(name)  # as Spark's catalog checks it, before anything is made (TMP's name is the log's)
        run.path = "create"
        choose_created(run)  # reads only, as below
    if empty is not None:  # reads only: nothing is made before the statement is logged
        choose_empty(run, empty, emptied)
    if direct:  # reads only, as above
        choose_write(run)
    choose_replaced(run)  # reads only, as above
    return StatementMachine(REPLACE, run, log, verb=verb, subject=str(name))


def replace_version(ctx: ActionContext, name: TableName, spec: TableSpec, statement: str, *,
                    verb: str = "CREATE OR REPLACE TABLE", orig_must_exist: bool | None = None,
                    fill: Fill | None = None, empty: Callable[[], Fill | None] | None = None,
                    emptied: Sequence[Mapping[str, str]] | None = None, frees_name: bool = False,
                    make_tmp: TmpWork | None = None,
                    fill_tmp: TmpWork | None = None, keeps_statistics: bool = False,
                    check: TmpWork | None = None, direct: bool = False) -> ReplaceResult:
    """The statement of :func:`replace_machine`, run whole."""
    machine = replace_machine(ctx, name, spec, statement, verb=verb, orig_must_exist=orig_must_exist, fill=fill,
                              empty=empty, emptied=emptied, frees_name=frees_name, make_tmp=make_tmp,
                              fill_tmp=fill_tmp, keeps_statistics=keeps_statistics, check=check, direct=direct)
    outcome = machine.run()
    return machine.run_state.result(outcome.event, backup_pending=outcome.pending)
