"""Through an attached session's own ``spark.sql`` (issue 36, bookkeeping is invisible): a table the routed
statement made describes as plain Spark's twin in every output Spark prints of it, its tag hidden."""

from __future__ import annotations

import json

import pytest

from tests.spark.test_hidden_bookkeeping import BOOKKEEPING, OURS, PLAIN, assert_described_alike, hidden_tag

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("statement", [
    "CREATE TABLE {t} (a INT, b STRING) USING parquet PARTITIONED BY (b) TBLPROPERTIES ('k' = 'v')",
    "CREATE TABLE {t} USING parquet AS SELECT id AS a FROM range(3)",
])
def test_a_table_made_through_spark_sql_of_an_attached_session_describes_as_plain_sparks(spark, attached, statement):
    attached.session.sql(statement.format(t=OURS))
    spark.sql(statement.format(t=PLAIN))
    assert attached.ddl.binlog_events()  # routed: the project made it
    assert_described_alike(spark)
    printed = attached.session.sql(f"SHOW TBLPROPERTIES {OURS}").collect()
    assert not BOOKKEEPING.search(json.dumps([list(row) for row in printed]))
    hidden_tag(spark, OURS)
