"""A table's whole definition as the metastore holds it, normalised for comparison: what a statement must keep when it
does not name it (property tests of definition preservation, differential runs against plain Spark), and what a
replica's ``check`` compares with its source's (:func:`definition_digest`).

Read through Spark's external catalog (``CatalogTable``; a few py4j calls, no SQL statement, no job), so it sees what
``DESCRIBE`` hides: bucketing and sort columns, storage OPTIONS, serde and formats, column nullability, DEFAULT values
and declared CHAR/VARCHAR types (field metadata), the table type and where the data lives.

What is left out, because no statement is expected to keep it: creation and access times, the owner, statistics
(``numFiles``, ``spark.sql.statistics.*``, ...), ``transient_lastDdlTime``, the DDL log's own tag property, and the
exact directory of a managed table (a replaced table lives in a directory of its own): :attr:`Definition.location` is
``managed`` for a managed table at any directory under its database's, else the location itself.
"""

from __future__ import annotations

import json
from typing import Any

import attrs

from storage.catalogs.spark.jvm import external_catalog, scala_map, static
from storage.catalogs.spark.profile import Jvm, jvm_of
from storage.errors import CatalogError

HIDDEN_PROPERTY_PREFIXES = ("transient_", "spark_ddl_log.", "spark.sql.sources.ddl_log.", "spark.sql.statistics.",
                            "spark.sql.create.version", "spark.sql.partitionProvider")
STATISTICS = frozenset({"numFiles", "numRows", "rawDataSize", "totalSize", "COLUMN_STATS_ACCURATE",
                        "numFilesErasureCoded", "numPartitions", "last_modified_by", "last_modified_time",
                        "STATS_GENERATED", "STATS_GENERATED_VIA_STATS_TASK"})
HIDDEN_STORAGE = frozenset({"path", "serialization.format"})
"""Storage properties Spark sets itself (``path`` is the location again)."""


@attrs.frozen
class Field:
    name: str
    type: str
    nullable: bool
    metadata: tuple[tuple[str, str], ...]
    """Comment, ``CURRENT_DEFAULT`` / ``EXISTS_DEFAULT`` and the declared CHAR/VARCHAR type, as Spark keeps them."""


@attrs.frozen
class Definition:
    """Everything of a table's definition that a statement not naming it must leave as it was."""

    kind: str
    provider: str | None
    fields: tuple[Field, ...]
    partition_columns: tuple[str, ...]
    buckets: tuple[int, tuple[str, ...], tuple[str, ...]] | None
    """(number of buckets, bucket columns, sort columns)."""
    serde: str | None
    input_format: str | None
    output_format: str | None
    options: tuple[tuple[str, str], ...]
    location: str
    comment: str | None
    properties: tuple[tuple[str, str], ...]
    tracks_partitions: bool = False
    """Spark's "Partition Provider: Catalog": the partitions are read from the metastore (not discovered from the
    directories)."""

    def without(self, *names: str) -> Definition:
        """This definition with the named attributes blanked out (what a statement is allowed to change)."""
        blanks: dict[str, Any] = {name: None for name in names}
        return attrs.evolve(self, **blanks)


def _option(scala: Any) -> Any:
    return scala.get() if scala.isDefined() else None


def _strings(scala_seq: Any) -> tuple[str, ...]:
    return tuple(str(scala_seq.apply(i)) for i in range(scala_seq.size()))


def _fields(schema_json: str) -> tuple[Field, ...]:
    fields = []
    for field in json.loads(schema_json)["fields"]:
        metadata = tuple(sorted((str(k), json.dumps(v, sort_keys=True)) for k, v in field.get("metadata", {}).items()))
        fields.append(Field(field["name"], json.dumps(field["type"], sort_keys=True), bool(field["nullable"]),
                            metadata))
    return tuple(fields)


def _handles(spark: Any) -> Jvm:
    jvm = jvm_of(spark)
    if jvm is None:
        raise CatalogError("a Spark Connect session has no handle on its external catalog")
    return jvm


def _no_partition_spec(jvm: Jvm) -> Any:
    """Scala's ``None``, as a listing of every partition takes it."""
    return static(jvm.view, "scala.Option", "empty")()


def database_location(spark: Any, db: str) -> str:
    external = external_catalog(_handles(spark))
    return str(external.getDatabase(db).locationUri().toString()).rstrip("/")


def table_definition(spark: Any, db: str, name: str) -> Definition | None:
    """The definition of the table ``db.name``; None when there is no such table (a view is not a table)."""
    jvm = _handles(spark)
    external = external_catalog(jvm)
    if not external.tableExists(db, name):
        return None
    table = external.getTable(db, name)
    kind = str(table.tableType().name())
    if kind == "VIEW":
        return None
    bucket_spec = _option(table.bucketSpec())
    buckets = None if bucket_spec is None else (
        int(bucket_spec.numBuckets()), _strings(bucket_spec.bucketColumnNames()),
        _strings(bucket_spec.sortColumnNames()))
    storage = table.storage()
    location = str(_option(storage.locationUri()).toString()).rstrip("/")
    if kind == "MANAGED" and location.startswith(database_location(spark, db) + "/"):
        location = "managed"
    options = {k: v for k, v in scala_map(jvm, storage.properties()).items() if k not in HIDDEN_STORAGE}
    properties = {k: v for k, v in scala_map(jvm, table.properties()).items()
                  if k not in STATISTICS and not k.startswith(HIDDEN_PROPERTY_PREFIXES)}
    return Definition(
        kind=kind,
        provider=_option(table.provider()),
        fields=_fields(str(table.schema().json())),
        partition_columns=_strings(table.partitionColumnNames()),
        buckets=buckets,
        serde=_option(storage.serde()),
        input_format=_option(storage.inputFormat()),
        output_format=_option(storage.outputFormat()),
        options=tuple(sorted(options.items())),
        location=location,
        comment=_option(table.comment()),
        properties=tuple(sorted(properties.items())),
        tracks_partitions=bool(table.tracksPartitionsInCatalog()),
    )


def partitions(spark: Any, db: str, name: str) -> tuple[str, ...]:
    """The table's partitions as the metastore names them (``a=1/b=x``), sorted; () for an unpartitioned table."""
    jvm = _handles(spark)
    external = external_catalog(jvm)
    table = external.getTable(db, name)
    if table.partitionColumnNames().isEmpty():
        return ()
    every = _no_partition_spec(jvm)
    return tuple(sorted(_strings(external.listPartitionNames(db, name, every))))


@attrs.frozen
class PartitionStorage:
    """Where one partition's files live and how they are read: a Hive serde table reads each partition with the
    partition's own serde and formats."""

    name: str
    location: str
    """Relative to the table's location (``p=1``) when under it, else the location itself."""
    serde: str | None
    input_format: str | None
    output_format: str | None
    options: tuple[tuple[str, str], ...]


def partition_storage(spark: Any, db: str, name: str) -> tuple[PartitionStorage, ...]:
    """The storage of every partition of the table, by partition name; () for an unpartitioned table."""
    jvm = _handles(spark)
    external = external_catalog(jvm)
    table = external.getTable(db, name)
    if table.partitionColumnNames().isEmpty():
        return ()
    root = str(_option(table.storage().locationUri()).toString()).rstrip("/") + "/"
    columns = _strings(table.partitionColumnNames())
    found = []
    listed = external.listPartitions(db, name, _no_partition_spec(jvm))
    for index in range(listed.size()):
        partition = listed.apply(index)
        spec = partition.spec()
        label = "/".join(f"{column}={spec.apply(column)}" for column in columns)
        storage = partition.storage()
        location = str(_option(storage.locationUri()).toString())
        options = {k: v for k, v in scala_map(jvm, storage.properties()).items() if k not in HIDDEN_STORAGE}
        found.append(PartitionStorage(label, location[len(root):] if location.startswith(root) else location,
                                      _option(storage.serde()), _option(storage.inputFormat()),
                                      _option(storage.outputFormat()), tuple(sorted(options.items()))))
    return tuple(sorted(found, key=lambda p: p.name))


def definition_digest(spark: Any, db: str, name: str) -> str | None:
    """The table's normalised definition and its partitions' storage as one JSON text (None: no such table); two
    tables with equal texts have equal definitions wherever their files are (a classic session: a JVM handle)."""
    definition = table_definition(spark, db, name)
    if definition is None:
        return None
    document = {"definition": attrs.asdict(definition), "partitions": [attrs.asdict(p) for p in
                                                                           partition_storage(spark, db, name)]}
    return json.dumps(document, sort_keys=True, default=list)

