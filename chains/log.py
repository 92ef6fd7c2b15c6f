"""The DDL log: durable, append-only, chains of typed actions (MariaDB's ddl_log, on a record store).

Writes go through :meth:`DDLLog.batch`: records queued inside one ``with log.batch():`` share one fsync; outside a
batch every call is its own durable write. Memory is updated as records are queued (the lock is held for the whole
batch, so no other thread sees it before it is durable); a failed write or an abandoned batch reloads the state
from disk, so memory never keeps what the file does not have. A failed write poisons the record file; the reload
reopens it, so the state is then what the file holds, which is also what recovery would read (a write whose fate
is unknown is kept exactly when its records are in the file).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import attrs

from chains.codec import action_to_wire, execute_to_wire
from chains.entries import (
    ActionEntry,
    ActionPayload,
    ActionType,
    BinlogPosition,
    ChainKind,
    ChainState,
    ExecuteEntry,
)
from chains.errors import LogStateError
from chains.log_state import LogState, replay_records
from storage import crashpoints
from storage.catalogs.names import TableName
from storage.records.file_store import FileRecordStore
from storage.records.fileops import REAL_FILE_OPS, FileOps
from storage.records.store import Records, RecordStore, RecordStream

LOG_MAGIC = b"SDDLLOG"
LOG_FILE = "ddl_log.log"
BACKUP_FILE = "ddl_log-backup.log"
DEFAULT_COMPACT_BYTES = 1 << 20

BEFORE_COMPACT = crashpoints.declare("log.before_compact", "no chain is active; the log is about to be rewritten")
AFTER_COMPACT = crashpoints.declare("log.after_compact", "the compacted log replaced the old one")


class DDLLog:
    """One open DDL log (a stream of a :class:`~storage.records.store.RecordStore`) and the chains it holds.
    Thread-safe."""

    def __init__(self, store: RecordStore, *, compact_bytes: int = DEFAULT_COMPACT_BYTES) -> None:
        self.store = store
        self.location = store.location_of(LOG_FILE)
        self.backup_location = store.location_of(BACKUP_FILE)
        self.compact_bytes = compact_bytes
        self._lock = threading.RLock()
        self._pending: list[dict[str, Any]] | None = None
        self._batch_depth = 0
        self._state = LogState()
        self._unwritten: dict[int, ExecuteEntry] = {}
        """Chains with a position but no action yet: nothing of them is on disk."""
        self._scope = threading.local()
        self._owned: set[int] = set()
        """Chains of statements running now in this process (see :meth:`owning`)."""
        self._file: RecordStream = self._load()

    def _load(self) -> RecordStream:
        """Rebuild the state from the file. A batch (a ``batch`` record announcing n records, then the n records)
        counts only when complete: a torn batch at the tail is cut off like a torn record, so a batch is atomic."""
        file, records = self.store.open(LOG_FILE, LOG_MAGIC)
        try:
            state, torn_batch = replay_records(records)
            if torn_batch is not None:
                file.truncate_to(torn_batch)
        except BaseException:
            file.close()
            raise
        self._state = state
        return file

    # ----------------------------------------------------------------- reading

    def chain(self, position: int) -> ExecuteEntry:
        with self._lock:
            try:
                return self._state.chains[position]
            except KeyError:
                raise LogStateError(f"no chain at position {position}") from None

    def is_written(self, position: int) -> bool:
        """Whether the chain's execute entry is in the log (a chain with no action yet is not)."""
        with self._lock:
            return position in self._state.chains

    def chains(self) -> list[ExecuteEntry]:
        with self._lock:
            return [self._state.chains[p] for p in sorted(self._state.chains)]

    def active_chains(self) -> list[ExecuteEntry]:
        return [chain for chain in self.chains() if chain.active]

    def abandoned_chains(self) -> list[ExecuteEntry]:
        return [chain for chain in self.chains() if chain.state is ChainState.ABANDONED]

    def actions_of(self, position: int) -> list[ActionEntry]:
        """The chain's committed actions in logged order (actions no execute entry lists are invisible)."""
        with self._lock:
            return self._state.chain_actions(position)

    def action(self, action_id: int) -> ActionEntry:
        with self._lock:
            return self._state.actions[action_id]

    def linked_to(self, master: int) -> list[ExecuteEntry]:
        return [chain for chain in self.chains() if chain.master == master]

    @property
    def size(self) -> int:
        return self._file.size

    @property
    def syncs(self) -> int:
        return self._file.syncs

    # ----------------------------------------------------------------- writing

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group the writes inside into one durable write (one fsync). Nesting joins the outer batch.

        If the block raises, nothing of the batch is written and the in-memory state is reloaded from disk.
        """
        with self._lock:
            self._batch_depth += 1
            if self._pending is None:
                self._pending = []
            try:
                yield
            except BaseException:
                self._batch_depth -= 1
                if self._batch_depth == 0:
                    self._pending = None
                    self._reload()
                raise
            self._batch_depth -= 1
            if self._batch_depth == 0:
                records, self._pending = self._pending, None
                self._write(records)

    def _emit(self, *records: dict[str, Any]) -> None:
        """Apply records to memory now (so later calls in a batch see them) and write them, or queue them."""
        with self._lock:
            for record in records:
                self._state.apply(record)
            if self._pending is not None:
                self._pending.extend(records)
            else:
                self._write(list(records))

    def _write(self, records: Sequence[dict[str, Any]]) -> None:
        if not records:
            return
        if len(records) > 1:
            records = [{"op": "batch", "n": len(records)}, *records]
        try:
            self._file.append_batch(records)
        except BaseException:
            self._reload()
            raise

    def _reload(self) -> None:
        """Forget what memory holds beyond the file: after a failed write or an abandoned batch."""
        self._file.close()
        self._file = self._load()

    def allocate_id(self) -> int:
        """A fresh number for a chain position or an XID, unique for the life of this home."""
        with self._lock:
            return self._state.allocate()

    def reserve_ids(self, at_least: int) -> None:
        """Never hand out numbers below ``at_least`` (e.g. XIDs already in the binlog)."""
        with self._lock:
            self._state.reserve(at_least)

    def new_chain(self, kind: ChainKind, statement: str = "", *, master: int | None = None) -> int:
        """Reserve a chain position. Nothing is durable until the first action is added (the execute entry)."""
        with self._lock:
            position = self._state.allocate()
            self._unwritten[position] = ExecuteEntry(position, kind, statement=statement, master=master)
            scope: list[int] | None = getattr(self._scope, "positions", None)
            if scope is not None:
                scope.append(position)
                self._owned.add(position)
            return position

    def write_head(self, position: int) -> None:
        """Make a chain that has no action yet durable (a transaction's anchor: chains link to it, it takes the XID
        and is closed at the commit point; undone, it cancels them)."""
        with self._lock:
            if self._unwritten_only(position):
                self._emit(execute_to_wire(self._unwritten.pop(position)))

    @contextmanager
    def owning(self) -> Iterator[None]:
        """The chains this thread creates inside the block belong to a statement that is running: recovery in this
        process leaves them alone until the block ends (its statement then committed, undid them, or left them to
        recovery). Nested blocks join the outer one."""
        if getattr(self._scope, "positions", None) is not None:
            yield
            return
        positions: list[int] = []
        self._scope.positions = positions
        try:
            yield
        finally:
            self._scope.positions = None
            with self._lock:
                self._owned.difference_update(positions)

    def chains_of_this_statement(self) -> tuple[int, ...]:
        """The chains this thread created inside its :meth:`owning` block so far (none outside one)."""
        return tuple(getattr(self._scope, "positions", None) or ())

    def owned_positions(self) -> frozenset[int]:
        """Chains of statements running now in this process."""
        with self._lock:
            return frozenset(self._owned)

    def _unwritten_only(self, position: int) -> bool:
        """True for a chain that has a position but nothing on disk yet (drops the note once it is written)."""
        if position in self._state.chains:
            self._unwritten.pop(position, None)
            return False
        return position in self._unwritten

    def _head(self, position: int) -> ExecuteEntry:
        head = self._state.chains.get(position) or self._unwritten.get(position)
        if head is None:
            raise LogStateError(f"no chain at position {position}")
        return head

    def add_action(
        self,
        position: int,
        action_type: ActionType,
        *,
        name: TableName | None = None,
        from_name: TableName | None = None,
        tag: str | None = None,
        payload: ActionPayload | None = None,
    ) -> ActionEntry:
        """Log one action and the chain head that makes it visible, in one durable write. ``payload``: the type's
        own fields (written as its map; :mod:`actions.kinds` has each type's class and the helper that logs it)."""
        fields = {} if payload is None else payload.to_wire()
        with self._lock:
            head = self._head(position)
            if not head.active:
                raise LogStateError(f"chain {position} is {head.state.value}; no action can be added")
            action = ActionEntry(
                id=self._state.allocate(),
                chain=position,
                type=action_type,
                name=name,
                from_name=from_name,
                tag=tag,
                payload=fields,
            )
            new_head = attrs.evolve(head, actions=(*head.actions, action.id))
            self._emit(action_to_wire(action), execute_to_wire(new_head))
            return action

    def link(self, position: int, master: int) -> None:
        """Make chain ``position`` runnable only once chain ``master`` is no longer active."""
        with self._lock:
            if self._unwritten_only(position):
                self._unwritten[position] = attrs.evolve(self._unwritten[position], master=master)
                return
            self._emit({"op": "link", "pos": position, "master": master})

    def set_phase(self, action_id: int, phase: int) -> None:
        self._emit({"op": "phase", "id": action_id, "phase": phase})

    def note(self, action_id: int, text: str) -> None:
        """Record what replaying an action found (a scheduled deletion that kept its directory, and why): kept with
        the action until the log is compacted, shown by ``ddl-log status``."""
        self._emit({"op": "note", "id": action_id, "text": text})

    def note_of(self, action_id: int) -> str | None:
        with self._lock:
            return self._state.notes.get(action_id)

    def set_xid(self, position: int, xid: int, binlog_pos: BinlogPosition) -> None:
        """Durably store the XID (and where the binlog ended) before the statement's binlog event is written."""
        self._emit({"op": "xid", "pos": position, "xid": xid, "bseg": binlog_pos.segment, "boff": binlog_pos.offset})

    def bump_retry(self, position: int) -> int:
        """Count one more replay attempt, durably, before the attempt starts."""
        with self._lock:
            retries = self.chain(position).retries + 1
            self._emit({"op": "retry", "pos": position, "n": retries})
            return retries

    def set_state(self, position: int, state: ChainState) -> None:
        with self._lock:
            if self._unwritten_only(position):
                del self._unwritten[position]  # never written: nothing on disk to close
                return
            self._emit({"op": "state", "pos": position, "state": state.value})

    def close(self, position: int) -> None:
        """The chain is no longer needed (its statement committed); chains linked to it become runnable."""
        self.set_state(position, ChainState.CLOSED)

    def mark_executed(self, position: int) -> None:
        """The chain was replayed; chains linked to it are cancelled in the same durable write."""
        with self._lock, self.batch():
            self.set_state(position, ChainState.EXECUTED)
            for linked in self.linked_to(position):
                if linked.active:
                    self.set_state(linked.position, ChainState.CANCELLED)
            for position_, head in list(self._unwritten.items()):
                if head.master == position:
                    del self._unwritten[position_]

    def reopen(self, position: int) -> None:
        """Make an abandoned chain (and the linked chains abandoned with it) active again with no retry counted:
        an operator fixed the cause and asks recovery to try again."""
        with self._lock, self.batch():
            for chain in (self.chain(position), *self.linked_to(position)):
                if chain.state is ChainState.ABANDONED:
                    self._emit({"op": "retry", "pos": chain.position, "n": 0})
                    self.set_state(chain.position, ChainState.ACTIVE)

    def abandon(self, position: int) -> None:
        """Give up on a chain that failed every retry: kept and reported, never silently dropped."""
        with self._lock, self.batch():
            self.set_state(position, ChainState.ABANDONED)
            for linked in self.linked_to(position):
                if linked.active:
                    self.set_state(linked.position, ChainState.ABANDONED)

    # ----------------------------------------------------------------- compaction

    def maybe_compact(self, *, force: bool = False, waiting: frozenset[int] = frozenset()) -> bool:
        """Rewrite the log with only the live chains when none is active but the ``waiting`` ones (scheduled
        deletions, kept for a table version's retention: they are kept) (and it has grown, unless forced)."""
        with self._lock:
            for position in list(self._unwritten):
                self._unwritten_only(position)
            busy = [chain for chain in self.active_chains() if chain.position not in waiting]
            if self._pending is not None or self._unwritten or busy:
                return False
            if not force and self._file.size < self.compact_bytes:
                return False
            self.compact()
            return True

    def compact(self) -> None:
        """Atomically replace the file with one holding the id counter and every chain still worth keeping
        (active and abandoned ones); the previous file stays as ``ddl_log-backup.log``."""
        with self._lock:
            if self._pending is not None:
                raise LogStateError("cannot compact inside a batch")
            # no batch marker needed: the rename of the whole file is atomic
            records: list[dict[str, Any]] = [{"op": "base", "next": self._state.next_id}]
            kept = {chain.position for chain in self.chains() if chain.active or chain.state is ChainState.ABANDONED}
            for chain in self.chains():
                if chain.position in kept:
                    actions = self._state.chain_actions(chain.position)
                    records.extend(action_to_wire(action) for action in actions)
                    if chain.master is not None and chain.master not in kept:  # closed: it constrains nothing now
                        chain = attrs.evolve(chain, master=None)
                    records.append(execute_to_wire(chain))
                    records.extend({"op": "note", "id": action.id, "text": self._state.notes[action.id]}
                                   for action in actions if action.id in self._state.notes)
            BEFORE_COMPACT()
            try:
                self.store.replace(LOG_FILE, LOG_MAGIC, records, keep_previous_as=BACKUP_FILE)
            finally:
                # Even when it failed after the rename: the open descriptor may now be the backup's, and a write
                # through it would never reach the live log.
                self._reload()
            AFTER_COMPACT()

    def close_file(self) -> None:
        """Close the file descriptor (no write); what a dying process does implicitly."""
        self._file.close()


def open_log(directory: str, *, ops: FileOps = REAL_FILE_OPS, compact_bytes: int = DEFAULT_COMPACT_BYTES) -> DDLLog:
    """The DDL log in a directory: the file store, the embedded default."""
    return DDLLog(FileRecordStore(directory, ops=ops), compact_bytes=compact_bytes)


def dump_records(store: RecordStore) -> tuple[Records, int, int]:
    """Read the log without opening it for writing (``ddl-log dump``): records, valid end, size."""
    return store.read(LOG_FILE, LOG_MAGIC)

