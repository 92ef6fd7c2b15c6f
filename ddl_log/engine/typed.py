"""A statement as a typed value: the one way into the engine, from the Python API, the SQL front end, recovery and
replication alike. Each statement type is declared once, with all it is: its fields (names as parsed
:class:`~storage.catalogs.names.TableName`), the metadata locks it takes (:meth:`Statement.lock_keys`), the text the
binlog records (the statement as written, or :meth:`Statement.canonical_text`), how it runs (:meth:`Statement.run`)
and the result it returns (:class:`~actions.results.StatementResult`). :meth:`Statement.of` is the constructor the
Python API and the SQL front end share (names as text or parsed, the rest as the API takes it).

The families: :mod:`~ddl_log.engine.create_statements` (statements that build a table version: CREATE [OR REPLACE],
TRUNCATE,
INSERT OVERWRITE), :mod:`~ddl_log.engine.tables` (RENAME, DROP, databases), :mod:`~ddl_log.engine.alter`,
:mod:`~ddl_log.engine.views` (views and functions).
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from actions.context import ActionContext
from actions.results import StatementResult
from chains.lock_keys import LockKeys
from storage.catalogs.names import TableName


@attrs.frozen
class Reads:
    """What a statement reads of the catalog beside the objects it changes: relations by name (a LIKE source),
    queries (SQL text, resolved against the current database), DataFrames (their analysed plans)."""

    names: tuple[TableName, ...] = ()
    queries: tuple[str, ...] = ()
    frames: tuple[Any, ...] = attrs.field(default=(), eq=False)

    @classmethod
    def of(cls, *, name: TableName | None = None, query: str | None = None, frame: Any = None) -> Reads:
        """The reads of a statement's optional parts (None: the statement has no such part)."""
        return cls(() if name is None else (name,), () if query is None else (query,),
                   () if frame is None else (frame,))


@attrs.frozen(kw_only=True)
class Statement:
    """One DDL statement. ``text``: as written (SQL) or given by the caller; None: :meth:`canonical_text`."""

    label: ClassVar[str] = ""
    """What the statement is, for messages (``"CREATE TABLE"``)."""
    transactional: ClassVar[bool] = False
    """Whether it may run inside a DDL transaction (:mod:`ddl_log.engine.transactions`): its commit is a step the
    transaction can defer, and its undo needs no statement after it."""
    text: str | None = None

    @classmethod
    def of(cls, *args: Any, **kwargs: Any) -> Statement:
        """The statement from the Python API's arguments (names as ``db.name`` text or :class:`TableName`)."""
        return cls(*args, **kwargs)

    @property
    def binlog_text(self) -> str:
        """What the binlog records: the statement as written, else its canonical text."""
        return self.text if self.text is not None else self.canonical_text()

    def canonical_text(self) -> str:
        raise NotImplementedError

    def lock_keys(self) -> LockKeys:
        raise NotImplementedError

    def changed_keys(self) -> tuple[str, ...]:
        """The lock keys of the objects the statement changes (a transaction changes each once): its exclusive
        keys, less those it only reads (a LIKE source)."""
        return self.lock_keys().exclusive

    def reads(self) -> Reads:
        """What the statement reads (a transaction refuses reading what it changed but has not published yet)."""
        return Reads()

    def run(self, ctx: ActionContext) -> StatementResult:
        """Run under the statement's locks (the caller holds them): log, act, commit or undo."""
        raise NotImplementedError
