"""Faithful data for INSERT INTO: the replica's statement for a source event that recorded the files it added
(:class:`chains.versions.AddedFiles`). The query is never run again: the source's files themselves are copied into
the replica's work table (each into the directory of its partition), then moved into the replica's table by the
same crash-atomic INSERT INTO as on the source (:mod:`ddl_log.engine.insert`), so ``rand()``, ``current_timestamp()``
and tables only the source has give the replica exactly the source's new rows.

The replica's table must be the version the source added them to, as far as the replica can tell: the same columns
(names and types) and partition columns, else the apply stops with the table named (its catalog was changed by
hand). Files the source no longer has (the table dropped or replaced, and its retention over) stop the replica
before the event (:class:`SourceVersionGoneError`): skipping them would lose rows silently."""

from __future__ import annotations

import time
from collections.abc import Iterable

import attrs

from chains.binlog import BinlogEvent
from chains.versions import AddedFiles
from ddl_log.engine.insert import InsertInto
from ddl_log.replication.copy import Renames, followed_location
from ddl_log.replication.errors import SourceVersionGoneError
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
    """Where the added files are now (a later RENAME of a table at its default directory moved them: followed);
    :class:`SourceVersionGoneError` when one is gone (local paths; elsewhere the copy fails instead)."""
    from storage.catalogs.spark.engine import local_path

    location = added.location.rstrip("/")
    if renames is not None:
        location = followed_location(added.table, location, renames).rstrip("/")
    paths = []
    for file in added.files:
        path = location + file.path[len(added.location.rstrip("/")):] if file.path.startswith(added.location) \
            else file.path
        local = local_path(path)
        if local is not None and not local.is_file():
            raise SourceVersionGoneError(event.seq, added.table, path)
        paths.append(path)
    return tuple(paths)


MOVE_WAIT_SECONDS = 30.0
"""How long the files an event lists may take to arrive. The source binlogs INSERT INTO at its commit point and
moves the files into the table right after (MOVE_FILES rolls forward), or its recovery or a takeover does after a
crash there: a replica that reads the event at once can be earlier than the move (seen in the two-services test:
the applier stopped, claiming the files gone, while the source was moving them)."""


def insert_statement(event: BinlogEvent, text: str, later: Renames,
                     name: TableName | None = None, *, wait_seconds: float = MOVE_WAIT_SECONDS) -> ReplicatedInsert:
    """The replica's INSERT INTO for ``event`` (its ``added`` record), the source's files copied, not its query;
    into ``name`` (default: the source's table name, as the event records it). Files not there yet are waited for
    (``wait_seconds``), where they are now or where a later RENAME moved them."""
    added = event.added
    assert added is not None
    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            paths = present_files(event, added, None)
            break
        except SourceVersionGoneError:
            try:
                paths = present_files(event, added, later())
                break
            except SourceVersionGoneError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.1)
    fill = Fill(copy_files=tuple((path, file.partition) for path, file in zip(paths, added.files, strict=True)),
                copy_partitions=added.partitions)
    return ReplicatedInsert(name=name or TableName.of(added.table), fill=fill, added=added, text=text)
