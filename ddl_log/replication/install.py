"""The replica's statement that installs a source's table version from its files, as files: CREATE OR REPLACE of
the recorded definition whose TMP table is filled by copying the version's data files into its directory (no Spark
job: a file copy), then the same swap as every replace, so readers see the old or the new version. For versions of
unpartitioned tables on local file systems; the others are read with Spark (:mod:`~ddl_log.replication.copy`)."""

from __future__ import annotations

from typing import ClassVar

import attrs

from actions.context import ActionContext
from chains.lock_keys import LockKeys, database_key, object_key
from ddl_log.engine.create_statements import build_version
from ddl_log.engine.typed import Statement
from replace_table.plans.replace_run import ReplaceResult
from storage.catalogs.interface import Fill, TableSpec
from storage.catalogs.names import TableName


@attrs.frozen(kw_only=True)
class InstallVersion(Statement):
    """CREATE OR REPLACE TABLE ``name`` (``spec``) with the data files of ``files_from``."""

    label: ClassVar[str] = "CREATE OR REPLACE TABLE"
    transactional: ClassVar[bool] = True
    name: TableName
    spec: TableSpec
    files_from: str
    files: tuple[str, ...] | None = None
    """Only these files of ``files_from`` (the version's own); None: every data file there."""

    def canonical_text(self) -> str:
        return f"/* install the version at {self.files_from} as {self.name.quoted} */"

    def lock_keys(self) -> LockKeys:
        return LockKeys((object_key(self.name),), (database_key(self.name.db),))

    def run(self, ctx: ActionContext) -> ReplaceResult:
        return build_version(ctx, self.name, self.spec, self.binlog_text, verb=self.label, orig_must_exist=None,
                             fill=Fill(files_from=self.files_from, files_named=self.files))
