"""What INSERT OVERWRITE and the rebuilds put into a new table version (:class:`Fill`), with the names and crash
points the engines share for it (split from :mod:`storage.catalogs.interface`, which re-exports them)."""

from __future__ import annotations

from typing import Any, Literal

import attrs

from storage import crashpoints
from storage.catalogs.names import TableName, quote_ident

HIVE_DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"
"""How the metastore names a partition whose value is NULL (``SHOW PARTITIONS`` lists it so)."""

KEEP_POINT = crashpoints.declare(
    "fill.keep.before", "INSERT OVERWRITE of some partitions: new rows in TMP, the kept partitions not put in yet"
)


KEPT_TAKEN = crashpoints.declare(
    "swap.kept.taken", "TRUNCATE's empty path: the new version's directory holds the partition directories it keeps "
    "(those of a TRUNCATE ... PARTITION, those no record names); not checked against writers outside the log yet, "
    "nor installed")


SWITCHING_PARTITIONS = crashpoints.declare(
    "swap.partitions.before_switch", "a partitioned table's new definition reads its directory; its metastore "
    "partitions are not switched yet (declared here, beside the engines, so that every crash point is known "
    "without Spark)")


@attrs.frozen
class Fill:
    """Rows to insert into an existing table: a SELECT text or a DataFrame (INSERT OVERWRITE's new rows).

    ``partition``: ``PARTITION (a='1', b)``: every partition column in table order with its static value, or None
    for a dynamic one; the query yields the other columns, by position, as Spark's INSERT maps them. Empty: the
    query yields every column.

    ``keep``: after the new rows, copy in every row (and empty partition) of the table ``keep`` whose partition this
    fill does not replace: with ``replaces="written"`` (dynamic overwrite) the partitions the new rows went to,
    with ``replaces="matching"`` (static overwrite) the partitions matching the static values of ``partition``.
    None: nothing kept (the whole table is replaced).
    """

    as_select: str | None = None
    df: Any = attrs.field(default=None, eq=False, repr=False)
    partition: tuple[tuple[str, str | None], ...] = ()
    keep: TableName | None = None
    replaces: Literal["written", "matching"] = "matching"
    partitions_of: TableName | None = None
    """After the rows, register every partition of this table that no row went to (an empty one ``ADD
    PARTITION`` made): an ALTER TABLE rebuild copies all rows and must keep empty partitions too. With neither
    ``as_select`` nor ``df`` the fill adds no rows, only these partitions: TRUNCATE keeps a partitioned table's
    partitions registered and empty, as Spark's does."""
    empties: bool = False
    """``TRUNCATE TABLE ... PARTITION`` (no rows, with ``keep`` and ``partitions_of``): the partitions matching
    ``partition``'s static values are emptied, not replaced: they stay registered (``partitions_of``), and every
    partition directory no record names is kept, those matching too (Spark's TRUNCATE empties only the records'
    directories)."""
    files_from: str | None = None
    """Instead of rows: copy the data files of this directory (a table version written with the same definition,
    unpartitioned, on a local file system) into the table: a replica installing a source's version."""
    files_named: tuple[str, ...] | None = None
    """With ``files_from``: only these files of it (the version's own; None: every data file there)."""
    insert_text: str | None = None
    """Instead of ``as_select``: what follows the table's name in an ``INSERT INTO`` as its author wrote it
    (``PARTITION (...)``, a column list, ``BY NAME``, the query or ``VALUES``), run as ``INSERT INTO <table> <text>``
    so that the engine decides everything the statement says (positions, casts, defaults, partitions, errors)."""
    copy_files: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    """Instead of rows: these data files (path, partition values) copied as files into the table's directory of
    their partition: a replica adding the rows a source's INSERT INTO added."""
    copy_partitions: tuple[tuple[tuple[str, str], ...], ...] = ()
    """Partitions to register in the table, also without a file: with ``copy_files``, an INSERT of no row into a
    static partition registers it; otherwise, after the rows (or alone), a replica's copy of a version whose
    registered partitions include empty ones (:attr:`chains.version_records.VersionRecord.partitions`)."""

    columns: tuple[str, ...] = ()
    """An INSERT OVERWRITE's column list (``INSERT OVERWRITE t (b, a) SELECT ...``): the rows' columns are these of
    the table, in this order, the others take their default, as Spark's INSERT maps them (empty: by position)."""
    by_name: bool = False
    """An INSERT OVERWRITE ``BY NAME``: the rows' columns go to the table's columns of the same names."""

    @property
    def column_clause(self) -> str:
        """The INSERT's text for :attr:`columns` or :attr:`by_name` (:func:`column_clause`)."""
        return column_clause(self.columns, by_name=self.by_name)

    @property
    def static(self) -> dict[str, str]:
        """The static values of ``partition`` (column -> value as written in the spec)."""
        return {column: value for column, value in self.partition if value is not None}


def column_clause(columns: tuple[str, ...], *, by_name: bool) -> str:
    """An INSERT's text for how its rows map to the table's columns: ``(`b`, `a`)``, ``BY NAME``, or '' (by
    position)."""
    if by_name:
        return "BY NAME"
    return f"({', '.join(quote_ident(column) for column in columns)})" if columns else ""


CONVERSION_FAILURE_MARK = "[ddl-log CAST_INVALID_INPUT] "
"""Starts the message of the ``raise_error`` a strict conversion in a fill's SELECT raises for a value that does not
convert: the catalog turns the failed insert into :class:`~storage.errors.ValueConversionError`."""
