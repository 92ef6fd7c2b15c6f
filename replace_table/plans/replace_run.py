"""The state of one replace (a statement that builds a new version of a table: CREATE [OR REPLACE], TRUNCATE, INSERT
OVERWRITE, ALTER rebuilds, a replica's copy), the steps every path of it shares (TMP logged, made and filled; the
commit; the old version retired), and how its path is chosen. The paths: :mod:`~replace_table.plans.swap_path`,
:mod:`~replace_table.plans.rename_path`, :mod:`~replace_table.plans.create_path`,
:mod:`~replace_table.plans.empty_path`; the plan
that joins them: :mod:`~replace_table.plans.replace`."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

import attrs

from actions.context import ActionContext
from actions.kinds.create_table import log_create_table
from actions.results import StatementResult
from chains.binlog import BinlogEvent
from replace_table.plans.recorded_version import version_record
from replace_table.statement_log import StatementLog
from storage import crashpoints
from storage.catalogs.interface import Fill, SwapPlan, TableSpec, TableVersion
from storage.catalogs.names import FINGERPRINT_PREFIX, TableName
from storage.errors import CatalogError, ConcurrentChangeError, NoSuchObjectError

Path = Literal["swap", "rename", "create", "empty", "write"]


@attrs.frozen(kw_only=True)
class ReplaceResult(StatementResult):
    """The result of a statement that builds a new table version (CREATE [OR REPLACE], TRUNCATE, INSERT OVERWRITE,
    ALTER TABLE rebuilds)."""

    name: TableName
    replaced: bool
    """False when ORIG did not exist (an atomic create)."""
    backup_pending: bool = False
    """The new table is committed but retiring the old one failed; recovery finishes it."""
    path: Path = "create"
    """``swap``: ORIG took the new definition in one metastore call (the name never went missing); ``empty``: the
    same for TRUNCATE, with no TMP table (ORIG's own definition, emptied, at a new directory); ``write``: the same for
    an INSERT OVERWRITE or a CREATE OR REPLACE's CTAS, the new rows written into the new directory first (no TMP
    table); ``rename``: the
    rename algorithm (see ``swap_refused``); ``create``: ORIG did not exist."""
    swap_refused: str | None = None
    """Why the rename path was taken."""
    old_data: str | None = None
    """Swap path: ORIG's old directory, deleted once the grace period is over (``AtomicDDL.pending_deletions``)."""
    version: int | None = None
    """Swap path: the number of the kept previous version (``RESTORE TABLE ... TO VERSION AS OF``), if one is kept."""

    def describe(self) -> str:
        if not self.replaced:
            return "created"
        if self.path in ("swap", "empty", "write"):
            return "replaced the old table: definition swap, old files kept for readers"
        return f"replaced the old table: rename swap ({self.swap_refused})"


TmpWork = Callable[["ReplaceRun"], None]


@attrs.define(kw_only=True)
class ReplaceRun:
    """One replace of ``orig`` by a version built from ``spec`` (filled by ``fill``) under the TMP name."""

    ctx: ActionContext
    log: StatementLog
    orig: TableName
    spec: TableSpec
    verb: str
    fill: Fill | None = None
    frees_name: bool = False
    """Run the name-hold pre-flight first (:func:`actions.name_holds.free_directory_of_dropped`)."""
    keeps_statistics: bool = False
    """The statement is one Spark runs in place (INSERT OVERWRITE, TRUNCATE), ending with its statistics update:
    the new version takes ORIG's statistics, then that update (``SwapPlan.updates_statistics``,
    ``Swaps.settle_statistics``), where a replace takes the new version's (as a CTAS) and an ALTER TABLE rebuild
    has them counted (as every ALTER of Spark's has)."""
    make_tmp: TmpWork | None = None
    fill_tmp: TmpWork | None = None
    """Another way to make and fill TMP than ``DataJobs.create`` and ``DataJobs.insert`` (a replica's copy)."""
    tmp: TableName = attrs.field(init=False)
    backup: TableName = attrs.field(init=False)
    orig_identity: str | None = None
    orig_files: tuple[str, ...] | None = None
    """ORIG's data files as the statement read them, where its identity is a fingerprint (:func:`files_read`)."""
    path: Path | None = None
    """Chosen before the statement runs (create, empty) or once TMP is built (swap or rename)."""
    swap_refused: str | None = None
    plan: SwapPlan | None = None
    keep_backup: bool = False
    """Rename path: ORIG's definition can be kept whole, so BACKUP's files stay as the previous version."""
    old_version: TableVersion | None = None
    old_location: str | None = None
    retention: float = 0.0
    drop_chain: int | None = None
    delete_chain: int | None = None
    kept_number: int | None = None
    """The number the old version is kept under (None: its deletion chain's position, or none kept)."""
    forget_chain: int | None = None
    """Create and rename paths, TMP installed by its definition: the chain that forgets TMP after the commit."""
    write_job: object | None = None
    """The write path: the job that writes the new rows into the new version's directory
    (``DataJobs.prepare_write``); a direct create: the CTAS that writes the directory and creates ORIG there
    (``DataJobs.prepare_create``). No TMP table either way."""
    _tmp_definition: tuple[str | None] | None = attrs.field(default=None, init=False)

    def __attrs_post_init__(self) -> None:
        self.tmp, self.backup = self.log.work_names(self.orig)
        self.retention = self.ctx.grace_seconds

    @property
    def orig_exists(self) -> bool:
        return self.orig_identity is not None

    def chosen_path(self) -> Path:
        """The path, swap or rename chosen here once both definitions are there (one look at each)."""
        if self.path is None:
            self.plan = self.ctx.catalog.swaps.plan_swap(self.orig, self.tmp, keep_statistics=self.keeps_statistics)
            self.swap_refused = self.plan.refusal
            self.path = "swap" if self.swap_refused is None else "rename"
        return self.path

    def tmp_definition(self) -> str | None:
        """TMP's whole definition, which ORIG takes where it does not exist (create and rename paths), read once
        TMP is built (``Versions.definition_to_create``); None where the catalog cannot give it whole (a
        Spark Connect session): TMP is renamed instead."""
        if self._tmp_definition is None:
            self._tmp_definition = (self.ctx.catalog.versions.definition_to_create(self.tmp),)
        return self._tmp_definition[0]

    def result(self, event: BinlogEvent | None, *, backup_pending: bool) -> ReplaceResult:
        return ReplaceResult(objects=(str(self.orig),), event=event, name=self.orig, replaced=self.orig_exists,
                             backup_pending=backup_pending, path=self.path or "create", swap_refused=self.swap_refused,
                             old_data=self.old_location,
                             version=(self.kept_number or self.delete_chain) if self.old_version is not None
                             and self.retention > 0 else None)


def made_by_its_create(run: ReplaceRun) -> bool:
    """The new version is what its CREATE makes and nothing else (a CTAS's rows, or columns; no fill, no other way
    to make TMP), outside a transaction: the direct create may make it (``DataJobs.prepare_create``)."""
    return run.fill is None and run.make_tmp is None and run.fill_tmp is None and run.log.transaction is None \
        and run.spec.like is None and not run.spec.copy


def writes_by_ctas(run: ReplaceRun) -> bool:
    """:func:`made_by_its_create`, by a CTAS (of a SELECT or a DataFrame): it writes the new version's rows."""
    return made_by_its_create(run) and (run.spec.as_select is not None or run.spec.df is not None)


def fills(run: ReplaceRun) -> bool:
    """TMP, or the write path's directory, takes rows (not the empty path, nor a direct create, whose CTAS writes
    its rows as it creates the table)."""
    return run.path != "empty" and (run.write_job is None or run.path == "write")


def builds_tmp(run: ReplaceRun) -> bool:
    """Not the empty and write paths nor a direct create, which make no TMP table (only its directory)."""
    return run.path != "empty" and run.write_job is None


def swaps(run: ReplaceRun) -> bool:
    """ORIG takes the new definition in one call (the swap, empty and write paths)."""
    return run.chosen_path() in ("swap", "empty", "write")


def renames(run: ReplaceRun) -> bool:
    return run.chosen_path() == "rename"


def creates(run: ReplaceRun) -> bool:
    return run.chosen_path() == "create"


def renames_tmp_in(run: ReplaceRun) -> bool:
    """TMP becomes ORIG (the rename and create paths)."""
    return run.chosen_path() in ("rename", "create")


def frees_name_for_rename(run: ReplaceRun) -> bool:
    """The name-hold pre-flight is due: a statement that may make the table anew renames TMP into ORIG, whose
    default directory a dropped table's kept version may hold (see :mod:`~replace_table.plans.create_path`)."""
    return run.frees_name and creates(run) and run.write_job is None and run.tmp_definition() is None


# ------------------------------------------------------------------ the steps every path shares


def require_unchanged(orig: TableName, expected: str | None, read_now: Callable[[], str | None]) -> None:
    """Right before the statement's first change of ORIG: ORIG is still the relation the statement read at its start
    (``expected``, its identity; ``read_now`` reads it afresh). The log's lock keeps every statement of the log off
    ORIG, not a writer outside it (plain Spark, another cluster, on the same metastore), which may have dropped ORIG
    or made another relation of its name while the new version was built (seconds, for a large job): installing then
    would overwrite that relation's definition, and the commit would schedule its directory (ORIG's old one) for
    deletion. Raises :class:`~storage.errors.ConcurrentChangeError` (the statement is undone, the other relation
    left alone). One catalog read; the window left is that read's to the install's call (the metastore has no
    conditional ``alter_table``), closed by :func:`change_unchanged` where the relation is dropped in it."""
    found = read_now()
    if found != expected:
        raise ConcurrentChangeError(str(orig), expected, found)


ORIG_CHECKED = crashpoints.declare("replace.orig_checked", "ORIG read unchanged right before its first change, "
                                   "not changed yet")

TABLE_NOT_FOUND = re.compile(r"table not found|table .+ doesn't exist")
"""How Hive's metastore refuses to alter (or rename) a table that is not there (an ``InvalidOperationException``):
"table not found", or "table <db>.<name> doesn't exist" where the alter handler finds it gone."""


def change_unchanged(orig: TableName, expected: str | None, read_now: Callable[[], str | None],
                     change: Callable[[], None]) -> None:
    """``change`` (the statement's first change of ORIG) right after :func:`require_unchanged`. A writer outside the
    log that drops ORIG in the window between the two makes the metastore refuse the change (Hive's ``alter_table``
    of a missing table: ``InvalidOperationException``, :data:`TABLE_NOT_FOUND`): that refusal raises
    :class:`~storage.errors.ConcurrentChangeError` too, the catalog's error behind it, where ORIG read again is gone
    or another relation (made by that writer since; any other failure is raised as it is)."""
    require_unchanged(orig, expected, read_now)
    ORIG_CHECKED()
    try:
        change()
    except ConcurrentChangeError:
        raise
    except CatalogError as error:
        if not isinstance(error, NoSuchObjectError) and not TABLE_NOT_FOUND.search(str(error)):
            raise
        found = read_now()
        if found == expected:
            raise
        raise ConcurrentChangeError(str(orig), expected, found) from error


def change_orig(run: ReplaceRun, change: Callable[[], None]) -> None:
    """:func:`change_unchanged` of the table ORIG the statement read at its start (for an untagged one, its files
    too: :func:`files_read`)."""
    def read_now() -> str | None:
        found = run.ctx.catalog.names.current_identity(run.orig)
        if found == run.orig_identity and run.orig_files is not None \
                and files_read(run.ctx, run.orig, found) != run.orig_files:
            return f"{found} with other files"
        return found

    change_unchanged(run.orig, run.orig_identity, read_now, change)


def files_read(ctx: ActionContext, name: TableName, identity: str | None) -> tuple[str, ...] | None:
    """The data files of the table ``name`` whose identity is a fingerprint (a table the log never tagged: plain
    Spark's), as the statement's check compares them: two such tables made under one name within one second, of one
    shape, share a fingerprint (plain Spark's DROP and CTAS of the name in a loop), and every write job names its
    files with an id of its own. None for a tagged table (its tag is its own) or where the files cannot be listed
    (Spark Connect off a local disk). One listing (a local ``scandir`` per directory, else one round trip)."""
    if identity is None or not identity.startswith(FINGERPRINT_PREFIX):
        return None
    location = ctx.catalog.definitions.table_location(name)
    return None if location is None else ctx.catalog.data.file_mover().data_files(location)


def log_tmp(run: ReplaceRun) -> None:
    """C: CREATE_TABLE of TMP (undo drops TMP, files included, and on a cluster logs a sweep of TMP for after the
    orphan window)."""
    log_create_table(run.ctx.log, run.log.undo_chain(), run.tmp, run.log.tag, owns_location=True,
                     late_writes=run.ctx.orphan_window())


def create_tmp(run: ReplaceRun) -> None:
    """TMP at its own directory (a CTAS fills it in the same call)."""
    if run.make_tmp is not None:
        run.make_tmp(run)
    else:
        run.ctx.catalog.data.create(run.tmp, run.spec, run.log.tag)


def fill_tmp(run: ReplaceRun) -> None:
    """TMP filled from a SELECT / DataFrame (INSERT; nothing to do otherwise); the write path's job writes the new
    version's directory instead (a CTAS's, ``plan.created``, gives the definition the exchange installs)."""
    if run.write_job is not None and run.plan is not None and run.plan.created:
        written = run.ctx.catalog.data.write_created(run.orig, run.write_job, run.log.tag, run.spec)
        run.plan = attrs.evolve(run.plan, handle=written)
    elif run.write_job is not None:
        run.ctx.catalog.data.write_version(run.orig, run.write_job)
    elif run.fill_tmp is not None:
        run.fill_tmp(run)
    elif run.fill is not None:
        run.ctx.catalog.data.insert(run.tmp, run.fill)


def commit(run: ReplaceRun) -> None:
    run.log.commit((str(run.orig),), version=version_record(run.ctx, run.orig, run.spec, run.fill))


def retire_old(run: ReplaceRun) -> None:
    """Replay D (TMP leaves the metastore, or BACKUP the catalog), F (the rename path's TMP installed by its
    definition leaves the metastore), and E when it is due already (a retention of 0):
    else E waits, and recovery and later statements delete the old directory once it is due."""
    run.log.retire([run.drop_chain, run.forget_chain, run.delete_chain if run.retention <= 0 else None])
