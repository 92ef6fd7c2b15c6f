"""RESTORE TABLE and UNDROP TABLE: a kept version (:mod:`actions.kept_versions`) made the table again in one catalog
call between log writes.

====  ===========  =========================================================================================
step  name         effect
====  ===========  =========================================================================================
1     ``log``      C: INSTALL_VERSION (undo: the previous definition back in one call, or the undropped table
                   removed without its files); linked to C, D: CLAIM_VERSION (after the commit the restored
                   version's deletion is cancelled: its files are the table's again) and, for RESTORE, E: the
                   replaced current version kept (DELETE_DATA with its definition), so a RESTORE can be undone by
                   another. One durable write
2     ``do``       the version installed (one catalog call)
3     ``commit``   the XID in C, the binlog event with the installed version (replicas install its files), C
                   closed
4     ``claim``    replay D
====  ===========  =========================================================================================
"""

from __future__ import annotations

import time

import attrs

from actions.context import ActionContext
from actions.kept_versions import Version, retention_of
from actions.kinds.claim_version import log_claim_version
from actions.kinds.delete_data import KeptVersion, log_delete_data
from actions.kinds.install_version import log_install_version
from actions.results import StatementResult
from actions.version_history import kept_version
from actions.version_tags import version_tag
from replace_table.machine import Plan, Step, run_plan
from replace_table.plans.recorded_version import installed_version
from replace_table.plans.undo import committed_anyway
from replace_table.statement_log import StatementLog
from storage.catalogs.interface import TableVersion
from storage.catalogs.names import TableName


@attrs.frozen(kw_only=True)
class VersionResult(StatementResult):
    """RESTORE / UNDROP: ``version`` the number of the version brought back (current again under it; None: a
    RESTORE of the current version, made outside the log, which changes nothing); ``kept``: the number the replaced
    current version is kept under (RESTORE; None when none is kept)."""

    version: int | None
    kept: int | None = None


@attrs.define
class InstallRun:
    """``version`` installed as ``name`` over ``current`` (None: UNDROP, the table created)."""

    ctx: ActionContext
    log: StatementLog
    name: TableName
    version: Version
    current: TableVersion | None
    operation: str
    tag: str = ""
    claim: int | None = None
    kept: int | None = None
    replaced: KeptVersion | None = None
    """The replaced current version as it is kept (RESTORE), read before anything is logged."""


def log_install(run: InstallRun) -> None:
    current = run.current
    with run.log.batch() as log:
        log_install_version(log, run.log.undo_chain(), run.name, run.tag,
                            None if current is None else current.definition)
        run.claim = run.log.link()
        log_claim_version(log, run.claim, run.name, run.version.chain)
        if current is not None and run.replaced is not None:
            run.kept = run.log.link()
            log_delete_data(log, run.kept, run.name, current.location, time.time() + retention_of(run.ctx, current),
                            run.replaced)


def install(run: InstallRun) -> None:
    run.ctx.catalog.versions.install_version(run.name, run.version.kept.definition, run.tag, create=run.current is None)


def commit(run: InstallRun) -> None:
    run.log.commit((str(run.name),), version=installed_version(run.ctx, run.name))


def claim(run: InstallRun) -> None:
    run.log.retire([run.claim])


def install_plan(prefix: str) -> Plan[InstallRun]:
    return Plan(prefix, [Step("log", "log", log_install), Step("do", "act", install),
                         Step("commit", "commit", commit, points=False), Step("claim", "retire", claim)])


RESTORE = install_plan("restore")
UNDROP = install_plan("undrop")


def install_kept_version(ctx: ActionContext, plan: Plan[InstallRun], statement: str, name: TableName,
                         version: Version, current: TableVersion | None, *, verb: str) -> VersionResult:
    """RESTORE (``plan`` :data:`RESTORE`, over ``current``) or UNDROP (:data:`UNDROP`, ``current`` None) of the
    checked ``version`` of ``name``."""
    log = StatementLog(ctx, statement)
    kept = version.kept
    periods = (*kept.periods, (kept.kept_at if kept.made_at is None else kept.made_at, kept.kept_at, kept.dropped))
    tag = version_tag(version.number, verb, xid=log.xid, periods=periods)  # current again under its own number
    replaced = None if current is None else kept_version(ctx, current, name, verb, dropped=False, xid=log.xid)
    run = InstallRun(ctx, log, name, version, current, verb, tag=tag, replaced=replaced)
    outcome = run_plan(plan, run, log, verb=verb, subject=str(name))
    event = committed_anyway(outcome, log, verb=verb, subject=str(name))
    number = None if replaced is None else (replaced.number if replaced.number is not None else run.kept)
    return VersionResult(objects=(str(name),), event=event, version=version.number, kept=number,
                         detail=f"version {version.number} of {name} restored")
