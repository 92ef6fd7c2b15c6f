"""The rename path of a replace (Spark Connect, Hive serde or external tables, a change of partition columns: see
``ReplaceResult.swap_refused``): ORIG renamed to BACKUP, TMP made ORIG; the name is missing between the two.

No data moves where the catalog has the metastore client: ORIG's rename to BACKUP keeps its directory (at its
default directory, where the metastore's own rename would move it, BACKUP is created with ORIG's whole definition
and ORIG then leaves the metastore, its files staying:
:meth:`~storage.catalogs.spark.hms.swap.SparkSwap.rename_in_place`; a crash between leaves both names at one
directory, which the rename's undo settles), and ORIG is created with TMP's definition
(:mod:`~replace_table.plans.create_path`).

====  ===========================  =========================================================================
step  name                         effect
====  ===========================  =========================================================================
4     ``log_rename``               link D to C; D: log DROP_TABLE of BACKUP (its files kept when ORIG's definition
                                   can be kept whole); C: log RENAME_TABLE ORIG -> BACKUP
5     ``move_orig``                rename ORIG -> BACKUP, its directory kept (the name is missing until step 8)
6     ``log_kept``                 E (linked to C): log DELETE_DATA of BACKUP's directory with its definition, the
                                   previous version kept for the retention (RESTORE); nothing when it cannot be
                                   kept whole (Hive serde, external)
7     ``log_orig_create``          C: log CREATE_TABLE of ORIG (undo drops the new ORIG,
                                   :mod:`~replace_table.plans.create_path`)
8     ``install``                  ORIG := TMP's definition, or rename TMP -> ORIG
                                   (:mod:`~replace_table.plans.create_path`)
9     ``commit``                   store XID in C, write the binlog event (commit point), close C
10    ``drop_backup``              replay D: BACKUP leaves the catalog (with its files when none are kept); E too
                                   when already due
====  ===========================  =========================================================================
"""

from __future__ import annotations

import time

from actions.kept_versions import retention_of
from actions.kinds.delete_data import log_delete_data
from actions.kinds.drop_table import log_drop_table
from actions.kinds.rename_table import log_rename_table
from actions.version_history import kept_version
from replace_table.plans.replace_run import ReplaceRun, change_orig
from storage.errors import CatalogError


def log_rename(run: ReplaceRun) -> None:
    run.keep_backup = run.ctx.catalog.versions.version_of(run.orig) is not None
    with run.log.batch() as log:
        run.drop_chain = run.log.link()
        log_drop_table(log, run.drop_chain, run.backup, run.orig_identity, keep_files=run.keep_backup)
        log_rename_table(log, run.log.undo_chain(), run.orig, run.backup, run.orig_identity, owns_location=True)


def move_orig(run: ReplaceRun) -> None:
    # ORIG's directory stays where it is unless TMP must be renamed into it (a definition not created whole)
    keep_directory = run.tmp_definition() is not None
    change_orig(run, lambda: run.ctx.catalog.names.rename(run.orig, run.backup, keep_directory=keep_directory))


def log_kept(run: ReplaceRun) -> None:
    if not run.keep_backup:
        return
    catalog = run.ctx.catalog
    old = catalog.versions.version_of(run.backup)  # where the rename put the files (the metastore may move them)
    location = old.location if old is not None else catalog.definitions.table_location(run.backup)
    if location is None:
        raise CatalogError(f"cannot find the files of {run.backup}", str(run.backup))
    run.old_version, run.old_location = old, location
    run.retention = run.ctx.grace_seconds if old is None else retention_of(run.ctx, old)
    kept = None if old is None else kept_version(run.ctx, old, run.orig, run.verb, dropped=False, xid=run.log.xid)
    run.kept_number = None if kept is None else kept.number
    with run.log.batch() as log:
        run.delete_chain = run.log.link()
        log_delete_data(log, run.delete_chain, run.orig, location, time.time() + run.retention, kept)
