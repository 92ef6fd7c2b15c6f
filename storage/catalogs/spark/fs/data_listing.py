"""A table directory's data files (or its whole :class:`~storage.catalogs.directory_walk.TableTree`), listed while
other writers may be changing it.

A directory a statement lists (the version it installed, a version it keeps) can be written meanwhile by a writer
outside the log: plain Spark's CTAS at the same default directory writes its tasks' files under ``_temporary/`` and
renames each task's directory as it commits, and a DROP removes the whole tree. A listing that walks into
``_temporary`` meets directories going away (Python's ``rglob`` and Hadoop's recursive ``listFiles`` then raise
"No such file or directory", failing the statement that listed). So the walk never enters a hidden name (``_`` or
``.``: ``_temporary``, ``.spark-staging-*``, ``_SUCCESS``, checksums; none is a data file) and skips what disappears
under it: what it returns is the data files that were there and stayed while it looked.

Object stores list flat (one request per thousand keys, nothing to vanish between directories), so there Hadoop's
recursive listing is used and hidden paths filtered; a key removed meanwhile falls back to the walk."""

from __future__ import annotations

from typing import Any

from storage.catalogs.directory_walk import (
    DATA,
    DIRECTORY,
    MARKER,
    DataFile,
    TableTree,
    hidden,
    local_data_files,
    local_table_tree,
    tree_of,
)
from storage.catalogs.interface import DataSummary
from storage.catalogs.spark.engine import ENGINE_ERRORS, Engine, has_class, inspect_error
from storage.catalogs.spark.jvm import static
from storage.catalogs.spark.profile import local_path
from storage.errors import EngineOperationError

LISTING_CLASS = "spark_ddl_log.DataListing"
"""The project's JVM part that lists in one round trip (``ddl_log/frontends/extension/java``)."""

FILE_SYSTEMS_SHOWING_WRITES = frozenset({"hdfs", "viewfs", "webhdfs", "swebhdfs"})
"""Schemes (besides ``file:``) of file systems with real directories, where a file being written is listed with the
bytes written so far and a rename is one atomic metadata change; everything else is taken as an object store (an
object appears whole when its upload ends; a rename copies)."""

WALKED_SCHEMES = FILE_SYSTEMS_SHOWING_WRITES | {"file"}
"""File systems with real directories, walked one directory at a time (hidden ones never entered)."""


def data_files(engine: Engine, location: str) -> tuple[DataFile, ...] | None:
    """The data files under ``location`` (partition directories included; none when it is missing), sorted; None on
    Spark Connect for a file system this process cannot reach. Local: Python's ``scandir``; else one round trip
    through the project's jar (without it, Hadoop's listing walked from here: a few round trips per file)."""
    root = local_path(location)
    if root is not None:
        return local_data_files(root)
    listed = _listed(engine, location)
    return None if listed is None else tuple(sorted(entry for kind, entry in listed if kind == DATA))


def table_tree(engine: Engine, location: str) -> TableTree | None:
    """The :class:`~storage.catalogs.directory_walk.TableTree` under ``location`` (empty when it is missing): its data
    files, the hidden files in its directories (``_SUCCESS``) and those directories, listed as :func:`data_files`
    lists them (on an object store's flat listing, the directories holding a file); None where
    :func:`data_files` is."""
    root = local_path(location)
    if root is not None:
        return local_table_tree(root)
    listed = _listed(engine, location)
    return None if listed is None else tree_of((kind, entry.relative) for kind, entry in listed)


def _listed(engine: Engine, location: str) -> list[tuple[str, DataFile]] | None:
    """What is under ``location`` on a file system Spark reaches (each entry's kind: ``DataListing.tree``), in one
    round trip through the project's jar, or Hadoop's listing walked from here without it; None on Spark Connect
    for a file system this process cannot reach."""
    jvm = engine.jvm
    try:
        found = None if jvm is None else engine.hadoop(location)
        if jvm is None or found is None:
            return None
        file_system, path = found
        walk = str(file_system.getScheme()).lower() in WALKED_SCHEMES
        if listing_in_jvm(jvm):
            text = str(static(jvm.view, LISTING_CLASS, "tree")(file_system, path, walk))
            return [_parsed(line) for line in text.splitlines()]
        return _walked(file_system, path, "")
    except ENGINE_ERRORS as error:
        raise EngineOperationError(f"cannot list {location}: {inspect_error(error).message}", location,
                                   error) from None


def data_summary(engine: Engine, location: str) -> DataSummary | None:
    """:func:`data_files` summed up (None where they cannot be listed)."""
    found = data_files(engine, location)
    if found is None:
        return None
    return DataSummary(len(found), sum(entry.size for entry in found), max((entry.modified for entry in found),
                                                                            default=0.0))


def listing_in_jvm(jvm: Any) -> bool:
    """Whether the session's JVM has the project's listing class (:func:`~storage.catalogs.spark.engine.has_class`)."""
    return has_class(jvm, LISTING_CLASS)


def _parsed(line: str) -> tuple[str, DataFile]:
    kind, relative, size, modified = line.split("\t")
    return kind, DataFile(relative, int(size), int(modified) / 1000)


def _walked(file_system: Any, directory: Any, prefix: str) -> list[tuple[str, DataFile]]:
    """The jar's walk, from Python (a session without the project's jar)."""
    try:
        statuses = list(file_system.listStatus(directory))
    except ENGINE_ERRORS as error:
        if "FileNotFoundException" in str(error):
            return []
        raise
    found: list[tuple[str, DataFile]] = []
    for status in statuses:
        name = str(status.getPath().getName())
        entry = DataFile(prefix + name, int(status.getLen()), int(status.getModificationTime()) / 1000)
        if not status.isDirectory():
            found.append((MARKER if hidden(name) else DATA, entry))
        elif not hidden(name):
            found += [(DIRECTORY, entry), *_walked(file_system, status.getPath(), f"{prefix}{name}/")]
    return found
