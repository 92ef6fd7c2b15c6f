"""INSERT INTO's files on Spark (:class:`~storage.catalogs.file_moves.FileMover`): the rows were written by Spark's
own ``INSERT INTO`` into a work table (an empty copy of the table's whole definition), so their files are exactly the
ones plain Spark would have written; here they are listed, moved into the table one rename each (the checksum file
Hadoop's local file system writes beside each data file goes along), and the partitions the table lacks registered in
one ``ALTER TABLE ... ADD IF NOT EXISTS PARTITION ...`` (Spark's own insert registers them with the same command).

Also the replica's half: the data files a source's INSERT INTO added, copied as files into the directories of their
partitions in the replica's work table (:meth:`SparkFileMoves.copy_in`).

Paths: ``file:`` locations with Python's file functions (each touched directory fsynced once the moves are done);
any other file system through Hadoop's ``FileSystem`` (a classic session); a Spark Connect session on a remote file
system cannot move files (:class:`NotAtomicError`, nothing done)."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote

from storage.catalogs.directory_walk import TableTree, hidden
from storage.catalogs.file_moves import COPIED_ONE, FileMove, MovePlan, PartitionValues, WriteJob
from storage.catalogs.interface import Fill
from storage.catalogs.names import TableName
from storage.catalogs.spark.engine import ENGINE_ERRORS, Engine, inspect_error
from storage.catalogs.spark.fs import data_listing
from storage.catalogs.spark.fs.data_listing import FILE_SYSTEMS_SHOWING_WRITES
from storage.catalogs.spark.fs.named_jobs import jobs_named, local_files, named_files, unnamed
from storage.catalogs.spark.hms.table_statistics import update_statistics
from storage.catalogs.spark.jvm import new, static
from storage.catalogs.spark.profile import Jvm, local_path
from storage.errors import CatalogError, EngineOperationError, NoSuchObjectError, NotAtomicError


def unescape_partition_path(text: str) -> str:
    """Undo Hive's ``FileUtils.escapePathName`` (``%XX`` for a fixed set of ASCII characters; ``%`` itself too)."""
    return unquote(text)


def parse_partition(text: str) -> dict[str, str]:
    """``p=a%2Fb/q=1`` (a ``SHOW PARTITIONS`` row) -> ``{"p": "a/b", "q": "1"}``; escaped ``/`` and ``=`` stay in."""
    spec: dict[str, str] = {}
    for part in text.split("/"):
        key, sep, value = part.partition("=")
        if not sep:
            raise CatalogError(f"unexpected SHOW PARTITIONS row {text!r}")
        spec[unescape_partition_path(key)] = unescape_partition_path(value)
    return spec


def partition_of_path(relative: str) -> PartitionValues:
    """The partition of a data file from its path relative to its table's directory (``()``: at the top)."""
    directory = relative.rsplit("/", 1)[0] if "/" in relative else ""
    return tuple(parse_partition(directory).items()) if directory else ()


class Partitions(Protocol):
    """The partitions of a table as Spark lists and registers them (the catalog's ALTER TABLE part)."""

    def partition_paths(self, name: TableName, spec: dict[str, str] | None = None) -> list[str]: ...

    def add_partitions(self, name: TableName, specs: list[dict[str, str]]) -> None: ...


def visible_while_written(location: str) -> bool:
    """Whether a file at ``location`` is seen by readers part-written (:data:`FILE_SYSTEMS_SHOWING_WRITES`; a path
    without a scheme is on the default file system, which may be HDFS: taken as one)."""
    scheme, separator, _ = location.partition(":")
    return not separator or "/" in scheme or scheme.lower() in FILE_SYSTEMS_SHOWING_WRITES


def job_copy_name(file_name: str, job: str) -> str:
    """The name of a replica's copy of the source's file ``file_name`` in its table, written in place by ``job``:
    the job's id first, the source's name after it whole (its bucket number and extension as Spark reads them)."""
    return f"{job}-{file_name}"


def checksum_of(path: Path) -> Path:
    return path.with_name(f".{path.name}.crc")


class SparkFileMoves:
    """The file half of INSERT INTO (``location_of`` says where a table is, ``alter`` lists and registers its
    partitions)."""

    def __init__(self, engine: Engine, location_of: Callable[[TableName], str | None], alter: Partitions,
                 partition_locations: Callable[[TableName], dict[tuple[str, ...], str]] = lambda name: {}) -> None:
        self._engine = engine
        self._location_of = location_of
        self._alter = alter
        self._partition_locations = partition_locations

    # ------------------------------------------------------------------ the source's INSERT INTO

    def plan_moves(self, staged: TableName, target: TableName, *, partitioned: bool) -> MovePlan:
        """Reads only: two lookups, ``SHOW PARTITIONS`` of the staged table, one directory listing per staged
        partition (or of its directory). A partition's files go where Spark puts that partition's
        (``<table>/<escaped spec>``: a partition given another LOCATION by plain Spark would not read them)."""
        source, destination = self._location(staged), self._location(target)
        raw_paths = self._alter.partition_paths(staged) if partitioned else []
        if not raw_paths:  # unpartitioned (a partitioned table's rows are all in partition directories)
            moves = [FileMove(f"{source}/{name}", f"{destination}/{name}") for name in self._list(source)]
            return MovePlan(destination, tuple(moves))
        moves, partitions = [], []
        for raw in raw_paths:
            values: PartitionValues = tuple(parse_partition(raw).items())
            partitions.append(values)
            moves += [FileMove(f"{source}/{raw}/{name}", f"{destination}/{raw}/{name}", values)
                      for name in self._list(f"{source}/{raw}")]
        return MovePlan(destination, tuple(moves), tuple(partitions))

    def data_files(self, location: str) -> tuple[str, ...] | None:
        """Every data file under ``location`` (partition directories included), relative to it; None on Spark
        Connect for a remote file system (:func:`~storage.catalogs.spark.fs.data_listing.data_files`)."""
        found = data_listing.data_files(self._engine, location)
        return None if found is None else tuple(entry.relative for entry in found)

    def tree(self, location: str) -> TableTree | None:
        """The data files, the hidden files of its directories and the directories under ``location``
        (:func:`~storage.catalogs.spark.fs.data_listing.table_tree`)."""
        return data_listing.table_tree(self._engine, location)

    def move_file(self, move: FileMove) -> None:
        source, target = local_path(move.source), local_path(move.target)
        if source is not None and target is not None:
            self._move_local(source, target, move)
            return
        file_system, source_path, target_path = self._hadoop(move.source), self._path(move.source), \
            self._path(move.target)
        try:
            if file_system.exists(source_path):
                if file_system.exists(target_path):
                    if not _copied(file_system, source_path, target_path):
                        raise self._collision(move)
                    file_system.delete(source_path, False)  # a rename by copy, cut before its delete
                    return
                file_system.mkdirs(target_path.getParent())
                if not file_system.rename(source_path, target_path):
                    raise EngineOperationError(f"cannot move {move.source} to {move.target}", move.target)
            elif not file_system.exists(target_path):
                raise self._gone(move)
        except ENGINE_ERRORS as error:
            raise EngineOperationError(f"cannot move {move.source} to {move.target}: {inspect_error(error).message}",
                                       move.target, error) from None

    def moves_done(self, target: TableName, plan: MovePlan) -> None:
        """Sync the directories (local), register the partitions ``target`` lacks (one call), refresh the session,
        update the statistics as Spark's INSERT does."""
        directories = {str(path.parent) for move in plan.moves for location in (move.source, move.target)
                       if (path := local_path(location)) is not None}
        sync_directory(sorted(directories))
        if plan.partitions:
            present = {tuple(parse_partition(raw).items()) for raw in self._alter.partition_paths(target)}
            missing = [dict(values) for values in plan.partitions if values not in present]
            if missing:
                self._alter.add_partitions(target, missing)
        self._refreshed(target)

    def _refreshed(self, target: TableName) -> None:
        """The session's view of ``target`` refreshed and its statistics updated, as after Spark's own INSERT."""
        self._engine.forget(target)
        try:
            self._engine.spark.catalog.refreshTable(target.quoted)
            update_statistics(self._engine, target)
        except ENGINE_ERRORS as error:
            raise EngineOperationError(f"cannot refresh {target}: {inspect_error(error).message}", str(target),
                                       error) from None

    # ------------------------------------------------------------------ an INSERT written in place

    def names_jobs(self, target: TableName) -> bool:
        return jobs_named(self._engine)

    def job_files(self, location: str, job: str) -> tuple[FileMove, ...] | None:
        """The data files of ``job`` under ``location`` (one listing: the whole directory's, in one round trip);
        None where no write job took the id (its files cannot be told apart: the event records none)."""
        found = None if unnamed(job) else self.data_files(location)
        if found is None:
            return None
        root = location.rstrip("/")
        return tuple(FileMove(f"{root}/{relative}", f"{root}/{relative}", partition_of_path(relative))
                     for relative in named_files(found, job))

    def remove_job_files(self, target: TableName, location: str, job: str) -> None:
        """Every file named with ``job`` under ``location`` deleted (staging and checksum files too), and under each
        partition of ``target`` that plain Spark gave a location of its own (Spark's job writes such a partition's
        files there), the touched directories synced (local), the session's view of ``target`` refreshed."""
        root = location.rstrip("/")
        with contextlib.suppress(CatalogError):  # no table under the name now: its own directory is all there is
            elsewhere = {p.rstrip("/") for p in self._partition_locations(target).values()
                         if not p.rstrip("/").startswith(root + "/")}
            for directory in sorted(elsewhere):
                self._remove_named(directory, job)
        self._remove_named(location, job)
        self._engine.forget(target)
        with contextlib.suppress(*ENGINE_ERRORS):  # no table under the name now: nothing cached of it
            self._engine.spark.catalog.refreshTable(target.quoted)

    def partitions_holding_rows(self, target: TableName, location: str,
                                partitions: Sequence[PartitionValues]) -> set[PartitionValues]:
        """One listing of ``location`` and of ``target``'s partition locations (one metastore call)."""
        listed = self.data_files(location)
        if listed is None:
            return set(partitions)
        held = {partition_of_path(relative) for relative in listed}
        root = location.rstrip("/")
        with contextlib.suppress(CatalogError):  # no table under the name: only its directory tells
            placed = self._partition_locations(target)
            held |= {p for p in partitions
                     if not placed.get(tuple(v for _, v in p), root + "/").rstrip("/").startswith(root + "/")}
        return {p for p in partitions if p in held}

    def _remove_named(self, location: str, job: str) -> None:
        root = local_path(location)
        if root is not None:
            doomed = [root / relative for relative in named_files(local_files(str(root)), job)] \
                if root.is_dir() else []
            for path in doomed:
                path.unlink(missing_ok=True)
            sync_directory(sorted({str(path.parent) for path in doomed}))
        else:
            file_system = self._hadoop(location)
            try:
                listed = data_listing.data_files(self._engine, location) or ()  # no hidden file off a local disk
                for relative in named_files([entry.relative for entry in listed], job):
                    file_system.delete(self._path(f"{location.rstrip('/')}/{relative}"), False)
            except ENGINE_ERRORS as error:
                raise EngineOperationError(f"cannot delete the files of job {job} under {location}: "
                                           f"{inspect_error(error).message}", location, error) from None

    # ------------------------------------------------------------------ the replica's copy

    def copy_in(self, name: TableName, fill: Fill, job: WriteJob | None = None) -> None:
        """Every partition of ``fill`` registered (one call, those present kept), then each file copied into its
        partition's directory: under its own name into a work table; with ``job``, into the table itself under
        :func:`job_copy_name` (see :func:`copy_whole` for how each appears whole), then the touched directories
        synced (local), the session refreshed and the statistics updated, as :meth:`moves_done` leaves them."""
        location = self._location(name)
        partitions = list(dict.fromkeys([*fill.copy_partitions, *(part for _, part in fill.copy_files if part)]))
        if partitions:
            self._alter.add_partitions(name, [dict(values) for values in partitions])
        directories = {tuple(parse_partition(raw).items()): f"{location}/{raw}"
                       for raw in self._alter.partition_paths(name)} if partitions else {}
        targets: list[str] = []
        for path, partition in fill.copy_files:
            directory = directories.get(partition) if partition else location
            if directory is None:
                raise EngineOperationError(f"no partition {dict(partition)} in {name} to copy {path} into", str(name))
            file_name = path.rstrip("/").rsplit("/", 1)[-1]
            target = f"{directory}/{file_name if job is None else job_copy_name(file_name, job.id)}"
            if job is None:
                self._copy(path, target, name)
            else:
                if targets:
                    COPIED_ONE()
                self._copy_whole(path, target, name)
            targets.append(target)
        if job is None:
            self._engine.forget(name)
            return
        sync_directory(sorted({str(local.parent) for target in targets if (local := local_path(target)) is not None}))
        self._refreshed(name)  # forgets the name too

    # ------------------------------------------------------------------ helpers

    def _location(self, name: TableName) -> str:
        location = self._location_of(name)
        if location is None:
            raise NoSuchObjectError.relation(f"table {name} does not exist", str(name))
        return location.rstrip("/")

    def _list(self, directory: str) -> list[str]:
        """The data files directly in ``directory`` (none when it does not exist), sorted."""
        path = local_path(directory)
        if path is not None:
            if not path.is_dir():
                return []
            return sorted(e.name for e in os.scandir(path) if e.is_file() and not hidden(e.name))
        file_system, hadoop_path = self._hadoop(directory), self._path(directory)
        try:
            if not file_system.exists(hadoop_path):
                return []
            return sorted(str(s.getPath().getName()) for s in file_system.listStatus(hadoop_path)
                          if s.isFile() and not hidden(str(s.getPath().getName())))
        except ENGINE_ERRORS as error:
            raise EngineOperationError(f"cannot list {directory}: {inspect_error(error).message}", directory,
                                       error) from None

    def _move_local(self, source: Path, target: Path, move: FileMove) -> None:
        if source.exists():
            if target.exists():
                raise self._collision(move)
            target.parent.mkdir(parents=True, exist_ok=True)
            if checksum_of(source).exists():  # first: a data file still in place means "not moved yet"
                os.replace(checksum_of(source), checksum_of(target))
            os.rename(source, target)
        elif not target.exists():
            raise self._gone(move)

    def _copy(self, source: str, target: str, name: TableName) -> None:
        source_path, target_path = local_path(source), local_path(target)
        if source_path is not None and target_path is not None:
            target_path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source_path, target_path)
            return
        jvm = self._handles(target)
        try:
            source_fs, target_fs = self._hadoop(source), self._hadoop(target)
            static(jvm.view, jvm.classes.hadoop_file_util, "copy")(
                source_fs, self._path(source), target_fs, self._path(target), False, jvm.hadoop_configuration())
        except ENGINE_ERRORS as error:
            raise EngineOperationError(f"cannot copy {source} into {name}: {inspect_error(error).message}",
                                       str(name), error) from None

    def _copy_whole(self, source: str, target: str, name: TableName) -> None:
        """``source`` copied to ``target`` so that no reader of the directory sees a part of it: where a file is
        visible while it is written (a local disk, HDFS), under a hidden name (ignored by readers, found by the undo:
        it carries the job's id too) and then renamed in its directory, one file; on an object store, where an
        object appears whole when its upload ends and a rename is a copy, straight to its name."""
        if local_path(target) is None and not visible_while_written(target):
            self._copy(source, target, name)
            return
        directory, _, file_name = target.rpartition("/")
        hidden = f"{directory}/.{file_name}.copying"
        self._copy(source, hidden, name)
        hidden_path, target_path = local_path(hidden), local_path(target)
        if hidden_path is not None and target_path is not None:
            with open(hidden_path, "rb") as copied:  # durable before its name is: the commit point follows
                os.fsync(copied.fileno())
            os.replace(hidden_path, target_path)
            return
        try:
            if not self._hadoop(target).rename(self._path(hidden), self._path(target)):
                raise EngineOperationError(f"cannot copy {source} into {name}: renaming {hidden} failed", str(name))
        except ENGINE_ERRORS as error:
            raise EngineOperationError(f"cannot copy {source} into {name}: {inspect_error(error).message}",
                                       str(name), error) from None

    def _handles(self, location: str) -> Jvm:
        jvm = self._engine.jvm
        if jvm is None:
            raise NotAtomicError(f"cannot move files at {location}: a Spark Connect session reaches only local files "
                                 "from this process", location)
        return jvm

    def _path(self, location: str) -> Any:
        jvm = self._handles(location)
        return new(jvm.view, jvm.classes.hadoop_path, location)

    def _hadoop(self, location: str) -> Any:
        try:
            return self._path(location).getFileSystem(self._handles(location).hadoop_configuration())
        except ENGINE_ERRORS as error:
            raise EngineOperationError(f"cannot reach {location}: {inspect_error(error).message}", location,
                                       error) from None

    @staticmethod
    def _collision(move: FileMove) -> EngineOperationError:
        return EngineOperationError(f"cannot move {move.source}: {move.target} exists already", move.target)

    @staticmethod
    def _gone(move: FileMove) -> EngineOperationError:
        return EngineOperationError(f"a file of a committed INSERT INTO is gone: neither {move.source} nor "
                                    f"{move.target} exists", move.target)


def sync_directory(directory: str | Iterable[str]) -> None:
    """fsync a directory (a rename is durable once its directories are); a missing one is skipped."""
    for path in [directory] if isinstance(directory, str) else directory:
        try:
            handle = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            continue
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def _copied(file_system: Any, source: Any, target: Any) -> bool:
    """Whether ``target`` is a whole copy of ``source``: what a file system that renames by copying then deleting
    (an object store: each object written whole or not at all) leaves when a crash cuts the rename between the two.
    The names are the data job's own (unique per job), so an equal length means the same file."""
    return int(file_system.getFileStatus(source).getLen()) == int(file_system.getFileStatus(target).getLen())
