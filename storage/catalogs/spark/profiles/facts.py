"""What differs between Spark versions, as data: which error conditions mean what (:class:`ConditionTable`), the
conditions the catalog's own refusals report as Spark reports them, and the JVM classes the catalog reaches
(:class:`JvmClasses`). One :class:`VersionFacts` per supported Spark line (``spark40.py``; ``spark41.py`` and on, or
``spark35.py``, beside it), chosen by :func:`storage.catalogs.spark.profiles.facts_for`.

Why a table: Spark renames, splits and adds error conditions between versions (4.3 accepts what 4.0 refused, and
refuses other things under new names); the parts of the catalog decide by what a failure *means* (:class:`Cause`),
never by the condition's spelling, so a new version is one more table, not edits in every part.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping

import attrs


class Cause(enum.Enum):
    """What a failed Spark call (or a Hive metastore call's Java exception) means to the catalog."""

    RELATION_MISSING = "no table or view has the name"
    DATABASE_MISSING = "the database does not exist"
    RELATION_EXISTS = "a table or view has the name already"
    LOCATION_TAKEN = "files are at the new table's default location"
    VIEW_NOT_TABLE = "a table statement named a view"
    TABLE_NOT_VIEW = "a view statement named a table"
    WRONG_KIND = "the command does not fit the kind of the object"
    BAD_NAME = "Spark cannot store the name"
    BAD_NAME_SYNTAX = "a name part is not valid syntax"
    DATA_SOURCE_MISSING = "no data source of the provider's name"
    UNSUPPORTED_DATA_TYPE = "the data source cannot store a column's type"
    UNSUPPORTED = "Spark does not support the request"
    COLUMN_EXISTS = "a column has the name already"
    FIELD_EXISTS = "a (nested) field has the name already"
    COLUMN_MISSING = "no column has the name"
    NOT_PARTITIONED = "the table has no partition columns"
    BAD_PARTITION = "the partition spec does not fit the table"
    PARTITION_MISSING = "no partition matches the spec"
    PATH_MISSING = "nothing is at the path"
    USER_RAISED = "the query raised an error of its own (raise_error)"
    FUNCTION_MISSING = "no function has the name"
    FUNCTION_EXISTS = "a function has the name already"
    FUNCTION_CLASS_UNLOADABLE = "the function's class cannot be loaded (a SQL function, or a class not on the path)"
    DATABASE_EXISTS = "a database has the name already"
    DATABASE_NOT_EMPTY = "the database holds objects"
    DROP_DATABASE_REFUSED = "Spark refuses to drop this database (the default one)"
    PARSE_ERROR = "Spark's parser refused the text"
    METASTORE_NO_SUCH_OBJECT = "the metastore has no such object"
    METASTORE_UNKNOWN_DATABASE = "the metastore has no such database"
    METASTORE_OBJECT_EXISTS = "the metastore has such an object already"
    METASTORE_INVALID_OPERATION = "the metastore refused the change"


class Refusal(enum.Enum):
    """A refusal the catalog makes itself before Spark would (it knows the object's kind already), reported with the
    condition Spark gives the same statement (:attr:`ConditionTable.reported`)."""

    INSERT_INTO_VIEW = "INSERT INTO a view"
    ALTER_VIEW_AS_TABLE = "ALTER TABLE of a view"
    DROP_VIEW_AS_TABLE = "DROP TABLE of a view"


@attrs.frozen
class ConditionTable:
    """Spark's error conditions (and the Hive client's Java exceptions) by what they mean."""

    conditions: Mapping[str, frozenset[Cause]]
    """A condition, or its class (the part before a ``.``: ``EXPECT_TABLE_NOT_VIEW`` for
    ``EXPECT_TABLE_NOT_VIEW.USE_ALTER_VIEW``), and what it means."""
    prefixes: Mapping[str, Cause]
    """A condition name's beginning and what every condition so named means (``UNSUPPORTED_``)."""
    java: Mapping[str, Cause]
    """The simple name of a Java exception class (a Hive metastore call's, Spark's parser's) and what it means."""
    reported: Mapping[Refusal, str]
    """The condition Spark reports for what the catalog refuses itself."""

    def causes(self, condition: str | None) -> frozenset[Cause]:
        """What ``condition`` means: its own entry, its classes' entries and the prefixes it starts with."""
        if not condition:
            return frozenset()
        found: set[Cause] = set()
        parts = condition.split(".")
        for end in range(len(parts), 0, -1):
            found |= self.conditions.get(".".join(parts[:end]), frozenset())
        found |= {cause for prefix, cause in self.prefixes.items() if condition.startswith(prefix)}
        return frozenset(found)

    def java_causes(self, class_name: str) -> frozenset[Cause]:
        """What a Java exception of class ``class_name`` (fully qualified or simple) means."""
        simple = class_name.rpartition(".")[2].rpartition("$")[2]
        cause = self.java.get(simple)
        return frozenset() if cause is None else frozenset({cause})

    def condition_names(self) -> frozenset[str]:
        """Every condition this table names (the house rule keeps them out of every other module)."""
        named = set(self.conditions) | set(self.reported.values()) | set(self.prefixes)
        return frozenset(name for name in named if not name.endswith("_"))


@attrs.frozen
class JvmClasses:
    """The JVM classes the catalog reaches through Py4J, fully qualified (a plan class: its simple name)."""

    spark_session: str
    table_identifier: str
    function_identifier: str
    catalog_utils: str
    command_utils: str
    command_execution_mode: str
    dataset: str
    """The classic ``Dataset`` (its ``ofRows`` runs an analysed plan: the analyzer skips it)."""
    struct_type: str
    data_type: str
    char_varchar_utils: str
    resolve_default_columns: str
    python_utils: str
    create_view_plan: str
    """The simple name of the parsed plan of ``CREATE VIEW`` (its ``originalText`` is the view's stored text)."""
    hive_metastore_client: str
    hive_table: str
    hive_environment_context: str
    hive_tables_result: str
    hive_partitions_result: str
    hadoop_path: str
    hadoop_file_util: str
    thrift_serializer: str
    thrift_deserializer: str
    thrift_json_protocol: str
    json_mapper: str
    scala_collections: str
    hive_thrift_server: str
    """Spark's Thrift server (HiveServer2's protocol), started inside a running driver (``startWithContext``)."""
    connect_service: str
    """Spark Connect's gRPC service, started inside a running driver (``start(SparkContext)``, ``stop``)."""
    create_table_commands: tuple[str, ...] = ("CreateDataSourceTableCommand",)
    """The simple names of the analyzed plans of a data source CREATE TABLE with columns (their ``table`` is the
    definition; a Hive serde table's fails on its Hive types first, with a condition of its own)."""


@attrs.frozen
class DisabledType:
    """A data type a Spark line parses and analyses but refuses only when a CREATE runs, while a session setting
    keeps it off (Spark 4.1+'s TIME): the catalog refuses it before anything is logged, as Spark would at the end."""

    json_marker: str
    """How the type starts in a schema's JSON (``"time(``)."""
    setting: str
    """The session setting that turns the type on (off by default)."""
    condition: str
    message: str
    """Spark's message for it, without its condition."""


@attrs.frozen
class VersionFacts:
    """Everything the catalog must know about one line of Spark versions."""

    line: str
    """``4.0``: the versions these facts were written against."""
    conditions: ConditionTable
    classes: JvmClasses
    hive_client: str
    """The built-in Hive metastore client's version (``spark.sql.hive.metastore.version``'s default)."""
    drop_table_drops_views: bool = False
    """Whether Spark's own ``DROP TABLE v`` drops the view ``v`` (Spark 4.3) instead of refusing it with
    ``WRONG_COMMAND_FOR_OBJECT_TYPE`` (Spark 4.0): the project's DROP TABLE does what the running Spark does."""
    disabled_types: tuple[DisabledType, ...] = ()
    """Types this line refuses only when a CREATE runs while a setting keeps them off."""
    missing_function_condition: str = "UNRESOLVED_ROUTINE"
    """The condition of Spark's own ``DROP FUNCTION`` of a function that does not exist: ``UNRESOLVED_ROUTINE``
    (Spark 4.0), ``ROUTINE_NOT_FOUND`` (Spark 4.3)."""
