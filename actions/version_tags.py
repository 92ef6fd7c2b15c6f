"""What a table's identity tag (:data:`storage.catalogs.interface.HIDDEN_TAG_PROPERTY` or the visible
:data:`~storage.catalogs.interface.TAG_PROPERTY`) says of
the table *version* it marks: its number, and how and when it became current, so that the version is numbered from
the moment it exists (DESCRIBE HISTORY lists the current version with its number) and keeps what it was when it is
retired (:func:`actions.kept_versions.kept_version` reads it then).

``x<number>-<token>@<ms>@<operation>@<xid>@<periods>``: ``number`` the version's number (the XID of the statement
that first made it); ``token`` random (the tag is the table's identity: no two alike); ``ms`` when the statement that
made it current began (milliseconds since the epoch); ``operation`` that statement's kind (blanks as ``_``); ``xid``
that statement's XID (the version's number again, except after RESTORE or UNDROP, which make a kept version current
again under its own number); ``periods`` the earlier periods the version was current (``from-to`` in milliseconds,
``d`` after one a DROP ended, ``_`` between them; empty for a new version). Tags written before versions were
numbered so (``x<xid>-<token>``, ``v<number>-<token>``) give their number only. The tag is an identity compared
whole, never parsed for that."""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Iterable

import attrs

_TAG = re.compile(r"^[xv](\d+)-[0-9a-f]+(?:@(\d+)@([^@]*)@(\d+)@([0-9_d-]*))?$")
MAX_PERIODS = 20
"""The earlier periods a tag keeps (a version restored more often than that forgets its oldest ones)."""

Period = tuple[float, float, bool]
"""When a version was current: from, to, and whether a DROP ended it (no table had the name after it)."""


@attrs.frozen
class TagVersion:
    """What a tag says: ``number``; for tags of this form also ``made_at`` (the making statement's start),
    ``operation``, ``xid`` and the earlier ``periods``."""

    number: int
    made_at: float | None = None
    operation: str | None = None
    xid: int | None = None
    periods: tuple[Period, ...] = ()


def version_tag(number: int, operation: str, *, xid: int | None = None, periods: Iterable[Period] = (),
                at: float | None = None) -> str:
    """A new identity tag for a table version numbered ``number`` that ``operation`` (XID ``xid``, default the
    number) makes current now (or ``at``); ``periods``: when it was current before (RESTORE, UNDROP)."""
    kept = list(periods)[-MAX_PERIODS:]
    spans = "_".join(f"{_ms(start)}-{_ms(end)}{'d' if dropped else ''}" for start, end, dropped in kept)
    made = time.time() if at is None else at
    word = operation.replace("@", " ").strip().replace(" ", "_")
    return f"x{number}-{secrets.token_hex(8)}@{_ms(made)}@{word}@{number if xid is None else xid}@{spans}"


def tag_version(tag: str | None) -> TagVersion | None:
    """What ``tag`` says of its version (None: not a tag of this project's versions)."""
    match = _TAG.match(tag or "")
    if match is None:
        return None
    number, made, word, xid, spans = match.groups()
    if made is None:
        return TagVersion(int(number))
    periods = tuple((int(a) / 1000, int(b.rstrip("d")) / 1000, b.endswith("d"))
                    for a, b in (span.split("-") for span in spans.split("_") if span))
    return TagVersion(int(number), int(made) / 1000, word.replace("_", " "), int(xid), periods)


def _ms(seconds: float) -> int:
    return round(seconds * 1000)
