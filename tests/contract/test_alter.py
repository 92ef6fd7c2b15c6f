"""ALTER TABLE as the log replays it: properties, column comments, added columns, partitions."""

from __future__ import annotations

from storage.catalogs.interface import TAG_KEYS, Column, TableSpec
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from storage.errors import InvalidDefinitionError, NoSuchObjectError, ObjectExistsError
from tests.contract.support import SIMPLE, raises

PARTITIONED = TableSpec(columns=(Column("a", "int"), Column("k", "string")), partitioned_by=("k",))


def test_properties_are_set_and_unset(catalog: Catalog, db: str) -> None:
    t = TableName(db, "t")
    catalog.data.create(t, SIMPLE, "tag-1")
    catalog.definitions.set_properties(t, {"team": "x", "stage": "raw"})
    catalog.definitions.unset_properties(t, ("stage", "never_set"))
    metadata = catalog.definitions.table_metadata(t)
    assert metadata is not None  # the tag: among the properties (memory) or hidden from them (Spark, classic)
    assert {k: v for k, v in metadata.property_map.items() if k not in TAG_KEYS} == {"team": "x"}
    assert catalog.names.identity(t) == "tag-1"


def test_a_column_comment_is_set_and_removed_on_existing_data_columns_only(catalog: Catalog, db: str) -> None:
    t = TableName(db, "t")
    catalog.data.create(t, PARTITIONED, "tag-1")
    catalog.definitions.set_column_comment(t, "a", "the a")
    metadata = catalog.definitions.table_metadata(t)
    assert metadata is not None and metadata.column("a") == Column("a", "int", "the a")
    catalog.definitions.set_column_comment(t, "a", "")
    metadata = catalog.definitions.table_metadata(t)
    assert metadata is not None and metadata.column("a") == Column("a", "int", None)
    raises(NoSuchObjectError, "nope", lambda: catalog.definitions.set_column_comment(t, "nope", "x"))
    raises(InvalidDefinitionError, t, lambda: catalog.definitions.set_column_comment(t, "k", "x"))


def test_added_columns_go_before_the_partition_columns_and_never_twice(catalog: Catalog, db: str) -> None:
    t = TableName(db, "t")
    catalog.data.create(t, PARTITIONED, "tag-1")
    catalog.definitions.add_columns(t, (Column("c", "bigint"),))
    metadata = catalog.definitions.table_metadata(t)
    assert metadata is not None
    assert [(c.name, c.type) for c in metadata.columns] == [("a", "int"), ("c", "bigint"), ("k", "string")]
    raises(ObjectExistsError, "a", lambda: catalog.definitions.add_columns(t, (Column("A", "int"),)))


def test_partitions_are_added_listed_and_dropped(catalog: Catalog, db: str) -> None:
    t, plain = TableName(db, "t"), TableName(db, "plain")
    catalog.data.create(t, PARTITIONED, "tag-1")
    catalog.definitions.add_partition(t, {"k": "1"})
    catalog.definitions.add_partition(t, {"k": "1"})
    catalog.definitions.add_partition(t, {"k": "2"})
    assert sorted(p["k"] for p in catalog.definitions.list_partitions(t)) == ["1", "2"]
    assert catalog.definitions.list_partitions(t, {"k": "2"}) == [{"k": "2"}]
    catalog.definitions.drop_partition(t, {"k": "1"})
    catalog.definitions.drop_partition(t, {"k": "9"})
    assert catalog.definitions.list_partitions(t) == [{"k": "2"}]
    raises(InvalidDefinitionError, t, lambda: catalog.definitions.add_partition(t, {"z": "1"}))
    catalog.data.create(plain, SIMPLE, "tag-2")
    assert catalog.definitions.list_partitions(plain) == []
    raises(InvalidDefinitionError, plain, lambda: catalog.definitions.add_partition(plain, {"k": "1"}))


def test_several_partitions_are_added_in_one_call_and_a_partial_spec_drops_all_it_matches(
        catalog: Catalog, db: str) -> None:
    t = TableName(db, "t")
    spec = TableSpec(columns=(Column("a", "int"), Column("k", "string"), Column("h", "string")),
                     partitioned_by=("k", "h"))
    catalog.data.create(t, spec, "tag-1")
    catalog.definitions.add_partitions(t, [{"k": "1", "h": "a"}, {"k": "1", "h": "b"}, {"k": "2", "h": "a"}])
    catalog.definitions.add_partitions(t, [{"k": "1", "h": "a"}, {"k": "3", "h": "a"}])  # an existing one: left alone
    assert len(catalog.definitions.list_partitions(t)) == 4
    catalog.definitions.drop_partitions(t, [{"k": "1"}, {"k": "3", "h": "a"}, {"k": "9"}])  # a missing one: ignored
    assert catalog.definitions.list_partitions(t) == [{"k": "2", "h": "a"}]
    raises(InvalidDefinitionError, t, lambda: catalog.definitions.add_partitions(t, [{"k": "4"}]))
