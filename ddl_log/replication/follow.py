"""What a replica does with a source event besides applying it: the filters it was set up with (``--databases``,
``--rewrite-db``), events it skips and records (notes, events that originated on this very home, events on other
databases, events on a table a resync copied past), and the checks made before it applies anything (a bootstrap or
resync left unfinished, a promotion, statements this home committed that the source lacks).

Skipped events are never skipped silently: each run of them becomes one note in the replica's binlog
(:func:`~ddl_log.replication.position.skipped`), whose marker moves the position past them in the same append.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs

from chains.binlog import BinlogEvent, BinlogLike
from ddl_log.replication.errors import (
    ApplyFailedError,
    DivergedSourceError,
    ReplicaConfigError,
    ReplicaPromotedError,
    SyncIncompleteError,
)
from ddl_log.replication.ledger import Ledger, names_of
from ddl_log.replication.origin import AppliedPosition, event_id, origin_of
from ddl_log.replication.position import PROMOTED, ReplicaPosition, first_origin, is_note, is_own, skipped
from ddl_log.replication.replica_state import ReplicaState, read_state, write_state
from ddl_log.replication.source import Source
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.records.home import is_database_url


def _frozen_names(value: Iterable[str] | None) -> frozenset[str] | None:
    return None if value is None else frozenset(v.lower() for v in value)


@attrs.frozen
class Filters:
    """``databases``: the source databases replicated (None: all); ``rewrite``: source database -> replica's."""

    databases: frozenset[str] | None = attrs.field(default=None, converter=_frozen_names)
    rewrite: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, databases: Iterable[str] | None, rewrite: Iterable[tuple[str, str]] | Mapping[str, str] = ()
           ) -> Filters:
        pairs = tuple(sorted(rewrite.items() if isinstance(rewrite, Mapping) else rewrite))
        pairs = tuple((a.lower(), b.lower()) for a, b in pairs)
        targets = [b for _, b in pairs]
        if len(set(targets)) != len(targets) or len({a for a, _ in pairs}) != len(pairs):
            raise ReplicaConfigError("-", f"--rewrite-db maps two databases to one or one to two: {pairs}")
        return cls(databases, pairs)

    @classmethod
    def of_state(cls, state: ReplicaState) -> Filters:
        return cls.of(state.databases, state.rewrite)

    @property
    def mapping(self) -> dict[str, str]:
        return dict(self.rewrite)

    def replicated(self, db: str) -> bool:
        return self.databases is None or db.lower() in self.databases

    def target(self, name: TableName) -> TableName:
        return TableName(self.mapping.get(name.db, name.db), name.name)

    def target_db(self, db: str) -> str:
        return self.mapping.get(db, db)

    def source_of(self, name: TableName) -> TableName:
        back = {b: a for a, b in self.rewrite}
        return TableName(back.get(name.db, name.db), name.name)

    def describe(self) -> str:
        parts = ["databases " + (", ".join(sorted(self.databases)) if self.databases is not None else "all")]
        if self.rewrite:
            parts.append("rewrite " + ", ".join(f"{a}={b}" for a, b in self.rewrite))
        return "; ".join(parts)

    def as_state(self) -> dict[str, Any]:
        return {"databases": None if self.databases is None else tuple(sorted(self.databases)),
                "rewrite": self.rewrite}


def event_tables(event: BinlogEvent) -> tuple[list[TableName], set[str]]:
    """The objects an event names (``db.name``) and the databases it touches (``db`` alone: a database
    statement)."""
    names = []
    databases = set()
    for item in event.objects:
        db, dot, name = item.partition(".")
        databases.add(db.lower())
        if dot:
            names.append(TableName(db.lower(), name.lower()))
    return names, databases


class Follow:
    """The applier's decisions for one source, from the replica's filters and what its binlog says; ``ledger``: who
    the replica's objects are (None: not checked); ``unsettled``: the objects of the last applied event, whose
    ledger entries a crash may have left stale."""

    def __init__(self, filters: Filters, own_origin: str | None, position: ReplicaPosition,
                 ledger: Ledger | None = None, unsettled: Iterable[TableName] = ()) -> None:
        self.filters = filters
        self.own_origin = own_origin
        self.position = position
        self.ledger = ledger
        self.unsettled = list(unsettled)

    def replica_names(self, event: BinlogEvent) -> list[TableName]:
        return [self.filters.target(name) for name in event_tables(event)[0]]

    def check_by_hand(self, catalog: Catalog, event: BinlogEvent) -> None:
        """Stop before ``event`` when an object it names was dropped or replaced on the replica by hand."""
        if self.ledger is None:
            return
        if self.unsettled:
            self.ledger.settle(catalog, self.unsettled)
            self.unsettled = []
        changed = self.ledger.changed_by_hand(catalog, self.replica_names(event))
        if changed is not None:
            name, how = changed
            raise ApplyFailedError(event.seq, event.statement, f"{name} was {how} on the replica outside its "
                                   f"applier (by hand?); make it the source's again: `ddl-log replica resync {name}`")

    def noted(self, catalog: Catalog, event: BinlogEvent) -> None:
        """Record what the objects ``event`` names are on the replica now that it applied it."""
        if self.ledger is not None:
            names, databases = event_tables(event)
            for db in databases - {name.db for name in names}:  # a whole database: its objects changed too
                self.ledger.forget_database(self.filters.target_db(db))
            self.ledger.note(catalog, self.replica_names(event))

    def skip_reason(self, event: BinlogEvent) -> str | None:
        """Why ``event`` is not applied (None: apply it); :class:`ApplyFailedError` for an event that can be neither
        applied whole nor skipped whole."""
        if is_note(event.statement):
            return "a note of the source"
        if self.own_origin is not None and first_origin(event.statement) == self.own_origin:
            return "originated here"
        names, databases = event_tables(event)
        if self.filters.databases is not None and databases:
            inside = {db for db in databases if self.filters.replicated(db)}
            if not inside:
                return "not in --databases"
            if inside != databases:
                raise ApplyFailedError(event.seq, event.statement, "it touches replicated and other databases "
                                       f"({', '.join(sorted(databases))}); a replica applies a statement whole")
        fenced = [name for name in names if self.position.fence_of(self.filters.target(name)) >= event.seq]
        if fenced:
            if len(fenced) < len(names):
                raise ApplyFailedError(event.seq, event.statement, "it touches a table a resync copied as it was "
                                       f"after this event ({fenced[0]}) and others: resync those too, or "
                                       "re-bootstrap")
            return f"resynced {', '.join(sorted(map(str, fenced)))}"
        return None


class SkipNotes:
    """Skipped events, recorded in one note per run of them (written before the next applied event and at the end
    of each batch)."""

    def __init__(self, binlog: BinlogLike, origin: str) -> None:
        self.binlog = binlog
        self.origin = origin
        self.pending: list[tuple[BinlogEvent, str]] = []
        self.count = 0

    def add(self, event: BinlogEvent, reason: str) -> None:
        self.pending.append((event, reason))
        self.count += 1

    def flush(self) -> BinlogEvent | None:
        """Write the note; the source event whose position it moves to (None when nothing was pending)."""
        if not self.pending:
            return None
        runs: list[tuple[int, int, str]] = []
        for seq, reason in ((event.seq, reason) for event, reason in self.pending):
            if runs and runs[-1][2] == reason and runs[-1][1] + 1 == seq:
                runs[-1] = (runs[-1][0], seq, reason)
            else:
                runs.append((seq, seq, reason))
        why = "; ".join(f"{a}{'' if a == b else f'-{b}'} ({reason})" for a, b, reason in runs)
        last = self.pending[-1][0]
        self.binlog.append(skipped(self.origin, last.seq, why, event_id(last)), xid=None)
        self.pending.clear()
        return last


def own_events(events: Iterable[BinlogEvent]) -> list[BinlogEvent]:
    """The statements this home committed as a source: before it first applied a source's event, and after a
    promotion (a replica's own by-products, such as the part of a DROP its catalog allowed, are not)."""
    own = []
    following = False
    for event in events:
        if PROMOTED.match(event.statement) is not None:
            following = False
        elif first_origin(event.statement) is not None:
            following = True
        elif not following and is_own(event):
            own.append(event)
    return own


def check_not_diverged(home: str, events: Iterable[BinlogEvent], source_events: Callable[[], Iterable[BinlogEvent]],
                       own_origin: str, source: str) -> None:
    """Refuse to follow ``source`` when this home committed statements it lacks: the source knows this home's
    events up to the highest seq of this origin it applied (or bootstrapped); every own event after that is
    missing there (the source's events are read only when this home has any of its own)."""
    own = own_events(events)
    if not own:
        return
    known = AppliedPosition.read(source_events()).of(own_origin)
    lacking = [(event.seq, event.statement) for event in own if event.seq > known]
    if lacking:
        raise DivergedSourceError(home, source, lacking)


def follow_of(home: str, events: list[BinlogEvent], source: Source, state: ReplicaState,
              ledger: Ledger | None = None) -> Follow:
    """The applier's policy for ``source`` on the replica ``home`` (whose binlog events are ``events``), once the
    checks pass: no promotion, no unfinished bootstrap or resync, nothing committed here that the source lacks."""
    position = ReplicaPosition.read(events, source.origin)
    if position.promoted_at is not None:
        raise ReplicaPromotedError(home, source.origin, position.promoted_at)
    if position.bootstrapping:
        raise SyncIncompleteError(home, f"the bootstrap from {source.path}",
                                  f"ddl-log --home {home} replica bootstrap --source {source.path}")
    for table in sorted(position.resyncing):
        raise SyncIncompleteError(home, f"the resync of {table}", f"ddl-log --home {home} replica resync {table}")
    own = None if is_database_url(home) else origin_of(home)
    if own == source.origin:
        raise ReplicaConfigError(home, "it is the source itself: a home cannot follow its own binlog")
    if own is not None:
        check_not_diverged(home, events, lambda: source.events_after(0), own, source.path)
    last = AppliedPosition.read(events).last_event.get(source.origin)
    unsettled = [] if last is None else names_of(last.objects)
    return Follow(Filters.of_state(state), own, position, ledger, unsettled)


def configure(home_dir: str, home: str, events: list[BinlogEvent], origin: str, filters: Filters) -> None:
    """Set the replica's filters before it applies anything; afterwards the same filters only (changing them would
    leave its catalog matching no source position: re-bootstrap to change them)."""
    state = read_state(home_dir)
    if Filters.of_state(state) == filters:
        return
    if AppliedPosition.read(events).of(origin) or ReplicaPosition.read(events, origin).bootstrapping:
        raise ReplicaConfigError(home, f"it was set up with {Filters.of_state(state).describe()}, not "
                                 f"{filters.describe()}: re-bootstrap it to change its filters")
    write_state(home_dir, attrs.evolve(state, **filters.as_state()))
