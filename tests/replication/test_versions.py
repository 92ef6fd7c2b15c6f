"""The table version an event records (backward compatible on the wire), and where a replica finds its files: at
the recorded location, followed through the source's later renames, or gone, which stops the replica (never a
silent skip to the current version)."""

from __future__ import annotations

import attrs
import pytest

from chains.binlog import BinlogEvent
from chains.version_records import VersionRecord
from ddl_log import SourceVersionGoneError
from ddl_log.replication.copy import copyable, present_location, schema_text
from storage.catalogs.names import TableName

VERSION = VersionRecord(table="`rp`.`s`", location="", columns=(("id", "BIGINT", None), ("w", "STRING", "it's")),
                        partitioned_by=("w",), provider="parquet", properties=(("team", "blue"),), comment="c")


def test_an_event_without_a_version_is_written_and_read_exactly_as_before():
    event = BinlogEvent(1, 7, "DROP TABLE t", ("default.t",), 1.0)
    assert "ver" not in event.to_wire()
    assert BinlogEvent.from_wire(event.to_wire()) == event
    with_version = BinlogEvent(2, 8, "CREATE TABLE s AS SELECT rand()", ("rp.s",), 2.0, version=VERSION)
    assert BinlogEvent.from_wire(with_version.to_wire()) == with_version


def test_a_versions_partitions_empty_ones_included_survive_the_wire_and_older_events_have_none():
    """A partitioned version lists its registered partitions (``ADD PARTITION`` made empty ones no file tells):
    the replica's copy registers them. An event written before has none: ``None``, not ``()`` (no partition)."""
    listed = attrs.evolve(VERSION, partitions=((("w", "a"),), (("w", "__HIVE_DEFAULT_PARTITION__"),), (("w", "é/1"),)))
    event = BinlogEvent(3, 8, "INSERT OVERWRITE rp.s PARTITION (w='a') SELECT 1", ("rp.s",), 3.0, version=listed)
    assert BinlogEvent.from_wire(event.to_wire()) == event
    assert "partitions" not in VERSION.to_wire() and VersionRecord.from_wire(VERSION.to_wire()).partitions is None
    none_left = attrs.evolve(VERSION, partitions=())
    assert VersionRecord.from_wire(none_left.to_wire()).partitions == ()


def test_the_recorded_schema_keeps_types_and_comments_and_only_file_formats_are_copied():
    assert schema_text(VERSION) == "`id` BIGINT, `w` STRING COMMENT 'it\\'s'"
    assert copyable(VERSION) and not copyable(None)
    hive = VersionRecord(table="t", location="/x", columns=(), provider="hive")
    assert not copyable(hive)


def test_a_versions_files_are_found_where_they_are_followed_through_renames_or_the_replica_stops(tmp_path):
    at = tmp_path / "rp.db" / "s"
    at.mkdir(parents=True)
    version = VersionRecord(table="`rp`.`s`", location=f"file:{at}", columns=())
    event = BinlogEvent(5, 1, "CREATE TABLE rp.s AS SELECT ...", ("rp.s",), 1.0, version=version)
    renames = [(TableName.of("rp.s"), TableName.of("rp.s2")), (TableName.of("rp.s2"), TableName.of("rp.S3"))]
    assert present_location(event, version, lambda: renames) == f"file:{at}"
    moved = tmp_path / "rp.db" / "s3"
    at.rename(moved)  # the metastore moved the directory of a table at its default location, twice
    assert present_location(event, version, lambda: renames) == f"file:{moved}"
    moved.rename(tmp_path / "deleted")  # the grace period is over: the version's files are gone
    with pytest.raises(SourceVersionGoneError, match="source event 5") as gone:
        present_location(event, version, lambda: renames)
    assert gone.value.seq == 5 and gone.value.name == "`rp`.`s`"


def test_a_directory_without_the_versions_listed_files_stops_the_replica_never_an_empty_install(tmp_path):
    """Found by the Spark replication soak: CREATE TABLE t, DROP TABLE t, CREATE TABLE t on the source: the second
    CREATE deleted the dropped version at ``<db>/t`` and wrote its own files there. A replica that had not applied
    the first CREATE yet found the directory and installed the version empty. Now the source moves the version
    aside (next test); where its files are nowhere (RELEASE TABLE NAME deleted them), the replica stops, naming
    the event."""
    at = tmp_path / "rp.db" / "r"
    at.mkdir(parents=True)
    (at / "part-00000-first.parquet").write_bytes(b"x")
    version = VersionRecord(table="`rp`.`r`", location=f"file:{at}", columns=(), files=("part-00000-first.parquet",))
    event = BinlogEvent(2, 1, "CREATE TABLE rp.r AS SELECT ...", ("rp.r",), 1.0, version=version)
    assert present_location(event, version, lambda: []) == f"file:{at}"
    (at / "part-00000-first.parquet").unlink()
    (at / "part-00000-second.parquet").write_bytes(b"y")  # the later CREATE's files, in the same directory
    with pytest.raises(SourceVersionGoneError, match=r"source event 2.*RELEASE TABLE NAME") as gone:
        present_location(event, version, lambda: [])
    assert gone.value.name == "`rp`.`r`"


def test_a_dropped_version_moved_aside_for_a_new_table_of_its_name_is_found_where_it_went(tmp_path):
    """The source's CREATE over a dropped name moves the version to ``<db>/ddllog_<n>_kept_<name>``: the replica
    takes the sibling that holds every file the version listed, never another one, nor another table's."""
    database = tmp_path / "rp.db"
    at = database / "r"
    at.mkdir(parents=True)
    (at / "part-00000-second.parquet").write_bytes(b"y")  # the new table's files
    other = database / "ddllog_3_kept_r"
    other.mkdir()
    (other / "part-00000-older.parquet").write_bytes(b"o")  # an older version of r moved aside before
    lookalike = database / "ddllog_5_kept_rr"
    lookalike.mkdir()
    (lookalike / "part-00000-first.parquet").write_bytes(b"z")  # another table's (rr), same file name
    moved = database / "ddllog_9_kept_r"
    moved.mkdir()
    (moved / "part-00000-first.parquet").write_bytes(b"x")
    version = VersionRecord(table="`rp`.`r`", location=f"file:{at}", columns=(), files=("part-00000-first.parquet",))
    event = BinlogEvent(2, 1, "CREATE TABLE rp.r AS SELECT ...", ("rp.r",), 1.0, version=version)
    assert present_location(event, version, lambda: []) == f"file:{moved}"
    unlisted = VersionRecord(table="`rp`.`r`", location=f"file:{at}", columns=(), files=None)
    assert present_location(event, unlisted, lambda: []) == f"file:{at}"  # an old event: the directory as before


def test_a_version_whose_directory_went_where_renames_by_name_cannot_tell_is_found_by_its_files(tmp_path):
    """Found by the Spark soak (seed 9031): t0's version at ``<db>/t0`` became t1's by a rename, was kept at
    ``<db>/t1`` when t1 was replaced, then t1 (living elsewhere by then) was renamed on: following renames by name
    moved the expected location to a directory that never held it. The version's own files name its directory."""
    database = tmp_path / "rp.db"
    (database / "t0").mkdir(parents=True)
    (database / "tmp5").mkdir()
    moved = database / "ddllog_498_kept_t1"
    moved.mkdir()
    (moved / "part-00000-c1f.parquet").write_bytes(b"x")
    version = VersionRecord(table="`rp`.`t0`", location=f"file:{database / 't0'}", columns=(),
                            files=("part-00000-c1f.parquet",))
    event = BinlogEvent(123, 1, "CREATE TABLE rp.t0 AS SELECT ...", ("rp.t0",), 1.0, version=version)
    renames = [(TableName.of("rp.t0"), TableName.of("rp.t1")), (TableName.of("rp.t1"), TableName.of("rp.tmp5"))]
    assert present_location(event, version, lambda: renames) == f"file:{moved}"


def test_a_partitioned_versions_event_lists_its_empty_partitions_and_a_copy_registers_them(tmp_path):
    """In-memory catalog (Spark: tests/replication/test_install_sweep.py): INSERT OVERWRITE of one partition keeps
    an empty one ``ADD PARTITION`` made; the event's version lists it, and a CREATE OR REPLACE given the listed
    partitions (the replica's copy) registers it though no row goes there."""
    from ddl_log import AtomicDDL
    from ddl_log.engine.create_statements import CreateOrReplaceTable
    from storage.catalogs.memory import MemoryTable, memory_catalog

    memory = memory_catalog()
    q = TableName.of("q")
    memory.backend.add_user_table(q, ("v", "k"), [(1, "1"), (2, "2")])
    memory.backend.tables[q].partitioned_by = ("k",)
    memory.backend.tables[q].partitions.extend({"k": k} for k in ("1", "2"))
    with AtomicDDL(home=tmp_path, catalog=memory) as ddl:
        ddl.sql("ALTER TABLE q ADD PARTITION (k = 'e6')")
        ddl.insert_overwrite("q", df=MemoryTable("", ("v",), [(10,)]), partition={"k": "1"})
        version = ddl.binlog_events()[-1].version
        assert version is not None and sorted(version.partitions or ()) == [
            (("k", "1"),), (("k", "2"),), (("k", "e6"),)]
        copy = CreateOrReplaceTable.of("c", df=MemoryTable("", ("v", "k"), [(10, "1")]), partitioned_by=("k",))
        ddl.run(attrs.evolve(copy, partitions=version.partitions))
    assert sorted(p["k"] for p in memory.backend.tables[TableName.of("c")].partitions) == ["1", "2", "e6"]
