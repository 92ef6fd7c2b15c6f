"""Spark 4.0 (4.0.0 to 4.0.x, the built-in Hive 2.3.10 metastore client): its error conditions by meaning, the
conditions its own statements report where the catalog refuses first, and the JVM classes the catalog reaches.

Conditions read from Spark 4.0.1's ``error-conditions.json`` and the failures the tests provoke; an entry names a
condition or a condition class (``EXPECT_TABLE_NOT_VIEW`` covers its ``.USE_ALTER_VIEW`` and ``.NO_ALTERNATIVE``);
a prefix covers every condition whose name starts with it, as the parts compared before the table existed."""

from __future__ import annotations

from storage.catalogs.spark.profiles.facts import Cause, ConditionTable, JvmClasses, Refusal, VersionFacts

_CONDITIONS: dict[str, frozenset[Cause]] = {
    name: frozenset(causes)
    for name, causes in {
        "TABLE_OR_VIEW_NOT_FOUND": {Cause.RELATION_MISSING},
        "SCHEMA_NOT_FOUND": {Cause.DATABASE_MISSING},
        "TABLE_OR_VIEW_ALREADY_EXISTS": {Cause.RELATION_EXISTS},
        "LOCATION_ALREADY_EXISTS": {Cause.LOCATION_TAKEN},
        "INVALID_SCHEMA_OR_RELATION_NAME": {Cause.BAD_NAME},
        "INVALID_ATTRIBUTE_NAME_SYNTAX": {Cause.BAD_NAME_SYNTAX},
        "DATA_SOURCE_NOT_FOUND": {Cause.DATA_SOURCE_MISSING},
        "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE": {Cause.UNSUPPORTED_DATA_TYPE},
        "COLUMN_ALREADY_EXISTS": {Cause.COLUMN_EXISTS},
        "FIELD_ALREADY_EXISTS": {Cause.FIELD_EXISTS},
        "FIELD_NOT_FOUND": {Cause.COLUMN_MISSING},
        "INVALID_PARTITION_OPERATION": {Cause.BAD_PARTITION},
        "INVALID_PARTITION_COLUMN_DATA_TYPE": {Cause.BAD_PARTITION},
        "CAST_INVALID_INPUT": {Cause.BAD_PARTITION},
        "PARTITIONS_NOT_FOUND": {Cause.PARTITION_MISSING},
        "PATH_NOT_FOUND": {Cause.PATH_MISSING},
        "USER_RAISED_EXCEPTION": {Cause.USER_RAISED},
        "UNRESOLVED_ROUTINE": {Cause.FUNCTION_MISSING},
        "ROUTINE_NOT_FOUND": {Cause.FUNCTION_MISSING},
        "ROUTINE_ALREADY_EXISTS": {Cause.FUNCTION_EXISTS},
        "CANNOT_LOAD_FUNCTION_CLASS": {Cause.FUNCTION_CLASS_UNLOADABLE},
        "SCHEMA_ALREADY_EXISTS": {Cause.DATABASE_EXISTS},
        "SCHEMA_NOT_EMPTY": {Cause.DATABASE_NOT_EMPTY},
    }.items()
}

_PREFIXES = {
    "EXPECT_TABLE_NOT_VIEW": Cause.VIEW_NOT_TABLE,
    "EXPECT_VIEW_NOT_TABLE": Cause.TABLE_NOT_VIEW,
    "WRONG_COMMAND_FOR_OBJECT_TYPE": Cause.WRONG_KIND,
    "UNRESOLVED_COLUMN": Cause.COLUMN_MISSING,
    "INVALID_PARTITION_OPERATION.PARTITION_SCHEMA_IS_EMPTY": Cause.NOT_PARTITIONED,
    "UNSUPPORTED_FEATURE.DROP_DATABASE": Cause.DROP_DATABASE_REFUSED,
    "UNSUPPORTED_": Cause.UNSUPPORTED,
}

_JAVA = {
    "NoSuchObjectException": Cause.METASTORE_NO_SUCH_OBJECT,
    "UnknownDBException": Cause.METASTORE_UNKNOWN_DATABASE,
    "AlreadyExistsException": Cause.METASTORE_OBJECT_EXISTS,
    "InvalidOperationException": Cause.METASTORE_INVALID_OPERATION,
    "ParseException": Cause.PARSE_ERROR,
}

_REPORTED = {
    Refusal.INSERT_INTO_VIEW: "EXPECT_TABLE_NOT_VIEW",
    Refusal.ALTER_VIEW_AS_TABLE: "EXPECT_TABLE_NOT_VIEW.USE_ALTER_VIEW",
    Refusal.DROP_VIEW_AS_TABLE: "WRONG_COMMAND_FOR_OBJECT_TYPE",
}

_HIVE_API = "org.apache.hadoop.hive.metastore.api."

CLASSES = JvmClasses(
    spark_session="org.apache.spark.sql.SparkSession",
    table_identifier="org.apache.spark.sql.catalyst.TableIdentifier",
    function_identifier="org.apache.spark.sql.catalyst.FunctionIdentifier",
    catalog_utils="org.apache.spark.sql.catalyst.catalog.CatalogUtils",
    command_utils="org.apache.spark.sql.execution.command.CommandUtils",
    command_execution_mode="org.apache.spark.sql.execution.CommandExecutionMode",
    dataset="org.apache.spark.sql.classic.Dataset",
    struct_type="org.apache.spark.sql.types.StructType",
    data_type="org.apache.spark.sql.types.DataType",
    char_varchar_utils="org.apache.spark.sql.catalyst.util.CharVarcharUtils",
    resolve_default_columns="org.apache.spark.sql.catalyst.util.ResolveDefaultColumns",
    python_utils="org.apache.spark.api.python.PythonUtils",
    create_view_plan="CreateView",
    hive_metastore_client="org.apache.hadoop.hive.metastore.HiveMetaStoreClient",
    hive_table=_HIVE_API + "Table",
    hive_environment_context=_HIVE_API + "EnvironmentContext",
    hive_tables_result=_HIVE_API + "GetTablesResult",
    hive_partitions_result=_HIVE_API + "PartitionsByExprResult",
    hadoop_path="org.apache.hadoop.fs.Path",
    hadoop_file_util="org.apache.hadoop.fs.FileUtil",
    thrift_serializer="org.apache.thrift.TSerializer",
    thrift_deserializer="org.apache.thrift.TDeserializer",
    thrift_json_protocol="org.apache.thrift.protocol.TJSONProtocol$Factory",
    json_mapper="com.fasterxml.jackson.databind.ObjectMapper",
    scala_collections="scala.jdk.javaapi.CollectionConverters",
    hive_thrift_server="org.apache.spark.sql.hive.thriftserver.HiveThriftServer2",
    connect_service="org.apache.spark.sql.connect.service.SparkConnectService",
)

FACTS = VersionFacts(
    line="4.0",
    conditions=ConditionTable(_CONDITIONS, _PREFIXES, _JAVA, _REPORTED),
    classes=CLASSES,
    hive_client="2.3.10",
)
