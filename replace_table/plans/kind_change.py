"""A relation replaced by one of the other kind (a view by a table, a table by a view) in one atomic statement in
which the name is never missing: the definition swap of :mod:`~replace_table.plans.swap_path` across kinds.

====  ================  =======================================================================================
step  name              effect
====  ================  =======================================================================================
1     ``log_tmp``       C: log CREATE_TABLE / CREATE_VIEW of TMP (undo drops it)
2     ``create_tmp``    build TMP, the new relation, tagged (a CTAS runs here: a failing SELECT ends it)
3     ``log_exchange``  (refused, nothing left, where the catalog cannot exchange the two in one call) D (linked
                        to C): log FORGET_TABLE of the holder; C: log CHANGE_KIND. One durable write
4     ``exchange``      TMP := ORIG's old definition as a holder; ORIG := TMP's (one metastore call, kind
                        included)
5     ``log_deletion``  a table's old directory: E (linked): DELETE_DATA, due after the grace period
6     ``commit``        the binlog event (commit point), C closed
7     ``retire``        replay D (the holder leaves the metastore, never files); E too when already due
====  ================  =======================================================================================

Before the commit any error or crash undoes C (the old definition back on ORIG, the holder and TMP gone). The old
relation stays readable throughout; a table's old files outlive the statement by the grace period, for readers."""

from __future__ import annotations

import time

import attrs

from actions.context import ActionContext
from actions.kinds.change_kind import ChangeKindPayload, log_change_kind
from actions.kinds.create_table import log_create_table
from actions.kinds.create_view import log_create_view
from actions.kinds.delete_data import log_delete_data
from actions.kinds.forget_table import log_forget_table
from actions.results import StatementResult
from replace_table.machine import Plan, Step, run_plan
from replace_table.plans.replace_run import change_unchanged
from replace_table.statement_log import StatementLog
from storage import crashpoints
from storage.catalogs.interface import TAG_PROPERTY, TableSpec, ViewDefinition
from storage.catalogs.names import TableName
from storage.catalogs.ports import KindExchange
from storage.errors import NotAtomicError

BETWEEN = crashpoints.declare("kind_change.exchange.between",
                              "TMP holds ORIG's old definition; ORIG has not taken the new one yet")


@attrs.define
class KindChangeRun:
    """``orig`` becomes the table ``target`` (its spec) or the view ``target`` (its definition)."""

    ctx: ActionContext
    log: StatementLog
    kinds: KindExchange
    orig: TableName
    target: TableSpec | ViewDefinition
    tmp: TableName = attrs.field(init=False)
    orig_tag: str | None = None
    orig_identity: str | None = None
    """ORIG's identity at the statement's start (:func:`relation_identity`), read again before the exchange."""
    old_location: str | None = None
    forget_chain: int | None = None
    delete_chain: int | None = None

    def __attrs_post_init__(self) -> None:
        self.tmp, _ = self.log.work_names(self.orig)

    @property
    def holder_tag(self) -> str:
        return f"{self.log.tag}:holder"

    def tagged_view(self, definition: ViewDefinition) -> ViewDefinition:
        properties = {**definition.property_map, TAG_PROPERTY: self.log.tag}
        return attrs.evolve(definition, properties=tuple(sorted(properties.items())))


def log_tmp(run: KindChangeRun) -> None:
    if isinstance(run.target, TableSpec):
        log_create_table(run.ctx.log, run.log.undo_chain(), run.tmp, run.log.tag, owns_location=True)
    else:
        log_create_view(run.ctx.log, run.log.undo_chain(), run.tmp, None, run.tagged_view(run.target))


def create_tmp(run: KindChangeRun) -> None:
    if isinstance(run.target, TableSpec):
        run.ctx.catalog.data.create(run.tmp, run.target, run.log.tag)
    else:
        run.ctx.catalog.views.create_view(run.tmp, run.tagged_view(run.target), replace=False)


def log_exchange(run: KindChangeRun) -> None:
    refusal = run.kinds.kind_refusal(run.orig, run.tmp)
    if refusal is not None:
        raise NotAtomicError(f"cannot change the kind of {run.orig} in one step: {refusal}", str(run.orig))
    with run.log.batch() as log:
        run.forget_chain = run.log.link()
        log_forget_table(log, run.forget_chain, run.tmp, run.holder_tag)
        log_change_kind(log, run.log.undo_chain(), run.orig, run.tmp,
                        ChangeKindPayload(run.log.tag, run.holder_tag, run.orig_tag))


def relation_identity(run: KindChangeRun, *, now: bool) -> str | None:
    """Who ORIG is: the table's identity when the statement makes it a view, the view's when it makes it a table
    (None: no relation of that kind holds the name); ``now``: read afresh."""
    if isinstance(run.target, TableSpec):
        views = run.ctx.catalog.views
        return views.current_view_identity(run.orig) if now else views.view_identity(run.orig)
    names = run.ctx.catalog.names
    return names.current_identity(run.orig) if now else names.identity(run.orig)


def exchange(run: KindChangeRun) -> None:
    """ORIG and TMP exchange definitions and kinds, unless a writer outside the log (plain Spark) dropped ORIG and
    made another relation under the name while TMP was built (a CTAS's job): never install over it."""
    def install() -> None:
        run.old_location = run.kinds.exchange_kinds(run.orig, run.tmp, run.holder_tag, between=BETWEEN)

    change_unchanged(run.orig, run.orig_identity, lambda: relation_identity(run, now=True), install)


def leaves_files(run: KindChangeRun) -> bool:
    return run.old_location is not None


def log_deletion(run: KindChangeRun) -> None:
    assert run.old_location is not None
    with run.log.batch() as log:
        run.delete_chain = run.log.link()
        log_delete_data(log, run.delete_chain, run.orig, run.old_location, time.time() + run.ctx.grace_seconds)


def commit(run: KindChangeRun) -> None:
    run.log.commit((str(run.orig),))


def retire(run: KindChangeRun) -> None:
    run.log.retire([run.forget_chain, run.delete_chain if run.ctx.grace_seconds <= 0 else None])


KIND_CHANGE = Plan("kind_change", [
    Step("log_tmp", "log", log_tmp), Step("create_tmp", "act", create_tmp), Step("log_exchange", "log", log_exchange),
    Step("exchange", "act", exchange), Step("log_deletion", "log", log_deletion, when=leaves_files),
    Step("commit", "commit", commit, after=("exchange", "log_deletion")), Step("retire", "retire", retire),
], describe="kind change: {when} step {step}")


def change_kind(ctx: ActionContext, statement: str, orig: TableName, target: TableSpec | ViewDefinition, *,
                verb: str) -> StatementResult:
    """Replace the relation ``orig`` by one of the other kind (the module's table)."""
    kinds = ctx.catalog.kinds
    if isinstance(target, TableSpec):
        ctx.catalog.data.check_create(target, orig)  # refused before anything is logged
    log = StatementLog(ctx, statement, makes_version=verb)
    run = KindChangeRun(ctx, log, kinds, orig, target)
    run.orig_tag = kinds.relation_tag(orig)
    run.orig_identity = relation_identity(run, now=False)
    outcome = run_plan(KIND_CHANGE, run, log, verb=verb, subject=str(orig))
    if outcome.error is not None:
        return StatementResult(objects=(str(orig),), detail="changed kind; recovery retires the old one")
    kind = "table" if isinstance(target, TableSpec) else "view"
    return StatementResult(objects=(str(orig),), event=outcome.event,
                           detail=f"replaced by a {kind} in one step (the name never missing)")
