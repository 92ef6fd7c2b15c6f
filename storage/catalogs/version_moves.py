"""What a catalog offers so that a kept table version can leave the name's default directory without being deleted.

A dropped table's files stay at ``<database>/<name>`` for their grace period (its readers, a replica that has not
copied them yet, UNDROP). A new table of that name needs the directory: instead of deleting the version early, the
engine moves it beside, to ``<database>/ddllog_<n>_kept_<name>`` (:func:`kept_location`), in one directory rename
that the DDL log makes redoable (:mod:`actions.kinds.relocate_version`), and keeps it restorable there. A catalog gives
its mover by :meth:`Directories.version_mover <storage.catalogs.ports.Directories.version_mover>`.
"""

from __future__ import annotations

import hashlib
from typing import Protocol, runtime_checkable

from storage.catalogs.names import RESERVED_PREFIX, TableName

KEPT_INFIX = "_kept_"
"""Between the number and the table name in a moved version's directory name."""
FILE_NAME_BYTES = 255
"""The longest file name of the usual file systems (ext4, XFS, HDFS's default), in bytes."""


@runtime_checkable
class VersionMover(Protocol):
    def move_directory(self, location: str, to: str, owner: TableName) -> str | None:
        """Move the kept directory ``location`` (of a table of ``owner``'s) to ``to`` in one rename, once the
        catalog proves nothing uses it (as ``Directories.delete_data`` proves it), then remove its kept note (it no
        longer holds a name). Idempotent: nothing to do when ``location`` is gone (moved already, or deleted); a
        ``to`` that exists while ``location`` does too raises. Returns why it was left in place (None: moved, or
        nothing was there)."""
        ...

    def moved_definition(self, definition: str, to: str) -> str:
        """``definition`` (a ``Versions.version_of`` text) with its table location at ``to``, and each partition
        located under the old table directory at the same place under ``to``. Reads nothing."""
        ...


def kept_location(location: str, number: int, name: str) -> str:
    """Where the version at ``location`` (a table ``name``'s default directory) goes: a sibling directory whose name
    is reserved for the DDL log, so no table name ever maps to it, unique by ``number`` (a log position). A name too
    long for a file name beside the prefix is shortened, and a digest of it keeps it apart (:func:`kept_suffix`)."""
    head = location.rstrip("/").rpartition("/")[0]
    return f"{head}/{RESERVED_PREFIX}{number}{KEPT_INFIX}{kept_suffix(name, len(str(number)))}"


def kept_suffix(name: str, digits: int) -> str:
    """The table name's part of a moved version's directory name: the name, or, when the whole would pass a file
    name's 255 bytes (names up to :data:`~storage.catalogs.names.TABLE_NAME_LIMIT` are the metastore's), its head,
    ``_`` and the first 16 hex digits of its SHA-256."""
    lowered = name.lower()
    room = FILE_NAME_BYTES - len(RESERVED_PREFIX) - digits - len(KEPT_INFIX)
    if len(lowered.encode()) <= room:
        return lowered
    digest = hashlib.sha256(lowered.encode()).hexdigest()[:16]
    head = lowered.encode()[:room - len(digest) - 1].decode(errors="ignore")
    return f"{head}_{digest}"


def is_kept_directory_of(directory_name: str, name: str) -> bool:
    """Whether a directory named ``directory_name`` is a version of table ``name`` moved by :func:`kept_location`."""
    lowered = directory_name.lower()
    if not lowered.startswith(RESERVED_PREFIX) or KEPT_INFIX not in lowered:
        return False
    number, _, rest = lowered[len(RESERVED_PREFIX):].partition(KEPT_INFIX)
    return number.isdigit() and rest == kept_suffix(name, len(number))
