"""The :class:`~storage.catalogs.interface.Catalog` on a Spark session with a Hive metastore.

Only public Spark APIs are used for statements (``spark.sql``, ``spark.catalog``, ``spark.conf``, ``spark.read``,
``DataFrame``, ``DataType``), so the same code runs on a classic session and on a Spark Connect session; what only a
classic session can do (the metastore client of the catalog's own, Spark's parser, Hadoop's file systems) goes
through the JVM handles of the session's profile (:mod:`storage.catalogs.spark.profile`).

:class:`SparkCatalog` wires one part per concern, grouped by mechanism, and delegates each method of the protocol to
it; every part works on the shared :class:`~storage.catalogs.spark.engine.Engine` (the session, its profile and the
lookups several parts make):

* :mod:`storage.catalogs.spark.sql`, Spark SQL text: :mod:`~.sql.table_statements` (lookups, identity, INSERT,
  RENAME and its repair, DROP), :mod:`~.sql.table_create` (CREATE TABLE in all its forms, and its check),
  :mod:`~.sql.table_alter`, :mod:`~.sql.partition_keep` (the partitions an INSERT OVERWRITE keeps),
  :mod:`~.sql.view_statements`, :mod:`~.sql.function_statements` (with :mod:`~.sql.function_records`),
  :mod:`~.sql.database_statements`, :mod:`~.sql.analysis` (Spark's parser and analyzer, nothing run);
* :mod:`storage.catalogs.spark.hms`, the Hive metastore's own records through Py4J: :mod:`~.hms.metastore_client`,
  :mod:`~.hms.swap` (the definition swap), :mod:`~.hms.definitions` (table versions), :mod:`~.hms.kind_swap`;
  on a session without a metastore client of the catalog's own (the profile says so: Spark Connect)
  :mod:`~.hms.without_client` is wired in their place, and a replace takes the rename path;
* :mod:`storage.catalogs.spark.fs`, files: :mod:`~.fs.leftover_files` (files at a table's default location that no
  table owns), :mod:`~.fs.file_mover` (INSERT INTO's files), :mod:`~.fs.version_mover`, :mod:`~.fs.kept_notes`,
  :mod:`~.fs.version_files`;
* :mod:`~storage.catalogs.spark.version_copies`: a replica's copies, across the three;
* :mod:`~storage.catalogs.spark.engine` and :mod:`~storage.catalogs.spark.columns`: the helpers they all use.

Statement text is built from quoted identifiers (:func:`storage.catalogs.names.quote_ident`), escaped string literals
(:func:`~storage.catalogs.spark.engine.sql_string_literal`), providers checked against a strict pattern and column
types that Spark itself parsed and this package printed again (:func:`~storage.catalogs.spark.columns.type_sql`).
The one piece of user text spliced as it is, is the SELECT of a ``CREATE TABLE ... AS SELECT``: it is the user's
query by design, and it sits inside a subquery, so it can only be a query.

Spark / Hive behaviours that concern every part (Spark 4.0.1, built-in Hive 2.3 metastore client):

* Table and database names must match ``[A-Za-z0-9_]+`` (``INVALID_SCHEMA_OR_RELATION_NAME``); anything else is
  refused at create (:class:`InvalidNameError`). Column names may hold any character.
* ``spark.sql`` substitutes ``${...}`` everywhere in the text, inside string literals and quoted identifiers too
  (``'${env:HOME}'`` reads as the home directory). Literals therefore write ``$`` as ``\\u0024``; identifiers cannot
  be escaped, so names containing ``${`` are refused.
* ``''`` is *not* an escaped quote in Spark SQL (``'it''s'`` is two adjacent literals: ``its``); literals use
  backslash escapes, which needs ``spark.sql.parser.escapedStringLiterals=false`` (the default; checked).
* A managed table's default location is ``<database location>/<name>``: CREATE and RENAME refuse it when it is taken
  by files, and failed or interrupted CTAS, RENAME and DROP leave files there (see
  :mod:`~storage.catalogs.spark.fs.leftover_files`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from storage.catalogs.copying import DatabaseDefinition
from storage.catalogs.interface import (
    Column,
    DatabaseObjects,
    Fill,
    FunctionDefinition,
    SwapPlan,
    TableMetadata,
    TableSpec,
    TableVersion,
    ViewDefinition,
)
from storage.catalogs.names import TableName
from storage.catalogs.spark.engine import ENGINE_ERRORS, Engine, LeftoverStrategy, engine_error, inspect_error
from storage.catalogs.spark.executors import orphan_window
from storage.catalogs.spark.fs.file_mover import SparkFileMoves
from storage.catalogs.spark.fs.kept_notes import read_note, remove_note, write_note
from storage.catalogs.spark.fs.leftover_files import SparkLeftovers
from storage.catalogs.spark.fs.version_mover import SparkVersionMoves
from storage.catalogs.spark.hms.definitions import SparkVersions
from storage.catalogs.spark.hms.kind_swap import SparkKindSwap
from storage.catalogs.spark.hms.metastore_client import MetastoreClient
from storage.catalogs.spark.hms.swap import SparkSwap
from storage.catalogs.spark.hms.version_record import recorded_definition, remember_lookup
from storage.catalogs.spark.hms.without_client import WithoutMetastoreClient
from storage.catalogs.spark.session import quiet_pyspark_error_loggers
from storage.catalogs.spark.sql.database_statements import SparkDatabases
from storage.catalogs.spark.sql.function_statements import SparkFunctions
from storage.catalogs.spark.sql.insert_check import check_insert
from storage.catalogs.spark.sql.partition_keep import SparkPartitionKeep
from storage.catalogs.spark.sql.table_alter import SparkTableAlter
from storage.catalogs.spark.sql.table_create import SparkTableCreate
from storage.catalogs.spark.sql.table_statements import SparkTables
from storage.catalogs.spark.sql.view_statements import SparkViews
from storage.catalogs.spark.version_copies import SparkCopying
from storage.errors import NoSuchObjectError


class SparkCatalog:
    """Tables, views, persistent functions and databases of the Hive-backed Spark session catalog
    (``spark_catalog``), on a classic or Spark Connect session. Each method delegates to the part of its concern
    (listed in :mod:`storage.catalogs.spark.catalog`), where its Spark behaviours are described.

    Each method costs one to a few metastore round trips (given per method); answers are kept only within one
    statement (:mod:`storage.catalogs.lookup_scope`), so changes made by other sessions are seen by the next.
    ``leftovers`` says how :meth:`clean_leftovers` and :meth:`settle_rename` touch directories: ``"local"`` with
    Python's file functions (``file:`` locations this process can see), ``"metastore"`` through the Hive metastore
    (any file system the engine reaches; see :meth:`clean_leftovers`), ``"auto"`` picks ``"local"`` for ``file:``
    locations. For a Spark Connect server on another machine with a ``file:`` warehouse, pass ``"metastore"``.
    ``quiet`` silences PySpark's Python-side error loggers (process-wide, see
    :func:`storage.catalogs.spark.session.quiet_pyspark_error_loggers`): every engine error is translated anyway.

    The parts are wired by the session's profile, read here (four round trips the first time a session is seen):
    the metastore-record parts only where the catalog can open a metastore client of its own."""

    def __init__(self, spark: Any, *, leftovers: LeftoverStrategy = "auto", quiet: bool = True) -> None:
        engine = Engine(spark, leftovers)
        if quiet:
            quiet_pyspark_error_loggers()
        self._engine = engine
        profile = engine.profile
        self._leftovers = SparkLeftovers(engine)
        self._alter = SparkTableAlter(engine)
        client = None if profile.metastore_refusal is not None else MetastoreClient(engine)
        self._metastore = client
        keep = SparkPartitionKeep(engine, self._alter, client)
        self._tables = SparkTables(engine, self._leftovers, keep)
        self._create = SparkTableCreate(engine, self._leftovers, self._tables, client)
        self._views = SparkViews(engine)
        self._functions = SparkFunctions(engine)
        self._databases = SparkDatabases(engine)
        self._copying = SparkCopying(engine, client)
        self._hms: SparkSwap | None = None
        """The definition swap where the session has a metastore client (dropping a table or a database while
        keeping its files needs one)."""
        self._swap: SparkSwap | WithoutMetastoreClient
        self._versions: SparkVersions | WithoutMetastoreClient
        self._kinds: SparkKindSwap | WithoutMetastoreClient
        if client is None:
            self._swap = self._versions = self._kinds = WithoutMetastoreClient(engine, profile.metastore_refusal or "")
        else:
            self._hms = self._swap = SparkSwap(engine, client)
            self._versions = SparkVersions(engine, client, self._hms)
            self._kinds = SparkKindSwap(engine, client)

    def close(self) -> None:
        """Close the metastore client this catalog opened (reopened if used again); the session is its owner's."""
        if self._metastore is not None:
            self._metastore.close()

    @property
    def spark(self) -> Any:
        """The session every part works on."""
        return self._engine.spark

    @spark.setter
    def spark(self, session: Any) -> None:
        """Put another object in front of the same session (the benchmark's timing proxy), between calls only: the
        parts stay wired by the session's profile."""
        self._engine.spark = session

    # ---------------- tables (sql.table_statements)

    def exists(self, name: TableName) -> bool:
        """See :meth:`storage.catalogs.spark.sql.table_statements.SparkTables.exists`."""
        return self._tables.exists(name)

    def identity(self, name: TableName) -> str | None:
        """See :meth:`storage.catalogs.spark.sql.table_statements.SparkTables.identity`."""
        return self._tables.identity(name)

    def list_tables(self, db: str) -> list[TableName]:
        """See :meth:`storage.catalogs.spark.sql.table_statements.SparkTables.list_tables`."""
        return self._tables.list_tables(db)

    def default_location(self, name: TableName) -> str | None:
        """See :meth:`storage.catalogs.spark.engine.Engine.default_location`."""
        return self._engine.default_location(name)

    def drop_table_drops_views(self) -> bool:
        """What the session's Spark line does (:attr:`~storage.catalogs.spark.profiles.facts.VersionFacts.
        drop_table_drops_views`; the profile is read once per session)."""
        return self._engine.profile.facts.drop_table_drops_views

    def no_such_function(self, name: TableName) -> NoSuchObjectError:
        """See :meth:`storage.catalogs.interface.Catalog.no_such_function` (the session's profile names the
        condition)."""
        return NoSuchObjectError.function(f"function {name} does not exist", str(name),
                                          condition=self._engine.profile.facts.missing_function_condition)

    def orphan_window(self) -> float | None:
        """See :func:`storage.catalogs.spark.executors.orphan_window` (read once per SparkContext)."""
        return orphan_window(self._engine.jvm)

    def table_location(self, name: TableName) -> str | None:
        """See :meth:`storage.catalogs.spark.sql.table_statements.SparkTables.table_location`."""
        return self._tables.table_location(name)

    def file_mover(self) -> SparkFileMoves:
        """INSERT INTO's files (:mod:`storage.catalogs.spark.fs.file_mover`)."""
        return SparkFileMoves(self._engine, self._tables.table_location, self._alter)

    def version_mover(self) -> SparkVersionMoves:
        """A kept version's directory moved aside (:mod:`storage.catalogs.spark.fs.version_mover`)."""
        return SparkVersionMoves(self._engine, self.directory_user)

    def insert(self, name: TableName, fill: Fill) -> None:
        """See :meth:`storage.catalogs.spark.sql.table_statements.SparkTables.insert`."""
        self._tables.insert(name, fill)

    def partition_overwrite_mode(self) -> str:
        """See :meth:`storage.catalogs.spark.sql.table_statements.SparkTables.partition_overwrite_mode`."""
        return self._tables.partition_overwrite_mode()

    def rename(self, old: TableName, new: TableName) -> None:
        """See :meth:`storage.catalogs.spark.sql.table_statements.SparkTables.rename`; a managed table away from its
        default
        location (a swapped one) is renamed by :meth:`storage.catalogs.spark.hms.swap.SparkSwap.rename_in_place`."""
        self._engine.forget(old, new)
        if not self._swap.rename_in_place(old, new):
            self._tables.rename(old, new)
            if old.is_reserved and not new.is_reserved:  # a work table under the user's name: its tag hidden now
                self._create.hide_visible_tag(new)

    def settle_rename(self, old: TableName, new: TableName) -> None:
        """See :meth:`storage.catalogs.spark.sql.table_statements.SparkTables.settle_rename`."""
        self._tables.settle_rename(old, new)

    def drop(self, name: TableName, *, expect: str | None = None, before: Callable[[], None] | None = None,
             keep_files: bool = False) -> bool:
        """See :meth:`storage.catalogs.spark.sql.table_statements.SparkTables.drop`; ``keep_files`` (a managed table
        leaves the
        metastore, its files stay) needs the metastore client (:meth:`SparkSwap.drop_keeping_files`), else the files
        go with it as Spark's DROP deletes them."""
        hms = self._hms if keep_files else None
        remove = (lambda table: hms.drop_keeping_files(table, expect)) if hms is not None else None
        try:
            return self._tables.drop(name, expect=expect, before=before, remove=remove)
        except NoSuchObjectError:
            if hms is not None and hms.drop_holder(name, expect):  # a partitioned drop cut after its rename
                return True
            raise

    def check_current_catalog(self) -> None:
        """See :meth:`storage.catalogs.spark.engine.Engine.check_current_catalog`."""
        self._engine.check_current_catalog()

    # ---------------- definition swap (hms.swap)

    def plan_swap(self, orig: TableName, tmp: TableName, *, keep_statistics: bool = False) -> SwapPlan:
        """See :meth:`storage.catalogs.spark.hms.swap.SparkSwap.plan`."""
        return self._swap.plan(orig, tmp, keep_statistics=keep_statistics)

    def plan_empty_swap(self, orig: TableName, tmp: TableName, tag: str) -> SwapPlan:
        """See :meth:`storage.catalogs.spark.hms.swap.SparkSwap.plan_empty`."""
        return self._swap.plan_empty(orig, tmp, tag)

    def exchange_definitions(self, orig: TableName, tmp: TableName, plan: SwapPlan, *,
                             between: Callable[[], None]) -> None:
        """See :meth:`storage.catalogs.spark.hms.swap.SparkSwap.exchange`."""
        self._swap.exchange(orig, tmp, plan, between)

    def restore_definition(self, orig: TableName, holder: TableName, orig_tag: str | None) -> None:
        """See :meth:`storage.catalogs.spark.hms.swap.SparkSwap.restore`."""
        self._swap.restore(orig, holder, orig_tag)

    def version_of(self, name: TableName) -> TableVersion | None:
        """See :mod:`storage.catalogs.spark.hms.definitions`."""
        return self._versions.version_of(name)

    def install_refusal(self, name: TableName, definition: str) -> str | None:
        """See :mod:`storage.catalogs.spark.hms.definitions`."""
        return self._versions.install_refusal(name, definition)

    def install_version(self, name: TableName, definition: str, tag: str | None, *, create: bool) -> None:
        """See :meth:`storage.catalogs.spark.hms.definitions.SparkVersions.install_version`."""
        self._versions.install_version(name, definition, tag, create=create)

    def data_size(self, location: str) -> int | None:
        """See :meth:`storage.catalogs.spark.hms.definitions.SparkVersions.data_size`."""
        return self._versions.data_size(location)

    def forget_table(self, name: TableName, *, expect: str) -> bool:
        """See :meth:`storage.catalogs.spark.hms.swap.SparkSwap.forget`; where ``name`` is not the table of
        ``expect``, the holder a cut creation of it left (:meth:`SparkSwap.forget_making_holder`)."""
        return self._swap.forget(name, expect) or self._swap.forget_making_holder(name, expect)

    # ------------------------------------------------------------ kind exchange (storage.catalogs.spark.hms.kind_swap)

    def relation_tag(self, name: TableName) -> str | None:
        """See :meth:`storage.catalogs.spark.hms.kind_swap.SparkKindSwap.relation_tag`."""
        return self._kinds.relation_tag(name)

    def kind_refusal(self, orig: TableName, tmp: TableName) -> str | None:
        """See :meth:`storage.catalogs.spark.hms.kind_swap.SparkKindSwap.kind_refusal`."""
        return self._kinds.kind_refusal(orig, tmp)

    def exchange_kinds(self, orig: TableName, tmp: TableName, holder_tag: str, *,
                       between: Callable[[], None]) -> str | None:
        """See :meth:`storage.catalogs.spark.hms.kind_swap.SparkKindSwap.exchange_kinds`."""
        return self._kinds.exchange_kinds(orig, tmp, holder_tag, between)

    def restore_kind(self, orig: TableName, holder: TableName, orig_tag: str | None) -> None:
        """See :meth:`storage.catalogs.spark.hms.kind_swap.SparkKindSwap.restore_kind`."""
        self._kinds.restore_kind(orig, holder, orig_tag)

    def delete_data(self, location: str, owner: TableName) -> str | None:
        """Delete a table version's directory once the metastore proves that nothing uses it (see
        ``Catalog.delete_data``; :meth:`MetastoreClient.user_of` looks at every database, table and partition), then
        :meth:`storage.catalogs.spark.fs.leftover_files.SparkLeftovers.delete_directory`. Without the metastore client
        (Spark
        Connect) nothing can be proven: the directory is kept and the reason returned."""
        user = self.directory_user(location)
        if user is not None:
            return user
        return self._leftovers.delete_directory(location, owner)

    # ------------------------------------------------ kept directories (storage.catalogs.kept_directories)

    def directory_user(self, location: str) -> str | None:
        """:meth:`MetastoreClient.user_of`; without the metastore client nothing can be proven (a reason)."""
        return self._swap.user_of(location)

    def write_kept_note(self, location: str, text: str) -> bool:
        """See :func:`storage.catalogs.spark.fs.kept_notes.write_note`."""
        return write_note(self._engine, location, text)

    def remove_kept_note(self, location: str) -> None:
        """See :func:`storage.catalogs.spark.fs.kept_notes.remove_note`."""
        remove_note(self._engine, location)

    def read_kept_note(self, location: str) -> str | None:
        """See :func:`storage.catalogs.spark.fs.kept_notes.read_note`."""
        return read_note(self._engine, location)

    # ---------------- create (sql.table_create)

    def check_alter(self, name: TableName, clause: str) -> None:
        """See :meth:`storage.catalogs.spark.sql.table_alter.SparkTableAlter.check_alter`."""
        self._alter.check_alter(name, clause)

    def check_insert(self, name: TableName, fill: Fill) -> None:
        check_insert(self._engine.spark, name, fill)  # storage.catalogs.spark.sql.insert_check

    def check_create(self, spec: TableSpec, name: TableName | None = None) -> None:
        """See :meth:`storage.catalogs.spark.sql.table_create.SparkTableCreate.check_create`."""
        self._create.check_create(spec, name)

    def create(self, name: TableName, spec: TableSpec, tag: str) -> None:
        """See :meth:`storage.catalogs.spark.sql.table_create.SparkTableCreate.create`; an empty copy (``spec.copy``)
        of a
        managed data source table is one metastore call instead (:meth:`SparkSwap.clone_empty`)."""
        self._engine.forget(name)  # a lookup of this statement found it free
        if spec.copy and spec.like is not None and spec.alter is not None:
            self._swap.clone_altered(spec.like, name, tag, spec.alter)
            return
        if spec.copy and spec.like is not None:
            if self._swap.clone_empty(spec.like, name, tag):
                return
            spec = spec.copied(self.table_metadata(spec.like))
        self._create.create(name, spec, tag)

    def clean_leftovers(self, name: TableName) -> bool:
        """See :meth:`storage.catalogs.spark.fs.leftover_files.SparkLeftovers.clean_leftovers`."""
        return self._leftovers.clean_leftovers(name)

    # ---------------- ALTER TABLE (sql.table_alter)

    def table_metadata(self, name: TableName) -> TableMetadata | None:
        """See :meth:`storage.catalogs.spark.sql.table_alter.SparkTableAlter.table_metadata`."""
        return self._alter.table_metadata(name)

    def recorded_definition(self, name: TableName) -> tuple[str, TableMetadata] | None:
        """See :mod:`storage.catalogs.spark.hms.version_record` (a classic session: one call), else DESCRIBE."""
        jvm = self._engine.jvm
        if jvm is not None:
            try:
                found = recorded_definition(jvm, name)
            except ENGINE_ERRORS as error:
                raise engine_error(inspect_error(error), f"cannot read the definition of {name}", name) from None
            if found is not None:
                remember_lookup(self._engine, name, *found)  # the statement's identity check reads no more
            return found
        location, metadata = self._tables.table_location(name), self._alter.table_metadata(name)
        return None if location is None or metadata is None else (location, metadata)

    def set_properties(self, name: TableName, properties: dict[str, str]) -> None:
        """See :meth:`storage.catalogs.spark.sql.table_alter.SparkTableAlter.set_properties`."""
        self._alter.set_properties(name, properties)

    def unset_properties(self, name: TableName, keys: tuple[str, ...]) -> None:
        """See :meth:`storage.catalogs.spark.sql.table_alter.SparkTableAlter.unset_properties`."""
        self._alter.unset_properties(name, keys)

    def set_view_properties(self, name: TableName, properties: dict[str, str]) -> None:
        """See :meth:`storage.catalogs.spark.sql.view_statements.SparkViews.set_view_properties`."""
        self._views.set_view_properties(name, properties)

    def unset_view_properties(self, name: TableName, keys: tuple[str, ...]) -> None:
        """See :meth:`storage.catalogs.spark.sql.view_statements.SparkViews.unset_view_properties`."""
        self._views.unset_view_properties(name, keys)

    def set_view_schema_mode(self, name: TableName, mode: str) -> None:
        """See :meth:`storage.catalogs.spark.sql.view_statements.SparkViews.set_view_schema_mode`."""
        self._views.set_view_schema_mode(name, mode)

    def set_column_comment(self, name: TableName, column: str, comment: str) -> None:
        """See :meth:`storage.catalogs.spark.sql.table_alter.SparkTableAlter.set_column_comment`."""
        self._alter.set_column_comment(name, column, comment)

    def add_columns(self, name: TableName, columns: tuple[Column, ...], *, text: str | None = None) -> None:
        """See :meth:`storage.catalogs.spark.sql.table_alter.SparkTableAlter.add_columns`."""
        self._alter.add_columns(name, columns, text=text)

    def list_partitions(self, name: TableName, spec: dict[str, str] | None = None) -> list[dict[str, str]]:
        """See :meth:`storage.catalogs.spark.sql.table_alter.SparkTableAlter.list_partitions`."""
        return self._alter.list_partitions(name, spec)

    def add_partition(self, name: TableName, spec: dict[str, str]) -> None:
        """See :meth:`storage.catalogs.spark.sql.table_alter.SparkTableAlter.add_partition`."""
        self._alter.add_partition(name, spec)

    def drop_partition(self, name: TableName, spec: dict[str, str]) -> None:
        """See :meth:`storage.catalogs.spark.sql.table_alter.SparkTableAlter.drop_partition`."""
        self._alter.drop_partition(name, spec)

    # ---------------- views (sql.view_statements)

    def view_definition(self, name: TableName) -> ViewDefinition | None:
        """See :meth:`storage.catalogs.spark.sql.view_statements.SparkViews.view_definition`."""
        return self._views.view_definition(name)

    def stored_view(self, name: TableName, definition: ViewDefinition, *, reanalysed: bool = True) -> ViewDefinition:
        """See :meth:`storage.catalogs.spark.sql.view_statements.SparkViews.stored_view`."""
        return self._views.stored_view(name, definition, reanalysed=reanalysed)

    def view_identity(self, name: TableName) -> str | None:
        """See :meth:`storage.catalogs.spark.sql.view_statements.SparkViews.view_identity`."""
        return self._views.view_identity(name)

    def create_view(self, name: TableName, definition: ViewDefinition, *, replace: bool) -> None:
        """See :meth:`storage.catalogs.spark.sql.view_statements.SparkViews.create_view`."""
        self._views.create_view(name, definition, replace=replace)

    def rename_view(self, old: TableName, new: TableName) -> None:
        """See :meth:`storage.catalogs.spark.sql.view_statements.SparkViews.rename_view`."""
        self._views.rename_view(old, new)

    def drop_view(self, name: TableName) -> None:
        """See :meth:`storage.catalogs.spark.sql.view_statements.SparkViews.drop_view`."""
        self._views.drop_view(name)

    # ---------------- functions (sql.function_statements)

    def function_definition(self, name: TableName) -> FunctionDefinition | None:
        """See :meth:`storage.catalogs.spark.sql.function_statements.SparkFunctions.function_definition`."""
        return self._functions.function_definition(name)

    def create_function(self, name: TableName, definition: FunctionDefinition, *, replace: bool) -> None:
        """See :meth:`storage.catalogs.spark.sql.function_statements.SparkFunctions.create_function`."""
        self._functions.create_function(name, definition, replace=replace)

    def drop_function(self, name: TableName) -> None:
        """See :meth:`storage.catalogs.spark.sql.function_statements.SparkFunctions.drop_function`."""
        self._functions.drop_function(name)

    # ---------------- databases (sql.database_statements)

    def database_exists(self, db: str) -> bool:
        """See :meth:`storage.catalogs.spark.sql.database_statements.SparkDatabases.database_exists`."""
        return self._databases.database_exists(db)

    def database_identity(self, db: str) -> str | None:
        """See :meth:`storage.catalogs.spark.sql.database_statements.SparkDatabases.database_identity`."""
        return self._databases.database_identity(db)

    def tag_database(self, db: str) -> str:
        """See :meth:`storage.catalogs.spark.sql.database_statements.SparkDatabases.tag_database`."""
        return self._databases.tag_database(db)

    def list_objects(self, db: str) -> DatabaseObjects:
        """See :meth:`storage.catalogs.spark.sql.database_statements.SparkDatabases.list_objects`."""
        return self._databases.list_objects(db)

    def create_database(
        self, db: str, *, comment: str | None = None, properties: tuple[tuple[str, str], ...] = ()
    ) -> None:
        """See :meth:`storage.catalogs.spark.sql.database_statements.SparkDatabases.create_database`."""
        self._databases.create_database(db, comment=comment, properties=properties)

    def drop_database(self, db: str, *, keep_files: bool = False) -> None:
        """See :meth:`storage.catalogs.spark.sql.database_statements.SparkDatabases.drop_database`; ``keep_files``
        keeps its files."""
        if keep_files and self._hms is not None:
            if self._engine.database_location(db) is None:
                raise NoSuchObjectError.database(f"database {db} does not exist", db)
            self._hms.drop_database_keeping_files(db)
            return
        self._databases.drop_database(db)

    def database_location(self, db: str) -> str | None:
        """See :meth:`storage.catalogs.spark.engine.Engine.database_location`."""
        return self._engine.database_location(db)

    def database_leftovers_exist(self, db: str) -> bool:
        """See :meth:`storage.catalogs.spark.sql.database_statements.SparkDatabases.database_leftovers_exist`."""
        return self._databases.database_leftovers_exist(db)

    def clean_database_leftovers(self, db: str) -> bool:
        """See :meth:`storage.catalogs.spark.sql.database_statements.SparkDatabases.clean_database_leftovers`."""
        return self._databases.clean_database_leftovers(db)

    # ------------------------------------------------------------------ copying (storage.catalogs.spark.version_copies)

    def list_databases(self) -> list[str]:
        """See :meth:`storage.catalogs.spark.version_copies.SparkCopying.list_databases`."""
        return self._copying.list_databases()

    def database_definition(self, db: str) -> DatabaseDefinition | None:
        """See :meth:`storage.catalogs.spark.version_copies.SparkCopying.database_definition`."""
        return self._copying.database_definition(db)

    def relocated_version(self, definition: str, location: str) -> str:
        """See :meth:`storage.catalogs.spark.version_copies.SparkCopying.relocated_version`."""
        return self._copying.relocated_version(definition, location)

    def copy_version_into(self, name: TableName, source: object, location: str) -> int:
        """See :meth:`storage.catalogs.spark.version_copies.SparkCopying.copy_version_into`."""
        return self._copying.copy_version_into(name, source, location)

    def definition_digest(self, name: TableName) -> str | None:
        """See :meth:`storage.catalogs.spark.version_copies.SparkCopying.definition_digest`."""
        return self._copying.definition_digest(name)

    def row_checksum(self, name: TableName) -> str:
        """See :meth:`storage.catalogs.spark.version_copies.SparkCopying.row_checksum`."""
        return self._copying.row_checksum(name)
