"""The empty path of a replace (TRUNCATE where ``Swaps.plan_empty_swap`` finds nothing against it; a partitioned table
keeps its partition records as they were, each at the same path under the new directory): no TMP table at all.
``log_tmp`` (C: TMP's creation, whose undo removes the new directory at TMP's location), ``log_swap`` (no D: there is
no TMP to forget), ``exchange`` (the directory made, then ORIG := its own definition emptied at it, one metastore
call, as Spark's TRUNCATE is one), ``commit``, ``retire``: the swap path's steps
(:mod:`~replace_table.plans.swap_path`) without building TMP."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from replace_table.plans.replace_run import ReplaceRun
from storage.catalogs.interface import Fill


def choose_empty(run: ReplaceRun, empty: Callable[[], Fill | None],
                 emptied: Sequence[Mapping[str, str]] | None = None) -> None:
    """Reads only, before anything is logged: the empty path where the catalog can take it; else ``empty()`` raises
    the statement's refusals or returns what fills TMP (the partitions to keep registered and empty). ``emptied``
    (``TRUNCATE TABLE ... PARTITION``): only these partitions are emptied, the others kept whole."""
    if run.orig_exists:
        run.plan = run.ctx.catalog.swaps.plan_empty_swap(run.orig, run.tmp, run.log.tag, emptied=emptied)
        if run.plan.refusal is None:
            run.path = "empty"
            return
    run.fill = empty()
