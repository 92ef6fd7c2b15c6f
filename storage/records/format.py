"""The record format: a file header, then length-prefixed, CRC32C-checksummed msgpack records.

Layout: a 16-byte header (8-byte magic naming the file kind, u32 format version, u32 CRC32C of the first 12
bytes), then records ``<u32 length><u32 crc32c(length bytes + payload)><payload>``, little endian.

Decoding tolerates exactly one kind of damage, the torn tail of a crash mid-write: a last record that is short or
fails its checksum *with no valid record after it* is where the valid prefix ends. A bad record followed by any
valid record is corruption, reported as :class:`CorruptLogError` with file and offset; committed records are never
skipped. Bytes inside a torn record are its own payload, never searched for records (see
:func:`_resume_after_damage`). Pure functions on bytes: no I/O, so every store can share them.
"""

from __future__ import annotations

import struct
from typing import Any

import crc32c
import msgpack

from storage.errors import CorruptLogError, UnsupportedFormatError

FORMAT_VERSION = 1
HEADER = struct.Struct("<8sII")
HEADER_SIZE = HEADER.size
RECORD_HEAD = struct.Struct("<II")
RECORD_HEAD_SIZE = RECORD_HEAD.size
MAX_RECORD_SIZE = 16 * 1024 * 1024


def encode_record(obj: Any) -> bytes:
    payload: bytes = msgpack.packb(obj, use_bin_type=True)
    length = struct.pack("<I", len(payload))
    return length + struct.pack("<I", crc32c.crc32c(length + payload)) + payload


def encode_header(magic: bytes) -> bytes:
    head = magic.ljust(8, b"\0")[:8] + struct.pack("<I", FORMAT_VERSION)
    return head + struct.pack("<I", crc32c.crc32c(head))


def _valid_record_at(data: bytes | memoryview, offset: int) -> int:
    """Length of the valid record at ``offset``, or -1."""
    end = len(data)
    if end - offset < RECORD_HEAD_SIZE:
        return -1
    length: int
    crc: int
    length, crc = RECORD_HEAD.unpack_from(data, offset)
    if length == 0 or length > MAX_RECORD_SIZE or offset + RECORD_HEAD_SIZE + length > end:
        return -1
    body = bytes(data[offset : offset + RECORD_HEAD_SIZE + length])
    if crc32c.crc32c(body[:4] + body[RECORD_HEAD_SIZE:]) != crc:
        return -1
    return length


def _first_valid_record_from(data: bytes | memoryview, start: int) -> int | None:
    for offset in range(start, len(data) - RECORD_HEAD_SIZE + 1):
        if _valid_record_at(data, offset) >= 0:
            return offset
    return None


_INCOMPLETE = -1
_MALFORMED = -2


def _ignore_pairs(pairs: object) -> None:
    return None


def _payload_extent(data: bytes | memoryview, start: int) -> int:
    """Bytes the one msgpack object at ``start`` takes (a payload is exactly one), read from the payload's own
    structure, not from the record's length field; ``_INCOMPLETE`` when the bytes up to the end of the file are a
    strict prefix of an object, ``_MALFORMED`` when they are not msgpack. Strings and binaries are skipped by their
    own lengths, so record-shaped bytes inside them are never taken for anything."""
    unpacker = msgpack.Unpacker(raw=True, use_list=False, object_pairs_hook=_ignore_pairs, strict_map_key=False,
                                max_buffer_size=MAX_RECORD_SIZE)
    unpacker.feed(bytes(data[start : start + MAX_RECORD_SIZE]))
    try:
        unpacker.unpack()
    except msgpack.OutOfData:
        return _INCOMPLETE if len(data) - start <= MAX_RECORD_SIZE else _MALFORMED
    except Exception:  # noqa: BLE001 - any decoding error means "not a payload"
        return _MALFORMED
    return int(unpacker.tell())


def _resume_after_damage(data: bytes | memoryview, offset: int) -> int | None:
    """For the bad record at ``offset``: None if it is a torn tail, else where valid records that would make it
    mid-file corruption may start.

    A torn tail (a crash cut the last write) keeps a genuine record head whose length reaches past the end of the
    file, followed by a strict prefix of its payload; a prefix of one msgpack object never parses as a whole one.
    Then everything after the head is that record's own payload: nothing in it is searched, so a statement that
    embeds record-shaped bytes cannot turn a torn tail into corruption. Any other bad record is damage. Its end is
    taken where its payload's structure ends or where its length field says, whichever comes first (either may be
    the damaged part), and valid records from there on mean corruption. With neither to trust (a garbage head and
    a payload that is not msgpack) every later offset is searched.
    """
    end = len(data)
    if end - offset < RECORD_HEAD_SIZE:
        return None
    length: int = RECORD_HEAD.unpack_from(data, offset)[0]
    body = offset + RECORD_HEAD_SIZE
    plausible = 0 < length <= MAX_RECORD_SIZE
    extent = _payload_extent(data, body)
    if plausible and body + length > end and extent == _INCOMPLETE:
        return None
    ends = [body + extent] if extent > 0 else []
    if plausible and body + length <= end:
        ends.append(body + length)
    return min(ends) if ends else offset + 1


def is_unwritten(data: bytes | memoryview, magic: bytes) -> bool:
    """An empty file or a torn header: a file an older version created and died before its header was durable
    (nothing was ever written into it), equivalent to no file at all."""
    return len(data) < HEADER_SIZE and bytes(data) == encode_header(magic)[: len(data)]


def check_header(path: str, data: bytes | memoryview, magic: bytes) -> None:
    if len(data) < HEADER_SIZE:
        raise UnsupportedFormatError(path, f"file too short for a header ({len(data)} bytes)")
    got_magic, version, crc = HEADER.unpack_from(data, 0)
    if crc32c.crc32c(bytes(data[:12])) != crc:
        raise CorruptLogError(path, 0, "bad header checksum (not a file of this project, or damaged)")
    if got_magic != magic.ljust(8, b"\0")[:8]:
        raise UnsupportedFormatError(path, f"wrong file kind {got_magic!r}, expected {magic!r}")
    if version != FORMAT_VERSION:
        raise UnsupportedFormatError(
            path, f"format version {version} is not supported (this build reads version {FORMAT_VERSION})"
        )


def scan_records(path: str, data: bytes, start: int = HEADER_SIZE) -> tuple[list[tuple[int, Any]], int]:
    """Decode records from ``start``; return ``(offset, record)`` pairs and the end of the valid prefix.

    Raises :class:`CorruptLogError` when a damaged record is followed by a valid one.
    """
    records: list[tuple[int, Any]] = []
    view = memoryview(data)
    offset = start
    end = len(data)
    while offset < end:
        length = _valid_record_at(view, offset)
        if length < 0:
            resume = _resume_after_damage(view, offset)
            following = None if resume is None else _first_valid_record_from(view, resume)
            if following is not None:
                raise CorruptLogError(path, offset, f"damaged record followed by a valid record at offset {following}")
            break
        payload = bytes(view[offset + RECORD_HEAD_SIZE : offset + RECORD_HEAD_SIZE + length])
        try:
            record = msgpack.unpackb(payload, raw=False, strict_map_key=False)
        except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as exc:
            raise CorruptLogError(path, offset, f"checksum matches but payload does not decode: {exc}") from exc
        records.append((offset, record))
        offset += RECORD_HEAD_SIZE + length
    return records, offset


def decode_record(location: str, offset: int, chunk: bytes) -> Any:
    """Decode one whole record (what :func:`encode_record` made) stored on its own, e.g. as a database row.

    A store that keeps every record whole has no torn tail: any damage, anywhere, is :class:`CorruptLogError`."""
    length = _valid_record_at(chunk, 0)
    if length < 0 or RECORD_HEAD_SIZE + length != len(chunk):
        raise CorruptLogError(location, offset, "damaged record (length or checksum does not match)")
    try:
        return msgpack.unpackb(chunk[RECORD_HEAD_SIZE:], raw=False, strict_map_key=False)
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as exc:
        raise CorruptLogError(location, offset, f"checksum matches but payload does not decode: {exc}") from exc
