"""COMMENT ON TABLE is an atomic statement with exactly the effect of Spark's own: the table's comment set (or, with
``IS NULL``, removed), compared with plain Spark's statement on a twin table; binlogged as written, crash-safe as
ALTER TABLE SET TBLPROPERTIES (whose sweep covers it)."""

from __future__ import annotations

import attrs
import pytest

from ddl_log import AtomicDDL, NoSuchObjectError, WrongObjectKindError
from tests.definitions import table_definition

pytestmark = pytest.mark.spark


def comparable(spark, name):
    definition = table_definition(spark, "default", name)
    assert definition is not None
    return attrs.evolve(definition, location="")


@pytest.mark.parametrize("comment", ["'the daily sales'", "'it\\'s ;odd'", "NULL"])
def test_comment_on_table_does_what_spark_does(clean_spark, tmp_path, comment):
    spark = clean_spark
    for name in ("ours", "plain"):
        spark.sql(f"CREATE TABLE {name} (a INT) USING parquet COMMENT 'before' TBLPROPERTIES ('k' = 'v')")
    spark.sql(f"COMMENT ON TABLE plain IS {comment}")
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        ddl.sql(f"COMMENT ON TABLE ours IS {comment}")
        [event] = ddl.binlog_events()
        assert event.statement == f"COMMENT ON TABLE ours IS {comment}"
    ours, plain = comparable(spark, "ours"), comparable(spark, "plain")
    assert ours == plain


def test_comment_on_a_missing_table_or_a_view_fails_as_spark_does(clean_spark, tmp_path):
    spark = clean_spark
    spark.sql("CREATE VIEW v AS SELECT 1 AS a")
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        with pytest.raises(NoSuchObjectError):
            ddl.sql("COMMENT ON TABLE nope IS 'x'")
        with pytest.raises(WrongObjectKindError):
            ddl.sql("COMMENT ON TABLE v IS 'x'")
        assert ddl.binlog_events() == []
