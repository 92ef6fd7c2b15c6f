"""Table versions (what RESTORE and UNDROP rest on), on both catalogs: ``version_of`` keeps a table's whole
definition as text; ``install_version`` makes it a table again (``create``: UNDROP) or the definition of an existing
table (RESTORE), with the identity asked for, reading the files where they are; external tables keep none."""

from __future__ import annotations

from storage.catalogs.interface import Column, Fill, TableSpec
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from tests.contract.support import SIMPLE, Engine


def test_a_kept_definition_is_installed_again_over_another_version_and_after_a_drop(catalog: Catalog, engine: Engine,
                                                                                 db: str) -> None:
    orig, tmp = TableName(db, "t"), TableName(db, "ddllog_1_abcdef_tmp")
    catalog.data.create(orig, SIMPLE, "old-tag")
    catalog.data.insert(orig, Fill(df=engine.frame((("a", "int"), ("b", "string")), [(1, "x")])))
    catalog.data.create(tmp, TableSpec(columns=(Column("c", "bigint"),)), "new-tag")
    catalog.data.insert(tmp, Fill(df=engine.frame((("c", "bigint"),), [(7,)])))
    catalog.swaps.exchange_definitions(orig, tmp, catalog.swaps.plan_swap(orig, tmp), between=lambda: None)
    catalog.swaps.forget_table(tmp, expect="new-tag")
    old = catalog.versions.version_of(orig)  # the new table's definition, kept before the restore
    assert old is not None and not old.at_default_location
    kept_rows = engine.rows(orig)

    catalog.versions.install_version(orig, old.definition, "restored", create=False)
    assert catalog.names.identity(orig) == "restored" and engine.rows(orig) == kept_rows
    catalog.versions.install_version(orig, old.definition, None, create=False)
    assert catalog.names.identity(orig) == "new-tag", "None: the identity the definition carries"

    assert catalog.names.drop(orig, keep_files=True)
    catalog.versions.install_version(orig, old.definition, "undropped", create=True)
    assert catalog.names.identity(orig) == "undropped" and engine.rows(orig) == kept_rows
    summary = catalog.versions.data_summary(old.location)
    assert summary is None or (summary.files > 0 and summary.size > 0)


def test_a_table_at_its_names_directory_says_so(catalog: Catalog, db: str) -> None:
    name = TableName(db, "plain")
    catalog.data.create(name, SIMPLE, "tag")
    version = catalog.versions.version_of(name)
    assert version is not None and version.at_default_location
    assert catalog.versions.version_of(TableName(db, "missing")) is None
