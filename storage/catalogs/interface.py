"""The catalog interface the DDL log acts on, and the description of a table to create.

Actions (``actions/``) only ever talk to a :class:`Catalog`. Two implementations exist: the Spark/Hive engine in
:mod:`storage.catalogs.spark.catalog` and the in-memory one in :mod:`storage.catalogs.memory` (unit tests of the log);
tests/contract runs one set of behaviour tests on both.

Contract every implementation keeps, because recovery depends on it:

* ``identity(name)`` returns a string that follows the table through renames and differs between two tables that
  were created separately: the log's tag property when the table carries one, else a fingerprint of immutable
  metadata. ``None`` when no table of that name exists.
* ``create`` stores ``tag`` on the new table (so undo can recognise it) and is all-or-nothing as far as the engine
  allows; when it fails it raises and leaves no half-created table behind that ``drop`` + ``clean_leftovers`` cannot
  remove.
* ``rename`` and ``drop`` raise :class:`NoSuchObjectError` when the source is missing and
  :class:`ObjectExistsError` when a rename target exists; they never overwrite.
* ``settle_rename(old, new)`` repairs a rename torn between data move and metastore update (see the method).
* ``clean_leftovers(name)`` removes the default managed location of ``name`` when no table of that name exists (a
  failed CTAS, a drop cut between metastore and files, a rename cut mid-move), and returns whether it removed
  anything. It is only called for names the DDL log owns.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

import attrs

from storage.catalogs.fill import CONVERSION_FAILURE_MARK as CONVERSION_FAILURE_MARK
from storage.catalogs.fill import HIVE_DEFAULT_PARTITION as HIVE_DEFAULT_PARTITION
from storage.catalogs.fill import KEEP_POINT as KEEP_POINT
from storage.catalogs.fill import SWITCHING_PARTITIONS as SWITCHING_PARTITIONS
from storage.catalogs.fill import Fill as Fill
from storage.catalogs.names import TableName
from storage.errors import NoSuchObjectError

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


@runtime_checkable
class Catalog(Protocol):
    """Table operations the DDL log replays; each is one engine call as seen from the log."""

    def exists(self, name: TableName) -> bool: ...

    def identity(self, name: TableName) -> str | None: ...

    def create(self, name: TableName, spec: TableSpec, tag: str) -> None: ...

    def rename(self, old: TableName, new: TableName) -> None: ...

    def insert(self, name: TableName, fill: Fill) -> None:
        """Append the rows of ``fill`` to ``name`` (columns by position, as INSERT INTO does), then the rows of the
        partitions ``fill.keep`` keeps (crash point ``fill.keep.before`` in between)."""
        ...

    def partition_overwrite_mode(self) -> str:
        """``static`` or ``dynamic``: the session's ``spark.sql.sources.partitionOverwriteMode`` now (lower case)."""
        ...

    def drop(self, name: TableName, *, expect: str | None = None, before: Callable[[], None] | None = None,
             keep_files: bool = False) -> bool:
        """Drop the table ``name`` and its files; :class:`NoSuchObjectError` when no table has that name.

        With ``expect``, only if its identity is ``expect`` (False, and nothing done, otherwise): one lookup serves
        the identity check and the drop. ``before`` runs between that check and the drop (a crash point).
        ``keep_files``: a managed table leaves the catalog without its files (the name goes before the files do; the
        caller has scheduled their deletion), so a reader that resolved it just before reads its rows whole.
        """
        ...

    def table_location(self, name: TableName) -> str | None:
        """Where the files of the managed table ``name`` live (None: no such table, a view, or an external one)."""
        ...

    def default_location(self, name: TableName) -> str | None:
        """Where a managed table ``name`` keeps its files unless it moved (None: its database is missing)."""
        ...

    def orphan_window(self) -> float | None:
        """How many seconds a task of a data job this engine ran may go on writing files after its driver died or its
        job was cancelled. None when tasks run inside this process and end with it (Spark's local mode, the
        in-memory catalog): then nothing can write after an undo."""
        ...

    def list_tables(self, db: str) -> list[TableName]: ...

    def drop_table_drops_views(self) -> bool:
        """Whether ``DROP TABLE`` of a view drops it, as the engine's own DROP TABLE does (Spark 4.3), rather than
        refusing it (Spark 4.0, the in-memory catalog)."""
        ...

    def no_such_function(self, name: TableName) -> NoSuchObjectError:
        """What the engine's own ``DROP FUNCTION`` of the missing function ``name`` raises (its condition is the
        Spark line's)."""
        ...

    def clean_leftovers(self, name: TableName) -> bool: ...

    # -- table metadata (ALTER TABLE)

    def table_metadata(self, name: TableName) -> TableMetadata | None: ...

    def recorded_definition(self, name: TableName) -> tuple[str, TableMetadata] | None:
        """The location and metadata of the table ``name`` as a binlog event records the version a statement
        installed, in as few engine calls as the engine allows; None when missing (or a view)."""
        ...

    def set_properties(self, name: TableName, properties: dict[str, str]) -> None: ...

    def unset_properties(self, name: TableName, keys: tuple[str, ...]) -> None:
        """Remove ``keys``; keys that are not set are ignored."""
        ...

    def set_view_properties(self, name: TableName, properties: dict[str, str]) -> None:
        """``ALTER VIEW name SET TBLPROPERTIES``: the view's definition otherwise untouched (no re-analysis)."""
        ...

    def unset_view_properties(self, name: TableName, keys: tuple[str, ...]) -> None:
        """``ALTER VIEW name UNSET TBLPROPERTIES IF EXISTS``; keys that are not set are ignored."""
        ...

    def set_view_schema_mode(self, name: TableName, mode: str) -> None:
        """``ALTER VIEW name WITH SCHEMA <mode>``: only the mode changes; the view's stored columns and their types
        stay as they are (no re-analysis), as in Spark."""
        ...

    def set_column_comment(self, name: TableName, column: str, comment: str) -> None:
        """Set a column comment; an empty ``comment`` removes it (so undo restores "no comment" exactly)."""
        ...

    def add_columns(self, name: TableName, columns: tuple[Column, ...], *, text: str | None = None) -> None:
        """Add ``columns``; ``text``: the same column list as a statement wrote it, which an engine that runs SQL
        runs as written (its types, NOT NULL, DEFAULT ... are the engine's to accept or refuse)."""
        ...

    def list_partitions(self, name: TableName, spec: dict[str, str] | None = None) -> list[dict[str, str]]:
        """The partitions of ``name`` (values as the metastore stores them, NULL as ``__HIVE_DEFAULT_PARTITION__``);
        with ``spec`` (some partition columns) only those matching it, values compared as the engine compares
        them (``k='01'`` matches ``k=1`` of an INT column)."""
        ...

    def add_partition(self, name: TableName, spec: dict[str, str]) -> None:
        """Add an (empty) partition; an existing one is left alone."""
        ...

    def drop_partition(self, name: TableName, spec: dict[str, str]) -> None:
        """Drop a partition with its data; a missing one is ignored."""
        ...

    # -- views (``identity``/``exists`` are about tables; a view name is not a table)

    def view_definition(self, name: TableName) -> ViewDefinition | None: ...

    def stored_view(self, name: TableName, definition: ViewDefinition, *, reanalysed: bool = True) -> ViewDefinition:
        """``definition`` as :meth:`view_definition` will report the view ``create_view(name, definition)`` makes
        (an engine stores a query its own way): what a statement logs as the view it makes, so that recovery
        recognises it. ``reanalysed`` False: a reported definition whose schema mode alone is set anew (ALTER VIEW
        ... WITH SCHEMA). Raises what ``create_view`` raises for a bad definition; changes nothing."""
        ...

    def view_identity(self, name: TableName) -> str | None:
        """Who the persistent view ``name`` is, beyond its definition: a view dropped and created again under the name
        (even with the same text) has another identity, and so has one replaced (``CREATE OR REPLACE``, which renews
        the metastore's create time); a rename keeps it. None when there is no such view."""
        ...

    def create_view(self, name: TableName, definition: ViewDefinition, *, replace: bool) -> None: ...

    def rename_view(self, old: TableName, new: TableName) -> None: ...

    def drop_view(self, name: TableName) -> None: ...

    # -- persistent functions

    def function_definition(self, name: TableName) -> FunctionDefinition | None: ...

    def create_function(self, name: TableName, definition: FunctionDefinition, *, replace: bool) -> None: ...

    def drop_function(self, name: TableName) -> None: ...

    # -- databases

    def database_exists(self, db: str) -> bool: ...

    def database_identity(self, db: str) -> str | None:
        """The identity tag of ``db`` (see :meth:`tag_database`); None when the database is missing or untagged."""
        ...

    def tag_database(self, db: str) -> str:
        """Give ``db`` an identity tag unless it has one (a database property, as tables carry theirs) and return it:
        DROP DATABASE records it, so that recovery never drops a database created anew under the name."""
        ...

    def list_objects(self, db: str) -> DatabaseObjects: ...

    def create_database(self, db: str, *, comment: str | None = None,
                        properties: tuple[tuple[str, str], ...] = ()) -> None: ...

    def drop_database(self, db: str, *, keep_files: bool = False) -> None:
        """Drop an empty database (RESTRICT); raises if it still holds objects. ``keep_files``: its directory stays
        (the dropped tables' files in it wait for their scheduled deletion)."""
        ...

    def database_location(self, db: str) -> str | None:
        """The location of ``db`` (None when missing)."""
        ...

    def database_leftovers_exist(self, db: str) -> bool:
        """Whether something is at the default location of ``db`` although no database ``db`` exists (say True when
        it cannot be known: the caller then leaves the location alone)."""
        ...

    def clean_database_leftovers(self, db: str) -> bool:
        """Remove an *empty* directory at the default location of ``db`` when no database ``db`` exists (what a
        CREATE or DROP DATABASE cut inside the metastore leaves); True if removed. Anything with files is kept."""
        ...

    def check_current_catalog(self) -> None:
        """Raise :class:`CatalogError` unless the engine resolves ``db.name`` in the catalog this one manages: the
        statements name objects as ``db.name``, and a session whose current catalog is another one (after ``USE
        other.ns`` or ``SET CATALOG``) would run them there."""
        ...

    def check_alter(self, name: TableName, clause: str) -> None:
        """Raise what ``ALTER TABLE name <clause>`` would raise before it runs (an engine that runs SQL analyses it
        without running it); no side effect."""
        ...

    def check_create(self, spec: TableSpec, name: TableName | None = None) -> None:
        """Raise the error ``create`` would raise for a bad definition of ``name`` (None: any name): a missing LIKE
        source, a bad column type, an unknown partition column, a SELECT that does not analyse. No side effect."""
        ...

    def settle_rename(self, old: TableName, new: TableName) -> None:
        """Make a rename from ``old`` to ``new`` that may have been cut mid-way consistent again: when the engine
        moves data before it updates the metastore, a kill in between leaves ``old`` in the metastore with its
        data already at ``new``'s location; this moves it back. A no-op when nothing is torn."""
        ...

    # -- the definition swap: a replace that never removes the name (see :mod:`replace_table.machine`)

    def plan_swap(self, orig: TableName, tmp: TableName, *, keep_statistics: bool = False) -> SwapPlan:
        """What :meth:`exchange_definitions` needs, read once (a few metastore reads): why ``orig`` and ``tmp``
        cannot take part in it (the engine cannot change a whole definition in one call, a table's definition does
        not hold all of it, or the two differ in what the engine cannot change: partition keys), or ORIG's whole
        definition to keep in the log before the exchange (what undo puts back). ``keep_statistics``: ORIG keeps
        its own statistics (INSERT OVERWRITE, which Spark runs without changing the table's record), else the
        engine counts the new version's files (a new table, as a CTAS; an ALTER)."""
        ...

    def plan_empty_swap(self, orig: TableName, tmp: TableName, tag: str) -> SwapPlan:
        """TRUNCATE without a TMP table: ORIG's whole definition (properties and comment kept, statistics gone),
        emptied, at a new empty directory (``tmp``'s default location, which :meth:`exchange_definitions` makes: the
        caller logs ``tmp``'s creation first, whose undo removes it), identity ``tag``, installed in one call; and
        ORIG's definition to log. Reads only. A refusal where the catalog cannot: a partitioned table (its
        partitions stay registered, built under TMP), no handle on the metastore, an external or Hive serde table,
        files at the directory."""
        ...

    def exchange_definitions(self, orig: TableName, tmp: TableName, plan: SwapPlan, *,
                             between: Callable[[], None]) -> None:
        """ORIG takes TMP's definition, its data location included, in one metastore call (a partitioned table: one
        more for its partitions): a reader resolves ORIG to the old table or to the new one, whole, never to
        nothing. TMP stays as it is (its removal, files kept, is the caller's). ``between`` runs right before the
        call. ORIG's old definition is not kept by the catalog: the caller logged it (``plan.old``) and undoes with
        :meth:`install_version`. The session's cached relation of ORIG is refreshed."""
        ...

    def restore_definition(self, orig: TableName, holder: TableName, orig_tag: str | None) -> None:
        """ORIG := the definition ``holder`` keeps, managed again and with ORIG's own tag property (or none): the
        undo of a swap logged by an earlier version of this project (SWAP_TABLE, where TMP held ORIG's old definition
        as an external table); :meth:`exchange_definitions` makes no holder any more."""
        ...

    def forget_table(self, name: TableName, *, expect: str) -> bool:
        """Remove the table ``name`` from the catalog but never its files, only while its identity is ``expect``
        (or, where it is not, what a creation of it cut by a crash left under another name: a partitioned table made
        with a partition outside its directory); True if removed."""
        ...

    def delete_data(self, location: str, owner: TableName) -> str | None:
        """Delete a table version's directory once nothing uses it (the old data of a swap, a dropped table's files,
        after the grace period), proving ownership first: the directory must lie under ``owner``'s database
        location, and no database may be located at or under it, no table or partition at, under or above it (a
        table someone registered there since, in any database). Returns why it was kept; None when it was deleted
        (or was gone already)."""
        ...

    # -- table versions (RESTORE, UNDROP: :mod:`actions.kept_versions`)

    def version_of(self, name: TableName) -> TableVersion | None:
        """The managed table ``name``'s whole definition as the engine stores it (partitions included), to keep in
        the log; None when there is no such table or its definition cannot be kept whole (external, Hive serde,
        no handle on the metastore)."""
        ...

    def install_refusal(self, name: TableName, definition: str) -> str | None:
        """Why ``definition`` cannot become the existing table ``name``'s in one call (None when it can): the engine
        cannot change a table's partition columns in place. Reads only."""
        ...

    def install_version(self, name: TableName, definition: str, tag: str | None, *, create: bool) -> None:
        """Make ``definition`` (a :meth:`version_of`'s) the table ``name``, with identity ``tag`` (None: the one the
        definition carries): ``create`` a new table (UNDROP), else ``name``'s whole definition, partitions included,
        in one call readers observe (RESTORE and its undo). Files are never touched."""
        ...

    def data_size(self, location: str) -> int | None:
        """Bytes under ``location`` (None when it cannot be known): what a kept version holds."""
        ...


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
    """A replace's swap, read once (:meth:`Catalog.plan_swap`): ``refusal`` (why the rename path must be taken), or
    ``old``, ORIG's whole definition to log before the exchange, and ``handle``, the engine's own reading of TMP's
    definition that the exchange installs (TMP is the statement's: nobody changes it in between)."""

    refusal: str | None
    old: TableVersion | None = None
    handle: Any = attrs.field(default=None, eq=False, repr=False)
    keeps_statistics: bool = False
    """The installed definition carries ORIG's statistics, which the engine must then leave as they are."""
