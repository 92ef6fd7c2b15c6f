"""CREATE OR REPLACE of a relation whatever its kind now (``CREATE OR REPLACE /* spark_ddl_log: any kind */ TABLE
| VIEW``): what dbt means by materializing a model. Of the same kind (or a free name) it is the plain CREATE OR
REPLACE TABLE or VIEW; of the other kind, a view becomes a table (or a table a view) in one atomic statement in which
the name is never missing: the plan of :mod:`replace_table.plans.kind_change`, the definition swap across kinds."""

from __future__ import annotations

import re
from typing import ClassVar

import attrs

from actions.context import ActionContext
from actions.results import StatementResult
from chains.lock_keys import LockKeys
from ddl_log.engine.create_statements import CreateOrReplaceTable
from ddl_log.engine.typed import Statement
from ddl_log.engine.views import CreateView
from replace_table.plans.kind_change import change_kind
from storage.catalogs.lookup_scope import reuse_lookups
from storage.catalogs.names import TableName

ANY_KIND = "/* spark_ddl_log: any kind */"
"""The marker, after ``CREATE OR REPLACE``, that makes the statement replace a relation of either kind: a comment,
so Spark's parser reads the statement as it is, and the binlog (and a replica replaying it) keeps it."""
_ANY_KIND = re.compile(r"/\*\s*spark_ddl_log\s*:\s*any\s+kind\s*\*/", re.IGNORECASE)


def any_kind_marked(text: str) -> bool:
    """Whether ``text`` (a statement's head) holds the ``ANY KIND`` marker."""
    return _ANY_KIND.search(text) is not None


@attrs.frozen(kw_only=True)
class CreateOrReplaceAnyKind(Statement):
    """CREATE OR REPLACE TABLE or VIEW of a name that may hold the other kind (see the module)."""

    label: ClassVar[str] = "CREATE OR REPLACE"
    name: TableName
    target: CreateOrReplaceTable | CreateView

    @classmethod
    def as_table(cls, name: str | TableName, *, text: str | None = None, **table: object) -> CreateOrReplaceAnyKind:
        inner = CreateOrReplaceTable.of(name, **table)  # type: ignore[arg-type]
        return cls(name=inner.name, target=inner, text=text)

    @classmethod
    def as_view(cls, name: str | TableName, *, as_select: str, text: str | None = None,
                **view: object) -> CreateOrReplaceAnyKind:
        inner = CreateView.of(name, as_select=as_select, or_replace=True, **view)  # type: ignore[arg-type]
        return cls(name=inner.name, target=inner, text=text)

    def canonical_text(self) -> str:
        head, _, rest = self.target.canonical_text().partition(" OR REPLACE ")
        return f"{head} OR REPLACE {ANY_KIND} {rest}"

    def lock_keys(self) -> LockKeys:
        return self.target.lock_keys()

    def run(self, ctx: ActionContext) -> StatementResult:
        target = attrs.evolve(self.target, text=self.binlog_text)
        with reuse_lookups():  # the kind check's lookup serves the statement's own checks
            if isinstance(target, CreateOrReplaceTable):
                other_kind = ctx.catalog.views.view_definition(self.name) is not None
            else:
                other_kind = ctx.catalog.names.identity(self.name) is not None
            if not other_kind:
                return target.run(ctx)
        spec_or_view = target.spec if isinstance(target, CreateOrReplaceTable) else target.definition
        return change_kind(ctx, self.binlog_text, self.name, spec_or_view, verb="CREATE OR REPLACE")
