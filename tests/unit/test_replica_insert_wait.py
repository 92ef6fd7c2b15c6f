"""A replica reads an INSERT INTO's binlog event as soon as the source commits it, and the source moves the files
into the table right after its commit point (MOVE_FILES rolls forward; after a crash, its recovery or a takeover):
the replica's statement waits for the files the event lists instead of calling them gone (the two-services test
once stopped the applier so, while the source was still moving them), and still stops, typed, when they never
come. Files only: no Spark."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from chains.binlog import BinlogEvent
from chains.version_records import AddedFile, AddedFiles
from ddl_log import SourceVersionGoneError
from ddl_log.replication.added import insert_statement


def event_adding(table_dir: Path, names: list[str]) -> BinlogEvent:
    added = AddedFiles(table="db.t", location=f"file:{table_dir}", identity=None,
                       files=tuple(AddedFile(f"file:{table_dir}/{name}") for name in names),
                       columns=(("a", "int"),))
    return BinlogEvent(7, 1, "INSERT INTO db.t SELECT 1", added=added)


def test_files_the_source_is_still_moving_in_are_waited_for(tmp_path: Path) -> None:
    table_dir = tmp_path / "t"
    table_dir.mkdir()
    event = event_adding(table_dir, ["part-0.parquet", "part-1.parquet"])
    (table_dir / "part-0.parquet").write_bytes(b"x")
    mover = threading.Timer(0.5, lambda: (table_dir / "part-1.parquet").write_bytes(b"y"))
    mover.start()
    statement = insert_statement(event, "/* replica */ INSERT INTO db.t", list, wait_seconds=20)
    mover.join()
    assert [path for path, _ in statement.fill.copy_files] == [f"file:{table_dir}/part-0.parquet",
                                                              f"file:{table_dir}/part-1.parquet"]


def test_files_that_never_come_stop_the_replica_naming_the_event(tmp_path: Path) -> None:
    table_dir = tmp_path / "t"
    table_dir.mkdir()
    event = event_adding(table_dir, ["part-0.parquet"])
    with pytest.raises(SourceVersionGoneError, match="source event 7"):
        insert_statement(event, "/* replica */ INSERT INTO db.t", list, wait_seconds=0.3)


def test_files_of_a_dropped_table_moved_aside_for_a_new_table_of_its_name_are_found_there(tmp_path: Path) -> None:
    """Source: INSERT INTO t, DROP TABLE t, CREATE TABLE t: the dropped version (with the inserted files) moved to
    ``ddllog_<n>_kept_t`` beside; a replica that applies the INSERT later copies them from there."""
    table_dir = tmp_path / "t"
    table_dir.mkdir()
    (table_dir / "part-new.parquet").write_bytes(b"n")  # the new table's
    moved = tmp_path / "ddllog_12_kept_t"
    (moved / "k=1").mkdir(parents=True)
    (moved / "k=1" / "part-0.parquet").write_bytes(b"x")
    event = event_adding(table_dir, ["k=1/part-0.parquet"])
    statement = insert_statement(event, "/* replica */ INSERT INTO db.t", list, wait_seconds=0.3)
    assert [path for path, _ in statement.fill.copy_files] == [f"file:{moved}/k=1/part-0.parquet"]


def test_a_rename_of_the_new_table_of_the_name_does_not_hide_the_moved_files(tmp_path: Path) -> None:
    """Source: INSERT INTO t, DROP t, CREATE t, RENAME t TO t2: the rename moved the new table's directory, not the
    dropped version's (found by the Spark replica test: followed to ``t2``, the files were called gone)."""
    from storage.catalogs.names import TableName

    table_dir = tmp_path / "t"
    (tmp_path / "t2").mkdir()
    moved = tmp_path / "ddllog_12_kept_t"
    moved.mkdir()
    (moved / "part-0.parquet").write_bytes(b"x")
    event = event_adding(table_dir, ["part-0.parquet"])
    statement = insert_statement(event, "/* replica */ INSERT INTO db.t", lambda: [
        (TableName.of("db.t"), TableName.of("db.t2"))], wait_seconds=0.3)
    assert [path for path, _ in statement.fill.copy_files] == [f"file:{moved}/part-0.parquet"]
