"""``--databases`` and ``--rewrite-db``: a replica of some databases skips the events on the others and records each
skip in its binlog (never silently); a statement on replicated and other databases stops it; a replica kept in the
source's own catalog under other database names gets every name rewritten in the typed statement, queries and view
texts included (by the SQL parser, never by matching text), and its binlog says what it did."""

from __future__ import annotations

from typing import Any

import pytest

from ddl_log import ApplyFailedError, AtomicDDL, ReplicaConfigError, RewriteError
from ddl_log.engine.alter_ops import SetProperties
from ddl_log.replication.origin import mark_of
from ddl_log.replication.rewrite import rewrite_query
from storage.catalogs.names import TableName
from tests import crashkit
from tests.replication.ops_support import Home, bootstrapped, clone, database_state, source_home


def on_two_databases(source: Home) -> None:
    """Source events 4 to 7: on default (not replicated), d2, a new database d9, and in d9."""
    writer = source.open()
    writer.create_table("default.n1", like="default.a")
    writer.alter_table("d2.t", SetProperties({"k": "1"}))
    writer.create_database("d9")
    writer.create_table("d9.n2", like="d2.t")
    writer.close()


def test_events_on_databases_not_replicated_are_skipped_and_each_skip_is_recorded(tmp_path):
    source, replica = bootstrapped(tmp_path)
    on_two_databases(source)
    ddl = replica.open()
    report = ddl.replica_of(source.path).apply_available()
    assert (report.applied, report.skipped) == (1, 3)
    notes = [e.statement for e in ddl.binlog_events() if "skipped" in e.statement]
    assert [mark_of(note).seq for note in notes] == [4, 7]  # each run of skipped events, up to its last seq
    assert "skipped 4 (not in --databases)" in notes[0] and "skipped 6-7 (not in --databases)" in notes[1]
    assert ddl.replica_of(source.path).apply_available().skipped == 0  # recorded: not skipped again
    with pytest.raises(ReplicaConfigError, match="re-bootstrap"):
        ddl.replica_of(source.path, databases=["d2", "d9"])  # filters are fixed once events are applied
    ddl.close()
    assert database_state(replica.catalog, "d2") == database_state(source.catalog, "d2")
    assert "d9" not in replica.catalog.backend.databases


def test_a_statement_on_replicated_and_other_databases_stops_the_applier_before_it(tmp_path):
    source, replica = bootstrapped(tmp_path)
    writer = source.open()
    writer.drop_tables(["d2.c", "default.b"])
    writer.close()
    ddl = replica.open()
    with pytest.raises(ApplyFailedError, match="replicated and other databases") as stopped:
        ddl.replica_of(source.path).apply_available()
    assert stopped.value.seq == 4
    ddl.close()
    assert TableName.of("d2.c") in replica.catalog.backend.tables  # nothing of it applied


def test_a_replica_in_the_sources_catalog_applies_every_statement_under_the_new_names(tmp_path):
    source = source_home(tmp_path)
    replica = Home(tmp_path / "replica", source.catalog)  # one catalog, as one metastore
    ddl = replica.open()
    ddl.replica_bootstrap(source.path, databases=["d2"], rewrite_db={"d2": "r2"}, source_catalog=source.catalog)
    ddl.close()
    writer = source.open()
    writer.sql("CREATE TABLE d2.n LIKE d2.t")
    writer.rename_tables([("d2.c", "d2.c2")])
    writer.create_view("d2.v3", as_select="SELECT z FROM d2.t JOIN `d2`.c2 ON true")
    writer.alter_table("d2.t", SetProperties({"k": "v"}))
    writer.drop_views(["d2.w"])
    writer.close()
    ddl = replica.open()
    assert ddl.replica_of(source.path).apply_available().applied == 5
    texts = [e.statement for e in ddl.binlog_events()[-5:]]
    ddl.close()
    assert all("`r2`" in text and "`d2`" not in text.partition("*/")[2] for text in texts), texts
    d2, r2 = database_state(source.catalog, "d2"), database_state(source.catalog, "r2")
    assert (d2[1], d2[3]) == (r2[1], r2[3]) and set(d2[2]) == set(r2[2])
    assert source.catalog.backend.views[TableName.of("r2.v3")].query == "SELECT z FROM `r2`.t JOIN `r2`.c2 ON true"


def test_database_names_are_rewritten_where_the_parser_finds_table_references_and_nowhere_else():
    mapping = {"src": "dst"}
    assert rewrite_query("SELECT src.t.a, 'src.t', s.src FROM src.t JOIN `src`.u AS s", mapping, what="q") \
        == "SELECT `dst`.t.a, 'src.t', s.src FROM `dst`.t JOIN `dst`.u AS s"
    # issue 36, finding 8: an alias named like the database qualifies a column and a struct field, as Spark reads it
    assert rewrite_query("SELECT src.st.f, src.t.c FROM src.t AS src", mapping, what="q") \
        == "SELECT src.st.f, src.t.c FROM `dst`.t AS src"
    assert rewrite_query("SELECT 1 FROM other.t", mapping, what="q") == "SELECT 1 FROM other.t"
    with pytest.raises(RewriteError, match="cannot be read"):
        rewrite_query("SELECT FROM FROM src.t (((", mapping, what="view v")


def test_an_applier_with_filters_killed_anywhere_applies_each_replicated_event_once_and_records_every_skip(tmp_path):
    source, template = bootstrapped(tmp_path)
    on_two_databases(source)
    writer = source.open()
    writer.create_table("d2.n3", like="d2.t")
    writer.close()
    head = 8

    def apply(ddl: AtomicDDL) -> Any:
        return ddl.replica_of(source.path).apply_available()

    points = crashkit.trace(clone(template, tmp_path / "trace").open, apply)
    for index, (point, nth) in enumerate(points):
        replica = clone(template, tmp_path / f"r{index}")
        assert crashkit.crash_at(replica.open, apply, point, nth), (point, nth)
        ddl = replica.open()
        assert apply(ddl).position == head, (point, nth)
        marks = [mark_of(event.statement) for event in ddl.binlog_events()]
        ddl.close()
        applied = [m.seq for m in marks if m is not None and m.seq in (5, 8)]
        assert applied == [5, 8], (point, nth)  # each replicated event once, in order
        noted = [m.seq for m in marks if m is not None and m.seq not in (5, 8)]
        assert noted == [3, 4, 7], (point, nth)  # the bootstrap's position, then each run of skips noted once
        assert database_state(replica.catalog, "d2") == database_state(source.catalog, "d2"), (point, nth)


def test_finding7_a_create_tables_own_text_keeps_every_clause_when_a_column_is_named_like_the_database():
    """Issue 36, finding 7: the statement's text was thrown away (a token matched the database's name) and the
    spec alone lacks OPTIONS, bucketing and DEFAULT."""
    from ddl_log.frontends.sql import plan_script
    from ddl_log.frontends.sql.name_resolution import NoSparkFacts
    from ddl_log.replication.rewrite import rewrite_statement

    text = ("CREATE TABLE src.n (src INT DEFAULT 1, b INT) USING parquet OPTIONS (a 'b') CLUSTERED BY (src) INTO 4 "
            "BUCKETS TBLPROPERTIES ('k' = 'src.x')")
    statement = plan_script(text)[0].resolved(NoSparkFacts())
    rewritten = rewrite_statement(statement, {"src": "dst"})
    assert str(rewritten.name) == "dst.n"
    assert rewritten.spec.text is not None
    assert rewritten.spec.text.body == statement.spec.text.body  # nothing in it names the database
    like = plan_script("CREATE TABLE src.m LIKE src.n TBLPROPERTIES ('k' = 'v')")[0].resolved(NoSparkFacts())
    body = rewrite_statement(like, {"src": "dst"}).spec.text
    assert body.body == "LIKE `dst`.n TBLPROPERTIES ('k' = 'v')"
    assert body.render("`x`", "'t'='1'") == "CREATE TABLE `x` LIKE `dst`.n TBLPROPERTIES ('k' = 'v', 't'='1')"
