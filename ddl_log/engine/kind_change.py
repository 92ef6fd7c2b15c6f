"""CREATE OR REPLACE of a relation whatever its kind now (``CREATE OR REPLACE /* spark_ddl_log: any kind */ TABLE
| VIEW``): what dbt means by materializing a model. Of the same kind (or a free name) it is the plain CREATE OR
REPLACE TABLE or VIEW; of the other kind, a view becomes a table (or a table a view) in one atomic statement in which
the name is never missing, the definition swap of :mod:`replace_table.machine` across kinds:

====  ===============  =======================================================================================
step  name             effect
====  ===============  =======================================================================================
1     ``log_tmp``      C: log CREATE_TABLE / CREATE_VIEW of TMP (undo drops it)
2     ``create_tmp``   build TMP, the new relation, tagged (a CTAS runs here: a failing SELECT ends it)
3     ``log_exchange`` D (linked to C): log FORGET_TABLE of the holder; C: log CHANGE_KIND. One durable write
4     ``exchange``     TMP := ORIG's old definition as a holder; ORIG := TMP's (one metastore call, kind included)
5     ``log_deletion`` a table's old directory: E (linked): DELETE_DATA, due after the grace period
6     ``commit``       the binlog event (commit point), C closed
7     ``retire``       replay D (the holder leaves the metastore, never files); E too when already due
====  ===============  =======================================================================================

Before the commit any error or crash undoes C (the old definition back on ORIG, the holder and TMP gone). The old
relation stays readable throughout; a table's old files outlive the statement by the grace period, for readers."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import ClassVar

import attrs

from actions.commit_or_undo import undo_unless_committed
from actions.context import ActionContext
from actions.kinds.change_kind import ChangeKindPayload, log_change_kind
from actions.kinds.create_table import log_create_table
from actions.kinds.create_view import log_create_view
from actions.kinds.delete_data import log_delete_data
from actions.kinds.forget_table import log_forget_table
from actions.locking import LockKeys
from actions.replay import replay_chain
from actions.results import StatementResult
from actions.version_tags import version_tag
from chains.binlog import BinlogEvent
from chains.commit import commit_chain
from chains.entries import ChainKind
from ddl_log.engine.create import CreateOrReplaceTable
from ddl_log.engine.typed import Statement
from ddl_log.engine.views import CreateView
from replace_table.machine import work_names
from storage import crashpoints
from storage.catalogs.interface import TAG_PROPERTY, ViewDefinition
from storage.catalogs.kind_exchange import KindExchange, kind_exchange_of
from storage.catalogs.lookup_scope import reuse_lookups
from storage.catalogs.names import TableName
from storage.errors import DDLLogError, NotAtomicError

ANY_KIND = "/* spark_ddl_log: any kind */"
"""The marker, after ``CREATE OR REPLACE``, that makes the statement replace a relation of either kind: a comment,
so Spark's parser reads the statement as it is, and the binlog (and a replica replaying it) keeps it."""
_ANY_KIND = re.compile(r"/\*\s*spark_ddl_log\s*:\s*any\s+kind\s*\*/", re.IGNORECASE)


def any_kind_marked(text: str) -> bool:
    """Whether ``text`` (a statement's head) holds the ``ANY KIND`` marker."""
    return _ANY_KIND.search(text) is not None
STEPS = ("log_tmp", "create_tmp", "log_exchange", "exchange", "log_deletion", "commit", "retire")
POINTS = {step: (crashpoints.declare(f"kind_change.{step}.before", f"kind change: before step {step}"),
                 crashpoints.declare(f"kind_change.{step}.after", f"kind change: after step {step}"))
          for step in STEPS}
BETWEEN = crashpoints.declare("kind_change.exchange.between",
                              "TMP holds ORIG's old definition; ORIG has not taken the new one yet")


def step(name: str) -> None:
    POINTS[name][0]()


def stepped(name: str) -> None:
    POINTS[name][1]()


class KindChange:
    """One kind change of ``orig``: to the table ``target.spec`` or to the view ``target.definition``."""

    def __init__(self, ctx: ActionContext, orig: TableName, target: CreateOrReplaceTable | CreateView,
                 statement: str) -> None:
        self.ctx, self.orig, self.target, self.statement = ctx, orig, target, statement
        self.xid = ctx.log.allocate_id() if ctx.binlog is None else ctx.binlog.new_xid()
        self.tmp, _ = work_names(orig, self.xid)
        self.tag = version_tag(self.xid, target.label)
        self.holder_tag = f"{self.tag}:holder"
        self.chains: list[int] = []
        """The undo chain C, then the linked forward chains D (and E)."""
        self.event: BinlogEvent | None = None
        self.old_location: str | None = None

    def run(self) -> StatementResult:
        ctx, log, orig, tmp = self.ctx, self.ctx.log, self.orig, self.tmp
        catalog = kind_exchange_of(ctx.catalog, orig)
        if isinstance(self.target, CreateOrReplaceTable):
            ctx.catalog.check_create(self.target.spec, orig)  # refused before anything is logged
        target = self.target
        undo = log.new_chain(ChainKind.UNDO, self.statement)

        def log_tmp() -> None:
            if isinstance(target, CreateOrReplaceTable):
                log_create_table(log, undo, tmp, self.tag, owns_location=True)
            else:
                log_create_view(log, undo, tmp, None, self._tagged_view(target.definition))

        def create_tmp() -> None:
            if isinstance(target, CreateOrReplaceTable):
                ctx.catalog.create(tmp, target.spec, self.tag)
            else:
                ctx.catalog.create_view(tmp, self._tagged_view(target.definition), replace=False)

        orig_tag = catalog.relation_tag(orig)
        try:
            self._do("log_tmp", log_tmp)
            self._do("create_tmp", create_tmp)
            refusal = catalog.kind_refusal(orig, tmp)
            if refusal is not None:
                raise NotAtomicError(f"cannot change the kind of {orig} in one step: {refusal}", str(orig))
            self._do("log_exchange", lambda: self._log_exchange(undo, orig_tag))
            self._do("exchange", lambda: self._exchange(catalog))
            if self.old_location is not None:
                self._do("log_deletion", lambda: self._log_deletion(undo))
            self._do("commit", lambda: self._commit(undo))
        except Exception as exc:
            error = undo_unless_committed(ctx, undo, exc, verb="CREATE OR REPLACE", subject=str(orig),
                                          cancel=tuple(self.chains[1:]))
            if error is not None:
                raise error from exc
            return StatementResult(objects=(str(orig),), detail="changed kind; recovery retires the old one")
        self._do("retire", self._retire)
        kind = "table" if isinstance(target, CreateOrReplaceTable) else "view"
        return StatementResult(objects=(str(orig),), event=self.event,
                               detail=f"replaced by a {kind} in one step (the name never missing)")

    def _do(self, name: str, work: Callable[[], object]) -> None:
        step(name)
        work()
        stepped(name)

    def _exchange(self, catalog: KindExchange) -> None:
        self.old_location = catalog.exchange_kinds(self.orig, self.tmp, self.holder_tag, between=BETWEEN)

    def _commit(self, undo: int) -> None:
        self.event = commit_chain(self.ctx.log, self.ctx.binlog, undo, self.statement, (str(self.orig),),
                                  xid=self.xid)

    def _tagged_view(self, definition: ViewDefinition) -> ViewDefinition:
        properties = {**definition.property_map, TAG_PROPERTY: self.tag}
        return attrs.evolve(definition, properties=tuple(sorted(properties.items())))

    def _log_exchange(self, undo: int, orig_tag: str | None) -> None:
        log = self.ctx.log
        with log.batch():
            forget = log.new_chain(ChainKind.FORWARD, self.statement, master=undo)
            self.chains[:] = [undo, forget]
            log_forget_table(log, forget, self.tmp, self.holder_tag)
            log_change_kind(log, undo, self.orig, self.tmp, ChangeKindPayload(self.tag, self.holder_tag, orig_tag))

    def _log_deletion(self, undo: int) -> None:
        location = self.old_location
        assert location is not None
        log = self.ctx.log
        with log.batch():
            delete = log.new_chain(ChainKind.FORWARD, self.statement, master=undo)
            self.chains.append(delete)
            log_delete_data(log, delete, self.orig, location, time.time() + self.ctx.grace_seconds)

    def _retire(self) -> None:
        due = self.chains[1:] if self.ctx.grace_seconds <= 0 else self.chains[1:2]
        for position in due:
            try:
                replay_chain(self.ctx, position)
            except DDLLogError:  # committed already: the chain stays active and recovery finishes it
                return


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
                other_kind = ctx.catalog.view_definition(self.name) is not None
            else:
                other_kind = ctx.catalog.identity(self.name) is not None
            if not other_kind:
                return target.run(ctx)
        return KindChange(ctx, self.name, target, self.binlog_text).run()
