"""Kept directories at a table name's default directory (``<database>/<name>``): what the
:class:`~storage.catalogs.ports.Directories` port offers so that the engine can explain one to whoever finds it and
free it early on request (``RELEASE TABLE NAME``).

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

from urllib.parse import unquote

KEPT_NOTE = "_SPARK_DDL_LOG_KEPT_VERSION"
"""The note's file name inside a kept directory."""


def normalized_location(location: str) -> str:
    """A location as one form for comparison: decoded, no trailing ``/``, ``file:///x`` and a bare ``/x`` as
    ``file:/x``."""
    text = unquote(location).rstrip("/")
    if text.startswith("file:///"):
        return "file:/" + text[len("file:///"):]
    if text.startswith("file://localhost/"):
        return "file:/" + text[len("file://localhost/"):]
    return "file:" + text if text.startswith("/") else text


def same_location(one: str | None, other: str | None) -> bool:
    """Whether two locations are one directory (:func:`normalized_location`); False where either is unknown."""
    return one is not None and other is not None and normalized_location(one) == normalized_location(other)
