"""ALTER TABLE, the Spark catalog's :class:`~storage.catalogs.ports.Definitions` port: table metadata and location,
properties, column comments, added columns and partitions.

Spark 4.0.1 / Hive metastore behaviours this module deals with:

* ``DESCRIBE TABLE ... AS JSON`` reports column types in its own JSON shape and reports CHAR/VARCHAR columns as
  ``string``; the DataFrame schema of the table (``spark.table(name).schema``, which resolves the table without
  reading data) has exact types, column comments in the field metadata and the declared CHAR/VARCHAR type in
  ``__CHAR_VARCHAR_TYPE_STRING``. Columns come from the schema, everything else from the JSON.
* ``ALTER TABLE ... ALTER COLUMN c COMMENT ''`` stores an empty comment; there is no statement that removes one. An
  empty comment is reported as ``None`` (so "set to empty" is the exact undo of "had no comment"). Comments of
  partition columns cannot be changed (``CANNOT_ALTER_PARTITION_COLUMN``).
* ``DESCRIBE ... AS JSON`` leaves out table properties whose value is empty; ``SHOW TBLPROPERTIES`` lists them
  (and a Hive table's storage properties as ``option.<key>``), so properties are read from the latter.
* Table properties: Spark hides its own ``spark.sql.*`` keys (and refuses to set them), refuses ``provider``,
  ``location``, ``owner``, ``external`` and ``EXTERNAL``; ``comment`` is the table comment. The Hive metastore adds
  ``transient_lastDdlTime`` and statistics keys (``numFiles``, ``totalSize`` ...), which it maintains itself and
  silently drops when a user sets them on a data source table. :data:`INTERNAL_PROPERTIES` are not reported and
  cannot be set here.
* Spark redacts every property whose key or value matches ``spark.redaction.regex`` (a static setting; by default
  ``(?i)secret|password|token|access[.]?key``) in all its outputs, ``SHOW TBLPROPERTIES`` included:
  ``table_metadata`` reads such a value from the session catalog's record instead (a classic session; on Spark
  Connect it stays :data:`~storage.catalogs.spark.engine.REDACTED`), and ``set_properties`` (like ``create``) refuses
  to write that placeholder.
* ``SHOW PARTITIONS`` prints Hive's escaped directory names (``p=a%2Fb``); values are unescaped. Spark casts a
  partition value to its column's type when it stores it, so ``q='01'`` of an INT column is listed as ``1``. A NULL
  partition value is listed as ``__HIVE_DEFAULT_PARTITION__``; an empty value is refused.
* ``DROP PARTITION ... PURGE`` of a managed table deletes the partition's directory (and parent directories it
  leaves empty); an external table keeps its files (Spark semantics).
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import attrs

from storage.catalogs.interface import Column, TableMetadata
from storage.catalogs.names import TableName, quote_ident
from storage.catalogs.rules import first_duplicate
from storage.catalogs.spark.columns import column_sql, schema_columns
from storage.catalogs.spark.engine import (
    ENGINE_ERRORS,
    REDACTED,
    Engine,
    Failure,
    engine_error,
    inspect_error,
    object_kind,
    sql_string_literal,
    substitutes,
)
from storage.catalogs.spark.fs.file_mover import parse_partition
from storage.catalogs.spark.hms.installed_records import installed_record
from storage.catalogs.spark.hms.metastore_client import MetastoreClient
from storage.catalogs.spark.hms.partition_values import metastore_values
from storage.catalogs.spark.hms.version_record import (
    raw_recorded_definition,
    record_recorded_definition,
    recorded_definition,
    remember_lookup,
)
from storage.catalogs.spark.jvm import scala_map, tables_by_name
from storage.catalogs.spark.profiles.facts import Cause, Refusal
from storage.catalogs.spark.sql.analysis import CheckedStatement, analysis, run_analysed
from storage.errors import (
    CatalogError,
    InvalidDefinitionError,
    InvalidNameError,
    NoSuchObjectError,
    ObjectExistsError,
    UnrenderedSchemaError,
    WrongObjectKindError,
)

INTERNAL_PROPERTIES = frozenset(
    {
        "transient_lastDdlTime",
        "last_modified_by",
        "last_modified_time",
        "numFiles",
        "numFilesErasureCoded",
        "numRows",
        "numPartitions",
        "rawDataSize",
        "totalSize",
        "COLUMN_STATS_ACCURATE",
        "STATS_GENERATED",
        "STATS_GENERATED_VIA_STATS_TASK",
        "EXTERNAL",
    }
)
"""Table properties the metastore maintains itself: never reported by ``table_metadata``, never set here."""

_INTERNAL_PREFIXES = ("spark.sql.",)
_GONE = (Cause.RELATION_MISSING, Cause.DATABASE_MISSING)
_NOT_A_TABLE = (Cause.VIEW_NOT_TABLE, Cause.WRONG_KIND)
_BAD_PARTITION = (Cause.PARTITION_MISSING, Cause.BAD_PARTITION)


def is_internal_property(key: str) -> bool:
    """Whether ``key`` is a metastore-maintained property (see :data:`INTERNAL_PROPERTIES`)."""
    return key in INTERNAL_PROPERTIES or key.startswith(_INTERNAL_PREFIXES)


class SparkTableAlter:
    """The :class:`~storage.catalogs.ports.Definitions` port of the Spark catalog."""

    def __init__(self, engine: Engine, client: MetastoreClient | None = None) -> None:
        self._engine = engine
        self._client = client
        self._checked = threading.local()
        """Per thread: the ALTER TABLE :meth:`check_alter` accepted last (``alter``), until :meth:`_alter` runs."""

    @property
    def _spark(self) -> Any:
        return self._engine.spark

    # ------------------------------------------------------------------ metadata

    def table_location(self, name: TableName) -> str | None:
        """The location recorded for the table ``name`` (None if missing, or a view). One metastore call: the
        engine's lookup for a managed table (kept for the statement), a DESCRIBE for others."""
        found = self._engine.lookup(name)
        if found is None or found.kind == "VIEW":
            return None
        if found.location:
            return found.location
        info = self._engine.describe(name, expect_present=True)
        if info is None or not info.get("location"):
            return None
        return str(info["location"])

    def recorded_definition(self, name: TableName) -> tuple[str, TableMetadata] | None:
        """See :mod:`storage.catalogs.spark.hms.version_record` (a classic session: one call), else DESCRIBE."""
        jvm = self._engine.jvm
        if jvm is not None:
            raw = self._engine.profile.has_metastore_client and self._engine.profile.catalog_restores
            try:
                if raw and self._client is not None:
                    with contextlib.suppress(UnrenderedSchemaError):  # else read raw through Spark's Hive client
                        record = installed_record(self._engine, name) or self._client.get(name)
                        return record_recorded_definition(self._engine, jvm, name, record)
                if raw:
                    with contextlib.suppress(UnrenderedSchemaError):  # else read through the catalog, as Spark does
                        return raw_recorded_definition(self._engine, jvm, name)
                found = recorded_definition(jvm, name)
            except ENGINE_ERRORS as error:
                raise engine_error(inspect_error(error), f"cannot read the definition of {name}", name) from None
            if found is not None:
                remember_lookup(self._engine, name, *found)  # the statement's identity check reads no more
            return found
        location, metadata = self.table_location(name), self.described_metadata(name)
        return None if location is None or metadata is None else (location, metadata)

    def table_metadata(self, name: TableName) -> TableMetadata | None:
        """Columns (schema order, partition columns last), partitioning, user-visible properties (the DDL log's tag
        included, sorted by key), provider and comment of the table ``name``; None when no table has that name (a
        view is not a table). On a classic session the table's one read record (:meth:`recorded_definition`: one
        metastore call and no Spark statement, where :meth:`described_metadata` makes three: an ALTER TABLE ADD
        COLUMNS spent 110 of its 140 ms reading them twice); else, and for a name that record does not answer
        (missing, a view), :meth:`described_metadata`. The two readings are equal for every kind of table
        (``tests/spark/test_identity_lookup.py``)."""
        if self._engine.jvm is not None:
            found = self.recorded_definition(name)
            if found is not None:  # the record's properties less those the metastore maintains, as described
                metadata = found[1]
                return attrs.evolve(metadata, properties=tuple(
                    (key, value) for key, value in metadata.properties if not is_internal_property(key)))
        return self.described_metadata(name)

    def described_metadata(self, name: TableName) -> TableMetadata | None:
        """:meth:`table_metadata` as Spark's statements describe it: ``DESCRIBE ... AS JSON``, the schema of
        ``spark.table`` and ``SHOW TBLPROPERTIES`` (three metastore calls), on any session.

        Column types are Spark DDL type strings (:func:`~storage.catalogs.spark.columns.type_sql`; the declared type
        for CHAR/VARCHAR columns); an empty column comment is reported as ``None``. Nested ``NOT NULL`` is not kept
        by Spark for data source tables and not reported.
        """
        info = self._engine.describe(name, expect_present=True)
        if info is None or object_kind(info) == "VIEW":
            return None
        try:
            schema = self._spark.table(name.quoted).schema
        except ENGINE_ERRORS as error:
            failure = self._engine.failure(error)
            if failure.means(*_GONE):
                return None  # dropped between the two calls
            raise engine_error(failure, f"cannot read the schema of {name}", name) from None
        columns = schema_columns(schema)
        properties = self._properties(name, info)
        if properties is None:
            return None
        comment = info.get("comment")
        return TableMetadata(
            columns=columns,
            partitioned_by=tuple(str(column) for column in info.get("partition_columns") or ()),
            properties=properties,
            provider=str(info.get("provider") or "hive"),
            comment=None if comment is None else str(comment),
            external=object_kind(info) == "EXTERNAL",
        )

    def _properties(self, name: TableName, info: dict[str, Any]) -> tuple[tuple[str, str], ...] | None:
        """User-visible table properties from ``SHOW TBLPROPERTIES`` (``DESCRIBE ... AS JSON`` leaves out properties
        whose value is empty); it also lists storage properties as ``option.<key>``, which are left out here."""
        try:
            rows = self._spark.sql(f"SHOW TBLPROPERTIES {name.quoted}").collect()
        except ENGINE_ERRORS as error:
            failure = self._engine.failure(error)
            if failure.means(*_GONE):
                return None
            raise engine_error(failure, f"cannot read the properties of {name}", name) from None
        storage = {f"option.{key}" for key in info.get("storage_properties") or {}}
        pairs = {str(row[0]): str(row[1]) for row in rows}
        if REDACTED in pairs.values():
            pairs.update(self._stored_values(name, [key for key, value in pairs.items() if value == REDACTED]))
        return tuple(
            sorted(
                (key, value)
                for key, value in pairs.items()
                if not is_internal_property(key) and key not in storage and key != "comment"
            )
        )

    def _stored_values(self, name: TableName, keys: list[str]) -> dict[str, str]:
        """The stored values of the properties ``keys`` that Spark's outputs redact, from the session catalog's
        record (one metastore call); none on a session without a JVM (Spark Connect), where they stay redacted."""
        jvm = self._engine.jvm
        if jvm is None:
            return {}
        try:
            found = tables_by_name(jvm, name.db, name.name)
            stored = {} if found.isEmpty() else scala_map(jvm, found.head().properties())
        except ENGINE_ERRORS as error:
            raise engine_error(inspect_error(error), f"cannot read the properties of {name}", name) from None
        return {key: str(stored[key]) for key in keys if key in stored}

    # ------------------------------------------------------------------ properties

    def set_properties(self, name: TableName, properties: dict[str, str]) -> None:
        """``ALTER TABLE ... SET TBLPROPERTIES``: one metastore call (an existence check when ``properties`` is
        empty). Keys and values may hold any text. Keys Spark reserves (``provider``, ``location``, ``owner``,
        ``spark.sql.*`` ...) and :data:`INTERNAL_PROPERTIES` raise :class:`InvalidDefinitionError`; ``comment``
        sets the table comment."""
        pairs = list(properties.items())
        for key, value in pairs:
            if not isinstance(key, str) or not key or not isinstance(value, str):
                raise InvalidDefinitionError(f"table properties of {name} must be non-empty strings", str(name))
            if key.startswith(_INTERNAL_PREFIXES):  # Spark's Hive catalog refuses these (its condition, its words)
                raise InvalidDefinitionError.spark_sql_property(
                    f"Cannot persist {name} into Hive metastore as table property keys may not start with "
                    f"'spark.sql.': [{key}]", str(name))
            if is_internal_property(key):
                raise InvalidDefinitionError(
                    f"table property {key!r} is maintained by the metastore and cannot be set on {name}", str(name)
                )
            if value == REDACTED:
                raise InvalidDefinitionError(
                    f"table property {key!r} of {name}: {REDACTED!r} is Spark's placeholder for a redacted value, "
                    "not a value (the real one cannot be read back)",
                    str(name),
                )
        if not pairs:
            self._require_table(name)
            return
        assignments = ", ".join(f"{sql_string_literal(k)}={sql_string_literal(v)}" for k, v in pairs)
        self._alter(name, f"SET TBLPROPERTIES ({assignments})", "set properties of")

    def unset_properties(self, name: TableName, keys: tuple[str, ...]) -> None:
        """``ALTER TABLE ... UNSET TBLPROPERTIES IF EXISTS``: keys that are not set, and metastore-maintained keys
        (which ``table_metadata`` never reports), are ignored. One metastore call (an existence check when there is
        nothing to remove)."""
        if any(not isinstance(key, str) or not key for key in keys):
            raise InvalidDefinitionError(f"table property keys of {name} must be non-empty strings", str(name))
        wanted = [key for key in dict.fromkeys(keys) if not is_internal_property(key)]
        if not wanted:
            self._require_table(name)
            return
        self._alter(
            name,
            f"UNSET TBLPROPERTIES IF EXISTS ({', '.join(sql_string_literal(k) for k in wanted)})",
            "unset properties of",
        )

    # ------------------------------------------------------------------ columns

    def set_column_comment(self, name: TableName, column: str, comment: str) -> None:
        """``ALTER TABLE ... ALTER COLUMN c COMMENT '...'``: one metastore call. An empty ``comment`` stores an empty
        one, which :meth:`table_metadata` reports as ``None`` (Spark cannot remove a comment). A missing column raises
        :class:`NoSuchObjectError` naming it; a partition column :class:`InvalidDefinitionError` (Spark refuses)."""
        if not isinstance(column, str) or not column:
            raise InvalidDefinitionError(f"empty column name for {name}", str(name))
        if not isinstance(comment, str):
            raise InvalidDefinitionError(f"the comment of column {column!r} must be a string", str(name))
        self._check_identifier(name, column)
        self._alter(
            name,
            f"ALTER COLUMN {quote_ident(column)} COMMENT {sql_string_literal(comment)}",
            "set a comment on",
            column=column,
        )

    def add_columns(self, name: TableName, columns: tuple[Column, ...], *, text: str | None = None) -> None:
        """``ALTER TABLE ... ADD COLUMNS``: one metastore call. ``text``: the column list as the statement wrote it,
        run as written (Spark accepts or refuses its types and options as it would the statement's); else types are
        parsed and checked as in ``create``. A column that exists (case-insensitively) raises
        :class:`ObjectExistsError` naming it, and nothing is added. For a partitioned table the new columns go before
        the partition columns."""
        if not columns:
            self._require_table(name)
            return
        if text is not None:
            self._alter(name, f"ADD COLUMNS ({text})", "add columns to", column=columns[0].name)
            return
        twice = first_duplicate(str(c.name) for c in columns)
        if twice is not None:
            raise ObjectExistsError.column(
                f"the column {twice!r} is named twice among the columns added to {name}", twice)
        parts = ", ".join(column_sql(column, name) for column in columns)
        if substitutes(parts):
            raise InvalidDefinitionError(
                f"column names containing '${{' are not supported (Spark would substitute them) in {name}", str(name)
            )
        self._alter(name, f"ADD COLUMNS ({parts})", "add columns to", column=columns[0].name)

    # ------------------------------------------------------------------ partitions

    def list_partitions(self, name: TableName, spec: dict[str, str] | None = None) -> list[dict[str, str]]:
        """The partitions of ``name`` (``SHOW PARTITIONS``, Spark's order), values unescaped; ``[]`` for a table
        that is not partitioned. With ``spec`` (some partition columns), the partitions matching it, Spark
        casting its values to the column types. Without ``spec``, where the session has a metastore client: its
        records of the table and its partitions, kept for the statement (the same values in the same order; no
        Spark command to plan); else one metastore call (and one more to tell a view from a missing table)."""
        if self._client is not None and not substitutes(name.db) and not substitutes(name.name):
            table = installed_record(self._engine, name) or self._client.get(name)
            if spec is None and table is not None and not table.is_view:
                keys = table.partition_column_names
                return [dict(zip(keys, p.values, strict=True)) for p in self._client.partitions(name)] if keys else []
            if spec is not None and table is not None and table.partitioned and not table.is_view:
                names = self._partition_names(name, spec)
                if names is not None:
                    return [parse_partition(found) for found in names]
        return [parse_partition(path) for path in self.partition_paths(name, spec)]

    def _partition_names(self, name: TableName, spec: dict[str, str]) -> list[str] | None:
        """The partitions of the partitioned table ``name`` matching ``spec``, asked of the metastore by the values
        themselves where Spark stores them as written (:mod:`~storage.catalogs.spark.hms.partition_values`: one
        metastore call, the table's types read from its record, which the statement keeps); None where Spark's
        ``SHOW PARTITIONS`` must cast them."""
        assert self._client is not None  # the caller's
        metadata = self.table_metadata(name)
        if metadata is None:
            return None
        types = {column.name.lower(): column.type for column in metadata.columns}
        values = metastore_values([(key, types.get(key.lower(), "")) for key in metadata.partitioned_by], spec)
        return None if values is None else self._client.partition_names(name, values)

    def partition_paths(self, name: TableName, spec: dict[str, str] | None = None) -> list[str]:
        """:meth:`list_partitions` as ``SHOW PARTITIONS`` prints them (``k=a%2Fb/j=1``: the escaped relative path
        Spark gives a partition's directory)."""
        if substitutes(name.db) or substitutes(name.name):
            raise NoSuchObjectError.relation(f"table {name} does not exist", str(name))
        where = f" PARTITION ({self._spec_sql(name, spec)})" if spec else ""
        try:
            rows = self._spark.sql(f"SHOW PARTITIONS {name.quoted}{where}").collect()
        except ENGINE_ERRORS as error:
            failure = self._engine.failure(error)
            if failure.means(Cause.NOT_PARTITIONED):
                return []
            raise self._error(name, failure, "list the partitions of") from None
        return [str(row[0]) for row in rows]

    def add_partitions(self, name: TableName, specs: list[dict[str, str]]) -> None:
        """``ALTER TABLE ... ADD IF NOT EXISTS PARTITION (...) PARTITION (...) ...``: one metastore call, as Spark's
        own INSERT registers the partitions it wrote; existing ones are left alone."""
        clause = " ".join(f"PARTITION ({self._spec_sql(name, spec)})" for spec in specs)
        self._alter(name, f"ADD IF NOT EXISTS {clause}", "add partitions to")

    def add_partition(self, name: TableName, spec: dict[str, str]) -> None:
        """``ALTER TABLE ... ADD IF NOT EXISTS PARTITION``: an existing partition is left alone. ``spec`` names every
        partition column (any case); a bad spec (unknown column, missing column, empty value, a value the column
        type cannot take, an unpartitioned table) raises :class:`InvalidDefinitionError`. One metastore call."""
        self._alter(name, f"ADD IF NOT EXISTS PARTITION ({self._spec_sql(name, spec)})", "add a partition to")

    def drop_partition(self, name: TableName, spec: dict[str, str]) -> None:
        """``ALTER TABLE ... DROP IF EXISTS PARTITION ... PURGE``: a missing partition is ignored; a managed table's
        partition directory is deleted (no trash). A partial ``spec`` drops every partition it matches. One
        metastore call."""
        self.drop_partitions(name, [spec])

    def drop_partitions(self, name: TableName, specs: list[dict[str, str]]) -> None:
        """``ALTER TABLE ... DROP IF EXISTS PARTITION (...), PARTITION (...) ... PURGE``: one Spark statement, as
        :meth:`drop_partition` for each spec (Spark finds every match first, then drops them one by one)."""
        clause = ", ".join(f"PARTITION ({self._spec_sql(name, spec)})" for spec in specs)
        self._alter(name, f"DROP IF EXISTS {clause} PURGE",
                    "drop a partition of" if len(specs) == 1 else "drop partitions of")

    # ------------------------------------------------------------------ helpers

    def _spec_sql(self, name: TableName, spec: dict[str, str]) -> str:
        if not spec:
            raise InvalidDefinitionError(f"empty partition spec for {name}", str(name))
        parts = []
        for key, value in spec.items():
            if not isinstance(key, str) or not key or not isinstance(value, str):
                raise InvalidDefinitionError(f"partition spec of {name} must map column names to strings", str(name))
            self._check_identifier(name, key)
            parts.append(f"{quote_ident(key)}={sql_string_literal(value)}")
        return ", ".join(parts)

    @staticmethod
    def _check_identifier(name: TableName, identifier: str) -> None:
        if substitutes(identifier):
            raise InvalidNameError(
                f"column names containing '${{' are not supported (Spark would substitute them): {identifier!r}",
                identifier,
            )

    def _require_table(self, name: TableName) -> None:
        info = self._engine.describe(name)
        if info is None:
            raise NoSuchObjectError.relation(f"table {name} does not exist", str(name))
        if object_kind(info) == "VIEW":
            reported = self._engine.profile.conditions.reported[Refusal.ALTER_VIEW_AS_TABLE]
            raise WrongObjectKindError.view_not_table(name, "use ALTER VIEW", condition=reported)

    def check_alter(self, name: TableName, clause: str) -> None:
        """Spark's parser and analyzer on ``ALTER TABLE name <clause>``, nothing run
        (:func:`~storage.catalogs.spark.sql.analysis.analysis`); what they refuse raises as :meth:`_alter`
        would. The accepted statement's analysed plan is kept for this thread's next :meth:`_alter`, which runs it if
        it is the same text: analysed once, as plain Spark analyses it (an ADD COLUMNS spent 20 to 50 ms on each
        analysis)."""
        statement = f"ALTER TABLE {name.quoted} {clause}"
        analysed = analysis(self._spark, statement)
        if analysed.failure is not None:
            raise self._error(name, attrs.evolve(analysed.failure, analysis=True), "alter") from None
        self._checked.alter = None if analysed.plan is None else CheckedStatement(statement, analysed.plan)

    def _alter(self, name: TableName, clause: str, what: str, *, column: str | None = None) -> None:
        if substitutes(name.db) or substitutes(name.name):
            raise NoSuchObjectError.relation(f"table {name} does not exist", str(name))
        self._engine.check_literal_mode()
        statement = f"ALTER TABLE {name.quoted} {clause}"
        checked: CheckedStatement | None = getattr(self._checked, "alter", None)
        self._checked.alter = None
        self._engine.forget(name)  # what the statement read of it changes
        try:
            if checked is not None and checked.statement == statement:
                run_analysed(self._spark, checked.plan)  # right after its check (:meth:`check_alter`)
            else:
                self._spark.sql(statement)
        except ENGINE_ERRORS as error:
            raise self._error(name, self._engine.failure(error), what, column) from None

    def _error(self, name: TableName, failure: Failure, what: str, column: str | None = None) -> CatalogError:
        if failure.means(*_GONE):
            return NoSuchObjectError.relation(f"table {name} does not exist", str(name))
        if failure.means(*_NOT_A_TABLE):
            return WrongObjectKindError.view_not_table(name, condition=failure.condition or "")
        if failure.means(Cause.COLUMN_MISSING):
            label = column if column is not None else str(name)
            return NoSuchObjectError.column(f"column {label!r} does not exist in {name}", label)
        if failure.means(Cause.COLUMN_EXISTS, Cause.FIELD_EXISTS):
            existing = failure.params.get("columnName") or failure.params.get("fieldNames") or column or ""
            existing = existing.strip("`").replace("``", "`")
            return ObjectExistsError.column(f"cannot {what} {name}: column {existing!r} already exists", existing)
        if failure.means(Cause.NOT_PARTITIONED):
            return InvalidDefinitionError(f"cannot {what} {name}: the table is not partitioned", str(name))
        if failure.analysis or failure.means(*_BAD_PARTITION, Cause.UNSUPPORTED):
            return InvalidDefinitionError(f"cannot {what} {name}: {failure.message}", str(name), failure.error)
        return engine_error(failure, f"cannot {what} {name}", name)
