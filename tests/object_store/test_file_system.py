"""The simulated object store has S3's semantics where they matter to a DDL log (issue 40): a rename is a copy then a
delete, object by object, so a failure in the middle leaves both halves and a directory's rename costs a request per
file; a directory is a prefix (a marker when empty); nothing is visible before ``close``, and ``hsync`` throws; every
request waits the configured latency; renames are counted by kind. And Spark's own writers work on it, their commit
renames counted apart from data renames."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from py4j.protocol import Py4JJavaError

from tests.object_store.store import BUCKET, SCHEME, StoreCalls, backing_path

pytestmark = pytest.mark.spark


class Store:
    """Hadoop's FileSystem API of the session on keys under ``base`` (a prefix of the test's own)."""

    def __init__(self, spark: Any, base: str) -> None:
        self.spark, self.base = spark, base
        self.jvm = spark._jvm
        self.fs = self.path(base).getFileSystem(spark._jsc.hadoopConfiguration())

    def path(self, key: str) -> Any:
        return self.jvm.org.apache.hadoop.fs.Path(key if "://" in key else f"{self.base}/{key}")

    def put(self, key: str, data: bytes = b"x") -> None:
        stream = self.fs.create(self.path(key), True)
        stream.write(bytearray(data))
        stream.close()

    def read(self, key: str) -> bytes:
        stream = self.fs.open(self.path(key))
        try:
            return bytes(self.jvm.org.apache.commons.io.IOUtils.toByteArray(stream))
        finally:
            stream.close()

    def exists(self, key: str) -> bool:
        return bool(self.fs.exists(self.path(key)))

    def is_dir(self, key: str) -> bool:
        return bool(self.fs.getFileStatus(self.path(key)).isDirectory())

    def names(self, key: str) -> list[str]:
        return sorted(str(status.getPath().getName()) for status in self.fs.listStatus(self.path(key)))

    def files(self, key: str) -> list[str]:
        """Every object under ``key``, relative to it."""
        base = str(self.fs.makeQualified(self.path(key)).toString()).rstrip("/") + "/"
        listing, found = self.fs.listFiles(self.path(key), True), []
        while listing.hasNext():
            found.append(str(listing.next().getPath().toString()).removeprefix(base))
        return sorted(found)


@pytest.fixture
def store(spark: Any, request: pytest.FixtureRequest) -> Iterator[Store]:
    calls = StoreCalls(spark)
    calls.clear_faults()
    calls.set_latency(0)
    kit = Store(spark, f"{SCHEME}://{BUCKET}/fs-tests/{request.node.name.replace('[', '-').rstrip(']')}")
    kit.fs.delete(kit.path(kit.base), True)
    calls.reset()
    yield kit
    calls.clear_faults()
    calls.set_latency(0)
    kit.fs.delete(kit.path(kit.base), True)


def java_error(error: BaseException) -> str:
    """The Java class of a JVM error (py4j's, or PySpark's conversion of it, which keeps the original)."""
    origin = error.java_exception if isinstance(error, Py4JJavaError) else getattr(error, "_origin", None)
    assert origin is not None, error
    return str(origin.getClass().getName())


def test_a_directory_rename_copies_then_deletes_each_object_and_is_counted_as_a_data_rename(spark, store):
    for index in range(5):
        store.put(f"t/part-{index}")
    store.put("t/k=1/part-9")
    calls = StoreCalls(spark)
    calls.reset()
    assert store.fs.rename(store.path("t"), store.path("u"))
    assert not store.exists("t") and store.files("u") == ["k=1/part-9", *(f"part-{i}" for i in range(5))]
    counts = calls.counts()
    assert counts["rename"] == 1 and counts["copy"] == 6 and counts["rename.data.objects"] == 6
    [rename] = calls.renames()
    assert (rename.kind, rename.objects) == ("data", 6)
    assert rename.source.endswith("/t") and rename.target.endswith("/u")


def test_a_rename_that_fails_midway_leaves_both_halves(spark, store):
    """What a process killed in the middle of an S3 directory rename leaves: neither the old directory whole nor the
    new one, and the object being moved at both places (copied, its source not deleted yet)."""
    for index in range(5):
        store.put(f"t/part-{index}")
    StoreCalls(spark).inject("rename:1:2")
    with pytest.raises(Py4JJavaError) as failed:
        store.fs.rename(store.path("t"), store.path("u"))
    assert java_error(failed.value) == "java.io.IOException" and "injected fault" in str(failed.value)
    assert store.files("t") == ["part-1", "part-2", "part-3", "part-4"] and store.files("u") == ["part-0", "part-1"]


def test_a_fault_rule_counts_only_its_kind_and_fires_once(spark, store):
    store.put("_temporary/0/task/part-0")
    store.put("d/part-0")
    calls = StoreCalls(spark)
    calls.inject("rename.data:1")
    assert store.fs.rename(store.path("_temporary/0/task/part-0"), store.path("part-0"))  # staging: no fault
    with pytest.raises(Py4JJavaError):
        store.fs.rename(store.path("d"), store.path("e"))
    assert store.fs.rename(store.path("d"), store.path("e"))  # fired once
    assert [r.kind for r in calls.renames()] == ["staging", "data"]


def test_a_directory_is_a_prefix_and_mkdirs_leaves_a_marker(spark, store):
    assert not store.exists("a")
    store.put("a/b/c/object")
    assert store.is_dir("a") and store.is_dir("a/b") and store.names("a/b") == ["c"]
    assert store.fs.delete(store.path("a/b/c/object"), False)
    assert store.is_dir("a/b/c") and store.names("a/b/c") == []  # as S3A: the parent's marker stays
    assert store.fs.mkdirs(store.path("m/n"))
    assert store.is_dir("m/n") and store.names("m") == ["n"]
    local = backing_path(spark, str(store.fs.makeQualified(store.path("m/n")).toString()))
    assert local is not None and local.is_dir() and not any(local.iterdir())  # the marker: an empty directory
    with pytest.raises(Py4JJavaError) as refused:
        store.fs.delete(store.path("a"), False)
    assert java_error(refused.value) == "org.apache.hadoop.fs.PathIsNotEmptyDirectoryException"
    assert store.fs.delete(store.path("a"), True) and not store.exists("a")


def test_an_object_is_invisible_until_close_and_hsync_throws(spark, store):
    stream = store.fs.create(store.path("o"), True)
    stream.write(bytearray(b"half"))
    stream.hflush()  # a counted no-op, as S3A's since Hadoop 3.4.2: nothing becomes visible
    assert not store.exists("o")
    with pytest.raises(Exception) as refused:  # PySpark converts some JVM errors: class below
        stream.hsync()
    assert java_error(refused.value) == "java.lang.UnsupportedOperationException"
    assert "not Syncable" in str(refused.value)
    assert not stream.hasCapability("hsync") and not stream.hasCapability("hflush")
    assert not store.exists("o")
    stream.close()
    assert store.read("o") == b"half"
    counts = StoreCalls(spark).counts()
    assert counts["hsync"] == 1 and counts["hflush"] == 1


def test_what_s3a_refuses_is_refused(spark, store):
    store.put("f", b"1")
    store.put("d/g", b"2")
    assert not store.fs.rename(store.path("d/g"), store.path("f"))  # onto an object
    assert not store.fs.rename(store.path("missing"), store.path("x"))
    assert not store.fs.rename(store.path("d"), store.path("d/inner"))
    with pytest.raises(Exception) as refused:  # converted by PySpark: class below
        store.fs.append(store.path("f"))
    assert java_error(refused.value) == "java.lang.UnsupportedOperationException"
    with pytest.raises(Py4JJavaError) as refused:
        store.fs.create(store.path("d"), True)
    assert java_error(refused.value) == "org.apache.hadoop.fs.FileAlreadyExistsException"
    with pytest.raises(Py4JJavaError) as refused:
        store.fs.create(store.path("f"), False)
    assert java_error(refused.value) == "org.apache.hadoop.fs.FileAlreadyExistsException"
    assert store.fs.rename(store.path("d/g"), store.path("d2/g"))  # S3A needs no destination parent
    assert store.read("d2/g") == b"2" and store.is_dir("d")


def test_every_request_waits_the_latency_and_a_rename_one_more_per_object(spark, store):
    for index in range(4):
        store.put(f"t/part-{index}")
    calls = StoreCalls(spark)
    calls.set_latency(25)
    started = time.monotonic()
    store.fs.getFileStatus(store.path("t"))
    one = time.monotonic() - started
    started = time.monotonic()
    store.fs.rename(store.path("t"), store.path("u"))
    renamed = time.monotonic() - started
    calls.set_latency(0)
    assert one >= 0.025 and renamed >= 5 * 0.025


def test_a_recursive_listing_is_one_flat_request_as_on_s3a(spark, store):
    """S3A lists every key under a prefix in one request per page (``listFiles(path, true)``); walking prefixes
    as directories (``listStatus`` each) is what a store does not need."""
    for key in ("t/a=1/f1", "t/a=1/f2", "t/a=2/f3", "t/a=3/b/f4"):
        store.put(key)
    calls = StoreCalls(spark)
    calls.reset()
    listing, found = store.fs.listFiles(store.path("t"), True), []
    while listing.hasNext():
        found.append(str(listing.next().getPath()).rsplit("/t/", 1)[1])
    assert found == ["a=1/f1", "a=1/f2", "a=2/f3", "a=3/b/f4"]
    assert calls.counts()["listFiles"] == 1 and calls.counts()["listStatus"] == 0


def test_sparks_writers_work_and_their_commit_renames_are_staging_renames(spark, clean_spark):
    calls = StoreCalls(spark)
    calls.reset()
    spark.sql("CREATE TABLE c USING parquet AS SELECT id, id % 3 AS k FROM range(30)")
    spark.sql("CREATE TABLE p (v BIGINT, k BIGINT) USING parquet PARTITIONED BY (k)")
    spark.sql("INSERT INTO p SELECT id, k FROM c")
    spark.sql("SET spark.sql.sources.partitionOverwriteMode=dynamic")
    try:
        spark.sql("INSERT OVERWRITE p SELECT id + 100, k FROM c WHERE k = 1")
    finally:
        spark.sql("RESET spark.sql.sources.partitionOverwriteMode")
    spark.sql("CREATE TABLE h (a INT) STORED AS parquet")
    spark.sql("INSERT INTO h VALUES (1), (2)")
    assert spark.table("c").count() == 30 and spark.table("h").count() == 2
    assert sorted(r.v for r in spark.table("p").where("k = 1").collect()) == list(range(101, 130, 3))
    renames = calls.renames()
    assert renames and {r.kind for r in renames} == {"staging"}, renames
    assert str(spark.sql("DESCRIBE TABLE EXTENDED c").where("col_name = 'Location'").first()[1]).startswith(
        f"{SCHEME}://{BUCKET}/")


def test_a_version_s_files_are_listed_in_one_round_trip_and_alike_without_the_project_s_jar(spark, store, monkeypatch):
    """The files a kept version records (a DROP's, a replace's): the project's JVM part lists a directory in one Py4J
    round trip (a 1,000-file table's DROP spent 0.8 s walking Hadoop's listing from Python); a session without its
    jar walks the listing, with the same answer: data files of every partition, relative, hidden ones left out (a
    hidden directory never entered where the listing walks directory by directory: HDFS, a local disk)."""
    from storage.catalogs.spark.catalog import spark_catalog
    from storage.catalogs.spark.fs import data_listing

    for key in ("t/part-0.parquet", "t/p=1/part-1.parquet", "t/p=1/q=a%2Fb/part-2.parquet", "t/_SUCCESS",
                "t/.part-0.parquet.crc", "t/_temporary/0/part-9.parquet", "t/p=2/.hidden/part-3.parquet"):
        store.put(key)
    mover = spark_catalog(spark).data.file_mover()
    expected = ("p=1/part-1.parquet", "p=1/q=a%2Fb/part-2.parquet", "part-0.parquet")
    assert data_listing.listing_in_jvm(spark_catalog(spark).backend.engine.jvm)
    assert mover.data_files(f"{store.base}/t") == expected
    monkeypatch.setattr(data_listing, "WALKED_SCHEMES", frozenset({SCHEME}))  # as HDFS: directory by directory
    assert mover.data_files(f"{store.base}/t") == expected
    monkeypatch.setattr(data_listing, "listing_in_jvm", lambda jvm: False)
    assert mover.data_files(f"{store.base}/t") == expected
    assert mover.data_files(f"{store.base}/missing") == ()


def test_a_table_s_tree_is_listed_alike_flat_walked_and_without_the_project_s_jar(spark, store, monkeypatch):
    """What a statement takes along with a partition directory it keeps (its ``_SUCCESS`` too, and a directory that
    holds nothing but it): one round trip through the project's jar, flat on a store, walked as on HDFS, and walked
    from Python without the jar, with the same answer."""
    from storage.catalogs.directory_walk import TableTree
    from storage.catalogs.spark.catalog import spark_catalog
    from storage.catalogs.spark.fs import data_listing

    for key in ("t/part-0.parquet", "t/p=1/part-1.parquet", "t/p=1/q=a%2Fb/part-2.parquet", "t/_SUCCESS",
                "t/.part-0.parquet.crc", "t/p=1/_SUCCESS", "t/p=2/_SUCCESS", "t/_temporary/0/part-9.parquet"):
        store.put(key)
    mover = spark_catalog(spark).data.file_mover()
    expected = TableTree(data=("p=1/part-1.parquet", "p=1/q=a%2Fb/part-2.parquet", "part-0.parquet"),
                         markers=("p=1/_SUCCESS", "p=2/_SUCCESS"), directories=("p=1", "p=1/q=a%2Fb", "p=2"))
    assert mover.tree(f"{store.base}/t") == expected
    monkeypatch.setattr(data_listing, "WALKED_SCHEMES", frozenset({SCHEME}))  # as HDFS: directory by directory
    assert mover.tree(f"{store.base}/t") == expected
    monkeypatch.setattr(data_listing, "listing_in_jvm", lambda jvm: False)
    assert mover.tree(f"{store.base}/t") == expected
    assert mover.tree(f"{store.base}/missing") == TableTree((), (), ())
