"""The write path of a replace (INSERT OVERWRITE of an unpartitioned table, or of a partitioned one, static partition
values or not, where ``Swaps.plan_write_swap`` finds
nothing against it and the catalog can write a version outside any table, ``DataJobs.prepare_write``): no TMP table.
The swap path's steps with TMP's directory in its place: ``log_tmp`` (C: TMP's creation, whose undo removes the new
directory, partly written or whole), ``fill_tmp`` (the job writes the new rows into the directory), ``log_swap`` (no
D: there is no TMP to forget), ``exchange`` (ORIG := its own definition at the directory, its statistics kept, one
metastore call; a partitioned table's partitions, those the job wrote and those it keeps, switched with it in one
metastore transaction), ``commit``, ``retire``. No data is renamed, and the metastore sees one call, as it does
for Spark's own INSERT OVERWRITE (:mod:`~replace_table.plans.swap_path`, :mod:`~replace_table.plans.empty_path`).

The same for a CREATE OR REPLACE AS SELECT of an unpartitioned table by an unpartitioned data source table
(:func:`choose_replaced`): ``fill_tmp`` has Spark's own CTAS of TMP write TMP's directory without creating TMP, which
gives the record Spark would have made of TMP; ``exchange`` installs it on ORIG (its tag hidden, one metastore call),
as the swap path installs TMP's record read back: gone are TMP's create, its read and its removal after the commit.

And for a new table (:func:`choose_created`, the create path's *direct create*): ORIG is created from that record
at TMP's directory (:mod:`~replace_table.plans.create_path`)."""

from __future__ import annotations

from replace_table.plans.replace_run import ReplaceRun, made_by_its_create, writes_by_ctas


def choose_write(run: ReplaceRun) -> None:
    """Reads only, before anything is logged: the write path where the catalog can take it (the statement's INSERT
    analysed by the engine here: what it refuses is refused before anything is logged); else nothing changes."""
    if not run.orig_exists or run.path is not None or run.fill is None or run.make_tmp or run.fill_tmp:
        return
    catalog = run.ctx.catalog
    plan = catalog.swaps.plan_write_swap(run.orig, run.tmp, run.log.tag)
    if plan.refusal is not None or plan.directory is None:
        return
    job = catalog.data.prepare_write(run.orig, run.fill, plan.directory)
    if job is None:
        return
    run.plan, run.write_job, run.path = plan, job, "write"


def choose_created(run: ReplaceRun) -> None:
    """Reads only, before anything is logged: a CTAS or a CREATE TABLE of columns creating ORIG (the create path)
    takes the direct create where the catalog can, outside a transaction (whose COMMIT would run the CTAS's job
    inside its publish window)."""
    if run.path != "create" or not made_by_its_create(run):
        return
    run.write_job = run.ctx.catalog.data.prepare_create(run.orig, run.tmp, run.spec, run.log.tag)


def choose_replaced(run: ReplaceRun) -> None:
    """Reads only, before anything is logged: a CTAS replacing ORIG takes the write path where the catalog can
    (ORIG's swap planned at TMP's directory, the CTAS taken as a direct create: what Spark refuses is refused by the
    statement's check before), outside a transaction (whose COMMIT installs a TMP built aside)."""
    if not run.orig_exists or run.path is not None or run.keeps_statistics or not writes_by_ctas(run):
        return
    catalog = run.ctx.catalog
    plan = catalog.swaps.plan_created_swap(run.orig, run.tmp)
    if plan.refusal is not None or plan.directory is None:
        return
    job = catalog.data.prepare_create(run.orig, run.tmp, run.spec, run.log.tag)
    if job is None:
        return
    run.plan, run.write_job, run.path = plan, job, "write"
