"""The metastore service's configuration, without servers: database URLs in both forms, the hive-site.xml, and the
choice of Spark session an ``AtomicDDL`` makes."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ddl_log.cluster.driver_session import SessionChoice
from ddl_log.ops.hive_site import (
    PostgresDatabase,
    PostgresUrlError,
    hide_password,
    hive_site_xml,
    postgres_settings,
    service_settings,
)
from storage.catalogs.spark.service import service_settings as spark_settings
from storage.errors import CatalogError


def test_a_libpq_url_becomes_the_jdbc_url_of_the_same_database() -> None:
    database = PostgresDatabase.of("postgresql://hive:p%40ss@db.example:5433/metastore?sslmode=require")
    assert database.jdbc_url == ("jdbc:postgresql://db.example:5433/metastore?sslmode=require&user=hive"
                                 "&password=p%40ss")
    assert database.shown == "postgresql://hive:***@db.example:5433/metastore?sslmode=require"


def test_a_jdbc_url_becomes_the_libpq_url_of_the_same_database() -> None:
    database = PostgresDatabase.of("jdbc:postgresql://127.0.0.1:5432/metastore?user=postgres&password=x")
    assert database.libpq_url == "postgresql://127.0.0.1:5432/metastore?user=postgres&password=x"
    assert "x" not in database.shown.split("password=")[1]


@pytest.mark.parametrize("url", ["mysql://h/db", "postgresql:///db?host=/run/postgresql", "postgresql://h:5432/",
                                 "jdbc:postgresql:metastore"])
def test_urls_jdbc_cannot_express_are_refused_with_the_url(url: str) -> None:
    with pytest.raises(PostgresUrlError, match="PostgreSQL URL"):
        PostgresDatabase.of(url)


def test_hide_password_keeps_everything_else() -> None:
    assert hide_password("postgresql://u:pw@h:1/d") == "postgresql://u:***@h:1/d"
    assert hide_password("jdbc:postgresql://h/d?user=u&password=pw") == "jdbc:postgresql://h/d?user=u&password=***"


def test_the_service_never_creates_the_postgres_schema_lazily() -> None:
    """Lazy creation hangs on PostgreSQL; the tool and the service must also name tables alike."""
    text = hive_site_xml(service_settings(postgres_settings(PostgresDatabase.of("postgresql://u@h/d")), Path("/w")))
    settings = {p.findtext("name"): p.findtext("value") for p in ET.fromstring(text).iter("property")}
    assert settings["datanucleus.schema.autoCreateAll"] == "false"
    assert settings["datanucleus.identifierFactory"] == "datanucleus1"
    assert settings["hive.metastore.schema.verification"] == "false"
    assert settings["hive.metastore.warehouse.dir"] == "/w"
    assert settings["javax.jdo.option.ConnectionURL"] == "jdbc:postgresql://h/d?user=u"


def test_a_dead_database_fails_a_metastore_call_in_seconds_not_twenty() -> None:
    """Hive's default (10 tries 2 s apart per call) held a statement for about 60 s after PostgreSQL died; the
    production tests (tests/production) measure the statement failing within seconds with these."""
    text = hive_site_xml(service_settings(postgres_settings(PostgresDatabase.of("postgresql://u@h/d")), Path("/w")))
    settings = {p.findtext("name"): p.findtext("value") for p in ET.fromstring(text).iter("property")}
    assert (settings["hive.hmshandler.retry.attempts"], settings["hive.hmshandler.retry.interval"]) == ("3", "1000ms")


def test_a_driver_joins_a_service_by_uri_and_warehouse() -> None:
    assert spark_settings("thrift://127.0.0.1:9083", "/w") == {
        "spark.sql.catalogImplementation": "hive", "spark.hadoop.hive.metastore.uris": "thrift://127.0.0.1:9083",
        "spark.sql.warehouse.dir": "/w"}
    assert SessionChoice.of(None, "thrift://h:1", "s3a://bucket/wh").warehouse == "s3a://bucket/wh"


@pytest.mark.parametrize(("spark", "uri", "warehouse"), [
    (object(), "thrift://h:1", None),  # a running session's catalog is fixed
    (None, None, "/w"),  # the embedded warehouse is under the home
    (None, "h:9083", None),  # not a thrift URI
])
def test_contradictory_session_choices_are_refused_before_anything_starts(spark: object, uri: str | None,
                                                                           warehouse: str | None) -> None:
    with pytest.raises(CatalogError):
        SessionChoice.of(spark, uri, warehouse)


def test_the_postgres_backed_service_reads_each_definition_from_one_snapshot() -> None:
    """Under read-committed a definition read overlapping a swap can mix two versions (tests/readers/torn_probe.py
    measured 66 of 992 reads on PostgreSQL, 0 of 1,531 with repeatable-read)."""
    from ddl_log.ops.hive_site import postgres_settings

    database = PostgresDatabase.of("postgresql://postgres@127.0.0.1:5432/metastore")
    assert postgres_settings(database)["datanucleus.transactionIsolation"] == "repeatable-read"
