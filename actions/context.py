from __future__ import annotations

import attrs

from chains.binlog import BinlogLike
from chains.log import DDLLog
from storage.catalogs.interface import Catalog


@attrs.define
class ActionContext:
    """What an executor may use: the catalog it acts on, the log (for phases), the binlog (None when off)."""

    catalog: Catalog
    log: DDLLog
    binlog: BinlogLike | None
    in_recovery: bool = False
