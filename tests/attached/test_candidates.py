"""The JVM's first look at a statement (``spark_ddl_log.Candidates``, which every ``spark.sql`` pays) never misses a
statement the SQL front end routes: whatever it lets pass straight to Spark, the front end would have sent to Spark
unchanged too. Checked over every statement of many random differential scripts and over hand-picked odd texts."""

from __future__ import annotations

import pytest

from ddl_log.errors import SqlParseError, UnsupportedStatementError
from ddl_log.frontends.sql import plan_script
from tests.differential.grammar import generate
from tests.differential.script import ATOMIC_PREFIX, render

pytestmark = pytest.mark.spark

ODD = [
    "/* dbt */ CREATE TABLE t (a INT) USING parquet", "-- c\n drop table t", "  insert\tinto t values (1)",
    "WITH s AS (SELECT 1 AS a) INSERT INTO t SELECT * FROM s", "FROM s INSERT OVERWRITE TABLE t SELECT a",
    "SELECT 'insert into t' AS a", "SELECT `insert`, `into` FROM t", "SELECT 1 /* INSERT INTO t */",
    "CREATE TEMPORARY VIEW v AS SELECT 1", "CREATE OR REPLACE GLOBAL TEMPORARY VIEW v AS SELECT 1",
    "CREATE OR REPLACE TEMP VIEW v AS SELECT 1", "DROP TEMPORARY FUNCTION f", "DESCRIBE HISTORY t", "desc history t",
    "DESCRIBE TABLE t", "SHOW TABLES DROPPED", "SHOW TABLES", "RESTORE TABLE t TO VERSION AS OF 3",
    "RELEASE TABLE NAME t", "UNDROP TABLE t", "MSCK REPAIR TABLE t", "LOAD DATA INPATH '/x' INTO TABLE t",
    "COMMENT ON TABLE t IS 'x'", "EXPLAIN INSERT INTO t SELECT 1",
    "/* /* nested */ */ ALTER TABLE t ADD COLUMNS (b INT)",
    "REPLACE TABLE t (a INT) USING parquet", "RENAME TABLE a TO b, c TO d", "TRUNCATE TABLE t", "SET a=b", "USE db",
    "EXECUTE IMMEDIATE 'SELECT 1'", "CACHE TABLE t", "REFRESH TABLE t", "ANALYZE TABLE t COMPUTE STATISTICS",
    "START TRANSACTION", "begin work", "/* c */ COMMIT", "ROLLBACK TRANSACTION", "commit work",
]


def front_end_takes(text: str) -> bool:
    """Whether the SQL front end runs ``text`` itself or refuses it (else it goes to Spark as written)."""
    try:
        plans = plan_script(text)
    except UnsupportedStatementError:
        return True
    except SqlParseError:
        return False  # Spark's own parse error either way
    return any(plan.draft is not None or plan.kind == "control" for plan in plans)


def test_every_statement_the_front_end_takes_is_a_candidate(spark):
    candidates = spark._jvm.spark_ddl_log.Candidates
    texts = list(ODD)
    for seed in range(40):
        texts += [render(step.text, ATOMIC_PREFIX) for step in generate(seed, 40)]
    missed = [text for text in texts if front_end_takes(text) and not candidates.isCandidate(text)]
    assert missed == []
    passed_straight = [text for text in ODD if not candidates.isCandidate(text)]
    assert {"SELECT 'insert into t' AS a", "SELECT 1 /* INSERT INTO t */", "CREATE TEMPORARY VIEW v AS SELECT 1",
            "DESCRIBE TABLE t", "SHOW TABLES", "SET a=b", "USE db", "EXPLAIN INSERT INTO t SELECT 1",
            "CACHE TABLE t"} <= set(passed_straight)
