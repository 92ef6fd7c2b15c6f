"""A directory's data files, walked with Python's file functions while another writer may be changing it (no Spark
needed: the command line's history measures kept versions with it too).

A table's directory can be written meanwhile by a writer outside the log: plain Spark's CTAS at the same default
directory writes its tasks' files under ``_temporary/`` and renames each task's directory as it commits, and a DROP
removes the whole tree. So the walk never enters a hidden name (``_`` or ``.``: ``_temporary``, ``.spark-staging-*``,
``_SUCCESS``, checksums; none is a data file) and skips what disappears under it."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

import attrs


@attrs.frozen(order=True)
class DataFile:
    """A data file: its path relative to the listed directory, its bytes, its last modification (epoch seconds)."""

    relative: str
    size: int
    modified: float


DATA, MARKER, DIRECTORY = "f", "h", "d"
"""The kinds of what a walk finds: a data file, a hidden file, a directory that is not hidden (the letters the
project's jar lists them with, ``DataListing.tree``)."""


def hidden(name: str) -> bool:
    """A name Spark and Hadoop keep out of a table's data: ``_temporary``, ``_SUCCESS``, ``.part-0.crc``."""
    return name.startswith(("_", "."))


@attrs.frozen
class TableTree:
    """What a table's directory holds, paths relative to it: ``data``, its data files;
    ``markers``, the hidden files directly in a directory below it that is not hidden (``p=1/_SUCCESS``, a
    checksum); ``directories``, its directories that are not hidden, empty ones included (on an object store,
    listed flat, only those holding a file: an empty one is a marker object no flat listing shows). A statement
    keeping a partition directory as plain Spark leaves it takes all three along."""

    data: tuple[str, ...]
    markers: tuple[str, ...]
    directories: tuple[str, ...]


def local_data_files(root: Path) -> tuple[DataFile, ...]:
    """The data files under the local directory ``root`` (partition directories included; none when it is missing),
    sorted; a link to a file is listed, a link to a directory not entered."""
    found: list[DataFile] = []
    for kind, relative, entry in _walked(root):
        if kind == DATA:
            try:
                info = entry.stat()
            except FileNotFoundError:
                continue
            found.append(DataFile(relative, info.st_size, info.st_mtime))
    return tuple(sorted(found))


def local_table_tree(root: Path) -> TableTree:
    """The :class:`TableTree` of the local directory ``root`` (empty when it is missing), walked as
    :func:`local_data_files` walks."""
    return tree_of((kind, relative) for kind, relative, _ in _walked(root))


def tree_of(entries: Iterable[tuple[str, str]]) -> TableTree:
    """The :class:`TableTree` of a listing's ``entries`` (each a kind and a path relative to the table's directory):
    a hidden file at the top left out (the last job's ``_SUCCESS``), and every directory holding a file counted
    (a flat listing, an object store's, shows no directory of its own)."""
    kinds: dict[str, list[str]] = {DATA: [], MARKER: [], DIRECTORY: []}
    for kind, relative in entries:
        if kind != MARKER or "/" in relative:
            kinds[kind].append(relative)
    holding = {relative.rpartition("/")[0] for relative in kinds[DATA] + kinds[MARKER]} - {""}
    parents = {directory.rsplit("/", depth)[0] for directory in holding for depth in range(directory.count("/") + 1)}
    return TableTree(tuple(sorted(kinds[DATA])), tuple(sorted(kinds[MARKER])),
                     tuple(sorted(parents | set(kinds[DIRECTORY]))))


def _walked(root: Path) -> Iterator[tuple[str, str, os.DirEntry[str]]]:
    """What is under ``root``: its kind, its path relative to ``root``, its entry; no hidden directory entered,
    what disappears meanwhile skipped."""
    pending: list[tuple[str, str]] = [(str(root), "")]
    while pending:
        directory, prefix = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except (FileNotFoundError, NotADirectoryError):
            continue  # removed (or replaced by a file) while listed
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not hidden(entry.name):
                        pending.append((entry.path, f"{prefix}{entry.name}/"))
                        yield DIRECTORY, prefix + entry.name, entry
                elif entry.is_file():
                    yield (MARKER if hidden(entry.name) else DATA), prefix + entry.name, entry
            except FileNotFoundError:
                continue
