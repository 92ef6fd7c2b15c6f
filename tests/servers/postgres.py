"""A real PostgreSQL server for tests: one local cluster per test process (xdist worker), a fresh database per test.

Tests that use :func:`postgres_server` or :func:`postgres_url` are marked ``servers`` (tests/conftest.py), so a quick
run can skip them with ``-m "not servers"``; ``make test`` runs them. The cluster lives in the session's temporary
directory and is stopped at the end of the session (a failed test never leaves a server behind).
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ddl_log.ops import postgres
from ddl_log.ops.postgres import PostgresServer

_databases = itertools.count(1)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The test process's PostgreSQL cluster (initdb + start: about 2 s). Its directory is made under the system's
    temporary directory, not pytest's (0700, which the unprivileged user PostgreSQL runs as cannot enter)."""
    root = Path(tempfile.mkdtemp(prefix="ddl-log-test-pg-"))
    try:
        server = postgres.start(root)
        try:
            yield server
        finally:
            postgres.stop(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server: PostgresServer, request: pytest.FixtureRequest) -> str:
    """libpq URL of a database of its own for this test (no state leaks between tests)."""
    name = f"t{next(_databases)}_{''.join(c for c in request.node.name.lower() if c.isalnum())[:40]}"
    return postgres.create_database(postgres_server, name)


def advisory_locks_of(url: str, application_name: str, *, metadata_only: bool = False) -> int:
    """How many advisory locks the sessions named ``application_name`` hold; ``metadata_only``: the cross-driver
    metadata locks alone (one-bigint keys, ``objsubid`` 1), not the home's own lock (two-int key)."""
    import psycopg

    query = ("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
             "WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = %s")
    with psycopg.connect(url, autocommit=True) as admin:
        row = admin.execute(query + (" AND l.objsubid = 1" if metadata_only else ""), (application_name,)).fetchone()
    assert row is not None
    return int(row[0])


def advisory_locks_left(url: str, application_name: str, *, metadata_only: bool = False, seconds: float = 10.0) -> int:
    """:func:`advisory_locks_of` once it reads 0, or after ``seconds``: a session closed by its client, or by its
    process's end, lets go of its locks when its backend exits on the server, just after."""
    import time

    deadline = time.monotonic() + seconds
    while (count := advisory_locks_of(url, application_name, metadata_only=metadata_only)) and \
            time.monotonic() < deadline:
        time.sleep(0.05)
    return count
