"""The definition swap for the Spark catalog (:func:`~storage.catalogs.spark.catalog.spark_catalog`): how a replace
installs the new table without a moment in which the name is missing or points at an empty or partial directory.

TMP is built at its own directory; ORIG's whole definition is read and logged (:meth:`SparkSwap.plan`, the caller
logs it); then one ``alter_table`` call (:mod:`storage.catalogs.spark.hms.metastore_client`): ORIG := TMP's definition
(schema,
location, properties, its tag), the one call readers can observe. A query that resolved ORIG before it reads the old
files, which stay in place; one after it reads the new ones. TMP then leaves the metastore, its files kept (they are
ORIG's now).

A partitioned table's partitions live apart from its definition in the metastore: each install goes through the
directory (see :meth:`SparkSwap._install`). Undo puts the logged definition back with the same install
(:meth:`storage.catalogs.spark.hms.definitions.SparkVersions.install_version`). :meth:`SparkSwap.restore` undoes swaps
logged
by earlier versions of this project, where TMP held ORIG's old definition as an external *holder*. A swapped table
lives at its former TMP directory, not at ``<database>/<name>``: see :meth:`SparkSwap.rename_in_place`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

import attrs

from storage.catalogs.interface import (
    HIDDEN_TAG_PROPERTY,
    KEPT_TAKEN,
    SWITCHING_PARTITIONS,
    TAG_PROPERTY,
    ColumnChange,
    SwapPlan,
)
from storage.catalogs.kept_directories import same_location
from storage.catalogs.names import TableName
from storage.catalogs.partition_points import KEPT_RENAME_CREATED
from storage.catalogs.spark.cached_data import CachedTable, cache_again, cached_table
from storage.catalogs.spark.engine import ENGINE_ERRORS, ENGINE_NAME, Engine, inspect_error
from storage.catalogs.spark.hms.definition_text import version_text
from storage.catalogs.spark.hms.hive_record import MANAGED, HivePartition, HiveTable
from storage.catalogs.spark.hms.installed_locations import relations_kept_fresh
from storage.catalogs.spark.hms.metastore_client import EMPTY_DIRECTORY, MetastoreClient, keys_refusal, swap_refusal
from storage.catalogs.spark.hms.partition_provider import partitions_in_files, track_partitions, with_provider_of
from storage.catalogs.spark.hms.partition_reads import create_partitioned, drop_holder, drop_partitioned, forget_holder
from storage.catalogs.spark.hms.schema_edit import altered
from storage.catalogs.spark.hms.table_statistics import (
    changes_statistics,
    in_place,
    recomputes_sizes,
    update_statistics,
)
from storage.catalogs.spark.hms.untracked_writes import paths_under, records_as_they_were
from storage.catalogs.spark.jvm import caches_data, session_part, table_identifier
from storage.catalogs.spark.profiles.facts import Cause
from storage.errors import (
    CatalogError,
    ConcurrentChangeError,
    EngineOperationError,
    NoSuchObjectError,
    ObjectExistsError,
)


@attrs.frozen
class NewDefinition:
    """What an exchange installs (``SwapPlan.handle``): the new version's definition and, for a partitioned table,
    its partitions. ``fallback``: for a definition made without the metastore (a CTAS's,
    ``DataJobs.write_created``), the one Spark's Hive catalog falls back to where the metastore refuses it, as
    Spark's own create falls back (None: none)."""

    table: HiveTable
    partitions: list[HivePartition] = attrs.field(factory=list)
    fallback: Callable[[], HiveTable | None] | None = attrs.field(default=None, eq=False)

    def made_by(self, call: Callable[[HiveTable], None]) -> None:
        """``call`` (a metastore call that creates or installs a table from a record) with :attr:`table`, and where
        the metastore refuses it (a Hive-compatible record it cannot hold; the refused call changed nothing) with
        the fallback record, as Spark's own create falls back."""
        try:
            call(self.table)
        except EngineOperationError:
            fallback = None if self.fallback is None else self.fallback()
            if fallback is None:
                raise
            call(fallback)


SPARK_SOURCES_PREFIX = "spark.sql.sources."
"""The table properties in which Spark keeps how it reads a data source table (schema, provider, partition columns,
bucketing, partition provider; the log's hidden tag, which says which table it is, not how to read it, is left
out)."""


class CarryUnregistered(Protocol):
    """The SQL side's ``SparkPartitionKeep.carry_unregistered``, as the swap calls it (this layer cannot import it)."""

    def __call__(self, source: TableName, name: TableName | None = None, *, into: str | None = None,
                 static: Mapping[str, str] | None = None,
                 kept: Sequence[str] = ()) -> Callable[[], str | None] | None: ...


class SparkSwap:
    """Exchange, restore and forget table definitions through the catalog's own metastore client."""

    def __init__(self, engine: Engine, client: MetastoreClient,
                 carry_unregistered: CarryUnregistered | None = None) -> None:
        self._engine = engine
        self._client = client
        self._carry_unregistered = carry_unregistered
        """The SQL side's ``SparkPartitionKeep.carry_unregistered`` (``source``, ``into=``, ``kept=``): TRUNCATE's
        partition directories that no record names and those of the partitions a TRUNCATE ... PARTITION keeps, put
        into the new version (none: not done)."""

    def plan_swap(self, orig: TableName, tmp: TableName, *, keep_statistics: bool = False) -> SwapPlan:
        """Why ORIG cannot take TMP's definition (a table whose definition does not hold all of it: Hive serde,
        external; other partition keys), or ORIG's whole definition to log and TMP's to install (with ORIG's own
        statistics when ``keep_statistics``). One ``get_table`` per table, plus one partition listing each for a
        partitioned table. TMP's new partitions include those held for it (kept partitions, linked:
        :meth:`~storage.catalogs.spark.hms.metastore_client.MetastoreClient.stage_partitions`; all of them where its
        partitions are its directories, :meth:`clone_empty`); a refused swap registers them first, since the rename
        path makes TMP itself the table (:func:`~storage.catalogs.spark.hms.partition_provider.track_partitions`)."""
        plan = self._plan_swap(orig, tmp, keep_statistics=keep_statistics)
        if plan.refusal is not None:
            track_partitions(self._client, tmp)
            self._engine.forget(tmp)
        return plan

    def _plan_swap(self, orig: TableName, tmp: TableName, *, keep_statistics: bool) -> SwapPlan:
        old, new = self._client.get(orig), self._client.get(tmp)
        refusal = swap_refusal(old, orig) or swap_refusal(new, tmp)
        if refusal is not None or old is None or new is None:
            return SwapPlan(refusal or "a table is missing")
        refusal = keys_refusal(old, new, tmp)
        if refusal is not None:
            return SwapPlan(refusal)
        old_partitions = self._client.partitions(orig) if old.partitioned else []
        new_partitions = []
        if old.partitioned:  # a work table whose partitions are its directories has none registered: all are held
            registered = [] if partitions_in_files(new) else self._client.partitions(tmp)
            new_partitions = registered + self._client.staged_partitions(tmp)
        statistics = in_place(new, old, recomputes=recomputes_sizes(self._engine)) if keep_statistics else None
        installed = with_provider_of(new if statistics is None else statistics.table, old)
        installed = installed.with_tag(new.tag)  # the tag hidden
        return SwapPlan(None, version_text(orig, old, old_partitions), NewDefinition(installed, new_partitions),
                        keeps_statistics=statistics is not None and statistics.keep,
                        updates_statistics=statistics is not None and statistics.update)

    def plan_empty_swap(self, orig: TableName, tmp: TableName, tag: str, *,
                        emptied: Sequence[Mapping[str, str]] | None = None) -> SwapPlan:
        """TRUNCATE's plan without a TMP table (see ``Swaps.plan_empty_swap``): one ``get_table`` and one
        ``get_database``, nothing made; the exchange makes the new directory, empty, right before the install. The
        installed definition keeps ORIG's statistics until Spark's statistics update, as Spark's TRUNCATE does. A
        partitioned table (its partitions metastore records, each under its directory) keeps them as Spark's
        TRUNCATE does, placed at the same paths under the new directory, made empty (one partition listing more);
        with ``emptied`` only those, the others' files taken whole by the exchange (``SwapPlan.kept``)."""
        return self._plan_at_directory(orig, tmp, tag, written=False, truncated=emptied)

    def plan_write_swap(self, orig: TableName, tmp: TableName, tag: str) -> SwapPlan:
        """An INSERT OVERWRITE's plan without a TMP table (see ``Swaps.plan_write_swap``): the reads of
        :meth:`plan_empty_swap`; the installed definition keeps ORIG's statistics until Spark's statistics update,
        as the swap of an INSERT OVERWRITE's TMP does (``keep_statistics``); the statement's write job makes the
        directory."""
        return self._plan_at_directory(orig, tmp, tag, written=True)

    def plan_created_swap(self, orig: TableName, tmp: TableName) -> SwapPlan:
        """A CREATE OR REPLACE's plan without a TMP table (see ``Swaps.plan_created_swap``): the reads of
        :meth:`plan_empty_swap`; the installed definition is the CTAS's, set once written."""
        return self._plan_at_directory(orig, tmp, None, written=True)

    def _plan_at_directory(self, orig: TableName, tmp: TableName, tag: str | None, *, written: bool,
                           truncated: Sequence[Mapping[str, str]] | None = None) -> SwapPlan:
        """ORIG's definition to log and the new version at ``tmp``'s default directory: ORIG's own definition there,
        tagged ``tag`` (emptied, with ORIG's statistics until Spark's statistics update), or, without a tag, the
        definition the statement's CTAS makes there (none yet: ``created``)."""
        old = self._client.get(orig)
        refusal = swap_refusal(old, orig)
        if refusal is not None or old is None:
            return SwapPlan(refusal or f"{orig} does not exist")
        old_partitions: list[HivePartition] = []
        if old.partitioned:
            if tag is None or partitions_in_files(old):
                return SwapPlan(f"{orig} is partitioned: its partitions stay registered, built under TMP")
            old_partitions = self._client.partitions(orig)  # the write job's partitions are held for the install
        location = self._client.default_location(tmp)
        if location is None or self._client.directory_in_use(location):
            return SwapPlan(f"files are at {location}")
        if tag is None:
            return SwapPlan(None, version_text(orig, old, []), directory=location, written=True, created=True)
        # TRUNCATE of a partitioned table: Spark's empties each partition's directory and keeps its record, so the
        # new version keeps them, at the same paths under its directory (made empty by the exchange)
        emptied = [] if written else records_as_they_were(orig, old_partitions, old.location, location)
        if emptied is None:
            return SwapPlan(f"a partition of {orig} is located outside its directory: built under TMP")
        kept = () if truncated is None else _kept_paths(old, old_partitions, truncated)
        if kept is None:
            return SwapPlan(f"a partition of {orig} is located outside its directory: built under TMP")
        statistics = in_place(old.emptied(orig, tag, location), old, recomputes=recomputes_sizes(self._engine))
        return SwapPlan(None, version_text(orig, old, old_partitions), NewDefinition(statistics.table, emptied),
                        keeps_statistics=statistics.keep, updates_statistics=statistics.update, directory=location,
                        written=written, kept=kept)

    def clone_empty(self, source: TableName, name: TableName, tag: str, *, partitions_in_files: bool = False) -> bool:
        """Create ``name`` as an empty copy of ``source``'s whole definition (its properties and comment, without
        statistics or partitions) in one metastore call, tagged ``tag``, at ``name``'s default directory, and
        return True; False (nothing done) when the copy is not one the metastore alone can make: a Hive serde or
        external source, or files already at the directory (Spark's CREATE handles those).
        ``partitions_in_files`` (a partitioned source): the copy's partitions are its directories, not metastore
        records (:meth:`HiveTable.discovering`), so that Spark's INSERT into it registers none: a work table's
        partition records cost more to add and to drop with it than anything else it has (on Derby about 80 ms for
        its INSERT's one partition and 35 ms for its DROP); its install makes the records ORIG's
        (:meth:`~storage.catalogs.spark.sql.partition_keep.SparkPartitionKeep.found_in_files`)."""
        table = self._client.get(source)
        if table is None or swap_refusal(table, source) is not None:
            return False
        location = self._client.default_location(name)
        if location is None or self._client.directory_in_use(location):
            return False
        # made here, not by the metastore's own mkdirs (with Hive's permission inheritance): the create took 71 ms,
        # 17 with the directory there (7 for this mkdir); the undo of TMP removes the directory either way
        self._client.make_directory(location)
        copy = table.emptied(name, tag, location)
        self._client.create(name, copy.discovering() if partitions_in_files and copy.partitioned else copy)
        self._engine.forget(name)
        return True

    def clone_altered(self, source: TableName, name: TableName, tag: str, change: ColumnChange) -> None:
        """Create ``name`` as an empty copy of ``source``'s whole definition with ``change`` applied (see
        :mod:`storage.catalogs.spark.hms.schema_edit`), in one metastore call, at ``name``'s default directory. An
        ALTER TABLE rebuild needs the metastore client (a classic session): anything else a definition holds would be
        lost by a CREATE TABLE that describes only part of it."""
        table = self._client.get(source)
        if table is None:
            raise NoSuchObjectError.relation(f"table {source} does not exist", str(source))
        if table.table_type != MANAGED:
            raise CatalogError(f"cannot rebuild {source}: it is an external table, whose files live at its own "
                               "location (the change would rewrite them in place, which cannot be atomic)", str(source))
        location = self._client.default_location(name)
        if location is None:
            raise NoSuchObjectError.database(f"database {name.db} does not exist", name.db)
        jvm = self._client.jvm()
        copy = HiveTable.of_java(jvm, altered(jvm, table.java(jvm), change, source))
        self._client.make_directory(location)  # see clone_empty
        self._client.create(name, copy.emptied(name, tag, location))
        self._engine.forget(name)

    def rename_in_place(self, old: TableName, new: TableName, *, keep_directory: bool = False) -> bool:
        """Rename a managed table in one metastore call and return True; False (nothing done) where Spark's own
        RENAME is left to do it.

        * A table away from its default location (a swapped one) keeps its location. Spark's own RENAME points a
          managed data source table's path at ``<database>/<new>`` and counts on the metastore to move the directory
          there, which the metastore does only for a table at ``<database>/<old>``: a swapped table renamed so would
          read from a directory that does not exist.
        * A managed data source table at its default directory moves to ``<database>/<new>``, its path property
          pointing there: the one ``alter_table`` Spark's RENAME makes (the metastore moves the directory), without
          Spark's command around it, which resolved the table (a metastore read and a listing of its files) to look
          for cached data. Where the session caches data, a file or directory is at ``<database>/<new>``, or the
          table is a Hive serde one, Spark's RENAME runs (its re-caching and its leftover checks).
        * A partitioned work table (reserved name) moved so: its partitions' ``path`` property, the work table's
          directory until then, is pointed at the new one (two more calls).
        * ``keep_directory`` (``new`` a work name: a replace's ORIG -> BACKUP): a table at its default directory
          keeps it (:meth:`_rename_keeping_directory`; two calls or more, not one).
        """
        table = self._client.get(old)
        if table is None or table.table_type != MANAGED:
            return False
        moved = None
        if table.location.rstrip("/").rpartition("/")[2].lower() == old.name.lower():
            if keep_directory and new.is_reserved and old.db == new.db:
                self._rename_keeping_directory(old, new, table)
                return True
            moved = self._moved(table, old, new)
            if moved is None:
                return False
        if old.db != new.db:
            raise CatalogError(f"cannot rename {old} to {new}: Spark renames tables only within a database", str(new))
        if self._client.get(new) is not None:
            raise ObjectExistsError.relation(f"cannot rename {old} to {new}: {new} already exists", str(new))
        self.refresh(old)
        self._engine.forget(old, new)
        self._client.install(old, (moved or table.renamed(new)).with_tag(table.tag))  # a work table's tag hidden
        if moved is not None and moved.path and table.path and table.partitioned and old.is_reserved:
            # a work table put under the user's name: its partitions name the new directory, as Spark's CTAS leaves
            # them (a user's RENAME leaves them as Spark's RENAME does)
            self._client.repoint_partition_paths(new, table.path, moved.path)
        return True

    def _rename_keeping_directory(self, old: TableName, new: TableName, table: HiveTable) -> None:
        """A table at its default directory renamed to a work name (a replace's ORIG -> BACKUP) without the
        metastore's move of its directory (on an object store a copy of every file): ``new`` created with the whole
        definition (partitions included) at the same directory, then ``old`` leaves the metastore, its files staying
        (readers of ``old`` see it whole until then). A crash between leaves both names at one directory, which
        :meth:`settle_kept_rename` resolves. Metastore calls: a partition listing (partitioned), the creation (three
        for a partitioned table), the drop."""
        if self._client.get(new) is not None:
            raise ObjectExistsError.relation(f"cannot rename {old} to {new}: {new} already exists", str(new))
        partitions = self._client.partitions(old) if table.partitioned else []
        identity = self._identity(old, table)
        self._engine.forget(old, new)
        # An untagged table (plain Spark's) is known by a fingerprint of its creation time, which the metastore sets
        # anew on a creation: ``new`` carries that identity as its tag, so the log still knows it (and ``old`` again
        # after the undo's rename back).
        create_partitioned(self._client, new, table.renamed(new).with_tag(identity),
                           [partition.placed(new) for partition in partitions])
        KEPT_RENAME_CREATED()
        try:
            self.drop_keeping_files(old, table.tag, renamed=True, present=True)
        except NoSuchObjectError:
            # ``old`` went since the statement read it (a writer outside the log dropped it): ``new``, made from
            # that read a moment ago, must not stand for it (the undo would give it back under ``old``), nor the
            # empty directory the metastore made for it where the other writer's drop had deleted ``old``'s
            self._client.forget(new)
            _remove_if_empty(self._engine, table.location)
            raise

    def settle_kept_rename(self, old: TableName, new: TableName) -> bool:
        """Before the undo of a rename of ``old`` to the work name ``new`` (:meth:`_rename_keeping_directory`), cut
        by a crash: with both names whole at one directory, ``new`` leaves the metastore (files kept) and True is
        returned (nothing was renamed); where ``old`` was being dropped (external, or under its holder's name), that
        drop is finished, so the undo renames ``new`` back in place; the holder a cut creation of ``new`` left goes.
        False where the undo has its usual work."""
        if not new.is_reserved:
            return False
        table, other = self._client.get(old), self._client.get(new)
        if other is None:
            return table is not None and forget_holder(self._client, new, table.tag)
        if table is None:
            drop_holder(self._client, old, other.tag)  # a drop of ``old`` cut after its rename to the holder
            return False
        if not same_location(other.location, table.location):
            return False
        if table.table_type != MANAGED:  # a drop of ``old`` cut once it was external: finished
            self._engine.forget(old)
            self._client.forget(old)
            return False
        if other.tag != self._identity(old, table):
            return False
        self.drop_keeping_files(new, other.tag, renamed=True)
        return True

    def _identity(self, name: TableName, table: HiveTable) -> str | None:
        """The identity the log knows the table ``name`` (read as ``table``) by: its tag, else its fingerprint."""
        if table.tag is not None:
            return table.tag
        found = self._engine.lookup(name)
        return None if found is None else found.identity

    def _moved(self, table: HiveTable, old: TableName, new: TableName) -> HiveTable | None:
        """``table`` renamed to ``new`` so that the metastore moves its directory, or None where Spark's RENAME is
        to run (see :meth:`rename_in_place`)."""
        if old.db != new.db or swap_refusal(table, old) is not None or table.path is None:
            return None
        if not ENGINE_NAME.fullmatch(new.name):  # Spark's RENAME says why not, as it says it
            return None
        if caches_data(self._client.jvm()):
            return None
        location = self._client.default_location(new)
        if location is None or self._client.directory_exists(location):
            return None
        return table.moved(new, location)

    def exchange_definitions(self, orig: TableName, tmp: TableName, plan: SwapPlan, *,
                             between: Callable[[], None]) -> None:
        """ORIG := TMP's definition as ``plan`` read it (one ``alter_table``; see :meth:`_install` for a partitioned
        table); ``between`` runs right before."""
        if plan.refusal is not None or not isinstance(plan.handle, NewDefinition):
            raise CatalogError(f"cannot swap the definition of {orig}: {plan.refusal or 'no plan'}", str(orig))
        new, new_partitions = plan.handle.table, plan.handle.partitions
        current = self._client.get(orig) if new.partitioned else None  # the plan's read, kept for the statement
        if plan.written and new.partitioned and plan.directory is not None:  # the write path's partitioned version
            written = self._client.written.take(plan.directory)
            if written is None:
                raise CatalogError(f"cannot swap the definition of {orig}: no partitions were written at "
                                   f"{plan.directory}", str(orig))
            new_partitions = list(written.partitions)
            changed = None if written.kept_changed is None else written.kept_changed()
            if changed is not None:  # a writer outside the log wrote into a kept partition: its rows would be lost
                identity = None if current is None else self._identity(orig, current)
                raise ConcurrentChangeError(str(orig), identity,
                                            f"{identity} with other files in the partitions it keeps ({changed})")
        # TMP does not change: its record read by the plan serves its removal; ORIG's partitions as the plan listed
        # them (the statement holds ORIG's lock) are the ones the switch replaces, with no second listing
        self._engine.forget(orig, partitions=False)
        recheck: Callable[[], str | None] | None = None
        if plan.directory is not None and not plan.written:
            # the empty path: the new version's directory and its emptied partitions' (the caller logged TMP, whose
            # undo removes it with them); the partitions a TRUNCATE ... PARTITION keeps are taken whole below
            kept = {f"{plan.directory.rstrip('/')}/{relative}" for relative in plan.kept}
            for directory in [plan.directory, *(partition.location for partition in new_partitions)]:
                if directory.rstrip("/") not in kept:
                    self._client.make_directory(directory)
            if new.partitioned and self._carry_unregistered is not None:  # Spark's TRUNCATE empties the records' only
                recheck = self._carry_unregistered(orig, into=plan.directory, kept=plan.kept)
        if recheck is not None:
            KEPT_TAKEN()
            moved = recheck()
            if moved is not None:  # a writer outside the log wrote into a directory the new version took: rows lost
                identity = None if current is None else self._identity(orig, current)
                raise ConcurrentChangeError(str(orig), identity,
                                            f"{identity} with other files in the partitions it keeps ({moved})")
        between()
        # a CTAS's record the metastore refuses falls back as Spark's own create does (only a record made without
        # the metastore has a fallback: an unpartitioned one, DataJobs.write_created)
        plan.handle.made_by(lambda table: self._install(
            orig, table.renamed(orig), new_partitions, keep_statistics=plan.keeps_statistics,
            alike=current is not None and read_alike(current, table)))
        if plan.updates_statistics:
            update_statistics(self._engine, orig)

    def install(self, name: TableName, table: HiveTable, partitions: list[HivePartition]) -> None:
        """Make ``table`` with ``partitions`` the definition of ``name`` and refresh it (see :meth:`_install`):
        RESTORE's call."""
        self._install(name, table, partitions)

    def _install(self, name: TableName, table: HiveTable, partitions: list[HivePartition], *,
                 keep_statistics: bool = False, alike: bool = False) -> None:
        """Make ``table`` (and for a partitioned one ``partitions``) the definition of ``name``, readers seeing the
        old or the new version whole. Partitioned: the definition first with its partitions found in its directory
        (a query resolving the table reads the new directory), then the metastore's partitions switched in one
        transaction (a query holding a cached relation lists them), then the definition as it is.
        ``alike`` (the current definition is read as ``table`` is but for its location, :func:`read_alike`: an
        INSERT OVERWRITE's): the definition as it is, then the partitions switched, two calls instead of three (a
        reader between them reads the old partitions with a definition that reads them alike; about 15 ms). The
        definition always goes first: it carries the new identity, so a crash anywhere after it leaves a table the
        statement's undo recognises as its own and puts back whole, partitions included (partitions switched
        under the old identity would be left as they were: found by the sweep of a partitioned overwrite written in
        place, 2026-12-03).
        ``keep_statistics``: the metastore leaves the record's statistics as they are (else it counts the files).
        Then this session's cached relation of ``name`` is dropped and its cached data, if any, cached again at the new
        version (:func:`refresh_installed`, what the session cached read before the install)."""
        cached = cached_table(self._engine.jvm, name)
        if table.partitioned:
            self._client.install(name, table if alike else table.discovering(), keep_statistics=keep_statistics)
            SWITCHING_PARTITIONS()
            self._client.switch_partitions(name, partitions, f"{table.location.rstrip('/')}/{EMPTY_DIRECTORY}")
        if not (table.partitioned and alike):
            self._client.install(name, table, keep_statistics=keep_statistics)
        refresh_installed(self._engine, name, cached)

    def settle_statistics(self, name: TableName, previous: TableName) -> None:
        """See ``Swaps.settle_statistics``: one read, then, where Spark's statement changes statistics, the record
        with ``previous``'s statistics (a read and one ``alter_table``), and Spark's update where the session recomputes
        sizes."""
        old = self._client.get(previous)
        recomputes = recomputes_sizes(self._engine)
        if old is None or not changes_statistics(old, recomputes=recomputes):
            return  # Spark leaves the record as it was: nothing to drop or to count
        current = self._client.get(name)
        if current is None:
            return
        statistics = in_place(current, old, recomputes=recomputes)
        self._engine.forget(name, partitions=False)
        self._client.install(name, statistics.table, keep_statistics=statistics.keep)
        if statistics.update:
            update_statistics(self._engine, name)

    def restore_definition(self, orig: TableName, holder: TableName, orig_tag: str | None) -> None:
        """ORIG := the holder's definition (managed again, ORIG's own tag property back)."""
        kept = self._client.get(holder)
        if kept is None:
            raise NoSuchObjectError.relation(f"table {holder} does not exist", str(holder))
        partitions = self._client.partitions(holder) if kept.partitioned else []
        self._engine.forget(orig, holder)
        self._install(orig, kept.as_restored(orig, orig_tag), partitions)

    def forget_table(self, name: TableName, *, expect: str) -> bool:
        """Remove the table ``name`` from the metastore, never its files; only while its tag is ``expect``; else the
        holder a cut creation of it (identity ``expect``) left
        (:func:`~storage.catalogs.spark.hms.partition_reads.forget_holder`). Whether one was removed."""
        table = self._client.get(name)
        if table is None or table.tag != expect:
            return forget_holder(self._client, name, expect)
        self._engine.forget(name)
        self._client.forget(name)
        return True

    def drop_keeping_files(self, name: TableName, identity: str | None = None, *, renamed: bool = False,
                           present: bool = False) -> None:
        """The table ``name`` leaves the metastore, its files stay (one ``drop_table`` call with ``deleteData``
        off; a partitioned one loses its name first,
        :func:`~storage.catalogs.spark.hms.partition_reads.drop_partitioned`,
        ``identity`` naming its holder): this session first forgets its cached data and relation as Spark's DROP
        does (:func:`invalidate`); ``renamed`` (the table lives on under another name, which the statement may give
        back): refreshed as a replace is (:func:`refresh`). ``present``: an unpartitioned table that is not there
        raises :class:`NoSuchObjectError`."""
        try:
            # isCached resolves the table (a metastore read and a listing of its files, about 15 ms): asked only
            # where the session caches anything at all
            if caches_data(self._client.jvm()) and self._engine.spark.catalog.isCached(name.quoted):
                self._engine.spark.catalog.uncacheTable(name.quoted)
        except ENGINE_ERRORS:
            pass  # nothing cached to drop
        if renamed:
            self.refresh(name)
        else:
            self.invalidate(name)
        # the record the statement's lookup kept tells whether it is partitioned; every change forgets it
        if not drop_partitioned(self._client, name, identity):  # a reader never finds it without its partitions
            self._client.forget(name, present=present)
        self._engine.forget(name)

    def drop_holder(self, name: TableName, expect: str | None) -> bool:
        """After a drop found ``name`` gone: drop the holder a partitioned drop cut after its rename left
        (:func:`~storage.catalogs.spark.hms.partition_reads.drop_holder`); whether there was one."""
        self._engine.forget(name)
        return drop_holder(self._client, name, expect)

    def set_database_property(self, db: str, key: str, value: str) -> None:
        """See :meth:`storage.catalogs.spark.hms.metastore_client.MetastoreClient.set_database_property`."""
        self._client.set_database_property(db, key, value)

    def drop_database_keeping_files(self, db: str) -> None:
        """Drop the empty database ``db`` from the metastore, its directory left (see :meth:`drop_keeping_files`)."""
        self._client.drop_database(db)

    def user_of(self, location: str) -> str | None:
        """See :meth:`storage.catalogs.spark.hms.metastore_client.MetastoreClient.user_of`."""
        return self._client.user_of(location)

    def refresh(self, name: TableName) -> None:
        """Drop this session's cached relation and file listing of ``name``: the next query reads the new table."""
        refresh(self._engine, name)

    def invalidate(self, name: TableName) -> None:
        """Drop whatever this session still caches for ``name`` where no definition of it was readable before the
        change (a create of a free name; a drop): see :func:`invalidate`."""
        invalidate(self._engine, name)


def refresh(engine: Engine, name: TableName) -> None:
    """Drop this session's cached relation and file listing of ``name`` with Spark's ``refreshTable``, as Spark's own
    writes do: the entry is left empty and the session's next query builds the new version's relation. After an
    install, :func:`refresh_installed` decides (a session with the extension only invalidates).

    Spark's lookup of a data source table's relation is a get, then (on a miss) a build from the definition the query
    read and a put (``FindDataSourceTable``). A reader thread of this session that read the old definition just before
    the install and finds the entry empty after this refresh stores the old version's relation, which the session's
    later queries would read until its next refresh (the same-session readers proof: about 1 CI run in 20). In a
    session built with the project's extension they do not: its ``FreshRelations`` rule drops a cached relation whose
    location is not the one the install told the JVM
    (:func:`~storage.catalogs.spark.hms.installed_locations.note_installed`) before a query resolves the table.
    Tried and left out (2026-12-01): an invalidation then a resolution at once (stale in 5 probe runs of 12, against
    0 of 5 with ``refreshTable``, whose resolution delays the invalidation by 10 to 20 ms); the new version's
    relation built as Spark builds it and put in place of the old one (0 stale in 6 runs), which leaves the writer's
    session holding a relation that plain Spark's writer leaves empty: a later replace by another session then
    leaves it reading the old version (the attached sweeps, whose set-up runs in another session, caught it). Nor
    ``invalidateCachedTable`` alone (stale in 4 runs of 6, 2026-11-27)."""
    try:
        engine.spark.catalog.refreshTable(name.quoted)
    except ENGINE_ERRORS as error:
        failure = engine.failure(error)
        if failure.means(Cause.RELATION_MISSING):
            return
        raise EngineOperationError(f"cannot refresh {name}: {failure.message}", str(name), error) from None


def refresh_installed(engine: Engine, name: TableName, cached: CachedTable | None) -> None:
    """:func:`refresh` after an install that told the JVM the new version's location
    (:func:`~storage.catalogs.spark.hms.installed_locations.note_installed`); ``cached``, what the session cached of
    the old version, read before the install: cached again at the new version
    (:func:`~storage.catalogs.spark.cached_data.cache_again`). In a session built with the project's extension, the
    session catalog's own invalidation (:func:`invalidate`, two round trips) instead of the catalog API's
    ``refreshTable``, which first resolves the table and lists the old version's files (15 to 20 ms of every replace):
    the race ``refreshTable``'s delay narrowed, a reader thread of this session storing the old version's relation
    after the invalidation, is closed there by the extension's ``FreshRelations``, which drops that relation before the
    next query resolves the table."""
    jvm = engine.jvm
    if jvm is not None and (cached is not None or relations_kept_fresh(jvm)):
        invalidate(engine, name)
        if cached is not None:
            cache_again(jvm, name, cached)
        return
    refresh(engine, name)


def invalidate(engine: Engine, name: TableName) -> None:
    """Drop this session's cached relation of ``name`` with the session catalog's own ``refreshTable``, as Spark's
    DROP TABLE does: one JVM call, no metastore read (the catalog API's ``refreshTable`` first resolves the table,
    listing its files: about 40 ms). Enough where no reader can have resolved an older definition during the change:
    a create of a name that was free (a relation a reader cached of an earlier table of that name goes; none of the
    new one can be older) and a drop (a reader that resolves the name later finds it missing). A replace refreshes
    (:func:`refresh`). Spark Connect (no handle on the session catalog): :func:`refresh`."""
    jvm = engine.jvm
    if jvm is None:
        refresh(engine, name)
        return
    try:
        session_part(jvm, "session catalog").refreshTable(table_identifier(jvm, name.db, name.name))
    except ENGINE_ERRORS as error:
        raise EngineOperationError(f"cannot refresh {name}: {inspect_error(error).message}", str(name),
                                   error) from None


def _kept_paths(table: HiveTable, partitions: list[HivePartition],
                truncated: Sequence[Mapping[str, str]]) -> tuple[str, ...] | None:
    """The paths under ``table``'s directory of its ``partitions`` that a TRUNCATE of the ``truncated`` ones keeps;
    None where one is located outside it."""
    keys = [key.lower() for key in table.partition_column_names]
    emptied = {tuple(values.get(key, "") for key in keys)
               for values in ({k.lower(): v for k, v in spec.items()} for spec in truncated)}
    kept = [partition for partition in partitions if tuple(partition.values) not in emptied]
    relatives = paths_under(kept, table.location)
    return None if relatives is None else tuple(relatives)


def read_alike(current: HiveTable, new: HiveTable) -> bool:
    """Whether a reader reads the partitions of a table defined by ``current`` as one defined by ``new`` reads them:
    both partitioned with their partitions in the metastore, with the same partition keys, the same storage (its
    location and ``path`` aside) and the same Spark schema, provider and bucketing (``spark.sql.sources.*``)."""
    if partitions_in_files(current) or partitions_in_files(new) or not current.partitioned:
        return False
    return _reading_shape(current) == _reading_shape(new)


def _reading_shape(table: HiveTable) -> str:
    fields = table.relocated("").fields
    sources = {key: value for key, value in table.parameters.items()
               if key.startswith(SPARK_SOURCES_PREFIX) and key not in (TAG_PROPERTY, HIDDEN_TAG_PROPERTY)}
    return json.dumps([fields["7"], fields.get("8"), sources], sort_keys=True)


def _remove_if_empty(engine: Engine, location: str) -> None:
    """Remove the directory ``location`` if it is empty (one that holds anything, or is gone, is left as it is)."""
    local = engine.local_directory(location)
    try:
        if local is not None:
            local.rmdir()
            return
        found = engine.hadoop(location)
        if found is not None:
            file_system, path = found
            file_system.delete(path, False)  # refused for a directory that is not empty
    except OSError:
        pass
    except ENGINE_ERRORS:
        pass
