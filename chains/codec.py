"""msgpack-friendly encoding of entries: short keys, enums as strings, names as ``[db, name]``."""

from __future__ import annotations

from typing import Any

from chains.entries import ActionEntry, ActionType, BinlogPosition, ChainKind, ChainState, ExecuteEntry
from chains.errors import PayloadError
from storage.catalogs.names import TableName


def name_to_wire(name: TableName | None) -> list[str] | None:
    return None if name is None else [name.db, name.name]


def name_from_wire(value: Any) -> TableName | None:
    return None if value is None else TableName(str(value[0]), str(value[1]))


def action_to_wire(action: ActionEntry) -> dict[str, Any]:
    return {
        "op": "act",
        "id": action.id,
        "chain": action.chain,
        "type": action.type.value,
        "phase": action.phase,
        "name": name_to_wire(action.name),
        "from": name_to_wire(action.from_name),
        "tag": action.tag,
        "extra": dict(action.payload),
    }


def action_from_wire(record: dict[str, Any]) -> ActionEntry:
    action_type = ActionType(record["type"])
    return ActionEntry(
        id=record["id"],
        chain=record["chain"],
        type=action_type,
        phase=record["phase"],
        name=name_from_wire(record["name"]),
        from_name=name_from_wire(record["from"]),
        tag=record["tag"],
        payload=_payload_map(action_type, record["extra"]),
    )


def _payload_map(action_type: ActionType, data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise PayloadError(f"the {action_type.value} payload is not a map")
    return data


def execute_to_wire(chain: ExecuteEntry) -> dict[str, Any]:
    """The full chain head; written when the chain's action list changes and when compacting."""
    return {
        "op": "exe",
        "pos": chain.position,
        "kind": chain.kind.value,
        "acts": list(chain.actions),
        "stmt": chain.statement,
        "state": chain.state.value,
        "master": chain.master,
        "xid": chain.xid,
        "bpos": None if chain.binlog_pos is None else [chain.binlog_pos.segment, chain.binlog_pos.offset],
        "retries": chain.retries,
    }


def execute_from_wire(record: dict[str, Any]) -> ExecuteEntry:
    bpos = record["bpos"]
    return ExecuteEntry(
        position=record["pos"],
        kind=ChainKind(record["kind"]),
        actions=tuple(record["acts"]),
        statement=record["stmt"],
        state=ChainState(record["state"]),
        master=record["master"],
        xid=record["xid"],
        binlog_pos=None if bpos is None else BinlogPosition(bpos[0], bpos[1]),
        retries=record["retries"],
    )
