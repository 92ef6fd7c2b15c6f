"""What the Spark replication soak's reader counts as a bad read of the replica (no Spark: the judge alone)."""

from __future__ import annotations

from tests.replication.soak_spark_driver import PARTITIONED, WATCHED, judge


def test_a_whole_version_with_partial_inserts_after_it_is_a_good_read():
    assert judge("sk.t0", [("d1s3:v:10", 10, 5, 14), ("d1s4:i:500", 200, 7, 206)]) is None
    assert judge("sk.t0", []) is None and judge("sk.t0", None) is None  # truncated, or dropped on the source too
    assert judge(PARTITIONED, [("d1s1:v:10", 4, 1, 9), ("d1s2:v:10", 3, 0, 2)]) is None  # a partition overwritten


def test_a_partial_version_two_versions_rows_twice_or_an_empty_watched_table_are_bad_reads():
    assert judge("sk.t0", [("d1s3:v:10", 9, 5, 13)]) == "d1s3:v:10: 9 rows of 10 (a partial version)"
    assert "2 versions" in str(judge("sk.t0", [("a:v:1", 1, 0, 0), ("b:v:1", 1, 3, 3)]))
    assert "rows twice" in str(judge("sk.t1", [("d2s8:i:10", 20, 0, 9)]))
    assert judge(WATCHED, []) == "empty, which it never was"
