"""Faults on the source side get a clear error, and nothing is applied twice or skipped (in-memory catalogs: the
applier's reading of the source is what is under test; the Spark services are in test_two_services.py).

* damage inside an older binlog segment: the applier applies up to the damage and stops there, naming the offset;
* a segment deleted (the binlog cut at its head or in the middle): it stops before the gap, naming the events;
* a torn record at the end of the newest segment is a write in progress: nothing is wrong, it is read once whole;
* the source's PostgreSQL going away mid-apply (a database home's catalog binlog): the applier stops with a typed
  error naming the database (never its password), and once the server is back it goes on, each event once. The
  password is in no output: the error, ``replica status`` (text and JSON), the replica's state file, the background
  applier's log, ``binlog --sql``.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from ddl_log import AtomicDDL, SourceDamagedError, SourceEventsMissingError, SourceUnavailableError
from ddl_log.ops import postgres
from tests.replication.test_apply_exactly_once import SOURCE_SCRIPT, Replica, applied_seqs, ddl_log_cli
from tests.unit.test_statement_sweeps import catalog_state, populated_catalog

SECRET = "s3cret-pw"


def segmented_source(tmp_path: Path) -> tuple[str, list[Path]]:
    """A source home whose binlog holds the script in several small segments."""
    home = str(tmp_path / "source")
    with AtomicDDL(home=home, catalog=populated_catalog(), binlog_segment_bytes=300) as ddl:
        for statement in SOURCE_SCRIPT:
            statement(ddl)
    segments = sorted((tmp_path / "source" / "binlog").glob("binlog.*"))
    assert len(segments) >= 3
    return home, segments


def test_damage_in_an_older_segment_stops_the_applier_at_the_damage_naming_the_offset(tmp_path):
    source, segments = segmented_source(tmp_path)
    data = bytearray(segments[1].read_bytes())
    data[-5] ^= 0xFF  # the last record of the second segment
    segments[1].write_bytes(bytes(data))
    replica = Replica(str(tmp_path / "replica"), source)
    with replica.open() as ddl:
        with pytest.raises(SourceDamagedError, match="damaged at offset") as damaged:
            replica.apply(ddl)
        position = ddl.replica_of(source).position
        assert damaged.value.after_seq == position and applied_seqs(ddl) == list(range(1, position + 1))
        with pytest.raises(SourceDamagedError):  # and again, never past it
            replica.apply(ddl)


def test_a_deleted_segment_stops_the_applier_before_the_gap(tmp_path):
    source, segments = segmented_source(tmp_path)
    segments[1].unlink()
    replica = Replica(str(tmp_path / "replica"), source)
    with replica.open() as ddl:
        with pytest.raises(SourceEventsMissingError, match="are missing") as missing:
            replica.apply(ddl)
        position = ddl.replica_of(source).position
        assert missing.value.after_seq == position and missing.value.found_seq > position + 1
        assert applied_seqs(ddl) == list(range(1, position + 1))


def test_a_torn_last_record_is_a_write_in_progress_read_once_whole(tmp_path):
    source, segments = segmented_source(tmp_path)
    whole = segments[-1].read_bytes()
    segments[-1].write_bytes(whole[:-3])
    replica = Replica(str(tmp_path / "replica"), source)
    with replica.open() as ddl:
        first = replica.apply(ddl)
        segments[-1].write_bytes(whole)
        second = replica.apply(ddl)
        assert second.applied == 1 and first.applied + 1 == len(SOURCE_SCRIPT)
        assert applied_seqs(ddl) == list(range(1, len(SOURCE_SCRIPT) + 1))


@pytest.fixture
def own_postgres():
    """A PostgreSQL cluster of this test's own, which it stops and starts again."""
    root = Path(tempfile.mkdtemp(prefix="ddl-log-test-fault-pg-"))
    root.chmod(0o755)
    try:
        yield postgres.start(root)
    finally:
        postgres.stop(root)
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.servers
def test_the_sources_postgresql_going_away_stops_the_applier_typed_and_it_goes_on_once_when_back(own_postgres,
                                                                                                  tmp_path):
    server = own_postgres
    url = postgres.create_database(server, "ddl")
    shared = populated_catalog()
    with AtomicDDL(home=f"{url}?home=etl-1", catalog=shared) as driver:
        for statement in SOURCE_SCRIPT:
            statement(driver)
    source = f"{url}?home=etl-1".replace("postgres@", f"postgres:{SECRET}@", 1)  # trust auth: any password
    assert SECRET in source
    replica = Replica(str(tmp_path / "replica"), source)
    ddl = replica.open()
    applier = ddl.replica_of(source)
    assert applier.apply_available(until=3).position == 3
    postgres.stop(server.root)
    with pytest.raises(SourceUnavailableError) as gone:
        applier.apply_available()
    assert gone.value.name == f"pg:127.0.0.1:{server.port}/ddl" and SECRET not in str(gone.value)
    assert applier.position == 3 and applied_seqs(ddl) == [1, 2, 3]
    ddl.close()
    outputs = [str(gone.value), *status_outputs(replica.home, source),
               (Path(replica.home) / "replication" / "state.json").read_text(encoding="utf-8"),
               background_applier_log(replica.home, source)]
    postgres.start(server.root, port=server.port)
    ddl = replica.open()
    assert ddl.replica_of(source).apply_available().position == len(SOURCE_SCRIPT)
    assert applied_seqs(ddl) == list(range(1, len(SOURCE_SCRIPT) + 1))
    ddl.close()
    assert catalog_state(replica.catalog) == catalog_state(shared)
    outputs += [*status_outputs(replica.home, source), ddl_log_cli("--home", source, "binlog", "--sql").stdout]
    assert "cannot be read now" in outputs[0] and "pg:127.0.0.1" in outputs[-1]
    assert not [text for text in outputs if SECRET in text]


def status_outputs(home: str, source: str) -> list[str]:
    done = [ddl_log_cli("--home", home, "replica", "status", "--source", source, *json) for json in ((), ("--json",))]
    assert all(not result.stderr or "Traceback" not in result.stderr for result in done)
    return [text for result in done for text in (result.stdout, result.stderr)] + [
        json.dumps(json.loads(done[1].stdout)) if done[1].stdout.strip() else ""]


def background_applier_log(home: str, source: str) -> str:
    """``replica start`` with the source down: the background applier stops at once, its error in its log."""
    started = ddl_log_cli("--home", home, "replica", "start", "--source", source)
    log = Path(home) / "replication" / "applier.log"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and "cannot" not in (log.read_text(encoding="utf-8") if log.exists() else ""):
        time.sleep(0.2)
    text = log.read_text(encoding="utf-8")
    assert "cannot" in text, text
    return started.stdout + started.stderr + text
