"""CREATE OR REPLACE TABLE as a state machine (``transitions``): the algorithm of seed MDEV-25292, with a swap that
never removes the name where the engine can change a whole table definition in one call.

Chains: C (undo, position p) and roll-forward chains linked to C (they run only once C is closed, and are cancelled
when C is replayed). The new table is always built under the TMP name while ORIG stays readable (steps 1-3).

Swap path (ORIG exists and, once TMP is built, ``Catalog.plan_swap`` finds nothing against the two; it reads ORIG's
whole definition, partitions included, for the log):

====  ===========================  =========================================================================
step  trigger                      effect
====  ===========================  =========================================================================
1     ``log_tmp``                  C: log CREATE_TABLE of TMP (undo drops TMP, files included, and on a
                                   cluster logs a sweep of TMP for after the orphan window)
2     ``create_tmp``               create TMP at its own directory (a CTAS fills it in the same call)
3     ``fill_tmp``                 fill TMP from a SELECT / DataFrame (INSERT; a no-op otherwise)
4     ``log_swap``                 C: log INSTALL_VERSION of ORIG with its old definition (undo puts it back
                                   in one call while ORIG has the new one); D: log FORGET_TABLE of TMP; E: log
                                   DELETE_DATA of ORIG's old directory, due when the kept version expires (the
                                   retention; the grace period at least). One durable write
5     ``exchange``                 ORIG := TMP's definition (one metastore call, two for a partitioned table;
                                   readers see the old table or the new one, whole)
6     ``commit``                   store XID in C, write the binlog event (commit point), close C
7     ``retire``                   replay D (TMP leaves the metastore, its files stay: they are ORIG's); replay
                                   E too when it is due already (a retention of 0), else it waits: recovery and
                                   later statements delete the directory once it is due
====  ===========================  =========================================================================

Rename path (Spark Connect, Hive serde or external tables, a change of partition columns: see
``ReplaceResult.swap_refused``):

====  ===========================  =========================================================================
4     ``log_rename``               link D to C; D: log DROP_TABLE of BACKUP (its files kept when ORIG's definition
                                   can be kept whole); C: log RENAME_TABLE ORIG -> BACKUP
5     ``move_orig``                rename ORIG -> BACKUP (the name is missing until step 8)
6     ``log_kept``                 E (linked to C): log DELETE_DATA of BACKUP's directory with its definition, the
                                   previous version kept for the retention (RESTORE); nothing when it cannot be
                                   kept whole (Hive serde, external)
7     ``log_orig_create``          C: log CREATE_TABLE of ORIG (undo drops the new ORIG)
8     ``install``                  rename TMP -> ORIG
9     ``commit``                   as above
10    ``drop_backup``              replay D: BACKUP leaves the catalog (with its files when none are kept); E too
                                   when already due
====  ===========================  =========================================================================

Empty path (TRUNCATE of an unpartitioned table where ``Catalog.plan_empty_swap`` finds nothing against it): no TMP
table at all. ``log_tmp`` (C: TMP's creation, whose undo removes the new directory at TMP's location), ``log_swap``
(no D: there is no TMP to forget), ``exchange`` (the directory made, then ORIG := its own definition emptied at it,
one metastore call, as Spark's TRUNCATE is one), ``commit``, ``retire``.

Without ORIG (an atomic create): steps 1-3, ``log_orig_create``, ``install``, ``commit``.

On an error before the commit: cancel the linked chains, replay C (new ORIG dropped or the old definition put back,
BACKUP renamed back, TMP dropped), raise :class:`StatementFailedError`. Every step is bracketed by crash points
``replace.<trigger>.before/after``; ``replace.exchange.between`` sits right before the install call (ORIG's old
definition logged, the catalog not changed yet).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any, Literal

import attrs
from transitions import Machine

from actions.commit_or_undo import undo_unless_committed
from actions.context import ActionContext
from actions.errors import StatementFailedError
from actions.kinds.create_table import log_create_table
from actions.kinds.delete_data import log_delete_data
from actions.kinds.drop_table import log_drop_table
from actions.kinds.forget_table import log_forget_table
from actions.kinds.install_version import log_install_version
from actions.kinds.rename_table import log_rename_table
from actions.replay import replay_chain
from actions.results import StatementResult
from actions.version_history import kept_version
from actions.version_tags import version_tag
from actions.versions import retention_of
from chains.binlog import BinlogEvent
from chains.commit import commit_chain
from chains.entries import ChainKind
from replace_table.versions import version_record
from storage import crashpoints
from storage.catalogs.interface import Fill, SwapPlan, TableSpec, TableVersion
from storage.catalogs.names import RESERVED_PREFIX, TableName
from storage.errors import CatalogError, DDLLogError, NoSuchObjectError, ObjectExistsError

STATES = [
    "start",
    "tmp_logged",
    "tmp_created",
    "tmp_ready",
    "swap_logged",
    "rename_logged",
    "orig_moved",
    "kept_logged",
    "orig_create_logged",
    "installed",
    "committed",
    "done",
    "rolled_back",
]

_FORWARD: list[tuple[str, str | list[str], str]] = [
    ("log_tmp", "start", "tmp_logged"),
    ("create_tmp", "tmp_logged", "tmp_created"),
    ("fill_tmp", "tmp_created", "tmp_ready"),
    ("log_swap", ["tmp_ready", "tmp_logged"], "swap_logged"),
    ("exchange", "swap_logged", "installed"),
    ("log_rename", "tmp_ready", "rename_logged"),
    ("move_orig", "rename_logged", "orig_moved"),
    ("log_kept", "orig_moved", "kept_logged"),
    ("log_orig_create", ["kept_logged", "tmp_ready"], "orig_create_logged"),
    ("install", "orig_create_logged", "installed"),
    ("commit", "installed", "committed"),
    ("retire", "committed", "done"),
    ("drop_backup", "committed", "done"),
]

# Each step's work runs in the transition's "before" callback: if it raises, the state does not change.
TRANSITIONS: list[dict[str, Any]] = [
    {"trigger": trigger, "source": source, "dest": dest, "before": f"do_{trigger}"}
    for trigger, source, dest in _FORWARD
] + [{"trigger": "mark_rolled_back", "source": "*", "dest": "rolled_back"}]

STEPS = [trigger for trigger, _, _ in _FORWARD]
BUILD = ["log_tmp", "create_tmp", "fill_tmp"]
SWAP_PLAN = [*BUILD, "log_swap", "exchange", "commit", "retire"]
RENAME_PLAN = [*BUILD, "log_rename", "move_orig", "log_kept", "log_orig_create", "install", "commit", "drop_backup"]
CREATE_PLAN = [*BUILD, "log_orig_create", "install", "commit"]
EMPTY_PLAN = ["log_tmp", "log_swap", "exchange", "commit", "retire"]
CRASH_POINTS = {
    step: (
        crashpoints.declare(f"replace.{step}.before", f"CREATE OR REPLACE: before step {step}"),
        crashpoints.declare(f"replace.{step}.after", f"CREATE OR REPLACE: after step {step}"),
    )
    for step in STEPS
}
BETWEEN_SWAP_CALLS = crashpoints.declare(
    "replace.exchange.between", "ORIG's old definition is logged; ORIG has not taken the new one yet")

Path = Literal["swap", "rename", "create", "empty"]


def work_names(orig: TableName, xid: int) -> tuple[TableName, TableName]:
    """TMP and BACKUP names: reserved prefix + XID (+ a short random token against other homes on one metastore)."""
    token = secrets.token_hex(3)
    return (orig.sibling(f"{RESERVED_PREFIX}{xid}_{token}_tmp"), orig.sibling(f"{RESERVED_PREFIX}{xid}_{token}_bak"))


@attrs.frozen(kw_only=True)
class ReplaceResult(StatementResult):
    """The result of a statement that builds a new table version (CREATE [OR REPLACE], TRUNCATE, INSERT OVERWRITE,
    ALTER TABLE rebuilds)."""

    name: TableName
    replaced: bool
    """False when ORIG did not exist (an atomic create)."""
    backup_pending: bool = False
    """The new table is committed but retiring the old one failed; recovery finishes it."""
    path: Path = "create"
    """``swap``: ORIG took the new definition in one metastore call (the name never went missing); ``empty``: the
    same for TRUNCATE, with no TMP table (ORIG's own definition, emptied, at a new directory); ``rename``: the
    rename algorithm (see ``swap_refused``); ``create``: ORIG did not exist."""
    swap_refused: str | None = None
    """Why the rename path was taken."""
    old_data: str | None = None
    """Swap path: ORIG's old directory, deleted once the grace period is over (``AtomicDDL.pending_deletions``)."""
    version: int | None = None
    """Swap path: the number of the kept previous version (``RESTORE TABLE ... TO VERSION AS OF``), if one is kept."""

    def describe(self) -> str:
        if not self.replaced:
            return "created"
        if self.path in ("swap", "empty"):
            return "replaced the old table: definition swap, old files kept for readers"
        return f"replaced the old table: rename swap ({self.swap_refused})"


class ReplaceTable:
    """One CREATE OR REPLACE TABLE statement. Drive it with :meth:`run`; ``state`` tells how far it got."""

    state: str
    trigger: Callable[..., bool]
    mark_rolled_back: Callable[[], bool]

    def __init__(self, ctx: ActionContext, name: TableName, spec: TableSpec, statement: str, *,
                 verb: str = "CREATE OR REPLACE TABLE", orig_must_exist: bool | None = None,
                 fill: Fill | None = None, empty: Callable[[], Fill | None] | None = None) -> None:
        """``orig_must_exist``: True for statements that rebuild an existing table (TRUNCATE, INSERT OVERWRITE),
        False for CREATE TABLE (never replaces), None for CREATE OR REPLACE. ``fill`` inserts rows into TMP.
        ``empty``: the new version is ORIG's own definition without rows (TRUNCATE): where the catalog can, no TMP
        table is made (``Catalog.plan_empty_swap``); where it cannot, ``empty()`` raises the statement's refusals or
        returns the ``fill`` of TMP (the partitions to keep). ``ctx.grace_seconds``: how long ORIG's old files
        outlive a swap."""
        self.ctx = ctx
        self.log = ctx.log
        self.binlog = ctx.binlog
        self.catalog = ctx.catalog
        self.orig = name
        self.spec = spec
        self.statement = statement
        self.verb = verb
        self.orig_must_exist = orig_must_exist
        self.fill = fill
        self.empty = empty
        self.grace_seconds = ctx.grace_seconds
        self.xid = ctx.log.allocate_id() if ctx.binlog is None else ctx.binlog.new_xid()
        self.tmp, self.backup = work_names(name, self.xid)
        self.tag = version_tag(self.xid, verb)
        self.orig_exists = False
        self.orig_identity: str | None = None
        self.swap_refused: str | None = None
        self.plan: SwapPlan | None = None
        self.keep_backup = False
        """Rename path: ORIG's definition can be kept whole, so BACKUP's files stay as the previous version."""
        self.old_location: str | None = None
        self.old_version: TableVersion | None = None
        self.kept_number: int | None = None
        """The number the old version is kept under (None: its deletion chain's position, or none kept)."""
        self.retention = self.grace_seconds
        self.create_chain = -1
        self.drop_chain: int | None = None
        self.delete_chain: int | None = None
        self.event: BinlogEvent | None = None
        self.backup_pending = False
        self.machine = Machine(model=self, states=STATES, transitions=TRANSITIONS, initial="start",
                               auto_transitions=False)

    # ------------------------------------------------------------------ steps (one per transition)

    def do_log_tmp(self) -> None:
        self.create_chain = self.log.new_chain(ChainKind.UNDO, self.statement)
        log_create_table(self.log, self.create_chain, self.tmp, self.tag, owns_location=True,
                         late_writes=self.ctx.orphan_window())

    def do_create_tmp(self) -> None:
        self.catalog.create(self.tmp, self.spec, self.tag)

    def do_fill_tmp(self) -> None:
        if self.fill is not None:
            self.catalog.insert(self.tmp, self.fill)

    def do_log_swap(self) -> None:
        assert self.plan is not None
        old = self.plan.old
        if old is None:
            raise CatalogError(f"the definition of {self.orig} cannot be kept whole", str(self.orig))
        self.old_version = old  # kept in the log twice: undo's INSTALL_VERSION, and RESTORE's kept version
        self.old_location = old.location
        self.retention = retention_of(self.ctx, old)
        kept = kept_version(self.ctx, old, self.orig, self.verb, dropped=False, xid=self.xid)
        self.kept_number = kept.number
        with self.log.batch():
            if self.state == "tmp_ready":  # TMP was made (not on the empty path): it leaves after the commit
                self.drop_chain = self.log.new_chain(ChainKind.FORWARD, self.statement, master=self.create_chain)
                log_forget_table(self.log, self.drop_chain, self.tmp, self.tag)
            self.delete_chain = self.log.new_chain(ChainKind.FORWARD, self.statement, master=self.create_chain)
            log_delete_data(self.log, self.delete_chain, self.orig, old.location, time.time() + self.retention,
                            kept)
            log_install_version(self.log, self.create_chain, self.orig, self.tag, old.definition,
                                previous_identity=self.orig_identity, previous_location=old.location)

    def do_exchange(self) -> None:
        assert self.plan is not None
        self.catalog.exchange_definitions(self.orig, self.tmp, self.plan, between=BETWEEN_SWAP_CALLS)

    def do_log_rename(self) -> None:
        self.keep_backup = self.catalog.version_of(self.orig) is not None
        with self.log.batch():
            self.drop_chain = self.log.new_chain(ChainKind.FORWARD, self.statement, master=self.create_chain)
            log_drop_table(self.log, self.drop_chain, self.backup, self.orig_identity, keep_files=self.keep_backup)
            log_rename_table(self.log, self.create_chain, self.orig, self.backup, self.orig_identity,
                             owns_location=True)

    def do_move_orig(self) -> None:
        self.catalog.rename(self.orig, self.backup)

    def do_log_kept(self) -> None:
        if not self.keep_backup:
            return
        old = self.catalog.version_of(self.backup)  # where the rename put the files (the metastore may move them)
        location = old.location if old is not None else self.catalog.table_location(self.backup)
        if location is None:
            raise CatalogError(f"cannot find the files of {self.backup}", str(self.backup))
        self.old_version, self.old_location = old, location
        self.retention = self.grace_seconds if old is None else retention_of(self.ctx, old)
        kept = None if old is None else kept_version(self.ctx, old, self.orig, self.verb, dropped=False, xid=self.xid)
        self.kept_number = None if kept is None else kept.number
        with self.log.batch():
            self.delete_chain = self.log.new_chain(ChainKind.FORWARD, self.statement, master=self.create_chain)
            log_delete_data(self.log, self.delete_chain, self.orig, location, time.time() + self.retention, kept)

    def do_log_orig_create(self) -> None:
        log_create_table(self.log, self.create_chain, self.orig, self.tag, owns_location=self.orig_exists,
                         renamed_from=self.tmp)

    def do_install(self) -> None:
        self.catalog.rename(self.tmp, self.orig)

    def do_commit(self) -> None:
        version = version_record(self.ctx, self.orig, self.spec, self.fill)
        self.event = commit_chain(self.log, self.binlog, self.create_chain, self.statement, (str(self.orig),),
                                  xid=self.xid, version=version)

    def do_retire(self) -> None:
        self._replay_forward(self.drop_chain)
        if self.retention <= 0:
            self._replay_forward(self.delete_chain)

    def do_drop_backup(self) -> None:
        self._replay_forward(self.drop_chain)
        if self.retention <= 0:
            self._replay_forward(self.delete_chain)

    def _replay_forward(self, position: int | None) -> None:
        if position is None or self.backup_pending:
            return
        try:
            replay_chain(self.ctx, position)
        except DDLLogError:  # committed already; the chain stays active and recovery finishes it
            self.backup_pending = True

    # ------------------------------------------------------------------ driving

    def _step(self, trigger: str) -> None:
        before, after = CRASH_POINTS[trigger]
        before()
        self.trigger(trigger)
        after()

    def run(self) -> ReplaceResult:
        self.orig_identity = self.catalog.identity(self.orig)
        self.orig_exists = self.orig_identity is not None
        if self.orig_must_exist is True and not self.orig_exists:
            raise NoSuchObjectError(f"table {self.orig} does not exist", str(self.orig))
        if self.orig_must_exist is False and self.orig_exists:
            raise ObjectExistsError(f"table {self.orig} already exists", str(self.orig))
        path: Path = "create"
        if self.empty is not None:  # reads only: nothing is made before the statement is logged
            if self.orig_exists:
                self.plan = self.catalog.plan_empty_swap(self.orig, self.tmp, self.tag)
                path = "empty" if self.plan.refusal is None else path
            if path != "empty":
                self.fill = self.empty()
        try:
            if path == "empty":
                done = 0
            else:
                for trigger in BUILD:
                    self._step(trigger)
                done = len(BUILD)
            if self.orig_exists and path != "empty":  # chosen once both definitions are there: one look at each
                self.plan = self.catalog.plan_swap(self.orig, self.tmp)
                self.swap_refused = self.plan.refusal
                path = "swap" if self.swap_refused is None else "rename"
            plan = {"swap": SWAP_PLAN, "rename": RENAME_PLAN, "create": CREATE_PLAN, "empty": EMPTY_PLAN}[path]
            for trigger in plan[done:]:
                if trigger in ("retire", "drop_backup"):
                    break
                self._step(trigger)
        except Exception as exc:
            error = self._roll_back(exc)
            if error is not None:
                raise error from exc
            # Committed (the binlog has the XID) but closing C failed: recovery closes C and retires the old table.
            return self._result(path, backup_pending=True)
        if plan[-1] in ("retire", "drop_backup"):
            self._step(plan[-1])
        return self._result(path, backup_pending=self.backup_pending)

    def _result(self, path: Path, *, backup_pending: bool) -> ReplaceResult:
        return ReplaceResult(objects=(str(self.orig),), event=self.event, name=self.orig, replaced=self.orig_exists,
                             backup_pending=backup_pending, path=path, swap_refused=self.swap_refused,
                             old_data=self.old_location,
                             version=(self.kept_number or self.delete_chain) if self.old_version is not None
                             and self.retention > 0 else None)

    def _roll_back(self, cause: Exception) -> StatementFailedError | None:
        """Error: None if the statement committed already; else cancel the linked chains, replay C and return the
        error to raise. What cannot be undone now stays logged for recovery."""
        cancel = tuple(chain for chain in (self.drop_chain, self.delete_chain) if chain is not None)
        error = undo_unless_committed(self.ctx, self.create_chain, cause,
                                      verb=self.verb, subject=str(self.orig), cancel=cancel)
        if error is not None and error.rollback_error is None:
            self.mark_rolled_back()
        return error
