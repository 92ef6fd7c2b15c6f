"""A table directory's data files are listed while another writer changes it: plain Spark's CTAS committing task
directories under ``_temporary`` at the same path, a DROP removing the tree. The listing never enters a hidden
directory, never fails on what goes away while it looks, and lists only data files that were there throughout."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

from storage.catalogs.directory_walk import TableTree, hidden, local_data_files, local_table_tree


def _writer_churning(root: Path, stop: threading.Event) -> None:
    """A CTAS's tasks (attempt directories made, renamed as each commits, removed at the job's end), a partition
    directory coming and going, and the whole tree dropped and made again, as fast as it goes."""
    round_ = 0
    while not stop.is_set():
        round_ += 1
        attempt = root / "_temporary" / "0" / "_temporary" / f"attempt_{round_}"
        attempt.mkdir(parents=True, exist_ok=True)
        (attempt / f"part-{round_}.parquet").write_bytes(b"x")
        committed = root / "_temporary" / "0" / f"task_{round_}"
        attempt.rename(committed)
        passing = root / f"p={round_ % 3}"
        passing.mkdir(exist_ok=True)
        (passing / "part-0.parquet").write_bytes(b"y")
        shutil.rmtree(passing, ignore_errors=True)
        if round_ % 7 == 0:
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir(parents=True, exist_ok=True)
            (root / "part-kept.parquet").write_bytes(b"z")
        shutil.rmtree(root / "_temporary", ignore_errors=True)


def test_a_directory_changing_under_the_listing_never_fails_it(tmp_path: Path) -> None:
    root = tmp_path / "t"
    root.mkdir()
    (root / "part-kept.parquet").write_bytes(b"z")
    stop = threading.Event()
    writer = threading.Thread(target=_writer_churning, args=(root, stop), daemon=True)
    writer.start()
    listings = 0
    try:
        until = time.monotonic() + 2.0
        while time.monotonic() < until:
            for entry in local_data_files(root):
                assert not any(hidden(part) for part in entry.relative.split("/")), entry
                assert entry.relative == "part-kept.parquet" or entry.relative.startswith("p="), entry
            listings += 1
    finally:
        stop.set()
        writer.join()
    assert listings > 50


def test_hidden_names_are_neither_listed_nor_entered(tmp_path: Path) -> None:
    for relative in ("part-0.parquet", "p=1/part-1.parquet", "p=1/q=a%2Fb/part-2.parquet", "_SUCCESS",
                     ".part-0.parquet.crc", "_temporary/0/part-9.parquet", "p=2/.hidden/part-3.parquet",
                     ".spark-staging-1/p=3/part-4.parquet"):
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"abc")
    listed = local_data_files(tmp_path)
    assert [entry.relative for entry in listed] == ["p=1/part-1.parquet", "p=1/q=a%2Fb/part-2.parquet",
                                                    "part-0.parquet"]
    assert {entry.size for entry in listed} == {3} and all(entry.modified > 0 for entry in listed)


def test_a_missing_directory_or_a_file_lists_nothing(tmp_path: Path) -> None:
    assert local_data_files(tmp_path / "missing") == ()
    (tmp_path / "f").write_bytes(b"")
    assert local_data_files(tmp_path / "f") == ()


def test_a_tree_has_the_markers_and_the_directories_a_partition_keeps_too(tmp_path: Path) -> None:
    """What a statement takes along with a partition directory it does not replace: its data files, its hidden files
    (not the table's own ``_SUCCESS``, not those in a hidden directory) and every directory, an empty one too."""
    for relative in ("part-0.parquet", "_SUCCESS", "p=1/part-1.parquet", "p=1/_SUCCESS", "p=1/.part-1.parquet.crc",
                     "p=2/_SUCCESS", "p=3/_temporary/0/part-9.parquet", ".spark-staging-1/p=4/part-4.parquet"):
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"abc")
    (tmp_path / "p=5").mkdir()
    assert local_table_tree(tmp_path) == TableTree(
        data=("p=1/part-1.parquet", "part-0.parquet"),
        markers=("p=1/.part-1.parquet.crc", "p=1/_SUCCESS", "p=2/_SUCCESS"),
        directories=("p=1", "p=2", "p=3", "p=5"))
    assert local_table_tree(tmp_path / "missing") == TableTree((), (), ())
