"""Faithful data for INSERT INTO: the replica's statement for a source event that recorded the files it added
(:class:`chains.version_records.AddedFiles`). The query is never run again: the source's files themselves are copied
into
the replica's work table (each into the directory of its partition), then moved into the replica's table by the
same crash-atomic INSERT INTO as on the source (:mod:`ddl_log.engine.insert`), so ``rand()``, ``current_timestamp()``
and tables only the source has give the replica exactly the source's new rows.

The replica's table must be the version the source added them to, as far as the replica can tell: the same columns
(names and types) and partition columns, else the apply stops with the table named (its catalog was changed by
hand). Files the source no longer has (the table dropped or replaced, and its retention over) stop the replica
before the event (:class:`SourceVersionGoneError`): skipping them would lose rows silently."""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from chains.binlog import BinlogEvent
from chains.version_records import AddedFiles
from ddl_log.engine.insert import InsertInto
from ddl_log.replication.copy import Renames, followed_location, moved_aside
from ddl_log.replication.errors import SourceVersionGoneError
from ddl_log.replication.file_wait import MOVE_WAIT_SECONDS, waiting_for_files
from storage.catalogs.interface import Fill, TableMetadata
from storage.catalogs.names import TableName
from storage.errors import InvalidDefinitionError


@attrs.frozen(kw_only=True)
class ReplicatedInsert(InsertInto):
    """INSERT INTO of a source's files, after a check that the replica's table has the source's shape."""

    added: AddedFiles

    def canonical_text(self) -> str:
        return f"/* add the {len(self.added.files)} files an INSERT INTO added */ INSERT INTO TABLE {self.name.quoted}"

    def check(self, metadata: TableMetadata) -> None:
        mine = (tuple((c.name.lower(), c.type.lower()) for c in metadata.columns),
                tuple(c.lower() for c in metadata.partitioned_by))
        theirs = (tuple((n.lower(), t.lower()) for n, t in self.added.columns),
                  tuple(c.lower() for c in self.added.partitioned_by))
        if mine != theirs:
            raise InvalidDefinitionError(f"{self.name} on the replica has columns {mine[0]} partitioned by {mine[1]}; "
                                         f"the source added rows to one with {theirs[0]} partitioned by {theirs[1]}",
                                         str(self.name))


def present_files(event: BinlogEvent, added: AddedFiles,
                  renames: Iterable[tuple[TableName, TableName]] | None) -> tuple[str, ...]:
    """Where the added files are now (a later RENAME of a table at its default directory moved them: followed; a
    later CREATE of the name after a DROP moved the dropped version aside: found there);
    :class:`SourceVersionGoneError` when one is gone (local paths; elsewhere the copy fails instead)."""
    from storage.catalogs.spark.profile import local_path

    base = added.location.rstrip("/")
    location = base if renames is None else followed_location(added.table, base, renames).rstrip("/")
    inside = [file.path[len(base):].lstrip("/") if file.path.startswith(base + "/") else None
              for file in added.files]
    paths = tuple(file.path if relative is None else f"{location}/{relative}"
                  for file, relative in zip(added.files, inside, strict=True))
    missing = [path for path in paths if (local := local_path(path)) is not None and not local.is_file()]
    if not missing:
        return paths
    if renames is not None and all(relative is not None for relative in inside):
        listed = tuple(str(relative) for relative in inside)
        moved = moved_aside(location, listed)  # renamed, or dropped then made again: a directory beside it
        if moved is not None:
            return tuple(f"{moved}/{relative}" for relative in inside)
    raise SourceVersionGoneError(event.seq, added.table, missing[0])


def located_files(event: BinlogEvent, added: AddedFiles, later: Renames) -> tuple[str, ...]:
    """The added files where they are, else where later source statements moved them (:func:`present_files`)."""
    try:
        return present_files(event, added, None)
    except SourceVersionGoneError:
        return present_files(event, added, later())


def insert_statement(event: BinlogEvent, text: str, later: Renames,
                     name: TableName | None = None, *, wait_seconds: float = MOVE_WAIT_SECONDS) -> ReplicatedInsert:
    """The replica's INSERT INTO for ``event`` (its ``added`` record), the source's files copied, not its query;
    into ``name`` (default: the source's table name, as the event records it). Files not there yet are waited for
    (``wait_seconds``), where they are now or where a later RENAME moved them."""
    added = event.added
    assert added is not None
    paths = waiting_for_files(lambda: located_files(event, added, later), wait_seconds)
    fill = Fill(copy_files=tuple((path, file.partition) for path, file in zip(paths, added.files, strict=True)),
                copy_partitions=added.partitions)
    return ReplicatedInsert(name=name or TableName.of(added.table), fill=fill, added=added, text=text)
