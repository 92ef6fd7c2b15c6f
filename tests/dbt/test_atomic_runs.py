"""What a dbt user gets from ``type: spark_ddl_log`` over plain dbt-spark, measured in the same run: readers during
repeated ``dbt run``\\ s never fail and never read a partial table (plain dbt-spark's figures beside them); a model
that changes kind keeps its name; a model whose SELECT fails leaves the old table whole, binlogs nothing and dbt shows
Spark's error; going back to plain dbt-spark on the same schema, and both on one schema."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import yaml
from dbt.tests.util import run_dbt, run_dbt_and_capture, write_file

from dbt.adapters.spark_ddl_log.homes import open_engine
from storage.catalogs.kept_directories import KEPT_NOTE
from tests.conftest import warehouse_of
from tests.dbt.conftest import adapter_target

ROWS = 100_000
TABLE_MODEL = "{{ config(materialized='table') }}\nselect id, {{ var('version') }} as version from range(" + \
    str(ROWS) + ")"


def add_plain_target(project: Any) -> None:
    """A second target in the test's profiles.yml: plain dbt-spark (``type: spark``) on the same session and
    schema."""
    path = Path(project.profiles_dir) / "profiles.yml"
    profiles = yaml.safe_load(path.read_text())
    outputs = profiles["test"]["outputs"]
    outputs["plain"] = {"type": "spark", "method": "session", "host": "localhost", "threads": 1,
                        "schema": outputs["default"]["schema"]}
    path.write_text(yaml.safe_dump(profiles))


def run(version: int, *, target: str = "default", expect_pass: bool = True) -> Any:
    return run_dbt(["run", "--target", target, "--vars", f"{{version: {version}}}"], expect_pass=expect_pass)


class Readers:
    """Reader threads on the test's session: each read is a complete version of the table (all rows, one version)
    or it is counted as wrong; an error is a failed read."""

    def __init__(self, spark: Any, table: str, threads: int = 2) -> None:
        self.spark, self.table = spark, table
        self.reads = self.failed = self.wrong = 0
        self.errors: list[str] = []
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.loop, daemon=True) for _ in range(threads)]

    def loop(self) -> None:
        while not self.stop.is_set():
            try:
                row = self.spark.sql(f"SELECT count(*) AS n, min(version) AS lo, max(version) AS hi "
                                     f"FROM {self.table}").first()
                bad = row.n != ROWS or row.lo != row.hi
                error = None
            except Exception as exc:  # noqa: BLE001 - a failed read is what is counted
                bad, error = False, str(exc).splitlines()[0][:120]
            with self.lock:
                self.reads += 1
                self.wrong += bad
                if error is not None:
                    self.failed += 1
                    self.errors.append(error)

    def __enter__(self) -> Readers:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=120)

    def figures(self) -> str:
        return f"{self.reads} reads, {self.failed} failed, {self.wrong} wrong"


class TestReadersDuringRuns:  # make test-dbt also runs readers in another driver, on a service (test_service_readers)
    @pytest.fixture(scope="class")
    def dbt_profile_target(self, spark: Any, ddl_log_home: Path) -> dict[str, Any]:
        return adapter_target(ddl_log_home, grace_seconds=600)  # readers that listed old files finish with them

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"t.sql": TABLE_MODEL}

    def test_readers_never_fail_with_the_adapter_beside_plain_dbt_spark(self, project: Any, spark: Any,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
        add_plain_target(project)
        table = f"{project.test_schema}.t"
        run(0, target="plain")
        with Readers(spark, table) as plain:
            for version in (1, 2, 3):
                run(version, target="plain")
        spark.sql(f"DROP TABLE {table}")  # plain dbt-spark's table, dropped as it would drop it
        run(10)
        with Readers(spark, table) as atomic:
            for version in (11, 12, 13):
                run(version)
        with capsys.disabled():
            print(f"\nreaders during 3 dbt runs: spark_ddl_log {atomic.figures()}; plain dbt-spark "
                  f"{plain.figures()} ({sorted(set(plain.errors))[:3]})")
        assert atomic.reads > 0 and atomic.failed == 0 and atomic.wrong == 0, atomic.errors[:5]


class TestModelChangingKind:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"m.sql": "{{ config(materialized='view') }}\nselect id, 1 as version from range(10)"}

    def test_a_view_becomes_a_table_and_back_in_one_statement(self, project: Any, spark: Any,
                                                              ddl_log_home: Path) -> None:
        name = f"{project.test_schema}.m"
        run_dbt(["run"])
        missing: list[str] = []
        stop = threading.Event()

        def watch() -> None:
            while not stop.is_set():
                if not spark.catalog.tableExists(name):
                    missing.append("missing")

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        try:
            write_file("{{ config(materialized='table') }}\nselect id, 2 as version from range(10)",
                       project.project_root, "models", "m.sql")
            run_dbt(["run"])
            assert spark.sql(f"DESCRIBE FORMATTED {name}").filter("col_name = 'Type'").first().data_type == "MANAGED"
            write_file("{{ config(materialized='view') }}\nselect id, 3 as version from range(10)",
                       project.project_root, "models", "m.sql")
            run_dbt(["run"])
        finally:
            stop.set()
            watcher.join()
        assert spark.sql(f"DESCRIBE FORMATTED {name}").filter("col_name = 'Type'").first().data_type == "VIEW"
        assert spark.sql(f"SELECT DISTINCT version FROM {name}").first().version == 3
        assert missing == []


FAILURES = {
    "a typo": ("select id, version_typo as version from range(10)", "UNRESOLVED_COLUMN"),
    "a runtime error": ("select id, cast(raise_error('boom: division by zero') as bigint) as version from range(10)",
                        "USER_RAISED_EXCEPTION"),
    # Spark's own condition, as plain dbt-spark shows it
    "a missing source": ("select id, version from {{ source('raw', 'missing') }}", "TABLE_OR_VIEW_NOT_FOUND"),
}


class TestFailingModel:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"t.sql": TABLE_MODEL}

    def test_a_failing_select_leaves_the_old_table_whole_and_binlogs_nothing(
            self, project: Any, spark: Any, ddl_log_home: Path) -> None:
        table = f"{project.test_schema}.t"
        write_file(yaml.safe_dump({"version": 2, "sources": [
            {"name": "raw", "schema": project.test_schema, "tables": [{"name": "missing"}]}]}),
            project.project_root, "models", "sources.yml")
        run(1)
        events = len(self.binlog(ddl_log_home))
        for case, (select, error) in FAILURES.items():
            write_file("{{ config(materialized='table') }}\n" + select, project.project_root, "models", "t.sql")
            _, output = run_dbt_and_capture(["run", "--vars", "{version: 2}"], expect_pass=False)
            assert error in output, case
            spark.catalog.refreshTable(table)
            assert spark.sql(f"SELECT count(*) AS n, max(version) AS v FROM {table}").first().asDict() == \
                {"n": ROWS, "v": 1}, case
            assert len(self.binlog(ddl_log_home)) == events, case

    @staticmethod
    def binlog(home: Path) -> list[Any]:
        """The binlog of the adapter's engine on ``home`` (open in this process)."""
        engine = open_engine(str(home))
        assert engine is not None
        return engine.binlog_events()


class TestPythonModel:
    """dbt-spark's session method cannot run Python models (its submission methods send them to Databricks): the
    adapter refuses one before anything runs, saying so."""

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"py.py": "def model(dbt, session):\n    return session.range(3)\n"}

    def test_a_python_model_is_refused_before_anything_runs(self, project: Any, spark: Any) -> None:
        _, output = run_dbt_and_capture(["run"], expect_pass=False)
        assert "spark_ddl_log does not run Python models (model.test.py)" in output, output[-2000:]
        assert not spark.catalog.tableExists(f"{project.test_schema}.py")


class TestGoingBackToPlainDbtSpark:
    """A user going back from the adapter to plain dbt-spark, or mixing both on one schema. A table the adapter
    makes lives at a directory of its own, so plain dbt-spark's DROP + CREATE of it just runs. The first replace of
    a table plain dbt-spark made (at ``<schema>/<name>``) keeps its old files there for the grace period (readers),
    where plain dbt-spark's CREATE cannot go: the adapter warns saying until when and what frees the name, plain
    dbt-spark's error meets a directory that explains itself, and ``spark_ddl_log_release`` (RELEASE TABLE NAME)
    frees it; then plain dbt-spark runs the model, and the adapter runs it again over plain dbt-spark's table."""

    @pytest.fixture(scope="class")
    def dbt_profile_target(self, spark: Any, ddl_log_home: Path) -> dict[str, Any]:
        return adapter_target(ddl_log_home, grace_seconds=600)

    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"t.sql": TABLE_MODEL}

    def test_plain_dbt_spark_runs_a_model_the_adapter_replaced_once_the_name_is_released(
            self, project: Any, spark: Any, ddl_log_home: Path) -> None:
        add_plain_target(project)
        table = f"{project.test_schema}.t"
        at_name = warehouse_of(spark) / f"{project.test_schema}.db" / "t"
        run(1)
        _, output = run_dbt_and_capture(["run", "--vars", "{version: 2}"])  # the adapter's own table: no warning
        release = f"ddl-log --home {ddl_log_home} release {table}"
        assert release not in output and not at_name.exists(), output
        run(3, target="plain")  # going back: plain dbt-spark's DROP + CREATE, at <schema>/t
        assert self.rows(spark, table) == {"n": ROWS, "v": 3}

        _, output = run_dbt_and_capture(["run", "--vars", "{version: 4}"])  # a swap: version 3 waits at <db>/t
        assert "plain dbt-spark" in output and release in output and "spark_ddl_log_release" in output, output
        assert release in (at_name / KEPT_NOTE).read_text()
        _, output = run_dbt_and_capture(["run", "--target", "plain", "--vars", "{version: 5}"], expect_pass=False)
        assert "LOCATION_ALREADY_EXISTS" in output  # plain dbt-spark's own CREATE, loudly, at that directory
        run_dbt(["run-operation", "spark_ddl_log_release", "--args", f"{{relation: {table}}}"])
        assert not at_name.exists()
        run(5, target="plain")
        assert self.rows(spark, table) == {"n": ROWS, "v": 5}

        _, output = run_dbt_and_capture(["run", "--vars", "{version: 6}"])  # mixing: the adapter over plain's table
        assert self.rows(spark, table) == {"n": ROWS, "v": 6} and release in output
        run_dbt(["run-operation", "spark_ddl_log_release", "--args", f"{{relation: {table}}}"])
        run(7, target="plain")
        assert self.rows(spark, table) == {"n": ROWS, "v": 7}

    @staticmethod
    def rows(spark: Any, table: str) -> dict[str, int]:
        spark.catalog.refreshTable(table)
        return dict(spark.sql(f"SELECT count(*) AS n, max(version) AS v FROM {table}").first().asDict())
