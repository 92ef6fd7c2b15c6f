"""INSERT OVERWRITE of some partitions on Spark: the half of
:meth:`~storage.catalogs.spark.sql.table_statements.SparkTables.insert` that writes a static partition spec, translates
a failed INSERT, and puts into the new version the partitions a statement keeps
(:attr:`storage.catalogs.interface.Fill.keep`).

The new table version is built whole in TMP before the swap, so the kept partitions must be in TMP too. On a local
file system their files are hard-linked into TMP's directory (:mod:`~storage.catalogs.spark.fs.partition_links`: no
job, no row rewritten) and their ``Partition`` records held for the swap's install, which makes them ORIG's in its
one switch (registered in TMP only where the swap is refused and TMP itself becomes the table: a record registered
in TMP was read back, switched in and dropped with TMP, about 3 ms each time on Derby); on HDFS and object stores
the write path copies their files byte for byte instead (:meth:`SparkPartitionKeep.written_version`,
:mod:`~storage.catalogs.spark.fs.file_copies`); where neither can be done (a partition outside its table's directory,
no project jar on the executors), their rows are *copied* (one ``INSERT ... SELECT`` of the old table with a
partition predicate): that is the price of replacing some partitions atomically there. Which partitions a
statement replaces follows Spark (4.0.1, data source tables):

* dynamic overwrite: the partitions the new rows go to, by the partition values the metastore lists (Spark deletes
  the directories it writes to); a kept partition is one with no new row (the copy's anti-join compares partition
  values null-safely, typed, as the new rows hold them; a NULL value is the ``__HIVE_DEFAULT_PARTITION__`` partition,
  and Spark writes an empty string as NULL too).
* static overwrite with static values (``PARTITION (a=1, b)``): every partition whose columns equal the static values
  after Spark's cast to the column type (``a='01'`` is ``a=1`` of an INT column), rows or not.

Empty partitions of the old table (``ALTER TABLE ... ADD PARTITION``) that are kept are added to TMP too, since no
row carries them; the ones replaced disappear, as they do in Spark.

TMP's own partitions (the directories the new rows went to) are no metastore records while it is filled, where the
statement has no static value (``TableSpec.partitions_in_files``, ``SparkSwap.clone_empty``): Spark's INSERT into it
then registers none, and TMP's removal drops none (about 80 ms and 35 ms on Derby for one partition). Their records
are made from TMP's directory listing (:meth:`SparkPartitionKeep.found_in_files`, as Spark's ADD PARTITION makes them,
:mod:`~storage.catalogs.spark.hms.partition_provider`; the metastore counts their files when the install registers
them) and held for the install with the kept ones; where the kept partitions are copied as rows, TMP tracks its
partitions in the metastore first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from storage.catalogs.directory_walk import TableTree
from storage.catalogs.interface import CONVERSION_FAILURE_MARK, KEEP_POINT, Fill
from storage.catalogs.names import TableName, quote_ident
from storage.catalogs.spark.columns import type_sql
from storage.catalogs.spark.engine import (
    BAD_DEFINITION,
    ENGINE_ERRORS,
    MISSING,
    Engine,
    Failure,
    param_name,
    sql_string_literal,
)
from storage.catalogs.spark.fs.file_copies import copies_files, copy_files
from storage.catalogs.spark.fs.file_mover import partition_of_path
from storage.catalogs.spark.fs.partition_links import copy_directories, link_directories
from storage.catalogs.spark.hms.hive_record import HivePartition, HiveTable
from storage.catalogs.spark.hms.metastore_client import MetastoreClient
from storage.catalogs.spark.hms.partition_provider import new_partition, partitions_in_files, track_partitions
from storage.catalogs.spark.hms.partition_values import metastore_values
from storage.catalogs.spark.hms.untracked_writes import (
    manages_partitions,
    paths_under,
    placed,
    records_as_they_were,
    untracked_refusal,
)
from storage.catalogs.spark.hms.written_partitions import WrittenVersion
from storage.catalogs.spark.profile import local_path
from storage.catalogs.spark.profiles.facts import Cause
from storage.catalogs.spark.sql.table_alter import SparkTableAlter
from storage.errors import (
    CatalogError,
    EngineOperationError,
    InvalidDefinitionError,
    NoSuchObjectError,
    NotAtomicError,
    ValueConversionError,
)


def partition_clause(fill: Fill) -> str:
    """`` PARTITION (a='1', b)`` for a fill with static values ('' without: the query then yields every column)."""
    if not fill.static:
        return ""
    parts = [quote_ident(column) if value is None else f"{quote_ident(column)}={sql_string_literal(value)}"
             for column, value in fill.partition]
    return f" PARTITION ({', '.join(parts)})"


def insert_error(name: TableName, failure: Failure) -> CatalogError:
    """The error of an ``INSERT INTO name`` that Spark refused or that failed while running its query."""
    raised = str(failure.params.get("errorMessage") or "")
    if failure.means(Cause.USER_RAISED) and raised.startswith(CONVERSION_FAILURE_MARK):
        return ValueConversionError(raised[len(CONVERSION_FAILURE_MARK):], str(name))
    if failure.means(*MISSING):
        missing = param_name(failure.params.get("relationName")) or str(name)
        return NoSuchObjectError.relation(f"cannot insert into {name}: {missing} does not exist", missing)
    if failure.analysis or failure.means(*BAD_DEFINITION):
        return InvalidDefinitionError(f"cannot insert into {name}: {failure.message}", str(name), failure.error)
    return EngineOperationError(
        f"inserting into {name} failed while running its query: {failure.message}", str(name), failure.error
    )


class SparkPartitionKeep:
    """Puts the kept partitions of ``fill.keep`` into the table just filled with the new rows (``alter`` adds
    partitions and lists those matching a spec; ``client``, where the session has one, reads a table's partitions,
    kept for the statement, which the swap's plan reads again)."""

    def __init__(self, engine: Engine, alter: SparkTableAlter, client: MetastoreClient | None,
                 data_files: Callable[[str], tuple[str, ...] | None],
                 tree: Callable[[str], TableTree | None]) -> None:
        self._engine = engine
        self._alter = alter
        self._client = client
        self._data_files = data_files
        self._tree = tree
        self._in_files: set[TableName] = set()
        """Work tables made with their partitions in their files (:meth:`made_in_files`), until their INSERT."""

    def made_in_files(self, name: TableName) -> None:
        """The work table ``name`` was made with its partitions in its files (``SparkSwap.clone_empty``): its
        INSERT's :meth:`keep` makes their records (any other INSERT asks nothing of the metastore for it)."""
        self._in_files.add(name)

    def keep(self, name: TableName, fill: Fill) -> None:
        """The kept partitions of ``fill.keep`` (every old partition no new row went to; for a static spec, those
        not matching it) put into ``name``: on a local file system as hard links to their files and their records
        added in one call (:mod:`~storage.catalogs.spark.fs.partition_links`); else rows, then empty partitions:
        one INSERT and two or three partition listings, one ``ADD PARTITION`` per kept empty partition. A dynamic
        overwrite whose rows went to every partition the table had keeps nothing: no INSERT (its job would read the
        whole old table to find no row to keep). A work table whose partitions are its directories
        (:meth:`found_in_files`) has its new partitions' records held with the kept ones; where the kept ones are
        copied as rows, it tracks its partitions in the metastore first (Spark's statements on it list them)."""
        source = fill.keep
        # held for the swap, not registered, where nothing else of this fill lists TMP's partitions
        held = fill.partitions_of is None and not fill.copy_partitions and name.is_reserved
        in_files = self.found_in_files(name)
        if in_files is not None and (source is None or not held):
            self._hold(name, in_files, track=not held)
            in_files = None
        if source is None:
            return
        KEEP_POINT()
        old_partitions = self._alter.list_partitions(source)
        new_partitions = self._alter.list_partitions(name) if in_files is None else \
            [dict(zip(self._keys(name), p.values, strict=True)) for p in in_files]
        kept = [partition for partition in old_partitions if partition not in new_partitions]
        if kept and fill.replaces == "matching":
            replaced = self._alter.list_partitions(source, fill.static)
            kept = [partition for partition in kept if partition not in replaced]
        if not kept or self._linked(name, source, kept, held=held):
            if in_files is not None:
                self._hold(name, in_files, track=False)
        else:
            if in_files is not None:
                self._hold(name, in_files, track=True)
            self._copy_rows(name, source, fill)
            new_partitions = self._alter.list_partitions(name)
            for partition in kept:
                if partition not in new_partitions:
                    self._engine.forget(name)
                    self._alter.add_partition(name, partition)
        matching = fill.replaces == "matching" and not fill.empties  # TRUNCATE leaves every unregistered one
        self.carry_unregistered(source, name, static=fill.static if matching else None)

    def found_in_files(self, name: TableName) -> list[HivePartition] | None:
        """The partitions of the work table ``name`` whose partitions are its directories
        (``SparkSwap.clone_empty``): a record for each directory that Spark's INSERT wrote a data file under,
        made as Spark's ADD PARTITION makes one (one listing of its files); None for every other table, with no
        metastore call (:meth:`made_in_files` names the work tables made so)."""
        if name not in self._in_files:
            return None
        self._in_files.discard(name)
        client = self._client
        table = None if client is None else client.get(name)
        if table is None or not partitions_in_files(table):
            return None
        return self._records_in_files(name, table)

    def writable_at(self, name: TableName, directory: str, *, keeps: bool,
                    static: Mapping[str, str] | None = None) -> bool:
        """Whether a write job may write the partitioned table ``name``'s new version at ``directory`` with no work
        table (:func:`~storage.catalogs.spark.sql.version_writes.writes_partitions`): its partitions are metastore
        records; where the statement ``keeps`` partitions, every partition of ``name`` is under its directory, and
        the kept ones can be linked there (a local disk) or copied as files (the project's jar on the executors:
        :func:`~storage.catalogs.spark.fs.file_copies.copies_files`); where ``static`` gives every partition column a
        value, Spark stores each as written (:func:`~storage.catalogs.spark.hms.partition_values.metastore_values`:
        the empty partition such a spec names is made from them). Reads only (the table's record and, with
        ``keeps``, its partitions: both kept for the statement)."""
        client = self._client
        table = None if client is None else client.get(name)
        if client is None or table is None or not table.partitioned or partitions_in_files(table):
            return False
        writable = not (static and len(static) == len(table.partition_keys)
                        and self._stored_values(name, static) is None)
        if writable and keeps:
            writable = ((links_files(table.location, directory) or copies_files(self._engine))
                        and paths_under(client.partitions(name), table.location) is not None)
        if not writable and not manages_partitions(self._engine):
            # the work table's way registers and lists partitions through Spark, which such a session refuses
            raise NotAtomicError(untracked_refusal(name), str(name))
        return writable

    def written_version(self, name: TableName, directory: str, *, keeps: bool, static: Mapping[str, str] | None = None,
                        replaces: str = "written") -> WrittenVersion:
        """The partitions of the new version of ``name`` a write job wrote at ``directory``: a record for each
        partition directory it wrote a data file under (made from ``name``'s record there, as
        :meth:`found_in_files` makes them), the partition a ``static`` spec of every column names where no row
        went to it (registered empty, its directory made, as Spark's INSERT does) and, where the statement ``keeps``
        partitions, every old partition it does not replace (``replaces``: no new row went to it, ``"written"``; it
        does not match ``static``, ``"matching"``), its files hard-linked at the same path under ``directory``
        (copied where a file cannot be linked; on a file system without hard links, copied by one Spark job:
        :meth:`_copied_under`), its record placed there (:meth:`writable_at` checked they can
        be). The kept partitions' files are listed once, before they are linked or copied: the install compares a
        listing of them again (``WrittenVersion.kept_changed``, :func:`_kept_changed`), since a writer outside the log
        adding a file to a kept partition after that would lose its rows with the old version."""
        client = self._client
        table = None if client is None else client.get(name)
        if client is None or table is None:
            raise NoSuchObjectError.relation(f"table {name} does not exist", str(name))
        tracked = manages_partitions(self._engine)
        version = table.relocated(directory)
        written = self._records_in_files(name, version)
        values = self._stored_values(name, static) if static and len(static) == len(table.partition_keys) else None
        if tracked and values is not None and not any(p.values == tuple(values) for p in written):
            path = "/".join(f"{key}={value}" for key, value in zip(table.partition_column_names, values, strict=True))
            empty = new_partition(version, values, f"{directory.rstrip('/')}/{path}")
            client.make_directory(empty.location)
            written.append(empty)
        if not keeps:
            return WrittenVersion(tuple(written if tracked else self._as_they_were(client, name, table, directory,
                                                                                  written)))
        KEEP_POINT()
        replaced = {p.values for p in written}
        if replaces == "matching" and static:
            replaced |= {tuple(p.values()) for p in self._alter.list_partitions(name, dict(static))}
        kept = [p for p in client.partitions(name) if p.values not in replaced]
        relatives = paths_under(kept, table.location)
        tree = None if relatives is None else self._tree(table.location)
        listed = None if tree is None else tree.data
        root = table.location
        strays = [] if tree is None else _unregistered(
            tree, table.partition_column_names,
            {*(paths_under(client.partitions(name), root) or ()), *(paths_under(written, directory) or ())},
            static if replaces == "matching" else None)
        moved = None
        if relatives is not None and links_files(root, directory):
            moved = _placed_under(name, kept, root, directory, copies=True)
            if moved is not None and not _linked_under(strays, root, directory):
                moved = None
        elif relatives is not None and tree is not None:
            moved = self._copied_under(client, name, kept, relatives, tree, root, directory, strays)
        if relatives is None or moved is None:
            raise CatalogError(f"cannot put the kept partitions of {name} into its new version at {directory}",
                               str(name))
        records = written + moved if tracked else self._as_they_were(client, name, table, directory, written + moved)
        if listed is None:  # nothing to compare against (links made without a listing of the Spark side's)
            return WrittenVersion(tuple(records))
        carried = relatives + strays
        kept_files = _files_of(listed, carried)
        return WrittenVersion(tuple(records), lambda: _kept_changed(kept_files, self._data_files(root), carried))

    def _as_they_were(self, client: MetastoreClient, name: TableName, table: HiveTable, directory: str,
                      present: list[HivePartition]) -> list[HivePartition]:
        """The partition records of ``name``'s new version at ``directory`` where the session does not manage file
        source partitions (:mod:`~storage.catalogs.spark.hms.untracked_writes`): ORIG's records as they were, placed
        at the same paths under it, each directory the version lacks made (``present``: the partitions it has, as
        the job wrote them and as the kept ones were placed). Refused where a record would not read what the job
        wrote: one located outside ORIG's directory, or at another path than Spark writes its values to."""
        mirrored = records_as_they_were(name, client.partitions(name), table.location, directory)
        at = {p.values: p.location.rstrip("/") for p in present}
        if mirrored is None or any(p.values in at and at[p.values] != p.location.rstrip("/") for p in mirrored):
            raise NotAtomicError(untracked_refusal(name), str(name))
        for partition in mirrored:
            if partition.values not in at:
                client.make_directory(partition.location)
        return mirrored

    def _copied_under(self, client: MetastoreClient, name: TableName, records: list[HivePartition],
                      relatives: list[str], tree: TableTree, root: str, into: str,
                      strays: list[str]) -> list[HivePartition]:
        """``records`` (partitions located at ``relatives`` under ``root``) as partitions of ``name`` at the same
        paths under ``into``, on a file system without hard links: their files (``tree``: what is under ``root``)
        copied there by one Spark job (:func:`_copied_directories`), with those of the partition directories
        ``strays`` that no record names (:func:`_unregistered`)."""
        _copied_directories(self._engine, client, tree, relatives + strays, root, into)
        return [placed(name, record, into, relative) for record, relative in zip(records, relatives, strict=True)]

    def _stored_values(self, name: TableName, static: Mapping[str, str]) -> list[str] | None:
        """The values of a spec of every partition column of ``name`` as Spark stores them, where that is as they
        are written (None else: Spark casts them); the table's Spark types read from its definition."""
        metadata = self._alter.table_metadata(name)
        if metadata is None:
            return None
        types = {column.name.lower(): column.type for column in metadata.columns}
        return metastore_values([(key, types.get(key.lower(), "")) for key in metadata.partitioned_by], static)

    def _records_in_files(self, name: TableName, table: HiveTable) -> list[HivePartition]:
        """A record of ``table`` for each partition directory under its location holding a data file (one
        listing)."""
        keys = [key.lower() for key in table.partition_column_names]
        listed = self._data_files(table.location)
        if listed is None:
            raise CatalogError(f"cannot list the files of {name} at {table.location}", str(name))
        root, found = table.location.rstrip("/"), dict[str, HivePartition]()
        for relative in listed:
            directory = relative.rpartition("/")[0]
            parts = directory.split("/") if directory else []
            spec = {key.lower(): value for key, value in partition_of_path(relative)} \
                if len(parts) == len(keys) and all("=" in part for part in parts) else {}
            if list(spec) != keys:
                continue  # not a partition directory Spark wrote (Spark reads none but those)
            found.setdefault(directory, new_partition(table, [spec[key] for key in keys], f"{root}/{directory}"))
        return [found[directory] for directory in sorted(found)]

    def _hold(self, name: TableName, records: list[HivePartition], *, track: bool) -> None:
        """``records`` held for the swap's install of the work table ``name``; ``track``: registered in it at once,
        with its partitions tracked in the metastore again (:func:`track_partitions`)."""
        assert self._client is not None  # found_in_files found records
        self._client.stage_partitions(name, records)
        if track:
            track_partitions(self._client, name)
            self._engine.forget(name)

    def _keys(self, name: TableName) -> list[str]:
        table = None if self._client is None else self._client.get(name)
        return [] if table is None else table.partition_column_names

    def _linked(self, name: TableName, source: TableName, kept: list[dict[str, str]], *, held: bool) -> bool:
        """Whether the ``kept`` partitions of ``source`` (whose directories are under its own) are now partitions of
        ``name`` at the same paths under its directory, their files hard-linked; False leaves ``name`` as it was
        (another file system, a partition located elsewhere, a file that cannot be linked). ``held``: their records
        are held for the swap's install (``MetastoreClient.stage_partitions``) instead of registered in ``name``."""
        client = self._client
        if client is None:
            return False
        source_table, table = client.get(source), client.get(name)
        if source_table is None or table is None:
            return False
        keys = source_table.partition_column_names
        records = {tuple(zip(keys, p.values, strict=True)): p for p in client.partitions(source)}
        wanted = [records.get(tuple(partition.items())) for partition in kept]
        if any(p is None for p in wanted):
            return False
        made = _placed_under(name, [p for p in wanted if p is not None], source_table.location, table.location,
                             copies=False)
        if made is None:
            return False
        if held:
            client.stage_partitions(name, made)
            return True
        client.add_partitions(name, made)
        self._engine.forget(name)
        return True

    def add_empty(self, name: TableName, source: TableName, *, carry_unregistered: bool = False) -> None:
        """Register the partitions of ``source`` that ``name`` lacks (no row went to them): two partition listings,
        one ``ADD PARTITION`` per missing partition. ``carry_unregistered`` (TRUNCATE's work table): with the
        partition directories no record names (:meth:`carry_unregistered`); not for an ALTER rebuild, whose new
        version has other columns than those files."""
        present = self._alter.list_partitions(name)
        for partition in self._alter.list_partitions(source):
            if partition not in present:
                self._engine.forget(name)
                self._alter.add_partition(name, partition)
        if carry_unregistered:
            self.carry_unregistered(source, name)

    def carry_unregistered(self, source: TableName, name: TableName | None = None, *, into: str | None = None,
                           static: Mapping[str, str] | None = None,
                           kept: Sequence[str] = ()) -> Callable[[], str | None] | None:
        """The partition directories under ``source``'s location that no record names (:func:`_unregistered`: files
        landed for a later ``MSCK REPAIR TABLE``, a writer that does not manage partitions), but for those the
        statement replaces, put at the same paths under the new version's directory (the work table ``name``'s, or
        ``into``, a directory with no file yet: TRUNCATE's empty path): hard-linked on a local disk, else copied by
        one Spark job. Spark's overwrite of some partitions
        and its TRUNCATE (which empties each partition a record names) leave them, so the new version must have them
        too, or they would go with the old one. ``kept``: with them, the directories (paths under ``source``'s) of
        the registered partitions a ``TRUNCATE TABLE ... PARTITION`` keeps, taken whole the same way. One listing of
        ``source``'s files and one of the work table's; a failure raises :class:`CatalogError` (the statement's undo
        removes what was put). Returns, where directories were taken, the check to run right before the install:
        what a writer outside the log changed in them since (their files listed again; None: nothing), whose rows
        would otherwise stay with the old version."""
        client = self._client
        if client is None:
            return None
        table = client.get(source)
        if name is not None:
            work = client.get(name)
            into = None if work is None else work.location
        if table is None or into is None or not table.partitioned:
            return None
        tree = self._tree(table.location)
        if tree is None and kept:
            raise CatalogError(f"cannot list the files of {source} to put the partitions it keeps into its new "
                               f"version at {into}", str(source))
        if tree is None or not (tree.directories or kept):
            return None
        # a work table has what its job wrote; the empty path's directory (``into``), just made, has no file yet
        written = () if name is None else self._data_files(into) or ()
        taken = {*(paths_under(client.partitions(source), table.location) or ()),
                 *(path.rpartition("/")[0] for path in written)}
        strays = sorted({*_unregistered(tree, table.partition_column_names, taken, static), *kept})
        if not strays:
            return None
        taken_files = _files_of(tree.data, strays)
        location = table.location

        def changed() -> str | None:
            now = self._tree(location)
            return _kept_changed(taken_files, None if now is None else now.data, strays)

        if links_files(location, into) and _linked_under(strays, location, into):
            return changed
        if links_files(location, into) or not copies_files(self._engine):
            raise CatalogError(f"cannot put the partition directories of {source} that no record names into its new "
                               f"version at {into}", str(source))
        _copied_directories(self._engine, client, tree, strays, location, into)
        return changed

    def add_listed(self, name: TableName, partitions: tuple[tuple[tuple[str, str], ...], ...]) -> None:
        """Register those of ``partitions`` that ``name`` lacks (no row went to them): one partition listing, one
        ``ADD IF NOT EXISTS PARTITION ...`` call for all of them (a replica's copy of a version's empty ones); no call
        when none is listed."""
        if not partitions:
            return
        present = self._alter.list_partitions(name)
        missing = [dict(values) for values in partitions if dict(values) not in present]
        if missing:
            self._engine.forget(name)
            self._alter.add_partitions(name, missing)

    def _copy_rows(self, name: TableName, source: TableName, fill: Fill) -> None:
        columns = [column for column, _ in fill.partition]
        if fill.replaces == "written":
            same = " AND ".join(f"n.{quote_ident(c)} <=> o.{quote_ident(c)}" for c in columns)
            predicate = f"NOT EXISTS (SELECT 1 FROM {name.quoted} AS n WHERE {same})"
        else:
            types = self._partition_types(source, list(fill.static))
            same = " AND ".join(
                f"o.{quote_ident(c)} <=> CAST({sql_string_literal(v)} AS {types[c.lower()]})"
                for c, v in fill.static.items()
            )
            predicate = f"NOT ({same})"
        self._engine.forget(name)  # its partitions change
        try:
            self._engine.spark.sql(f"INSERT INTO {name.quoted} SELECT * FROM {source.quoted} AS o WHERE {predicate}")
        except ENGINE_ERRORS as error:
            raise insert_error(name, self._engine.failure(error)) from None

    def _partition_types(self, source: TableName, columns: list[str]) -> dict[str, str]:
        try:
            schema = self._engine.spark.table(source.quoted).schema
        except ENGINE_ERRORS as error:
            raise insert_error(source, self._engine.failure(error)) from None
        types = {field.name.lower(): type_sql(field.dataType) for field in schema.fields}
        return {column.lower(): types[column.lower()] for column in columns}


def _placed_under(name: TableName, records: list[HivePartition], root: str, into: str, *,
                  copies: bool) -> list[HivePartition] | None:
    """``records`` (partitions located under ``root``) as partitions of ``name`` at the same paths under ``into``,
    their files hard-linked there (copied where ``copies`` and a file cannot be linked); None, no directory left
    behind, where one cannot be placed (not local, located outside ``root``, a file that cannot be put there)."""
    relatives = paths_under(records, root)
    if relatives is None:
        return None
    moved = [placed(name, record, into, relative) for record, relative in zip(records, relatives, strict=True)]
    pairs = [(local_path(old.location), local_path(new.location)) for old, new in zip(records, moved, strict=True)]
    local = [(source, target) for source, target in pairs if source is not None and target is not None]
    if len(local) != len(pairs) or not (link_directories(local) or (copies and copy_directories(local))):
        return None
    return moved


def _unregistered(tree: TableTree, keys: list[str], taken: set[str],
                  static: Mapping[str, str] | None) -> list[str]:
    """The partition directories under a table's location (``tree``: what is under it) that no record names: files
    landed there for a later ``MSCK REPAIR TABLE`` or ``ADD PARTITION`` (or a directory with no data file yet, a
    ``_SUCCESS`` only: the repair registers it too), or written by a session that does not manage partitions.
    Spark's overwrite of some partitions deletes only the directories it replaces and leaves these, so the new
    version takes them too: all but those ``taken`` (the directories of the old records and of the partitions the
    job wrote) and, for a static overwrite (``static``), those under its static values, whose directory Spark's
    deletes whole. Relative paths, sorted."""
    lowered = [key.lower() for key in keys]
    found: list[str] = []
    for directory in tree.directories:
        parts = directory.split("/")
        if directory in taken or len(parts) != len(keys) or not all("=" in part for part in parts):
            continue
        values = {key.lower(): value for key, value in partition_of_path(directory + "/")}
        if list(values) != lowered:
            continue  # not a partition directory Spark would read
        if static and all(values.get(key.lower()) == value for key, value in static.items()):
            continue
        found.append(directory)
    return sorted(found)


def _copied_directories(engine: Engine, client: MetastoreClient, tree: TableTree, relatives: list[str], root: str,
                        into: str) -> None:
    """The directories ``relatives`` under ``root`` put at the same paths under ``into`` on a file system without
    hard links, as plain Spark leaves a partition directory it does not replace: their files (``tree``: what is
    under ``root``; data files, those below a partition's directory too, and hidden ones such as ``_SUCCESS``)
    copied by one Spark job (:mod:`~storage.catalogs.spark.fs.file_copies`), a directory with none made."""
    prefix, target = root.rstrip("/") + "/", into.rstrip("/") + "/"
    files = tree.data + tree.markers
    pairs: list[tuple[str, str]] = []
    for relative in relatives:
        found = [path for path in files if path.startswith(relative + "/")]
        if not found:
            client.make_directory(target + relative)
        pairs += [(prefix + path, target + path) for path in found]
    copy_files(engine, pairs)


def _linked_under(strays: list[str], root: str, into: str) -> bool:
    """The files of the directories ``strays`` under ``root`` hard-linked at the same paths under ``into`` (copied
    where a file cannot be linked); whether it was done (none: nothing to do)."""
    if not strays:
        return True
    pairs = [(local_path(f"{root.rstrip('/')}/{relative}"), local_path(f"{into.rstrip('/')}/{relative}"))
             for relative in strays]
    local = [(source, target) for source, target in pairs if source is not None and target is not None]
    return len(local) == len(pairs) and (link_directories(local) or copy_directories(local))


def links_files(root: str, into: str) -> bool:
    """Whether the partitions kept from ``root`` are hard-linked into ``into`` (both on a local disk), else copied
    as files by a Spark job: the one answer :meth:`SparkPartitionKeep.writable_at` and
    :meth:`SparkPartitionKeep.written_version` both act on."""
    return local_path(root) is not None and local_path(into) is not None


def _files_of(listed: tuple[str, ...], relatives: list[str]) -> frozenset[str]:
    """The files of ``listed`` (relative to a table's location) in the partitions at ``relatives``."""
    prefixes = tuple(relative + "/" for relative in relatives)
    return frozenset(path for path in listed if path.startswith(prefixes))


def _kept_changed(kept: frozenset[str], listed: tuple[str, ...] | None, relatives: list[str]) -> str | None:
    """What differs between the kept partitions' files as the new version took them (``kept``) and as ``listed``
    now, in words (a few names); None where nothing does, or where the files cannot be listed now (nothing to
    compare: the statement goes on as before this check)."""
    if listed is None:
        return None
    now = _files_of(listed, relatives)
    if now == kept:
        return None
    added, removed = sorted(now - kept), sorted(kept - now)
    parts = [f"{label} {', '.join(names[:3])}{' ...' if len(names) > 3 else ''}"
             for label, names in (("added", added), ("removed", removed)) if names]
    return "; ".join(parts)
