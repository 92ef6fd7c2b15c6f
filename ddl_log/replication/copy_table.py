"""The replica's statement that copies a source table as a new version of its own: the source's whole definition
(partitions included; :meth:`~storage.catalogs.copying.CopyingCatalog.relocated_version`) becomes a TMP table at its
own directory, the source version's files are copied into it as files, then the same swap as every replace installs
it: a reader of the replica sees the old table or the copy, whole (bootstrap, ``resync``). A crash anywhere is the
replace machine's: undone with TMP (whose directory its chain owns) or finished, exactly once."""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from actions.context import ActionContext
from actions.locking import LockKeys, database_key, object_key
from actions.recovery import free_directory_of_dropped
from ddl_log.engine.typed import Statement
from replace_table.machine import ReplaceResult, ReplaceTable
from storage import crashpoints
from storage.catalogs.copying import CopyingCatalog
from storage.catalogs.interface import Fill, TableSpec
from storage.catalogs.lookup_scope import reuse_lookups
from storage.catalogs.names import TableName
from storage.errors import CatalogError

COPIED = crashpoints.declare("replica.copy.files_copied", "a copied table's TMP holds the source version's files "
                             "(some of them, when a crash cuts the copy); nothing is installed yet")


def copying(ctx: ActionContext, name: TableName) -> CopyingCatalog:
    if not isinstance(ctx.catalog, CopyingCatalog):
        raise CatalogError(f"this catalog cannot copy a table version from another catalog into {name}", str(name))
    return ctx.catalog


class CopyVersion(ReplaceTable):
    """The replace machine with TMP made from another catalog's definition and filled by a file copy."""

    def __init__(self, ctx: ActionContext, name: TableName, statement: str, *, definition: str, location: str,
                 source: object) -> None:
        super().__init__(ctx, name, TableSpec(like=name), statement, fill=Fill(files_from=location))
        self.definition = definition
        self.location = location
        self.source = source

    def do_create_tmp(self) -> None:
        catalog = copying(self.ctx, self.orig)
        where = catalog.default_location(self.tmp)
        if where is None:
            raise CatalogError(f"database {self.orig.db} does not exist", self.orig.db)
        catalog.install_version(self.tmp, catalog.relocated_version(self.definition, where), self.tag, create=True)

    def do_fill_tmp(self) -> None:
        copying(self.ctx, self.orig).copy_version_into(self.tmp, self.source, self.location)
        COPIED()


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
        with reuse_lookups():
            free_directory_of_dropped(ctx, self.name)
            return CopyVersion(ctx, self.name, self.binlog_text, definition=self.definition, location=self.location,
                               source=self.source).run()
