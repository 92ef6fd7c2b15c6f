"""The definition swap (what a replace installs the new table with): the plan reads ORIG's whole definition for
the log; the exchange gives ORIG the new table in one call, TMP left as it was; installing the logged definition puts
the old table back (the undo) and forgetting TMP keeps the files ORIG reads; partition keys that differ are refused."""

from __future__ import annotations

from storage.catalogs.interface import Column, Fill, TableSpec
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from tests.contract.support import SIMPLE, Engine


def build(catalog: Catalog, engine: Engine, db: str) -> tuple[TableName, TableName]:
    orig, tmp = TableName(db, "t"), TableName(db, "ddllog_1_abcdef_tmp")
    catalog.data.create(orig, SIMPLE, "old-tag")
    catalog.data.insert(orig, Fill(df=engine.frame((("a", "int"), ("b", "string")), [(1, "x")])))
    catalog.data.create(tmp, TableSpec(columns=(Column("c", "bigint"),)), "new-tag")
    catalog.data.insert(tmp, Fill(df=engine.frame((("c", "bigint"),), [(7,), (8,)])))
    return orig, tmp


def test_an_exchange_gives_orig_the_new_table_in_one_call_and_leaves_tmp(catalog: Catalog, engine: Engine,
                                                                         db: str) -> None:
    orig, tmp = build(catalog, engine, db)
    plan = catalog.swaps.plan_swap(orig, tmp)
    assert plan.refusal is None and plan.old is not None
    calls = []
    catalog.swaps.exchange_definitions(orig, tmp, plan, between=lambda: calls.append(catalog.names.identity(orig)))
    assert calls == ["old-tag"], "right before the call ORIG is still the old table"
    assert catalog.names.identity(orig) == "new-tag" and catalog.names.identity(tmp) == "new-tag"
    assert sorted(engine.rows(orig)) == [(7,), (8,)]


def test_the_logged_definition_puts_the_old_table_back_and_forget_keeps_the_files(catalog: Catalog, engine: Engine,
                                                                                  db: str) -> None:
    orig, tmp = build(catalog, engine, db)
    plan = catalog.swaps.plan_swap(orig, tmp)
    assert plan.old is not None
    catalog.swaps.exchange_definitions(orig, tmp, plan, between=lambda: None)
    catalog.versions.install_version(orig, plan.old.definition, None, create=False)
    assert catalog.names.identity(orig) == "old-tag" and engine.rows(orig) == [(1, "x")]
    assert sorted(engine.rows(tmp)) == [(7,), (8,)], "TMP was never changed"

    orig2, tmp2 = TableName(db, "t2"), TableName(db, "ddllog_2_abcdef_tmp")
    catalog.data.create(orig2, SIMPLE, "old-2")
    catalog.data.create(tmp2, TableSpec(columns=(Column("c", "bigint"),)), "new-2")
    catalog.data.insert(tmp2, Fill(df=engine.frame((("c", "bigint"),), [(9,)])))
    catalog.swaps.exchange_definitions(orig2, tmp2, catalog.swaps.plan_swap(orig2, tmp2), between=lambda: None)
    assert not catalog.swaps.forget_table(tmp2, expect="someone-else")
    assert catalog.swaps.forget_table(tmp2, expect="new-2")
    assert not catalog.names.exists(tmp2)
    assert engine.rows(orig2) == [(9,)], "TMP shared ORIG's files: forgetting it must not delete them"


def test_a_change_of_partition_columns_is_refused(catalog: Catalog, db: str) -> None:
    orig, tmp = TableName(db, "t"), TableName(db, "ddllog_2_abcdef_tmp")
    catalog.data.create(orig, TableSpec(columns=(Column("a", "int"), Column("k", "string")), partitioned_by=("k",)),
                        "o")
    catalog.data.create(tmp, TableSpec(columns=(Column("a", "int"), Column("j", "string")), partitioned_by=("j",)), "n")
    refusal = catalog.swaps.plan_swap(orig, tmp).refusal
    assert refusal is not None and "partition" in refusal
