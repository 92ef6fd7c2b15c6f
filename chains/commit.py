"""Two-phase commit of a statement's chain, with the binlog as coordinator (seed mysql-wl9175).

With the binlog on: store the XID in the chain (durable), write the binlog event (the commit point), close the
chain. A crash between the last two is resolved by recovery: the XID is in the binlog, so the chain is closed
instead of undone. With the binlog off, durably closing the chain is the commit point.
"""

from __future__ import annotations

from collections.abc import Iterable

from chains.binlog import BinlogEvent, BinlogLike
from chains.entries import ChainState, ExecuteEntry
from chains.log import DDLLog
from chains.version_records import AddedFiles, VersionRecord
from storage import crashpoints

BEFORE_XID = crashpoints.declare("commit.before_xid", "the statement's work is done; its XID is not stored yet")
BEFORE_BINLOG = crashpoints.declare("commit.before_binlog", "the XID is durable in the chain; no binlog event yet")
AFTER_BINLOG = crashpoints.declare("commit.after_binlog", "the binlog event is durable: the statement committed")
AFTER_CLOSE = crashpoints.declare("commit.after_close", "the committed chain is closed in the log")


def commit_chain(log: DDLLog, binlog: BinlogLike | None, position: int, statement: str,
                 objects: tuple[str, ...], *, xid: int | None = None,
                 version: VersionRecord | None = None, added: AddedFiles | None = None) -> BinlogEvent | None:
    """Commit the statement whose undo chain is ``position``; returns its binlog event (None with binlog off).

    ``xid`` is the statement's XID when it already has one (it names TMP and BACKUP tables); else one is allocated.
    ``version``: the table version the statement installed, ``added``: what an INSERT INTO added, recorded in its
    event for replicas.
    """
    event = None
    if binlog is not None:
        event = binlog_once(log, binlog, position, statement, objects, generated_by_recovery=False, xid=xid,
                            version=version, added=added)
        AFTER_BINLOG()
        if event is None:  # binlogged before (a replay of a committed statement): read back, the rare way
            event = _last_event_for(binlog, log, position)
    else:
        BEFORE_XID()
    log.close(position)
    AFTER_CLOSE()
    return event


def binlog_once(log: DDLLog, binlog: BinlogLike, position: int, statement: str, objects: tuple[str, ...], *,
                generated_by_recovery: bool, xid: int | None = None,
                version: VersionRecord | None = None, added: AddedFiles | None = None) -> BinlogEvent | None:
    """Write the chain's binlog event unless its XID is already there (a replay after a crash); the event written,
    as the append returned it (no read back), or None when it was there already."""
    chain = log.chain(position)
    if chain.xid is not None and chain.binlog_pos is not None:
        if binlogged(binlog, [chain]):
            return None
        xid = chain.xid
    else:
        BEFORE_XID()
        xid = binlog.new_xid() if xid is None else xid
        log.set_xid(position, xid, binlog.position())
    BEFORE_BINLOG()
    return binlog.append(statement, xid=xid, objects=objects, generated_by_recovery=generated_by_recovery,
                         version=version, added=added)


def _last_event_for(binlog: BinlogLike, log: DDLLog, position: int) -> BinlogEvent | None:
    chain = log.chain(position)
    if chain.binlog_pos is None:
        return None
    for event in binlog.events_since(chain.binlog_pos):
        if event.xid == chain.xid:
            return event
    return None


def committed_event(log: DDLLog, binlog: BinlogLike | None, position: int) -> BinlogEvent | None:
    """The binlog event of a committed chain (None with the binlog off)."""
    return None if binlog is None else _last_event_for(binlog, log, position)


def is_committed(log: DDLLog, binlog: BinlogLike | None, position: int) -> bool:
    """Whether the statement of chain ``position`` reached its commit point (used when a step after it fails)."""
    if position < 0 or not log.is_written(position):
        return False
    chain = log.chain(position)
    if binlog is None:
        return chain.state is ChainState.CLOSED
    return bool(binlogged(binlog, [chain]))


def binlogged(binlog: BinlogLike, chains: Iterable[ExecuteEntry]) -> set[int]:
    """The positions of ``chains`` whose XID is in the binlog: the one place that decides "did it commit?". Reads
    the binlog once, from the earliest position a chain noted when it stored its XID (the event cannot be before).
    Positions in the catalog's binlog (segment 0) and in a home's own segments are read apart: a database home's
    chain noted before it moved to the catalog's binlog is decided in its own segments."""
    noted = [chain for chain in chains if chain.xid is not None and chain.binlog_pos is not None]
    found: set[int] = set()
    for in_catalog in (True, False):
        starts = [c.binlog_pos for c in noted if c.binlog_pos is not None and (c.binlog_pos.segment == 0) == in_catalog]
        if starts:
            committed = binlog.xids_since(min(starts))
            found |= {c.position for c in noted if c.xid in committed and c.binlog_pos in starts}
    return found
