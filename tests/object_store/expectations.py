"""What fails on the simulated object store today, and why: each is a strict xfail there (tests/object_store), so the
no-rename redesign of issue 40 turns it green (and must then delete its entry here)."""

from __future__ import annotations

import pytest

INSTALL = ("the work table is installed by a metastore rename: Hive's ALTER TABLE RENAME moves "
           "<db>/ddllog_<xid>_<token>_tmp to <db>/{name} (replace_table/plans/create_path.py install -> "
           "storage/catalogs/spark/sql/table_statements.py SparkTables.rename), on S3 a copy and a delete of "
           "each file of the new "
           "table")
RENAME_PATH = ("the rename path of a replace: Hive moves ORIG's directory <db>/{name} to "
               "<db>/ddllog_<xid>_<token>_bak (replace_table/plans/rename_path.py move_orig), then TMP's "
               "<db>/ddllog_<xid>_<token>_tmp to <db>/{name} (create_path.install), both through SparkTables.rename")
RELOCATE = ("RELOCATE_VERSION moves the dropped version kept at <db>/{name} to <db>/ddllog_<n>_kept_{name} "
            "(actions/kinds/relocate_version.py -> storage/catalogs/spark/fs/version_mover.py "
            "SparkVersionMoves._move_hadoop), then " + INSTALL)
MOVES = ("INSERT INTO moves each file its work table's job wrote into the table, one rename per file after the commit "
         "point (actions/kinds/move_files.py -> storage/catalogs/spark/fs/file_mover.py SparkFileMoves.move_file)")
HIVE_RENAME = ("RENAME TABLE of a managed table at its default directory: Hive's metastore moves <db>/{old} to "
               "<db>/{new} (ddl_log/engine/tables.py -> SparkTables.rename), as plain Spark's ALTER TABLE RENAME "
               "does; the redesign must say how it avoids depending on it")

CUT_INSTALL = ("the install rename of TMP <db>/ddllog_<xid>_<token>_tmp to <db>/c (Hive's ALTER TABLE RENAME through "
               "SparkTables.rename) cut after its first copy: the statement is undone and TMP dropped, but the objects "
               "already copied stay at <db>/c, a directory no table and no log entry owns (a plain CREATE TABLE c is "
               "then refused with LOCATION_ALREADY_EXISTS)")
CUT_BACKUP = ("the rename path's move of ORIG <db>/{name} to <db>/ddllog_<xid>_<token>_bak "
              "(rename_path.move_orig, Hive's "
              "rename) cut after its first copy: the statement is undone and {name} keeps its files, but "
              "<db>/ddllog_<xid>_<token>_bak keeps the copied objects, owned by nothing")
CUT_RELOCATE = ("RELOCATE_VERSION's move of the dropped version <db>/p to <db>/ddllog_<n>_kept_p cut after its first "
                "copy: the CREATE is refused, and recovery never finishes the move (SparkVersionMoves.move_directory "
                "refuses a target that exists: the half-copied directory), so its chain stays active and the kept "
                "version stays split between the two directories")
CUT_MOVE = ("a file move of INSERT INTO (after its commit point) cut between its copy and its delete: the file is at "
            "both places, and recovery's replay of MOVE_FILES refuses it (SparkFileMoves.move_file: 'exists "
            "already'), so the committed INSERT never finishes: its chain stays active, its other files never reach "
            "the table")
CUT_HIVE_RENAME = ("RENAME TABLE's move of <db>/t to <db>/t2 (Hive's, through SparkTables.rename) cut after its "
                   "first copy: the statement fails and t keeps its files, but <db>/t2 keeps the copied objects, "
                   "owned by nothing")

NO_DATA_RENAME = "tests/object_store/test_no_data_rename.py::test_no_statement_renames_table_data"
TORN = ("tests/object_store/test_torn_renames.py::"
        "test_a_data_rename_cut_midway_leaves_before_or_after_once_recovered")

EXPECTED_FAILURES: dict[str, str] = {
    f"{NO_DATA_RENAME}[ctas]": "CTAS: " + INSTALL.format(name="c"),
    f"{NO_DATA_RENAME}[create_or_replace_new]": "CREATE OR REPLACE of a new table: " + INSTALL.format(name="c"),
    f"{NO_DATA_RENAME}[create_or_replace_new_partition_columns]": RENAME_PATH.format(name="p")
    + " (the metastore cannot change a table's partition columns in place)",
    f"{NO_DATA_RENAME}[create_or_replace_hive_serde]": RENAME_PATH.format(name="h")
    + " (a Hive serde table is never swapped)",
    f"{NO_DATA_RENAME}[create_over_a_dropped_name]": RELOCATE.format(name="p"),
    f"{NO_DATA_RENAME}[insert_into]": MOVES,
    f"{NO_DATA_RENAME}[insert_into_partitioned]": MOVES + ", into each partition's directory",
    f"{NO_DATA_RENAME}[rename_table]": HIVE_RENAME.format(old="t", new="t2"),
    f"{NO_DATA_RENAME}[replica_insert_of_added_files]": "a replica's INSERT INTO copies the source's files into its "
    "work table (storage/catalogs/spark/fs/file_mover.py SparkFileMoves.copy_in), then " + MOVES,
    f"{TORN}[ctas]": CUT_INSTALL,
    f"{TORN}[create_or_replace_new_partition_columns]": CUT_BACKUP.format(name="p"),
    f"{TORN}[create_or_replace_hive_serde]": CUT_BACKUP.format(name="h"),
    f"{TORN}[create_over_a_dropped_name]": CUT_RELOCATE,
    f"{TORN}[insert_into]": CUT_MOVE,
    f"{TORN}[insert_into_partitioned]": CUT_MOVE,
    f"{TORN}[replica_insert_of_added_files]": "a replica's INSERT INTO: " + CUT_MOVE,
    f"{TORN}[rename_table]": CUT_HIVE_RENAME,
}
"""Test node id (as pytest prints it, relative to the repository) -> the exact reason: what renames what."""


def mark_expected_failures(items: list[pytest.Item]) -> None:
    """Mark each test of :data:`EXPECTED_FAILURES` a strict xfail with its reason."""
    for item in items:
        reason = EXPECTED_FAILURES.get(item.nodeid.split("@")[0])
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
