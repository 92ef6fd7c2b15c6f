"""Column types for the Spark catalog: parsed by Spark, checked, and printed again as DDL by :func:`type_sql` (used by
CREATE TABLE, ALTER TABLE ... ADD COLUMNS, table metadata and the copy of kept partitions).

A type is never spliced into a statement as the user wrote it: Spark parses it (``DataType.fromDDL``) and
:func:`type_sql` prints the parsed type, quoting nested field names and escaping nested comments itself. Types Spark
can store but never read back (:func:`poisons_the_metastore`) are refused.
"""

from __future__ import annotations

from pyspark.sql.types import ArrayType, CharType, DataType, MapType, StructField, StructType, VarcharType

from storage.catalogs.interface import Column
from storage.catalogs.names import TableName, quote_ident
from storage.catalogs.spark.engine import (
    ENGINE_ERRORS,
    ENGINE_NAME,
    inspect_error,
    new_table_label,
    object_label,
    sql_string_literal,
)
from storage.errors import InvalidDefinitionError


def type_sql(data_type: DataType) -> str:
    """Print a parsed data type as DDL, quoting nested field names and escaping nested comments ourselves.

    (Spark's own ``toDDL`` leaves backslashes in comments unescaped, so its output cannot be trusted as SQL.)
    """
    if isinstance(data_type, StructType):
        return "STRUCT<" + ", ".join(_struct_field_sql(field) for field in data_type.fields) + ">"
    if isinstance(data_type, ArrayType):
        return f"ARRAY<{type_sql(data_type.elementType)}>"
    if isinstance(data_type, MapType):
        return f"MAP<{type_sql(data_type.keyType)}, {type_sql(data_type.valueType)}>"
    return str(data_type.simpleString())


def _nested(data_type: DataType) -> list[DataType]:
    if isinstance(data_type, StructType):
        return [field.dataType for field in data_type.fields]
    if isinstance(data_type, ArrayType):
        return [data_type.elementType]
    if isinstance(data_type, MapType):
        return [data_type.keyType, data_type.valueType]
    return []


def _has_char_type(data_type: DataType) -> bool:
    return isinstance(data_type, (CharType, VarcharType)) or any(_has_char_type(inner) for inner in _nested(data_type))


def _quoted_field_names(data_type: DataType) -> list[str]:
    """Nested struct field names that only parse when quoted."""
    names = []
    if isinstance(data_type, StructType):
        names = [field.name for field in data_type.fields if not ENGINE_NAME.fullmatch(field.name)]
    return names + [name for inner in _nested(data_type) for name in _quoted_field_names(inner)]


def poisons_the_metastore(data_type: DataType) -> bool:
    """Whether a column of this type makes a table Spark can store but never read back, nor even drop.

    Spark keeps a CHAR/VARCHAR column's type as its unquoted catalog string and parses it again on every lookup of
    the table, so a column that contains CHAR/VARCHAR anywhere and also a nested struct field whose name needs
    quoting (``struct<`x y`: int, z: char(3)>``) breaks ``tableExists``, ``DESCRIBE``, reads and ``DROP TABLE``
    alike with ``PARSE_SYNTAX_ERROR`` / ``INVALID_IDENTIFIER`` (Spark 4.0.1).
    """
    return _has_char_type(data_type) and bool(_quoted_field_names(data_type))


def _struct_field_sql(field: StructField) -> str:
    text = f"{quote_ident(field.name)}: {type_sql(field.dataType)}"
    if not field.nullable:
        text += " NOT NULL"
    comment = field.metadata.get("comment")
    if comment is not None:
        text += f" COMMENT {sql_string_literal(str(comment))}"
    return text


def column_sql(column: Column, table: TableName | None) -> str:
    """``\\`name\\` TYPE [COMMENT '...']`` with TYPE parsed by Spark and printed again by :func:`type_sql`.

    ``table`` names the table in errors (None: a definition only being checked).
    """
    if not isinstance(column.name, str) or not column.name:
        raise InvalidDefinitionError(f"empty column name in {new_table_label(table)}", object_label(table))
    where = f"column {column.name!r} of {new_table_label(table)}"
    if not isinstance(column.type, str) or not column.type.strip():
        raise InvalidDefinitionError(f"{where}: empty type", object_label(table))
    try:
        parsed = DataType.fromDDL(f"{quote_ident(column.name)} {column.type}")
    except ENGINE_ERRORS as error:
        raise InvalidDefinitionError(
            f"{where}: invalid type {column.type!r}: {inspect_error(error).message}", object_label(table), error
        ) from None
    if (
        not isinstance(parsed, StructType)
        or len(parsed.fields) != 1
        or parsed.fields[0].name != column.name
        or not parsed.fields[0].nullable
        or parsed.fields[0].metadata
    ):
        raise InvalidDefinitionError(
            f"{where}: the type must be one data type (no NOT NULL, COMMENT or further columns): {column.type!r}",
            object_label(table),
        )
    data_type = parsed.fields[0].dataType
    if poisons_the_metastore(data_type):
        raise InvalidDefinitionError(
            f"{where}: CHAR/VARCHAR inside a type whose nested field names need quoting "
            f"({', '.join(map(repr, _quoted_field_names(data_type)))}) makes a table Spark cannot read back; "
            "use STRING or plain field names",
            object_label(table),
        )
    printed = type_sql(data_type)
    try:
        again = DataType.fromDDL(f"c {printed}")
    except ENGINE_ERRORS as error:
        raise InvalidDefinitionError(
            f"{where}: unsupported type {column.type!r}", object_label(table), error
        ) from None
    if again != StructType([StructField("c", data_type)]):
        raise InvalidDefinitionError(f"{where}: unsupported type {column.type!r}", object_label(table))
    text = f"{quote_ident(column.name)} {printed}"
    if column.comment is not None:
        text += f" COMMENT {sql_string_literal(column.comment)}"
    return text


CHAR_VARCHAR = "__CHAR_VARCHAR_TYPE_STRING"
"""The field metadata key where Spark keeps a CHAR/VARCHAR column's declared type (the column itself is a string)."""


def schema_columns(schema: StructType) -> tuple[Column, ...]:
    """A table's columns as :class:`Column` records: Spark DDL type strings (the declared type for CHAR/VARCHAR
    columns), an empty comment reported as None."""
    columns = []
    for field in schema.fields:
        metadata = dict(field.metadata or {})
        declared = metadata.get(CHAR_VARCHAR)
        comment = metadata.get("comment")
        columns.append(Column(field.name, str(declared) if declared else type_sql(field.dataType),
                              str(comment) if comment else None))
    return tuple(columns)
