"""Where a home may live: a place that can fsync its log and binlog (issue 40).

Every record of the log is fsynced before the statement goes on; on an object store nothing can be (S3A's ``hsync``
throws, HADOOP-17597; an object is written whole on close, so an appended record is not durable until the whole file
is uploaded again). A home is therefore a directory on a local disk, or a database home on PostgreSQL; table data
may live on HDFS or an object store, a home may not. Refused, before anything is created:

* a URL of any file system but ``file:`` (``s3a://``, ``gs://``, ``abfs://``, ``hdfs://``, ...): the log is
  written with local file calls, which would otherwise make a local directory named after the URL;
* a local path on a FUSE mount of an object store (s3fs, goofys, gcsfuse, Mountpoint for Amazon S3, rclone,
  blobfuse, ...), found in ``/proc/self/mountinfo``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from storage.errors import UnsyncableHomeError

URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):/")
"""A location that names its file system (``scheme:/...`` or ``scheme://...``)."""
MOUNTINFO = "/proc/self/mountinfo"
OBJECT_STORE_MOUNTS = frozenset({
    "s3fs", "goofys", "geesefs", "gcsfuse", "mountpoint-s3", "rclone", "blobfuse", "blobfuse2", "ossfs", "cosfs",
    "obsfs", "riofs", "yas3fs", "s3ql", "tigrisfs",
})
"""FUSE file systems that present an object store as files (their ``fuse.<name>`` type, or the mount's source)."""
HADOOP_ONLY = "hdfs"


def local_home_path(location: str, mountinfo: str = MOUNTINFO) -> str:
    """The absolute local path of the directory home at ``location`` (a path, or a ``file:`` URL); raises
    :class:`UnsyncableHomeError` for a place that cannot fsync a log (see the module)."""
    match = URL.match(location)
    if match is not None:
        scheme = match.group(1).lower()
        if scheme != "file":
            raise UnsyncableHomeError(location, scheme_reason(scheme))
        location = file_url_path(location)
    path = os.path.abspath(location)
    store = object_store_mount(path, mountinfo)
    if store is not None:
        raise UnsyncableHomeError(location, f"it is on a {store} mount of an object store, which cannot fsync")
    return path


def scheme_reason(scheme: str) -> str:
    if scheme == HADOOP_ONLY:
        return "the log is written with local file calls, which do not reach hdfs:// (HDFS may hold tables)"
    return (f"{scheme}:// is not a local directory; on an object store nothing can be fsynced (S3A's hsync throws, "
            "HADOOP-17597), and a log whose records are not durable is no log")


def file_url_path(location: str) -> str:
    """The path of a ``file:`` URL (``file:/p``, ``file:///p``, ``file://localhost/p``)."""
    rest = location[len("file:"):]
    if rest.startswith("//"):
        authority, _, path = rest[2:].partition("/")
        if authority not in ("", "localhost"):
            raise UnsyncableHomeError(location, f"a file: URL of another host ({authority}) is not a local directory")
        rest = "/" + path
    return rest


def object_store_mount(path: str, mountinfo: str = MOUNTINFO) -> str | None:
    """The object-store FUSE file system the local ``path`` (or its nearest existing parent) is on; None when it is
    on any other file system, or when the mount table cannot be read (not Linux)."""
    try:
        table = Path(mountinfo).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    existing = Path(path)
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    resolved = str(existing.resolve() / Path(path).relative_to(existing))  # the links of the existing part followed
    mount = mount_of(resolved, table)
    if mount is None:
        return None
    file_system, source = mount
    name = file_system.removeprefix("fuse.") if file_system.startswith("fuse") else ""
    for candidate in (name, source):
        if candidate.lower() in OBJECT_STORE_MOUNTS:
            return candidate.lower()
    return None


def mount_of(path: str, table: str) -> tuple[str, str] | None:
    """(file system type, source) of the mount that holds ``path``: the longest mount point above it in ``table``
    (``/proc/self/mountinfo``'s format; a later mount over the same point wins)."""
    best: tuple[int, tuple[str, str]] | None = None
    for line in table.splitlines():
        fields = line.split(" ")
        if " - " not in line or len(fields) < 5:
            continue
        point = unescape(fields[4])
        after = line.split(" - ", 1)[1].split(" ")
        if len(after) < 2 or not (path == point or path.startswith(point.rstrip("/") + "/")):
            continue
        if best is None or len(point) >= best[0]:
            best = (len(point), (after[0], after[1]))
    return None if best is None else best[1]


def unescape(field: str) -> str:
    """A mountinfo path field: blanks, tabs, newlines and backslashes are written as octal escapes."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)
