"""INSERT OVERWRITE of partitions on the in-memory catalog: which partitions a statement replaces in each partition
overwrite mode and spec form (Spark's rules, checked against plain Spark in tests/spark/test_insert_overwrite.py),
that every other partition keeps its rows, and that bad specs are refused before anything is written."""

from __future__ import annotations

from typing import Any

import pytest

from ddl_log import AtomicDDL, CatalogError
from storage.catalogs.interface import HIVE_DEFAULT_PARTITION
from storage.catalogs.memory import MemoryTable, memory_catalog
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog

Q = TableName.of("q")
R = TableName.of("r")


def catalog() -> Catalog:
    memory = memory_catalog()
    memory.backend.add_user_table(Q, ("v", "k"), [(1, "1"), (2, "2"), (3, None), (4, "1")])
    memory.backend.tables[Q].partitioned_by = ("k",)
    memory.backend.tables[Q].partitions.extend({"k": k} for k in ("1", "2", HIVE_DEFAULT_PARTITION, "5"))
    memory.backend.add_user_table(R, ("v", "a", "b"), [(1, "1", "x"), (2, "1", "y"), (3, "2", "x")])
    memory.backend.tables[R].partitioned_by = ("a", "b")
    memory.backend.tables[R].partitions.extend([{"a": "1", "b": "x"}, {"a": "1", "b": "y"}, {"a": "2", "b": "x"}])
    return memory


def rows(memory: Catalog, name: TableName) -> list[tuple[Any, ...]]:
    return sorted(memory.backend.tables[name].rows, key=repr)


def partitions(memory: Catalog, name: TableName) -> list[list[tuple[str, str]]]:
    return sorted(sorted(p.items()) for p in memory.backend.tables[name].partitions)


@pytest.fixture
def world(tmp_path):
    memory = catalog()
    ddl = AtomicDDL(home=tmp_path, catalog=memory)
    yield ddl, memory
    ddl.close()


def test_defect5_dynamic_mode_keeps_unwritten_partitions(world):
    ddl, memory = world
    ddl.insert_overwrite("q", df=MemoryTable("", ("v", "k"), [(10, "1")]), overwrite_mode="dynamic")
    assert rows(memory, Q) == sorted([(10, "1"), (2, "2"), (3, None)], key=repr)
    assert partitions(memory, Q) == sorted([[("k", k)] for k in ("1", "2", HIVE_DEFAULT_PARTITION, "5")])


def test_dynamic_mode_follows_the_catalogs_mode_and_an_explicit_mode_wins(world):
    ddl, memory = world
    memory.backend.overwrite_mode = "dynamic"
    ddl.insert_overwrite("q", df=MemoryTable("", ("v", "k"), [(10, None)]))
    assert rows(memory, Q) == sorted([(1, "1"), (4, "1"), (2, "2"), (10, None)], key=repr)
    ddl.insert_overwrite("q", df=MemoryTable("", ("v", "k"), [(11, "2")]), overwrite_mode="static")
    assert rows(memory, Q) == [(11, "2")]
    assert partitions(memory, Q) == [[("k", "2")]]


def test_static_mode_without_spec_replaces_the_whole_table(world):
    ddl, memory = world
    ddl.insert_overwrite("q", df=MemoryTable("", ("v", "k"), [(10, "1")]))
    assert rows(memory, Q) == [(10, "1")]
    assert partitions(memory, Q) == [[("k", "1")]]


def test_full_static_spec_replaces_that_partition_even_with_no_new_row(world):
    ddl, memory = world
    ddl.insert_overwrite("q", df=MemoryTable("", ("v",), []), partition={"K": "1"}, overwrite_mode="dynamic")
    assert rows(memory, Q) == sorted([(2, "2"), (3, None)], key=repr)
    assert [("k", "1")] in partitions(memory, Q), "Spark keeps the (now empty) partition of a full static spec"


def test_static_partial_spec_replaces_every_matching_partition(world):
    ddl, memory = world
    ddl.insert_overwrite("r", df=MemoryTable("", ("v", "b"), [(10, "z")]), partition={"a": "1", "b": None})
    assert rows(memory, R) == sorted([(10, "1", "z"), (3, "2", "x")], key=repr)


def test_dynamic_mixed_spec_replaces_only_the_partitions_written(world):
    ddl, memory = world
    ddl.insert_overwrite("r", df=MemoryTable("", ("v", "b"), [(10, "x")]), partition={"a": "1", "b": None},
                         overwrite_mode="dynamic")
    assert rows(memory, R) == sorted([(10, "1", "x"), (2, "1", "y"), (3, "2", "x")], key=repr)


def test_if_not_exists_does_nothing_when_the_partition_exists_even_empty(world):
    ddl, memory = world
    log_size = ddl.log.size
    for value in ("1", "5"):
        assert ddl.insert_overwrite("q", df=MemoryTable("", ("v",), [(10,)]), partition={"k": value},
                                    if_not_exists=True).done is False
    assert ddl.log.size == log_size and ddl.binlog_events() == []
    ddl.insert_overwrite("q", df=MemoryTable("", ("v",), [(10,)]), partition={"k": "7"}, if_not_exists=True)
    assert (10, "7") in memory.backend.tables[Q].rows and (1, "1") in memory.backend.tables[Q].rows


BAD_SPECS: dict[str, tuple[str, dict[str, Any], str]] = {
    "a partial spec (Spark needs every partition column)": ("r", {"partition": {"a": "1"}}, "every partition column"),
    "a static column after a dynamic one": ("r", {"partition": {"a": None, "b": "x"}}, "before the dynamic"),
    "an unknown column": ("q", {"partition": {"nope": "1"}}, "nope is not a partition column"),
    "a spec on an unpartitioned table": ("a", {"partition": {"x": "1"}}, "not partitioned"),
    "IF NOT EXISTS with a dynamic column": ("r", {"partition": {"a": "1", "b": None}, "if_not_exists": True},
                                            "every partition column"),
    "an unknown mode": ("q", {"overwrite_mode": "sometimes"}, "static or dynamic"),
}


@pytest.mark.parametrize("case", sorted(BAD_SPECS))
def test_a_bad_spec_is_refused_before_anything_is_written(tmp_path, case):
    table, kwargs, message = BAD_SPECS[case]
    memory = catalog()
    memory.backend.add_user_table(TableName.of("a"), ("x",), [(1,)])
    before = {name: (list(t.rows), list(t.partitions)) for name, t in memory.backend.tables.items()}
    ddl = AtomicDDL(home=tmp_path, catalog=memory)
    log_size = ddl.log.size
    with pytest.raises(CatalogError, match=message) as raised:
        ddl.insert_overwrite(table, df=MemoryTable("", ("v",), [(10,)]), **kwargs)
    assert raised.value.name == str(TableName.of(table))
    assert ddl.log.size == log_size, "a refused statement writes nothing to the log"
    assert ddl.binlog_events() == []
    ddl.close()
    assert {name: (list(t.rows), list(t.partitions)) for name, t in memory.backend.tables.items()} == before
