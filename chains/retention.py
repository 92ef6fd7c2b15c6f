"""How long the log keeps a table's versions: the table property that says so, the values it may take (checked
before a statement logs anything, read again by every deletion the log schedules: :mod:`actions.kept_versions`), and
the one rule that turns them into a version's retention (:func:`version_retention`)."""

from __future__ import annotations

import math
from collections.abc import Iterable

from storage.catalogs.names import TableName
from storage.errors import InvalidTablePropertyError

RETENTION_PROPERTY = "spark_ddl_log.retention_seconds"
"""A table property: how long this table's previous versions stay restorable (overrides the home's setting)."""
MAX_RETENTION_SECONDS = 100 * 365 * 86400.0
"""The longest retention: a value above it is refused when set through the log, and read as it when stored
otherwise (so that every due time is a date the log's readers can print)."""


def retention_refusal(value: str) -> str | None:
    """Why ``value`` is not a retention this project can keep (None: it is one): a finite number of seconds from 0
    to :data:`MAX_RETENTION_SECONDS`."""
    try:
        seconds = float(value)
    except ValueError:
        return "it is not a number of seconds"
    if not math.isfinite(seconds):
        return "it is not a finite number of seconds"
    if seconds < 0:
        return "it is negative (0 keeps versions for the grace period only)"
    if seconds > MAX_RETENTION_SECONDS:
        return f"it is more than {MAX_RETENTION_SECONDS:.0f} seconds (100 years), the longest a version is kept"
    return None


def check_retention_property(properties: Iterable[tuple[str, str]], name: TableName) -> None:
    """Refuse, before anything is logged, a statement that would set :data:`RETENTION_PROPERTY` to a value
    :func:`retention_refusal` refuses."""
    for key, value in properties:
        if key.lower() == RETENTION_PROPERTY:
            reason = retention_refusal(value)
            if reason is not None:
                raise InvalidTablePropertyError(str(name), RETENTION_PROPERTY, value, reason)


def version_retention(*, grace: float, default: float, at_default_location: bool, stored: str | None) -> float:
    """How long a version stays restorable: ``stored`` (the table's :data:`RETENTION_PROPERTY`, read by
    :func:`stored_retention`), else ``default`` (the home's setting); never less than ``grace`` (its readers), and
    no longer than that for a version at the name's default directory, which would keep plain Spark from making a
    table of that name (``LOCATION_ALREADY_EXISTS``)."""
    if at_default_location:
        return grace
    return max(grace, min(stored_retention(stored, default), MAX_RETENTION_SECONDS))


def stored_retention(raw: str | None, default: float) -> float:
    """The retention a property value stored by any means (plain Spark sets what it likes) means: ``default`` when
    absent or not a number (NaN included), else clamped to 0 .. :data:`MAX_RETENTION_SECONDS`."""
    if raw is None:
        return default
    try:
        seconds = float(raw)
    except ValueError:
        return default
    if math.isnan(seconds):
        return default
    return min(max(seconds, 0.0), MAX_RETENTION_SECONDS)
