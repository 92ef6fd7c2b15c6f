"""The file moves of the in-memory catalog (:class:`~storage.catalogs.file_moves.FileMover`): each row of an INSERT's
work table is one "file" (``<location>/<partition>/part-<row>``); moving it appends the row to the table, once (the
moved files are remembered, as a file system remembers where a file is)."""

from __future__ import annotations

from storage.catalogs.file_moves import FileMove, MovePlan
from storage.catalogs.fill import Fill
from storage.catalogs.memory.memory_swap import SwapState, location_of
from storage.catalogs.memory.memory_table import MemoryTable, partition_of, register_partition
from storage.catalogs.names import TableName
from storage.errors import CatalogError, InvalidDefinitionError, NoSuchObjectError


class MemoryFiles:
    """Mixed into :class:`~storage.catalogs.memory.MemoryCatalog` (which provides ``tables``, ``swap``, ``_check``)."""

    tables: dict[TableName, MemoryTable]
    swap: SwapState

    def _check(self, operation: str, name: TableName) -> None:
        raise NotImplementedError  # MemoryCatalog's

    def _located(self, path: str) -> tuple[TableName, MemoryTable] | None:
        found = [(name, table) for name, table in self.tables.items()
                 if path.startswith(location_of(name, table) + "/")]
        return max(found, key=lambda item: len(location_of(*item)), default=None)

    def file_mover(self) -> MemoryFiles:
        return self

    def copy_in(self, name: TableName, fill: Fill) -> None:
        raise InvalidDefinitionError("the in-memory catalog has no files to copy", str(name))

    def plan_moves(self, staged: TableName, target: TableName, *, partitioned: bool) -> MovePlan:
        table, into = self.tables.get(staged), self.tables.get(target)
        if table is None or into is None:
            missing = staged if table is None else target
            raise NoSuchObjectError(f"table {missing} does not exist", str(missing))
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
            raise NoSuchObjectError(f"table {target} does not exist", str(target))
        self._check("register_partitions", target)
        for partition in plan.partitions:
            register_partition(table, dict(partition))
