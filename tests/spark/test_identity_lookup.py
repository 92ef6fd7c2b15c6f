"""The one-call identity lookup (issue 14, Performance): it must give every table exactly the identity the DESCRIBE
of earlier versions gave (logs record identities; another value would make recovery refuse to act on a logged
table), serve a statement's later lookups of the same name, and fall back to DESCRIBE where it cannot read."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL
from storage.catalogs import lookup_scope
from storage.catalogs.names import TableName
from storage.catalogs.spark import table_lookup as lookups
from storage.catalogs.spark.catalog import spark_catalog
from storage.catalogs.spark.engine import HIVE_RECORD, Engine, identity_of, object_kind
from storage.catalogs.spark.hms import version_record as versions
from storage.catalogs.spark.hms.metastore_client import MetastoreClient
from storage.catalogs.spark.hms.record_lookup import lookup_of_record
from storage.catalogs.spark.profile import jvm_of
from storage.errors import UnrenderedSchemaError

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("spare_shared")]

TABLES = {
    "plain_ctas": "CREATE TABLE {t} USING parquet AS SELECT id, id * 2 AS v, concat('r', id) AS s FROM range(3)",
    "partitioned": "CREATE TABLE {t} (a INT COMMENT 'a comment', b STRING, p STRING) USING parquet "
                   "PARTITIONED BY (p)",
    "partitioned_two": "CREATE TABLE {t} (a INT, `p,q` STRING, `r s` INT) USING parquet PARTITIONED BY (`p,q`, `r s`)",
    "types": "CREATE TABLE {t} (d DECIMAL(10,2), ts TIMESTAMP, tn TIMESTAMP_NTZ, arr ARRAY<INT>, "
             "m MAP<STRING, DOUBLE>, st STRUCT<x: INT, y: STRING COMMENT 'nested'>, dt DATE, bi BIGINT, "
             "bin BINARY, bo BOOLEAN, f FLOAT, sh SMALLINT, ti TINYINT, deep ARRAY<MAP<INT, STRUCT<z: DECIMAL(5,0)>>>, "
             "ym INTERVAL YEAR TO MONTH, y1 INTERVAL YEAR, dts INTERVAL DAY TO SECOND, h INTERVAL HOUR) USING parquet",
    "defaults": "CREATE TABLE {t} (a INT DEFAULT 42, b STRING DEFAULT 'x', c INT NOT NULL) USING parquet",
    "hive_serde": "CREATE TABLE {t} (a INT, b STRING) STORED AS parquet PARTITIONED BY (c INT)",
    "hive_text": "CREATE TABLE {t} (a INT, b STRING COMMENT 'c') STORED AS textfile",
    "external": "CREATE TABLE {t} (a INT, b STRING) USING parquet LOCATION '{dir}/ext dir%41#x'",
    "external_partitioned": "CREATE TABLE {t} (a INT, p INT) USING parquet PARTITIONED BY (p) LOCATION '{dir}/extp'",
    "tagged": "CREATE TABLE {t} (a INT) USING parquet TBLPROPERTIES ('spark_ddl_log.tag' = 'tag-123')",
    "tagged_partitioned": "CREATE TABLE {t} (a INT, p INT) USING parquet PARTITIONED BY (p) "
                          "TBLPROPERTIES ('spark_ddl_log.tag' = 'tag-456')",
    "hive_cased": "CREATE TABLE {t} (Aa INT NOT NULL, bB STRUCT<Cc: INT, dD: ARRAY<STRUCT<Ee: STRING>>>) "
                  "STORED AS parquet PARTITIONED BY (Pp STRING, Qq INT)",
    "partitions_not_last": "CREATE TABLE {t} (p STRING, a INT, q INT, b STRING) USING parquet PARTITIONED BY (q, p)",
    "long_schema": "CREATE TABLE {t} (" + ", ".join(f"a_column_with_a_rather_long_name_{i} DECIMAL(12,3) "
                                                    f"COMMENT 'comment {i}'" for i in range(80)) + ") USING parquet",
    # A Hive serde table as Hive made it (no schema in the properties): Spark reads Hive's lower-cased columns.
    "hive_bare": "CREATE TABLE {t} (Aa INT, Bb STRING) STORED AS textfile PARTITIONED BY (Cc STRING)",
    # What the one-call reading does not render: it falls back to DESCRIBE, with the same result.
    "hive_disagreeing": "CREATE TABLE {t} (a INT, b STRING) STORED AS parquet",
    "varchar": "CREATE TABLE {t} (a INT, v VARCHAR(10), c CHAR(3), st STRUCT<x: VARCHAR(5)>) USING parquet",
    "collated": "CREATE TABLE {t} (a STRING COLLATE UTF8_LCASE) USING parquet",
    "csv": "CREATE TABLE {t} (a INT, b STRING) USING csv",
}
FALLS_BACK = {"varchar", "collated", "hive_disagreeing"}
SCHEMA_KEYS = ("spark.sql.sources.schema", "spark.sql.sources.schema.numPartCols",
               "spark.sql.sources.schema.partCol.0")


def _edit_stored(spark: Any, name: TableName, key: str) -> None:
    """Make the stored record of the tables that need it what another writer would have left."""
    client = spark_catalog(spark).backend.metastore
    assert client is not None
    record = client.get(name)
    assert record is not None
    if key == "hive_bare":
        client.install(name, record.with_parameters(remove=SCHEMA_KEYS))
    elif key == "hive_disagreeing":
        schema = json.loads(record.parameters["spark.sql.sources.schema"])
        schema["fields"].append({"name": "c", "type": "long", "nullable": True, "metadata": {}})
        client.install(name, record.with_parameters(put={"spark.sql.sources.schema": json.dumps(schema)}))


def _described_identity(engine: Engine, name: TableName) -> str | None:
    info = engine.describe(name)
    assert info is not None
    return None if object_kind(info) == "VIEW" else identity_of(info)


def _make(spark: Any, db: str, keys: Iterable[str], directory: Path) -> dict[str, TableName]:
    names = {}
    for key in keys:
        name = TableName(db, key)
        spark.sql(TABLES[key].format(t=name.quoted, dir=directory))
        _edit_stored(spark, name, key)
        names[key] = name
    if "partitioned" in names:
        spark.sql(f"INSERT INTO {names['partitioned'].quoted} VALUES (1, 'b', 'p1')")
    return names


@pytest.fixture(scope="module")
def made(spark: Any, shared_db: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, TableName]:
    """Every kind of table, made once for the module: the tests that use it only read these tables."""
    return _make(spark, shared_db, TABLES, tmp_path_factory.mktemp("identity"))


@pytest.fixture
def changed(spark: Any, tmp_path: Path) -> dict[str, TableName]:
    """The two tables a DROP or RENAME below changes, made for each test."""
    return _make(spark, "default", ("plain_ctas", "partitioned"), tmp_path)


def test_one_call_identity_equals_the_described_identity(spark, made):
    engine = Engine(spark)
    jvm_read = {}
    for key, name in made.items():
        found = engine.lookup(name)
        assert found is not None, key
        assert found.identity == _described_identity(engine, name), key
        table = lookups.read_jvm_table(jvm_of(spark), name, hive=True)
        assert table is not None
        jvm_read[key] = table.tag is not None or table.material is not None
    assert {key for key, read in jvm_read.items() if not read} == FALLS_BACK
    assert engine.lookup(made["tagged"]).identity == "tag-123"  # type: ignore[union-attr]
    assert engine.lookup(made["plain_ctas"]).identity.startswith("fp:")  # type: ignore[union-attr]


RECORD_FALLS_BACK = {"hive_serde", "hive_text", "hive_cased", "hive_bare", "hive_disagreeing"}
"""Untagged Hive serde tables: Spark's catalog types their columns from Hive's (or checks its schema property against
them), which only its Hive client does: their lookup reads through it."""


def test_the_lookup_from_the_catalogs_own_record_equals_the_raw_reading(spark, made):
    """The catalog's engine looks a table up from the record its metastore client reads (and keeps for the statement):
    kind, tag, location and the fingerprint's material must be what Spark's Hive client gives, for every kind of
    table; where they cannot be told from the record it says so, and the raw reading answers."""
    client = spark_catalog(spark).backend.metastore
    assert client is not None
    jvm, fell_back = jvm_of(spark), set()
    for key, name in made.items():
        record = client.get(name)
        assert record is not None, key
        try:
            from_record = lookup_of_record(jvm, record)
        except UnrenderedSchemaError:
            fell_back.add(key)
            continue
        assert from_record == lookups.read_raw_table(jvm, name), key
    assert fell_back == RECORD_FALLS_BACK
    catalog_engine = spark_catalog(spark).names
    for key, name in made.items():
        assert catalog_engine.identity(name) == Engine(spark).lookup(name).identity, key  # type: ignore[union-attr]


def test_one_call_lookup_reads_kind_and_decoded_location_as_describe_does(spark, made):
    engine = Engine(spark)
    for key, name in made.items():
        info = engine.describe(name)
        found = engine.lookup(name)
        assert info is not None and found is not None
        assert found.kind == object_kind(info), key
        expected = info.get("location") if found.kind == "MANAGED" else None
        assert found.location == expected, key


def test_a_view_has_no_table_identity_and_a_free_name_no_lookup(spark):
    spark.sql("CREATE VIEW `default`.`v` AS SELECT 1 AS x")
    engine = Engine(spark)
    view = engine.lookup(TableName("default", "v"))
    assert view is not None and view.kind == "VIEW" and view.identity is None
    assert engine.lookup(TableName("default", "nothing_here")) is None
    assert engine.lookup(TableName("no_such_db", "t")) is None


class _ConnectLike:
    """A session without a JVM handle, as on Spark Connect: everything else is the real session's."""

    def __init__(self, spark: Any) -> None:
        self._spark = spark

    def __getattr__(self, attribute: str) -> Any:
        if attribute in ("_jsparkSession", "_jvm"):
            raise AttributeError(attribute)
        return getattr(self._spark, attribute)


def test_without_a_jvm_handle_the_lookup_describes_with_the_same_result(spark, made):
    classic, connect = Engine(spark), Engine(_ConnectLike(spark))
    for key, name in made.items():
        assert connect.lookup(name) == classic.lookup(name), key


def test_a_statement_scope_reuses_a_lookup_until_the_name_is_forgotten(spark, made, monkeypatch):
    engine = Engine(spark)
    reads: list[TableName] = []
    real = lookups.read_jvm_table

    def counting(jvm: Any, name: TableName, *, hive: bool) -> Any:
        reads.append(name)
        return real(jvm, name, hive=hive)

    monkeypatch.setattr("storage.catalogs.spark.engine.read_jvm_table", counting)
    name, free = made["plain_ctas"], TableName("default", "free_name")
    with lookup_scope.reuse_lookups():
        first = engine.lookup(name)
        assert engine.lookup(name) == first
        assert engine.lookup(free) is None and not engine.occupied(free) and engine.describe(free) is None
        assert reads == [name, free]
        engine.forget(name)
        assert engine.lookup(name) == first
        assert reads == [name, free, name]
    engine.lookup(name)
    engine.lookup(name)
    assert reads == [name, free, name, name, name]  # outside a statement nothing is kept


def _count_table_reads(monkeypatch: pytest.MonkeyPatch) -> list[TableName]:
    """The names whose record a metastore call reads from now on: through the catalog's own client (the lookup
    from the record, a version, a drop) or through Spark's Hive client (the lookup's fallback)."""
    reads: list[TableName] = []
    real_raw, real_get = lookups.read_jvm_table, MetastoreClient.get

    def raw(jvm: Any, name: TableName, *, hive: bool) -> Any:
        reads.append(name)
        return real_raw(jvm, name, hive=hive)

    def get(client: MetastoreClient, name: TableName) -> Any:
        if lookup_scope.cached(client._engine, (HIVE_RECORD, name)) is lookup_scope.MISSING_ENTRY:
            reads.append(name)
        return real_get(client, name)

    monkeypatch.setattr("storage.catalogs.spark.engine.read_jvm_table", raw)
    monkeypatch.setattr(MetastoreClient, "get", get)
    return reads


def test_drop_by_a_statement_reads_each_table_once(spark, changed, tmp_path, monkeypatch):
    """Its lookup (the identity it logs), the version it keeps and the drop itself share one read per table."""
    reads = _count_table_reads(monkeypatch)
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        ddl.drop_tables(["default.plain_ctas", "default.partitioned"])
    assert reads == [changed["plain_ctas"], changed["partitioned"]], reads
    assert not spark.catalog.tableExists("default.plain_ctas")
    assert not spark.catalog.tableExists("default.partitioned")


def test_rename_looks_up_each_name_once(spark, changed, tmp_path, monkeypatch):
    reads = _count_table_reads(monkeypatch)
    tables_before = spark.catalog.tableExists
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        ddl.rename_tables([("default.plain_ctas", "default.renamed")])
    assert reads == [changed["plain_ctas"], TableName("default", "renamed")], reads
    assert tables_before("default.renamed") and not tables_before("default.plain_ctas")


def test_a_table_logged_before_the_change_is_still_recognised_by_recovery_identity(spark, made):
    """What a log written by the DESCRIBE-based version recorded is what the lookup reports now."""
    engine = Engine(spark)
    recorded = {key: _described_identity(engine, name) for key, name in made.items()}
    with lookup_scope.reuse_lookups():
        assert {key: engine.lookup(name).identity for key, name in made.items()} == recorded  # type: ignore[union-attr]


def test_an_untagged_table_is_identified_from_its_stored_record_alone(spark, made, monkeypatch):
    """One metastore call per name: the fingerprint's material is restored from the raw record, as Spark's catalog
    restores it, never read a second time through the catalog."""
    def refused(*_: Any) -> Any:
        raise AssertionError("read again through Spark's catalog")

    monkeypatch.setattr(lookups, "tables_by_name", refused)
    engine = Engine(spark)
    for key in sorted(set(made) - FALLS_BACK):
        assert engine.lookup(made[key]) is not None, key


def test_the_one_read_definition_equals_the_catalogs_and_gives_the_lookup_too(spark, made, tmp_path):
    """A Hive session reads a statement's table once (``raw_recorded_definition``): its location and metadata are
    what Spark's catalog returns for every kind of table, and the lookup it keeps is the lookup's own, the hidden tag
    of a table the log made included; where the restored shape cannot be told it refuses (the catalog is read)."""
    engine, jvm = Engine(spark), jvm_of(spark)
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        ddl.sql(f"CREATE TABLE {made['plain_ctas'].db}.by_the_log (a INT, p STRING) USING parquet PARTITIONED BY (p)")
    tables = {**made, "by_the_log": TableName(made["plain_ctas"].db, "by_the_log")}
    refused = set()
    for key, name in tables.items():
        with lookup_scope.reuse_lookups():
            try:
                one_read = versions.raw_recorded_definition(engine, jvm, name)
            except UnrenderedSchemaError:
                refused.add(key)
                continue
            kept = lookup_scope.cached(engine, name)
        assert one_read == versions.recorded_definition(jvm, name), key
        assert kept == engine.lookup(name) or (kept is lookup_scope.MISSING_ENTRY and key in FALLS_BACK), key
    assert refused <= {"hive_disagreeing"}
    assert not engine.lookup(tables["by_the_log"]).identity.startswith("fp:")  # type: ignore[union-attr]


def test_the_definition_read_from_the_catalogs_own_record_equals_the_raw_reading(spark, made, tmp_path):
    """What a statement records of a version, read from the record the catalog's metastore client keeps for the
    statement: the location and metadata Spark's Hive client gives (Hive's statistics, ``comment`` and
    ``EXTERNAL`` left out of the properties as it leaves them), and the same lookup kept; an untagged Hive serde
    table is left to the raw reading."""
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        ddl.sql(f"CREATE TABLE {made['plain_ctas'].db}.by_the_log_too USING parquet COMMENT 'c' "
                "TBLPROPERTIES ('k' = 'v') AS SELECT 1 AS a")
    tables = {**made, "by_the_log": TableName(made["plain_ctas"].db, "by_the_log_too")}
    client = spark_catalog(spark).backend.metastore
    assert client is not None
    engine, jvm, fell_back = Engine(spark), jvm_of(spark), set()
    for key, name in tables.items():
        with lookup_scope.reuse_lookups():
            try:
                from_record = versions.record_recorded_definition(engine, jvm, name, client.get(name))
            except UnrenderedSchemaError:
                fell_back.add(key)
                continue
            kept = lookup_scope.cached(engine, name)
        with lookup_scope.reuse_lookups():
            assert from_record == versions.raw_recorded_definition(engine, jvm, name), key
            assert kept == lookup_scope.cached(engine, name), key
    assert fell_back == RECORD_FALLS_BACK


def test_the_metadata_read_from_the_record_equals_the_described_metadata(spark, made, tmp_path):
    """A statement's metadata of its table (columns and their types, partitioning, user-visible properties, provider,
    comment, kind) read from the table's one record on a classic session is what Spark's DESCRIBE, schema and SHOW
    TBLPROPERTIES say of it, for every kind of table: a tagged one, properties Spark redacts, an empty value, a
    comment, CHAR and VARCHAR, collations, defaults, Hive serde tables as Spark or Hive made them."""
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        db = made["plain_ctas"].db
        ddl.sql(f"CREATE TABLE {db}.by_the_log_meta (a INT COMMENT 'c', v VARCHAR(3)) USING parquet "
                "COMMENT 'a table' TBLPROPERTIES ('k' = 'v', 'empty' = '', 'secret.password' = 'p', "
                "'odd \\' key' = 'odd \\\\ value')")
    definitions = spark_catalog(spark).definitions
    tables = {**made, "by_the_log": TableName(made["plain_ctas"].db, "by_the_log_meta")}
    for key, name in tables.items():
        assert definitions.table_metadata(name) == definitions.described_metadata(name), key
    assert definitions.table_metadata(TableName(made["plain_ctas"].db, "no_such_table")) is None
