"""DROP_INIT: first in a roll-forward drop chain, replayed last: binlogs the statement once the drops are done
(MariaDB's DDL_LOG_DROP_INIT_ACTION), naming only what was dropped when some drop was given up on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, name_of, payload_of, require
from chains.binlog import GENERATED_COMMENT
from chains.commit import binlog_once
from chains.entries import ActionEntry, ActionType
from chains.log import DDLLog
from storage.catalogs.names import quote_ident


@attrs.frozen
class DropInitPayload:
    """Binlogs ``statement`` for ``objects`` once the rest of the chain is done."""

    statement: str
    objects: tuple[str, ...]

    def to_wire(self) -> dict[str, Any]:
        return {"binlog": self.statement, "objects": list(self.objects)}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> DropInitPayload:
        return cls(str(require(data, "binlog", "DROP_INIT")),
                   tuple(str(o) for o in require(data, "objects", "DROP_INIT")))


DROP_VERBS = {ActionType.DROP_FUNCTION: "FUNCTION", ActionType.DROP_VIEW: "VIEW", ActionType.DROP_TABLE: "TABLE",
              ActionType.DROP_DB: "DATABASE"}
"""Roll-forward drop actions and the object kind each drops, in the order a DROP DATABASE drops them."""


def log_drop_init(log: DDLLog, chain: int, statement: str, objects: tuple[str, ...]) -> ActionEntry:
    return log.add_action(chain, ActionType.DROP_INIT, payload=DropInitPayload(statement, objects))


def dropped_object_name(action: ActionEntry) -> str:
    name = name_of(action)
    return name.db if action.type is ActionType.DROP_DB else str(name)


def dropped_text(actions: list[ActionEntry]) -> str:
    """``DROP <kind> a, b`` per kind, joined by ``; ``: the statement a partly failed drop binlogs."""
    parts = []
    for action_type, kind in DROP_VERBS.items():
        names = [quote_ident(name_of(a).db) if a.type is ActionType.DROP_DB else name_of(a).quoted
                 for a in actions if a.type is action_type]
        if names:
            parts.append(f"DROP {kind} {', '.join(names)}")
    return "; ".join(parts)


def forward_drop_init(action: ActionEntry, ctx: ActionContext) -> None:
    """After the drops: binlog the statement once (marked as generated when recovery finished it). When some drop
    was given up on (SKIPPED), the event is a statement naming only what was dropped, as MariaDB binlogs the tables
    a failed DROP TABLE did drop; nothing dropped, nothing binlogged."""
    if ctx.binlog is None:
        return
    payload = payload_of(action, DropInitPayload)
    statement, objects = payload.statement, payload.objects
    drops = [a for a in ctx.log.actions_of(action.chain) if a.type in DROP_VERBS]
    if any(a.skipped for a in drops):
        done = [a for a in drops if not a.skipped]
        if not done:
            return
        statement = dropped_text(done)
        objects = tuple(dropped_object_name(a) for a in done)
    text = f"{statement} {GENERATED_COMMENT}" if ctx.in_recovery else statement
    event = binlog_once(ctx.log, ctx.binlog, action.chain, text, objects, generated_by_recovery=ctx.in_recovery)
    if event is not None:
        ctx.events.append(event)


def describe(action: ActionEntry) -> str:
    return "binlog the statement (only what was dropped)"


KIND = ActionKind(ActionType.DROP_INIT, ("INIT", "BINLOG"), DropInitPayload, forward_drop_init, describe, "none",
                  log_drop_init, runs_last=True)
