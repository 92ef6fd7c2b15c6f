"""The create path of a replace (ORIG does not exist: an atomic CREATE), whose last steps the rename path shares:
TMP, built and filled (steps 1-3, :mod:`~replace_table.plans.replace_run`), becomes ORIG.

No data moves. Where the catalog keeps TMP's definition whole (a managed data source table: ``Versions.version_of``),
ORIG is created with it, files where TMP wrote them, in one metastore call (three for a partitioned table, never
readable without its partitions), and TMP leaves the catalog after the commit, its files staying ORIG's. So every
new version lives at a directory of its own that no table name maps to, and a kept version at ``<database>/<name>``
(a dropped table's) never has to move for a new table of that name. Only where the definition cannot be kept whole
(no handle on the metastore: Spark Connect) is TMP renamed to ORIG, and the metastore moves its directory to
``<database>/<name>`` as it does for Spark's own RENAME; that rename needs the name's directory free first
(``free_name``, the name-hold pre-flight: :func:`actions.name_holds.free_directory_of_dropped`).

====  ===========================  =========================================================================
step  name                         effect
====  ===========================  =========================================================================
4     ``free_name``                only before a rename into a name a dropped table held: its kept versions at
                                   ``<database>/<name>`` move aside
5     ``log_orig_create``          C: log CREATE_TABLE of ORIG (undo drops the new ORIG); by definition also
                                   F (linked to C): FORGET_TABLE of TMP. One durable write
6     ``install``                  ORIG := TMP's definition (created), or rename TMP -> ORIG
7     ``commit``                   store XID in C, write the binlog event (commit point), close C
8     ``forget_tmp``               replay F: TMP leaves the metastore, its files stay (ORIG's)
====  ===========================  =========================================================================

A *direct create* (a CTAS of an unpartitioned data source table, or a CREATE TABLE of columns of an unpartitioned
file source table, :func:`~replace_table.plans.write_path.choose_created`) makes no TMP table: after ``log_tmp``
(whose undo removes TMP's directory), ``log_orig_create`` logs ORIG's creation and ``install`` has Spark's own CTAS of
TMP write its rows at TMP's directory without creating TMP (a table of columns: Spark's data source resolves them,
as its CREATE TABLE does), then creates ORIG there from the record Spark would have made of TMP, its tag hidden, in
one metastore call; nothing to forget after the commit. Gone: TMP's create, its read and its removal.
"""

from __future__ import annotations

from actions.kinds.create_table import log_create_table
from actions.kinds.forget_table import log_forget_table
from replace_table.plans.replace_run import ReplaceRun


def log_orig_create(run: ReplaceRun) -> None:
    direct = run.write_job is not None
    definition = None if direct else run.tmp_definition()
    with run.log.batch() as log:
        if definition is not None:
            run.forget_chain = run.log.link()
            log_forget_table(log, run.forget_chain, run.tmp, run.log.tag)
        renamed = definition is None and not direct
        # the name's default directory is the statement's only where TMP is renamed into it (Spark Connect);
        # a new ORIG made at TMP's directory leaves it to whoever else may write there while the name is missing
        log_create_table(log, run.log.undo_chain(), run.orig, run.log.tag, owns_location=run.orig_exists and renamed,
                         renamed_from=run.tmp if renamed else None)


def install(run: ReplaceRun) -> None:
    if run.write_job is not None:  # a direct create: the CTAS's rows at TMP's directory, ORIG created there
        run.ctx.catalog.data.create_written(run.orig, run.write_job, run.log.tag, run.spec)
        return
    definition = run.tmp_definition()
    if definition is None:
        run.ctx.catalog.names.rename(run.tmp, run.orig)
    else:
        run.ctx.catalog.versions.install_version(run.orig, definition, run.log.tag, create=True)
    if run.keeps_statistics and run.orig_exists:  # the rename path of an in-place statement: BACKUP is the old one
        run.ctx.catalog.swaps.settle_statistics(run.orig, run.backup)


def forget_tmp(run: ReplaceRun) -> None:
    """Replay F: TMP leaves the metastore (its files are ORIG's)."""
    run.log.retire([run.forget_chain])
