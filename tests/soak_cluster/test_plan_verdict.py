"""The cluster soak's model without servers: statements' effects replayed in commit order, the binlog checks and
the reader's classification (the parts the soak's verdict rests on)."""

from __future__ import annotations

import math
import random

import pytest

from tests.readers.model import Read
from tests.soak.readers import ABSENT, content
from tests.soak_cluster import verdict
from tests.soak_cluster.plan import NotApplicableError, apply, plan

POOL = ("t0", "t1", "t2", "t3")


def statement(home: str, begin: dict, *, outcome: str | None = "ok", start: float = 0.0, end: float = 1.0):
    begin = {**begin, "start": start}
    return verdict.Statement(home, begin, None if outcome is None else {"outcome": outcome, "end": end})


def test_plans_only_statements_the_seen_tables_allow():
    rng = random.Random(7)
    for _ in range(200):
        begin = plan(rng, "d1s0", POOL, ["t0"])
        effect = begin["effect"]
        if effect["op"] == "rename":
            assert len(effect["pairs"]) == 1 and effect["pairs"][0][0] == "t0"
        if effect["op"] in ("overwrite", "truncate"):
            assert effect["table"] == "t0"
        if effect["op"] == "create":
            assert effect["table"] != "t0"
        assert begin["text"].endswith("/* soak:d1s0 */")


def test_a_swap_exchanges_two_tables_contents():
    state = {"a": [[0, 1, "x"]], "b": [[5, 9, "y"]]}
    after = apply(state, {"op": "rename", "pairs": [["a", "c"], ["b", "a"], ["c", "b"]]})
    assert after == {"a": [[5, 9, "y"]], "b": [[0, 1, "x"]]}


def test_a_statement_that_could_not_have_run_in_commit_order_names_why():
    with pytest.raises(NotApplicableError, match="CREATE TABLE a: it existed"):
        apply({"a": []}, {"op": "create", "table": "a", "seg": [[0, 1, "s"]]})


def test_binlog_check_finds_a_returned_statement_missing_and_a_failed_one_committed():
    begin = plan(random.Random(1), "d1s0", POOL, [])
    failed = plan(random.Random(2), "d2s0", POOL, [])
    statements = {"d1s0": statement("d1", begin), "d2s0": statement("d2", failed, outcome="failed")}
    events = [{"seq": 1, "statement": failed["text"], "driver": "d2"}]
    found = verdict.Verdict()
    verdict.check_binlog(found, statements, "per-home", events)
    assert sorted(v["what"] for v in found.violations) == [
        "statement failed but is in the binlog", "statement returned but is not in the binlog"]


def test_a_killed_statement_may_be_committed_once_or_not_at_all():
    begin = plan(random.Random(1), "d1s0", POOL, [])
    statements = {"d1s0": statement("d1", begin, outcome=None)}
    found = verdict.Verdict()
    assert verdict.check_binlog(found, statements, "catalog", []) == []
    twice = [{"seq": 1, "statement": begin["text"], "driver": "d1"}, {"seq": 2, "statement": begin["text"],
                                                                      "driver": "d3"}]
    verdict.check_binlog(found, statements, "catalog", twice)
    assert [v["what"] for v in found.violations] == ["statement is in the binlog 2 times"]


def test_reads_of_the_old_or_new_version_are_good_and_a_mix_is_not():
    replace = {"op": "begin", "sid": "d1s0", "kind": "cor_select", "text": "x /* soak:d1s0 */",
               "effect": {"op": "replace", "table": "t0", "seg": [[0, 10, "d1s0"]]}}
    second = {**replace, "sid": "d1s1", "effect": {"op": "replace", "table": "t0", "seg": [[0, 5, "d1s1"]]}}
    statements = {"d1s0": statement("d1", replace, start=1, end=2), "d1s1": statement("d1", second, start=3, end=4)}
    committed = [({"seq": 1}, statements["d1s0"]), ({"seq": 2}, statements["d1s1"])]
    found = verdict.Verdict()
    replayed = verdict.replay(found, committed, statements, soak_end=10)
    old, new = content({"seg": [[0, 10, "d1s0"]]}), content({"seg": [[0, 5, "d1s1"]]})
    mixed = content({"seg": [[0, 10, "d1s0"], [0, 5, "d1s1"]]})
    reads = [Read("r", "t0", 0.5, 0.6, ABSENT), Read("r", "t0", 3.2, 3.5, old), Read("r", "t0", 3.2, 3.5, new),
             Read("r", "t0", 3.2, 3.5, mixed)]
    verdict.check_reads(found, reads, replayed)
    assert found.counts["reads"]["bad"] == 1 and found.violations[0]["kind"] == "reader"
    assert replayed.versions["t0"][0].earliest == -math.inf


def test_a_read_failing_on_a_missing_file_while_its_table_is_dropped_is_not_bad_at_any_other_time_it_is():
    """DROP TABLE deletes the files at once, as Spark's own DROP does (only replaces keep the old version for
    readers): a query reading the table in another driver at that instant may fail on a missing file."""
    create = {"op": "begin", "sid": "d1s0", "kind": "create_select", "text": "x /* soak:d1s0 */",
              "effect": {"op": "create", "table": "t0", "seg": [[0, 10, "d1s0"]]}}
    drop = {"op": "begin", "sid": "d2s0", "kind": "drop", "text": "DROP TABLE t0 /* soak:d2s0 */",
            "effect": {"op": "drop", "tables": ["t0"]}}
    statements = {"d1s0": statement("d1", create, start=1, end=2), "d2s0": statement("d2", drop, start=5, end=6)}
    committed = [({"seq": 1}, statements["d1s0"]), ({"seq": 2}, statements["d2s0"])]
    found = verdict.Verdict()
    replayed = verdict.replay(found, committed, statements, soak_end=10)
    gone = "FAILED_READ_FILE.FILE_NOT_EXIST: ... File does not exist."
    reads = [Read("r", "t0", 5.2, 5.8, None, gone), Read("r", "t0", 3.0, 3.5, None, gone)]
    verdict.check_reads(found, reads, replayed)
    assert found.counts["reads"]["dropped_mid_read"] == 1 and found.counts["reads"]["bad"] == 1


def test_a_replaced_versions_directory_dropped_with_its_table_by_another_driver_is_not_missing():
    """Seed 2857324205: driver d2 replaced t2 (its old version waits at <warehouse>/t2 in d2's log), driver d1 later
    dropped t2, and DROP deletes the name's default directory with the table; d2's scheduled deletion then finds
    nothing. A pending directory of a name no DROP touched must still be there."""
    drop = {"op": "begin", "sid": "d1s0", "kind": "drop", "text": "DROP TABLE t2 /* soak:d1s0 */",
            "effect": {"op": "drop", "tables": ["t2"]}}
    statements = {"d1s0": statement("d1", drop, start=1, end=2)}
    observed = {"tables": {}, "reserved": [], "dirs": [], "files": []}
    found = verdict.Verdict()
    verdict.check_catalog(found, {}, observed, ["file:/w/t2"], statements)
    assert found.violations == []
    verdict.check_catalog(found, {}, observed, ["file:/w/t3"], statements)
    assert [v["object"] for v in found.violations] == ["t3"]


def test_an_undone_work_tables_directory_waiting_for_its_sweep_is_neither_required_nor_an_orphan():
    """On a cluster an undone statement's work-table directory is removed by the undo and swept again once the
    orphan window is over (found by the soak on a standalone cluster): until then it may be absent, or made again
    by a late task; any other directory is still an orphan."""
    observed = {"tables": {}, "reserved": [], "dirs": [], "files": []}
    found = verdict.Verdict()
    verdict.check_catalog(found, {}, observed, [], {}, ["file:/w/ddllog_1_ab_tmp"])
    assert found.violations == []
    verdict.check_catalog(found, {}, {**observed, "dirs": ["ddllog_1_ab_tmp"]}, [], {}, ["file:/w/ddllog_1_ab_tmp"])
    assert found.violations == []
    verdict.check_catalog(found, {}, {**observed, "dirs": ["ddllog_2_cd_tmp"]}, [], {}, ["file:/w/ddllog_1_ab_tmp"])
    assert [v["object"] for v in found.violations] == ["ddllog_2_cd_tmp"]
