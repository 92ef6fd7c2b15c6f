"""The Spark catalog on a Spark Connect session (``builder.remote("local[2]")``: a local Connect server in-process).

A classic session and a Connect session cannot share one Python process, so the scenario runs in a subprocess and
reports what it saw as JSON on its last line of output.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark

REPO = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import json, os, sys, time, warnings
    from pathlib import Path

    warnings.filterwarnings("ignore")  # CANNOT_MODIFY_CONFIG: static settings are already on the server
    home = Path(sys.argv[1])
    started = time.monotonic()

    from pyspark.sql import SparkSession
    from storage.catalogs.interface import Column, TableSpec
    from storage.errors import NoSuchObjectError, ObjectExistsError, EngineOperationError
    from storage.catalogs.names import TableName
    from storage.catalogs.spark.catalog import spark_catalog
    from storage.catalogs.spark.session import embedded_settings

    builder = SparkSession.builder.remote("local[2]")
    for key, value in embedded_settings(home).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    report = {"session": type(spark).__module__, "start_seconds": round(time.monotonic() - started, 1)}
    warehouse = home / "warehouse"

    def t(name):
        return TableName("default", name)

    def files(name):
        path = warehouse / name
        return sorted(str(p.relative_to(path)) for p in path.rglob("*")) if path.exists() else None

    catalog = spark_catalog(spark)
    spec = TableSpec(
        columns=(Column("a`b", "int", comment="it's \\\\ ${env:HOME}"), Column("p", "string")),
        partitioned_by=("p",),
        properties=(("k'1", "v\\\\'${x}"),),
        comment="c'",
    )
    catalog.data.create(t("t1"), spec, "tag-1")
    report["identity"] = catalog.names.identity(t("t1"))
    props = {r["key"]: r["value"] for r in spark.sql("SHOW TBLPROPERTIES `default`.`t1`").collect()}
    report["property"] = props.get("k'1")
    catalog.data.create(t("t2"), TableSpec(as_select="SELECT id, id % 3 AS k FROM range(9)", partitioned_by=("k",)),
                        "tag-2")
    report["t2_rows"] = spark.table("`default`.`t2`").count()
    catalog.data.create(t("t3"), TableSpec(df=spark.range(4).selectExpr("id", "'x' AS s")), "tag-3")
    report["t3_rows"] = spark.table("`default`.`t3`").count()
    report["temp_views"] = [r["viewName"] for r in spark.sql("SHOW VIEWS").collect() if r["isTemporary"]]
    try:
        boom = "SELECT CASE WHEN id = 5000 THEN raise_error('boom') ELSE id END AS v, id % 3 AS k FROM range(10000)"
        catalog.data.create(t("f1"), TableSpec(as_select=boom, partitioned_by=("k",)), "tag-f")
        report["failed_ctas"] = "did not fail"
    except EngineOperationError as error:
        report["failed_ctas"] = str(error)
    report["failed_ctas_exists"] = catalog.names.exists(t("f1"))
    report["failed_ctas_files"] = files("f1")
    catalog.names.rename(t("t2"), t("t2b"))
    report["renamed_identity"] = catalog.names.identity(t("t2b"))
    report["renamed_dirs"] = [files("t2"), bool(files("t2b"))]
    report["tables"] = [str(n) for n in catalog.names.list_tables("default")]
    try:
        catalog.names.rename(t("t1"), t("t3"))
    except ObjectExistsError as error:
        report["rename_exists"] = error.name
    catalog.names.drop(t("t2b"))
    report["dropped_files"] = files("t2b")
    try:
        catalog.names.drop(t("nope"))
    except NoSuchObjectError as error:
        report["drop_missing"] = error.name
    (warehouse / "left" / "_temporary").mkdir(parents=True)
    report["cleaned_local"] = catalog.directories.clean_leftovers(t("left"))
    (warehouse / "left2" / "_temporary").mkdir(parents=True)
    report["cleaned_metastore"] = spark_catalog(spark, leftovers="metastore").directories.clean_leftovers(t("left2"))
    report["left_files"] = [files("left"), files("left2")]
    catalog.data.check_create(TableSpec(as_select="SELECT 1 AS a"))
    report["tables_after"] = [str(n) for n in catalog.names.list_tables("default")]
    report["seconds"] = round(time.monotonic() - started, 1)
    spark.stop()
    print(json.dumps(report))
    """
)


def test_spark_catalog_on_a_spark_connect_session(tmp_path: Path) -> None:
    home = tmp_path / "home"
    script = tmp_path / "connect_scenario.py"
    script.write_text(SCRIPT, encoding="utf-8")
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    env.pop("SPARK_REMOTE", None)
    done = subprocess.run(
        [sys.executable, str(script), str(home)],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"Connect scenario failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["session"].startswith("pyspark.sql.connect"), report
    assert report["identity"] == "tag-1"
    assert report["property"] == "v\\'${x}"
    assert (report["t2_rows"], report["t3_rows"]) == (9, 4)
    assert report["temp_views"] == []
    assert "boom" in report["failed_ctas"] and "\n" not in report["failed_ctas"]
    assert report["failed_ctas_exists"] is False and report["failed_ctas_files"] is None
    assert report["renamed_identity"] == "tag-2"
    assert report["renamed_dirs"] == [None, True]
    assert report["tables"] == ["default.t1", "default.t2b", "default.t3"]
    assert report["rename_exists"] == "default.t3"
    assert report["dropped_files"] is None
    assert report["drop_missing"] == "default.nope"
    assert report["cleaned_local"] is True and report["cleaned_metastore"] is True
    assert report["left_files"] == [None, None]
    assert report["tables_after"] == ["default.t1", "default.t3"]
    assert sorted(os.listdir(workdir)) == [], "nothing lands in the working directory"
