"""The errors of statements and the actions they log: every statement raises StatementFailedError, an action
that fails on replay ActionFailedError."""

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


class StatementFailedError(DDLLogError):
    """A statement failed and was rolled back: no table, data, log or binlog change remains (except ``completed``:
    a multi-object DROP keeps what it dropped before another object failed, and binlogs exactly that).

    ``cause`` is the underlying error (also chained as ``__cause__``); ``name`` the object the statement was about.
    """

    def __init__(self, statement: str, name: str, cause: BaseException, *, rollback_error: BaseException | None = None,
                 completed: tuple[str, ...] = ()):
        message = f"{statement} failed for {name}: {cause}"
        if rollback_error is not None:
            message += f" (rollback incomplete, recovery will finish it: {rollback_error})"
        if completed:
            message += f" (done and binlogged for {', '.join(completed)})"
        super().__init__(message)
        self.statement = statement
        self.name = name
        self.cause = cause
        self.rollback_error = rollback_error
        self.completed = completed
        """A multi-object DROP's objects that were dropped (and binlogged) although others failed; () otherwise."""


class CommittedWithPendingWorkWarning(UserWarning):
    """A statement committed, but a step after its commit point failed; recovery (the next open, or
    ``AtomicDDL.recover()``) finishes that step. Issued as a Python warning: the statement itself succeeded."""
