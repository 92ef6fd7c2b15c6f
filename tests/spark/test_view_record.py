"""A view's definition read from the session catalog's record (one metastore call, no DESCRIBE statement): the same
definition DESCRIBE ... AS JSON gave for every form of view Spark makes, but for the properties DESCRIBE redacts,
which the record keeps as stored (an undo puts the view back with them; recovery compares them with what a
statement logged)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest

from ddl_log import AtomicDDL
from storage.catalogs.names import TableName
from storage.catalogs.spark.catalog import spark_catalog
from storage.catalogs.spark.engine import fingerprint
from storage.catalogs.spark.hms.metastore_client import MetastoreClient
from storage.catalogs.spark.profile import jvm_of
from storage.catalogs.spark.sql.view_record import read_view, read_view_of_record, view_info
from tests import crashkit

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("spare_shared")]

VIEWS = {
    "plain": "CREATE VIEW {v} AS SELECT id, id * 2 AS v FROM {t}",
    "column_list": "CREATE VIEW {v} (a COMMENT 'first', b) AS SELECT id, id * 2 AS doubled FROM {t}",
    "commented": "CREATE VIEW {v} COMMENT 'a view\\'s comment' AS SELECT id FROM {t}",
    "properties": "CREATE VIEW {v} TBLPROPERTIES ('owner_team'='x', 'empty'='', 'k.with.dots'='v') "
                  "AS SELECT id FROM {t}",
    "evolution": "CREATE VIEW {v} WITH SCHEMA EVOLUTION AS SELECT * FROM {t}",
    "compensation": "CREATE VIEW {v} WITH SCHEMA COMPENSATION AS SELECT id FROM {t}",
    "type_evolution": "CREATE VIEW {v} (a, b) WITH SCHEMA TYPE EVOLUTION AS SELECT id, id AS id2 FROM {t}",
    "binding": "CREATE VIEW {v} WITH SCHEMA BINDING AS SELECT id FROM {t}",
    "on_a_view": "CREATE VIEW {v} AS SELECT v FROM {db}.plain WHERE id > 1",
    "odd_text": "CREATE VIEW {v} AS SELECT 'é ✓ \\n' AS `odd col`, id FROM {t} -- trailing comment",
    "typed": "CREATE VIEW {v} AS SELECT CAST(id AS DECIMAL(10, 2)) AS d, map('k', id) AS m, array(named_struct("
             "'x', id, 'y', CAST(NULL AS STRING))) AS a, current_timestamp() AS ts, CAST('x' AS VARCHAR(3)) AS vc, "
             "INTERVAL '1' DAY AS i, 'a' COLLATE UTF8_LCASE AS c FROM {t}",
}
REDACTED = "CREATE VIEW {v} TBLPROPERTIES ('api_password'='hunter2', 'jdbc_url'='jdbc:x://h', 'plain'='p') AS " \
           "SELECT id FROM {t}"


@pytest.fixture(scope="module")
def views(spark: Any, shared_db: str) -> dict[str, TableName]:
    spark.sql(f"CREATE TABLE {shared_db}.base USING parquet AS SELECT id FROM range(3)")
    made = {}
    for key, text in {**VIEWS, "redacted": REDACTED}.items():
        name = TableName(shared_db, key)
        spark.sql(text.format(v=name.quoted, t=f"{shared_db}.base", db=shared_db))
        made[key] = name
    return made


def _definition_from(catalog: Any, name: TableName, monkeypatch: pytest.MonkeyPatch, *, describe: bool) -> Any:
    views = catalog.views
    if describe:
        monkeypatch.setattr(views, "_stored_parts",
                            lambda view: catalog.views._engine.describe(view, expect_present=True))
    try:
        return views.view_definition(name)
    finally:
        monkeypatch.undo()


@pytest.mark.parametrize("key", sorted(VIEWS))
def test_the_record_gives_the_definition_describe_gives(spark, views, key, monkeypatch):
    catalog = spark_catalog(spark)
    from_record = _definition_from(catalog, views[key], monkeypatch, describe=False)
    from_describe = _definition_from(catalog, views[key], monkeypatch, describe=True)
    assert from_record is not None and from_record == from_describe


@pytest.mark.parametrize("key", sorted([*VIEWS, "redacted"]))
def test_the_raw_record_a_lookup_read_gives_what_the_catalogs_read_gives(spark, views, key):
    """A statement's lookup reads the view's raw record; the view's parts and identity come from that record
    (``read_view_of_record``) as from the session catalog's own read (``read_view``)."""
    jvm = jvm_of(spark)
    record = MetastoreClient(spark_catalog(spark).views._engine).get(views[key])
    from_record = read_view_of_record(jvm, record)
    assert from_record is not None
    assert from_record == read_view(jvm, views[key])


@pytest.mark.parametrize("key", sorted([*VIEWS, "redacted"]))
def test_the_record_gives_the_identity_describe_gives(spark, views, key):
    """A view's identity (logged by every statement that changes it; recovery acts only on the view it names) read
    from its record in one metastore call is the fingerprint of its DESCRIBE."""
    catalog = spark_catalog(spark)
    described = catalog.views._engine.describe(views[key])
    assert catalog.views.view_identity(views[key]) == fingerprint(described)


def test_properties_describe_redacts_are_kept_as_stored(spark, views, monkeypatch):
    catalog = spark_catalog(spark)
    from_record = _definition_from(catalog, views["redacted"], monkeypatch, describe=False)
    from_describe = _definition_from(catalog, views["redacted"], monkeypatch, describe=True)
    stored = dict(from_record.properties)
    assert stored["api_password"] == "hunter2" and stored["jdbc_url"] == "jdbc:x://h" and stored["plain"] == "p"
    assert dict(from_describe.properties)["api_password"] != "hunter2"  # what DESCRIBE shows instead
    assert {key: value for key, value in stored.items() if key not in ("api_password", "jdbc_url")} == \
        {key: value for key, value in from_describe.properties if key not in ("api_password", "jdbc_url")}


def test_a_table_or_a_free_name_is_no_view(spark, views, shared_db):
    jvm = jvm_of(spark)
    assert jvm is not None
    assert view_info(jvm, TableName(shared_db, "base")) == {"type": "MANAGED"}
    assert view_info(jvm, TableName(shared_db, "nothing_here")) is None
    assert spark_catalog(spark).views.view_definition(TableName(shared_db, "base")) is None
    assert spark_catalog(spark).views.view_identity(TableName(shared_db, "base")) is None
    assert spark_catalog(spark).views.view_identity(TableName(shared_db, "nothing_here")) is None
    assert spark_catalog(spark).views.view_identity(TableName("no_such_db", "v")) is None


SWEPT = {
    "CREATE OR REPLACE VIEW secret_v AS SELECT 2 AS x":
        (TableName("default", "secret_v"), ("SELECT 1 AS x", "hunter2"), ("SELECT 2 AS x", None)),
    "CREATE VIEW made_v TBLPROPERTIES ('api_password'='hunter2') AS SELECT 3 AS x":
        (TableName("default", "made_v"), None, ("SELECT 3 AS x", "hunter2")),
}
"""Each statement swept: the view it changes, that view before (its text and its ``api_password``; None: no view)
and after."""


@attrs.frozen
class _World:
    """The two views as before the statement, and a home of its own."""

    spark: Any
    home: Path

    def open(self) -> AtomicDDL:
        return AtomicDDL(spark=self.spark, home=self.home)


def _world(spark: Any, home: Path) -> _World:
    spark.sql("DROP VIEW IF EXISTS made_v")
    spark.sql("CREATE OR REPLACE VIEW secret_v TBLPROPERTIES ('api_password'='hunter2') AS SELECT 1 AS x")
    return _World(spark, home)


@pytest.mark.parametrize("statement", sorted(SWEPT))
def test_a_crash_anywhere_keeps_a_redacted_property_as_stored(clean_spark: Any, tmp_path: Path, statement: str):
    """A replace of a view holding a password-like property, undone by recovery, puts the view back with the value
    as stored (not DESCRIBE's redacted one); a CREATE VIEW with one, cut before its commit, is recognised by
    recovery as the statement's own view and removed."""
    spark = clean_spark
    jvm = jvm_of(spark)
    assert jvm is not None
    view, before, after = SWEPT[statement]

    def state_of(_: _World) -> tuple[str, str | None] | None:
        info = view_info(jvm, view)
        return None if info is None else (info["view_text"], info["table_properties"].get("api_password"))

    def run(ddl: AtomicDDL) -> object:
        return ddl.sql(statement)

    def check_events(outcome: str, events: list[Any]) -> None:
        assert [event.statement for event in events] == ([statement] if outcome == "after" else []), outcome

    points = crashkit.trace(_world(spark, tmp_path / "trace").open, run)
    assert points, "the statement passes crash points"
    outcomes = crashkit.sweep_to_before_or_after(
        points, lambda index: _world(spark, tmp_path / f"h{index}"), run, before, after, state_of, check_events)
    assert {outcome for _, outcome in outcomes} == {"before", "after"}, "the sweep crosses the commit point"
