"""The Spark catalog's :class:`~storage.catalogs.ports.Directories` port: leftover files of tables (directories at a
table's default location that no table owns: ``clean_leftovers``, and the clean-up after a failed CREATE, RENAME or
DROP), kept directories with their notes (:mod:`~storage.catalogs.spark.fs.kept_notes`), and a version's directory
deleted or moved once the metastore proves nothing uses it.

Spark / Hive leave such directories behind: a CTAS whose SELECT fails while running leaves its target directory
(empty, or holding ``_temporary/`` for a partitioned table, which blocks the next CREATE of that name); a process
killed mid-CTAS leaves ``_temporary/`` too; tasks Spark is still cancelling after a failed job may re-create
``_temporary/`` after the job's own abort removed it. CREATE refuses a default location that exists and is not
empty, RENAME one that exists at all (``LOCATION_ALREADY_EXISTS``): :meth:`SparkLeftovers.leftover_error` says where.

Directories are removed with Python's file functions (``local`` strategy) or, on file systems Python cannot reach,
through the Hive metastore (``metastore`` strategy, see :meth:`SparkLeftovers.clean_leftovers`).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from storage.catalogs.deletion_points import SET_ASIDE
from storage.catalogs.names import RESERVED_PREFIX, TableName
from storage.catalogs.spark.engine import (
    ENGINE_ERRORS,
    ENGINE_NAME,
    Engine,
    Failure,
    engine_error,
    inspect_error,
    sql_string_literal,
)
from storage.catalogs.spark.fs import kept_notes
from storage.catalogs.spark.fs.version_mover import SparkVersionMoves
from storage.catalogs.spark.profile import local_path
from storage.catalogs.spark.profiles.facts import Cause
from storage.errors import CatalogError, EngineOperationError, LeftoverFilesError

_SCHEME_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_GLOB_CHARS = re.compile(r"[\[\]{}*?\\]")
_SETTLE_POLL_SECONDS = 0.05
_SETTLE_QUIET_SECONDS = 0.3
_SETTLE_MAX_SECONDS = 3.0

_GC_PREFIX = RESERVED_PREFIX + "gc_"
"""Names of the helper tables :meth:`SparkLeftovers.clean_leftovers` uses on file systems Python cannot reach."""

_GC_TARGET = "spark_ddl_log.gc_target"
"""Table property of a helper table: the directory it was made to delete."""

_DELETING_PREFIX = RESERVED_PREFIX + "deleting_"
"""A local directory being deleted is first renamed to ``<parent>/ddllog_deleting_<hash of its path>`` (a name the
log reserves, so no table maps to it): see :func:`_delete_local`."""



class SparkLeftovers:
    """Finds and removes the files at a table's default location that no table or view owns; ``user_of`` says what
    in the metastore uses a directory (:meth:`MetastoreClient.user_of`; without the metastore client nothing can be
    proven: a reason)."""

    def __init__(self, engine: Engine, user_of: Callable[[str], str | None]) -> None:
        self._engine = engine
        self.directory_user = user_of

    def delete_data(self, location: str, owner: TableName) -> str | None:
        """Delete a table version's directory once the metastore proves that nothing uses it (see
        :meth:`storage.catalogs.ports.Directories.delete_data`; :meth:`MetastoreClient.user_of` looks at every
        database, table and partition), then :meth:`delete_directory`. Without the metastore client (Spark Connect)
        nothing can be proven: the directory is kept and the reason returned."""
        user = self.directory_user(location)
        if user is not None:
            return user
        return self.delete_directory(location, owner)

    def write_kept_note(self, location: str, text: str) -> bool:
        """See :func:`storage.catalogs.spark.fs.kept_notes.write_note`."""
        return kept_notes.write_note(self._engine, location, text)

    def remove_kept_note(self, location: str) -> None:
        """See :func:`storage.catalogs.spark.fs.kept_notes.remove_note`."""
        kept_notes.remove_note(self._engine, location)

    def read_kept_note(self, location: str) -> str | None:
        """See :func:`storage.catalogs.spark.fs.kept_notes.read_note`."""
        return kept_notes.read_note(self._engine, location)

    def version_mover(self) -> SparkVersionMoves:
        """A kept version's directory moved aside (:mod:`storage.catalogs.spark.fs.version_mover`)."""
        return SparkVersionMoves(self._engine, self.directory_user)

    @property
    def _spark(self) -> Any:
        return self._engine.spark

    def clean_leftovers(self, name: TableName) -> bool:
        """Remove the default location of ``name`` when no table or view of that name exists; True if removed.

        Names Spark could never have created (anything but letters, digits and ``_``) are left alone, so no path
        can escape the database directory.

        ``local`` strategy: ``shutil.rmtree`` on the ``file:`` path (a symlink is unlinked, never followed).
        ``metastore`` strategy, for file systems Python cannot reach (HDFS, S3, the disk of a remote Connect
        server): a helper table ``ddllog_gc_<hash>`` gets a partition located at the directory and is dropped; Hive
        deletes a managed table's partition directories wherever they are. Limits: the existence check lists the
        path with the ``binaryFile`` reader (glob characters in the location skip it); a crash can leave the helper
        table behind, and ``drop`` of it, or the next ``clean_leftovers`` of that name, removes it safely.

        Metastore calls: an existence check and a database lookup (the ``metastore`` strategy: four to six more).
        """
        return self.clean(name, None)

    def clean(self, name: TableName, default_location: str | None) -> bool:
        """:meth:`clean_leftovers`, with the default location of ``name`` when the caller knows it already."""
        if not (ENGINE_NAME.fullmatch(name.db) and ENGINE_NAME.fullmatch(name.name)):
            return False
        path = None if default_location is None else self._engine.local_directory(default_location)
        if path is not None and not (path.exists() or path.is_symlink()):
            return False  # nothing there (the usual case after a DROP ... PURGE): no metastore call needed
        if self._engine.occupied(name):
            return False
        location = default_location or self._engine.default_location(name)
        if location is None:
            return False
        if self._engine.strategy(location) == "local":
            return self._remove_local(location, name)
        return self._remove_via_metastore(location, name)

    def delete_directory(self, location: str, owner: TableName) -> str | None:
        """Delete the directory ``location`` (nothing uses it: the caller proved it) and return None; kept, with the
        reason, when it is not a directory a table of ``owner``'s warehouse can have had: a file system root, the
        warehouse itself. Local directories go with Python's file functions, those of other schemes (HDFS, object
        stores) through the session's Hadoop ``FileSystem``, which needs no metastore object (the directory of a
        dropped database has none); on Spark Connect through the metastore (the ``metastore`` strategy's helper
        table, in ``owner``'s database)."""
        text = location.rstrip("/")
        path = text.partition(":")[2] if _SCHEME_PREFIX.match(text) else text
        warehouse = self._engine.profile.warehouse.rstrip("/")
        if path.strip("/").count("/") < 1 or text in (warehouse, warehouse.partition(":")[2]):
            return f"{location} is not a table's directory"
        if self._engine.strategy(location) == "local":
            local = local_path(location)
            if local is None or not local.is_absolute():
                return f"{location} is not a local absolute path"
            try:
                _delete_local(local)
            except OSError as error:
                raise EngineOperationError(f"cannot delete {location}: {error}", str(owner), error) from None
            return None
        found = self._engine.hadoop(location) if local_path(location) is None else None
        if found is None:
            self._remove_via_metastore(location, owner)  # Spark Connect, or a local path the caller wants so
            return None
        file_system, path = found
        try:
            file_system.delete(path, True)  # false when nothing is there: already deleted
        except ENGINE_ERRORS as error:
            raise EngineOperationError(f"cannot delete {location}: {inspect_error(error).message}", str(owner),
                                       error) from None
        return None

    def clean_until_quiet(self, name: TableName) -> None:
        """Remove the leftovers of a failed write once its tasks have stopped.

        A failed job returns while its other tasks are being killed; one killed mid-write can re-create
        ``<location>/_temporary/...`` after the job's own abort removed it. On a classic session the clean-up waits
        (at most a few seconds) until the context runs no task, then removes once: the name's directory is free
        from then on, and a writer outside the log (plain Spark's CTAS of the name, from another driver) may start
        writing there at once; removing again later would delete its job's files under it. Where the tasks cannot be
        seen (Spark Connect) or still run at the deadline (other sessions' jobs), the location is polled until it
        has stayed absent for a moment, for at most a few seconds; the metastore strategy cleans once more after a
        pause.
        """
        location = self._engine.default_location(name)
        path = None if location is None else self._engine.local_directory(location)
        if path is not None and self._tasks_stopped(time.monotonic() + _SETTLE_MAX_SECONDS):
            self.clean_leftovers(name)
            return
        self.clean_leftovers(name)
        if location is None:
            return
        if path is None:
            time.sleep(_SETTLE_QUIET_SECONDS)
            self.clean_leftovers(name)
            return
        deadline = time.monotonic() + _SETTLE_MAX_SECONDS
        quiet_since = time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(_SETTLE_POLL_SECONDS)
            if path.exists() or path.is_symlink():
                self.clean_leftovers(name)
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since >= _SETTLE_QUIET_SECONDS:
                return

    def _tasks_stopped(self, deadline: float) -> bool:
        """Whether the session's context runs no task, waiting for it until ``deadline`` (False without a JVM to ask:
        Spark Connect). Two round trips a poll, more with executors."""
        jvm = self._engine.jvm
        if jvm is None:
            return False
        try:
            tracker = jvm.context.sc().statusTracker()
            while True:
                if sum(int(info.numRunningTasks()) for info in tracker.getExecutorInfos()) == 0:
                    return True
                if time.monotonic() >= deadline:
                    return False
                time.sleep(_SETTLE_POLL_SECONDS)
        except ENGINE_ERRORS:
            return False

    def run_claiming(self, name: TableName, statement: str, operation: str, *,
                     first: Callable[[], object] | None = None) -> Failure | None:
        """Run ``statement``, which makes the default directory of ``name`` (a CREATE, a RENAME to it); None when it
        ran, else the failure. Spark refuses a directory that is there (``LOCATION_ALREADY_EXISTS``): for one of
        the log's own names no table uses, the leftovers are removed once and the statement run again; otherwise
        (a user's name, or still taken) :meth:`leftover_error` says where the files are. ``first``: how the first
        attempt runs it (the plan its check analysed); a second runs the text."""
        for attempt in (1, 2):
            try:
                if attempt == 1 and first is not None:
                    first()
                else:
                    self._spark.sql(statement)
                return None
            except ENGINE_ERRORS as error:
                failure = self._engine.failure(error)
            if not failure.means(Cause.LOCATION_TAKEN):
                return failure
            if attempt == 2 or not name.is_reserved or self._engine.occupied(name):
                break
            self.clean_leftovers(name)
        raise self.leftover_error(name, operation) from None

    def leftover_error(self, name: TableName, operation: str) -> LeftoverFilesError:
        """The error for ``operation`` refused because files sit at the default location of ``name``."""
        location = self._engine.default_location(name)
        return LeftoverFilesError(
            f"cannot {operation} {name}: its location {location} already exists but no table of that name does "
            "(left by a failed or interrupted operation, or the files of another database's table of this name "
            "after ALTER SCHEMA SWAP WITH: check no table's location is that directory before removing it)",
            str(name),
            location,
        )

    def path_exists(self, location: str) -> bool:
        """Whether ``location`` exists, asked through the engine's file listing (any file system it reaches)."""
        try:
            _ = self._spark.read.format("binaryFile").load(location).schema  # resolving the source lists the path
        except ENGINE_ERRORS as error:
            failure = self._engine.failure(error)
            if failure.means(Cause.PATH_MISSING):
                return False
            raise engine_error(failure, f"cannot check {location}", None) from None
        return True

    # ------------------------------------------------------------------ helper tables (metastore strategy)

    @staticmethod
    def is_helper_name(name: TableName) -> bool:
        """Whether ``name`` may be a helper table of the metastore strategy (:meth:`is_helper_table` tells)."""
        return name.name.startswith(_GC_PREFIX)

    @staticmethod
    def is_helper_table(name: TableName, info: dict[str, Any]) -> bool:
        """Whether the table ``name`` (described as ``info``) is a helper table of the metastore strategy."""
        return name.name.startswith(_GC_PREFIX) and _GC_TARGET in (info.get("table_properties") or {})

    def discard_helper_table(self, gc: TableName) -> bool:
        """Drop a helper table of the metastore strategy (one a crash left behind); True if there was one.

        Dropping it deletes its partition's directory. That is the point while the directory is garbage; but if a
        table may live at that location now, the partition is first pointed back into the helper's own directory,
        so only the helper's files go.
        """
        info = self._engine.describe(gc)
        if info is None:
            return False
        target = (info.get("table_properties") or {}).get(_GC_TARGET)
        own = info.get("location")
        try:
            if own and (target is None or self._location_in_use(str(target), gc.db)):
                try:
                    self._spark.sql(
                        f"ALTER TABLE {gc.quoted} PARTITION (`p`=1) SET LOCATION "
                        f"{sql_string_literal(str(own).rstrip('/') + '/p=1')}"
                    )
                except ENGINE_ERRORS as error:
                    if not self._engine.failure(error).means(Cause.PARTITION_MISSING):
                        raise
            self._spark.sql(f"DROP TABLE {gc.quoted} PURGE")
        except ENGINE_ERRORS as error:
            raise engine_error(self._engine.failure(error), f"cannot remove helper table {gc}", gc) from None
        return True

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _remove_local(location: str, name: TableName) -> bool:
        path = local_path(location)
        if path is None:
            raise CatalogError(f"{location} is not a local path; use leftovers='metastore'", str(name))
        if path.name != name.name or not path.is_absolute():
            raise CatalogError(f"refusing to remove {location}: not the default location of {name}", str(name))
        try:
            if path.is_symlink() or path.is_file():
                path.unlink()
                return True
            if not path.exists():
                return False
            shutil.rmtree(path)
        except OSError as error:
            raise EngineOperationError(
                f"cannot remove leftover files at {location}: {error}", str(name), error
            ) from None
        return True

    def _remove_via_metastore(self, location: str, name: TableName) -> bool:
        self._engine.check_literal_mode()
        gc = TableName(name.db, _GC_PREFIX + hashlib.sha256(location.encode()).hexdigest()[:16])
        self.discard_helper_table(gc)
        if not _GLOB_CHARS.search(location) and not self.path_exists(location):
            return False
        try:
            self._spark.sql(
                f"CREATE TABLE {gc.quoted} (`x` INT, `p` INT) USING parquet PARTITIONED BY (`p`) "
                f"TBLPROPERTIES ({sql_string_literal(_GC_TARGET)}={sql_string_literal(location)})"
            )
            self._spark.sql(f"ALTER TABLE {gc.quoted} ADD PARTITION (`p`=1) LOCATION {sql_string_literal(location)}")
            self._spark.sql(f"DROP TABLE {gc.quoted} PURGE")
        except ENGINE_ERRORS as error:
            failure = self._engine.failure(error)
            raise engine_error(failure, f"cannot remove leftover files at {location}", name) from None
        return True

    def _location_in_use(self, location: str, db: str) -> bool:
        """Whether ``location`` may belong to a live table: unless it is the default location of a missing table."""
        table = location.rstrip("/").rpartition("/")[2]
        if not ENGINE_NAME.fullmatch(table):
            return True
        candidate = TableName(db, table)
        return self._engine.default_location(candidate) != location or self._engine.occupied(candidate)


def _delete_local(path: Path) -> None:
    """Delete the local directory (or file) ``path`` as one step for anyone who may take its name next: renamed
    aside first (:data:`_DELETING_PREFIX`, the same name for the same path, so a deletion a crash cut is finished
    by the next one: recovery replays it), then removed. Removing it in place takes a while (file by file), and
    plain Spark may make a table at that path meanwhile: its CREATE checks that the directory is absent or empty,
    then writes there; a removal still running would delete the new table's files under its job. Renamed, the path
    is whole or gone for everyone, and what the removal deletes is only the old directory."""
    aside = path.parent / f"{_DELETING_PREFIX}{hashlib.sha1(str(path).encode()).hexdigest()[:20]}"
    if aside.is_dir() and not aside.is_symlink():
        shutil.rmtree(aside)  # a deletion a crash cut after its rename
    if path.is_symlink() or path.is_file():
        path.unlink()
        return
    if not path.exists():
        return
    path.rename(aside)
    SET_ASIDE()
    shutil.rmtree(aside)
