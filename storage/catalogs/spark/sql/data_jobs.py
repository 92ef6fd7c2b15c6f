"""The Spark catalog's :class:`~storage.catalogs.ports.DataJobs` port: CREATE TABLE (the statement for each form of
:class:`~storage.catalogs.interface.TableSpec`: columns, LIKE, AS SELECT, a DataFrame; validated before it runs, and
the clean-up of a failed one; an empty copy made in the metastore instead where it can) and INSERT INTO.

Spark / Hive behaviours this module deals with (Spark 4.0.1, built-in Hive 2.3 metastore client):

* Table and database names must match ``[A-Za-z0-9_]+`` (``INVALID_SCHEMA_OR_RELATION_NAME``); anything else is
  refused at create (:class:`InvalidNameError`). Column names may hold any character.
* A managed table's default location is ``<database location>/<name>``. CREATE refuses it when it exists and is not
  empty (``LOCATION_ALREADY_EXISTS``, a ``SparkRuntimeException``).
* A CTAS whose SELECT fails while running leaves its target directory behind: empty for an unpartitioned table,
  holding ``_temporary/`` for a partitioned one (which blocks the next CREATE of that name). A process killed
  mid-CTAS leaves ``_temporary/`` too. :meth:`SparkDataJobs.create` removes such leftovers of its own failures
  (through :mod:`storage.catalogs.spark.fs.leftover_files`).
* Spark refuses a ``spark.sql.`` property in a statement's TBLPROPERTIES and hides every one from what it reads back
  (DESC, SHOW TBLPROPERTIES, SHOW CREATE TABLE, SHOW TABLE EXTENDED). So the CREATE writes the new table's tag as the
  visible property :data:`~storage.catalogs.interface.TAG_PROPERTY`; where the catalog has a metastore client of its
  own, the tag moves under the hidden :data:`~storage.catalogs.interface.HIDDEN_TAG_PROPERTY`: a work table's in the
  one metastore call that puts it under the user's name (the in-place rename, the swap's or kind exchange's
  install), any other table's in one ``alter_table`` right after its CREATE or after Spark's own RENAME of a work
  table (:meth:`~storage.catalogs.spark.hms.metastore_client.MetastoreClient.hide_visible_tag`). A table the log
  made then describes as plain Spark's. Readers take either key, so a crash before that write (crash point
  ``create.tag_visible``) leaves a table known by its tag, only visibly so. Spark Connect keeps the visible tag.
"""

from __future__ import annotations

import re
import threading
from contextlib import nullcontext
from typing import Any

import attrs

from storage.catalogs import lookup_scope
from storage.catalogs.file_moves import WriteJob
from storage.catalogs.interface import TAG_PROPERTY, Fill, TableSpec
from storage.catalogs.names import RESERVED_PREFIX, TableName, quote_ident
from storage.catalogs.rules import first_duplicate
from storage.catalogs.spark.columns import column_sql
from storage.catalogs.spark.engine import (
    BAD_DEFINITION,
    DATAFRAME_ERRORS,
    ENGINE_ERRORS,
    REDACTED,
    Engine,
    Failure,
    engine_error,
    new_table_label,
    object_label,
    param_name,
    select_sql,
    sql_string_literal,
    substitutes,
)
from storage.catalogs.spark.executors import orphan_window
from storage.catalogs.spark.fs.file_mover import SparkFileMoves
from storage.catalogs.spark.fs.leftover_files import SparkLeftovers
from storage.catalogs.spark.fs.named_jobs import named_job
from storage.catalogs.spark.fs.version_files import copy_version_files
from storage.catalogs.spark.hms.hive_record import HiveTable
from storage.catalogs.spark.hms.metastore_client import MetastoreClient
from storage.catalogs.spark.hms.swap import NewDefinition, SparkSwap, invalidate
from storage.catalogs.spark.hms.without_client import WithoutMetastoreClient
from storage.catalogs.spark.profiles.facts import Cause, Refusal
from storage.catalogs.spark.sql.analysis import CheckedStatement, analysis, run_analysed
from storage.catalogs.spark.sql.insert_check import check_insert, insert_statement
from storage.catalogs.spark.sql.partition_keep import SparkPartitionKeep, insert_error
from storage.catalogs.spark.sql.table_alter import SparkTableAlter
from storage.catalogs.spark.sql.table_statements import SparkTables
from storage.catalogs.spark.sql.version_writes import (
    VersionCreate,
    VersionWrite,
    created_record,
    fallback_record,
    prepare_create,
    prepare_write,
    write_version,
    writes_partitions,
)
from storage.errors import (
    CatalogError,
    EngineOperationError,
    InvalidDefinitionError,
    InvalidNameError,
    NoSuchObjectError,
    ObjectExistsError,
    WrongObjectKindError,
)

_PROVIDER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


class SparkDataJobs:
    """The :class:`~storage.catalogs.ports.DataJobs` port of the Spark catalog.

    ``tables`` identifies and drops what a failed CREATE left; ``leftovers`` removes its files; ``client`` (None on
    Spark Connect or without the Hive metastore) hides the new table's tag; ``swap`` makes an empty copy in the
    metastore; ``alter`` reads a table's metadata and location; ``keep`` copies the kept partitions of an INSERT
    OVERWRITE.
    """

    def __init__(self, engine: Engine, leftovers: SparkLeftovers, tables: SparkTables, client: MetastoreClient | None,
                 *, swap: SparkSwap | WithoutMetastoreClient, alter: SparkTableAlter,
                 keep: SparkPartitionKeep) -> None:
        self._engine = engine
        self._leftovers = leftovers
        self._tables = tables
        self._client = client
        self._swap = swap
        self._alter = alter
        self._keep = keep
        self._checked = threading.local()
        """Per thread: the INSERT :meth:`check_insert` accepted last (``insert``), for :meth:`insert`, and the CREATE
        :meth:`check_create` accepted last under its work name (``create``), for :meth:`create_by_statement`
        (:class:`~storage.catalogs.spark.sql.analysis.CheckedStatement` each)."""

    @property
    def _spark(self) -> Any:
        return self._engine.spark

    def check_create(self, spec: TableSpec, name: TableName | None = None, *, work: TableName | None = None,
                     tag: str = "") -> None:
        """Raise what :meth:`create` would raise for a bad definition of ``name``, without side effects.

        A statement as written (``spec.text``) is parsed and analysed by Spark itself under a check name (see
        :mod:`storage.catalogs.spark.sql.analysis`): whatever Spark refuses is refused with Spark's reason; then the
        LIKE source and the database must exist (Spark checks those only when the statement runs). Under ``work``
        with ``tag`` instead (the work table the statement's create makes of ``spec``): the create then runs the
        plan analysed here, so that Spark analyses the statement once, as its own CREATE does.

        Checks the form, provider, properties, column types (parsed by Spark), partition columns against the
        columns (or the query's / DataFrame's schema), that a LIKE source exists, and that a SELECT analyses
        (``spark.sql`` of the query analyses it without running it). Cannot check: an unknown provider, types a
        provider cannot store, runtime failures.
        """
        self._checked.create = None
        if spec.text is not None:
            self._check_text(spec, name, work, tag)
            return
        self._create_statement(None, spec, "", None)
        if spec.like is not None:
            if not self._engine.occupied(spec.like):  # LIKE takes a view as well
                raise NoSuchObjectError.relation(f"table {spec.like} does not exist", str(spec.like))
            return
        if spec.columns is not None:
            names = [column.name for column in spec.columns]
        elif spec.as_select is not None:
            try:
                names = list(self._spark.sql(select_sql(spec.as_select, None)).schema.names)
            except ENGINE_ERRORS as error:
                raise self._create_error(None, spec, "select", self._engine.failure(error)) from None
        else:
            try:
                names = list(spec.df.schema.names)
            except DATAFRAME_ERRORS as error:
                message = self._engine.failure(error).message if isinstance(error, ENGINE_ERRORS) else "not a DataFrame"
                raise InvalidDefinitionError(f"cannot use the DataFrame: {message}", None, error) from None
        lowered = [column.lower() for column in names]
        twice = first_duplicate(names)
        if twice is not None:
            raise ObjectExistsError.column(f"the column {twice!r} already exists in {names} (named twice)", twice)
        unknown = [column for column in spec.partitioned_by if column.lower() not in lowered]
        if unknown:
            raise InvalidDefinitionError(f"partition columns {unknown} are not among the columns {names}")
        if spec.partitioned_by and len(spec.partitioned_by) >= len(names):
            raise InvalidDefinitionError("cannot partition by every column: a table needs one data column")

    def _check_text(self, spec: TableSpec, name: TableName | None, work: TableName | None, tag: str) -> None:
        assert spec.text is not None
        self._properties_sql(spec, "", name)
        checked = RESERVED_PREFIX + "check" if work is None else work.name
        # the statement's lookup found the name held: its database exists (no metastore call to ask)
        if name is not None and not lookup_scope.held(self._engine, name) and \
                self._engine.database_location(name.db) is None:
            raise NoSuchObjectError.database(f"database {name.db} does not exist", name.db)
        if work is not None:
            target = work.quoted  # the create's own text (its database is the name's)
        elif name is not None:
            target = f"{quote_ident(name.db)}.{quote_ident(checked)}"
        else:
            target = quote_ident(checked)
        statement = spec.text.render(target, self._tag_pair("check" if work is None else tag))
        analysed = analysis(self._spark, statement)
        failure = analysed.failure
        if failure is None and work is not None and analysed.plan is not None:
            self._checked.create = CheckedStatement(statement, analysed.plan)
        if failure is not None and spec.like is not None:
            # Spark 4.3's analyzer resolves the LIKE source (4.0 only when the CREATE runs): a missing one is the
            # NoSuchObjectError it is on 4.0, read with the session's condition table
            failure = attrs.evolve(self._engine.failure(failure.error), analysis=True)
        if failure is not None:
            if name is not None:  # Spark names the check table: say the table's own name
                failure = attrs.evolve(failure, message=failure.message.replace(quote_ident(checked),
                                                                                quote_ident(name.name)))
            raise self._create_error(name, spec, spec.form if spec.like or spec.as_select else "columns",
                                     attrs.evolve(failure, analysis=True)) from None
        if spec.like is not None and not self._engine.occupied(spec.like):
            raise NoSuchObjectError.relation(f"table {spec.like} does not exist", str(spec.like))

    @staticmethod
    def _tag_pair(tag: str) -> str:
        return f"{sql_string_literal(TAG_PROPERTY)}={sql_string_literal(tag)}"

    def create(self, name: TableName, spec: TableSpec, tag: str) -> None:
        """:meth:`create_by_statement`; an empty copy (``spec.copy``) of a managed data source table is one
        metastore call instead (:meth:`SparkSwap.clone_empty`, :meth:`SparkSwap.clone_altered`)."""
        self._engine.forget(name)  # a lookup of this statement found it free
        if spec.copy and spec.like is not None and spec.alter is not None:
            self._swap.clone_altered(spec.like, name, tag, spec.alter)
            return
        if spec.copy and spec.like is not None:
            if self._swap.clone_empty(spec.like, name, tag, partitions_in_files=spec.partitions_in_files):
                if spec.partitions_in_files:
                    self._keep.made_in_files(name)
                return
            spec = spec.copied(self._alter.table_metadata(spec.like))
        self.create_by_statement(name, spec, tag)

    def create_by_statement(self, name: TableName, spec: TableSpec, tag: str) -> None:
        """Create ``name`` as ``spec`` says, with ``tag`` stored as table property :data:`TAG_PROPERTY`.

        All-or-nothing as far as Spark allows: when the statement fails, what it left (a table carrying ``tag``, the
        directory of a failed CTAS) is removed before the error is raised. Files that were at the default location
        *before* block the create (:class:`LeftoverFilesError`) unless ``name`` is one of the DDL log's own
        (reserved prefix): then they are removed and the create retried once. An interrupt (``KeyboardInterrupt``)
        skips the clean-up, the engine may still be writing: recovery runs ``drop`` / ``clean_leftovers``.

        ``like`` copies columns, provider and partitioning of the source (not its properties: give them in
        ``properties``); ``using`` and ``partitioned_by`` do not apply to it; a ``comment`` is set right after the
        CREATE (Spark's CREATE TABLE LIKE has no COMMENT clause), still before anyone knows the table.
        ``as_select`` is the user's query text, ``df`` a
        DataFrame of this session (written through a temporary view).

        Metastore calls: an existence check, then the CREATE (a CTAS also runs a Spark job), then, for a name that
        is not a work name, two that hide the tag; more on failure. A work table (reserved name)
        keeps its tag visible until the one metastore call that puts it under the user's name writes its definition
        with the tag hidden (the rename, the swap's or kind exchange's install): no call of its own.
        """
        if substitutes(name.db) or substitutes(name.name):
            raise InvalidNameError(f"table names containing '${{' are not supported: {name}", str(name))
        checked: CheckedStatement | None = getattr(self._checked, "create", None)
        self._checked.create = None
        if spec.text is not None:
            self._properties_sql(spec, tag, name)
        with self._engine.source_view(spec.df, name) as view:
            statement = self._statement_of(name, spec, tag, view)
            if spec.text is None or spec.text.escaped:
                self._engine.check_literal_mode()
            if not name.is_reserved and self._engine.occupied(name):
                # (a reserved name is a statement's own work name, XID and random token: nothing else has it, and
                # if something did, Spark's CREATE would refuse it with TABLE_OR_VIEW_ALREADY_EXISTS, read as the
                # same error)
                raise ObjectExistsError.relation(f"{name} already exists", str(name))
            self._run_create(name, spec, tag, statement,
                             None if checked is None or checked.statement != statement else checked.plan)
            if spec.text is None and spec.like is not None and spec.comment is not None:
                self._set_like_comment(name, spec.comment, tag)
            if not name.is_reserved:  # a work table's tag is hidden by the call that gives it the user's name
                self._hide_new_tag(name, tag)

    def _statement_of(self, name: TableName, spec: TableSpec, tag: str, view: str | None) -> str:
        """The CREATE statement of ``name`` as ``spec`` says, with ``tag``: the user's text with both written in, or
        the statement made of its parts (a DataFrame read as the temporary view ``view``)."""
        if spec.text is not None:
            return spec.text.render(name.quoted, self._tag_pair(tag))
        return self._create_statement(name, spec, tag, view)

    def _hide_new_tag(self, name: TableName, tag: str) -> None:
        try:
            if self._client is not None:
                self._client.hide_visible_tag(name, tag)
        except CatalogError:
            self._undo_failed_create(name, tag)  # all or nothing, as a failed CREATE
            raise

    def insert(self, name: TableName, fill: Fill, *, job: WriteJob | None = None) -> None:
        """``INSERT INTO name`` the rows of ``fill`` (a SELECT text or a DataFrame of this session), by position.

        Not all-or-nothing under a crash: Spark's job commit moves the task files into the table one by one, so a
        kill during it leaves part of the rows, a kill before it a ``_temporary/`` directory that readers ignore. A
        query that fails adds no rows; a task Spark was still cancelling may leave an (ignored) ``_temporary/``
        directory behind, which is not removed here since other writers may be using it (with ``job``, the
        project's protocol makes the failed job's abort wait for its local tasks first: nothing left). Metastore
        calls: the INSERT and its Spark job (an existence check after a failure). ``fill.partition`` with static values
        becomes the INSERT's ``PARTITION`` clause; ``fill.keep`` is ``SparkPartitionKeep``. A fill of no rows
        (neither SELECT nor DataFrame) that names ``partitions_of`` or ``copy_partitions`` only registers those
        partitions, empty; with rows, they are registered after the rows. ``job``: the id the write job's files are
        named with (:mod:`~storage.catalogs.spark.fs.named_jobs`) and the table's directory the statement logged.
        """
        if fill.files_from is not None:  # a replica's version: its files, as files
            copy_version_files(fill.files_from, self._alter.table_location(name), name, self._spark, fill.files_named)
            self._spark.catalog.refreshTable(name.quoted)
            return
        given = [value for value in (fill.as_select, fill.df, fill.insert_text) if value is not None]
        if not given and fill.empties and fill.keep is not None and fill.partitions_of is not None:
            # no rows: TRUNCATE ... PARTITION's kept partitions, then the emptied ones registered, empty
            self._keep.keep(name, fill)
            self._keep.add_empty(name, fill.partitions_of)
            return
        if not given and fill.keep is None and (fill.partitions_of is not None or fill.copy_partitions):
            if fill.partitions_of is not None:
                # no rows: TRUNCATE's empty partitions only, with the partition directories no record names
                self._keep.add_empty(name, fill.partitions_of, carry_unregistered=True)
            self._keep.add_listed(name, fill.copy_partitions)
            return
        if len(given) != 1:
            raise InvalidDefinitionError("a Fill needs exactly one of as_select, df, insert_text", str(name))
        self._engine.check_literal_mode()
        checked: CheckedStatement | None = getattr(self._checked, "insert", None)
        self._checked.insert = None
        self._engine.forget(name)  # its partitions (and statistics) change
        with self._engine.source_view(fill.df, name) as view:
            # the user's INSERT INTO as written after its table name, or the SELECT with its partition clause
            statement = insert_statement(name, fill, view)
            assert statement is not None  # a SELECT, a text or a DataFrame (checked above)
            try:
                self._run_insert(statement, job, checked)
            except ENGINE_ERRORS as error:
                failure = self._engine.failure(error)
                # Checked only now, after a failure: Spark refuses a missing table or a view before running anything.
                if not self._tables.exists(name):
                    found = self._engine.lookup(name)
                    if found is not None and found.kind == "VIEW":
                        reported = self._engine.profile.conditions.reported[Refusal.INSERT_INTO_VIEW]
                        raise WrongObjectKindError.view_not_table(name, condition=reported) from None
                    raise NoSuchObjectError.relation(f"table {name} does not exist", str(name)) from None
                raise insert_error(name, failure) from None
        self._keep.keep(name, fill)
        if fill.partitions_of is not None:
            self._keep.add_empty(name, fill.partitions_of)
        self._keep.add_listed(name, fill.copy_partitions)

    def _run_insert(self, statement: str, job: WriteJob | None, checked: CheckedStatement | None) -> None:
        """Run ``statement``; in place (``job``), the plan its check analysed when it is that statement's."""
        with nullcontext() if job is None else named_job(self._engine, job.location, job.id):
            if job is not None and checked is not None and checked.statement == statement:
                run_analysed(self._spark, checked.plan)  # right after its check: analysed once, as plain Spark
            else:
                self._spark.sql(statement)

    def prepare_write(self, name: TableName, fill: Fill, directory: str) -> VersionWrite | None:
        """See :func:`storage.catalogs.spark.sql.version_writes.prepare_write` (only with a metastore client of the
        catalog's own: the version is installed by it); a partitioned table's only where its partitions fit
        (:meth:`SparkPartitionKeep.writable_at`)."""
        if self._client is None:
            return None
        if fill.partition and not (writes_partitions(fill) and self._keep.writable_at(
                name, directory, keeps=fill.keep is not None, static=fill.static)):
            return None
        return prepare_write(self._engine, name, fill, directory)

    def write_version(self, name: TableName, job: object) -> None:
        """Run the write job; a partitioned version's records (those written, those kept) held for its install
        (``WrittenPartitions.hold``), with the check of the kept partitions' files it makes first."""
        assert isinstance(job, VersionWrite)
        write_version(self._engine, name, job)
        if job.partitioned and self._client is not None:
            self._client.written.hold(job.directory, self._keep.written_version(
                name, job.directory, keeps=job.keeps, static=dict(job.static_values), replaces=job.replaces))

    def prepare_create(self, name: TableName, work: TableName, spec: TableSpec, tag: str) -> VersionCreate | None:
        """See ``DataJobs.prepare_create``: the CTAS or the CREATE TABLE of columns the check analysed under
        ``work`` with ``tag`` (or, for a definition given in parts, its statement analysed now) as a direct create
        (:func:`~storage.catalogs.spark.sql.version_writes.prepare_create`)."""
        if self._client is None or spec.like is not None or spec.copy \
                or (spec.as_select is None and spec.df is None and spec.columns is None) \
                or substitutes(name.db) or substitutes(name.name):
            return None
        checked: CheckedStatement | None = getattr(self._checked, "create", None)
        # a DataFrame read through a temporary view, dropped once analysed (the plan holds what it read)
        with self._engine.source_view(spec.df, name) as view:
            statement = self._statement_of(work, spec, tag, view)
            if spec.text is not None:
                plan = checked.plan if checked is not None and checked.statement == statement else None
            else:
                analysed = analysis(self._spark, statement)
                plan = analysed.plan if analysed.failure is None else None  # a refusal is the work table's to raise
        job = prepare_create(self._engine, plan)
        if job is not None:
            self._checked.create = None
            self._engine.check_literal_mode()
        return job

    def write_created(self, name: TableName, job: object, tag: str, spec: TableSpec) -> NewDefinition:
        """Run the CTAS :meth:`prepare_create` took as far as its rows (written at its directory, no table made) and
        return the record Spark would create there, as ``name``'s with ``tag`` hidden, with the record Spark falls
        back to where the metastore refuses the first. A failure raises the CREATE's error; what it left (files) is
        the statement's undo's to remove."""
        assert isinstance(job, VersionCreate)
        try:
            record, table = created_record(self._engine, job)
        except ENGINE_ERRORS as error:
            raise self._create_error(name, spec, spec.form, self._engine.failure(error)) from None

        def fallback() -> HiveTable | None:
            found = fallback_record(self._engine, table)
            return None if found is None else found.tagged(name, tag)

        return NewDefinition(record.tagged(name, tag), [], fallback)

    def create_written(self, name: TableName, job: object, tag: str, spec: TableSpec) -> None:
        """Run the CTAS :meth:`prepare_create` took: its rows written at its directory (:meth:`write_created`), then
        ``name`` created there from the record Spark would create, its tag hidden, in one metastore call (the record
        Spark falls back to where the metastore refuses the first). A failure raises the CREATE's error; what it
        left (files) is the statement's undo's to remove."""
        assert self._client is not None
        self._engine.forget(name)
        client = self._client
        self.write_created(name, job, tag, spec).made_by(lambda table: client.create(name, table))
        invalidate(self._engine, name)  # a create of a free name

    def partition_overwrite_mode(self) -> str:
        """The session's ``spark.sql.sources.partitionOverwriteMode`` (what a ``SET`` just changed), lower case."""
        try:
            value = self._spark.conf.get("spark.sql.sources.partitionOverwriteMode", "static")
        except ENGINE_ERRORS as error:
            raise engine_error(self._engine.failure(error), "cannot read the partition overwrite mode", None) from None
        return str(value or "static").strip().lower()

    def check_insert(self, name: TableName, fill: Fill) -> None:
        """See :func:`storage.catalogs.spark.sql.insert_check.check_insert`. The accepted statement's analysed plan
        is kept for this thread's next :meth:`insert`, which runs it if it is the same text."""
        self._checked.insert = check_insert(self._spark, name, fill)

    def file_mover(self) -> SparkFileMoves:
        """INSERT INTO's files (:mod:`storage.catalogs.spark.fs.file_mover`)."""
        return SparkFileMoves(self._engine, self._alter.table_location, self._alter, self._partition_locations)

    def _partition_locations(self, name: TableName) -> dict[tuple[str, ...], str]:
        """Where each partition of ``name`` is, by its values (one metastore call); none without a metastore client
        of its own (Spark Connect, whose INSERT writes aside)."""
        return {} if self._client is None else {p.values: p.location for p in self._client.partitions(name)
                                                 if p.location}

    def orphan_window(self) -> float | None:
        """See :func:`storage.catalogs.spark.executors.orphan_window` (read once per SparkContext)."""
        return orphan_window(self._engine.jvm)

    def _set_like_comment(self, name: TableName, comment: str, tag: str) -> None:
        try:
            self._spark.sql(f"ALTER TABLE {name.quoted} SET TBLPROPERTIES ('comment' = {sql_string_literal(comment)})")
        except ENGINE_ERRORS as error:
            self._undo_failed_create(name, tag)
            raise self._create_error(name, TableSpec(like=name), "like", self._engine.failure(error)) from None

    def _run_create(self, name: TableName, spec: TableSpec, tag: str, statement: str, plan: Any = None) -> None:
        """Run the CREATE ``statement`` (its ``plan`` as its check analysed it, when there is one)."""
        first = None if plan is None else (lambda: run_analysed(self._spark, plan))
        failure = self._leftovers.run_claiming(name, statement, "create", first=first)
        if failure is None:
            return
        if not failure.means(Cause.RELATION_EXISTS):
            self._undo_failed_create(name, tag)
        raise self._create_error(name, spec, spec.form, failure) from None

    def _undo_failed_create(self, name: TableName, tag: str) -> None:
        """After a failed CREATE of a name that did not exist: drop what carries our tag, remove leftover files."""
        try:
            identity = self._tables.identity(name)
            if identity == tag:
                self._tables.drop(name)
            if identity in (tag, None):
                self._leftovers.clean_until_quiet(name)
        except CatalogError:
            pass  # best effort: the caller gets the original error; recovery repeats drop / clean_leftovers

    def _create_statement(self, name: TableName | None, spec: TableSpec, tag: str, view: str | None) -> str:
        """The CREATE statement for ``spec``, validating everything that needs no metastore (``name`` None: check)."""
        try:
            form = spec.form
        except ValueError as error:
            raise InvalidDefinitionError(str(error), object_label(name)) from None
        target = name.quoted if name is not None else quote_ident(RESERVED_PREFIX + "check")
        properties = self._properties_sql(spec, tag, name)
        if form == "columns":
            assert spec.columns is not None
            if not spec.columns:
                raise InvalidDefinitionError(f"{new_table_label(name)} needs at least one column", object_label(name))
            columns = ", ".join(column_sql(column, name) for column in spec.columns)
            statement = (
                f"CREATE TABLE {target} ({columns}){self._using_sql(spec, name)}"
                f"{self._partitioning_sql(spec, name)}{self._comment_sql(spec)}{properties}"
            )
        elif form == "like":
            assert spec.like is not None
            if spec.partitioned_by:
                raise InvalidDefinitionError(
                    f"partitioned_by cannot be given with like (it comes from {spec.like})", object_label(name)
                )
            statement = f"CREATE TABLE {target} LIKE {spec.like.quoted}{properties}"
        else:
            statement = (
                f"CREATE TABLE {target}{self._using_sql(spec, name)}"
                f"{self._partitioning_sql(spec, name)}{self._comment_sql(spec)}{properties} AS "
            )
        if substitutes(statement):
            raise InvalidDefinitionError(
                f"names containing '${{' are not supported (Spark would substitute them) in {new_table_label(name)}",
                object_label(name),
            )
        if spec.as_select is not None:
            return statement + select_sql(spec.as_select, name)
        if spec.df is not None:
            return statement + f"SELECT * FROM {quote_ident(view or RESERVED_PREFIX + 'src')}"
        return statement

    @staticmethod
    def _using_sql(spec: TableSpec, name: TableName | None) -> str:
        """`` USING <provider>``; nothing without one (the session's ``spark.sql.sources.default`` decides)."""
        if spec.using is None:
            return ""
        if not isinstance(spec.using, str) or not _PROVIDER.fullmatch(spec.using):
            raise InvalidDefinitionError(
                f"invalid table provider {spec.using!r} for {new_table_label(name)}", object_label(name)
            )
        return f" USING {spec.using}"

    @staticmethod
    def _partitioning_sql(spec: TableSpec, name: TableName | None) -> str:
        if not spec.partitioned_by:
            return ""
        if any(not isinstance(column, str) or not column for column in spec.partitioned_by):
            raise InvalidDefinitionError(f"empty partition column name for {new_table_label(name)}", object_label(name))
        if len({column.lower() for column in spec.partitioned_by}) != len(spec.partitioned_by):
            raise InvalidDefinitionError(f"duplicate partition column for {new_table_label(name)}", object_label(name))
        return " PARTITIONED BY (" + ", ".join(quote_ident(column) for column in spec.partitioned_by) + ")"

    @staticmethod
    def _comment_sql(spec: TableSpec) -> str:
        return "" if spec.comment is None else f" COMMENT {sql_string_literal(spec.comment)}"

    @staticmethod
    def _properties_sql(spec: TableSpec, tag: str, name: TableName | None) -> str:
        keys = [key for key, _ in spec.properties]
        if TAG_PROPERTY in keys:
            raise InvalidDefinitionError(f"property {TAG_PROPERTY!r} is reserved for the DDL log", object_label(name))
        if any(not isinstance(key, str) or not key for key in keys) or any(
            not isinstance(value, str) for _, value in spec.properties
        ):
            raise InvalidDefinitionError(
                f"table properties of {new_table_label(name)} must be non-empty strings", object_label(name)
            )
        if len(set(keys)) != len(keys):
            raise InvalidDefinitionError(f"duplicate table property for {new_table_label(name)}", object_label(name))
        if any(value == REDACTED for _, value in spec.properties):
            raise InvalidDefinitionError(
                f"a table property of {new_table_label(name)} is {REDACTED!r}: Spark's placeholder for a redacted "
                "value, whose real value cannot be read back",
                object_label(name),
            )
        if not isinstance(tag, str):
            raise InvalidDefinitionError(f"the tag must be a string, not {type(tag).__name__}", object_label(name))
        pairs = [*spec.properties, (TAG_PROPERTY, tag)]
        assignments = ", ".join(f"{sql_string_literal(key)}={sql_string_literal(value)}" for key, value in pairs)
        return f" TBLPROPERTIES ({assignments})"

    def _create_error(self, name: TableName | None, spec: TableSpec, form: str, failure: Failure) -> CatalogError:
        label = new_table_label(name)
        if failure.means(Cause.RELATION_EXISTS):
            return ObjectExistsError.relation(f"{label} already exists", object_label(name))
        if failure.means(Cause.DATABASE_MISSING):
            db = param_name(failure.params.get("schemaName"), 1) or (name.db if name is not None else None)
            return NoSuchObjectError.database(f"database {db} does not exist", db)
        if failure.means(Cause.RELATION_MISSING):
            missing = str(spec.like) if spec.like is not None else param_name(failure.params.get("relationName"))
            return NoSuchObjectError.relation(f"cannot create {label}: {missing or 'a table'} does not exist", missing)
        if name is not None and (
            failure.means(Cause.BAD_NAME)
            or (
                failure.means(Cause.BAD_NAME_SYNTAX)
                and str(failure.params.get("name", "")).lower() in (name.name.lower(), name.db.lower())
            )
        ):
            return InvalidNameError(f"{name} is not a valid Spark table name (letters, digits and _ only)", str(name),
                                    condition=failure.condition)
        if failure.means(Cause.COLUMN_EXISTS):
            twice = first_duplicate(column.name for column in spec.columns or ()) or str(
                failure.params.get("columnName", "")).strip("`")
            return ObjectExistsError.column(
                f"cannot create {label}: the column {twice!r} already exists (named twice)", twice)
        if failure.analysis or failure.means(*BAD_DEFINITION):
            return InvalidDefinitionError(
                f"cannot create {label}: {failure.message}", object_label(name), failure.error
            )
        if form == "select":
            return EngineOperationError(
                f"creating {label} failed while running its query: {failure.message}",
                object_label(name),
                failure.error,
            )
        return EngineOperationError(
            f"creating {label} failed: {failure.message}", object_label(name), failure.error
        )

