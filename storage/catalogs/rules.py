"""What the Spark session catalog refuses, stated without an engine, so that the memory catalog refuses the same.

The catalog contract suite (tests/contract) runs one set of behaviour tests on both catalogs; these are the checks
the memory catalog needs to raise the error types Spark raises (Spark itself finds most of them by analysis). Not
covered, because only an engine can know them: column types, providers, and what a SELECT or a view's query means.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from storage.catalogs.interface import TAG_KEYS, FunctionDefinition, TableSpec, ViewDefinition
from storage.catalogs.names import DATABASE_NAME_LIMIT, FUNCTION_NAME_LIMIT, TABLE_NAME_LIMIT, TableName
from storage.errors import InvalidDefinitionError, InvalidNameError, ObjectExistsError

ENGINE_NAME = re.compile(r"[A-Za-z0-9_]+")
"""Database, table, view and function names the Spark session catalog accepts (Java ``\\w``: ASCII only)."""

DATABASE_TAG = re.compile(r"db:[0-9a-f]{32}")
"""The shape of a database tag (:func:`~storage.catalogs.interface.new_database_tag`); Spark's catalog reads only
values of that shape back as a database's identity."""

RESOURCE_KINDS = ("jar", "file", "archive")


def check_name(name: TableName, kind: str = "table") -> None:
    """:class:`InvalidNameError` unless Spark can store ``name`` (letters, digits and ``_`` in both parts, no
    longer than the metastore's columns take)."""
    if not (ENGINE_NAME.fullmatch(name.db) and ENGINE_NAME.fullmatch(name.name)):
        raise InvalidNameError.not_a_name(f"{name} is not a valid Spark {kind} name (letters, digits and _ only)",
                                          str(name))
    check_new_name(name, kind)


def check_database_name(db: str) -> None:
    if not isinstance(db, str) or not ENGINE_NAME.fullmatch(db):
        raise InvalidNameError.not_a_name(f"{db!r} is not a valid Spark database name (letters, digits and _ only)",
                                          str(db))
    check_database_name_length(db)


def check_new_name(name: TableName, kind: str = "table") -> None:
    """Before anything is logged for a statement that makes an object named ``name`` (a table, view or function):
    the metastore's refusal of a name longer than it stores, as Spark reports it."""
    limit, column = (FUNCTION_NAME_LIMIT, "FUNC_NAME") if kind == "function" else (TABLE_NAME_LIMIT, "TBL_NAME")
    check_length(name.name, limit, column, str(name))
    check_database_name_length(name.db)


def check_database_name_length(db: str) -> None:
    check_length(db, DATABASE_NAME_LIMIT, "NAME", db)


def check_length(value: str, limit: int, column: str, owner: str) -> None:
    """The metastore's refusal of a name longer than its column, as Spark reports it."""
    if len(value) > limit:
        raise InvalidNameError(f"[_LEGACY_ERROR_TEMP_3065] org.apache.hadoop.hive.ql.metadata.HiveException: "
                               f"MetaException(message:Attempt to store value \"{value}\" in column \"{column}\" "
                               f"that has maximum length of {limit}. Please correct your data!)", owner)


def check_spec(spec: TableSpec, columns: tuple[str, ...] | None, name: TableName | None) -> None:
    """The definition errors Spark raises for ``spec`` whose columns (when known) are ``columns``: no column, a
    duplicate column (case-insensitively), partition columns that are not columns or leave no data column, the
    DDL log's tag given as a user property."""
    label = "the table" if name is None else str(name)
    owner = None if name is None else str(name)
    try:
        spec.form  # noqa: B018 - raises ValueError unless exactly one source is given
    except ValueError as error:
        raise InvalidDefinitionError(str(error), owner) from None
    for key, _ in spec.properties:
        if key in TAG_KEYS:  # (Spark refuses the hidden one as any spark.sql. key, when the CREATE runs)
            raise InvalidDefinitionError(f"property {key!r} is reserved for the DDL log", owner)
    if len({key for key, _ in spec.properties}) != len(spec.properties):
        raise InvalidDefinitionError(f"duplicate table property for {label}", owner)
    if columns is None:
        return
    if not columns:
        raise InvalidDefinitionError(f"{label} needs at least one column", owner)
    lowered = [column.lower() for column in columns]
    twice = first_duplicate(columns)
    if twice is not None:
        raise ObjectExistsError.column(f"the column {twice!r} already exists in {list(columns)} (named twice)", twice)
    unknown = [column for column in spec.partitioned_by if column.lower() not in lowered]
    if unknown:
        raise InvalidDefinitionError(f"partition columns {unknown} are not among the columns {list(columns)}", owner)
    if len({column.lower() for column in spec.partitioned_by}) != len(spec.partitioned_by):
        raise InvalidDefinitionError(f"duplicate partition column for {label}", owner)
    if spec.partitioned_by and len(spec.partitioned_by) >= len(columns):
        raise InvalidDefinitionError("cannot partition by every column: a table needs one data column", owner)


def check_view(name: TableName, definition: ViewDefinition) -> None:
    check_name(name, "view")
    if not definition.query.strip(" \t\r\n;"):
        raise InvalidDefinitionError(f"empty query for view {name}", str(name))
    if any(not column for column in definition.columns):
        raise InvalidDefinitionError(f"empty column name for view {name}", str(name))


def check_function(name: TableName, definition: FunctionDefinition) -> None:
    """What Spark's catalog refuses before it writes anything: a SQL function needs params, returns and a body and
    no class; a class function needs a class, no params or returns, and (kind, uri) resources."""
    check_name(name, "function")
    label = str(name)
    if definition.is_sql:
        if definition.class_name is not None or definition.resources:
            raise InvalidDefinitionError(f"SQL function {name} cannot have a class or resources", label)
        if definition.params is None or not (definition.returns or "").strip():
            raise InvalidDefinitionError(f"SQL function {name} needs params and a return type", label)
        if not str(definition.body).strip(" \t\r\n;"):
            raise InvalidDefinitionError(f"SQL function {name} needs a body", label)
        return
    if definition.params is not None or definition.returns is not None:
        raise InvalidDefinitionError(f"function {name}: params/returns need a SQL body", label)
    if not (definition.class_name or "").strip():
        raise InvalidDefinitionError(f"function {name} needs a class name or a SQL body", label)
    if any(kind.lower() not in RESOURCE_KINDS or not uri for kind, uri in definition.resources):
        raise InvalidDefinitionError(
            f"function {name}: resources must be (kind, uri) pairs with kind in {RESOURCE_KINDS}", label
        )


def first_duplicate(names: Iterable[str]) -> str | None:
    """The first name that repeats an earlier one case-insensitively (Spark: ``COLUMN_ALREADY_EXISTS``), or None."""
    seen: set[str] = set()
    for name in names:
        if name.lower() in seen:
            return name
        seen.add(name.lower())
    return None


RESERVED_PROPERTIES = {
    "provider": "please use the USING clause to specify it",
    "location": "please use the LOCATION clause to specify it",
    "owner": "it will be set to the current user",
    "external": "please use CREATE EXTERNAL TABLE",
    "is_managed_location": "please use the LOCATION clause to specify it",
}
"""Spark's reserved table properties (``TableCatalog``) that ``SET``/``UNSET TBLPROPERTIES`` refuse, with Spark's
reason (``UNSUPPORTED_FEATURE.SET_TABLE_PROPERTY``; its parser checks them before anything runs)."""


def check_settable_properties(keys: Iterable[str], name: str, *, setting: bool) -> None:
    """Refuse, before anything is logged, a property Spark reserves, as Spark refuses it: its parser the reserved
    keys as spelled in :data:`RESERVED_PROPERTIES` (case matters: Spark sets ``Owner``), the Hive catalog a SET of
    the key ``EXTERNAL`` (an UNSET of it runs)."""
    for key in keys:
        if key in RESERVED_PROPERTIES:
            raise InvalidDefinitionError.reserved_property(
                f"cannot change property {key!r} of {name}: {key} is a reserved table property, "
                f"{RESERVED_PROPERTIES[key]}", name)
        if setting and key == "EXTERNAL":
            raise InvalidDefinitionError.preserved_property(
                f"cannot change property {key!r} of {name}: Cannot set or change the preserved property key: "
                f"'EXTERNAL'", name)
