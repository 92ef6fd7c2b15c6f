"""The applier: each committed source event, in source order, as one atomic statement of the replica whose binlog
event carries the source position (:mod:`~ddl_log.replication.origin`), so the position and the catalog move
together or not at all.

A crash of the applier anywhere is the replica's own statement crashing: recovery (the next open of the replica's
home) undoes it (position unchanged) or finishes it (position moved by one), and the applier goes on from the
position its binlog then says. An event the replica refuses (its catalog changed by hand, a version gone) stops the
applier before it, with the event named: nothing is skipped.

Text events are read into typed statements by the SQL front end (``read``, given by the front ends that own it);
events that recorded their table version are installed from that version's files (:mod:`~ddl_log.replication.copy`).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator

import attrs

from chains.binlog import BinlogEvent
from ddl_log.engine.core import DDLEngine
from ddl_log.engine.tables import RenameTables
from ddl_log.engine.typed import Statement
from ddl_log.engine.version_statements import RestoreTable
from ddl_log.replication.added import insert_statement, located_files
from ddl_log.replication.copy import copy_statement, copyable, present_location
from ddl_log.replication.errors import (
    AppliedThenStoppedError,
    ApplyFailedError,
    FollowsAnotherSourceError,
    SourceVersionGoneError,
)
from ddl_log.replication.file_wait import MOVE_WAIT_SECONDS, POLL_SECONDS, waiting_for_files
from ddl_log.replication.follow import SkipNotes, follow_of
from ddl_log.replication.ledger import Ledger
from ddl_log.replication.origin import AppliedPosition, event_id, marked_event
from ddl_log.replication.promote import give_role
from ddl_log.replication.replica_state import REPLICATION_DIR, note_error, read_state, write_state
from ddl_log.replication.rewrite import Finder, rewrite_statement, session_finder
from ddl_log.replication.source import Source
from ddl_log.replication.source_identity import check_source_holds
from storage import crashpoints
from storage.catalogs.names import TableName
from storage.errors import DDLLogError

BEFORE_APPLY = crashpoints.declare("replica.apply.before", "a source event is read; the replica has not begun it")
AFTER_APPLY = crashpoints.declare("replica.apply.after", "the replica's statement for a source event committed "
                                  "(its binlog event carries the source position); the applier has not noted it")

Reader = Callable[[str], list[Statement]]
"""SQL text to the typed statements it is (the SQL front end's reading, names resolved on the replica)."""


@attrs.frozen
class ApplyReport:
    applied: int
    position: int
    copied: int = 0
    """Of ``applied``, events installed from their version's files."""
    skipped: int = 0
    """Events not applied and recorded as skipped (notes, filters, this home's own, resynced tables)."""


class Applier:
    """Applies ``source``'s events to the replica home of ``engine`` (a directory home)."""

    def __init__(self, engine: DDLEngine, source: Source, read: Reader) -> None:
        self.engine = engine
        self.source = source
        self.read = read
        self.home_dir = engine.home.spark_directory()
        events = list(engine.binlog_file.events())
        applied = AppliedPosition.read(events)
        others = sorted(set(applied.seqs) - {source.origin})
        state = read_state(self.home_dir)
        followed = state.origin if state.origin not in (None, source.origin) else (others[0] if others else None)
        if followed is not None:
            raise FollowsAnotherSourceError(engine.home.location, followed, source.origin)
        if state.origin is None:
            write_state(self.home_dir, attrs.evolve(state, source=source.path, origin=source.origin))
            give_role(engine)
        self.position = applied.of(source.origin)
        self.position_ident = applied.ident_of(source.origin)
        """The identity of the source event at the position, as applied (None: not named, or none applied)."""
        self.follow = follow_of(engine.home.location, events, source, read_state(self.home_dir),
                                Ledger(os.path.join(self.home_dir, REPLICATION_DIR)))
        self.skips = SkipNotes(engine.binlog_file, source.origin)

    def statements(self, event: BinlogEvent) -> list[Statement]:
        """The replica's statements for ``event``: exactly one, its text the source's behind the position marker."""
        text = marked_event(self.source.origin, event)
        mapping = self.follow.filters.mapping
        if copyable(event.version) and not self.engine.uses_custom_catalog:
            assert event.version is not None
            table = self.follow.filters.target(TableName.of(event.version.table))
            copy = copy_statement(self.engine.spark, event, text, lambda: self.renames_after(event.seq), name=table)
            return [attrs.evolve(copy, text=marked_event(self.source.origin, event, copy.canonical_text()))
                    if mapping else copy]
        if event.added is not None and not self.engine.uses_custom_catalog:
            table = self.follow.filters.target(TableName.of(event.added.table))
            insert = insert_statement(event, text, lambda: self.renames_after(event.seq), name=table)
            return [attrs.evolve(insert, text=marked_event(self.source.origin, event, insert.canonical_text()))
                    if mapping else insert]
        statements = self.read(event.statement)
        if len(statements) != 1:
            raise ApplyFailedError(event.seq, event.statement,
                                   f"it reads as {len(statements)} statements; the replica applies one per event")
        if isinstance(statements[0], RestoreTable):  # version numbers and times are the source home's own
            raise ApplyFailedError(event.seq, event.statement, "RESTORE names a version of the source's history, "
                                   "which the replica's does not number alike; it replicates by copying the "
                                   "restored version's files, which needs a parquet or ORC table and a Spark "
                                   "catalog on the replica (re-bootstrap the table)")
        statement = rewrite_statement(statements[0], mapping, self.finder())
        if statement != statements[0]:  # the replica's binlog says what it did: the rewritten statement
            text = marked_event(self.source.origin, event, statement.canonical_text())
        return [attrs.evolve(statement, text=text)]

    def finder(self) -> Finder | None:
        """The parser ``--rewrite-db`` reads SQL texts with: Spark's own through the replica's session."""
        return None if self.engine.uses_custom_catalog else session_finder(self.engine.spark)

    def renames_after(self, seq: int) -> Iterator[tuple[TableName, TableName]]:
        """The source's table renames after ``seq``, in order (where a moved version's files went)."""
        for event in self.source.events_after(seq):
            if "RENAME" not in event.statement.upper():
                continue
            for statement in self.read(event.statement):
                if isinstance(statement, RenameTables):
                    yield from statement.pairs

    def copies_files(self, event: BinlogEvent) -> bool:
        """Whether the replica's statement for ``event`` copies the source's files (else it replays the text)."""
        return (copyable(event.version) or event.added is not None) and not self.engine.uses_custom_catalog

    def sources(self, event: BinlogEvent) -> tuple[str, ...] | None:
        """Where the files the replica copies for ``event`` are now (None: it copies none); raises
        :class:`SourceVersionGoneError` while they are not all in one place."""
        later = lambda: self.renames_after(event.seq)  # noqa: E731 - read only when the files moved
        if not self.copies_files(event):
            return None
        if event.added is not None and not copyable(event.version):
            return located_files(event, event.added, later)
        assert event.version is not None
        location = present_location(event, event.version, later)
        return (location, *event.version.files) if event.version.files is not None else (location,)

    def run_statements(self, event: BinlogEvent) -> None:
        """The replica's statements for ``event``, run; again when the source moved the files they copied under
        them (found by ``make replication``: an INSERT INTO's files, not yet moved into the source's table, were
        found in its work table, which the source's moves then emptied mid-copy; the failed statement changed
        nothing, so it is run again from where the files are then), for at most the files' wait."""
        deadline = time.monotonic() + MOVE_WAIT_SECONDS
        while True:
            before = waiting_for_files(lambda: self.sources(event))
            try:
                for statement in self.statements(event):
                    self.engine.run(statement)
                return
            except (ApplyFailedError, SourceVersionGoneError):
                raise
            except Exception:
                if before is None or time.monotonic() >= deadline or not self.moved_since(event, before):
                    raise
            time.sleep(POLL_SECONDS)

    def moved_since(self, event: BinlogEvent, before: tuple[str, ...]) -> bool:
        try:
            return self.sources(event) != before
        except SourceVersionGoneError:
            return True  # in flight

    def apply(self, event: BinlogEvent) -> bool:
        """Apply one event (the next after the position); True when it was installed from its version's files."""
        BEFORE_APPLY()
        try:
            self.follow.check_by_hand(self.engine.catalog, event)
            self.run_statements(event)
        except (ApplyFailedError, SourceVersionGoneError):
            raise
        except Exception as error:
            raise ApplyFailedError(event.seq, event.statement, error) from error
        AFTER_APPLY()
        self.position, self.position_ident = event.seq, event_id(event)
        try:
            self.follow.noted(self.engine.catalog, event)
        except DDLLogError as error:  # the replica's metastore went away after the commit
            raise AppliedThenStoppedError(event.seq, event.statement, error) from error
        return self.copies_files(event)

    def apply_group(self, events: list[BinlogEvent]) -> bool:
        """Apply a source transaction's events (:attr:`BinlogEvent.txn`) as one replica transaction: their
        statements commit at one commit point, so the position moves once, past the whole group, or not at all. A
        statement reading what an earlier one of the group changed (a source before transactions were isolated let
        it) reads it as the source did: the group's statements so far are published first."""
        BEFORE_APPLY()
        try:
            with self.engine.transaction(publish_to_read=True):
                for event in events:
                    self.follow.check_by_hand(self.engine.catalog, event)
                    for statement in self.statements(event):
                        self.engine.run(statement)
        except (ApplyFailedError, SourceVersionGoneError):
            raise
        except Exception as error:
            raise ApplyFailedError(events[0].seq, events[0].statement, error) from error
        AFTER_APPLY()
        self.position, self.position_ident = events[-1].seq, event_id(events[-1])
        try:
            for event in events:
                self.follow.noted(self.engine.catalog, event)
        except DDLLogError as error:
            raise AppliedThenStoppedError(events[-1].seq, events[-1].statement, error) from error
        return any(self.copies_files(event) for event in events)

    def apply_available(self, until: int | None = None) -> ApplyReport:
        """Apply every event committed on the source now (up to ``until``), in order; stops at the first error. A
        source transaction's events are applied together (:meth:`apply_group`), once its last one is read."""
        applied = copied = 0
        skipped = self.skips.count
        group: list[BinlogEvent] = []
        try:
            check_source_holds(self.source, self.position, self.position_ident)
            for event in self.source.events_after(self.position):
                if until is not None and event.seq > until and not group:
                    break
                reason = self.follow.skip_reason(event)
                if reason is not None and event.txn is None:
                    self.skips.add(event, reason)
                    continue
                self.note_skips()
                if event.txn is not None:
                    group.append(event)
                    if event.txn[0] < event.txn[1]:
                        continue
                    kept = [e for e in group if self.follow.skip_reason(e) is None]
                    group, count = [], len(group)
                    if not kept:  # every event of the group filtered out: skipped as one
                        self.skips.add(event, reason or "a source transaction whose every event is filtered out")
                        continue
                    copied += self.apply_group(kept)
                    self.position, self.position_ident = event.seq, event_id(event)
                    applied += count
                    continue
                copied += self.apply(event)
                applied += 1
            self.note_skips()
        except DDLLogError as error:
            with contextlib.suppress(DDLLogError):  # what was skipped before the failing event is recorded
                self.note_skips()
            note_error(self.home_dir, error)
            raise
        if (applied or self.skips.count > skipped) and read_state(self.home_dir).last_error is not None:
            note_error(self.home_dir, None)
        return ApplyReport(applied, self.position, copied, self.skips.count - skipped)

    def note_skips(self) -> None:
        """Record the events skipped since the last note, in one note that moves the position past them."""
        noted = self.skips.flush()
        if noted is not None:
            self.position, self.position_ident = noted.seq, event_id(noted)

    def run(self, *, until_caught_up: bool = False, poll_seconds: float = 1.0,
            stop: Callable[[], bool] = lambda: False) -> ApplyReport:
        """Apply until the source's head (``until_caught_up``), or forever, polling for new events."""
        applied = copied = skipped = 0
        while True:
            report = self.apply_available()
            applied, copied, skipped = applied + report.applied, copied + report.copied, skipped + report.skipped
            if until_caught_up and self.position >= self.source.head().seq:
                return ApplyReport(applied, self.position, copied, skipped)
            if stop():
                return ApplyReport(applied, self.position, copied, skipped)
            if not report.applied and not report.skipped:
                time.sleep(poll_seconds)

