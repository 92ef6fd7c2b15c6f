"""What every statement and every replayed action runs against, one record for both (the catalog, the log, the
binlog, and how long a replaced or dropped table's files stay for their readers)."""

from __future__ import annotations

from typing import Any

import attrs

from chains.binlog import BinlogEvent, BinlogLike
from chains.log import DDLLog
from storage.catalogs.ports import Catalog

DEFAULT_GRACE_SECONDS = 3600.0
"""How long a replaced or dropped table's old files stay: a query that listed them just before (in this driver or
any other) must finish with them. One hour, longer than the queries of most platforms; set it to the longest query
you expect."""

DEFAULT_RETENTION_SECONDS = 86400.0
"""How long a replaced or dropped table's previous version stays restorable (RESTORE, UNDROP): one day, as
Snowflake's default time travel, so that a mistake found the next working day can still be undone; its cost is the
storage of one day's replaced versions (``ddl-log status`` shows it). A table property overrides it per table
(:data:`actions.kept_versions.RETENTION_PROPERTY`); never less than the grace period."""


@attrs.define
class ActionContext:
    """``binlog`` None: the binlog is off. ``in_recovery``: recovery replays (its binlog events are marked as
    generated). ``grace_seconds``: see :data:`DEFAULT_GRACE_SECONDS`. ``orphan_seconds``: see
    :meth:`orphan_window`."""

    catalog: Catalog
    log: DDLLog
    binlog: BinlogLike | None
    in_recovery: bool = False
    grace_seconds: float = DEFAULT_GRACE_SECONDS
    record_versions: bool = True
    """Record in the event of a statement with a query the table version it made (:mod:`chains.version_records`)."""
    retention_seconds: float = DEFAULT_RETENTION_SECONDS
    """How long a previous table version stays restorable (see :data:`DEFAULT_RETENTION_SECONDS`)."""
    events: list[BinlogEvent] = attrs.field(factory=list)
    """Binlog events the actions replayed with this context wrote (a roll-forward chain commits in one of them):
    the statement returns its event as written, without reading the binlog back."""
    orphan_seconds: float | None = None
    transaction: Any = None
    """The open DDL transaction the statements run with this context join
    (:class:`replace_table.transaction.Transaction`, a layer above: typed there); None: each commits alone."""

    def orphan_window(self) -> float | None:
        """How long after an undo a task of the statement's data job may still write into its work table's
        directory: None when the engine's tasks end with the driver (then there is nothing to sweep); else
        ``orphan_seconds`` when set (0 turns the sweep off), else what the engine says of its executors."""
        engine_says = self.catalog.data.orphan_window()
        if engine_says is None:
            return None
        chosen = engine_says if self.orphan_seconds is None else self.orphan_seconds
        return chosen if chosen > 0 else None
