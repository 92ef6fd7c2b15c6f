"""A session's cached relation of a table this JVM's engine has replaced since is dropped before a query resolves the
table (the extension's ``FreshRelations``, in every session built with it, turned on or off): another session of the
driver reads the version the statement installed, and a relation of the old version that a reader thread stored in
the writer's own session after the replace (Spark's lookup is a get, a build, then a put) is not read again. A
relation that another driver's replace left current is kept, and the note forgotten."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ddl_log import AtomicDDL
from storage.catalogs.names import TableName
from storage.catalogs.spark.catalog import spark_catalog
from storage.catalogs.spark.hms.metastore_client import MetastoreClient
from storage.catalogs.spark.restored_schema import SCHEMA_PROPERTY

pytestmark = pytest.mark.spark

INT_SCHEMA = '{"type":"struct","fields":[{"name":"v","type":"integer","nullable":true,"metadata":{}}]}'


@pytest.fixture
def ddl(clean_spark: Any, tmp_path: Any) -> Iterator[AtomicDDL]:
    with AtomicDDL(spark=clean_spark, home=tmp_path / "home", retention_seconds=3600) as engine:
        yield engine


def values(session: Any, name: str = "fr") -> list[int]:
    return sorted(row.v for row in session.table(name).collect())


def cached_relation(spark: Any, name: str) -> Any:
    key = spark._jvm.org.apache.spark.sql.catalyst.QualifiedTableName("spark_catalog", "default", name)
    return key, spark._jsparkSession.sessionState().catalog().getCachedTable(key)


def test_another_session_of_the_driver_reads_every_version_the_engine_installs(clean_spark: Any,
                                                                                ddl: AtomicDDL) -> None:
    reader = clean_spark.newSession()
    ddl.sql("CREATE TABLE fr USING parquet PARTITIONED BY (p) AS SELECT 1 AS v, 1 AS p")
    assert values(reader) == [1]  # the reader's session caches the relation
    ddl.sql("CREATE OR REPLACE TABLE fr USING parquet PARTITIONED BY (p) AS SELECT 2 AS v, 1 AS p")
    assert values(reader) == [2]
    ddl.sql("INSERT OVERWRITE TABLE fr SELECT 3, 2")
    assert values(reader) == [3]
    ddl.sql("TRUNCATE TABLE fr")
    assert values(reader) == []
    ddl.sql("INSERT OVERWRITE TABLE fr SELECT 4, 1")
    history = ddl.sql("DESCRIBE HISTORY fr")[-1].result.rows
    replaced = next(row.version for row in history if row.operation == "CREATE OR REPLACE TABLE")
    ddl.sql(f"RESTORE TABLE fr TO VERSION AS OF {replaced}")
    assert values(reader) == [2]
    assert reader.sql("SELECT max(v) AS v FROM default.fr").collect()[0].v == 2
    assert reader.sql("SELECT v FROM spark_catalog.default.fr WHERE v IN (SELECT v FROM fr)").collect()[0].v == 2


def test_a_relation_of_the_old_version_stored_after_the_replace_is_not_read(clean_spark: Any,
                                                                           ddl: AtomicDDL) -> None:
    """The same-session race, staged: the old version's relation put back into the writer's session after the
    replace, as a reader thread that read the old definition just before the install stores it."""
    spark = clean_spark
    ddl.sql("CREATE TABLE fr USING parquet AS SELECT 1 AS v")
    assert values(spark) == [1]
    key, old = cached_relation(spark, "fr")
    assert old is not None
    ddl.sql("CREATE OR REPLACE TABLE fr USING parquet AS SELECT 2 AS v")
    spark._jsparkSession.sessionState().catalog().cacheTable(key, old)
    assert values(spark) == [2]
    assert spark.sql("SELECT * FROM fr").collect()[0].v == 2


def test_a_relation_left_current_by_another_drivers_replace_stays_cached(clean_spark: Any, ddl: AtomicDDL,
                                                                          tmp_path: Any) -> None:
    """Another driver's change is not told to this JVM: its relation, once built, is current and stays."""
    spark = clean_spark
    ddl.sql("CREATE TABLE fr USING parquet AS SELECT 1 AS v")
    reader = spark.newSession()
    assert values(reader) == [1]
    elsewhere = tmp_path / "elsewhere"  # as another driver would: Spark's own statement writes a new location
    spark.sql(f"ALTER TABLE fr SET LOCATION '{elsewhere}'")
    spark.range(1).selectExpr("CAST(5 AS INT) AS v").write.mode("overwrite").parquet(str(elsewhere))
    reader.catalog.refreshTable("fr")
    assert values(reader) == [5]
    built = cached_relation(reader, "fr")[1]
    assert values(reader) == [5]
    assert cached_relation(reader, "fr")[1] is not None
    assert cached_relation(reader, "fr")[1].equals(built)  # kept: not rebuilt by every query


def test_a_cached_table_replaced_is_read_at_its_new_version_as_after_sparks_own_write(clean_spark: Any,
                                                                                      ddl: AtomicDDL) -> None:
    """A session that caches data (CACHE TABLE) has its cached rows of the table dropped and cached again, as Spark's
    own INSERT OVERWRITE does; one that caches nothing only has its relation invalidated (FreshRelations does the
    rest)."""
    spark = clean_spark
    ddl.sql("CREATE TABLE fr USING parquet AS SELECT 1 AS v")
    persisted = spark.sparkContext._jsc.getPersistentRDDs().size()
    spark.sql("CACHE TABLE fr")
    try:
        assert values(spark) == [1]
        ddl.sql("INSERT OVERWRITE TABLE fr SELECT 2")
        assert values(spark) == [2]
        assert spark.catalog.isCached("fr")
        ddl.sql("CREATE OR REPLACE TABLE fr USING parquet AS SELECT 3 AS v")
        assert values(spark) == [3]
        ddl.sql("TRUNCATE TABLE fr")
        assert values(spark) == []
        history = ddl.sql("DESCRIBE HISTORY fr")[-1].result.rows
        replaced = next(row.version for row in history if row.operation == "CREATE OR REPLACE TABLE")
        ddl.sql(f"RESTORE TABLE fr TO VERSION AS OF {replaced}")
        assert values(spark) == [3]
        assert spark.catalog.isCached("fr")
        # the old versions' cached rows let go
        assert spark.sparkContext._jsc.getPersistentRDDs().size() == persisted + 1
    finally:
        spark.catalog.clearCache()


def test_a_relation_of_a_torn_definition_is_not_read(clean_spark: Any, ddl: AtomicDDL) -> None:
    """A metastore read that overlaps an install under read-committed isolation (embedded Derby, Hive's default) can
    return the new version's location with the old version's schema; a reader thread of the writer's session then
    stores a relation at the installed location that reads the new files with the old types (found by the readers'
    proof: eight failed reads, then the writer's next ALTER failed reading the table). Staged: the old schema put on
    the installed record, the relation built, the installed record put back. The relation goes (its schema is not the
    installed one), and the writer's next statement reads the table."""
    spark = clean_spark
    ddl.sql("CREATE TABLE fr USING parquet AS SELECT CAST(1 AS INT) AS v")
    ddl.sql("ALTER TABLE fr ALTER COLUMN v TYPE BIGINT")
    name = TableName("default", "fr")
    client = MetastoreClient(spark_catalog(spark).views._engine)
    installed = client.get(name)
    assert installed is not None
    client.install(name, installed.with_parameters({SCHEMA_PROPERTY: INT_SCHEMA}))
    spark._jsparkSession.sessionState().catalog().invalidateCachedTable(cached_relation(spark, "fr")[0])
    assert spark.table("fr").schema["v"].dataType.typeName() == "integer"  # the torn relation, cached
    client.install(name, installed)
    assert cached_relation(spark, "fr")[1].schema().apply("v").dataType().typeName() == "integer"
    assert values(spark) == [1]
    assert spark.table("fr").schema["v"].dataType.typeName() == "long"
    ddl.sql("ALTER TABLE fr ALTER COLUMN v TYPE INT")
    assert values(spark) == [1]
