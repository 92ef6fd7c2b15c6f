"""The DDL log's data model: typed action entries, execute entries (chain heads) and their states.

Everything here is an attrs frozen record; the log file stores them as msgpack maps (see :mod:`chains.codec`).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any, Protocol

import attrs

from storage.catalogs.names import TableName


class ActionPayload(Protocol):
    """What an action carries for its type when it is logged: its own map of fields (the classes, one per type, are
    in :mod:`actions.kinds`, which reads them back; the log stores and returns the map as it is)."""

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
    """Every action the log can replay; what each one is (its phases, payload, executor ...) lives in
    :mod:`actions.kinds`, one module per type."""

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
    SWEEP_TABLE = "sweep_table"
    INSTALL_VERSION = "install_version"
    CLAIM_VERSION = "claim_version"
    CHANGE_KIND = "change_kind"
    MOVE_FILES = "move_files"
    RELOCATE_VERSION = "relocate_version"
    REMOVE_RECORD = "remove_record"
    REMOVE_JOB_FILES = "remove_job_files"


@attrs.frozen
class ActionEntry:
    """One replayable step. ``name`` is the object acted on; ``from_name`` the source of a rename.

    ``tag`` is the identity the object must have for the action to touch it (see ``Names.identity``);
    ``payload`` is the type's own data (a statement text to binlog, an old view definition: :mod:`actions.kinds`).
    """

    id: int
    chain: int
    type: ActionType
    phase: int = 0
    name: TableName | None = None
    from_name: TableName | None = None
    tag: str | None = None
    payload: Mapping[str, Any] = attrs.field(factory=dict, kw_only=True)
    """The type's own fields, as logged (read back by :func:`actions.kinds.kind.payload_of`)."""

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
