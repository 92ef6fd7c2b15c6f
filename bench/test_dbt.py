"""``dbt build`` of a small project (a seed, a table, a view on it, an incremental model) and of many small models
with ``type: spark_ddl_log`` beside plain dbt-spark (``type: spark``), both ``method: session`` on the bench's Spark
session, each on a schema of its own (issues 27 and 38: at most 1.15x). As in test_statements.py the atomic
benchmark runs the plain build right before each of its rounds and stores the median of the per-round ratios as
``paired_ratio``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.pairing import run_paired, timed

ROUNDS = 5
MODELS = {
    "t.sql": "{{ config(materialized='table') }}\nselect id, id * 2 as v, concat('r', id) as s from range(100000)",
    "v.sql": "{{ config(materialized='view') }}\nselect id, v from {{ ref('t') }} where id % 2 = 0",
    "inc.sql": "{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['p']) }}"
               "\nselect id, v, id % 4 as p from {{ ref('t') }}",
}
SEED = "a,b\n" + "".join(f"{i},name{i}\n" for i in range(200))
SMALL = 12
SMALL_MODELS = {
    **{f"t{i}.sql": f"{{{{ config(materialized='table') }}}}\nselect {i} as id, 'v' as s" for i in range(SMALL)},
    **{f"v{i}.sql": f"{{{{ config(materialized='view') }}}}\nselect * from {{{{ ref('t{i}') }}}}"
       for i in range(SMALL)},
}
"""Many small models: SMALL tiny tables and a view on each, where each statement's fixed cost is what is measured."""


def write_project(root: Path, models: dict[str, str], seeds: dict[str, str], outputs: dict[str, Any]) -> Path:
    """A dbt project named ``bench`` in ``root``: its models, seeds and profiles.yml (``outputs``)."""
    for folder, files in (("models", models), ("seeds", seeds)):
        (root / folder).mkdir()
        for name, text in files.items():
            (root / folder / name).write_text(text)
    (root / "dbt_project.yml").write_text(yaml.safe_dump(
        {"name": "bench", "version": "1.0", "config-version": 2, "profile": "bench"}))
    (root / "profiles.yml").write_text(yaml.safe_dump({"bench": {"target": next(iter(outputs)), "outputs": outputs}}))
    return root


def session_project(root: Path, models: dict[str, str], seeds: dict[str, str]) -> Path:
    """A project with a target per side on the bench's session (``paired``: plain dbt-spark again, on a schema of
    its own), each built once: a target's first build pays dbt's and the JVM's first-use costs."""
    common = {"method": "session", "host": "localhost", "threads": 1}
    outputs = {"plain": {"type": "spark", "schema": "dbt_plain", **common},
               "paired": {"type": "spark", "schema": "dbt_paired", **common},
               "atomic": {"type": "spark_ddl_log", "schema": "dbt_atomic", "ddl_log_home": str(root / "ddl_home"),
                          **common}}
    write_project(root, models, seeds, outputs)
    for target in outputs:
        build(root, target)
    return root


@pytest.fixture(scope="module")
def dbt_project(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return session_project(tmp_path_factory.mktemp("dbt-bench"), MODELS, {"s.csv": SEED})


@pytest.fixture(scope="module")
def small_project(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return session_project(tmp_path_factory.mktemp("dbt-bench-small"), SMALL_MODELS, {})


def build(root: Path, target: str) -> None:
    from dbt.cli.main import dbtRunner

    result = dbtRunner().invoke(["build", "--project-dir", str(root), "--profiles-dir", str(root),
                                 "--target", target, "--quiet"])
    assert result.success, result.exception


def measure(benchmark: Any, root: Path, kind: str) -> None:
    """``plain``: the baseline target's build; ``atomic``: the adapter's, paired with the ``paired`` target's build
    (plain dbt-spark on a schema of its own) right before each round."""
    if kind == "plain":
        benchmark.extra_info["baseline"] = True
        benchmark.pedantic(lambda: build(root, "plain"), rounds=ROUNDS, iterations=1)
        return
    run_paired(benchmark, lambda: build(root, "atomic"), lambda: timed(lambda: build(root, "paired")),
               rounds=ROUNDS)


@pytest.mark.parametrize("kind", ["plain", "atomic"])
def test_dbt_build(benchmark: Any, dbt_project: Path, kind: str) -> None:
    benchmark.group = "dbt build: seed, table, view, incremental"
    measure(benchmark, dbt_project, kind)


@pytest.mark.parametrize("kind", ["plain", "atomic"])
def test_dbt_build_of_many_small_models(benchmark: Any, small_project: Path, kind: str) -> None:
    benchmark.group = f"dbt build: {SMALL} tiny tables and a view on each"
    measure(benchmark, small_project, kind)
