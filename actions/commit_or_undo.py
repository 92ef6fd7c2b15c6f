"""The statement machine's one decision: an error hit a statement whose undo chain is logged; did the statement
commit (its XID is in the binlog, or with the binlog off its chain is closed)? Then it stands and recovery finishes
what is left; else the undo chain is replayed now. Every statement runs through here, from its statement log
(:meth:`replace_table.statement_log.StatementLog.revert`). The only caller of :func:`chains.commit.is_committed`."""

from __future__ import annotations

from collections.abc import Iterable

from actions.context import ActionContext
from actions.errors import StatementFailedError
from actions.replay import roll_back
from chains.commit import is_committed
from storage.errors import HomeFencedError, LogWriteFailedError


def undo_unless_committed(context: ActionContext, position: int, cause: Exception, *, verb: str, subject: str,
                          cancel: Iterable[int] = ()) -> StatementFailedError | None:
    """After ``cause`` broke the statement of undo chain ``position``: None if it had committed already, else
    replay the chain (closing the chains in ``cancel`` first) and return the error to raise. What cannot be undone
    now stays logged for recovery and is named in the error (``rollback_error``). A fenced driver undoes nothing:
    the driver that took its home over owns the chain now, so :class:`HomeFencedError` is raised as it is. Nor does
    a statement whose log or binlog write may or may not have been kept (``fate_unknown``): deciding now could undo
    what commits after all, so ``cause`` is raised as it is and the next open decides."""
    if isinstance(cause, HomeFencedError) or fate_unknown(cause):
        raise cause
    if is_committed(context.log, context.binlog, position):
        return None
    try:
        roll_back(context, position, cancel=tuple(cancel))
    except Exception as exc:  # noqa: BLE001 - reported inside the error; recovery finishes the undo
        return StatementFailedError(verb, subject, cause, rollback_error=exc)
    return StatementFailedError(verb, subject, cause)


def fate_unknown(error: BaseException | None) -> bool:
    """Whether ``error``, or an error it was raised from or while handling, is a write whose fate is unknown."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, LogWriteFailedError) and error.fate_unknown:
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False
