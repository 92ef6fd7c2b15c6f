"""The catalog's ports: what the DDL log asks of an engine, cut by role, each a small protocol of its own.

A :class:`Catalog` is a record of one implementation per port. A caller that needs one
role takes that port (``catalog.names``, ``catalog.swaps`` ...), so what a piece of the log depends on is visible in
its signature, and an engine implements each role with the part that has its mechanism (the Spark catalog: one part
per port, :mod:`storage.catalogs.spark.catalog`; the in-memory one: one class per port over one shared state,
:mod:`storage.catalogs.memory`).

* :class:`Names`: tables by name: lookups, identity, locations, RENAME, DROP.
* :class:`DataJobs`: what writes rows: CREATE (all forms, CTAS included) and INSERT, with their checks.
* :class:`Definitions`: a table's definition and location read, and altered piece by piece (ALTER TABLE).
* :class:`Swaps`: the definition swap of a replace (:mod:`replace_table.machine`): ORIG takes TMP's definition.
* :class:`Versions`: a table's whole definition kept and installed again (RESTORE, UNDROP).
* :class:`KindExchange`: a relation's kind changed (view into table, table into view) without the name missing.
* :class:`Directories`: files no table owns: leftovers, kept directories and their notes, deletion once unused.
* :class:`Views`, :class:`Functions`, :class:`Databases`: the other objects.
* :class:`Copies`: what a replica copies from and into another catalog.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

import attrs

from storage.catalogs.copying import DatabaseDefinition
from storage.catalogs.file_moves import FileMover, WriteJob
from storage.catalogs.fill import Fill
from storage.catalogs.interface import (
    Column,
    DatabaseObjects,
    DataSummary,
    FunctionDefinition,
    SwapPlan,
    TableMetadata,
    TableSpec,
    TableVersion,
    ViewDefinition,
)
from storage.catalogs.names import TableName
from storage.catalogs.version_moves import VersionMover
from storage.errors import NoSuchObjectError


class Names(Protocol):
    """Tables by name (a view is not a table: ``exists`` and ``identity`` are about tables)."""

    def exists(self, name: TableName) -> bool: ...

    def identity(self, name: TableName) -> str | None:
        """A string that follows the table through renames and differs between two tables created separately: the
        log's tag property when the table carries one, else a fingerprint of immutable metadata. None when no table
        of that name exists."""
        ...

    def current_identity(self, name: TableName) -> str | None:
        """:meth:`identity` read afresh from the catalog, never from what the statement read of ``name`` before: the
        check right before a statement changes a table it read at its start (a writer outside the log's locks, such
        as plain Spark on the same metastore, may have dropped or replaced it meanwhile)."""
        ...

    def list_tables(self, db: str) -> list[TableName]: ...

    def default_location(self, name: TableName) -> str | None:
        """Where a managed table ``name`` keeps its files unless it moved (None: its database is missing)."""
        ...

    def rename(self, old: TableName, new: TableName, *, keep_directory: bool = False) -> None:
        """:class:`NoSuchObjectError` when ``old`` is missing, :class:`~storage.errors.ObjectExistsError` when ``new``
        exists: never overwrites. ``keep_directory`` (``new`` a work name): the table keeps its directory even where
        the engine's rename would move it (a table at ``old``'s default directory): no data moves."""
        ...

    def settle_rename(self, old: TableName, new: TableName) -> None:
        """Make a rename from ``old`` to ``new`` that may have been cut mid-way consistent again: when the engine
        moves data before it updates the metastore, a kill in between leaves ``old`` in the metastore with its
        data already at ``new``'s location; this moves it back. A no-op when nothing is torn."""
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

    def check_current_catalog(self) -> None:
        """Raise :class:`~storage.errors.CatalogError` unless the engine resolves ``db.name`` in the catalog this one
        manages: the statements name objects as ``db.name``, and a session whose current catalog is another one
        (after ``USE other.ns`` or ``SET CATALOG``) would run them there."""
        ...

    def drop_table_drops_views(self) -> bool:
        """Whether ``DROP TABLE`` of a view drops it, as the engine's own DROP TABLE does (Spark 4.3), rather than
        refusing it (Spark 4.0, the in-memory catalog)."""
        ...

    def relations_read(self, query: str | None = None, frame: object | None = None, *,
                       default_db: str | None = None) -> list[TableName]:
        """The session catalog's tables and views that ``query`` (SQL text; its unqualified names in ``default_db``,
        else in the current database) or ``frame`` (a DataFrame: its analysed plan) reads, as it names them (a view's
        own sources not followed); none for a text that does not parse (the statement's own check says why)."""
        ...


class DataJobs(Protocol):
    """What writes a table's rows: CREATE in all its forms and INSERT, each with the check that runs first."""

    def create(self, name: TableName, spec: TableSpec, tag: str) -> None:
        """Store ``tag`` on the new table (so undo can recognise it), all-or-nothing as far as the engine allows:
        a failure raises and leaves no half-created table behind that ``drop`` + ``clean_leftovers`` cannot
        remove."""
        ...

    def check_create(self, spec: TableSpec, name: TableName | None = None, *, work: TableName | None = None,
                     tag: str = "") -> None:
        """Raise the error ``create`` would raise for a bad definition of ``name`` (None: any name): a missing LIKE
        source, a bad column type, an unknown partition column, a SELECT that does not analyse. No side effect.
        ``work`` and ``tag``: the work table and tag this thread's next ``create`` of ``spec`` makes, which an
        engine that analyses statements may check the statement under, keeping what it made of it for that create."""
        ...

    def insert(self, name: TableName, fill: Fill, *, job: WriteJob | None = None) -> None:
        """Append the rows of ``fill`` to ``name`` (columns by position, as INSERT INTO does), then the rows of the
        partitions ``fill.keep`` keeps (crash point ``fill.keep.before`` in between). ``job``: the id every file the
        write job makes is named with, and the table's directory (only where ``FileMover.names_jobs`` says so)."""
        ...

    def check_insert(self, name: TableName, fill: Fill) -> None:
        """Raise what inserting ``fill`` into ``name`` would raise for what the engine analyses (an engine that reads
        no SQL has nothing to check); no side effect."""
        ...

    def prepare_write(self, name: TableName, fill: Fill, directory: str) -> object | None:
        """The write job of ``fill``'s rows as ``INSERT INTO name`` takes them (columns by position, cast to the
        table's types), made to write into ``directory`` and nothing else: no table, no metastore call. The
        statement's checks run here (what the INSERT would raise for the query); no side effect. None where the
        engine cannot write a version so (the fill keeps partitions, the table is not a file-based one, no handle on
        the engine): the caller builds the version under a TMP table."""
        ...

    def write_version(self, name: TableName, job: object) -> None:
        """Run the write job :meth:`prepare_write` made for ``name``: its directory holds the new version's files
        (all of them once this returns; a failure raises what the INSERT would and may leave files there, which the
        caller's undo removes with the directory)."""
        ...

    def prepare_create(self, name: TableName, work: TableName, spec: TableSpec, tag: str) -> object | None:
        """The CREATE TABLE AS SELECT (or CREATE TABLE of columns) of ``spec`` (checked under ``work`` with ``tag``,
        as :meth:`create` would run it for the work table) made to write ``work``'s directory without creating
        ``work``, so that ``name`` is created there (:meth:`create_written`, or installed on it:
        :meth:`write_created`); reads only. None where the engine cannot (the caller builds the table under
        ``work``)."""
        ...

    def write_created(self, name: TableName, job: object, tag: str, spec: TableSpec) -> object:
        """Run the CTAS :meth:`prepare_create` made as far as its rows (the work table's directory holds them all
        once this returns; no table made) and return the definition the engine would have made of the work table
        there, as ``name``'s with ``tag`` (hidden): the ``handle`` of a :meth:`Swaps.plan_created_swap` plan, which
        :meth:`Swaps.exchange_definitions` installs. A failure raises what the CREATE would; the files it left are
        the caller's undo's (the work table's creation logged first)."""
        ...

    def create_written(self, name: TableName, job: object, tag: str, spec: TableSpec) -> None:
        """Run the CTAS :meth:`prepare_create` made: once this returns, ``name`` exists at the work table's directory
        with its rows, tagged ``tag`` (hidden), created in one metastore call from the record the engine would have
        made of the work table. A failure raises what the CREATE would; its leftovers are the caller's undo's
        (``name`` by its tag, the directory by the work table's creation logged first)."""
        ...

    def partition_overwrite_mode(self) -> str:
        """``static`` or ``dynamic``: the session's ``spark.sql.sources.partitionOverwriteMode`` now (lower case)."""
        ...

    def file_mover(self) -> FileMover:
        """INSERT INTO's files moved into the table one by one (:mod:`storage.catalogs.file_moves`)."""
        ...

    def orphan_window(self) -> float | None:
        """How many seconds a task of a data job this engine ran may go on writing files after its driver died or its
        job was cancelled. None when tasks run inside this process and end with it (Spark's local mode, the
        in-memory catalog): then nothing can write after an undo."""
        ...


class Definitions(Protocol):
    """A table's definition (its location included) read and altered piece by piece (ALTER TABLE), partitions
    included."""

    def table_metadata(self, name: TableName) -> TableMetadata | None: ...

    def table_location(self, name: TableName) -> str | None:
        """Where the files of the table ``name`` live (None: no such table, or a view)."""
        ...

    def recorded_definition(self, name: TableName) -> tuple[str, TableMetadata] | None:
        """The location and metadata of the table ``name`` as a binlog event records the version a statement
        installed, in as few engine calls as the engine allows; None when missing (or a view)."""
        ...

    def set_properties(self, name: TableName, properties: dict[str, str]) -> None: ...

    def unset_properties(self, name: TableName, keys: tuple[str, ...]) -> None:
        """Remove ``keys``; keys that are not set are ignored."""
        ...

    def set_column_comment(self, name: TableName, column: str, comment: str) -> None:
        """Set a column comment; an empty ``comment`` removes it (so undo restores "no comment" exactly)."""
        ...

    def add_columns(self, name: TableName, columns: tuple[Column, ...], *, text: str | None = None) -> None:
        """Add ``columns``; ``text``: the same column list as a statement wrote it, which an engine that runs SQL
        runs as written (its types, NOT NULL, DEFAULT ... are the engine's to accept or refuse)."""
        ...

    def check_alter(self, name: TableName, clause: str) -> None:
        """Raise what ``ALTER TABLE name <clause>`` would raise before it runs (an engine that runs SQL analyses it
        without running it); no side effect."""
        ...

    def list_partitions(self, name: TableName, spec: dict[str, str] | None = None) -> list[dict[str, str]]:
        """The partitions of ``name`` (values as the metastore stores them, NULL as ``__HIVE_DEFAULT_PARTITION__``);
        with ``spec`` (some partition columns) only those matching it, values compared as the engine compares
        them (``k='01'`` matches ``k=1`` of an INT column)."""
        ...

    def add_partition(self, name: TableName, spec: dict[str, str]) -> None:
        """Add an (empty) partition; an existing one is left alone."""
        ...

    def add_partitions(self, name: TableName, specs: list[dict[str, str]]) -> None:
        """Add (empty) partitions in one call, each spec naming every partition column; existing ones are left
        alone."""
        ...

    def drop_partition(self, name: TableName, spec: dict[str, str]) -> None:
        """Drop a partition with its data; a missing one is ignored."""
        ...

    def drop_partitions(self, name: TableName, specs: list[dict[str, str]]) -> None:
        """Drop, with their data, every partition each of ``specs`` matches (a spec may name some of the partition
        columns, values compared as :meth:`list_partitions` compares them); missing ones are ignored."""
        ...


class Swaps(Protocol):
    """The definition swap: a replace that never removes the name (see :mod:`replace_table.machine`)."""

    def plan_swap(self, orig: TableName, tmp: TableName, *, keep_statistics: bool = False) -> SwapPlan:
        """What :meth:`exchange_definitions` needs, read once (a few metastore reads): why ``orig`` and ``tmp``
        cannot take part in it (the engine cannot change a whole definition in one call, a table's definition does
        not hold all of it, or the two differ in what the engine cannot change: partition keys), or ORIG's whole
        definition to keep in the log before the exchange (what undo puts back). ``keep_statistics``: ORIG keeps
        its own statistics until the update Spark's in-place statement makes of them (INSERT OVERWRITE, TRUNCATE:
        ``SwapPlan.updates_statistics``), else the engine counts the new version's files (a new table, as a CTAS;
        an ALTER)."""
        ...

    def plan_empty_swap(self, orig: TableName, tmp: TableName, tag: str, *,
                        emptied: Sequence[Mapping[str, str]] | None = None) -> SwapPlan:
        """TRUNCATE without a TMP table: ORIG's whole definition (properties, comment and statistics kept, the
        statistics then updated as Spark's TRUNCATE updates them: ``SwapPlan.updates_statistics``), emptied, at a
        new empty directory (``tmp``'s default location, which :meth:`exchange_definitions` makes: the caller logs
        ``tmp``'s creation first, whose undo removes it), identity ``tag``, installed in one call; and ORIG's
        definition to log. Reads only. A refusal where the catalog cannot: a partitioned table (its partitions stay
        registered, built under TMP), no handle on the metastore, an external or Hive serde table,
        files at the directory. ``emptied`` (``TRUNCATE TABLE ... PARTITION``): only these partitions (values as
        :meth:`Definitions.list_partitions` gives them) are emptied; every other partition's files go into the new
        version whole (``SwapPlan.kept``)."""
        ...

    def plan_write_swap(self, orig: TableName, tmp: TableName, tag: str) -> SwapPlan:
        """INSERT OVERWRITE without a TMP table: :meth:`plan_empty_swap`'s plan, whose directory (``plan.directory``)
        the statement's write job makes and fills (:meth:`DataJobs.prepare_write`) before the install, and whose
        installed definition keeps ORIG's statistics until the update Spark's INSERT OVERWRITE makes of them. Reads
        only; the same refusals, but a partitioned table whose partitions are metastore records is planned (ORIG's
        partitions listed for the log; the write job gives the new version's, held for the install)."""
        ...

    def plan_created_swap(self, orig: TableName, tmp: TableName) -> SwapPlan:
        """CREATE OR REPLACE AS SELECT of an unpartitioned table without a TMP table: ORIG's definition to log, and
        ``tmp``'s default directory (``plan.directory``), which the statement's CTAS writes
        (:meth:`DataJobs.prepare_create`), its definition the plan's ``handle`` once written
        (:meth:`DataJobs.write_created`). Reads only; the refusals of :meth:`plan_empty_swap`."""
        ...

    def exchange_definitions(self, orig: TableName, tmp: TableName, plan: SwapPlan, *,
                             between: Callable[[], None]) -> None:
        """ORIG takes TMP's definition, its data location included, in one metastore call (a partitioned table: one
        more for its partitions): a reader resolves ORIG to the old table or to the new one, whole, never to
        nothing. TMP stays as it is (its removal, files kept, is the caller's). ``between`` runs right before the
        call. ORIG's old definition is not kept by the catalog: the caller logged it (``plan.old``) and undoes with
        :meth:`Versions.install_version`. The session's cached relation of ORIG is refreshed."""
        ...

    def settle_statistics(self, name: TableName, previous: TableName) -> None:
        """``name`` (a new version the rename path just made, of a statement Spark runs in place) takes the
        statistics ``previous`` (its old version) has, then what the engine's in-place statement does to them
        after its write (``SwapPlan.updates_statistics``); nothing where neither has any to keep or change."""
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


class Versions(Protocol):
    """Table versions: a table's whole definition kept in the log and installed again (RESTORE, UNDROP:
    :mod:`actions.kept_versions`)."""

    def version_of(self, name: TableName) -> TableVersion | None:
        """The managed table ``name``'s whole definition as the engine stores it (partitions included), to keep in
        the log; None when there is no such table or its definition cannot be kept whole (external, Hive serde,
        no handle on the metastore)."""
        ...

    def definition_to_create(self, name: TableName) -> str | None:
        """The managed table ``name``'s whole definition for a new table to be created with by
        :meth:`install_version` (a work table becoming the table a CREATE names, its files where they are): what
        :meth:`version_of` gives, and an unpartitioned Hive serde table's too (created whole it needs no schema
        change, which is what keeps a Hive serde table out of a swap). None where it cannot be (no such table,
        external, a partitioned Hive serde table, no handle on the metastore)."""
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

    def data_summary(self, location: str) -> DataSummary | None:
        """The data files under ``location`` (None when they cannot be known): what a kept version holds."""
        ...


class KindExchange(Protocol):
    """A relation's kind changed (a view into a table, a table into a view) without the name ever missing: the
    definition swap of :mod:`replace_table.machine`, across kinds."""

    def relation_tag(self, name: TableName) -> str | None:
        """The identity tag property of the table or view ``name`` (None: no such relation, or it has none)."""
        ...

    def kind_refusal(self, orig: TableName, tmp: TableName) -> str | None:
        """Why ORIG cannot take TMP's definition of the other kind in one call (None when it can)."""
        ...

    def exchange_kinds(self, orig: TableName, tmp: TableName, holder_tag: str, *,
                       between: Callable[[], None]) -> str | None:
        """TMP becomes the holder of ORIG's definition (a view stays a view, a table becomes external: dropping the
        holder never deletes ORIG's files), tagged ``holder_tag``; then ORIG takes TMP's former definition, of the
        other kind, in one metastore call: a reader resolves ORIG to the old relation or the new one, never to
        nothing. ``between`` runs between the two. Returns ORIG's old data location (None for a view)."""
        ...

    def restore_kind(self, orig: TableName, holder: TableName, orig_tag: str | None) -> None:
        """ORIG := the definition ``holder`` keeps, of its own kind (a table managed again with ``orig_tag``): the
        undo of :meth:`exchange_kinds`."""
        ...


class Directories(Protocol):
    """Files no table owns: leftovers at a name's default location, kept directories (their notes,
    :mod:`storage.catalogs.kept_directories`), and their deletion or move once nothing uses them."""

    def clean_leftovers(self, name: TableName) -> bool:
        """Remove the default managed location of ``name`` when no table of that name exists (a failed CTAS, a drop
        cut between metastore and files, a rename cut mid-move), and return whether it removed anything. Only called
        for names the DDL log owns."""
        ...

    def delete_data(self, location: str, owner: TableName) -> str | None:
        """Delete a table version's directory once nothing uses it (the old data of a swap, a dropped table's files,
        after the grace period), proving ownership first: the directory must lie under ``owner``'s database
        location, and no database may be located at or under it, no table or partition at, under or above it (a
        table someone registered there since, in any database). Returns why it was kept; None when it was deleted
        (or was gone already)."""
        ...

    def directory_user(self, location: str) -> str | None:
        """What in the catalog uses ``location`` (a database at or under it, a table or partition at, under or above
        it), in words; None when nothing does. The proof :meth:`delete_data` makes before deleting."""
        ...

    def write_kept_note(self, location: str, text: str) -> bool:
        """Write ``text`` as the kept note inside the directory ``location``, replacing an earlier note; False
        (nothing written) when the directory is gone or the engine has no way to write there."""
        ...

    def remove_kept_note(self, location: str) -> None:
        """Remove the note from ``location`` (nothing when there is none): the directory is a table's again."""
        ...

    def read_kept_note(self, location: str) -> str | None:
        """The note inside ``location`` (None: none, or no way to read there): how a home tells a directory that
        *another* home's log keeps (drivers share one catalog, each its own log) from a leftover."""
        ...

    def version_mover(self) -> VersionMover:
        """A kept version's directory moved aside (:mod:`storage.catalogs.version_moves`)."""
        ...


class Views(Protocol):
    """Persistent views (a view name is not a table: :class:`Names` does not see them)."""

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

    def current_view_identity(self, name: TableName) -> str | None:
        """:meth:`view_identity` read afresh, never from what the statement read of ``name`` before (see
        :meth:`Names.current_identity`)."""
        ...

    def create_view(self, name: TableName, definition: ViewDefinition, *, replace: bool) -> None: ...

    def rename_view(self, old: TableName, new: TableName) -> None: ...

    def drop_view(self, name: TableName) -> None: ...

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


class Functions(Protocol):
    """Persistent functions."""

    def function_definition(self, name: TableName) -> FunctionDefinition | None: ...

    def create_function(self, name: TableName, definition: FunctionDefinition, *, replace: bool) -> None: ...

    def drop_function(self, name: TableName) -> None: ...

    def no_such_function(self, name: TableName) -> NoSuchObjectError:
        """What the engine's own ``DROP FUNCTION`` of the missing function ``name`` raises (its condition is the
        Spark line's)."""
        ...


class Databases(Protocol):
    """Databases, their identity tags and their directories."""

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


class Copies(Protocol):
    """What a replica copies into and reads from: a table version of another catalog (its whole definition, moved
    to a directory of the replica, and its files), the databases with their definitions, a checksum of a table's
    rows. A replica's bootstrap, ``check`` and ``resync`` use nothing else beside the other ports."""

    def list_databases(self) -> list[str]:
        """Every database's name, sorted."""
        ...

    def database_definition(self, db: str) -> DatabaseDefinition | None:
        """The comment and properties of ``db`` (None when it is missing)."""
        ...

    def relocated_version(self, definition: str, location: str) -> str:
        """``definition`` (a :meth:`Versions.version_of`'s, maybe another catalog's) with its data at ``location``:
        its partitions' directories under the old location move under the new one alike. A partition located
        elsewhere is refused (:class:`~storage.errors.NotAtomicError`): its files would be shared, not copied."""
        ...

    def copy_version_into(self, name: TableName, source: object, location: str) -> int:
        """Copy the data files of the version at ``location`` (partition directories included, as files: no job)
        into the directory of the table ``name`` (a table made by :meth:`relocated_version`'s definition).
        ``source``: the catalog whose storage holds ``location`` (None: a file system this process reaches).
        Returns the number of files copied."""
        ...

    def definition_digest(self, name: TableName) -> str | None:
        """The table's definition normalised for comparison with another catalog's copy of it (wherever its files
        are; statistics, times and the log's tag left out), as text; None when there is no such table (or the
        engine cannot say: then it is not compared)."""
        ...

    def row_checksum(self, name: TableName) -> str:
        """The number of rows of ``name`` and an order-independent hash of them, as text: equal for equal rows."""
        ...


class Backend(Protocol):
    """What a catalog's ports share (the Spark engine and its metastore client, the in-memory state)."""

    def close(self) -> None:
        """Release what the catalog opened beside its engine (never the engine's session)."""
        ...


@attrs.frozen
class Catalog:
    """The catalog the DDL log acts on: one implementation per port (:mod:`storage.catalogs.ports`), by role. A
    caller that needs one role takes that port; ``backend`` is what the ports share, closed by :meth:`close`."""

    names: Names
    data: DataJobs
    definitions: Definitions
    swaps: Swaps
    versions: Versions
    kinds: KindExchange
    directories: Directories
    views: Views
    functions: Functions
    databases: Databases
    copies: Copies
    backend: Backend = attrs.field(eq=False, repr=False)

    def close(self) -> None:
        """Close what the catalog opened beside its engine (the Spark catalog's metastore client; reopened if used
        again); the session is its owner's."""
        self.backend.close()
