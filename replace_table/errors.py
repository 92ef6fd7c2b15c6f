from __future__ import annotations

from storage.errors import DDLLogError


class StatementFailedError(DDLLogError):
    """A statement failed and was rolled back: no table, data, log or binlog change remains.

    ``cause`` is the underlying error (also chained as ``__cause__``); ``name`` the object the statement was about.
    """

    def __init__(self, statement: str, name: str, cause: BaseException, *, rollback_error: BaseException | None = None):
        message = f"{statement} failed for {name}: {cause}"
        if rollback_error is not None:
            message += f" (rollback incomplete, recovery will finish it: {rollback_error})"
        super().__init__(message)
        self.statement = statement
        self.name = name
        self.cause = cause
        self.rollback_error = rollback_error
