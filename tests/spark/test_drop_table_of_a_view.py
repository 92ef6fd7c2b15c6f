"""DROP TABLE of a view does what the running Spark's own DROP TABLE does: Spark 4.0 refuses it
(WRONG_COMMAND_FOR_OBJECT_TYPE), Spark 4.3 drops the view. The project follows the session's line (its profile's
``drop_table_drops_views``), binlogs a drop as the DROP VIEW it is, and refuses its own multi-name form when it
names tables and views together, dropping nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ddl_log import AtomicDDL
from tests.spark_lines import DROP_TABLE_DROPS_VIEWS, at_least

pytestmark = pytest.mark.spark


def outcome(run: Callable[[], Any], spark: Any, view: str) -> str:
    """``dropped`` when the statement ran and the view is gone, else the condition it failed with."""
    try:
        run()
    except Exception as error:  # noqa: BLE001 - the condition is what is compared
        condition = getattr(error, "condition", None) or getattr(error, "getCondition", lambda: None)()
        return f"refused {condition}"
    return "dropped" if not spark.catalog.tableExists(view) else "ran, the view still there"


def test_drop_table_of_a_view_does_what_the_running_sparks_drop_table_does(clean_spark: Any, tmp_path: Path):
    spark = clean_spark
    spark.sql("CREATE VIEW plain_v AS SELECT 1 AS a")
    spark.sql("CREATE VIEW ours_v AS SELECT 1 AS a")
    plain = outcome(lambda: spark.sql("DROP TABLE plain_v"), spark, "plain_v")
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        ours = outcome(lambda: ddl.sql("DROP TABLE ours_v"), spark, "ours_v")
        logged = [event.statement for event in ddl.binlog_events()]
    assert ours == plain
    expected_plain = "dropped" if at_least(spark.version, DROP_TABLE_DROPS_VIEWS) else \
        "refused WRONG_COMMAND_FOR_OBJECT_TYPE"
    assert plain == expected_plain
    assert logged == ([] if plain != "dropped" else ["DROP VIEW `default`.`ours_v`"])


def test_tables_and_views_in_one_drop_table_are_refused_with_nothing_dropped(clean_spark: Any, tmp_path: Path):
    spark = clean_spark
    spark.sql("CREATE TABLE mixed_t (a INT) USING parquet")
    spark.sql("CREATE VIEW mixed_v AS SELECT 1 AS a")
    with AtomicDDL(spark=spark, home=tmp_path / "home") as ddl:
        with pytest.raises(Exception, match="mixed_v") as refused:
            ddl.sql("DROP TABLE mixed_t, mixed_v")
        assert ddl.binlog_events() == []
    assert getattr(refused.value, "condition", None) == "WRONG_COMMAND_FOR_OBJECT_TYPE"
    assert spark.catalog.tableExists("mixed_t") and spark.catalog.tableExists("mixed_v")
