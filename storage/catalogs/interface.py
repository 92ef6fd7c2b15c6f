"""The records the DDL log and the catalog exchange: the description of a table to create, a table's metadata and
version, views, functions, and the identity tags.

Actions (``actions/``) only ever talk to a :class:`~storage.catalogs.ports.Catalog`, through its ports
(:mod:`storage.catalogs.ports`). Two
implementations exist: the Spark/Hive engine (:func:`storage.catalogs.spark.catalog.spark_catalog`) and the in-memory
one (:func:`storage.catalogs.memory.memory_catalog`, unit tests of the log); tests/contract runs one set of behaviour
tests on both.

Contract every implementation keeps, because recovery depends on it:

* ``names.identity(name)`` returns a string that follows the table through renames and differs between two tables
  that were created separately: the log's tag property when the table carries one, else a fingerprint of immutable
  metadata. ``None`` when no table of that name exists.
* ``data.create`` stores ``tag`` on the new table (so undo can recognise it) and is all-or-nothing as far as the
  engine allows; when it fails it raises and leaves no half-created table behind that ``names.drop`` +
  ``directories.clean_leftovers`` cannot remove.
* ``names.rename`` and ``names.drop`` raise :class:`NoSuchObjectError` when the source is missing and
  :class:`ObjectExistsError` when a rename target exists; they never overwrite.
* ``names.settle_rename(old, new)`` repairs a rename torn between data move and metastore update (see the method).
* ``directories.clean_leftovers(name)`` removes the default managed location of ``name`` when no table of that name
  exists (a failed CTAS, a drop cut between metastore and files, a rename cut mid-move), and returns whether it
  removed anything. It is only called for names the DDL log owns.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

import attrs

from storage.catalogs.fill import CONVERSION_FAILURE_MARK as CONVERSION_FAILURE_MARK
from storage.catalogs.fill import HIVE_DEFAULT_PARTITION as HIVE_DEFAULT_PARTITION
from storage.catalogs.fill import KEEP_POINT as KEEP_POINT
from storage.catalogs.fill import KEPT_TAKEN as KEPT_TAKEN
from storage.catalogs.fill import SWITCHING_PARTITIONS as SWITCHING_PARTITIONS
from storage.catalogs.fill import Fill as Fill
from storage.catalogs.names import TableName

TAG_PROPERTY = "spark_ddl_log.tag"
"""Table (and database) property holding the identity tag the DDL log gives every table and database it creates: a
database's, a view's, every table of the in-memory catalog or of a Spark Connect session, and a table created by an
older version of the project. Visible in Spark's output (SHOW TBLPROPERTIES, DESC, SHOW CREATE TABLE)."""

HIDDEN_TAG_PROPERTY = "spark.sql.sources.ddl_log.tag"
"""Where a table of a classic Spark session with a metastore client of the catalog's own keeps its identity tag.

Spark's Hive catalog drops every ``spark.sql.`` property from the table it reads back (so no DESC, SHOW or SHOW
CREATE TABLE prints it), keeps every ``spark.sql.sources.`` one of the stored table through its own ALTERs (SET /
UNSET TBLPROPERTIES, SET LOCATION, RENAME, ADD COLUMNS, statistics) and refuses one in a statement's TBLPROPERTIES:
only a raw metastore write sets it and only a raw read sees it. Readers take it before :data:`TAG_PROPERTY`."""

TAG_KEYS = (HIDDEN_TAG_PROPERTY, TAG_PROPERTY)
"""The table properties a table's identity tag may be under, the first found wins."""


def tag_in(properties: Mapping[str, str]) -> str | None:
    """The identity tag among a table's properties: the hidden key's, else the visible one's; None without either."""
    for key in TAG_KEYS:
        if key in properties:
            return str(properties[key])
    return None


def new_database_tag() -> str:
    """A fresh database identity tag (the value of the database's TAG_PROPERTY)."""
    return "db:" + uuid.uuid4().hex


@attrs.frozen
class ViewDefinition:
    """A persistent view as the catalog stores it; kept in the log so undo can restore the old one."""

    query: str
    comment: str | None = None
    columns: tuple[str, ...] = ()
    """Explicit column names (``CREATE VIEW v (a, b) AS ...``); empty for the query's own names."""
    properties: tuple[tuple[str, str], ...] = ()
    """The view's own TBLPROPERTIES (sorted by key), without what the metastore or Spark maintain."""
    schema_mode: str | None = None
    """How the view meets a change of its sources' schemas (``WITH SCHEMA BINDING | COMPENSATION | EVOLUTION | TYPE
    EVOLUTION``, upper case) as the catalog stores it; None: the session's default (a view made without the
    clause, or a catalog that keeps none)."""

    @property
    def property_map(self) -> dict[str, str]:
        return dict(self.properties)


@attrs.frozen
class FunctionDefinition:
    """A persistent function: a class with resources (JARs, files), or a SQL function (params, returns, body)."""

    class_name: str | None = None
    resources: tuple[tuple[str, str], ...] = ()
    params: str | None = None
    returns: str | None = None
    body: str | None = None

    @property
    def is_sql(self) -> bool:
        return self.body is not None


@attrs.frozen
class DatabaseObjects:
    tables: tuple[TableName, ...] = ()
    views: tuple[TableName, ...] = ()
    functions: tuple[TableName, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.tables or self.views or self.functions)


@attrs.frozen
class Column:
    name: str
    type: str
    comment: str | None = None


@attrs.frozen
class ParseFailure:
    """An engine's parser refused a statement: its one-line reason and where (1-based, within the statement)."""

    reason: str
    line: int
    column: int
    condition: str | None = None
    """The engine's error condition (``PARSE_SYNTAX_ERROR`` ...), when it names one."""


@attrs.frozen
class CreateText:
    """A CREATE TABLE statement as its author wrote it, to run under another name with the log's tag added: what
    follows the table name (``body``: column list, clauses, query), exactly as written, so that Spark decides
    everything the statement says or leaves to the session (the default data source, types, NOT NULL, DEFAULT,
    OPTIONS, bucketing, ...) exactly as it would for the original statement.

    The tag goes in at a token boundary of ``body`` (never inside a comment or a literal): into the statement's own
    ``TBLPROPERTIES`` group when it has one (``in_group``; ``group_empty`` when it holds nothing yet), else as a clause
    of its own (Spark takes CREATE TABLE clauses in any order; after ``LIKE`` the clause comes last)."""

    body: str
    insert_at: int
    in_group: bool = False
    group_empty: bool = False
    escaped: bool = False
    """Built here with escaped literals (the Python API's forms): they read back right only while Spark's
    ``spark.sql.parser.escapedStringLiterals`` is off. A statement as its author wrote it reads as it does in Spark."""

    def render(self, name_sql: str, tag_pair_sql: str) -> str:
        """``CREATE TABLE <name_sql> <body>`` with ``tag_pair_sql`` (``'key'='value'``) among its properties."""
        if self.in_group:
            insertion = tag_pair_sql if self.group_empty else f", {tag_pair_sql}"
        else:
            insertion = f" TBLPROPERTIES ({tag_pair_sql}) "
        body = self.body[:self.insert_at] + insertion + self.body[self.insert_at:]
        return f"CREATE TABLE {name_sql} {body}"


@attrs.frozen
class ColumnChange:
    """What an ALTER TABLE rebuild changes in a copy of a table's definition: ``retype`` (column, new type as the
    statement writes it), with ``comment`` the retyped column's new comment (None: kept), and the columns ``drop``
    removes; everything else is kept exactly."""

    retype: tuple[str, str] | None = None
    drop: tuple[str, ...] = ()
    comment: str | None = None


@attrs.frozen
class TableSpec:
    """What to create: exactly one of ``columns``, ``like``, ``as_select`` or ``df`` says where the shape comes from.

    ``df`` is a DataFrame (classic or Spark Connect); it is never persisted in the log, only used live. ``text``: the
    statement as written (:class:`CreateText`); an engine that runs SQL runs it, the other fields describe it for
    the rest (the in-memory catalog, the checks). ``using`` None: the session's default data source.
    """

    columns: tuple[Column, ...] | None = None
    like: TableName | None = None
    as_select: str | None = None
    df: Any = attrs.field(default=None, eq=False, repr=False)
    using: str | None = None
    partitioned_by: tuple[str, ...] = ()
    properties: tuple[tuple[str, str], ...] = ()
    comment: str | None = None
    text: CreateText | None = None
    alter: ColumnChange | None = None
    """With ``copy``: the copy's definition with this change (an ALTER TABLE rebuild)."""
    copy: bool = False
    """With ``like``: an empty copy of the source's whole definition, its table properties (the log's tag aside)
    and comment included, as Spark's TRUNCATE and INSERT OVERWRITE keep them (``properties``/``comment`` unused)."""
    partitions_in_files: bool = False
    """With ``copy`` of a partitioned table, where the engine can: the copy's partitions are found in its files
    while it is filled, never registered as records of its own (an INSERT OVERWRITE's work table, whose records the
    install makes ORIG's)."""

    def copied(self, metadata: TableMetadata | None) -> TableSpec:
        """This copy spec as a plain LIKE spec that names the source's properties and comment (``metadata``)."""
        if not self.copy or metadata is None:
            return attrs.evolve(self, copy=False)
        properties = tuple((k, v) for k, v in metadata.properties if k not in TAG_KEYS)
        return attrs.evolve(self, copy=False, properties=properties, comment=metadata.comment)

    @property
    def form(self) -> str:
        """``columns``, ``like`` or ``select``: the form of CREATE the spec describes."""
        given = [
            form
            for form, value in (
                ("columns", self.columns),
                ("like", self.like),
                ("select", self.as_select),
                ("select", self.df),
            )
            if value is not None
        ]
        if len(given) != 1:
            raise ValueError("a TableSpec needs exactly one of columns, like, as_select, df")
        return given[0]





@attrs.frozen
class TableMetadata:
    """What ALTER TABLE reads and undo restores. ``columns`` in schema order (partition columns last, as Hive
    stores them); ``properties`` are the user-visible table properties (the DDL log's tag included)."""

    columns: tuple[Column, ...]
    partitioned_by: tuple[str, ...] = ()
    properties: tuple[tuple[str, str], ...] = ()
    provider: str = "parquet"
    comment: str | None = None
    external: bool = False
    """An external table: its files live at a location of its own, which DROP leaves alone."""

    def column(self, name: str) -> Column | None:
        return next((c for c in self.columns if c.name.lower() == name.lower()), None)

    @property
    def property_map(self) -> dict[str, str]:
        return dict(self.properties)


@attrs.frozen
class DataSummary:
    """The data files under a directory: how many, their bytes, and the newest one's last change (epoch seconds; 0
    with none): what a kept version holds, and whether anything there was written after a moment (a writer outside
    the log commits its files at a directory before its table names it)."""

    files: int
    size: int
    newest: float


@attrs.frozen
class TableVersion:
    """A table's whole definition, as the engine stores it (``definition``: opaque text), where its files are, its
    table properties (the retention property) and whether it lives at the name's default directory (where it
    would block plain Spark from making a table of that name)."""

    definition: str
    location: str
    properties: tuple[tuple[str, str], ...] = ()
    at_default_location: bool = False


@attrs.frozen
class SwapPlan:
    """A replace's swap, read once (:meth:`~storage.catalogs.ports.Swaps.plan_swap`): ``refusal`` (why the rename
    path must be taken), or ``old``, ORIG's whole definition to log before the exchange, and ``handle``, the
    engine's own reading of TMP's definition that the exchange installs (TMP is the statement's: nobody changes it
    in between)."""

    refusal: str | None
    old: TableVersion | None = None
    handle: Any = attrs.field(default=None, eq=False, repr=False)
    keeps_statistics: bool = False
    """The installed definition carries ORIG's statistics, which the engine must then leave as they are."""
    updates_statistics: bool = False
    """Right after the install, the engine does to ORIG's statistics what Spark's in-place statement does after its
    write (INSERT OVERWRITE, TRUNCATE: they are dropped, or set to the new size where the session recomputes
    sizes)."""
    directory: str | None = None
    """Where the new version lives when the plan makes no TMP table (``Swaps.plan_empty_swap``,
    ``Swaps.plan_write_swap``): TMP's default directory, which the caller's log of TMP's creation removes on undo."""
    written: bool = False
    """``directory`` is made by the statement's write job (``Swaps.plan_write_swap``); else the exchange makes it,
    empty, right before the install."""
    created: bool = False
    """The new definition is the one the write job's CTAS makes (``Swaps.plan_created_swap``): ``handle`` is set
    once the job has written the directory (``DataJobs.write_created``)."""
    kept: tuple[str, ...] = ()
    """The empty path of ``TRUNCATE TABLE ... PARTITION``: the partitions it does not empty, as paths under ORIG's
    directory, whose files the new version takes whole at the same paths (``Swaps.plan_empty_swap``'s
    ``emptied``)."""
