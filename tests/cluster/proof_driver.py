"""A driver on the standalone cluster that runs proofs in one Spark application (one driver JVM and its executors
serve them all): ``python -m tests.cluster.proof_driver WORKDIR SCENARIO...``, the master from
``DDL_LOG_SPARK_MASTER`` (:func:`tests.cluster.conftest.driver_env`). Each scenario prints one JSON line:
``{"scenario": ..., "ok": true, ...what it measured}`` or ``{"scenario": ..., "ok": false, "error": traceback}``.

* ``sweep:FORM:all|some``: the CREATE OR REPLACE crash-point sweep of tests/spark/test_replace_sweep.py (in-process
  crash points, recovery, old-or-new check, second recovery) for FORM (columns, like, select, select-no-binlog,
  partitioned, partitioned-swap, dataframe), at every point worth a Spark run or at :data:`SOME_POINTS`;
* ``kill-executor:STATEMENT``: STATEMENT (ctas, replace, overwrite) with a data job whose tasks hold, and the executor
  JVM of a running task SIGKILLed (:mod:`tests.cluster.executor_kill`);
* ``orphan`` (last): the statement this driver is SIGKILLed in, a task of it writing late
  (:mod:`tests.cluster.orphan_driver`); it prints ``{"orphan": DIR}`` and never returns.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ddl_log import AtomicDDL
from ddl_log.settings import Settings
from storage.catalogs.spark.session import embedded_session
from tests.attached.support import extension_settings
from tests.cluster.executor_kill import kill_executor_during
from tests.cluster.orphan_driver import start_statement
from tests.conftest import reset_spark, warehouse_of
from tests.spark.sweep_support import spark_worthy
from tests.spark.test_replace_sweep import FORMS, PARTITIONED, Points, sweep

SOME_POINTS = frozenset({"replace.fill_tmp.before", "replace.exchange.between", "commit.after_binlog"})
"""``make proofs``' points: the work table built by its data job (old), the swap half done (old), committed with the
retirement pending (new); ``make test-cluster`` sweeps every point."""


def partitioned_swap(ddl: AtomicDDL) -> Any:
    result = ddl.create_or_replace_table(
        "t", as_select="SELECT id AS n, concat('y', id % 4) AS b FROM range(40)", partitioned_by=["b"])
    assert result.path == "swap", result.swap_refused
    return result


def sweep_form(spark: Any, workdir: Path, form: str, mode: str) -> dict[str, Any]:
    def some(trace: Points) -> Points:
        return [point for point in spark_worthy(trace) if point[0] in SOME_POINTS]

    statements: dict[str, tuple[Callable[[AtomicDDL], Any], bool, bool]] = {
        "columns": (FORMS["columns"], True, False), "like": (FORMS["like"], True, False),
        "select": (FORMS["select"], True, False), "select-no-binlog": (FORMS["select"], False, False),
        "partitioned": (PARTITIONED, True, True), "partitioned-swap": (partitioned_swap, True, True),
        "dataframe": (lambda d: d.create_or_replace_table("t", df=spark.range(7).selectExpr("id * 3 AS q")),
                      True, False),
    }
    statement, binlog, partitioned = statements[form]
    outcomes = sweep(spark, warehouse_of(spark), workdir, statement, binlog=binlog, partitioned=partitioned,
                     points=spark_worthy if mode == "all" else some)
    return {"points": len(outcomes), "old": outcomes.count("old"), "new": outcomes.count("new")}


def main(workdir: Path, scenarios: list[str]) -> int:
    master = Settings.from_env().spark_master
    assert master is not None and master.startswith("spark://"), master
    del os.environ["DDL_LOG_SPARK_MASTER"]  # the homes below are given the session; a master beside it contradicts
    # the project's jar as every driver of the project loads it (spark.jars: the executors fetch it too), so that the
    # data jobs run on the paths a platform's cluster runs: the write path into a fresh directory, INSERT INTO's
    # named job
    spark = embedded_session(workdir / "spark", master, extra=extension_settings())
    print(json.dumps({"application": spark.sparkContext.applicationId, "master": master,
                      "spark_home": str(workdir / "spark")}), flush=True)
    for scenario in scenarios:
        kind, _, argument = scenario.partition(":")
        home = workdir / scenario.replace(":", "-")
        try:
            if kind == "sweep":
                form, _, mode = argument.partition(":")
                found = sweep_form(spark, home, form, mode or "all")
            elif kind == "kill-executor":
                found = kill_executor_during(spark, home, argument)
            elif kind == "orphan":
                start_statement(spark, home)
            else:
                raise SystemExit(f"unknown scenario {scenario}")
            print(json.dumps({"scenario": scenario, "ok": True, **found}), flush=True)
        except Exception:  # noqa: BLE001 - reported, the next scenario runs
            print(json.dumps({"scenario": scenario, "ok": False, "error": traceback.format_exc()[-4000:]}),
                  flush=True)
        finally:
            reset_spark(spark, warehouse_of(spark))
    spark.stop()
    return 0


if __name__ == "__main__":
    os.environ.pop("DDL_LOG_CRASH_AT", None)
    raise SystemExit(main(Path(sys.argv[1]), sys.argv[2:]))
