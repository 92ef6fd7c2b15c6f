"""INSERT INTO, crash-atomic: all the new rows or none, whatever instant the process dies. The statement checks the
table here; its plans (:mod:`replace_table.plans.insert_into`) write the rows in place under a job id logged first
(undone by deleting the job's files), or aside in a work table whose files are moved in after the commit point.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

from actions.context import ActionContext
from chains.lock_keys import LockKeys
from ddl_log.engine.lookups import missing_table
from ddl_log.engine.texts import sql_string
from ddl_log.engine.typed import Statement
from replace_table.plans.insert_into import InsertResult, insert_rows
from storage.catalogs.interface import Fill, TableMetadata
from storage.catalogs.lookup_scope import reuse_lookups
from storage.catalogs.names import TableName, quote_ident
from storage.errors import InvalidNameError, NotAtomicError


@attrs.frozen(kw_only=True)
class InsertInto(Statement):
    """INSERT INTO [TABLE] t [PARTITION (...)] [(columns)] SELECT ... | VALUES ...: the rows a query or a DataFrame
    gives appended to ``t``, all or none (see the module). ``fill``: what goes in (the SQL text after the table's
    name as written, or a SELECT / DataFrame with a ``partition`` spec from the Python API; a replica's copy of a
    source INSERT's files)."""

    label: ClassVar[str] = "INSERT INTO"
    name: TableName
    fill: Fill = attrs.field(eq=False)

    @classmethod
    def of(cls, name: str | TableName, *, as_select: str | None = None, df: Any = None, body: str | None = None,
           partition: Mapping[str, str | None] | None = None, text: str | None = None) -> InsertInto:
        if sum(value is not None for value in (as_select, df, body)) != 1:
            raise InvalidNameError("give exactly one of as_select, df", str(name))
        spec = tuple((str(c), None if v is None else str(v)) for c, v in (partition or {}).items())
        return cls(name=TableName.of(name), fill=Fill(as_select=as_select, df=df, insert_text=body, partition=spec),
                   text=text)

    def canonical_text(self) -> str:
        text = f"INSERT INTO TABLE {self.name.quoted}"
        if self.fill.insert_text is not None:
            return f"{text} {self.fill.insert_text}"
        if self.fill.partition:
            parts = [quote_ident(c) if v is None else f"{quote_ident(c)}={sql_string(v)}"
                     for c, v in self.fill.partition]
            text += f" PARTITION ({', '.join(parts)})"
        return text + " " + (self.fill.as_select or "/* DataFrame */")

    def lock_keys(self) -> LockKeys:
        return LockKeys.objects(self.name)

    def run(self, ctx: ActionContext) -> InsertResult:
        with reuse_lookups():  # the identity's lookup gives the in-place job its table's location too
            found = ctx.catalog.definitions.recorded_definition(self.name)  # one metastore call on a classic session
            if found is None:
                raise missing_table(ctx.catalog, self.name)
            metadata = found[1]
            if metadata.external:
                raise NotAtomicError(f"INSERT INTO the external table {self.name} cannot be atomic: its files live "
                                     "at the table's own location, outside the log's (allow_non_atomic=True or "
                                     "--allow-non-atomic runs Spark's own statement)", str(self.name))
            self.check(metadata)
            # what Spark refuses, refused before anything is logged (issue 36, finding 10: not even briefly); the
            # in-place INSERT then runs the plan this analysis made (the statement analysed once, as by plain Spark)
            ctx.catalog.data.check_insert(self.name, self.fill)
            return insert_rows(ctx, self.binlog_text, self.name, self.fill, metadata)

    def check(self, metadata: TableMetadata) -> None:
        """What the table must be beyond an existing managed table (nothing here; a replica checks its shape)."""
