"""What an INSERT OVERWRITE replaces, decided as Spark (4.0.1, data source tables) decides it, turned into the
:class:`~storage.catalogs.interface.Fill` of the new table version (new rows, then the old partitions it keeps).

==========================  ========================================  ================================================
form                        static mode (the default)                 dynamic mode
==========================  ========================================  ================================================
no PARTITION / ``(k)``      the whole table                           the partitions the query writes rows to
``PARTITION (a=1, b)``      every partition with ``a=1``              the partitions the query writes rows to
``PARTITION (a=1, b=2)``    that partition (even if no row comes)     the same (Spark: a full spec is always static)
==========================  ========================================  ================================================

Spark's rules kept: a spec names every partition column (``PARTITION (a=1)`` of a table partitioned by ``a, b`` is
refused), static columns come before dynamic ones in table order, ``IF NOT EXISTS`` needs a full static spec and
then does nothing when that partition exists (even empty). An unpartitioned table is always replaced whole.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

from ddl_log.engine.texts import sql_string
from storage.catalogs.interface import Fill, TableMetadata
from storage.catalogs.names import TableName, quote_ident
from storage.catalogs.ports import Catalog
from storage.errors import InvalidDefinitionError, NotAtomicError, OperationNotAllowedError

MODES = ("static", "dynamic")
DEFAULT_PARTITION_VALUE = "__HIVE_DEFAULT_PARTITION__"


@attrs.frozen
class OverwritePlan:
    fill: Fill
    skip: bool = False
    """IF NOT EXISTS and the partition exists: the statement does nothing."""


def check_rewritable(name: TableName, metadata: TableMetadata | None, verb: str) -> None:
    """TRUNCATE and INSERT OVERWRITE build a new version of the table and swap it in: an external table's files live
    at its own location, which the new version cannot take over. Spark refuses TRUNCATE there
    (:class:`OperationNotAllowedError`, as Spark says it); an INSERT OVERWRITE, which Spark runs by rewriting the
    files in place, cannot be made atomic (:class:`NotAtomicError`). A missing table is left to the statement."""
    if metadata is None or not metadata.external:
        return
    if verb == "TRUNCATE TABLE":
        raise OperationNotAllowedError(f"Operation not allowed: TRUNCATE TABLE on external tables: {name}", str(name))
    raise NotAtomicError(f"{verb} of the external table {name} cannot be atomic: its files live at the table's own "
                         "location, which a new version cannot replace in one step (allow_non_atomic=True or "
                         "--allow-non-atomic runs Spark's own statement)", str(name))


def resolve_mode(catalog: Catalog, explicit: str | None, name: TableName,
                 metadata: TableMetadata | None = None) -> str:
    """The explicit mode, else the session's ``spark.sql.sources.partitionOverwriteMode`` now. A Hive serde table
    (``STORED AS ...``) is always overwritten dynamically, whatever the mode says, as Spark's Hive insert does (Hive
    replaces the partitions the rows go to, and a fully static partition)."""
    mode = (explicit if explicit is not None else catalog.data.partition_overwrite_mode()).strip().lower()
    if mode not in MODES:
        raise InvalidDefinitionError(f"partition overwrite mode must be static or dynamic, not {mode!r}", str(name))
    if metadata is not None and metadata.provider.lower() == "hive":
        return "dynamic"
    return mode


def plan_overwrite(catalog: Catalog, name: TableName, metadata: TableMetadata | None, *, as_select: str | None,
                   df: Any, partition: Mapping[str, str | None] | None, mode: str,
                   if_not_exists: bool, columns: tuple[str, ...] = (), by_name: bool = False) -> OverwritePlan:
    """``partition`` maps every partition column to its static value, or None for a dynamic column (Spark's own
    model of ``PARTITION (a=1, b)``); ``columns`` / ``by_name``: how the rows map to the table's columns
    (:attr:`Fill.columns`, Spark's analysis of the INSERT checks them). A missing table gives a plain fill (the
    statement reports it)."""
    rows = Fill(as_select=as_select, df=df, columns=columns, by_name=by_name)
    if metadata is None:
        return OverwritePlan(rows)
    spec = _normalize(name, metadata, partition)
    static = {column: value for column, value in spec if value is not None}
    full = bool(spec) and len(static) == len(spec)
    if if_not_exists:
        if not full:
            raise InvalidDefinitionError(
                f"INSERT OVERWRITE {name} ... IF NOT EXISTS needs a value for every partition column", str(name))
        if catalog.definitions.list_partitions(name, static):
            return OverwritePlan(rows, skip=True)
    keep: TableName | None = None
    replaces: Literal["written", "matching"] = "matching"
    if full or (mode == "static" and static):
        keep = name
    elif mode == "dynamic" and spec:
        keep, replaces = name, "written"
    return OverwritePlan(attrs.evolve(rows, partition=spec, keep=keep, replaces=replaces))


def _normalize(name: TableName, metadata: TableMetadata,
               partition: Mapping[str, str | None] | None) -> tuple[tuple[str, str | None], ...]:
    """The spec in table order with the table's column names; no spec is every partition column dynamic."""
    columns = metadata.partitioned_by
    if partition is None:
        return tuple((column, None) for column in columns)
    lowered = {column.lower() for column in columns}
    unknown = [key for key in partition if not isinstance(key, str) or key.lower() not in lowered]
    if unknown:  # Spark's first check of a spec, a table without partitions included
        raise InvalidDefinitionError(
            f"cannot overwrite a partition of {name}: {', '.join(map(str, unknown))} "
            f"{'is not a partition column' if columns else '(the table is not partitioned)'}", str(name),
            condition="PARTITIONS_NOT_FOUND")
    given: dict[str, str | None] = {}
    for key, value in partition.items():
        if not isinstance(key, str) or (value is not None and not isinstance(value, str)):
            raise InvalidDefinitionError(f"partition spec of {name} must map column names to strings or None",
                                         str(name))
        if key.lower() in given:
            raise InvalidDefinitionError(f"partition column {key!r} named twice for {name}", str(name))
        given[key.lower()] = value
    if set(given) != lowered:
        raise InvalidDefinitionError(
            f"the partition spec {dict(partition)} of {name} must name every partition column {list(columns)} "
            "(a dynamic one without a value)", str(name), condition="_LEGACY_ERROR_TEMP_1169")
    spec = tuple((column, given[column.lower()]) for column in columns)
    values = [value for _, value in spec]
    if None in values and any(value is not None for value in values[values.index(None):]):
        raise InvalidDefinitionError(
            f"static partition columns of {name} must come before the dynamic ones (table order {list(columns)})",
            str(name))
    if DEFAULT_PARTITION_VALUE in values:
        raise InvalidDefinitionError(f"a NULL static partition value is not supported for {name}", str(name))
    return spec


def overwrite_text(name: TableName, fill: Fill, *, if_not_exists: bool) -> str:
    """The statement as the binlog records it when the caller gave no text."""
    text = f"INSERT OVERWRITE TABLE {name.quoted}"
    if fill.static:
        parts = [quote_ident(c) if v is None else f"{quote_ident(c)}={sql_string(v)}" for c, v in fill.partition]
        text += f" PARTITION ({', '.join(parts)})"
    if if_not_exists:
        text += " IF NOT EXISTS"
    if fill.column_clause:
        text += " " + fill.column_clause
    return text + " " + (fill.as_select or "/* DataFrame */")
