"""CLAIM_VERSION: once RESTORE or UNDROP committed, the version it brought back is the table's data again: the
scheduled deletion that kept it (its DELETE_DATA chain) is cancelled, so it never deletes live files and the version
leaves DESCRIBE HISTORY. Linked to the statement's undo chain, so it runs only after the commit."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, payload_of, require
from chains.entries import ActionEntry, ActionType, ChainState
from chains.log import DDLLog
from storage.catalogs.names import TableName


@attrs.frozen
class ClaimVersionPayload:
    """``chain``: the position of the version's DELETE_DATA chain (its version number)."""

    chain: int

    def to_wire(self) -> dict[str, Any]:
        return {"chain": self.chain}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> ClaimVersionPayload:
        return cls(int(require(data, "chain", "CLAIM_VERSION")))


def log_claim_version(log: DDLLog, chain: int, name: TableName, version: int) -> ActionEntry:
    return log.add_action(chain, ActionType.CLAIM_VERSION, name=name, payload=ClaimVersionPayload(version))


def forward_claim_version(action: ActionEntry, ctx: ActionContext) -> None:
    """Idempotent: a deletion chain that is no longer active is left as it is."""
    position = payload_of(action, ClaimVersionPayload).chain
    if ctx.log.is_written(position) and ctx.log.chain(position).active:
        ctx.log.set_state(position, ChainState.CANCELLED)


def describe(action: ActionEntry) -> str:
    return (f"cancel the deletion of version {payload_of(action, ClaimVersionPayload).chain} of table "
            f"{action.name}: it is the table's data again")


KIND = ActionKind(ActionType.CLAIM_VERSION, ("CLAIM",), ClaimVersionPayload, forward_claim_version, describe,
                  "object", log_claim_version)
