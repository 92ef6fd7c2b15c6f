"""Kept directories at a table name's default directory (``<database>/<name>``): what a catalog may offer so that
the engine can explain one to whoever finds it and free it early on request (``RELEASE TABLE NAME``).

A replaced or dropped table's old files stay in their directory for the grace period, so that a query that listed
them before the change still reads them. A table made by plain Spark (or by this project's CREATE TABLE) lives at
``<database>/<name>``, so after its first replace or drop that directory holds the kept version, and plain Spark's
``CREATE TABLE <name>`` (a managed table must start at an absent or empty directory:
``SessionCatalog.validateTableLocation``) fails with ``LOCATION_ALREADY_EXISTS`` meanwhile. The note file
(:data:`KEPT_NOTE`) says what the directory is, until when, and the command that frees the name now. Its name
starts with ``_``: Spark's file listing (``InMemoryFileIndex``), Hive's input formats and this project's own copy of
a version's files (:mod:`storage.catalogs.spark.fs.version_files`) skip it, so readers, RESTORE and replicas never see
it; the directory's deletion takes it with the files."""

from __future__ import annotations

from typing import Protocol, runtime_checkable
from urllib.parse import unquote

KEPT_NOTE = "_SPARK_DDL_LOG_KEPT_VERSION"
"""The note's file name inside a kept directory."""


@runtime_checkable
class KeptDirectories(Protocol):
    """What a catalog offers for kept directories (a catalog without it gets no notes and cannot release early)."""

    def directory_user(self, location: str) -> str | None:
        """What in the catalog uses ``location`` (a database at or under it, a table or partition at, under or above
        it), in words; None when nothing does. The proof :meth:`Catalog.delete_data` makes before deleting."""
        ...

    def write_kept_note(self, location: str, text: str) -> bool:
        """Write ``text`` as :data:`KEPT_NOTE` inside the directory ``location``, replacing an earlier note; False
        (nothing written) when the directory is gone or the engine has no way to write there."""
        ...

    def remove_kept_note(self, location: str) -> None:
        """Remove the note from ``location`` (nothing when there is none): the directory is a table's again."""
        ...

    def read_kept_note(self, location: str) -> str | None:
        """The note inside ``location`` (None: none, or no way to read there): how a home tells a directory that
        *another* home's log keeps (drivers share one catalog, each its own log) from a leftover."""
        ...


def normalized_location(location: str) -> str:
    """A location as one form for comparison: decoded, no trailing ``/``, ``file:///x`` and a bare ``/x`` as
    ``file:/x``."""
    text = unquote(location).rstrip("/")
    if text.startswith("file:///"):
        return "file:/" + text[len("file:///"):]
    if text.startswith("file://localhost/"):
        return "file:/" + text[len("file://localhost/"):]
    return "file:" + text if text.startswith("/") else text
