"""What a catalog needs to make INSERT INTO crash-atomic: where the engine can name a job's files with an id chosen
beforehand, the rows are written in place and an undo deletes the job's files by name
(:mod:`actions.kinds.remove_job_files`); else they are written aside first (into a work table, by the engine's own
INSERT), then their files are moved into the table one by one after the commit point, a roll-forward that recovery
finishes (:mod:`actions.kinds.move_files`). A catalog gives its mover by
:meth:`DataJobs.file_mover <storage.catalogs.ports.DataJobs.file_mover>`.

Every step is idempotent, because recovery repeats the ones a crash cut: a file already at its target is moved, a
partition already registered is registered."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import attrs

from storage import crashpoints
from storage.catalogs.fill import Fill
from storage.catalogs.names import TableName

COPIED_ONE = crashpoints.declare(
    "insert_in_place.copy.between", "a replica's INSERT INTO in place: some of the source's files are in the table "
    "under the job's names, the next one is not yet (declared here, beside the engines)")

PartitionValues = tuple[tuple[str, str], ...]
"""A partition as ``((column, value), ...)`` in the table's partition column order, values as the metastore stores
them (NULL as ``__HIVE_DEFAULT_PARTITION__``); ``()`` for an unpartitioned table."""


@attrs.frozen
class FileMove:
    """One data file of the work table (``source``), where it goes in the table (``target``), and its partition."""

    source: str
    target: str
    partition: PartitionValues = ()


@attrs.frozen
class WriteJob:
    """A write job an INSERT names beforehand (``DataJobs.insert(..., job=)``): ``id`` names every file it makes;
    ``location``, the table's directory the statement logged with it (so the insert reads it no second time)."""

    id: str
    location: str


@attrs.frozen
class MovePlan:
    """Every data file the work table holds with where it goes, and the work table's partitions (the ones the
    table lacks are registered after the moves: a static partition insert of no row registers its partition too, as
    the engine's own INSERT does). ``location``: the table's directory."""

    location: str
    moves: tuple[FileMove, ...] = ()
    partitions: tuple[PartitionValues, ...] = ()


@runtime_checkable
class FileMover(Protocol):
    def plan_moves(self, staged: TableName, target: TableName, *, partitioned: bool) -> MovePlan:
        """Reads only: the data files of ``staged`` (the work table an INSERT filled; the engine's hidden and
        ``_SUCCESS`` files are not data) and where each goes in ``target``: into the directory of the target's
        partition when it has it, else where the engine puts that partition (the staged file's path relative to the
        staged table's directory, under the target's). ``partitioned``: whether the table is (so that an
        unpartitioned one costs no partition listing). Raises :class:`NotAtomicError` where the files cannot be
        listed and moved (a file system this process does not reach)."""
        ...

    def data_files(self, location: str) -> tuple[str, ...] | None:
        """The data files under ``location`` (a table version's directory), relative to it, sorted; None where they
        cannot be listed. What a binlog event records as the version's files."""
        ...

    def move_file(self, move: FileMove) -> None:
        """Move one file (with the engine's checksum file beside it) into place in one rename; nothing when it is
        there already (a replay after a crash); where it is at both places whole (a file system that renames by
        copying, cut before its delete) the source is removed. A file found at neither place raises: rows a
        committed statement added are gone, which an operator must hear about."""
        ...

    def moves_done(self, target: TableName, plan: MovePlan) -> None:
        """After every move: make them durable (the directories synced), register the partitions ``target`` lacks
        in one call (readers see the new partitions at once), and refresh the session's view of ``target``."""
        ...


    def names_jobs(self, target: TableName) -> bool:
        """Whether an INSERT into ``target`` can run with a job id chosen beforehand that names every file its job
        writes (``DataJobs.insert(..., job=)``): then the rows are written in place and an undo deletes the job's
        files by name (:mod:`actions.kinds.remove_job_files`); else they are written aside and moved in."""
        ...

    def job_files(self, location: str, job: str) -> tuple[FileMove, ...] | None:
        """The data files under ``location`` named with ``job``, each as where it lies (``target``, also its
        ``source``) with its partition, sorted (None: files not listable, as ``data_files``)."""
        ...

    def remove_job_files(self, target: TableName, location: str, job: str) -> None:
        """Delete every file under ``location`` named with ``job``, hidden and staging directories included, make
        it durable, and refresh the session's view of ``target``."""
        ...

    def partitions_holding_rows(self, target: TableName, location: str,
                                partitions: Sequence[PartitionValues]) -> set[PartitionValues]:
        """Those of ``partitions`` of ``target`` (at ``location``) that hold a data file, or that lie outside
        ``location``, or all where files cannot be listed: an undo drops a partition its job added only when it
        holds nothing another writer put there."""
        ...

    def copy_in(self, name: TableName, fill: Fill, job: WriteJob | None = None) -> None:
        """A replica's half: register every partition of ``fill`` in the table ``name`` (one call), then copy each
        file of ``fill.copy_files`` into its partition's directory (as files, no engine job). Without ``job``
        (``name`` a work table) under its own name; with it (``name`` the replica's table itself, in place) under a
        name carrying ``job.id``, so that an undo finds the copies by name as it finds a named job's files, each
        appearing whole (never a partly copied file in the table's directory), then the table refreshed and its
        statistics updated as the engine's INSERT leaves them: no file is renamed into the table after the commit
        point."""
        ...
