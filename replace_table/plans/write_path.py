"""The write path of a replace (INSERT OVERWRITE of an unpartitioned table where ``Swaps.plan_write_swap`` finds
nothing against it and the catalog can write a version outside any table, ``DataJobs.prepare_write``): no TMP table.
The swap path's steps with TMP's directory in its place: ``log_tmp`` (C: TMP's creation, whose undo removes the new
directory, partly written or whole), ``fill_tmp`` (the job writes the new rows into the directory), ``log_swap`` (no
D: there is no TMP to forget), ``exchange`` (ORIG := its own definition at the directory, its statistics kept, one
metastore call), ``commit``, ``retire``. No data is renamed, and the metastore sees one call, as it does for Spark's
own INSERT OVERWRITE (:mod:`~replace_table.plans.swap_path`, :mod:`~replace_table.plans.empty_path`).

The same for a new table (:func:`choose_created`, the create path's *direct create*): a CTAS of an unpartitioned data
source table has Spark's own CTAS of TMP write TMP's directory without creating TMP, and ORIG is created there from
the record Spark would have made (:mod:`~replace_table.plans.create_path`)."""

from __future__ import annotations

from replace_table.plans.replace_run import ReplaceRun


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
    """Reads only, before anything is logged: a CTAS creating ORIG (the create path) takes the direct create where
    the catalog can, outside a transaction (whose COMMIT would run the CTAS's job inside its publish window)."""
    if run.path != "create" or run.fill is not None or run.make_tmp or run.fill_tmp \
            or (run.spec.as_select is None and run.spec.df is None) or run.log.transaction is not None:
        return
    run.write_job = run.ctx.catalog.data.prepare_create(run.orig, run.tmp, run.spec, run.log.tag)
