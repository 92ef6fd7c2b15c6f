"""The replication soak, short: random source scripts (with source crashes), the replica crashed at random
instants; 0 violations (the full one: ``make soak-replica``)."""

from __future__ import annotations

from tests.replication.soak import soak


def test_a_short_replication_soak_finds_no_violation():
    report = soak(seconds=8, seed=28)
    assert report["rounds"] >= 1 and report["crashes"] > 0
    assert report["violations"] == 0, report["problems"]
