"""DataFrame writes and the catalog API's DDL as the statements they match: each is read by the SQL front end like
``spark.sql`` text (so it is routed, refused or left to Spark exactly as that statement would be), its DataFrame as a
temporary view of the session, and binlogged as the Python API's DataFrame statements are (``AS /* DataFrame */``).

==================================================  =================================================
call (v1 table of the session catalog)              matching statement
==================================================  =================================================
``saveAsTable`` (new table; ``errorifexists``)       CREATE TABLE ... AS SELECT
``saveAsTable`` ``ignore`` / ``overwrite`` / append  CREATE TABLE IF NOT EXISTS / CREATE OR REPLACE / INSERT BY NAME
``insertInto(t[, overwrite=True])``                  INSERT INTO / INSERT OVERWRITE (the writer's partition mode)
``writeTo(t).create / replace / createOrReplace``    CREATE TABLE / REPLACE TABLE / CREATE OR REPLACE ... AS SELECT
``writeTo(t).append / overwrite(lit(True))``         INSERT INTO ... BY NAME / INSERT OVERWRITE (columns by name)
``writeTo(t).overwritePartitions()``                 INSERT OVERWRITE, dynamic (columns by name)
``catalog.createTable`` / ``createExternalTable``    CREATE TABLE (with LOCATION when a path is given)
``catalog.recoverPartitions``                        ALTER TABLE ... RECOVER PARTITIONS
==================================================  =================================================
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from ddl_log.engine.texts import sql_string
from storage.catalogs.names import SESSION_CATALOG, TableName, quote_ident

DATAFRAME = "/* DataFrame */"
VIEW = "\x00view\x00"
"""Where the DataFrame's temporary view goes in :attr:`Write.sql` (no SQL text holds a NUL)."""
NAME = "\x00name\x00"
"""Where the table's name, as resolved, goes in :attr:`Write.binlog`."""
_PROVIDER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


@attrs.frozen
class Write:
    """A write as a statement: ``sql`` for the SQL front end (:data:`VIEW` where the DataFrame's temporary
    view goes), ``binlog`` what the binlog records (:data:`NAME` where the table's name goes, as resolved),
    ``overwrite_mode`` the writer's own partition overwrite mode."""

    sql: str
    binlog: str
    overwrite_mode: str | None = None
    query: bool = True
    """The statement reads the DataFrame (False: CREATE TABLE with columns, RECOVER PARTITIONS)."""


def target(db: str | None, name: str) -> str:
    """The session-catalog table ``db.name`` as the front end reads it (``spark_catalog`` named, so that it never
    resolves in another current catalog)."""
    return f"{quote_ident(SESSION_CATALOG)}.{TableName(db or 'default', name).quoted}"


def from_command(request: Mapping[str, Any], exists: Callable[[str], bool]) -> Write:
    """A v1 command the JVM saw (``spark_ddl_log.WriteRouter``): its kind and its table's description. ``exists``:
    whether a table of that name is there now (an append to a missing table creates it, as Spark's does)."""
    table = request["table"]
    read = target(table.get("db"), table["name"])
    kind = request["kind"]
    if kind == "append" and not exists(read):
        kind = "create"
    if kind == "append":  # saveAsTable's append to a table there: its columns by name, as Spark's
        return Write(f"INSERT INTO TABLE {read} BY NAME SELECT * FROM {VIEW}", f"INSERT INTO TABLE {NAME} {DATAFRAME}")
    if kind == "repair":
        return Write(f"ALTER TABLE {read} RECOVER PARTITIONS", f"ALTER TABLE {NAME} RECOVER PARTITIONS", query=False)
    if kind == "insert":
        overwrite = bool(request.get("overwrite"))
        spec = _partition_spec(request.get("partition") or {})
        verb = "INSERT OVERWRITE TABLE" if overwrite else "INSERT INTO TABLE"
        if_not_exists = " IF NOT EXISTS" if request.get("if_partition_not_exists") and overwrite else ""
        mode = None
        if overwrite and table.get("provider") != "hive":
            mode = "dynamic" if request.get("dynamic") else "static"
        return Write(f"{verb} {read}{spec}{if_not_exists} SELECT * FROM {VIEW}",
                     f"{verb} {NAME}{spec}{if_not_exists} {DATAFRAME}", mode)
    clauses = create_clauses(table.get("provider"), table.get("options") or {}, table.get("partition_columns") or (),
                             table.get("bucket"), table.get("comment"), table.get("properties") or {},
                             table.get("location") if table.get("type") == "EXTERNAL" else None)
    if kind == "create_table":
        head = "CREATE TABLE IF NOT EXISTS" if request.get("if_not_exists") else "CREATE TABLE"
        return Write(f"{head} {read} ({table['schema']}){clauses}", f"{head} {NAME} ({table['schema']}){clauses}",
                     query=False)
    head = {"create": "CREATE TABLE", "create_if_not_exists": "CREATE TABLE IF NOT EXISTS",
            "replace": "CREATE OR REPLACE TABLE"}[kind]
    return Write(f"{head} {read}{clauses} AS SELECT * FROM {VIEW}", f"{head} {NAME}{clauses} AS {DATAFRAME}")


def from_writer(parts: Sequence[str], state: Mapping[str, Any]) -> Write:
    """PySpark's ``df.write...saveAsTable(name)`` in overwrite mode (``parts``: the name as Spark parsed it; its
    writer's settings, ``WriterState``)."""
    read = ".".join(quote_ident(part) for part in parts)
    bucket = None
    if state.get("bucket_by"):
        bucket = {"buckets": state.get("buckets"), "columns": state["bucket_by"], "sort": state.get("sort_by") or []}
    if state.get("cluster_by"):
        raise ValueError("clusterBy is not a clause of v1 tables")
    options = {k: v for k, v in (state.get("options") or {}).items() if k.lower() != "path"}
    location = next((v for k, v in (state.get("options") or {}).items() if k.lower() == "path"), None)
    clauses = create_clauses(state.get("source"), options, state.get("partition_by") or (), bucket, None, {},
                             location)
    head = "CREATE OR REPLACE TABLE"
    return Write(f"{head} {read}{clauses} AS SELECT * FROM {VIEW}", f"{head} {NAME}{clauses} AS {DATAFRAME}")


def from_writer_v2(verb: str, state: Mapping[str, Any], columns: Sequence[str] | None = None) -> Write | None:
    """PySpark's ``df.writeTo(t)`` call ``verb`` (its writer's settings, ``WriterState``); ``columns``: for the
    overwrites, the table's columns in order (they write by name, INSERT OVERWRITE by position). None: a form with
    no matching statement (Spark's own call then refuses it as it does for v1 tables)."""
    parts = list(state["table"])
    read = ".".join(quote_ident(part) for part in parts)
    if verb == "append":
        return Write(f"INSERT INTO {read} BY NAME SELECT * FROM {VIEW}", f"INSERT INTO TABLE {NAME} {DATAFRAME}")
    if verb in ("overwrite", "overwritePartitions"):
        assert columns is not None
        select = "SELECT " + ", ".join(quote_ident(column) for column in columns) + " FROM " + VIEW
        mode = "dynamic" if verb == "overwritePartitions" else "static"
        return Write(f"INSERT OVERWRITE TABLE {read} {select}", f"INSERT OVERWRITE TABLE {NAME} {DATAFRAME}", mode)
    partitioned: list[str] = []
    bucket = None
    for transform in state.get("partitioning") or ():
        if transform["name"] == "identity":
            partitioned += transform["columns"]
        elif transform["name"] == "bucket" and bucket is None:
            number = re.match(r"bucket\((\d+)", transform["describe"])
            if number is None:
                return None
            bucket = {"buckets": int(number.group(1)), "columns": transform["columns"], "sort": []}
        else:
            return None  # years(), days() ...: no v1 clause
    if state.get("clustering"):
        return None
    options = dict(state.get("options") or {})
    location = options.pop("path", None) or (state.get("properties") or {}).get("location")
    properties = {k: v for k, v in (state.get("properties") or {}).items() if k not in ("location", "provider")}
    clauses = create_clauses(state.get("provider"), options, partitioned, bucket, None, properties, location)
    head = {"create": "CREATE TABLE", "replace": "REPLACE TABLE", "createOrReplace": "CREATE OR REPLACE TABLE"}[verb]
    return Write(f"{head} {read}{clauses} AS SELECT * FROM {VIEW}", f"{head} {NAME}{clauses} AS {DATAFRAME}")


def create_clauses(provider: str | None, options: Mapping[str, str | None], partitioned: Sequence[str],
                   bucket: Mapping[str, Any] | None, comment: str | None, properties: Mapping[str, str | None],
                   location: str | None) -> str:
    """What follows a CREATE's name and columns: USING, OPTIONS, PARTITIONED BY, CLUSTERED BY, LOCATION, COMMENT,
    TBLPROPERTIES (each only when given; no USING leaves the session's default data source, as Spark does)."""
    parts = []
    if provider:
        if not _PROVIDER.fullmatch(provider):
            raise ValueError(f"not a data source name: {provider!r}")
        parts.append(f"USING {provider}")
    given = {k: v for k, v in options.items() if v is not None and k.lower() != "path"}
    if given:
        parts.append("OPTIONS (" + ", ".join(f"{sql_string(k)} = {sql_string(v)}" for k, v in given.items()) + ")")
    if partitioned:
        parts.append("PARTITIONED BY (" + ", ".join(quote_ident(c) for c in partitioned) + ")")
    if bucket:
        sort = bucket.get("sort") or []
        parts.append("CLUSTERED BY (" + ", ".join(quote_ident(c) for c in bucket["columns"]) + ")"
                     + (" SORTED BY (" + ", ".join(quote_ident(c) for c in sort) + ")" if sort else "")
                     + f" INTO {int(bucket['buckets'])} BUCKETS")
    if location:
        parts.append(f"LOCATION {sql_string(location)}")
    if comment is not None:
        parts.append(f"COMMENT {sql_string(comment)}")
    given_properties = {k: v for k, v in properties.items() if v is not None}
    if given_properties:
        parts.append("TBLPROPERTIES (" + ", ".join(f"{sql_string(k)} = {sql_string(v)}"
                                                   for k, v in given_properties.items()) + ")")
    return "".join(" " + part for part in parts)


def _partition_spec(partition: Mapping[str, str | None]) -> str:
    if not any(value is not None for value in partition.values()):
        return ""
    parts = [quote_ident(c) if v is None else f"{quote_ident(c)} = {sql_string(v)}" for c, v in partition.items()]
    return " PARTITION (" + ", ".join(parts) + ")"
