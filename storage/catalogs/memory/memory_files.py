"""The "files" of the in-memory catalog: each row of an INSERT's work table is one "file"
(``<location>/<partition>/part-<row>``), and a kept version's rows are the "files" at its location.

:class:`MemoryFileMover` (:class:`~storage.catalogs.file_moves.FileMover`): moving a file appends its row to the
table, once (the moved files are remembered, as a file system remembers where a file is).
:class:`MemoryVersionMover` (:class:`~storage.catalogs.version_moves.VersionMover`): a kept version's rows move to
another location. Both work on the catalog's tables and :class:`~storage.catalogs.memory.memory_table.SwapState`, and
call its failure hook (``observe``) as the catalog's own methods do."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from storage.catalogs.file_moves import FileMove, MovePlan, PartitionValues, WriteJob
from storage.catalogs.fill import Fill
from storage.catalogs.memory.memory_table import MemoryTable, SwapState, location_of, partition_of, register_partition
from storage.catalogs.names import TableName
from storage.errors import CatalogError, InvalidDefinitionError, NoSuchObjectError

Observe = Callable[[str, TableName], None]
"""The catalog's failure hook: records the call, raises the failure a test injected for it."""


class MemoryFileMover:
    """INSERT INTO's file moves on the catalog's ``tables`` and ``swap`` state."""

    def __init__(self, tables: dict[TableName, MemoryTable], swap: SwapState, observe: Observe) -> None:
        self.tables = tables
        self.swap = swap
        self._check = observe

    def _located(self, path: str) -> tuple[TableName, MemoryTable] | None:
        found = [(name, table) for name, table in self.tables.items()
                 if path.startswith(location_of(name, table) + "/")]
        return max(found, key=lambda item: len(location_of(*item)), default=None)

    def copy_in(self, name: TableName, fill: Fill, job: WriteJob | None = None) -> None:
        raise InvalidDefinitionError("the in-memory catalog has no files to copy", str(name))

    def plan_moves(self, staged: TableName, target: TableName, *, partitioned: bool) -> MovePlan:
        table, into = self.tables.get(staged), self.tables.get(target)
        if table is None or into is None:
            missing = staged if table is None else target
            raise NoSuchObjectError.relation(f"table {missing} does not exist", str(missing))
        source, destination = location_of(staged, table), location_of(target, into)
        moves = []
        for index, row in enumerate(table.rows):
            partition = tuple(zip(table.partitioned_by, partition_of(table, row), strict=True))
            directory = "".join(f"/{column}={value}" for column, value in partition)
            moves.append(FileMove(f"{source}{directory}/part-{index:05d}",
                                  f"{destination}{directory}/{staged.name}-part-{index:05d}", partition))
        partitions = tuple(tuple((column, p[column]) for column in table.partitioned_by) for p in table.partitions)
        return MovePlan(destination, tuple(moves), partitions)

    def data_files(self, location: str) -> tuple[str, ...] | None:
        return None  # rows, not files: a replica of the in-memory catalog replays text

    def names_jobs(self, target: TableName) -> bool:
        return self.swap.jobs_named

    def job_files(self, location: str, job: str) -> tuple[FileMove, ...] | None:
        """One "file" per row the job added (``<location>/<partition>/<job>-part-<n>``)."""
        found = self.swap.jobs.get(job)
        table = next((t for n, t in self.tables.items() if location_of(n, t) == location), None)
        if found is None or table is None:
            return ()
        files = []
        for index, row in enumerate(found[1]):
            partition = tuple(zip(table.partitioned_by, partition_of(table, row), strict=True))
            path = f"{location}{''.join(f'/{c}={v}' for c, v in partition)}/{job}-part-{index:05d}"
            files.append(FileMove(path, path, partition))
        return tuple(files)

    def remove_job_files(self, target: TableName, location: str, job: str) -> None:
        """The job's rows out of the table at ``location`` that they went into (its identity), each once."""
        found = self.swap.jobs.get(job)
        if found is None:
            return
        self._check("remove_job_files", target)
        identity, rows = found
        for name, table in self.tables.items():
            if location_of(name, table) == location and table.identity == identity:
                for row in reversed(rows):  # the last equal row each time: the job appended them at the end
                    last = next((i for i in range(len(table.rows) - 1, -1, -1) if table.rows[i] == row), None)
                    if last is not None:
                        del table.rows[last]
        del self.swap.jobs[job]

    def partitions_holding_rows(self, target: TableName, location: str,
                                partitions: Sequence[PartitionValues]) -> set[PartitionValues]:
        """Those of ``partitions`` with a row of ``target`` in them (every one when ``target`` is not there)."""
        table = self.tables.get(target)
        if table is None:
            return set(partitions)
        held = {tuple(zip(table.partitioned_by, partition_of(table, row), strict=True)) for row in table.rows}
        return {p for p in partitions if p in held}

    def move_file(self, move: FileMove) -> None:
        if move.source in self.swap.moved:
            return
        staged, target = self._located(move.source), self._located(move.target)
        if staged is None or target is None:
            raise CatalogError(f"the file {move.source} is neither there nor at {move.target}", move.target)
        self._check("move_file", target[0])
        index = int(move.source.rsplit("-", 1)[1])
        target[1].rows.append(staged[1].rows[index])
        self.swap.moved.add(move.source)

    def moves_done(self, target: TableName, plan: MovePlan) -> None:
        table = self.tables.get(target)
        if table is None:
            raise NoSuchObjectError.relation(f"table {target} does not exist", str(target))
        self._check("register_partitions", target)
        for partition in plan.partitions:
            register_partition(table, dict(partition))


class MemoryVersionMover:
    """A kept version's "directory" moved aside, once ``directory_user`` (the catalog's) finds nothing using it."""

    def __init__(self, swap: SwapState, observe: Observe, directory_user: Callable[[str], str | None]) -> None:
        self.swap = swap
        self._check = observe
        self.directory_user = directory_user

    def move_directory(self, location: str, to: str, owner: TableName) -> str | None:
        """As Spark's (:mod:`storage.catalogs.version_moves`): the kept "files" at ``location`` move to ``to``."""
        self._check("move_directory", owner)
        user = self.directory_user(location)
        if user is not None:
            return user
        if location in self.swap.orphans:
            if to in self.swap.orphans:
                raise CatalogError(f"cannot move the kept version of {owner} at {location}: {to} exists already",
                                   str(owner))
            self.swap.orphans.discard(location)
            self.swap.orphans.add(to)
            if location in self.swap.files:
                self.swap.files[to] = self.swap.files.pop(location)
            self.swap.notes.pop(location, None)
        return None

    def moved_definition(self, definition: str, to: str) -> str:
        record = json.loads(definition)
        record["location"] = to
        return json.dumps(record, sort_keys=True)
