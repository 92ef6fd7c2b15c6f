"""Moving a kept version's directory aside on Spark's file systems (:mod:`storage.catalogs.version_moves`): one
``rename`` with Python's file functions for local directories (then both parents synced), Hadoop's ``FileSystem`` of
the session elsewhere; the proof that nothing uses the directory is the metastore's, as for a deletion."""

from __future__ import annotations

import os
from collections.abc import Callable

from storage.catalogs.names import TableName
from storage.catalogs.spark.engine import ENGINE_ERRORS, Engine, inspect_error
from storage.catalogs.spark.fs import kept_notes
from storage.catalogs.spark.fs.file_mover import sync_directory
from storage.catalogs.spark.hms.definition_text import relocated_records, version_text
from storage.catalogs.spark.jvm import new
from storage.catalogs.spark.profile import local_path
from storage.errors import EngineOperationError


class SparkVersionMoves:
    def __init__(self, engine: Engine, directory_user: Callable[[str], str | None]) -> None:
        self._engine = engine
        self._directory_user = directory_user

    def move_directory(self, location: str, to: str, owner: TableName) -> str | None:
        user = self._directory_user(location)
        if user is not None:
            return user
        source, target = local_path(location), local_path(to)
        if source is not None and target is not None:
            if source.exists():
                if target.exists():
                    raise self._collision(location, to, owner)
                try:
                    os.rename(source, target)
                except OSError as error:
                    raise EngineOperationError(f"cannot move {location} to {to}: {error}", str(owner),
                                               error) from None
                sync_directory(str(target.parent))
        else:
            self._move_hadoop(location, to, owner)
        kept_notes.remove_note(self._engine, to)
        return None

    def _move_hadoop(self, location: str, to: str, owner: TableName) -> None:
        jvm = self._engine.jvm
        if jvm is None:
            raise EngineOperationError(f"cannot move {location}: a Spark Connect session reaches only local files",
                                       str(owner))
        try:
            source, target = (new(jvm.view, jvm.classes.hadoop_path, path) for path in (location, to))
            file_system = source.getFileSystem(jvm.hadoop_configuration())
            if not file_system.exists(source):
                return
            if file_system.exists(target):
                raise self._collision(location, to, owner)
            if not file_system.rename(source, target):
                raise EngineOperationError(f"cannot move {location} to {to}", str(owner))
        except ENGINE_ERRORS as error:
            raise EngineOperationError(f"cannot move {location} to {to}: {inspect_error(error).message}",
                                       str(owner), error) from None

    @staticmethod
    def _collision(location: str, to: str, owner: TableName) -> EngineOperationError:
        return EngineOperationError(f"cannot move the kept version of {owner} at {location}: {to} exists already",
                                    str(owner))

    def moved_definition(self, definition: str, to: str) -> str:
        table, partitions, _ = relocated_records(definition, to)  # a partition elsewhere stays where it is
        return version_text(TableName(table.db, table.name), table, partitions).definition
