"""The errors of statements and the actions they log: every statement raises StatementFailedError, an action
that fails on replay ActionFailedError."""

from __future__ import annotations

import re
from collections.abc import Mapping

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
        self.work_tables: Mapping[str, str] = {}
        """The statement's work tables -> the tables they stood for (:func:`user_names` of a text about them)."""


def user_names(text: str, work_tables: Mapping[str, str]) -> str:
    """``text`` with each work table's name (a key of ``work_tables``) replaced by the name of the table it stands
    for: what plain Spark, which has no work table, would have named (```spark_catalog`.`db`.`t` ``, ``db.t``)."""
    if not work_tables:
        return text
    tables = {work.lower(): table for work, table in work_tables.items()}
    names = "|".join(re.escape(work) for work in tables)
    return re.sub(rf"\b(?:{names})\b", lambda found: tables[found.group(0).lower()], text, flags=re.IGNORECASE)


def named_for_user(error: BaseException, work_tables: Mapping[str, str]) -> None:
    """Rename in place, in ``error`` and the project errors it carries (``cause``, ``__cause__``), the statement's
    work tables (:func:`user_names`): an error raised while the new version was built names the user's table, as
    plain Spark's would; nothing of the log's bookkeeping shows. A Spark error itself is left as it is (its text is
    the JVM's; the project's error about it carries the renamed message)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while work_tables and isinstance(current, DDLLogError) and id(current) not in seen:
        seen.add(id(current))
        current.args = tuple(user_names(arg, work_tables) if isinstance(arg, str) else arg for arg in current.args)
        name = getattr(current, "name", None)
        if isinstance(name, str):
            setattr(current, "name", user_names(name, work_tables))  # noqa: B010 - CatalogError's, not DDLLogError's
        found = getattr(current, "cause", None)
        current = found if isinstance(found, BaseException) else current.__cause__


class CommittedWithPendingWorkWarning(UserWarning):
    """A statement committed, but a step after its commit point failed; recovery (the next open, or
    ``AtomicDDL.recover()``) finishes that step. Issued as a Python warning: the statement itself succeeded."""


class TransactionError(DDLLogError):
    """A DDL transaction (``START TRANSACTION`` ... ``COMMIT``, ``with ddl.transaction()``) refused a statement or
    a step; what was done inside it is as the subclass says."""


class TransactionStateError(TransactionError):
    """A transaction control statement out of place: COMMIT or ROLLBACK without START TRANSACTION, a START inside an
    open transaction, a transaction left open when its script or process ended (rolled back: nothing of it stays)."""

    def __init__(self, what: str, reason: str) -> None:
        super().__init__(f"{what}: {reason}")
        self.what = what
        self.reason = reason


class NotTransactionalError(TransactionError):
    """A statement that cannot be part of a DDL transaction (``statement`` names it): the whole transaction was
    rolled back, as PostgreSQL aborts a transaction at an error; nothing of it stays."""

    def __init__(self, statement: str, reason: str) -> None:
        super().__init__(f"{statement} cannot run inside a transaction ({reason}); the transaction was rolled back, "
                         "nothing of it stays")
        self.statement = statement
        self.reason = reason


class TransactionConflictError(TransactionError):
    """A statement inside a transaction changes an object that an earlier statement of the same transaction changed
    (each object is changed once per transaction): the whole transaction was rolled back."""

    def __init__(self, statement: str, name: str) -> None:
        super().__init__(f"{statement}: {name} was changed by an earlier statement of this transaction (a transaction "
                         "changes each object once); the transaction was rolled back, nothing of it stays")
        self.statement = statement
        self.name = name


class UnpublishedReadError(TransactionConflictError):
    """A statement inside a transaction reads an object (``name``; through a view, or a DataFrame's plan, too) that an
    earlier statement of the transaction (``changed_by``) changed: the transaction's changes are built aside and
    published at COMMIT, so the statement would read the object as it was before (or miss a table the transaction
    creates). The whole transaction was rolled back."""

    def __init__(self, statement: str, name: str, changed_by: str) -> None:
        TransactionError.__init__(
            self, f"{statement}: reads {name}, which {changed_by} of this transaction changed; the transaction's "
            "changes are published at COMMIT, so it would read the object as before. The transaction was rolled "
            "back, nothing of it stays: read it after COMMIT")
        self.statement = statement
        self.name = name
        self.changed_by = changed_by


class TransactionAbortedError(TransactionError):
    """A statement of the transaction failed, so the transaction was rolled back whole; later statements and COMMIT
    are refused until ROLLBACK (or the end of the ``with`` block) closes it, as PostgreSQL refuses them."""

    def __init__(self, what: str, cause: BaseException | None) -> None:
        super().__init__(f"{what}: the transaction was rolled back after an error ({cause}); ROLLBACK ends it")
        self.what = what
        self.cause = cause
