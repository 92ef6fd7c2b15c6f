"""The swap path of a replace (ORIG exists and, once TMP is built, ``Swaps.plan_swap`` finds nothing against the
two; it reads ORIG's whole definition, partitions included, for the log): ORIG takes TMP's definition in one
metastore call, so the name never goes missing.

====  ===========================  =========================================================================
step  name                         effect
====  ===========================  =========================================================================
4     ``log_swap``                 C: log INSTALL_VERSION of ORIG with its old definition (undo puts it back
                                   in one call while ORIG has the new one); D: log FORGET_TABLE of TMP; E: log
                                   DELETE_DATA of ORIG's old directory, due when the kept version expires (the
                                   retention; the grace period at least). One durable write
5     ``exchange``                 ORIG := TMP's definition (one metastore call, two for a partitioned table;
                                   readers see the old table or the new one, whole)
6     ``commit``                   store XID in C, write the binlog event (commit point), close C
7     ``retire``                   replay D (TMP leaves the metastore, its files stay: they are ORIG's); replay
                                   E too when it is due already (a retention of 0), else it waits
====  ===========================  =========================================================================

Steps 1-3 build TMP (:mod:`~replace_table.plans.replace_run`); the empty path (:mod:`~replace_table.plans.empty_path`)
takes steps 4-7 with no TMP table."""

from __future__ import annotations

import time

from actions.kept_versions import retention_of
from actions.kinds.delete_data import log_delete_data
from actions.kinds.forget_table import log_forget_table
from actions.kinds.install_version import log_install_version
from actions.version_history import kept_version
from replace_table.plans.replace_run import ReplaceRun, builds_tmp, change_orig
from storage import crashpoints
from storage.errors import CatalogError

BETWEEN_SWAP_CALLS = crashpoints.declare(
    "replace.exchange.between", "ORIG's old definition is logged; ORIG has not taken the new one yet")


def log_swap(run: ReplaceRun) -> None:
    assert run.plan is not None
    old = run.plan.old
    if old is None:
        raise CatalogError(f"the definition of {run.orig} cannot be kept whole", str(run.orig))
    run.old_version = old  # kept in the log twice: undo's INSTALL_VERSION, and RESTORE's kept version
    run.old_location = old.location
    run.retention = retention_of(run.ctx, old)
    kept = kept_version(run.ctx, old, run.orig, run.verb, dropped=False, xid=run.log.xid)
    run.kept_number = kept.number
    with run.log.batch() as log:
        if builds_tmp(run):  # TMP was made: it leaves after the commit
            run.drop_chain = run.log.link()
            log_forget_table(log, run.drop_chain, run.tmp, run.log.tag)
        run.delete_chain = run.log.link()
        log_delete_data(log, run.delete_chain, run.orig, old.location, time.time() + run.retention, kept)
        log_install_version(log, run.log.undo_chain(), run.orig, run.log.tag, old.definition,
                            previous_identity=run.orig_identity, previous_location=old.location)


def exchange(run: ReplaceRun) -> None:
    assert run.plan is not None
    plan = run.plan
    change_orig(run, lambda: run.ctx.catalog.swaps.exchange_definitions(run.orig, run.tmp, plan,
                                                                         between=BETWEEN_SWAP_CALLS))
