"""The golden-file runner's short mode: a small script of Spark's golden-file form, written here, runs alike through
plain ``spark.sql`` and through ``AtomicDDL.sql`` (``make differential-golden`` runs Spark's own inputs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.differential.golden import compare_file
from tests.differential.golden_compare import EQUAL, FAILING_ALIKE, MISMATCHES
from tests.differential.golden_files import read_golden

pytestmark = pytest.mark.spark

SCRIPT = """--SET spark.sql.ansi.enabled=true
CREATE TABLE t (a INT, b STRING) USING parquet PARTITIONED BY (b);
INSERT INTO t VALUES (1, 'x');
-- what a user reads back
SHOW TABLES;
SHOW PARTITIONS t;
SELECT * FROM t;
ALTER TABLE t CHANGE a a INT COMMENT 'the a';
DESC t;
CREATE VIEW v AS SELECT a FROM t;
SHOW VIEWS;
-- what fails, fails alike
DROP TABLE nosuch;
ALTER TABLE t CHANGE nosuch nosuch INT;
SET spark.sql.caseSensitive=true;
ALTER TABLE t CHANGE a A INT COMMENT 'a new name under case sensitivity';
DROP VIEW v;
DROP TABLE t;
"""


def test_a_small_golden_file_runs_alike_on_plain_spark_and_through_the_project(
        clean_spark: Any, tmp_path: Path) -> None:
    report = compare_file(clean_spark, read_golden(SCRIPT, "short.sql"), tmp_path)
    assert report.harness_error == ""
    mismatches = [c.describe() for c in report.compared if c.kind in MISMATCHES and not c.known]
    assert mismatches == [], "\n".join(mismatches)
    assert {c.kind for c in report.compared} == {EQUAL, FAILING_ALIKE}
    assert len(report.compared) == 15
