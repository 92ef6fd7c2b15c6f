"""The DDL log's data model: typed action entries, execute entries (chain heads) and their states.

Everything here is an attrs frozen record; the log file stores them as msgpack maps (see :mod:`chains.codec`).
"""

from __future__ import annotations

import enum
from typing import Any, Protocol

import attrs

from storage.catalogs.names import TableName


class ActionPayload(Protocol):
    """What an action carries for its type. The classes, one per type, are in :mod:`chains.payloads`, which builds
    on this module (so this one names only what every payload does)."""

    def to_wire(self) -> dict[str, Any]: ...

FINAL = 0xFF
"""Phase of an action that is done; replay skips it."""
SKIPPED = 0xFE
"""Phase of a roll-forward action given up on (its object could not be dropped): replay skips it and the chain's
binlog event names only what was done."""


class ChainKind(enum.Enum):
    """How a chain replays: UNDO chains run newest action first (LIFO), FORWARD chains in logged order (FIFO)."""

    UNDO = "undo"
    FORWARD = "forward"


class ChainState(enum.Enum):
    ACTIVE = "active"
    """Recovery must run it (unless its master is still active or its XID is in the binlog)."""
    CLOSED = "closed"
    """The statement committed (or the chain was no longer needed); nothing to replay. Linked chains may run."""
    EXECUTED = "executed"
    """The chain was replayed to its end."""
    CANCELLED = "cancelled"
    """Its master chain was replayed, so this linked chain must never run."""
    ABANDONED = "abandoned"
    """Replay failed on every try; kept in the log and reported until an operator deals with it."""


class ActionType(enum.Enum):
    """Every action the log can replay, with the ordered phases it passes through (FINAL is implicit)."""

    CREATE_TABLE = "create_table"
    RENAME_TABLE = "rename_table"
    DROP_INIT = "drop_init"
    DROP_TABLE = "drop_table"
    DROP_VIEW = "drop_view"
    DROP_FUNCTION = "drop_function"
    DROP_DB = "drop_db"
    CREATE_VIEW = "create_view"
    RENAME_VIEW = "rename_view"
    CREATE_FUNCTION = "create_function"
    ALTER_TABLE = "alter_table"
    CREATE_DB = "create_db"
    SWAP_TABLE = "swap_table"
    FORGET_TABLE = "forget_table"
    DELETE_DATA = "delete_data"

    @property
    def phases(self) -> tuple[str, ...]:
        return _PHASES[self]

    @property
    def runs_last(self) -> bool:
        """DROP_INIT is logged first in a drop chain but replays after the drops (it binlogs what was dropped)."""
        return self is ActionType.DROP_INIT

    def phase_value(self, phase: str) -> int:
        return self.phases.index(phase)

    def phase_name(self, value: int) -> str:
        if value == SKIPPED:
            return "SKIPPED"
        return "FINAL" if value == FINAL else self.phases[value]


_PHASES: dict[ActionType, tuple[str, ...]] = {
    ActionType.CREATE_TABLE: ("INIT",),
    ActionType.RENAME_TABLE: ("TABLE",),
    ActionType.DROP_INIT: ("INIT", "BINLOG"),
    ActionType.DROP_TABLE: ("TABLE", "FILES"),
    ActionType.DROP_VIEW: ("VIEW",),
    ActionType.DROP_FUNCTION: ("FUNCTION",),
    ActionType.DROP_DB: ("DATABASE",),
    ActionType.CREATE_VIEW: ("VIEW",),
    ActionType.RENAME_VIEW: ("VIEW",),
    ActionType.CREATE_FUNCTION: ("FUNCTION",),
    ActionType.ALTER_TABLE: ("METADATA",),
    ActionType.CREATE_DB: ("DATABASE",),
    ActionType.SWAP_TABLE: ("DEFINITION",),
    ActionType.FORGET_TABLE: ("TABLE",),
    ActionType.DELETE_DATA: ("FILES",),
}


@attrs.frozen
class ActionEntry:
    """One replayable step. ``name`` is the object acted on; ``from_name`` the source of a rename.

    ``tag`` is the identity the object must have for the action to touch it (see ``Catalog.identity``);
    ``payload`` is the type's own data (:mod:`chains.payloads`: a statement text to binlog, an old view definition).
    """

    id: int
    chain: int
    type: ActionType
    phase: int = 0
    name: TableName | None = None
    from_name: TableName | None = None
    tag: str | None = None
    payload: ActionPayload = attrs.field(default=None, kw_only=True)

    @property
    def done(self) -> bool:
        return self.phase in (FINAL, SKIPPED)

    @property
    def skipped(self) -> bool:
        return self.phase == SKIPPED

    def at_phase(self, phase: int) -> ActionEntry:
        """This entry at ``phase``: the constructor directly, about three times cheaper than ``attrs.evolve`` on the
        log's hottest path (group commit of phase records)."""
        return ActionEntry(self.id, self.chain, self.type, phase, self.name, self.from_name, self.tag,
                           payload=self.payload)

    @property
    def phase_name(self) -> str:
        return self.type.phase_name(self.phase)


@attrs.frozen(order=True)
class BinlogPosition:
    """Where the binlog ended when an XID was stored: the XID's event can only be at or after it."""

    segment: int
    offset: int


@attrs.frozen
class ExecuteEntry:
    """A chain head. Its durable write is the chain's commit point: action entries it does not list never run."""

    position: int
    kind: ChainKind
    actions: tuple[int, ...] = ()
    statement: str = ""
    state: ChainState = ChainState.ACTIVE
    master: int | None = None
    xid: int | None = None
    binlog_pos: BinlogPosition | None = None
    retries: int = 0

    @property
    def active(self) -> bool:
        return self.state is ChainState.ACTIVE
