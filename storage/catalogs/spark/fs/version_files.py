"""A table version's data files copied into another table's directory, as files (a replica installing the source's
version, a bootstrap copying a table: the rows exactly as written, at the speed of a file copy, no Spark job).
Partition directories are copied with their relative paths; names starting with ``_`` or ``.`` (``_SUCCESS``,
``_temporary``, checksum files) are left out. Local file systems with Python's file functions, any other through
Hadoop's file system API when a session is given. The table is the replace machine's TMP, whose directory its chain
owns: a crash mid-copy is undone with the table."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from storage.catalogs.directory_walk import hidden
from storage.catalogs.names import TableName
from storage.catalogs.spark.engine import ENGINE_ERRORS, inspect_error
from storage.catalogs.spark.jvm import new, static
from storage.catalogs.spark.profile import Jvm, jvm_of, local_path
from storage.errors import EngineOperationError, InvalidDefinitionError


def copy_version_files(source: str, target_location: str | None, table: TableName, spark: Any = None,
                       names: tuple[str, ...] | None = None) -> int:
    """Copy every data file under ``source`` (partition directories included) into ``target_location``; the count.
    ``names``: only these files (paths relative to ``source``: the version's own, which its binlog event lists, not
    what a later INSERT INTO added beside them)."""
    source_dir = local_path(source)
    target_dir = None if target_location is None else local_path(target_location)
    wanted = None if names is None else frozenset(names)
    if source_dir is not None and target_dir is not None and source_dir.is_dir():
        return _copy_local(source_dir, target_dir, wanted)
    jvm = None if spark is None else jvm_of(spark)
    if jvm is None or target_location is None:
        raise InvalidDefinitionError(f"cannot copy the files of {source} into {table}: both must be local "
                                     "directories", str(table))
    return _copy_hadoop(jvm, source, target_location, table, wanted)


def _copy_local(source_dir: Path, target_dir: Path, wanted: frozenset[str] | None) -> int:
    copied = 0
    for root, directories, files in os.walk(source_dir):
        directories[:] = sorted(d for d in directories if not hidden(d))
        relative = os.path.relpath(root, source_dir)
        into = target_dir if relative == "." else target_dir / relative
        os.makedirs(into, exist_ok=True)
        for name in sorted(files):
            path = name if relative == "." else f"{relative}/{name}"
            if not hidden(name) and (wanted is None or path in wanted):
                shutil.copyfile(os.path.join(root, name), into / name)
                copied += 1
    return copied


def _copy_hadoop(jvm: Jvm, source: str, target: str, table: TableName, wanted: frozenset[str] | None) -> int:
    view, path_class = jvm.view, jvm.classes.hadoop_path
    configuration = jvm.hadoop_configuration()
    try:
        source_path = new(view, path_class, source)
        target_path = new(view, path_class, target)
        source_fs = source_path.getFileSystem(configuration)
        target_fs = target_path.getFileSystem(configuration)
        copied = 0
        pending = [(source_path, target_path, "")]
        while pending:
            at, into, relative = pending.pop()
            target_fs.mkdirs(into)
            for status in source_fs.listStatus(at):
                name = str(status.getPath().getName())
                if hidden(name):
                    continue
                child = new(view, path_class, into, name)
                if status.isDirectory():
                    pending.append((status.getPath(), child, f"{relative}{name}/"))
                    continue
                if wanted is not None and f"{relative}{name}" not in wanted:
                    continue
                static(view, jvm.classes.hadoop_file_util, "copy")(source_fs, status.getPath(), target_fs, child, False,
                                                                   True, configuration)
                copied += 1
        return copied
    except ENGINE_ERRORS as error:
        raise EngineOperationError(f"cannot copy the files of {source} into {table}: {inspect_error(error).message}",
                                   str(table), error) from None
