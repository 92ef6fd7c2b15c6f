"""The public Python API: :class:`AtomicDDL` opens a home's log and binlog, runs recovery first (as a database
server does at start), then runs DDL statements atomically on a Spark session (or any :class:`Catalog`)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from chains.binlog import Binlog, BinlogEvent
from chains.entries import ExecuteEntry
from chains.log import DEFAULT_COMPACT_BYTES, DDLLog
from ddl_log.home import Home
from ddl_log.recovery import RecoveryReport, recover
from ddl_log.schema import SchemaLike, parse_schema
from ddl_log.statements import create_table_text
from replace_table.machine import ReplaceResult, ReplaceTable
from storage.catalog import Catalog, TableSpec
from storage.errors import InvalidNameError
from storage.fileops import REAL_FILE_OPS, FileOps
from storage.names import TableName


class AtomicDDL:
    """Atomic, crash-safe DDL for one home (log, binlog and, by default, an embedded Spark + Derby metastore).

    ``spark``: a SparkSession (classic or Connect) to use; default: the embedded session under ``home``.
    ``catalog``: any :class:`Catalog` instead of Spark (unit tests of the log).
    ``binlog``: write committed statements to the binlog (the commit point); off: closing the chain commits.
    """

    def __init__(
        self,
        spark: Any = None,
        home: str | os.PathLike[str] | None = None,
        *,
        binlog: bool = True,
        catalog: Catalog | None = None,
        file_ops: FileOps = REAL_FILE_OPS,
        compact_bytes: int = DEFAULT_COMPACT_BYTES,
        binlog_segment_bytes: int | None = None,
        wait_seconds: float = 0.0,
    ) -> None:
        self.home = Home.open(home, wait_seconds=wait_seconds)
        try:
            self.log = DDLLog(self.home.log_dir, ops=file_ops, compact_bytes=compact_bytes)
            segment_options = {} if binlog_segment_bytes is None else {"segment_bytes": binlog_segment_bytes}
            self.binlog_file = Binlog(self.home.path, ops=file_ops, **segment_options)
            self.log.reserve_ids(self.binlog_file.max_xid + 1)
        except BaseException:
            self.home.release()
            raise
        self.binlog_enabled = binlog
        self._spark = spark
        self._catalog = catalog
        try:
            self.last_recovery = self.recover()
        except BaseException:
            self.close()  # a dying process lets go of its files and lock too
            raise

    # ------------------------------------------------------------------ parts

    @property
    def binlog(self) -> Binlog | None:
        """The binlog statements write to; None when the binlog is off."""
        return self.binlog_file if self.binlog_enabled else None

    @property
    def spark(self) -> Any:
        if self._spark is None:
            from storage.spark_session import embedded_session

            self._spark = embedded_session(Path(self.home.path))
        return self._spark

    @property
    def catalog(self) -> Catalog:
        if self._catalog is None:
            from storage.spark_catalog import SparkCatalog

            self._catalog = SparkCatalog(self.spark)
        return self._catalog

    # ------------------------------------------------------------------ recovery and inspection

    def recover(self) -> RecoveryReport:
        """Undo or finish every interrupted statement. Starts Spark only if some chain has to run."""
        self.last_recovery = recover(self.log, self.binlog_file, lambda: self.catalog,
                                     write_binlog=self.binlog_enabled)
        return self.last_recovery

    def active_chains(self) -> list[ExecuteEntry]:
        return self.log.active_chains()

    def abandoned_chains(self) -> list[ExecuteEntry]:
        return self.log.abandoned_chains()

    def binlog_events(self, since_seq: int = 0) -> list[BinlogEvent]:
        return list(self.binlog_file.events(since_seq))

    # ------------------------------------------------------------------ statements

    def create_or_replace_table(
        self,
        name: str | TableName,
        *,
        schema: SchemaLike | None = None,
        like: str | TableName | None = None,
        as_select: str | None = None,
        df: Any = None,
        using: str = "parquet",
        partitioned_by: Iterable[str] = (),
        properties: dict[str, str] | None = None,
        comment: str | None = None,
        statement: str | None = None,
    ) -> ReplaceResult:
        """CREATE OR REPLACE TABLE ``name``: the old table stays readable and intact until the new one is complete
        and the statement is binlogged; any failure or crash before that leaves exactly the old table."""
        target = TableName.of(name)
        spec = self._spec(schema=schema, like=like, as_select=as_select, df=df, using=using,
                          partitioned_by=partitioned_by, properties=properties, comment=comment)
        self.catalog.check_create(spec)
        text = statement or create_table_text(target, spec, or_replace=True)
        return ReplaceTable(self.log, self.binlog, self.catalog, target, spec, text).run()

    @staticmethod
    def _spec(*, schema: SchemaLike | None, like: str | TableName | None, as_select: str | None, df: Any,
              using: str, partitioned_by: Iterable[str], properties: dict[str, str] | None,
              comment: str | None) -> TableSpec:
        given = [label for label, value in (("schema", schema), ("like", like), ("as_select", as_select),
                                            ("df", df)) if value is not None]
        if len(given) != 1:
            raise InvalidNameError(f"give exactly one of schema, like, as_select, df (got {given or 'none'})", "")
        if as_select is not None and not as_select.strip():
            raise InvalidNameError("as_select is empty", "")
        return TableSpec(
            columns=parse_schema(schema) if schema is not None else None,
            like=TableName.of(like) if like is not None else None,
            as_select=as_select,
            df=df,
            using=using,
            partitioned_by=tuple(partitioned_by),
            properties=tuple(sorted((properties or {}).items())),
            comment=comment,
        )

    # ------------------------------------------------------------------ life cycle

    def close(self) -> None:
        """Release files and the home lock (the Spark session is left to its owner)."""
        self.log.close_file()
        self.binlog_file.close()
        self.home.release()

    def abandon(self) -> None:
        """Drop every file handle without writing anything: what the kernel does when the process dies.
        Used by in-process crash tests before they re-open the home."""
        self.close()

    def __enter__(self) -> AtomicDDL:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
