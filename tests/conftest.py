"""Shared fixtures: one embedded Spark session per test process, and a clean catalog after each Spark test.

Tests that use the ``spark`` fixture (directly or through ``clean_spark`` / ``warehouse``) are marked ``spark``
automatically, so ``pytest -m "not spark"`` runs everything that needs no JVM.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.jvm_archive import spark_jvm_options
from tests.object_store import store as object_store
from tests.ramdisk import use_ram_for_temporary_files

SPARK_MARKER = "spark: needs a local Spark session (a JVM; the first test pays ~5-10 s of start-up)"
SERVERS_MARKER = "servers: starts real servers (PostgreSQL, the metastore service); skip with -m 'not servers'"
PROOFS_MARKER = ("proofs: a real-process proof (drivers, servers or a cluster of its own, killed, paused or raced); "
                 "`make proofs` runs them, `make test` the rest, .ci/run both")
SERVER_FIXTURES = frozenset({"postgres_server", "postgres_url"})
pytest_plugins = ["tests.servers.postgres"]

TEST_JVM_OPTIONS = spark_jvm_options()
"""JVM options for every Spark JVM the tests start: this process's session and, through the inherited environment,
those of the workers, CLI runs and soak workers they spawn (spark-submit adds ``SPARK_SUBMIT_OPTS`` to the driver
JVM): the C1 compiler alone, the serial collector, and the class archive ``make test`` builds
(:mod:`tests.jvm_archive` says why). A ``SPARK_SUBMIT_OPTS`` already set is kept as it is."""
os.environ.setdefault("SPARK_SUBMIT_OPTS", TEST_JVM_OPTIONS)
os.environ.setdefault("DDL_LOG_RETENTION_SECONDS", "0")
"""Versions are kept for the grace period only, as before versions existed, unless a test says otherwise: the tests
of other statements count the directories a statement leaves (tests/unit/test_versions.py sets retention)."""
use_ram_for_temporary_files()  # tests/ramdisk.py: fsyncs cost nothing on tmpfs and prove the same


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", SPARK_MARKER)
    config.addinivalue_line("markers", SERVERS_MARKER)
    config.addinivalue_line("markers", PROOFS_MARKER)


SLOWEST_FIRST = (
    "tests/object_store/",
    "tests/production/",
    "tests/replication/test_two_services.py",
    "tests/cluster/",
    "tests/soak_cluster/",
    "tests/soak/",
    "tests/dbt/",
    "tests/readers/test_readers_other_driver.py",
    "tests/spark/test_replace_kill.py",
    "tests/attached/test_attached_kill.py",
    "tests/attached/test_attached_sweeps.py",
    "tests/thrift/test_thrift_kill.py",
    "tests/connect/test_connect_kill.py",
    "tests/connect/test_connect_start_raced.py",
    "tests/thrift/",
    "tests/connect/",
    "tests/spark/test_schema_swap.py",
    "tests/spark/test_transactions.py",
    "tests/spark/test_insert_into_kill.py",
    "tests/spark/test_replace_sweep.py",
    "tests/spark/test_statement_sweeps.py",
    "tests/cli/test_cli_spark.py",
    "tests/servers/",
    "tests/readers/",
)
"""Where the longest tests live, longest first. Two workers share the suite; a long group that starts last keeps one
worker busy while the other idles, so the long ones go first and the many short ones fill the gaps at the end."""


REAL_PROCESS_PROOFS = (
    "tests/production/",
    "tests/cluster/",
    "tests/readers/test_readers_other_driver.py",
    "tests/spark/test_replace_kill.py",
    "tests/spark/test_insert_into_kill.py",
    "tests/spark/test_transactions.py::test_sigkill_",
    "tests/spark/test_schema_swap.py::test_sigkill_",
    "tests/thrift/test_thrift_kill.py",
    "tests/connect/test_connect_kill.py",
    "tests/attached/test_attached_kill.py",
    "tests/dbt/test_kills.py",
    "tests/replication/test_replica_spark.py::test_a_replica_killed_",
    "tests/cli/test_cli_spark.py::test_a_statement_killed_",
    "tests/servers/test_metastore_service.py::test_two_driver_processes_",
)
"""Drivers, servers (Thrift, Connect, a metastore service), a standalone cluster or dbt in processes of their own,
SIGKILLed, SIGSTOPped or raced: a JVM start or more apiece."""
SPARK_CRASH_SWEEPS = (
    "tests/spark/test_statement_sweeps.py::test_crash_",
    "tests/spark/test_replace_sweep.py::test_crash_at_every_point_of_a_partitioned_",
    "tests/spark/test_replace_sweep.py::test_dataframe_form_",
    "tests/spark/test_replace_sweep.py::test_crash_at_every_point_leaves_old_or_new_table[select-no-binlog]",
    "tests/spark/test_replace_sweep.py::test_crash_at_every_point_leaves_old_or_new_table[columns-",
    "tests/spark/test_replace_sweep.py::test_crash_at_every_point_leaves_old_or_new_table[like-",
    "tests/spark/test_schema_swap.py::test_crash_",
    "tests/spark/test_transactions.py::test_crash_",
    "tests/spark/test_versions.py::test_crash_",
    "tests/spark/test_versions.py::test_a_crash_anywhere_",
    "tests/spark/test_insert_into.py::test_insert_into_crashed_anywhere_",
    "tests/spark/test_write_path.py::test_crash_",
    "tests/attached/test_attached_sweeps.py",
    "tests/replication/test_install_sweep.py",
    "tests/replication/test_bootstrap_spark.py::test_a_resync_crashed_",
    "tests/object_store/test_group.py",
)
"""The crash sweeps on real Spark (with the warehouse on the simulated object store too, in a process of its own),
each a statement crashed in process around every catalog operation, recovered and compared (seconds to minutes
apiece); ``make test`` keeps the headline one, CREATE OR REPLACE ... AS SELECT with the
binlog, and sweeps every crash point of every statement on the in-memory catalog."""
READER_PROOFS = (
    "tests/readers/",
    "tests/dbt/test_atomic_runs.py::TestReadersDuringRuns",
    "tests/spark/test_schema_swap.py::test_readers_",
)
"""Readers beside running statements (threads of the writer's session and of other drivers reading while it
replaces, failed and wrong reads counted), tens of seconds of reading apiece."""
NESTED_CRASH_MATRICES = (
    "tests/unit/test_recovery.py::test_a_crash_anywhere_inside_recovery_",
)
"""A crash inside the recovery of every crash point, each with every point of that recovery: quadratic, about two
worker-minutes on the in-memory catalog; ``make test`` runs it on every 5th statement point."""
PROOFS = REAL_PROCESS_PROOFS + SPARK_CRASH_SWEEPS + READER_PROOFS + NESTED_CRASH_MATRICES
"""The proofs on real Spark under crashes and readers, by path or node id prefix. Together they took more than half of
the suite's time on 2 cores (52 of 99 worker-minutes in the run of 2026-11-29), so ``make test`` (its 25-minute
budget) runs everything else and ``make proofs`` runs these; ``.ci/run`` runs both, so every proof still gates a
change."""


def mark_proofs(items: list[pytest.Item]) -> None:
    """Mark the items of :data:`PROOFS` ``proofs``."""
    root = Path(__file__).resolve().parent.parent
    for item in items:
        path = Path(str(item.path)).resolve()
        relative = path.relative_to(root).as_posix() if root in path.parents else path.as_posix()
        node = relative + item.nodeid[item.nodeid.index("::"):] if "::" in item.nodeid else relative
        if node.startswith(PROOFS):
            item.add_marker(pytest.mark.proofs)


def run_slowest_first(items: list[pytest.Item]) -> None:
    """Reorder ``items`` (stable: a module's tests keep their order and stay together) by :data:`SLOWEST_FIRST`."""
    root = Path(__file__).resolve().parent.parent

    def rank(item: pytest.Item) -> int:
        path = Path(str(item.path)).resolve()
        relative = path.relative_to(root).as_posix() if root in path.parents else path.as_posix()
        return next((index for index, prefix in enumerate(SLOWEST_FIRST) if relative.startswith(prefix)),
                    len(SLOWEST_FIRST))

    items.sort(key=rank)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mark_proofs(items)
    run_slowest_first(items)
    if object_store.run_mode() is not None:
        from tests.object_store.expectations import mark_expected_failures

        mark_expected_failures(items)
    keep_groups_together(config, items)
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)
        if SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.servers)


def keep_groups_together(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Make ``--dist loadgroup`` send every test of one ``xdist_group`` to one worker under pytest 9.

    pytest-xdist 3.8 marks a test's group by appending ``@<group>`` to ``item._nodeid``; pytest 9 keeps the node id
    in ``item._id`` (a :class:`_pytest.nodeid.NodeId`), so the suffix is lost and a group's tests spread over both
    workers: every module-scoped server fixture then ran twice (measured: the production module's 2m50s of setup
    twice, the SIGKILL replace module's twice). Same suffix, set where pytest 9 reads it."""
    if not getattr(config.option, "loadgroup", False):
        return
    from _pytest.nodeid import NodeId

    for item in items:
        names = sorted({str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                        for mark in item.iter_markers("xdist_group")})
        if names and "@" not in item.nodeid:
            item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(names)}")


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The one Spark session of this test process (metastore and warehouse in a temporary home; the warehouse on the
    simulated object store in the object-store test process, tests/object_store). Its JVM has the session extension,
    off in every session unless one turns it on (``tests/attached`` do): the other tests run on Spark's own
    statements, through the extension's parser (which then hands every statement to Spark's)."""
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime: Spark tests need one")
    from storage.catalogs.spark.session import embedded_session
    from tests.attached.support import extension_settings

    home = tmp_path_factory.mktemp("spark-home")
    extra = extension_settings()
    session = (object_store.object_store_session(home, extra=extra) if object_store.run_mode()
               else embedded_session(home, extra=extra))
    yield session
    session.stop()


@pytest.fixture
def warehouse(spark: Any) -> Path:
    """The local directory of the warehouse (the ``default`` database's location)."""
    return warehouse_of(spark)


def warehouse_of(spark: Any) -> Path:
    """The local directory of ``spark``'s warehouse (for fixtures of a wider scope than :func:`warehouse`): on the
    simulated object store, the directory behind it."""
    from storage.catalogs.spark.profile import local_path

    location = str(spark.conf.get("spark.sql.warehouse.dir"))
    path = local_path(location) or object_store.backing_path(spark, location)
    assert path is not None, "the test warehouse is local or on the simulated object store"
    return path


@pytest.fixture
def clean_spark(spark: Any, warehouse: Path) -> Iterator[Any]:
    """The shared session; afterwards every table, view, temporary view and non-default database is gone, and the
    warehouse directory is empty again."""
    yield spark
    reset_spark(spark, warehouse)


def reset_spark(spark: Any, warehouse: Path, keep: Iterable[str] = ()) -> None:
    """Drop everything the tests made (every temporary view, non-default database, table, view and function of
    ``default``) except the databases named in ``keep``, and empty the warehouse directory but for their
    directories. Every object is tried even when one fails, then the first failure is raised. The objects are found
    through the JVM session catalog (a few py4j calls, ~15 ms) rather than five SHOW statements (~250 ms idle, several
    times that under load, even with nothing to drop); they are dropped with the same SQL statements."""
    from storage.catalogs.names import quote_ident
    from tests.spark.sweep_support import scala_strings

    kept = {name.lower() for name in keep}
    failures: list[BaseException] = []

    def attempt(statement: str) -> None:
        try:
            spark.sql(statement)
        except Exception as error:  # noqa: BLE001 - collected and raised below
            failures.append(error)

    session_catalog = spark._jsparkSession.sessionState().catalog()
    metastore = session_catalog.externalCatalog()
    temporary = session_catalog.listLocalTempViews("*")
    for index in range(temporary.size()):
        spark.catalog.dropTempView(temporary.apply(index).table())
    for db in scala_strings(metastore.listDatabases()):
        if db != "default" and db.lower() not in kept:
            attempt(f"DROP DATABASE IF EXISTS {quote_ident(db)} CASCADE")
    views = set(scala_strings(metastore.listViews("default", "*")))
    for table in scala_strings(metastore.listTables("default")):
        name = f"`default`.{quote_ident(table)}"
        attempt(f"DROP VIEW IF EXISTS {name}" if table in views else f"DROP TABLE IF EXISTS {name} PURGE")
    for function in scala_strings(metastore.listFunctions("default", "*")):
        attempt(f"DROP FUNCTION IF EXISTS `default`.{quote_ident(function)}")
    spared = {f"{db}.db" for db in kept}
    if warehouse.is_dir():
        for entry in warehouse.iterdir():
            if entry.name.lower() in spared:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
    if failures:
        raise failures[0]
