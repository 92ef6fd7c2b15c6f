"""dbt over ``ddl-log thrift-server``: ``type: spark_ddl_log`` with ``method: thrift`` (dbt-spark's PyHive client)
beside plain dbt-spark (``type: spark``, ``method: thrift``) on the same server, real dbt in this process, the
catalog and binlog read over JDBC and ``ddl-log binlog``. Every materialization gives the session method's outcome:
each model one binlogged statement naming its node, seeds the table plain dbt-spark makes, incremental strategies as
the atomic INSERT INTO / INSERT OVERWRITE, a model changing kind, blue/green publishing; a failing model leaves the old
table whole where plain dbt-spark's DROP has already removed it. One server for the module; ``make test`` runs the
failing model and the profile checks, ``make test-dbt`` the rest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from dbt.adapters.spark_ddl_log.credentials import SparkDDLLogCredentials
from dbt.adapters.spark_ddl_log.errors import AdapterSettingError
from tests.dbt import test_seeds as seed_cases
from tests.dbt.conftest import full_only
from tests.thrift.clients import Server, binlog, pyhive, rows

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("thrift_dbt")]

SCHEMAS = {"atomic": "dbt_thrift", "plain": "dbt_thrift_plain"}
MODELS = {
    "t.sql": "{{ config(materialized='table') }}\nselect id, {{ var('version') }} as version from range(1000)",
    "v.sql": "{{ config(materialized='view') }}\nselect id, version from {{ ref('t') }} where id % 2 = 0",
    "app.sql": "{{ config(materialized='incremental') }}\nselect id, {{ var('version') }} as version "
               "from {{ ref('t') }} where id < 10",
    "io.sql": "{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['p']) }}"
              "\nselect id, {{ var('version') }} as version, id % {{ var('parts', 2) }} as p from {{ ref('t') }}",
    "kind.sql": "{{ config(materialized='view') }}\nselect 1 as version",
}
SEEDS = {**seed_cases.SEEDS, "odd.csv": "s,n\nit's,1\nback\\slash,2\n,3\n"}
"""The session method's seed cases (typed, partitioned, quoted, empty) and odd bytes in a value."""
SEED_CONFIG = seed_cases.CONFIG


def thrift_target(server: Server, kind: str, **settings: Any) -> dict[str, Any]:
    """A profile target on ``server``'s port, as a user writes dbt-spark's thrift method (``poll_interval: 0``:
    dbt-spark polls a running statement every 5 s by default)."""
    return {"type": "spark_ddl_log" if kind == "atomic" else "spark", "method": "thrift", "host": "127.0.0.1",
            "port": server.port, "user": "dbt", "schema": SCHEMAS[kind], "threads": 1, "poll_interval": 0,
            **settings}


@pytest.fixture(scope="module")
def project(server: Server, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dbt-thrift")
    for folder, files in (("models", MODELS), ("seeds", SEEDS)):
        (root / folder).mkdir()
        for name, text in files.items():
            (root / folder / name).write_text(text)
    (root / "dbt_project.yml").write_text(yaml.safe_dump(
        {"name": "thrift", "version": "1.0", "config-version": 2, "profile": "thrift",
         "seeds": {"thrift": SEED_CONFIG}}))
    outputs = {kind: thrift_target(server, kind) for kind in SCHEMAS}
    (root / "profiles.yml").write_text(yaml.safe_dump({"thrift": {"target": "atomic", "outputs": outputs}}))
    return root


def dbt(project: Path, *args: str, target: str = "atomic", version: int = 1, expect_pass: bool = True,
        **variables: Any) -> list[str]:
    """``dbt ARGS`` (real dbt, in this process): the messages of the nodes that failed."""
    from dbt.cli.main import dbtRunner

    result = dbtRunner().invoke([*args, "--project-dir", str(project), "--profiles-dir", str(project),
                                 "--target", target, "--vars", json.dumps({"version": version, **variables}),
                                 "--quiet"])
    failed = [str(node.message) for node in getattr(result.result, "results", []) if node.status == "error"]
    assert result.success == expect_pass, failed or result.exception
    return failed


def table(cursor: Any, schema: str, name: str) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """A relation's DESCRIBE rows (partition information included) and its rows, sorted."""
    described = rows(cursor, f"DESCRIBE TABLE `{schema}`.`{name}`")
    return described, sorted(rows(cursor, f"SELECT * FROM `{schema}`.`{name}`"), key=repr)


def kind(cursor: Any, relation: str) -> str:
    described = rows(cursor, f"DESCRIBE TABLE EXTENDED {relation}")
    return str(next(row[1] for row in described if row[0] == "Type"))


@full_only
def test_every_materialization_is_one_binlogged_statement_of_the_server(server: Server, project: Path) -> None:
    atomic = SCHEMAS["atomic"]
    dbt(project, "seed", target="plain")
    dbt(project, "build")
    dbt(project, "build", version=2)  # every model again: the incremental ones insert, the table is replaced
    with pyhive(server) as cursor:
        for name in ("typed", "parted", "quoted", "empty", "odd"):  # the table plain dbt-spark's thrift method makes
            assert table(cursor, atomic, name) == table(cursor, SCHEMAS["plain"], name), name
        assert ("code", "varchar(4)", None) in table(cursor, atomic, "typed")[0]
        assert (2, None, 12.25) in [row[:3] for row in table(cursor, atomic, "typed")[1]]  # an empty cell: NULL
        assert sorted(table(cursor, atomic, "odd")[1], key=lambda row: row[1]) == [
            ("it's", 1), ("back\\slash", 2), (None, 3)]
        assert rows(cursor, f"SELECT count(*), min(version) FROM {atomic}.t") == [(1000, 2)]
        assert rows(cursor, f"SELECT count(*), min(version) FROM {atomic}.v") == [(500, 2)]
        assert kind(cursor, f"{atomic}.v") == "VIEW"
        assert rows(cursor, f"SELECT version, count(*) FROM {atomic}.app GROUP BY 1 ORDER BY 1") == [(1, 10), (2, 10)]
        assert rows(cursor, f"SELECT p, count(*), min(version) FROM {atomic}.io GROUP BY 1 ORDER BY 1") == [
            (0, 500, 2), (1, 500, 2)]
    events = binlog(server.home)
    ours = [text for text in events if f"{atomic}." in text]
    for node in ("t", "v", "app", "io", "kind"):  # dbt's comment moved inside: each event names its model
        assert len([text for text in ours if f'"node_id": "model.thrift.{node}"' in text]) == 2, node
    seeds = sorted(text.split(" ")[4] for text in ours if "node_id" not in text)
    assert seeds == sorted(f"{atomic}.{name}" for name in ("empty", "odd", "parted", "quoted", "typed") for _ in (1, 2))
    assert all(text.startswith("create or replace table ") for text in ours if "node_id" not in text)  # one each
    assert not [text for text in ours if text.lower().startswith("drop")]  # never a drop


@full_only
def test_insert_overwrite_replaces_only_the_partitions_it_writes(server: Server, project: Path) -> None:
    dbt(project, "run", "--select", "t", "io", version=3, parts=4)  # dynamic: partitions 0 to 3 written
    dbt(project, "run", "--select", "io", version=4)  # parts 2: partitions 0 and 1 overwritten, 2 and 3 kept
    with pyhive(server) as cursor:
        assert rows(cursor, f"SELECT p, count(*), min(version) FROM {SCHEMAS['atomic']}.io GROUP BY 1 ORDER BY 1") \
            == [(0, 500, 4), (1, 500, 4), (2, 250, 3), (3, 250, 3)]


@full_only
def test_a_model_changing_kind_and_the_schema_swap_over_sql(server: Server, project: Path) -> None:
    atomic = SCHEMAS["atomic"]
    (project / "models" / "kind.sql").write_text("{{ config(materialized='table') }}\nselect 2 as version")
    try:
        dbt(project, "run", "--select", "kind")
        with pyhive(server) as cursor:
            assert kind(cursor, f"{atomic}.kind") == "MANAGED"
    finally:
        (project / "models" / "kind.sql").write_text(MODELS["kind.sql"])
    dbt(project, "run", "--select", "kind")
    with pyhive(server) as cursor:
        assert kind(cursor, f"{atomic}.kind") == "VIEW"
        for schema, table_name in (("blue", "built"), ("green", "published")):
            cursor.execute(f"CREATE DATABASE IF NOT EXISTS {atomic}_{schema}")
            cursor.execute(f"CREATE TABLE {atomic}_{schema}.{table_name} USING parquet AS SELECT 1 AS x")
    swap = {"a": f"{atomic}_blue", "b": f"{atomic}_green"}
    dbt(project, "run-operation", "spark_ddl_log_swap_schemas", "--args", json.dumps(swap))
    with pyhive(server) as cursor:  # the macro's ALTER SCHEMA ... SWAP WITH, through the server's log
        assert rows(cursor, f"SHOW TABLES IN {atomic}_green") == [(f"{atomic}_green", "built", False)]
        assert rows(cursor, f"SHOW TABLES IN {atomic}_blue") == [(f"{atomic}_blue", "published", False)]
    swapped = binlog(server.home)[-1]
    assert swapped.startswith("alter /* {") and swapped.endswith(f"schema `{atomic}_blue` swap with `{atomic}_green`")


def failing_model(project: Path, target: str) -> str:
    """``t`` run once (version 5), then with a typo in its SELECT: the failed run's error."""
    dbt(project, "run", "--select", "t", target=target, version=5)
    (project / "models" / "t.sql").write_text("{{ config(materialized='table') }}\nselect id, version_typo from "
                                              "range(10)")
    try:
        return dbt(project, "run", "--select", "t", target=target, expect_pass=False)[0]
    finally:
        (project / "models" / "t.sql").write_text(MODELS["t.sql"])


def test_a_failing_model_leaves_the_old_table_whole_and_binlogs_nothing(server: Server, project: Path) -> None:
    before = len(binlog(server.home))
    failed = failing_model(project, "atomic")
    assert "UNRESOLVED_COLUMN" in failed  # Spark's own error, as dbt-spark shows it
    assert len(binlog(server.home)) == before + 1  # the first run's replace; the failed one: nothing
    with pyhive(server) as cursor:
        assert rows(cursor, f"SELECT count(*), min(version) FROM {SCHEMAS['atomic']}.t") == [(1000, 5)]


@full_only
def test_plain_dbt_spark_over_the_server_has_dropped_its_table_when_its_model_fails(server: Server,
                                                                                  project: Path) -> None:
    assert "UNRESOLVED_COLUMN" in failing_model(project, "plain")
    with pyhive(server) as cursor:  # dbt-spark dropped the table before the failing CREATE: each atomic, not the pair
        assert rows(cursor, f"SHOW TABLES IN {SCHEMAS['plain']} LIKE 't'") == []


@pytest.mark.parametrize("setting", [{"ddl_log_home": "elsewhere"}, {"grace_seconds": 0}, {"binlog": False}])
def test_the_homes_settings_are_the_servers_with_method_thrift(setting: dict[str, Any]) -> None:
    name = next(iter(setting))
    with pytest.raises(AdapterSettingError, match=f"^{name}: settings of the DDL log's home, which the Thrift server"):
        SparkDDLLogCredentials(method="thrift", host="h", port=1, user="u", schema="s", **setting)  # type: ignore[arg-type]


def test_other_methods_are_refused() -> None:
    with pytest.raises(AdapterSettingError, match="runs only with method: session or method: thrift"):
        SparkDDLLogCredentials(method="http", host="h", schema="s")  # type: ignore[arg-type]
