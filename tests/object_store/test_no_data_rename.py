"""No statement renames table data (issue 40, the house rule "nothing on a statement's path renames or moves table
data": on S3 a rename is a copy of every file that a crash leaves half done). On the simulated object store, each
statement kind of :mod:`tests.object_store.statements` is run through the project with the previous versions kept
(as in production) and the store's renames of data are counted: renames out of a job's staging directory (Spark's
commit protocol, which plain Spark pays alike) are not data renames; any other rename of a table's or a version's
directory or file is. Where the project renames data today the test is a strict xfail naming what renames what
(tests/object_store/expectations.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL
from tests.object_store.statements import CASES, renames_of

pytestmark = pytest.mark.spark

RETENTION_SECONDS = 3600
GRACE_SECONDS = 600
"""Versions are kept (a replaced or dropped table's directory stays for RESTORE and UNDROP; one at a name's own
directory for the grace period), as in production."""


def homes(spark: Any, tmp_path: Path) -> Any:
    def opener(retention_seconds: float = RETENTION_SECONDS) -> AtomicDDL:
        return AtomicDDL(spark=spark, home=tmp_path / "home", compact_bytes=0, grace_seconds=GRACE_SECONDS,
                         retention_seconds=retention_seconds)

    return opener


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_statement_renames_table_data(clean_spark, tmp_path, case):
    renames = renames_of(clean_spark, homes(clean_spark, tmp_path), CASES[case])
    data = [(r.source, r.target, r.objects) for r in renames if r.kind == "data"]
    assert data == [], data


def test_plain_sparks_statements_rename_no_table_data_but_its_commit_protocols_files(clean_spark):
    """The baseline the project is measured against: plain CTAS, INSERT OVERWRITE, INSERT INTO, TRUNCATE and DROP
    rename only out of their staging directories. (Plain RENAME TABLE of a managed table is Hive's directory
    rename: see the ``rename_table`` case.)"""
    from tests.object_store.store import StoreCalls

    spark, calls = clean_spark, StoreCalls(clean_spark)
    calls.reset()
    for sql in ["CREATE TABLE t USING parquet AS SELECT /*+ REPARTITION(4) */ * FROM range(40)",
                "INSERT OVERWRITE t SELECT id + 1 FROM range(40)", "INSERT INTO t SELECT id FROM range(9)",
                "TRUNCATE TABLE t", "DROP TABLE t"]:
        spark.sql(sql)
    kinds = [r.kind for r in calls.renames()]
    assert kinds and set(kinds) == {"staging"}, calls.renames()
