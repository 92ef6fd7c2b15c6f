"""INSTALL_VERSION: RESTORE and UNDROP make a kept table version the table again, in one catalog call (the
definition the log kept, files where they are). Undo: while the table is the one installed (its new identity), put
the previous definition back in one call (RESTORE), or remove the table from the catalog without its files (UNDROP:
they are the dropped version's, still kept)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import ActionContext
from actions.kinds.kind import ActionKind, name_of, payload_of, require
from chains.entries import ActionEntry, ActionType
from chains.log import DDLLog
from storage import crashpoints
from storage.catalogs.names import TableName
from storage.errors import CatalogError

UNDO_INSTALL_BEFORE = crashpoints.declare(
    "undo.install_version.before", "undo is about to put a table's previous definition back")


@attrs.frozen
class InstallVersionPayload:
    """``previous``: the table's definition before (``Catalog.version_of``), None when the name was free."""

    previous: str | None

    def to_wire(self) -> dict[str, Any]:
        return {"previous": self.previous}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> InstallVersionPayload:
        previous = require(data, "previous", "INSTALL_VERSION")
        return cls(None if previous is None else str(previous))


def log_install_version(log: DDLLog, chain: int, name: TableName, new_tag: str,
                        previous: str | None) -> ActionEntry:
    return log.add_action(chain, ActionType.INSTALL_VERSION, name=name, tag=new_tag,
                          payload=InstallVersionPayload(previous))


def undo_install_version(action: ActionEntry, ctx: ActionContext) -> None:
    """Only the table this statement installed (identity ``tag``) is touched: one made since is left alone."""
    name = name_of(action)
    if action.tag is None:
        raise CatalogError(f"install action {action.id} lacks its identity", str(name))
    if ctx.catalog.identity(name) != action.tag:
        return  # not installed yet, or undone already
    previous = payload_of(action, InstallVersionPayload).previous
    UNDO_INSTALL_BEFORE()
    if previous is None:
        ctx.catalog.forget_table(name, expect=action.tag)
    else:
        ctx.catalog.install_version(name, previous, None, create=False)


def describe(action: ActionEntry) -> str:
    previous = payload_of(action, InstallVersionPayload).previous
    what = "put its previous definition back" if previous is not None else "remove it, not its files"
    return f"while table {action.name} has identity {action.tag} (a restored version): {what}"


KIND = ActionKind(ActionType.INSTALL_VERSION, ("DEFINITION",), InstallVersionPayload, undo_install_version,
                  describe, "object", log_install_version)
