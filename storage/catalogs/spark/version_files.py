"""A table version's data files copied into another table's directory, as files (a replica installing the source's
version: the rows exactly as written, at the speed of a file copy, no Spark job). Local file systems only; the
caller falls back to reading the files with Spark elsewhere. The table is the replace machine's TMP, whose
directory its chain owns: a crash mid-copy is undone with the table."""

from __future__ import annotations

import os
import shutil

from storage.catalogs.names import TableName
from storage.catalogs.spark.engine import local_path
from storage.errors import InvalidDefinitionError


def copy_version_files(source: str, target_location: str | None, table: TableName,
                       names: tuple[str, ...] | None = None) -> int:
    """Copy every data file of ``source`` (not ``_SUCCESS`` or hidden files; only ``names`` when given: the
    version's own, not what a later INSERT INTO added beside them) into ``target_location``; the count."""
    source_dir = local_path(source)
    target_dir = None if target_location is None else local_path(target_location)
    if source_dir is None or target_dir is None or not source_dir.is_dir():
        raise InvalidDefinitionError(f"cannot copy the files of {source} into {table}: both must be local "
                                     "directories", str(table))
    os.makedirs(target_dir, exist_ok=True)
    copied = 0
    for entry in sorted(os.scandir(source_dir), key=lambda e: e.name):
        if entry.name.startswith(("_", ".")) or not entry.is_file():
            continue
        if names is not None and entry.name not in names:
            continue
        shutil.copyfile(entry.path, os.path.join(target_dir, entry.name))
        copied += 1
    return copied
