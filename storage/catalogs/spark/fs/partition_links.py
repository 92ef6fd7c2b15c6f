"""The partitions an INSERT OVERWRITE keeps, put into the new table version as hard links to their data files.

The new version is built whole in TMP before the swap, so a kept partition's rows must be in TMP's directory too.
Copying them with a Spark job reads and rewrites every kept row: a dbt incremental model that overwrites one day of a
year-long table rewrote the other 364 days. On a local file system the files themselves can be shared instead: a
data file is never changed once written (Spark and Hive write new files and delete old ones, nothing appends to or
rewrites a file), so a second name for it is the same rows at no cost, and each version still owns its own
directory (deleting the old version later removes its names only; an INSERT INTO the new version adds files to the
new directory only). Other file systems have no hard links (HDFS, object stores): there the kept partitions' files
are copied byte for byte by a Spark job (:mod:`~storage.catalogs.spark.fs.file_copies`), or, without the project's
jar on the executors, their rows by Spark's INSERT.

A partition directory is put as plain Spark leaves one it does not replace: its data files and its hidden files
(``_SUCCESS``, which a pipeline's sensor may wait for, checksums) are linked; a hidden directory (a running job's
``_temporary`` or staging) is not entered. A partition directory holding anything else (a directory: Hive's
list-bucketing layout; a symbolic link) is not linked. Nothing is left half done: when any file cannot be linked
(another device, a file system without links), what was made is removed and the caller copies the rows instead.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from storage.catalogs.directory_walk import hidden


def link_directories(pairs: Sequence[tuple[Path, Path]]) -> bool:
    """Make each target directory (it must not exist yet) holding hard links to the files of its source (a
    missing source: an empty partition, an empty target). Whether it was done; False leaves no target behind."""
    return _place_files(pairs, os.link)


def copy_directories(pairs: Sequence[tuple[Path, Path]]) -> bool:
    """:func:`link_directories` with copies of the files instead of links (a file on another device under the
    table's directory): the same files at the cost of their bytes. Whether it was done; False leaves no target."""
    return _place_files(pairs, shutil.copyfile)


def _place_files(pairs: Sequence[tuple[Path, Path]], put: Callable[[str, Path], object]) -> bool:
    listed = []
    for source, target in pairs:
        entries = [entry for entry in (os.scandir(source) if source.is_dir() else ())
                   if not (hidden(entry.name) and entry.is_dir(follow_symlinks=False))]
        if not all(entry.is_file(follow_symlinks=False) for entry in entries):
            return False
        listed.append((entries, target))
    made: list[Path] = []
    try:
        for entries, target in listed:
            _make_directory(target, made)
            for entry in entries:
                put(entry.path, target / entry.name)
    except OSError:
        for directory in reversed(made):
            shutil.rmtree(directory, ignore_errors=True)
        return False
    return True


def _make_directory(target: Path, made: list[Path]) -> None:
    """``target`` and its missing parents, each one made recorded in ``made``; an existing target is refused."""
    if target.exists():
        raise FileExistsError(target)
    for directory in reversed([target, *target.parents]):
        if not directory.exists():
            directory.mkdir()
            made.append(directory)
