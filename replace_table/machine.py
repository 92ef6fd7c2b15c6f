"""CREATE OR REPLACE TABLE as a state machine (``transitions``), exactly the algorithm of seed MDEV-25292.

Chains: C (undo, position p) and D (forward, linked to C so it runs only once C is closed).

====  ===========================  =========================================================================
step  trigger                      effect
====  ===========================  =========================================================================
1     ``log_tmp``                  C: log CREATE_TABLE of TMP (undo drops TMP)
2     ``create_tmp``               create TMP (CTAS, LIKE or column list: a CTAS fills it in the same call)
3     ``fill_tmp``                 fill TMP from a SELECT / DataFrame (INSERT OVERWRITE; a no-op otherwise)
4-6   ``log_swap``                 link D to C; D: log DROP_TABLE of BACKUP; C: log RENAME_TABLE ORIG -> BACKUP
                                   (undo renames BACKUP back). One durable write: the two entries have no order
                                   between them, since D cannot run while C is active (only when ORIG exists)
7     ``move_orig``                rename ORIG -> BACKUP
8     ``log_orig_create``          C: log CREATE_TABLE of ORIG (undo drops the new ORIG)
9     ``install``                  rename TMP -> ORIG
10    ``commit``                   store XID in C, write the binlog event (commit point), close C
11    ``drop_backup``              replay D: BACKUP dropped, D executed
====  ===========================  =========================================================================

On an error before the commit: close D, replay C (new ORIG dropped, BACKUP renamed back, TMP dropped), raise
:class:`StatementFailedError`. When ORIG does not exist steps 4-7 are skipped: an atomic create, in which readers
never see ORIG before it is complete. Every step is bracketed by crash points ``replace.<trigger>.before/after``.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import attrs
from transitions import Machine

from actions.commit_or_undo import undo_unless_committed
from actions.context import ActionContext
from actions.errors import StatementFailedError
from actions.replay import replay_chain
from chains.binlog import Binlog, BinlogEvent
from chains.commit import commit_chain
from chains.entries import ActionType, ChainKind
from chains.log import DDLLog
from chains.payloads import CreateTablePayload, RenameTablePayload
from storage import crashpoints
from storage.catalogs.interface import Catalog, Fill, TableSpec
from storage.catalogs.names import RESERVED_PREFIX, TableName
from storage.errors import DDLLogError, NoSuchObjectError, ObjectExistsError

STATES = [
    "start",
    "tmp_logged",
    "tmp_created",
    "tmp_ready",
    "rename_logged",
    "orig_moved",
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
    ("log_swap", "tmp_ready", "rename_logged"),
    ("move_orig", "rename_logged", "orig_moved"),
    ("log_orig_create", ["orig_moved", "tmp_ready"], "orig_create_logged"),
    ("install", "orig_create_logged", "installed"),
    ("commit", "installed", "committed"),
    ("drop_backup", "committed", "done"),
]

# Each step's work runs in the transition's "before" callback: if it raises, the state does not change.
TRANSITIONS: list[dict[str, Any]] = [
    {"trigger": trigger, "source": source, "dest": dest, "before": f"do_{trigger}"}
    for trigger, source, dest in _FORWARD
] + [{"trigger": "mark_rolled_back", "source": "*", "dest": "rolled_back"}]

STEPS = [trigger for trigger, _, _ in _FORWARD]
SKIPPED_WITHOUT_ORIG = ("log_swap", "move_orig")
CRASH_POINTS = {
    step: (
        crashpoints.declare(f"replace.{step}.before", f"CREATE OR REPLACE: before step {step}"),
        crashpoints.declare(f"replace.{step}.after", f"CREATE OR REPLACE: after step {step}"),
    )
    for step in STEPS
}


def work_names(orig: TableName, xid: int) -> tuple[TableName, TableName]:
    """TMP and BACKUP names: reserved prefix + XID (+ a short random token against other homes on one metastore)."""
    token = secrets.token_hex(3)
    return (orig.sibling(f"{RESERVED_PREFIX}{xid}_{token}_tmp"), orig.sibling(f"{RESERVED_PREFIX}{xid}_{token}_bak"))


@attrs.frozen
class ReplaceResult:
    name: TableName
    replaced: bool
    """False when ORIG did not exist (an atomic create)."""
    event: BinlogEvent | None
    backup_pending: bool = False
    """The new table is committed but dropping BACKUP failed; recovery finishes it."""


class ReplaceTable:
    """One CREATE OR REPLACE TABLE statement. Drive it with :meth:`run`; ``state`` tells how far it got."""

    state: str
    trigger: Callable[..., bool]
    mark_rolled_back: Callable[[], bool]

    def __init__(self, log: DDLLog, binlog: Binlog | None, catalog: Catalog, name: TableName, spec: TableSpec,
                 statement: str, *, verb: str = "CREATE OR REPLACE TABLE", orig_must_exist: bool | None = None,
                 fill: Fill | None = None) -> None:
        """``orig_must_exist``: True for statements that rebuild an existing table (TRUNCATE, INSERT OVERWRITE),
        False for CREATE TABLE (never replaces), None for CREATE OR REPLACE. ``fill`` inserts rows into TMP."""
        self.log = log
        self.binlog = binlog
        self.catalog = catalog
        self.orig = name
        self.spec = spec
        self.statement = statement
        self.verb = verb
        self.orig_must_exist = orig_must_exist
        self.fill = fill
        self.xid = log.allocate_id()
        self.tmp, self.backup = work_names(name, self.xid)
        self.tag = f"x{self.xid}-{secrets.token_hex(8)}"
        self.orig_exists = False
        self.orig_identity: str | None = None
        self.create_chain = -1
        self.drop_chain: int | None = None
        self.event: BinlogEvent | None = None
        self.backup_pending = False
        self.machine = Machine(model=self, states=STATES, transitions=TRANSITIONS, initial="start",
                               auto_transitions=False)

    # ------------------------------------------------------------------ steps (one per transition)

    def do_log_tmp(self) -> None:
        self.create_chain = self.log.new_chain(ChainKind.UNDO, self.statement)
        self.log.add_action(self.create_chain, ActionType.CREATE_TABLE, name=self.tmp, tag=self.tag,
                            payload=CreateTablePayload(owns_location=True))

    def do_create_tmp(self) -> None:
        self.catalog.create(self.tmp, self.spec, self.tag)

    def do_fill_tmp(self) -> None:
        if self.fill is not None:
            self.catalog.insert(self.tmp, self.fill)

    def do_log_swap(self) -> None:
        with self.log.batch():
            self.drop_chain = self.log.new_chain(ChainKind.FORWARD, self.statement, master=self.create_chain)
            self.log.add_action(self.drop_chain, ActionType.DROP_TABLE, name=self.backup, tag=self.orig_identity)
            self.log.add_action(self.create_chain, ActionType.RENAME_TABLE, from_name=self.orig, name=self.backup,
                                tag=self.orig_identity, payload=RenameTablePayload(owns_location=True))

    def do_move_orig(self) -> None:
        self.catalog.rename(self.orig, self.backup)

    def do_log_orig_create(self) -> None:
        self.log.add_action(self.create_chain, ActionType.CREATE_TABLE, name=self.orig, tag=self.tag,
                            payload=CreateTablePayload(owns_location=self.orig_exists, renamed_from=self.tmp))

    def do_install(self) -> None:
        self.catalog.rename(self.tmp, self.orig)

    def do_commit(self) -> None:
        self.event = commit_chain(self.log, self.binlog, self.create_chain, self.statement, (str(self.orig),),
                                  xid=self.xid)

    def do_drop_backup(self) -> None:
        if self.drop_chain is None:
            return
        try:
            replay_chain(ActionContext(self.catalog, self.log, self.binlog), self.drop_chain)
        except DDLLogError:  # committed already; D stays active and recovery finishes it
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
        plan = STEPS if self.orig_exists else [step for step in STEPS if step not in SKIPPED_WITHOUT_ORIG]
        try:
            for trigger in plan[: plan.index("drop_backup")]:
                self._step(trigger)
        except Exception as exc:
            error = self._roll_back(exc)
            if error is not None:
                raise error from exc
            # Committed (the binlog has the XID) but closing C failed: recovery closes C and drops BACKUP.
            return ReplaceResult(self.orig, self.orig_exists, self.event, backup_pending=True)
        self._step("drop_backup")
        return ReplaceResult(self.orig, self.orig_exists, self.event, self.backup_pending)

    def _roll_back(self, cause: Exception) -> StatementFailedError | None:
        """Error: None if the statement committed already; else close D, replay C and return the error to raise.
        What cannot be undone now stays logged for recovery."""
        cancel = () if self.drop_chain is None else (self.drop_chain,)
        error = undo_unless_committed(ActionContext(self.catalog, self.log, self.binlog), self.create_chain, cause,
                                      verb=self.verb, subject=str(self.orig), cancel=cancel)
        if error is not None and error.rollback_error is None:
            self.mark_rolled_back()
        return error
