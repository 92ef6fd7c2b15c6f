"""A home lives where its log can be fsynced (issue 40): a directory on a local disk, or PostgreSQL. A URL of
another file system (an object store, HDFS) or a local path on a FUSE mount of an object store is refused at open with
:class:`UnsyncableHomeError`, which says what is supported, before anything is created (today's defect it fixes:
``s3a://bucket/home`` silently became a local directory ``./s3a:/bucket/home``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ddl_log import AtomicDDL, InvalidHomeError, UnsyncableHomeError
from ddl_log.engine.tables import CreateDatabase
from storage.catalogs.memory import memory_catalog
from storage.records.home import home_stores, open_home
from storage.records.home_places import local_home_path, mount_of, object_store_mount

OBJECT_STORE_URLS = ["s3a://bucket/home", "s3://bucket/home", "gs://bucket/home", "abfss://c@acct.dfs.core.windows.net/h",
                     "wasbs://c@acct.blob.core.windows.net/h", "oss://bucket/home", "s3sim://bucket/home",
                     "S3A://Bucket/Home", "s3a:/bucket/home"]


@pytest.mark.parametrize("url", [*OBJECT_STORE_URLS, "hdfs://namenode:8020/ddl/home", "viewfs://cluster/home"])
def test_a_home_at_a_url_of_another_file_system_is_refused_and_nothing_is_created(tmp_path, monkeypatch, url):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UnsyncableHomeError) as refused:
        AtomicDDL(home=url, catalog=memory_catalog())
    error = refused.value
    assert isinstance(error, InvalidHomeError) and error.location == url
    assert "local disk" in str(error) and "PostgreSQL" in str(error) and "postgresql://" in str(error)
    assert list(tmp_path.iterdir()) == []  # no ./s3a: directory
    with pytest.raises(UnsyncableHomeError):
        home_stores(url)  # `ddl-log status --home URL` reads nothing either


@pytest.mark.parametrize("url", OBJECT_STORE_URLS)
def test_an_object_store_is_refused_because_it_cannot_fsync(url):
    with pytest.raises(UnsyncableHomeError, match=r"nothing can be fsynced \(S3A's hsync throws, HADOOP-17597\)"):
        open_home(url)


def test_hdfs_is_refused_because_the_log_is_written_with_local_file_calls():
    with pytest.raises(UnsyncableHomeError, match="local file calls") as refused:
        open_home("hdfs://namenode:8020/ddl/home")
    assert "HDFS may hold tables" in str(refused.value)


@pytest.mark.parametrize("form", ["file:{path}", "file://{path}", "file://localhost{path}"])
def test_a_file_url_is_the_local_directory_it_names(tmp_path, monkeypatch, form):
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "home"
    with AtomicDDL(home=form.format(path=home), catalog=memory_catalog()) as ddl:
        ddl.run(CreateDatabase(name="d"))
    assert (home / "ddl_log").is_dir() and [p.name for p in tmp_path.iterdir()] == ["home"]
    with AtomicDDL(home=str(home), catalog=memory_catalog()) as again:
        assert len(again.binlog_events()) == 1


def test_a_file_url_of_another_host_is_refused():
    with pytest.raises(UnsyncableHomeError, match="another host"):
        local_home_path("file://otherhost/ddl/home")


def test_a_local_directory_and_a_database_url_are_homes_as_before(tmp_path):
    assert local_home_path(str(tmp_path / "h")) == str(tmp_path / "h")
    assert local_home_path("relative/home") == os.path.abspath("relative/home")
    with AtomicDDL(home=tmp_path / "h", catalog=memory_catalog()) as ddl:
        assert ddl.home.location == str(tmp_path / "h")


MOUNTINFO = """\
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
30 27 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw
61 27 0:51 / /mnt/s3 rw,nosuid,nodev - fuse.s3fs s3fs rw,user_id=0
62 27 0:52 / /mnt/gcs rw - fuse.gcsfuse my-bucket rw
63 27 0:53 / /mnt/mp rw - fuse mountpoint-s3 rw
64 27 0:54 / /mnt/with\\040blank rw - fuse.goofys bucket rw
65 61 0:55 / /mnt/s3/local rw - ext4 /dev/vdb rw
66 27 0:56 / /mnt/juice rw - fuse.juicefs JuiceFS:vol rw
"""


@pytest.mark.parametrize(("path", "store"), [
    ("/mnt/s3/ddl/home", "s3fs"), ("/mnt/gcs/h", "gcsfuse"), ("/mnt/mp/h", "mountpoint-s3"),
    ("/mnt/with blank/h", "goofys"), ("/mnt/s3/local/h", None), ("/mnt/s3x/h", None), ("/dev/shm/h", None),
    ("/mnt/juice/h", None), ("/home/u/h", None)])
def test_the_mount_table_tells_an_object_store_fuse_mount_from_a_disk(tmp_path, path, store):
    """A later mount below another wins (a disk under an s3fs mount is a disk); JuiceFS is a POSIX file system that
    fsyncs, not an object store's files; a path that does not exist yet is judged by its nearest existing parent."""
    table = tmp_path / "mountinfo"
    table.write_text(MOUNTINFO, encoding="utf-8")
    assert object_store_mount(path, str(table)) == store


def test_a_path_on_an_object_store_mount_is_refused_naming_the_mount(tmp_path):
    table = tmp_path / "mountinfo"
    table.write_text(MOUNTINFO.replace("/mnt/s3 ", f"{tmp_path / 'bucket'} "), encoding="utf-8")
    with pytest.raises(UnsyncableHomeError, match="s3fs mount of an object store"):
        local_home_path(str(tmp_path / "bucket" / "home"), str(table))
    assert not (tmp_path / "bucket").exists()


def test_this_machines_temporary_directory_is_a_place_for_a_home(tmp_path):
    """The real mount table (Linux): the tests' directories are on a disk or tmpfs, never refused."""
    assert object_store_mount(str(tmp_path)) is None
    assert mount_of(str(Path(tmp_path).resolve()), Path("/proc/self/mountinfo").read_text()) is not None
