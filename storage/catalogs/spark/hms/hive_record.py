"""The Hive metastore's ``Table`` and ``Partition`` records as Python data: their Thrift JSON (see
:mod:`storage.catalogs.spark.jvm`), read in one Py4J round trip, looked at and edited in Python, and turned back into
a JVM record in two when a metastore call takes one.

Why: reading a record's fields one getter at a time costs a Py4J round trip each, and its parameters (a Java map)
two per entry plus an end-of-iteration exception that PySpark inspects with about fifty more; a swap's plan made
over 200 of them. The JSON holds every field, so the text is also exactly what the log keeps of a version.

Field numbers are those of Hive 2.3's ``hive_metastore.thrift`` (Thrift never renumbers a field): ``Table`` 1
tableName, 2 dbName, 4 createTime, 5 lastAccessTime, 7 sd, 8 partitionKeys, 9 parameters, 12 tableType;
``StorageDescriptor`` 1 cols, 2 location, 7 serdeInfo (whose 3 is its parameters); ``FieldSchema`` 1 name, 2 type;
``Partition`` 1 values, 2 dbName, 3 tableName, 6 sd.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from storage.catalogs.interface import HIDDEN_TAG_PROPERTY, TAG_KEYS, TAG_PROPERTY, tag_in
from storage.catalogs.names import TableName
from storage.catalogs.spark.jvm import new, singleton_list, thrift_json, thrift_value
from storage.catalogs.spark.profile import Jvm
from storage.catalogs.spark.restored_schema import PARTITION_COLUMN_PROPERTY

MANAGED = "MANAGED_TABLE"
EXTERNAL = "EXTERNAL_TABLE"
VIEW = "VIRTUAL_VIEW"
PARTITION_PROVIDER_PROPERTY = "spark.sql.partitionProvider"
"""``catalog`` when Spark reads a table's partitions from the metastore (else it lists the table's directory)."""
STATISTICS = frozenset({"numFiles", "numRows", "rawDataSize", "totalSize", "COLUMN_STATS_ACCURATE",
                        "transient_lastDdlTime", "numFilesErasureCoded"})
"""Table parameters the metastore keeps as statistics of a table's files: an empty copy starts without them."""
SPARK_STATISTICS = "spark.sql.statistics."


def dump(fields: Mapping[str, Any]) -> str:
    """Thrift JSON text of ``fields`` as Thrift writes it (no spaces, characters as they are)."""
    return json.dumps(fields, separators=(",", ":"), ensure_ascii=False)


def _text(fields: Mapping[str, Any], key: str) -> str | None:
    value = fields.get(key)
    return None if value is None else str(value["str"])


def _string_map(fields: Mapping[str, Any], key: str) -> dict[str, str]:
    value = fields.get(key)
    return {} if value is None else dict(value["map"][3])


def _set_string_map(fields: dict[str, Any], key: str, values: Mapping[str, str]) -> None:
    fields[key] = {"map": ["str", "str", len(values), dict(values)]}


def _records(fields: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    value = fields.get(key)
    return [] if value is None else list(value["lst"][2:])


def storage_properties(fields: Mapping[str, Any]) -> dict[str, str]:
    """A ``Table`` record's storage properties (its SerDe's parameters: Spark keeps a data source table's options
    there)."""
    serde = fields.get("7", {}).get("rec", {}).get("7", {}).get("rec")
    return {} if serde is None else _string_map(serde, "3")


def _set_path(fields: dict[str, Any], location: str, storage: str = "7") -> None:
    """The ``path`` storage property of a ``Table`` record's fields (``storage``: the field of its storage descriptor;
    a ``Partition``'s is 6) set to ``location``, when it has one."""
    serde = fields[storage]["rec"].get("7", {}).get("rec")
    if serde is not None and "path" in _string_map(serde, "3"):
        _set_string_map(serde, "3", {**_string_map(serde, "3"), "path": location})


@attrs.frozen
class HiveTable:
    """One ``Table`` record. ``text`` is its Thrift JSON (what the log keeps), ``fields`` the same parsed; an edit
    returns a new record."""

    text: str
    fields: dict[str, Any] = attrs.field(eq=False, repr=False)

    @classmethod
    def parse(cls, text: str) -> HiveTable:
        return cls(text, json.loads(text))

    @classmethod
    def of_fields(cls, fields: dict[str, Any]) -> HiveTable:
        return cls(dump(fields), fields)

    @classmethod
    def of_java(cls, jvm: Jvm, table: Any) -> HiveTable:
        """A JVM ``Table`` record as Python data (one round trip)."""
        return cls.parse(thrift_json(jvm, table))

    def java(self, jvm: Jvm) -> Any:
        """This record as a JVM ``Table`` (two round trips), for a metastore call."""
        return thrift_value(jvm, jvm.classes.hive_table, self.text)

    # ------------------------------------------------------------------ reading

    @property
    def name(self) -> str:
        return _text(self.fields, "1") or ""

    @property
    def db(self) -> str:
        return _text(self.fields, "2") or ""

    @property
    def table_type(self) -> str:
        return _text(self.fields, "12") or ""

    @property
    def is_view(self) -> bool:
        return self.table_type == VIEW

    @property
    def parameters(self) -> dict[str, str]:
        return _string_map(self.fields, "9")

    @property
    def tag(self) -> str | None:
        """The identity tag: the hidden parameter's, else the visible one's
        (:func:`~storage.catalogs.interface.tag_in`)."""
        return tag_in(self.parameters)

    @property
    def tag_key(self) -> str:
        """Where this record keeps a tag the log gives it: a table's hidden parameter; a view's visible one (Spark's
        ALTER VIEW rewrites a view's parameters from those it reads back, which never hold a ``spark.sql.`` one)."""
        return TAG_PROPERTY if self.is_view else HIDDEN_TAG_PROPERTY

    def with_tag(self, tag: str | None) -> HiveTable:
        """The record with the identity tag ``tag`` under :attr:`tag_key` and under no other key (None: untagged).
        A visible tag of an older version of the project moves to the hidden key so."""
        others = [key for key in TAG_KEYS if key != self.tag_key or tag is None]
        return self.with_parameters(None if tag is None else {self.tag_key: tag}, remove=others)

    @property
    def location(self) -> str:
        storage = self.fields.get("7")
        return "" if storage is None else (_text(storage["rec"], "2") or "")

    @property
    def partition_keys(self) -> list[tuple[str, str]]:
        """(name, type) of each partition column, lower case."""
        return [((_text(key, "1") or "").lower(), (_text(key, "2") or "").lower())
                for key in _records(self.fields, "8")]

    @property
    def partition_column_names(self) -> list[str]:
        """The partition columns as Spark names them: a data source table's own case (kept in its parameters; Hive
        lower-cases its keys), else the keys."""
        parameters = self.parameters
        keys = [key for key, _ in self.partition_keys]
        spark = [parameters.get(f"{PARTITION_COLUMN_PROPERTY}{i}") for i in range(len(keys))]
        if all(name is not None and name.lower() == key for name, key in zip(spark, keys, strict=True)):
            return [str(name) for name in spark]
        return keys

    @property
    def partitioned(self) -> bool:
        return bool(_records(self.fields, "8"))

    # ------------------------------------------------------------------ editing (each returns a new record)

    def _edited(self) -> dict[str, Any]:
        return copy.deepcopy(self.fields)

    def renamed(self, name: TableName) -> HiveTable:
        """The record naming ``name``: the metastore alters the table a call names and takes the name inside the
        record as its new name, so a definition taken from another table must carry this one's."""
        fields = self._edited()
        fields["1"], fields["2"] = {"str": name.name}, {"str": name.db}
        return HiveTable.of_fields(fields)

    def with_parameters(self, put: Mapping[str, str] | None = None, remove: Iterable[str] = ()) -> HiveTable:
        fields = self._edited()
        parameters = _string_map(fields, "9")
        for key in remove:
            parameters.pop(key, None)
        parameters.update(put or {})
        _set_string_map(fields, "9", parameters)
        return HiveTable.of_fields(fields)

    def with_statistics_of(self, other: HiveTable) -> HiveTable:
        """This record with ``other``'s statistics instead of its own, the metastore's and Spark's: the record an
        in-place statement of Spark's (INSERT OVERWRITE, TRUNCATE) leaves untouched until its closing statistics
        update (:mod:`~storage.catalogs.spark.hms.table_statistics`)."""
        def is_statistic(key: str) -> bool:
            return (key in STATISTICS and key != "transient_lastDdlTime") or key.startswith(SPARK_STATISTICS)

        kept = {key: value for key, value in other.parameters.items() if is_statistic(key)}
        return self.with_parameters(kept, remove=[key for key in self.parameters if is_statistic(key)])

    def tagged(self, name: TableName, tag: str | None) -> HiveTable:
        """Renamed to ``name`` with the tag parameter ``tag`` (None: without one)."""
        return self.renamed(name).with_tag(tag)

    def emptied(self, name: TableName, tag: str, location: str) -> HiveTable:
        """An empty table with this whole definition under ``name`` at ``location``, tagged ``tag``: what Spark's
        TRUNCATE leaves (properties and comment kept, statistics gone)."""
        fields = self.renamed(name).with_tag(tag)._edited()
        parameters = {key: value for key, value in _string_map(fields, "9").items()
                      if key not in STATISTICS and not key.startswith(SPARK_STATISTICS)}
        _set_string_map(fields, "9", parameters)
        fields["7"]["rec"]["2"] = {"str": location}
        _set_path(fields, location)
        fields["4"], fields["5"] = {"i32": int(time.time())}, {"i32": 0}
        return HiveTable.of_fields(fields)

    @property
    def path(self) -> str | None:
        """A data source table's ``path`` storage property (where Spark reads it), None without one."""
        return storage_properties(self.fields).get("path")

    def relocated(self, location: str) -> HiveTable:
        """The record at ``location``: its storage location and (a data source table) the ``path`` Spark reads."""
        fields = self._edited()
        fields["7"]["rec"]["2"] = {"str": location}
        _set_path(fields, location)
        return HiveTable.of_fields(fields)

    def moved(self, name: TableName, location: str) -> HiveTable:
        """The record renamed to ``name`` with its ``path`` property at ``location`` and its storage location kept: the
        metastore's rename of a managed table at its default directory then moves the directory to ``location``
        (what Spark's RENAME asks of it)."""
        fields = self.renamed(name)._edited()
        _set_path(fields, location)
        return HiveTable.of_fields(fields)

    def discovering(self) -> HiveTable:
        """A partitioned data source table's definition with its partitions found in its directory rather than in
        the metastore: what a reader resolves while the metastore's partitions are being switched, and a work table
        whose partitions its files list (:mod:`~storage.catalogs.spark.hms.partition_provider`)."""
        return self.with_parameters(remove=(PARTITION_PROVIDER_PROPERTY,))

    def without_columns(self) -> HiveTable:
        """The record with no Hive columns (see ``MetastoreClient.install``)."""
        fields = self._edited()
        fields["7"]["rec"]["1"] = {"lst": ["rec", 0]}
        return HiveTable.of_fields(fields)

    def as_holder(self, name: TableName, holder_tag: str) -> HiveTable:
        """The definition as TMP keeps it for a kind exchange until the commit: external (dropping it never deletes
        ORIG's files) and tagged ``holder_tag``, so recovery knows it from any other table."""
        fields = self.renamed(name).with_parameters({"EXTERNAL": "TRUE"})._edited()
        fields["12"] = {"str": EXTERNAL}
        return HiveTable.of_fields(fields).with_tag(holder_tag)

    def as_external(self) -> HiveTable:
        """The same definition as an external table: the metastore neither moves nor deletes its files."""
        fields = self.with_parameters({"EXTERNAL": "TRUE"})._edited()
        fields["12"] = {"str": EXTERNAL}
        return HiveTable.of_fields(fields)

    def as_restored(self, name: TableName, orig_tag: str | None) -> HiveTable:
        """A holder's definition back on ORIG: managed again, with ORIG's own tag property (or none)."""
        fields = self.renamed(name).with_parameters(remove=("EXTERNAL",))._edited()
        fields["12"] = {"str": MANAGED}
        return HiveTable.of_fields(fields).with_tag(orig_tag)


@attrs.frozen
class HivePartition:
    """One ``Partition`` record (Thrift JSON, parsed)."""

    fields: dict[str, Any] = attrs.field(eq=False)

    @property
    def text(self) -> str:
        return dump(self.fields)

    @property
    def values(self) -> tuple[str, ...]:
        value = self.fields.get("1")
        return () if value is None else tuple(str(v) for v in value["lst"][2:])

    @property
    def location(self) -> str:
        storage = self.fields.get("6")
        return "" if storage is None else (_text(storage["rec"], "2") or "")

    def placed(self, name: TableName, location: str | None = None) -> HivePartition:
        """The partition of the table ``name`` (at ``location`` when given)."""
        fields = copy.deepcopy(self.fields)
        fields["2"], fields["3"] = {"str": name.db}, {"str": name.name}
        if location is not None:
            fields["6"]["rec"]["2"] = {"str": location}
        return HivePartition(fields)

    @property
    def path_property(self) -> str | None:
        """The ``path`` storage property (Spark copies its table's into each partition it adds); None without one."""
        serde = self.fields.get("6", {}).get("rec", {}).get("7", {}).get("rec")
        return None if serde is None else _string_map(serde, "3").get("path")

    def with_path_property(self, location: str) -> HivePartition:
        """The partition with its ``path`` storage property at ``location``, its storage location as it is."""
        fields = copy.deepcopy(self.fields)
        _set_path(fields, location, "6")
        return HivePartition(fields)

    def relocated(self, location: str) -> HivePartition:
        """The partition at ``location``: its storage location and the ``path`` storage property when it has one."""
        fields = copy.deepcopy(self.fields)
        fields["6"]["rec"]["2"] = {"str": location}
        _set_path(fields, location, "6")
        return HivePartition(fields)


def tables_of(jvm: Jvm, tables: Any) -> list[HiveTable]:
    """A JVM list of ``Table`` records as Python data: three round trips, whatever its length."""
    text = thrift_json(jvm, new(jvm.view, jvm.classes.hive_tables_result, tables))
    return [HiveTable.of_fields(fields) for fields in _records(json.loads(text), "1")]


def partitions_of(jvm: Jvm, partitions: Any) -> list[HivePartition]:
    """A JVM list of ``Partition`` records as Python data: two round trips, whatever its length."""
    text = thrift_json(jvm, new(jvm.view, jvm.classes.hive_partitions_result, partitions, False))
    return [HivePartition(fields) for fields in _records(json.loads(text), "1")]


def partitions_java(jvm: Jvm, partitions: Iterable[HivePartition]) -> Any:
    """A JVM ``java.util.List`` of ``partitions`` for a metastore call: three round trips, whatever its length."""
    records = [partition.fields for partition in partitions]
    holder = thrift_value(jvm, jvm.classes.hive_partitions_result,
                          dump({"1": {"lst": ["rec", len(records), *records]}, "2": {"tf": 0}}))
    return holder.getPartitions()


def name_list(jvm: Jvm, name: str) -> Any:
    """A JVM ``List`` holding ``name``: one round trip."""
    return singleton_list(jvm, name)
