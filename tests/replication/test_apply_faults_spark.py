"""Faults around one apply on real Spark (source and replica in one metastore, the replica's database renamed), both
found by ``make replication``'s two-services test:

* the source moves an INSERT INTO's files into its table just after the event is written, so an applier reading the
  event at once can find them in the statement's work table and lose them mid-copy to the source's moves: its
  statement fails and changes nothing, and it is run again from where the files are then, rows once;
* the replica's metastore going away after the statement committed, while the applier notes what its objects are
  now: the applier stops typed (``AppliedThenStoppedError``: applied, position moved), and the next start goes on
  from the next event."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from ddl_log import AppliedThenStoppedError, AtomicDDL
from ddl_log.replication.follow import Follow
from storage.catalogs.spark.fs.file_mover import SparkFileMoves
from storage.catalogs.spark.profile import local_path
from storage.errors import EngineOperationError
from tests.definitions import partitions, rows

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("replication")]


@pytest.fixture
def homes(clean_spark: Any, tmp_path: Path) -> Any:
    source = AtomicDDL(spark=clean_spark, home=str(tmp_path / "source"))
    source.sql("CREATE DATABASE src")
    source.sql("CREATE TABLE src.p USING parquet PARTITIONED BY (k) AS SELECT id, CAST(id % 2 AS STRING) AS k "
               "FROM range(4)")
    replica = AtomicDDL(spark=clean_spark, home=str(tmp_path / "replica"))
    replica.replica_bootstrap(source.home.location, databases=["src"], rewrite_db={"src": "dst"})
    yield source, replica
    replica.close()
    source.close()


def test_files_moved_by_the_source_during_the_replicas_copy_are_copied_again_from_where_they_went(
        homes, clean_spark, monkeypatch):
    source, replica = homes
    source.sql("INSERT INTO src.p SELECT id + 10, CAST(id % 3 AS STRING) FROM range(6)")
    added = source.binlog_events()[-1].added
    assert added is not None
    table_dir = local_path(added.location)
    assert table_dir is not None
    work = table_dir.parent / "ddllog_99_0a1b2c_tmp"  # as if the source had not moved them in yet
    for file in added.files:
        path = local_path(file.path)
        assert path is not None
        (work / path.parent.name).mkdir(parents=True, exist_ok=True)
        shutil.move(path, work / path.parent.name / path.name)
    copy = SparkFileMoves._copy
    moved_in: list[bool] = []

    def racing_copy(self: SparkFileMoves, from_path: str, to_path: str, name: Any) -> None:
        if not moved_in:  # the source's moves, done while the replica copies from its work table
            for file in added.files:
                path = local_path(file.path)
                assert path is not None
                shutil.move(work / path.parent.name / path.name, path)
            moved_in.append(True)
        copy(self, from_path, to_path, name)

    monkeypatch.setattr(SparkFileMoves, "_copy", racing_copy)
    assert replica.replica_of(source.home.location).apply_available().applied == 1
    assert moved_in and rows(clean_spark, "dst", "p") == rows(clean_spark, "src", "p")  # each row once
    assert partitions(clean_spark, "dst", "p") == partitions(clean_spark, "src", "p")
    assert len(rows(clean_spark, "dst", "p")) == 10


def test_a_replica_catalog_lost_after_the_commit_stops_the_applier_typed_and_the_next_start_goes_on(
        homes, clean_spark, monkeypatch):
    source, replica = homes
    source.sql("ALTER TABLE src.p SET TBLPROPERTIES ('team' = 'blue')")
    source.sql("ALTER TABLE src.p ADD PARTITION (k = 'e6')")
    position = replica.replica_of(source.home.location).position
    noted = Follow.noted

    def metastore_gone(self: Follow, catalog: Any, event: Any) -> None:
        raise EngineOperationError("cannot look up dst.p: the metastore went away", "dst.p")

    monkeypatch.setattr(Follow, "noted", metastore_gone)
    with pytest.raises(AppliedThenStoppedError, match=f"source event {position + 1} .* was applied") as stopped:
        replica.replica_of(source.home.location).apply_available()
    assert stopped.value.seq == position + 1
    monkeypatch.setattr(Follow, "noted", noted)
    applier = replica.replica_of(source.home.location)
    assert applier.position == position + 1  # applied once: not again
    assert applier.apply_available().applied == 1
    assert partitions(clean_spark, "dst", "p") == partitions(clean_spark, "src", "p")
    assert replica.replica_check().ok
