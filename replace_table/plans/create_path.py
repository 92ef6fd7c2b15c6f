"""The create path of a replace (ORIG does not exist: an atomic CREATE), whose last steps the rename path shares:
TMP, built and filled (steps 1-3, :mod:`~replace_table.plans.replace_run`), renamed to ORIG.

====  ===========================  =========================================================================
step  name                         effect
====  ===========================  =========================================================================
4     ``log_orig_create``          C: log CREATE_TABLE of ORIG (undo drops the new ORIG)
5     ``install``                  rename TMP -> ORIG
6     ``commit``                   store XID in C, write the binlog event (commit point), close C
====  ===========================  =========================================================================
"""

from __future__ import annotations

from actions.kinds.create_table import log_create_table
from replace_table.plans.replace_run import ReplaceRun


def log_orig_create(run: ReplaceRun) -> None:
    log_create_table(run.ctx.log, run.log.undo_chain(), run.orig, run.log.tag, owns_location=run.orig_exists,
                     renamed_from=run.tmp)


def install(run: ReplaceRun) -> None:
    run.ctx.catalog.names.rename(run.tmp, run.orig)
