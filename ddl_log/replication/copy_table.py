"""The replica's statement that copies a source table as a new version of its own: the source's whole definition
(partitions included; :meth:`~storage.catalogs.ports.Copies.relocated_version`) becomes a TMP table at its
own directory, the source version's files are copied into it as files, then the same swap as every replace installs
it: a reader of the replica sees the old table or the copy, whole (bootstrap, ``resync``). A crash anywhere is the
replace machine's: undone with TMP (whose directory its chain owns) or finished, exactly once."""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from actions.context import ActionContext
from chains.lock_keys import LockKeys, database_key, object_key
from ddl_log.engine.typed import Statement
from replace_table.plans.replace import replace_version
from replace_table.plans.replace_run import ReplaceResult, ReplaceRun, TmpWork
from storage import crashpoints
from storage.catalogs.interface import Fill, TableSpec
from storage.catalogs.lookup_scope import reuse_lookups
from storage.catalogs.names import TableName
from storage.errors import CatalogError

COPIED = crashpoints.declare("replica.copy.files_copied", "a copied table's TMP holds the source version's files "
                             "(some of them, when a crash cuts the copy); nothing is installed yet")


def copy_into_tmp(definition: str, source: object, location: str) -> tuple[TmpWork, TmpWork]:
    """The replace plan's ``make_tmp`` and ``fill_tmp`` for a copy: TMP made from another catalog's ``definition``
    and filled by a file copy of the version at ``location`` in ``source``'s storage."""

    def make_tmp(run: ReplaceRun) -> None:
        catalog = run.ctx.catalog
        where = catalog.names.default_location(run.tmp)
        if where is None:
            raise CatalogError(f"database {run.orig.db} does not exist", run.orig.db)
        catalog.versions.install_version(run.tmp, catalog.copies.relocated_version(definition, where), run.log.tag,
                                         create=True)

    def fill_tmp(run: ReplaceRun) -> None:
        run.ctx.catalog.copies.copy_version_into(run.tmp, source, location)
        COPIED()

    return make_tmp, fill_tmp


@attrs.frozen(kw_only=True)
class CopyTable(Statement):
    """CREATE OR REPLACE TABLE ``name`` as the copy of another catalog's table version (``definition``, its files at
    ``location`` in ``source``'s storage)."""

    label: ClassVar[str] = "CREATE OR REPLACE TABLE"
    name: TableName
    definition: str = attrs.field(repr=False)
    location: str
    source: Any = attrs.field(default=None, eq=False, repr=False)

    def canonical_text(self) -> str:
        return f"/* copy of the table version at {self.location.replace('*', '')} as {self.name.quoted} */"

    def lock_keys(self) -> LockKeys:
        return LockKeys((object_key(self.name),), (database_key(self.name.db),))

    def run(self, ctx: ActionContext) -> ReplaceResult:
        make_tmp, fill_tmp = copy_into_tmp(self.definition, self.source, self.location)
        with reuse_lookups():
            return replace_version(ctx, self.name, TableSpec(like=self.name), self.binlog_text,
                                   fill=Fill(files_from=self.location), frees_name=True, make_tmp=make_tmp,
                                   fill_tmp=fill_tmp)
