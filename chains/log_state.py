"""The in-memory state of the DDL log, rebuilt on open by applying its records in order.

The log file is append-only, so every change (a phase, an XID, a retry, a state) is a record of its own;
:meth:`LogState.apply` is the single place that gives records their meaning.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs

from chains.codec import action_from_wire, execute_from_wire
from chains.entries import ActionEntry, BinlogPosition, ChainState, ExecuteEntry


class LogState:
    def __init__(self) -> None:
        self.chains: dict[int, ExecuteEntry] = {}
        self.actions: dict[int, ActionEntry] = {}
        self.notes: dict[int, str] = {}
        """What an executor recorded about an action it ran (why a scheduled deletion kept its directory)."""
        self.next_id = 1

    def reserve(self, at_least: int) -> None:
        self.next_id = max(self.next_id, at_least)

    def allocate(self) -> int:
        value = self.next_id
        self.next_id += 1
        return value

    def chain_actions(self, position: int) -> list[ActionEntry]:
        """The chain's committed actions, in logged order."""
        return [self.actions[action_id] for action_id in self.chains[position].actions]

    def apply(self, record: dict[str, Any]) -> None:
        op = record["op"]
        if op == "base":
            self.reserve(record["next"])
        elif op == "act":
            action = action_from_wire(record)
            self.actions[action.id] = action
            self.reserve(action.id + 1)
        elif op == "exe":
            chain = execute_from_wire(record)
            self.chains[chain.position] = chain
            self.reserve(chain.position + 1)
        elif op == "phase":
            action = self.actions[record["id"]]
            self.actions[action.id] = action.at_phase(record["phase"])
        elif op == "xid":
            self._evolve(record["pos"], xid=record["xid"], binlog_pos=BinlogPosition(record["bseg"], record["boff"]))
            self.reserve(record["xid"] + 1)
        elif op == "retry":
            self._evolve(record["pos"], retries=record["n"])
        elif op == "state":
            self._evolve(record["pos"], state=ChainState(record["state"]))
        elif op == "link":
            self._evolve(record["pos"], master=record["master"])
        elif op == "note":
            self.notes[record["id"]] = str(record["text"])
        else:
            raise ValueError(f"unknown log record op {op!r}")

    def _evolve(self, position: int, **changes: Any) -> None:
        self.chains[position] = attrs.evolve(self.chains[position], **changes)


def replay_records(records: Sequence[tuple[int, Any]],
                   on_error: Callable[[int, Exception], None] | None = None) -> tuple[LogState, int | None]:
    """Rebuild a state from ``(offset, record)`` pairs as the log file holds them. A ``batch`` record announces n
    records that count only together. Returns the state and the offset of an incomplete batch at the tail (a torn
    write, to be cut off), or None. ``on_error`` receives records that do not apply (default: raise)."""
    state = LogState()
    index = 0
    while index < len(records):
        offset, record = records[index]
        members: Sequence[tuple[int, Any]] = [(offset, record)]
        if isinstance(record, dict) and record.get("op") == "batch":
            count = int(record.get("n", 0))
            members = records[index + 1 : index + 1 + count]
            if len(members) < count:
                return state, offset
            index += count
        index += 1
        for member_offset, member in members:
            try:
                state.apply(member)
            except (KeyError, ValueError, TypeError, IndexError, AttributeError) as exc:
                if on_error is None:
                    raise
                on_error(member_offset, exc)
    return state, None
