"""The kind exchange of the Spark catalog (its :class:`~storage.catalogs.ports.KindExchange` port): the definition swap
of :mod:`storage.catalogs.spark.hms.swap` across kinds. The Hive metastore keeps a view and a table as the same
``Table`` record (``tableType`` ``VIRTUAL_VIEW`` or ``MANAGED_TABLE``), and ``alter_table`` replaces the whole record
in one transaction, kind included: so ORIG turns from a view into a table (or back) in one call, and a reader resolves
the old relation or the new one, never nothing. A view's tag is its ``spark_ddl_log.tag`` parameter, as a table's."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from storage.catalogs.names import TableName
from storage.catalogs.spark.engine import ENGINE_ERRORS, Engine
from storage.catalogs.spark.hms.metastore_client import MetastoreClient, swap_refusal
from storage.catalogs.spark.hms.swap import refresh
from storage.errors import CatalogError, EngineOperationError, NoSuchObjectError


class SparkKindSwap:
    def __init__(self, engine: Engine, client: MetastoreClient) -> None:
        self._engine = engine
        self._client = client

    def relation_tag(self, name: TableName) -> str | None:
        """One metastore call."""
        table = self._client.get(name)
        return None if table is None else table.tag

    def kind_refusal(self, orig: TableName, tmp: TableName) -> str | None:
        """A table that is not a managed data source table, or a partitioned one (its partitions live apart from the
        record: a view has none to take over or to give back)."""
        for name in (orig, tmp):
            table = self._client.get(name)
            if table is None:
                return f"{name} does not exist"
            if table.is_view:
                continue
            refusal = swap_refusal(table, name)
            if refusal is not None:
                return refusal
            if table.partitioned:
                return f"{name} is partitioned (a view cannot take over or give back its partitions)"
        return None

    def exchange_kinds(self, orig: TableName, tmp: TableName, holder_tag: str, *,
                       between: Callable[[], None]) -> str | None:
        old, new = self._client.get(orig), self._client.get(tmp)
        if old is None or new is None:
            missing = orig if old is None else tmp
            raise NoSuchObjectError(f"{missing} does not exist", str(missing))
        if old.is_view == new.is_view:
            raise CatalogError(f"{orig} and {tmp} are of the same kind", str(orig))
        self._engine.forget(orig, tmp)
        holder = old.tagged(tmp, holder_tag) if old.is_view else old.as_holder(tmp, holder_tag)
        self._client.install(tmp, holder)
        between()
        self._client.install(orig, new.tagged(orig, new.tag))  # a table's tag hidden
        self.refresh(orig)
        return None if old.is_view else old.location

    def restore_kind(self, orig: TableName, holder: TableName, orig_tag: str | None) -> None:
        kept = self._client.get(holder)
        if kept is None:
            raise NoSuchObjectError(f"{holder} does not exist", str(holder))
        self._engine.forget(orig, holder)
        restored = kept.tagged(orig, None) if kept.is_view else kept.as_restored(orig, orig_tag)
        self._client.install(orig, restored)
        self.refresh(orig)

    def refresh(self, name: TableName) -> None:
        """This session's cached relation of ``name`` goes: the next query reads the new one."""
        with contextlib.suppress(*ENGINE_ERRORS, EngineOperationError):  # nothing cached
            refresh(self._engine, name)
