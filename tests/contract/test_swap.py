"""The definition swap (what a replace installs the new table with): after the exchange ORIG is the new table and
TMP holds the old definition; restore puts it back with ORIG's identity; forget removes a holder without its files;
partition keys that differ are refused."""

from __future__ import annotations

from storage.catalogs.interface import Catalog, Column, Fill, TableSpec
from storage.catalogs.names import TableName
from tests.contract.support import SIMPLE, Engine


def build(catalog: Catalog, engine: Engine, db: str) -> tuple[TableName, TableName]:
    orig, tmp = TableName(db, "t"), TableName(db, "ddllog_1_abcdef_tmp")
    catalog.create(orig, SIMPLE, "old-tag")
    catalog.insert(orig, Fill(df=engine.frame((("a", "int"), ("b", "string")), [(1, "x")])))
    catalog.create(tmp, TableSpec(columns=(Column("c", "bigint"),)), "new-tag")
    catalog.insert(tmp, Fill(df=engine.frame((("c", "bigint"),), [(7,), (8,)])))
    return orig, tmp


def test_an_exchange_gives_orig_the_new_table_and_tmp_the_old_definition(catalog: Catalog, engine: Engine,
                                                                         db: str) -> None:
    orig, tmp = build(catalog, engine, db)
    assert catalog.swap_refusal(orig, tmp) is None
    calls = []
    catalog.exchange_definitions(orig, tmp, "new-tag:holder", between=lambda: calls.append(catalog.identity(orig)))
    assert calls == ["old-tag"], "between the two calls ORIG is still the old table"
    assert catalog.identity(orig) == "new-tag" and catalog.identity(tmp) == "new-tag:holder"
    assert sorted(engine.rows(orig)) == [(7,), (8,)]
    assert engine.rows(tmp) == [(1, "x")]


def test_restore_puts_the_old_definition_back_and_forget_keeps_its_files(catalog: Catalog, engine: Engine,
                                                                         db: str) -> None:
    orig, tmp = build(catalog, engine, db)
    catalog.exchange_definitions(orig, tmp, "new-tag:holder", between=lambda: None)
    catalog.restore_definition(orig, tmp, "old-tag")
    assert catalog.identity(orig) == "old-tag" and engine.rows(orig) == [(1, "x")]
    assert not catalog.forget_table(tmp, expect="someone-else")
    assert catalog.forget_table(tmp, expect="new-tag:holder")
    assert not catalog.exists(tmp)
    assert engine.rows(orig) == [(1, "x")], "the holder shared ORIG's files: forgetting it must not delete them"


def test_a_change_of_partition_columns_is_refused(catalog: Catalog, db: str) -> None:
    orig, tmp = TableName(db, "t"), TableName(db, "ddllog_2_abcdef_tmp")
    catalog.create(orig, TableSpec(columns=(Column("a", "int"), Column("k", "string")), partitioned_by=("k",)), "o")
    catalog.create(tmp, TableSpec(columns=(Column("a", "int"), Column("j", "string")), partitioned_by=("j",)), "n")
    refusal = catalog.swap_refusal(orig, tmp)
    assert refusal is not None and "partition" in refusal
