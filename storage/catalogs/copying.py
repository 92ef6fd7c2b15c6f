"""The records of a replica's copies (the :class:`~storage.catalogs.ports.Copies` port): a database as another
catalog would create it, and the properties never copied."""

from __future__ import annotations

import attrs

INTERNAL_PROPERTY_PREFIXES = ("spark_ddl_log.", "spark.sql.sources.ddl_log.")
"""Properties the DDL log keeps for itself (identity tags, visible or hidden, function records): never copied to
another catalog."""


@attrs.frozen
class DatabaseDefinition:
    """A database as another catalog would create it: its comment and its own properties (the DDL log's aside)."""

    comment: str | None = None
    properties: tuple[tuple[str, str], ...] = ()
