"""A directory's data files, walked with Python's file functions while another writer may be changing it (no Spark
needed: the command line's history measures kept versions with it too).

A table's directory can be written meanwhile by a writer outside the log: plain Spark's CTAS at the same default
directory writes its tasks' files under ``_temporary/`` and renames each task's directory as it commits, and a DROP
removes the whole tree. So the walk never enters a hidden name (``_`` or ``.``: ``_temporary``, ``.spark-staging-*``,
``_SUCCESS``, checksums; none is a data file) and skips what disappears under it."""

from __future__ import annotations

import os
from pathlib import Path

import attrs


@attrs.frozen(order=True)
class DataFile:
    """A data file: its path relative to the listed directory, its bytes, its last modification (epoch seconds)."""

    relative: str
    size: int
    modified: float


def hidden(name: str) -> bool:
    """A name Spark and Hadoop keep out of a table's data: ``_temporary``, ``_SUCCESS``, ``.part-0.crc``."""
    return name.startswith(("_", "."))


def local_data_files(root: Path) -> tuple[DataFile, ...]:
    """The data files under the local directory ``root`` (partition directories included; none when it is missing),
    sorted; a link to a file is listed, a link to a directory not entered."""
    found: list[DataFile] = []
    pending: list[tuple[str, str]] = [(str(root), "")]
    while pending:
        directory, prefix = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except (FileNotFoundError, NotADirectoryError):
            continue  # removed (or replaced by a file) while listed
        for entry in entries:
            if hidden(entry.name):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append((entry.path, f"{prefix}{entry.name}/"))
                elif entry.is_file():
                    info = entry.stat()
                    found.append(DataFile(prefix + entry.name, info.st_size, info.st_mtime))
            except FileNotFoundError:
                continue
    return tuple(sorted(found))
