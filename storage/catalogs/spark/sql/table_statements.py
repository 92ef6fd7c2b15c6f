"""Tables of the Spark session catalog by name, the :class:`~storage.catalogs.ports.Names` port: lookups, identity,
RENAME (and the repair of a torn one) and DROP. CREATE and INSERT are in :mod:`storage.catalogs.spark.sql.data_jobs`,
the files no table owns in :mod:`storage.catalogs.spark.fs.leftover_files`.

Spark / Hive behaviours this module deals with (Spark 4.0.1, built-in Hive 2.3 metastore client):

* RENAME of a managed table in its default location moves the directory: Hive renames the directory, then commits
  the metastore change, so a kill in between leaves the table under the old name with its data in the new name's
  directory (:meth:`SparkTables.settle_rename` repairs that). RENAME across databases is refused by Spark; RENAME
  refuses a target whose default location exists, even empty (``LOCATION_ALREADY_EXISTS``).
* DROP of a managed table removes the metastore entry, then the directory (``PURGE`` skips any trash).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from storage.catalogs.names import TableName, quote_ident
from storage.catalogs.spark.engine import (
    ENGINE_ERRORS,
    MISSING,
    Engine,
    Failure,
    engine_error,
    object_kind,
    sql_string_literal,
    substitutes,
)
from storage.catalogs.spark.fs.leftover_files import SparkLeftovers
from storage.catalogs.spark.hms.metastore_client import MetastoreClient
from storage.catalogs.spark.hms.swap import SparkSwap
from storage.catalogs.spark.hms.without_client import WithoutMetastoreClient
from storage.catalogs.spark.profile import local_path
from storage.catalogs.spark.profiles.facts import Cause, Refusal
from storage.catalogs.spark.sql.plan_relations import frame_relations, query_relations
from storage.errors import (
    CatalogError,
    EngineOperationError,
    InvalidNameError,
    NoSuchObjectError,
    ObjectExistsError,
    WrongObjectKindError,
)


class SparkTables:
    """The :class:`~storage.catalogs.ports.Names` port of the Spark catalog.

    ``leftovers`` cleans up after RENAME and DROP; ``swap`` renames a table away from its default location in place;
    where the catalog has a metastore client of its own (``client``, and ``hms`` its definition swap) a managed table
    can be dropped keeping its files, and a work table renamed to a user's name has its tag hidden.
    """

    def __init__(self, engine: Engine, leftovers: SparkLeftovers, swap: SparkSwap | WithoutMetastoreClient,
                 hms: SparkSwap | None, client: MetastoreClient | None) -> None:
        self._engine = engine
        self._leftovers = leftovers
        self._swap = swap
        self._hms = hms
        self._client = client

    @property
    def _spark(self) -> Any:
        return self._engine.spark

    # ------------------------------------------------------------------ lookups

    def exists(self, name: TableName) -> bool:
        """Whether a table (managed or external) is called ``name``; a view is not a table, temporary views are not
        in the catalog at all. See :meth:`~storage.catalogs.spark.engine.Engine.lookup` for the metastore calls."""
        found = self._engine.lookup(name)
        return found is not None and found.kind != "VIEW"

    def identity(self, name: TableName) -> str | None:
        """The tag property of ``name``, else ``fp:`` + a fingerprint of immutable metadata; None when missing.

        The fingerprint hashes creation time (one second resolution), provider, kind, columns and partition
        columns: it survives renames, but two untagged tables of one shape created within the same second share
        it. None for a view (not a table). See :meth:`~storage.catalogs.spark.engine.Engine.lookup` for the
        metastore calls (one on a classic session).
        """
        found = self._engine.lookup(name)
        return None if found is None else found.identity

    def current_identity(self, name: TableName) -> str | None:
        """One metastore call (:meth:`identity` after the statement's kept reads of the definition are forgotten;
        its partition listings stay)."""
        self._engine.forget(name, partitions=False)
        return self.identity(name)

    def list_tables(self, db: str) -> list[TableName]:
        """Tables (managed or external; no views, no temporary views) of ``db``, sorted. Two metastore calls."""
        if substitutes(db):
            raise NoSuchObjectError.database(f"database {db} does not exist", db)
        quoted = quote_ident(db)
        try:
            tables = self._spark.sql(f"SHOW TABLES IN {quoted}").collect()
            views = self._spark.sql(f"SHOW VIEWS IN {quoted}").collect()
        except ENGINE_ERRORS as error:
            failure = self._engine.failure(error)
            if failure.means(*MISSING):
                raise NoSuchObjectError.database(f"database {db} does not exist", db) from None
            raise engine_error(failure, f"cannot list the tables of {db}", None) from None
        view_names = {row["viewName"] for row in views if not row["isTemporary"]}
        names = {row["tableName"] for row in tables if not row["isTemporary"]} - view_names
        return [TableName(db.lower(), table) for table in sorted(names)]

    # ------------------------------------------------------------------ rename / drop

    def default_location(self, name: TableName) -> str | None:
        """See :meth:`storage.catalogs.spark.engine.Engine.default_location`."""
        return self._engine.default_location(name)

    def check_current_catalog(self) -> None:
        """See :meth:`storage.catalogs.spark.engine.Engine.check_current_catalog`."""
        self._engine.check_current_catalog()

    def drop_table_drops_views(self) -> bool:
        """What the session's Spark line does (:attr:`~storage.catalogs.spark.profiles.facts.VersionFacts.
        drop_table_drops_views`; the profile is read once per session)."""
        return self._engine.profile.facts.drop_table_drops_views

    def relations_read(self, query: str | None = None, frame: object | None = None, *,
                       default_db: str | None = None) -> list[TableName]:
        """:mod:`storage.catalogs.spark.sql.plan_relations`: a query by Spark's parser (the current database asked
        of the session when ``default_db`` is None: one round trip), a DataFrame by its analysed plan."""
        found = [] if frame is None else frame_relations(frame)
        if query is not None:
            found += query_relations(self._spark, query, default_db or str(self._spark.catalog.currentDatabase()))
        return found

    def rename(self, old: TableName, new: TableName, *, keep_directory: bool = False) -> None:
        """A managed table away from its default location (a swapped one) is renamed in place
        (:meth:`storage.catalogs.spark.hms.swap.SparkSwap.rename_in_place`), any other by Spark's RENAME
        (:meth:`rename_by_statement`); a work table renamed to a user's name has its tag hidden then."""
        # no forget here: the records the statement's lookups kept serve the rename, whose every change forgets
        # the names it touches first (rename_in_place, rename_by_statement)
        if self._swap.rename_in_place(old, new, keep_directory=keep_directory):
            return
        self.rename_by_statement(old, new)
        if old.is_reserved and not new.is_reserved and self._client is not None:
            self._client.hide_visible_tag(new)

    def rename_by_statement(self, old: TableName, new: TableName) -> None:
        """``ALTER TABLE old RENAME TO new``: one metastore call; a managed table's directory moves with it.

        A view is not a table (:class:`NoSuchObjectError`); both names must be in one database. If the target's
        default location exists (even empty) although no table has that name, Spark refuses; the files are removed
        first only when ``new`` is one of the DDL log's names (reserved prefix), else :class:`LeftoverFilesError`
        says where they are.
        """
        if old.db != new.db:
            raise CatalogError(f"cannot rename {old} to {new}: Spark renames tables only within a database", str(new))
        if substitutes(old.db) or substitutes(old.name):
            raise NoSuchObjectError.relation(f"table {old} does not exist", str(old))
        if substitutes(new.name):
            raise InvalidNameError(f"table names containing '${{' are not supported: {new}", str(new))
        statement = f"ALTER TABLE {old.quoted} RENAME TO {new.quoted}"
        self._engine.forget(old, new)
        failure = self._leftovers.run_claiming(new, statement, f"rename {old} to")
        if failure is not None:
            raise self._rename_error(old, new, failure) from None

    @staticmethod
    def _rename_error(old: TableName, new: TableName, failure: Failure) -> CatalogError:
        if failure.means(*MISSING):
            return NoSuchObjectError.relation(f"table {old} does not exist", str(old))
        if failure.means(Cause.RELATION_EXISTS):
            return ObjectExistsError.relation(f"cannot rename {old} to {new}: {new} already exists", str(new))
        if failure.means(Cause.VIEW_NOT_TABLE):
            return WrongObjectKindError.view_not_table(old, "use ALTER VIEW ... RENAME TO",
                                                       condition=failure.condition or "")
        if failure.means(Cause.BAD_NAME, Cause.BAD_NAME_SYNTAX):
            return InvalidNameError(f"{new} is not a valid Spark table name (letters, digits and _ only)", str(new),
                                    condition=failure.condition)
        return engine_error(failure, f"renaming {old} to {new} failed", new)

    def settle_rename(self, old: TableName, new: TableName) -> None:
        """Repair a rename cut between Hive's directory move and its metastore commit, or a rename to a work name
        cut between its two calls (:meth:`~storage.catalogs.spark.hms.swap.SparkSwap.settle_kept_rename`); a no-op
        otherwise.

        Torn means: ``old`` is a managed table recorded at its default location, that directory is gone, no table
        ``new`` exists and ``new``'s default location does. ``local`` strategy: the directory is moved back
        (``os.rename``). ``metastore`` strategy (no public API moves files): ``old`` is pointed at the directory
        where its data now is (``ALTER TABLE ... SET LOCATION``, and for a partitioned table ``MSCK REPAIR TABLE ...
        SYNC PARTITIONS`` to re-register its partitions there); the table is whole again, but keeps that location
        until it is dropped. Metastore calls: a describe, an existence check, two database lookups (the metastore
        strategy: two path checks and one or two ALTERs more).
        """
        if old == new or old.db != new.db:
            return
        if self._hms is not None and self._hms.settle_kept_rename(old, new):
            return
        info = self._engine.describe(old)
        if info is None or object_kind(info) != "MANAGED" or self._engine.occupied(new):
            return
        old_default, new_default = self._engine.default_location(old), self._engine.default_location(new)
        if old_default is None or new_default is None:
            return
        if str(info.get("location") or "").rstrip("/") != old_default.rstrip("/"):
            return  # a table outside its default location is never moved by a rename
        old_path, new_path = self._engine.local_directory(old_default), local_path(new_default)
        if old_path is not None and new_path is not None:
            if old_path.exists() or not new_path.is_dir():
                return
            try:
                os.rename(new_path, old_path)
            except OSError as error:
                raise EngineOperationError(
                    f"cannot move {new_default} back to {old_default}: {error}", str(old), error
                ) from None
            return
        if self._leftovers.path_exists(old_default) or not self._leftovers.path_exists(new_default):
            return
        self._engine.check_literal_mode()
        try:
            self._spark.sql(f"ALTER TABLE {old.quoted} SET LOCATION {sql_string_literal(new_default)}")
            if info.get("partition_columns"):
                # Partition locations still name the old directory: forget those (their directories are gone, so
                # nothing is deleted) and register the partitions found under the table's new location.
                self._spark.sql(f"MSCK REPAIR TABLE {old.quoted} SYNC PARTITIONS")
        except ENGINE_ERRORS as error:
            raise engine_error(self._engine.failure(error), f"cannot repair the torn rename of {old}", old) from None

    def drop(self, name: TableName, *, expect: str | None = None, before: Callable[[], None] | None = None,
             keep_files: bool = False) -> bool:
        """:meth:`drop_by_statement`; ``keep_files`` (a managed table leaves the metastore, its files stay) needs the
        metastore client (:meth:`SparkSwap.drop_keeping_files`), else the files go with it as Spark's DROP deletes
        them."""
        hms = self._hms if keep_files else None
        remove = (lambda table: hms.drop_keeping_files(table, expect)) if hms is not None else None
        try:
            return self.drop_by_statement(name, expect=expect, before=before, remove=remove)
        except NoSuchObjectError:
            if hms is not None and hms.drop_holder(name, expect):  # a partitioned drop cut after its rename
                return True
            raise

    def drop_by_statement(self, name: TableName, *, expect: str | None = None,
                          before: Callable[[], None] | None = None,
                          remove: Callable[[TableName], None] | None = None) -> bool:
        """``DROP TABLE ... PURGE``, then (a managed table at its default location) the leftovers there, so no file of
        it is left; or ``remove`` instead of both, for a managed table (the catalog's drop that keeps the files).

        A view is not a table (:class:`WrongObjectKindError`). With ``expect``, only a table whose :meth:`identity` is
        ``expect`` is dropped (False otherwise); ``before`` runs right before the DROP. Metastore calls: a lookup
        (:meth:`~storage.catalogs.spark.engine.Engine.lookup`; none when the statement's check made it), the drop;
        the clean-up needs none when the table's local directory is gone (else an existence check).
        """
        found = self._engine.lookup(name)
        if found is None:
            raise NoSuchObjectError.relation(f"table {name} does not exist", str(name))
        if found.kind == "VIEW":
            reported = self._engine.profile.conditions.reported[Refusal.DROP_VIEW_AS_TABLE]
            raise WrongObjectKindError.view_not_table(name, "use DROP VIEW", condition=reported)
        if expect is not None and found.identity != expect:
            return False
        if before is not None:
            before()
        if self._leftovers.is_helper_name(name):
            self._engine.forget(name)
            info = self._engine.describe(name, expect_present=True)
            if info is not None and self._leftovers.is_helper_table(name, info):
                self._leftovers.discard_helper_table(name)
                return True
        if remove is not None and found.kind == "MANAGED":
            remove(name)  # reads the record the lookup kept, and forgets the name
            return True
        self._engine.forget(name)
        try:
            self._spark.sql(f"DROP TABLE {name.quoted} PURGE")
        except ENGINE_ERRORS as error:
            failure = self._engine.failure(error)
            if failure.means(*MISSING):
                raise NoSuchObjectError.relation(f"table {name} does not exist", str(name)) from None
            raise engine_error(failure, f"dropping {name} failed", name) from None
        location = (found.location or "").rstrip("/")
        if found.kind == "MANAGED" and location.rsplit("/", 1)[-1] == name.name:
            # Only a table at its default location (``<database>/<name>``): elsewhere that directory is not the
            # table's (it may hold a version the log keeps of an earlier table of the name).
            self._leftovers.clean(name, location)
        return True
