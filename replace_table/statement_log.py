"""One statement's place in the log: MariaDB's ``DDL_LOG_STATE`` made local, the one small writing API every
statement uses, through the machine (:mod:`replace_table.machine`).

It holds the statement's XID (allocated when first asked for: work names are made of it), its identity tag, its
chain C (the undo chain, or the one roll-forward chain of a forward statement) and the chains linked to C (D, E:
roll-forward chains that run only once C is closed, and are cancelled when C is replayed). Its verbs: open C,
link D/E, log in one durable write (:meth:`batch`), commit (store the XID in C, write the binlog event, close C),
revert (undo unless committed), retire (replay linked chains after the commit)."""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from actions.commit_or_undo import undo_unless_committed
from actions.context import ActionContext
from actions.errors import StatementFailedError, named_for_user
from actions.replay import ReplayOutcome, replay_chain
from actions.version_tags import version_tag
from chains.binlog import BinlogEvent
from chains.commit import commit_chain, committed_event
from chains.entries import ChainKind
from chains.log import DDLLog
from chains.version_records import AddedFiles, VersionRecord
from storage.catalogs.names import RESERVED_PREFIX, TableName
from storage.errors import DDLLogError


class Joined(Protocol):
    """What a statement's log needs of the transaction it joins (:class:`replace_table.transaction.Transaction`)."""

    @property
    def xid(self) -> int: ...

    def anchor(self) -> int: ...

    def enlist(self, machine: Any) -> None:
        """Prepare the statement's machine inside the transaction (its commit deferred)."""

    def deferred_commit(self, log: StatementLog, objects: tuple[str, ...], version: VersionRecord | None,
                        added: AddedFiles | None) -> None: ...


class StatementLog:
    """The chains and XID of one statement whose text (as binlogged) is ``statement``."""

    def __init__(self, ctx: ActionContext, statement: str, *, makes_version: str | None = None) -> None:
        self.ctx = ctx
        self.statement = statement
        self.makes_version = makes_version
        """The operation, when the statement makes a table version current: its tag then numbers the version by
        the statement's XID and says how and when it became current (:mod:`actions.version_tags`)."""
        self.chain_c: int | None = None
        self.undoable = False
        """C is an undo chain: an error before the commit point replays it (a forward chain is its own commit)."""
        self.linked: list[int] = []
        """The chains linked to C, in the order they were made (cancelled when C is undone)."""
        self.work_tables: dict[str, str] = {}
        """Each work table's name (:meth:`work_names`) -> the name of the table it stands for: an error about it is
        shown about that table (:func:`actions.errors.named_for_user`)."""
        self.event: BinlogEvent | None = None
        self.retire_error: DDLLogError | None = None
        """Committed, but replaying a linked chain failed so: it stays active and recovery finishes it."""
        self.forward_objects: tuple[str, ...] = ()
        """What a roll-forward statement inside a transaction binlogs in the group (alone, its DROP_INIT does)."""
        self._xid: int | None = None
        self._tag: str | None = None

    @property
    def transaction(self) -> Joined | None:
        """The open transaction the statement joins (:mod:`replace_table.transaction`), else None."""
        transaction: Joined | None = self.ctx.transaction
        return transaction

    @property
    def log(self) -> DDLLog:
        return self.ctx.log

    # ------------------------------------------------------------------ the statement's names

    @property
    def xid(self) -> int:
        """The statement's XID, allocated on first use (a statement that asks for none gets one at its commit)."""
        if self._xid is None and self.transaction is not None:
            self._xid = self.transaction.xid
        if self._xid is None:
            self._xid = self.ctx.log.allocate_id() if self.ctx.binlog is None else self.ctx.binlog.new_xid()
        return self._xid

    @property
    def tag(self) -> str:
        """The identity tag of what the statement makes (``x<xid>-<random>``, a version tag when it makes a table
        version): undo touches only what carries it."""
        if self._tag is None:
            self._tag = (f"x{self.xid}-{secrets.token_hex(8)}" if self.makes_version is None
                         else version_tag(self.xid, self.makes_version))
        return self._tag

    def work_names(self, orig: TableName) -> tuple[TableName, TableName]:
        """TMP and BACKUP names beside ``orig``: reserved prefix + XID (+ a short random token against other homes
        on one metastore)."""
        token = secrets.token_hex(3)
        tmp, bak = (orig.sibling(f"{RESERVED_PREFIX}{self.xid}_{token}_tmp"),
                    orig.sibling(f"{RESERVED_PREFIX}{self.xid}_{token}_bak"))
        self.work_tables.update({tmp.name: orig.name, bak.name: orig.name})
        return tmp, bak

    # ------------------------------------------------------------------ writing

    def undo_chain(self) -> int:
        """Chain C as an undo chain, opened on first use (nothing is durable before its first action)."""
        if self.chain_c is None:
            self.chain_c = self.log.new_chain(ChainKind.UNDO, self.statement)
            self.undoable = True
        return self.chain_c

    def forward_chain(self) -> int:
        """Chain C as the statement's roll-forward chain: once written it always completes (its write commits)."""
        if self.chain_c is None:
            self.chain_c = self.log.new_chain(ChainKind.FORWARD, self.statement, master=self._anchor())
        return self.chain_c

    def _anchor(self) -> int | None:
        """Inside a transaction, the chain a roll-forward chain hangs on (it runs once the transaction committed)."""
        return None if self.transaction is None else self.transaction.anchor()

    def link(self) -> int:
        """A new roll-forward chain linked to C (D, E): it runs only once C is closed, never if C is undone."""
        position = self.log.new_chain(ChainKind.FORWARD, self.statement, master=self.undo_chain())
        self.linked.append(position)
        return position

    def unlinked(self) -> int:
        """A roll-forward chain of its own (a drop's kept files, deleted when due whatever happens to C)."""
        return self.log.new_chain(ChainKind.FORWARD, self.statement, master=self._anchor())

    @contextmanager
    def batch(self) -> Iterator[DDLLog]:
        """Log what the block logs in one durable write."""
        with self.log.batch():
            yield self.log

    def commit(self, objects: tuple[str, ...], *, version: VersionRecord | None = None,
               added: AddedFiles | None = None) -> BinlogEvent | None:
        """The commit point (:func:`chains.commit.commit_chain`): C closed, the event in the binlog. Inside a
        transaction, its part of the group commit (the transaction writes the event and closes C)."""
        if self.transaction is not None:
            self.transaction.deferred_commit(self, objects, version, added)
            return None
        self.event = commit_chain(self.log, self.ctx.binlog, self.undo_chain(), self.statement, objects,
                                  xid=self._xid, version=version, added=added)
        return self.event

    def committed_event(self) -> BinlogEvent | None:
        """The binlog event of the committed statement, read back (when its commit did not return it)."""
        return committed_event(self.log, self.ctx.binlog, self.undo_chain())

    def revert(self, cause: Exception, *, verb: str, subject: str) -> StatementFailedError | None:
        """After ``cause`` broke the statement: None when it had committed, else C undone (its linked chains cancelled
        first) and the error to raise (:func:`actions.commit_or_undo.undo_unless_committed`)."""
        named_for_user(cause, self.work_tables)
        failed = undo_unless_committed(self.ctx, -1 if self.chain_c is None else self.chain_c, cause, verb=verb,
                                       subject=subject, cancel=tuple(self.linked))
        if failed is not None:
            failed.work_tables = dict(self.work_tables)
        return failed

    def replay(self, position: int, *, skip_failures: bool = False) -> ReplayOutcome:
        return replay_chain(self.ctx, position, skip_failures=skip_failures)

    def retire(self, positions: Iterable[int | None]) -> None:
        """After the commit: replay the linked chains ``positions`` in order; the first that fails stops it, stays
        active, and recovery finishes it and those after it (:attr:`retire_error`)."""
        for position in positions:
            if position is None or self.retire_error is not None:
                continue
            try:
                self.replay(position)
            except DDLLogError as error:  # committed already: the chain stays active and recovery finishes it
                self.retire_error = error
