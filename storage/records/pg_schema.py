"""The tables of the PostgreSQL record store, created on first use, and how a home id becomes a lock key.

``ddl_log_streams`` names every stream by (home id, space, name); ``space`` separates a home's DDL log from its
binlog as their two directories do in the file store. ``ddl_log_records`` holds each record as one row: the bytes
:func:`storage.records.format.encode_record` makes (length and CRC32C included), keyed by the stream and the record's
offset. ``ddl_log_homes`` gives each home id a small number, the exact key of its advisory lock, and holds its
lease (epoch, lease end, last takeover). ``ddl_binlog`` is the catalog's one binlog (every driver's committed
statements in commit order, :mod:`storage.records.pg_binlog`) and ``ddl_xid_seq`` hands out XIDs unique across
drivers.
"""

from __future__ import annotations

import psycopg

SCHEMA_LOCK = (0x5DD1, 0)
"""Advisory transaction lock taken while creating the tables, so two drivers starting at once do not race."""
HOME_LOCK_CLASS = 0x5DD1
"""First key of every home's session lock; the second is the home's number in ``ddl_log_homes``."""
BINLOG_LOCK = (0x5DDB, 0)
"""Advisory transaction lock every append to ``ddl_binlog`` takes first, so that seq order is commit order."""

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS ddl_log_homes (
        id serial PRIMARY KEY,
        home text NOT NULL UNIQUE,
        created timestamptz NOT NULL DEFAULT now())""",
    """CREATE TABLE IF NOT EXISTS ddl_log_streams (
        id bigserial PRIMARY KEY,
        home text NOT NULL,
        space text NOT NULL,
        name text NOT NULL,
        header bytea NOT NULL,
        UNIQUE (home, space, name))""",
    """CREATE TABLE IF NOT EXISTS ddl_log_records (
        stream bigint NOT NULL REFERENCES ddl_log_streams (id) ON DELETE CASCADE,
        pos bigint NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (stream, pos))""",
    # Leases and fencing (storage/records/pg_lease.py): the open home's epoch, how long its claim holds, who took
    # it over last and when.
    "ALTER TABLE ddl_log_homes ADD COLUMN IF NOT EXISTS epoch bigint NOT NULL DEFAULT 0",
    "ALTER TABLE ddl_log_homes ADD COLUMN IF NOT EXISTS lease_until timestamptz",
    "ALTER TABLE ddl_log_homes ADD COLUMN IF NOT EXISTS taken_over_by text",
    "ALTER TABLE ddl_log_homes ADD COLUMN IF NOT EXISTS taken_over_at timestamptz",
    # Set when a driver closes its home cleanly: until then nothing in its log needs a taker (year 9999: nothing
    # at all; else its first scheduled deletion's time). NULL while it is open, and after a crash.
    "ALTER TABLE ddl_log_homes ADD COLUMN IF NOT EXISTS quiet_until timestamptz",
    """CREATE TABLE IF NOT EXISTS ddl_binlog (
        seq bigint PRIMARY KEY,
        xid bigint UNIQUE,
        home text NOT NULL,
        data bytea NOT NULL,
        committed_at timestamptz NOT NULL DEFAULT now())""",
    "CREATE SEQUENCE IF NOT EXISTS ddl_xid_seq",
)


_ready: set[tuple[str, int, str]] = set()
"""Databases (host, port, name) whose tables this process has seen or made: checked once per process."""


def ensure_schema(connection: psycopg.Connection[tuple[object, ...]]) -> None:
    """Create the tables unless they exist, in one transaction under :data:`SCHEMA_LOCK` (``CREATE TABLE IF NOT
    EXISTS`` alone can fail with a duplicate-type error when two sessions run it at the same instant)."""
    info = connection.info
    database = (info.host, info.port, info.dbname)
    if database in _ready:
        return
    with connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(%s, %s)", SCHEMA_LOCK)
        for statement in SCHEMA:
            connection.execute(statement)
    _ready.add(database)


def home_number(connection: psycopg.Connection[tuple[object, ...]], home: str) -> int:
    """The number of ``home`` in ``ddl_log_homes`` (registered on first use)."""
    with connection.transaction():
        connection.execute("INSERT INTO ddl_log_homes (home) VALUES (%s) ON CONFLICT (home) DO NOTHING", (home,))
        row = connection.execute("SELECT id FROM ddl_log_homes WHERE home = %s", (home,)).fetchone()
    assert row is not None
    return int(str(row[0]))
