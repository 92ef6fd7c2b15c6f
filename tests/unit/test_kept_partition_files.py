"""The check a partitioned overwrite that keeps partitions makes at its install: the kept partitions' files as the new
version took them, against a listing of them now (what a writer outside the log added or removed since)."""

from __future__ import annotations

from storage.catalogs.spark.sql.partition_keep import _files_of, _kept_changed

LISTED = ("p=0/part-a.parquet", "p=1/part-b.parquet", "p=10/part-c.parquet", "p=1/nested/part-d.parquet")


def test_the_kept_files_are_those_under_a_kept_partitions_directory_and_no_other_with_its_prefix():
    assert _files_of(LISTED, ["p=1"]) == {"p=1/part-b.parquet", "p=1/nested/part-d.parquet"}
    assert _files_of(LISTED, []) == frozenset()


def test_nothing_changed_when_only_a_replaced_partition_was_written():
    kept = _files_of(LISTED, ["p=1", "p=10"])
    assert _kept_changed(kept, (*LISTED, "p=0/part-e.parquet"), ["p=1", "p=10"]) is None


def test_an_added_or_removed_file_of_a_kept_partition_is_named():
    kept = _files_of(LISTED, ["p=1", "p=10"])
    added = _kept_changed(kept, (*LISTED, "p=10/part-new.parquet"), ["p=1", "p=10"])
    assert added == "added p=10/part-new.parquet"
    removed = _kept_changed(kept, tuple(f for f in LISTED if f != "p=1/part-b.parquet"), ["p=1", "p=10"])
    assert removed == "removed p=1/part-b.parquet"


def test_many_names_are_cut_short_and_an_unlistable_table_is_not_refused():
    kept = _files_of(LISTED, ["p=1"])
    many = _kept_changed(kept, (*LISTED, *(f"p=1/x{n}.parquet" for n in range(5))), ["p=1"])
    assert many is not None and many.endswith(" ...") and many.count("p=1/x") == 3
    assert _kept_changed(kept, None, ["p=1"]) is None
