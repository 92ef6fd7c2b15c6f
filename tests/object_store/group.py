"""The object-store group (issue 40): the tests of tests/object_store and today's crash sweeps of every whole-table
statement, run in one test process whose Spark session has its warehouse on the simulated store.

``python -m tests.object_store.group [--full] [PYTEST ARGS]``: ``make test-object-store`` runs it in full; ``make
test`` runs the short form through tests/object_store/test_group.py (one Spark start for the whole group). What
fails on the store today is a strict xfail there (tests/object_store/expectations.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.object_store.store import RUN_ENV

ROOT = Path(__file__).resolve().parent.parent.parent
OWN = "tests/object_store"
WHOLE_TABLE = ("ctas", "create_like", "drop_tables", "truncate_partitioned", "truncate_partition", "insert_overwrite",
               "insert_overwrite_partitioned", "insert_overwrite_dynamic", "insert_overwrite_static_spec",
               "alter_change_type", "alter_drop_column", "drop_database_cascade", "rename_swap", "view_becomes_table",
               "table_becomes_view")
"""The statements of tests/spark/test_statement_sweeps.py that write, replace, keep or move a table's data."""
STATEMENT_SWEEP = ("tests/spark/test_statement_sweeps.py::"
                   "test_crash_around_every_catalog_operation_leaves_before_or_after")
FULL = [
    OWN,
    *(f"{STATEMENT_SWEEP}[{name}]" for name in WHOLE_TABLE),
    "tests/spark/test_replace_sweep.py",
    "tests/spark/test_versions.py::test_crash_around_every_catalog_operation_leaves_before_or_after",
    "tests/spark/test_versions.py::test_a_crash_anywhere_in_a_create_over_a_dropped_name_keeps_the_version_whole",
    "tests/spark/test_insert_into.py::test_insert_into_crashed_anywhere_adds_every_new_row_or_none",
    "tests/replication/test_install_sweep.py",
    "tests/spark/test_write_path.py::test_crash_at_every_point_of_a_partitioned_overwrite_written_in_place",
    "tests/spark/test_write_path.py::test_crash_at_every_point_of_a_static_partition_overwrite_written_in_place",
]
"""``make test-object-store``: the store's own tests, and every crash sweep of a whole-table statement (CREATE OR
REPLACE, CTAS, TRUNCATE, INSERT OVERWRITE, ALTER rebuilds, RESTORE, UNDROP, DROP, INSERT INTO, a replica's
copy), the partitioned overwrites written in place among them (their kept partitions copied as files)."""
NO_DATA_RENAME = f"{OWN}/test_no_data_rename.py::test_no_statement_renames_table_data"
SHORT_RENAME_COUNTS = ("ctas", "create_or_replace_new", "create_or_replace_swap",
                       "create_or_replace_new_partition_columns", "create_or_replace_hive_serde", "truncate",
                       "insert_overwrite_dynamic", "restore", "undrop", "create_over_a_dropped_name", "insert_into",
                       "insert_into_partitioned", "rename_table", "replica_copy_of_a_version",
                       "replica_insert_of_added_files")
"""Every statement kind that renames data today, and the main ones that do not."""
SHORT = [
    f"{OWN}/test_file_system.py",
    f"{OWN}/test_kept_partitions.py",
    *(f"{NO_DATA_RENAME}[{name}]" for name in SHORT_RENAME_COUNTS),
    f"{OWN}/test_no_data_rename.py::test_plain_sparks_statements_rename_no_table_data_but_its_commit_protocols_files",
    f"{OWN}/test_torn_renames.py::test_a_data_rename_cut_midway_leaves_before_or_after_once_recovered[ctas]",
    f"{OWN}/test_torn_renames.py::test_a_data_rename_cut_midway_leaves_before_or_after_once_recovered"
    "[replica_insert_of_added_files]",
    f"{OWN}/test_torn_renames.py::test_an_insert_written_in_place_whose_spark_commit_is_cut_leaves_the_table_as_before",
]
"""``make test`` (through test_group.py): the store's semantics, a rename count of the main statement kinds, a torn
rename of the two kinds of data rename the project makes (a directory by the metastore, files one by one: a
replica's INSERT INTO), Spark's own job commit cut under an INSERT INTO written in place: one Spark start; the crash
sweeps of every whole-table statement on the store in ``make test-object-store`` (the time budget of ``make
test``)."""


def command(full: bool, extra: list[str]) -> tuple[list[str], dict[str, str]]:
    """The pytest command of the group, and its environment (the mode set)."""
    env = {**os.environ, RUN_ENV: "full" if full else "short", "PYTHONPATH": str(ROOT)}
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-rfExX",
            "--durations=15", *(FULL if full else SHORT), *extra]
    return args, env


def main(argv: list[str]) -> int:
    full = "--full" in argv
    args, env = command(full, [arg for arg in argv if arg != "--full"])
    return subprocess.run(args, env=env, cwd=ROOT, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
