"""The metastore service's configuration: its backing database (embedded Derby or PostgreSQL) as JDBC settings, and
the ``hive-site.xml`` the service reads from its classpath.

PostgreSQL is given the way operators hold it: a libpq URL (``postgresql://user:password@host:port/db``, what
psycopg connects with) or a JDBC URL (``jdbc:postgresql://host:port/db?user=...``, what the metastore's DataNucleus
connects with); :class:`PostgresDatabase` keeps both forms of the one database, and :meth:`PostgresDatabase.shown`
the form without a password for messages and status output.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit
from xml.sax.saxutils import escape

import attrs

from ddl_log.ops.errors import PostgresUrlError

POSTGRES_DRIVER = "org.postgresql.Driver"
DERBY_DRIVER = "org.apache.derby.jdbc.EmbeddedDriver"




@attrs.frozen
class PostgresDatabase:
    """One PostgreSQL database as both a libpq URL (psycopg) and a JDBC URL (the service)."""

    libpq_url: str
    jdbc_url: str

    @classmethod
    def of(cls, url: str) -> PostgresDatabase:
        """From either form: ``postgresql://`` / ``postgres://`` (libpq) or ``jdbc:postgresql://`` (JDBC)."""
        if url.startswith("jdbc:postgresql://"):
            return cls(libpq_url=_libpq_from_jdbc(url), jdbc_url=url)
        if url.startswith(("postgresql://", "postgres://")):
            return cls(libpq_url=url, jdbc_url=_jdbc_from_libpq(url))
        raise PostgresUrlError(hide_password(url), "not a postgresql:// (libpq) or jdbc:postgresql:// (JDBC) URL")

    @property
    def shown(self) -> str:
        return hide_password(self.libpq_url)


def _jdbc_from_libpq(url: str) -> str:
    parts = urlsplit(url)
    if not parts.hostname or "," in parts.netloc:
        raise PostgresUrlError(hide_password(url), "JDBC needs one TCP host (no socket directory, no host list)")
    database = parts.path.lstrip("/")
    if not database:
        raise PostgresUrlError(hide_password(url), "no database name")
    query = parse_qsl(parts.query, keep_blank_values=True)
    if parts.username:
        query.append(("user", unquote(parts.username)))
    if parts.password:
        query.append(("password", unquote(parts.password)))
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit(("jdbc:postgresql", netloc, "/" + quote(database), urlencode(query), ""))


def _libpq_from_jdbc(url: str) -> str:
    parts = urlsplit(url.removeprefix("jdbc:"))
    if not parts.hostname or not parts.path.lstrip("/"):
        raise PostgresUrlError(hide_password(url), "needs a host and a database name")
    return urlunsplit(("postgresql", parts.netloc, parts.path, parts.query, ""))


def hide_password(url: str) -> str:
    """``url`` with any password (in the user part or a ``password=`` parameter) replaced by ``***``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    netloc = parts.netloc
    if parts.password:
        netloc = netloc.replace(":" + parts.password + "@", ":***@", 1)
    query = urlencode([(k, "***" if k == "password" else v) for k, v in parse_qsl(parts.query, keep_blank_values=True)],
                      safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def derby_settings(root: Path) -> dict[str, str]:
    """A Derby database under ``root``, made by the service on first start (lazy creation works on Derby)."""
    if ";" in str(root):
        raise PostgresUrlError(str(root), "Derby URLs cannot name a directory whose path holds ';'")
    return {
        "javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={root / 'metastore_db'};create=true",
        "javax.jdo.option.ConnectionDriverName": DERBY_DRIVER,
        "datanucleus.schema.autoCreateAll": "true",
    }


READER_ISOLATION = "repeatable-read"
"""The metastore reads a table's definition back in several queries within one transaction. Under Hive's default
``read-committed`` a read that overlaps a swap's ``alter_table`` can take the schema of one version and the location
of the other (measured: 66 torn reads of 992 on PostgreSQL, each a failed or wrong query in a reader driver); on
PostgreSQL ``repeatable-read`` reads the whole transaction from one snapshot."""


def postgres_settings(database: PostgresDatabase) -> dict[str, str]:
    """A PostgreSQL database whose schema exists already (:mod:`ddl_log.ops.metastore_schema`): lazy creation
    by DataNucleus was measured to hang on PostgreSQL, so the service must never try it."""
    return {
        "javax.jdo.option.ConnectionURL": database.jdbc_url,
        "javax.jdo.option.ConnectionDriverName": POSTGRES_DRIVER,
        "datanucleus.schema.autoCreateAll": "false",
        "datanucleus.transactionIsolation": READER_ISOLATION,
        **schema_naming(),
    }


def schema_naming() -> dict[str, str]:
    """How DataNucleus names and numbers the metastore's tables: Hive's own choices, which the schema tool must
    share with the service (else the service looks for tables the tool named differently)."""
    return {
        "datanucleus.identifierFactory": "datanucleus1",
        "datanucleus.rdbms.useLegacyNativeValueStrategy": "true",
        "datanucleus.storeManagerType": "rdbms",
    }


DATABASE_RETRIES = {"hive.hmshandler.retry.attempts": "3", "hive.hmshandler.retry.interval": "1000ms"}
"""How long one metastore call retries while its database is unreachable: 3 tries 1 s apart. Hive's default (10
tries 2 s apart, 20 s per call) made a statement whose PostgreSQL died fail only after about 60 s (three calls:
the failing step, and the two reads of its rollback), measured on this setup; now it fails in seconds and leaves its
chain to recovery, while a database restart of a second or two is still ridden through."""


CONNECTION_POOL = {"datanucleus.connectionPoolingType": "HikariCP",
                   "datanucleus.connectionPool.connectionWaitTimeout": "1000"}
"""A JDBC pool whose jar pyspark ships (HikariCP-2.5.1). Hive's default, BoneCP, is not there: DataNucleus falls
back quietly, but the metastore's transaction handler does not, and every ``drop_database`` (which cleans the
database's transaction records) killed the service's worker thread with ``NoClassDefFoundError:
com/jolbox/bonecp/BoneCPConfig``: DROP DATABASE failed on the service with "Socket is closed by peer".
HikariCP waits ``connectionTimeout`` (30 s by default) for a connection before it gives up, once per try of
:data:`DATABASE_RETRIES`: with PostgreSQL gone a statement failed only after 339 s (measured in CI). 1 s per try
(DataNucleus's ``connectionWaitTimeout`` sets it) bounds a call at about 5 s (the statement then fails in about
20 s: its failing step and its rollback's two reads; 26 s at 1.5 s per try, load 3.5); a healthy pool of ten
connections hands one out in milliseconds."""


def service_settings(database: dict[str, str], warehouse: Path) -> dict[str, str]:
    """Everything in the service's ``hive-site.xml``: the database, the warehouse, no schema version check (the
    schema is DataNucleus's, not made by Hive's schema scripts, so it records no version to check),
    :data:`DATABASE_RETRIES` and :data:`CONNECTION_POOL`."""
    return {
        **database,
        "hive.metastore.warehouse.dir": str(warehouse),
        "hive.metastore.schema.verification": "false",
        **DATABASE_RETRIES,
        **CONNECTION_POOL,
    }


def hive_site_xml(settings: dict[str, str]) -> str:
    properties = "".join(f"  <property><name>{escape(k)}</name><value>{escape(v)}</value></property>\n"
                         for k, v in settings.items())
    return f'<?xml version="1.0"?>\n<configuration>\n{properties}</configuration>\n'


def write_private(path: Path, text: str) -> None:
    """Write ``text`` readable by its owner only: the database URL may hold a password."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600, exist_ok=True)
    path.chmod(0o600)
    path.write_text(text, encoding="utf-8")
