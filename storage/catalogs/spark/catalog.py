"""The :class:`~storage.catalogs.ports.Catalog` on a Spark session with a Hive metastore: the wiring of its ports.

Only public Spark APIs are used for statements (``spark.sql``, ``spark.catalog``, ``spark.conf``, ``spark.read``,
``DataFrame``, ``DataType``), so the same code runs on a classic session and on a Spark Connect session; what only a
classic session can do (the metastore client of the catalog's own, Spark's parser, Hadoop's file systems) goes
through the JVM handles of the session's profile (:mod:`storage.catalogs.spark.profile`).

:func:`spark_catalog` wires one part per port (:mod:`storage.catalogs.ports`), grouped by mechanism; every part works
on the shared :class:`~storage.catalogs.spark.engine.Engine` (the session, its profile and the lookups several parts
make):

* :mod:`storage.catalogs.spark.sql`, Spark SQL text: :mod:`~.sql.table_statements` (names: lookups, identity,
  RENAME and its repair, DROP), :mod:`~.sql.data_jobs` (CREATE TABLE in all its forms, INSERT, their checks),
  :mod:`~.sql.table_alter` (definitions), :mod:`~.sql.partition_keep` (the partitions an INSERT OVERWRITE keeps),
  :mod:`~.sql.view_statements`, :mod:`~.sql.function_statements` (with :mod:`~.sql.function_records`),
  :mod:`~.sql.database_statements`, :mod:`~.sql.analysis` (Spark's parser and analyzer, nothing run);
* :mod:`storage.catalogs.spark.hms`, the Hive metastore's own records through Py4J: :mod:`~.hms.metastore_client`,
  :mod:`~.hms.swap` (the definition swap), :mod:`~.hms.definitions` (table versions), :mod:`~.hms.kind_swap` (kinds);
  on a session without a metastore client of the catalog's own (the profile says so: Spark Connect)
  :mod:`~.hms.without_client` is wired in their place, and a replace takes the rename path;
* :mod:`storage.catalogs.spark.fs`, files: :mod:`~.fs.leftover_files` (directories: files at a table's default
  location that no table owns, kept directories), :mod:`~.fs.file_mover` (INSERT INTO's files),
  :mod:`~.fs.version_mover`, :mod:`~.fs.kept_notes`, :mod:`~.fs.version_files`;
* :mod:`~storage.catalogs.spark.version_copies`: a replica's copies, across the three;
* :mod:`~storage.catalogs.spark.engine` and :mod:`~storage.catalogs.spark.columns`: the helpers they all use.

Statement text is built from quoted identifiers (:func:`storage.catalogs.names.quote_ident`), escaped string literals
(:func:`~storage.catalogs.spark.engine.sql_string_literal`), providers checked against a strict pattern and column
types that Spark itself parsed and this package printed again (:func:`~storage.catalogs.spark.columns.type_sql`).
The one piece of user text spliced as it is, is the SELECT of a ``CREATE TABLE ... AS SELECT``: it is the user's
query by design, and it sits inside a subquery, so it can only be a query.

Spark / Hive behaviours that concern every part (Spark 4.0.1, built-in Hive 2.3 metastore client):

* Table and database names must match ``[A-Za-z0-9_]+`` (``INVALID_SCHEMA_OR_RELATION_NAME``); anything else is
  refused at create (:class:`InvalidNameError`). Column names may hold any character.
* ``spark.sql`` substitutes ``${...}`` everywhere in the text, inside string literals and quoted identifiers too
  (``'${env:HOME}'`` reads as the home directory). Literals therefore write ``$`` as ``\\u0024``; identifiers cannot
  be escaped, so names containing ``${`` are refused.
* ``''`` is *not* an escaped quote in Spark SQL (``'it''s'`` is two adjacent literals: ``its``); literals use
  backslash escapes, which needs ``spark.sql.parser.escapedStringLiterals=false`` (the default; checked).
* A managed table's default location is ``<database location>/<name>``: CREATE and RENAME refuse it when it is taken
  by files, and failed or interrupted CTAS, RENAME and DROP leave files there (see
  :mod:`~storage.catalogs.spark.fs.leftover_files`).
"""

from __future__ import annotations

import functools
from typing import Any

import attrs

from storage.catalogs.ports import Catalog
from storage.catalogs.spark.engine import Engine, LeftoverStrategy
from storage.catalogs.spark.fs.data_listing import data_summary
from storage.catalogs.spark.fs.file_mover import SparkFileMoves
from storage.catalogs.spark.fs.leftover_files import SparkLeftovers
from storage.catalogs.spark.hms.definitions import SparkVersions
from storage.catalogs.spark.hms.kind_swap import SparkKindSwap
from storage.catalogs.spark.hms.metastore_client import MetastoreClient
from storage.catalogs.spark.hms.swap import SparkSwap
from storage.catalogs.spark.hms.without_client import WithoutMetastoreClient
from storage.catalogs.spark.session import quiet_pyspark_error_loggers
from storage.catalogs.spark.sql.data_jobs import SparkDataJobs
from storage.catalogs.spark.sql.database_statements import SparkDatabases
from storage.catalogs.spark.sql.function_statements import SparkFunctions
from storage.catalogs.spark.sql.partition_keep import SparkPartitionKeep
from storage.catalogs.spark.sql.table_alter import SparkTableAlter
from storage.catalogs.spark.sql.table_statements import SparkTables
from storage.catalogs.spark.sql.view_statements import SparkViews
from storage.catalogs.spark.version_copies import SparkCopying


@attrs.frozen
class SparkBackend:
    """What the Spark catalog's ports share: the :class:`Engine` (its ``spark`` may be put behind another object
    between calls, as the benchmark's timing proxy does; the parts stay wired by the session's profile) and the
    metastore client the catalog opened (None where the profile says there is none of its own)."""

    engine: Engine
    metastore: MetastoreClient | None

    @property
    def spark(self) -> Any:
        """The session every part works on."""
        return self.engine.spark

    def close(self) -> None:
        """Close the metastore client this catalog opened (reopened if used again); the session is its owner's."""
        if self.metastore is not None:
            self.metastore.close()


def spark_catalog(spark: Any, *, leftovers: LeftoverStrategy = "auto", quiet: bool = True) -> Catalog:
    """Tables, views, persistent functions and databases of the Hive-backed Spark session catalog
    (``spark_catalog``), on a classic or Spark Connect session, as a :class:`Catalog` of the parts listed above.

    Each call costs one to a few metastore round trips (given per method); answers are kept only within one
    statement (:mod:`storage.catalogs.lookup_scope`), so changes made by other sessions are seen by the next.
    ``leftovers`` says how ``clean_leftovers`` and ``settle_rename`` touch directories: ``"local"`` with Python's file
    functions (``file:`` locations this process can see), ``"metastore"`` through the Hive metastore (any file system
    the engine reaches), ``"auto"`` picks ``"local"`` for ``file:`` locations. For a Spark Connect server on another
    machine with a ``file:`` warehouse, pass ``"metastore"``. ``quiet`` silences PySpark's Python-side error loggers
    (process-wide, see :func:`storage.catalogs.spark.session.quiet_pyspark_error_loggers`): every engine error is
    translated anyway.

    The parts are wired by the session's profile, read here (four round trips the first time a session is seen):
    the metastore-record parts only where the catalog can open a metastore client of its own; elsewhere
    :class:`WithoutMetastoreClient` refuses the swap, versions and kinds, and a replace takes the rename path."""
    engine = Engine(spark, leftovers)
    if quiet:
        quiet_pyspark_error_loggers()
    refusal = engine.profile.metastore_refusal
    client = None if refusal is not None else MetastoreClient(engine)
    if client is not None:
        engine.read_records_with(client.lookup)
    alter = SparkTableAlter(engine, client)
    listing = SparkFileMoves(engine, alter.table_location, alter)
    keep = SparkPartitionKeep(engine, alter, client, listing.data_files, listing.tree)
    hms = None if client is None else SparkSwap(engine, client, carry_unregistered=keep.carry_unregistered)
    without = WithoutMetastoreClient(engine, refusal or "")
    swaps = hms or without
    directories = SparkLeftovers(engine, swaps.user_of)
    names = SparkTables(engine, directories, swaps, hms, client)
    return Catalog(
        names=names,
        data=SparkDataJobs(engine, directories, names, client, swap=swaps, alter=alter, keep=keep),
        definitions=alter,
        swaps=swaps,
        versions=without if client is None or hms is None else SparkVersions(
            engine, client, hms, functools.partial(data_summary, engine)),
        kinds=without if client is None else SparkKindSwap(engine, client),
        directories=directories,
        views=SparkViews(engine),
        functions=SparkFunctions(engine),
        databases=SparkDatabases(engine, hms),
        copies=SparkCopying(engine, client),
        backend=SparkBackend(engine, client),
    )
