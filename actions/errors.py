from __future__ import annotations

from chains.entries import ActionEntry
from storage.errors import DDLLogError


class ActionFailedError(DDLLogError):
    """Replaying an action failed; the chain stops there and stays active for the next try."""

    def __init__(self, action: ActionEntry, cause: BaseException) -> None:
        target = action.name or action.from_name
        super().__init__(f"replaying {action.type.value} of {target} (chain {action.chain}) failed: {cause}")
        self.action = action
        self.cause = cause
