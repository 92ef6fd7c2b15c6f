"""A Hive metastore client of the catalog's own, beside Spark's, for the one thing Spark's SQL cannot do: change a
table's whole definition (columns, location, properties, kind) in one ``alter_table`` call, which the metastore runs as
one transaction.

Why not Spark's client: ``HiveExternalCatalog.alterTable`` keeps a data source table's old schema. This client is built
from the same Hive configuration (embedded Derby or a Thrift service), used under a Python lock, makes every change
holding the lock Spark's ``HiveClientImpl`` serialises its own calls on (so no read of this JVM overlaps one:
:mod:`~storage.catalogs.spark.hms.spark_client_lock`), and works on the metastore's own ``Table`` records, so a
definition taken from one table is installed on another exactly. The records cross Py4J whole, as Thrift JSON
(:mod:`storage.catalogs.spark.hms.hive_record`): a read is four round trips, an install three, never one per field.

Hive 2.3 refuses an ``alter_table`` whose column types are not implicitly convertible from the old ones
(``hive.metastore.disallow.incompatible.col.type.changes``, on by default) and compares columns by position. For a data
source table those Hive columns are only a copy (Spark reads the schema from the table properties), so
:meth:`MetastoreClient.install` then installs the definition with no Hive columns first and with its own columns right
after: readers see the new table from the first call on.

Only on a classic session (a JVM handle) with Hive support: the session's profile says why not otherwise
(:attr:`~storage.catalogs.spark.profile.SparkProfile.metastore_refusal`), and its parts ask it before they use this
client."""

from __future__ import annotations

import json
import os
import threading
from typing import Any

from storage.catalogs import lookup_scope
from storage.catalogs.interface import TAG_PROPERTY
from storage.catalogs.kept_directories import normalized_location
from storage.catalogs.names import TableName
from storage.catalogs.spark.engine import (
    ENGINE_ERRORS,
    HIVE_PARTITIONS,
    HIVE_RECORD,
    INSTALLED_RECORD,
    Engine,
    inspect_error,
)
from storage.catalogs.spark.hms.client_connection import ClientConnection
from storage.catalogs.spark.hms.hive_record import (
    MANAGED,
    HivePartition,
    HiveTable,
    name_list,
    partitions_java,
    partitions_of,
    tables_of,
)
from storage.catalogs.spark.hms.installed_locations import note_installed
from storage.catalogs.spark.hms.installed_records import keep_installed
from storage.catalogs.spark.hms.record_lookup import lookup_of_record
from storage.catalogs.spark.hms.written_partitions import WrittenPartitions
from storage.catalogs.spark.jvm import string_list, thrift_value, to_json
from storage.catalogs.spark.profile import Jvm
from storage.catalogs.spark.profiles.facts import Cause
from storage.catalogs.spark.restored_schema import PROVIDER_PROPERTY
from storage.catalogs.spark.table_lookup import JvmTable
from storage.catalogs.tag_points import TAG_VISIBLE
from storage.errors import CatalogError, EngineOperationError, NoSuchObjectError, ObjectExistsError

EMPTY_DIRECTORY = "_ddllog_no_rows"
"""A path under a table's directory that never exists: a partition pointing there has no rows (Spark lists a
missing partition directory as empty; the leading ``_`` hides it from partition discovery)."""


class MetastoreClient:
    """One Hive ``IMetaStoreClient`` per catalog, created on first use, every call under one lock."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._connection = ClientConnection(engine)
        self._lock = threading.Lock()
        self._staged: dict[TableName, tuple[HivePartition, ...]] = {}
        """Per work table: partitions held for its install instead of registered (:meth:`stage_partitions`)."""
        self.written = WrittenPartitions()
        """The records of the partitioned versions this catalog's write jobs wrote, held for their installs."""

    def jvm(self) -> Jvm:
        """The session's JVM handles this client works with."""
        return self._connection.jvm()

    def _msc(self) -> Any:
        return self._connection.client()

    def close(self) -> None:
        """Close the metastore client this object opened (on a service: its Thrift connection, which the service
        keeps until the client closes it); a later call opens a new one. The Spark session is not touched."""
        with self._lock:
            self._connection.close()

    def get(self, name: TableName) -> HiveTable | None:
        """The metastore's ``Table`` record of ``name`` (None when missing). One metastore call and four Py4J round
        trips, no exception for a missing name. Read afresh, except inside a statement's
        :func:`~storage.catalogs.lookup_scope.reuse_lookups`, where a name read once is answered again until this
        client or the engine changes it (``Engine.forget``): Spark's own statements change names behind this client
        (found by the soak: RENAME t4 TO t5, t1 TO t4 refused "t4 already exists"), and every change the catalog
        makes through Spark forgets the names it touches first."""
        known = lookup_scope.cached(self._engine, (HIVE_RECORD, name))
        if known is not lookup_scope.MISSING_ENTRY:
            return known  # type: ignore[no-any-return]
        with self._lock:
            try:
                jvm = self.jvm()
                found = tables_of(jvm, self._msc().getTableObjectsByName(name.db, name_list(jvm, name.name)))
            except ENGINE_ERRORS as error:
                if self._engine.java_means(error, Cause.METASTORE_NO_SUCH_OBJECT, Cause.METASTORE_UNKNOWN_DATABASE):
                    return None
                raise self._error(error, f"cannot read the definition of {name}", name) from None
        table = next((t for t in found if t.name.lower() == name.name.lower()), None)
        lookup_scope.remember(self._engine, (HIVE_RECORD, name), table)
        return table

    def lookup(self, name: TableName) -> JvmTable | None:
        """The engine's lookup of ``name`` from its record (:func:`~.record_lookup.lookup_of_record`), which
        :meth:`get` keeps for the statement; None when nothing holds it. Raises
        :class:`~storage.errors.UnrenderedSchemaError` where the record cannot tell."""
        table = self.get(name)
        return None if table is None else lookup_of_record(self.jvm(), table)

    def database(self, db: str) -> Any | None:
        """The metastore's ``Database`` record of ``db`` (None when missing)."""
        with self._lock:
            try:
                return self._msc().getDatabase(db)
            except ENGINE_ERRORS as error:
                if self._engine.java_means(error, Cause.METASTORE_NO_SUCH_OBJECT):
                    return None
                raise EngineOperationError(f"cannot read database {db}: {inspect_error(error).message}", db,
                                           error) from None

    def _changing(self, name: TableName, *, partitions: bool = True) -> None:
        """Forget what was read of ``name`` in this statement before changing it (``partitions`` False: its
        ``Table`` record only, for an ``alter_table`` that leaves its partitions alone)."""
        lookup_scope.forget(self._engine, (HIVE_RECORD, name), (INSTALLED_RECORD, name),
                            *([(HIVE_PARTITIONS, name)] if partitions else []))

    def install(self, name: TableName, table: HiveTable, *, keep_statistics: bool = False) -> None:
        """Make ``table`` (a ``Table`` record, renamed to ``name`` by the caller) the definition of ``name``: one
        ``alter_table``, which changes no partition of a table it does not rename. ``keep_statistics``: the record's
        statistics stay as given (else the metastore counts the files at a changed location, as it does for a
        table Spark creates over files)."""
        self._changing(name, partitions=table.name.lower() != name.name.lower())
        with self._lock:
            jvm = self.jvm()
            keep = keep_statistics_context(jvm) if keep_statistics else None
            alter = "alter_table_with_environmentContext"
            try:
                self._connection.change(alter, name.db, name.name, table.java(jvm), keep)
            except ENGINE_ERRORS as error:
                invalid = self._engine.java_means(error, Cause.METASTORE_INVALID_OPERATION)
                if not invalid or "incompatible" not in str(error):
                    raise self._error(error, f"cannot install the new definition of {name}", name) from None
                try:
                    self._connection.change(alter, name.db, name.name, table.without_columns().java(jvm), keep)
                    self._connection.change(alter, name.db, name.name, table.java(jvm), keep)
                except ENGINE_ERRORS as error:
                    raise self._error(error, f"cannot install the new definition of {name}", name) from None
        if table.name.lower() == name.name.lower():
            keep_installed(self._engine, name, table)
        note_installed(jvm, TableName(table.db or name.db, table.name or name.name), table)

    def rename_as_spark(self, name: TableName, new_name: TableName) -> None:
        """Rename the external table ``name`` to ``new_name`` (same database) through Spark's own catalog: a query's
        partition listing looks the table up, then lists its partitions by name, both under that catalog's lock, so
        a query of this JVM never finds the table and then no partitions (this client's ``alter_table`` could land
        between the two). Two metastore calls (Spark reads the table first)."""
        self._changing(name)
        self._changing(new_name)
        with self._lock:
            try:
                catalog = self.jvm().session.sharedState().externalCatalog().unwrapped()
                catalog.renameTable(name.db, name.name, new_name.name)
            except ENGINE_ERRORS as error:
                raise self._error(error, f"cannot rename {name} to {new_name}", name) from None

    def create(self, name: TableName, table: HiveTable, *, keep_statistics: bool = False) -> None:
        """Create ``table`` (a ``Table`` record naming ``name``); the metastore makes a managed table's directory.

        ``keep_statistics``: the record's statistics parameters stay as given. Unasked, the metastore counts the
        files already at an unpartitioned table's directory when its record lacks them (a Hive serde table after
        Spark's insert), which Spark then shows as the table's statistics where plain Spark's table shows none. The
        metastore reads (and removes) its ``DO_NOT_UPDATE_STATS`` marker only where it gathers statistics
        (``hive.stats.autogather``, as this client's configuration says), so the marker goes only there."""
        self._changing(name)
        with self._lock:
            try:
                marked = table
                if keep_statistics and self._connection.gathers_statistics and not table.partitioned:
                    marked = table.with_parameters({DO_NOT_UPDATE_STATS: "true"})  # the metastore removes it
                self._connection.change("createTable", marked.java(self.jvm()))
            except ENGINE_ERRORS as error:
                if self._engine.java_means(error, Cause.METASTORE_OBJECT_EXISTS):
                    raise ObjectExistsError.relation(f"{name} already exists", str(name)) from None
                raise self._error(error, f"cannot create {name}", name) from None
        keep_installed(self._engine, name, table)
        note_installed(self.jvm(), name, table)

    def add_partitions(self, name: TableName, partitions: list[HivePartition]) -> None:
        """Register ``partitions`` (``Partition`` records naming ``name``) in one call, their files where they are."""
        self._changing(name)
        with self._lock:
            try:
                self._connection.change("add_partitions", partitions_java(self.jvm(), partitions))
            except ENGINE_ERRORS as error:
                raise self._error(error, f"cannot add the partitions of {name}", name) from None

    def default_location(self, name: TableName) -> str | None:
        """``<database location>/<name>`` as the metastore puts a managed table; None when the database is missing."""
        with self._lock:
            try:
                database = self._msc().getDatabase(name.db)
            except ENGINE_ERRORS as error:
                if self._engine.java_means(error, Cause.METASTORE_NO_SUCH_OBJECT):
                    return None
                raise self._error(error, f"cannot look up database {name.db}", name) from None
        return f"{str(database.getLocationUri()).rstrip('/')}/{name.name.lower()}"

    def directory_in_use(self, location: str) -> bool:
        """Whether ``location`` exists and holds anything (through Hadoop's file system, as the metastore sees it)."""
        local = self._engine.local_directory(location)
        try:
            if local is not None:
                return (local.is_dir() and any(local.iterdir())) or local.is_file()
            file_system, path = _file_system(self._engine, location)
            return bool(file_system.exists(path)) and len(file_system.listStatus(path)) > 0
        except OSError as error:
            raise EngineOperationError(f"cannot list {location}: {error}", location, error) from None
        except ENGINE_ERRORS as error:
            raise EngineOperationError(f"cannot list {location}: {inspect_error(error).message}", location,
                                       error) from None

    def directory_exists(self, location: str) -> bool:
        """Whether anything (even an empty directory) is at ``location``."""
        local = self._engine.local_directory(location)
        if local is not None:
            return os.path.lexists(local)
        try:
            file_system, path = _file_system(self._engine, location)
            return bool(file_system.exists(path))
        except ENGINE_ERRORS as error:
            raise EngineOperationError(f"cannot look at {location}: {inspect_error(error).message}", location,
                                       error) from None

    def make_directory(self, location: str) -> None:
        """Make the empty directory ``location`` (and its parents), as the metastore makes a new managed table's
        (mode 755 where Hadoop's umask 022 gives it)."""
        local = self._engine.local_directory(location)
        try:
            if local is not None:
                local.mkdir(mode=0o755, parents=True, exist_ok=True)
                return
            file_system, path = _file_system(self._engine, location)
            file_system.mkdirs(path)
        except OSError as error:
            raise EngineOperationError(f"cannot make {location}: {error}", location, error) from None
        except ENGINE_ERRORS as error:
            raise EngineOperationError(f"cannot make {location}: {inspect_error(error).message}", location,
                                       error) from None

    def partitions(self, name: TableName) -> list[HivePartition]:
        """The metastore's ``Partition`` records of ``name``: one metastore call, three Py4J round trips; kept for
        the statement as :meth:`get` keeps a record."""
        known = lookup_scope.cached(self._engine, (HIVE_PARTITIONS, name))
        if known is not lookup_scope.MISSING_ENTRY:
            return list(known)
        with self._lock:
            try:
                found = partitions_of(self.jvm(), self._msc().listPartitions(name.db, name.name, -1))
            except ENGINE_ERRORS as error:
                raise self._error(error, f"cannot list the partitions of {name}", name) from None
        lookup_scope.remember(self._engine, (HIVE_PARTITIONS, name), tuple(found))
        return found

    def partition_names(self, name: TableName, values: list[str]) -> list[str]:
        """The names (``k=v/j=w``, escaped as Spark names partition directories) of the partitions of ``name`` whose
        values are ``values``, one for every partition column in order, ``""`` for any value: one metastore call,
        nothing raised for none. The metastore matches a name pattern made of the values: the caller passes only
        values that stand for themselves in it (:mod:`~storage.catalogs.spark.hms.partition_values`)."""
        with self._lock:
            try:
                jvm = self.jvm()
                listed = self._msc().listPartitionNames(name.db, name.name, string_list(jvm, values), -1)
                return [str(found) for found in json.loads(to_json(jvm, listed))]
            except ENGINE_ERRORS as error:
                raise self._error(error, f"cannot list the partitions of {name}", name) from None

    def stage_partitions(self, name: TableName, partitions: list[HivePartition]) -> None:
        """Hold ``partitions`` (records naming the work table ``name``) for the install that makes them another
        table's (:meth:`staged_partitions`), instead of registering them in ``name`` only for them to be read back,
        switched in and dropped with it: on Derby each partition record cost about 3 ms three times over. Whatever
        needs ``name`` whole first registers them (:meth:`register_staged`); forgetting ``name`` drops them."""
        with self._lock:
            self._staged[name] = self._staged.get(name, ()) + tuple(partitions)

    def staged_partitions(self, name: TableName) -> list[HivePartition]:
        """The partitions held for ``name`` (:meth:`stage_partitions`), none once registered or forgotten."""
        with self._lock:
            return list(self._staged.get(name, ()))

    def register_staged(self, name: TableName) -> None:
        """Register the partitions held for ``name`` in it (one ``add_partitions``; none held: no call)."""
        with self._lock:
            staged = self._staged.pop(name, ())
        if staged:
            self.add_partitions(name, list(staged))

    def repoint_partition_paths(self, name: TableName, old: str, new: str) -> None:
        """Point the ``path`` storage property of every partition of ``name`` that names ``old`` at ``new``: the
        metastore's rename of a managed table moves its partitions' locations but leaves that property, which
        DESC ... PARTITION prints. One listing, and one ``alter_partitions`` when a partition names ``old``."""
        changed = [p.with_path_property(new) for p in self.partitions(name)
                   if (p.path_property or "").rstrip("/") == old.rstrip("/")]
        if not changed:
            return
        self._changing(name)
        with self._lock:
            try:
                self._connection.change("alter_partitions", name.db, name.name, partitions_java(self.jvm(), changed))
            except ENGINE_ERRORS as error:
                raise self._error(error, f"cannot update the partitions of {name}", name) from None

    def switch_partitions(self, name: TableName, wanted: list[HivePartition], empty_location: str) -> None:
        """Make ``wanted`` (``Partition`` records of any table) the partitions of ``name`` with at most one switch a
        reader can see: partitions missing so far are added pointing at ``empty_location`` (a path that does not
        exist: no rows), then one ``alter_partitions`` (one metastore transaction) points every partition at its new
        directory (the unwanted ones at ``empty_location``), then the unwanted ones are dropped without their files.
        A query that lists the partitions sees the old set of rows or the new one. Idempotent."""
        current = {p.values: p for p in self.partitions(name)}
        target = {p.values: p for p in wanted}
        lookup_scope.forget(self._engine, (HIVE_PARTITIONS, name))  # its Table record is not changed
        with self._lock:
            jvm = self.jvm()
            try:
                added = [p.placed(name, empty_location) for values, p in target.items() if values not in current]
                if added:
                    self._connection.change("add_partitions", partitions_java(jvm, added))
                switched_in = [p.placed(name) for p in target.values()]
                switched = switched_in + [p.placed(name, empty_location) for values, p in current.items()
                                          if values not in target]
                if switched:
                    self._connection.change("alter_partitions", name.db, name.name, partitions_java(jvm, switched))
                for values in current:
                    if values not in target:
                        self._connection.change("dropPartition", name.db, name.name, list(values), False)
            except ENGINE_ERRORS as error:
                raise self._error(error, f"cannot switch the partitions of {name}", name) from None
        # the statement's later reads (its version record) find them as switched: values and locations as the
        # metastore now holds them, in the order of their values, with no listing (the metastore's own parameters,
        # such as the time of the change, not read)
        lookup_scope.remember(self._engine, (HIVE_PARTITIONS, name),
                              tuple(sorted(switched_in, key=lambda p: p.values)))

    def hide_visible_tag(self, name: TableName, tag: str | None = None) -> None:
        """Move the visible tag of the table ``name`` (only when it is ``tag``, if given) to the hidden key: after a
        CREATE, or after Spark's own RENAME of a work table to ``name``; nothing for an untagged table or a view.
        Two metastore calls when there is one to move: the raw ``Table`` record and one ``alter_table`` of its
        parameters only, statistics as they are (the metastore would count the files). A crash before the second
        leaves the table known by its visible tag (crash point ``create.tag_visible``)."""
        self._engine.forget(name)  # read afresh: the statement may have found the name free before the CREATE
        table = self.get(name)
        if table is None or table.is_view or table.tag is None or tag not in (None, table.tag):
            return
        if TAG_PROPERTY in table.parameters:
            TAG_VISIBLE()
            self.install(name, table.with_tag(table.tag), keep_statistics=True)
            self._engine.forget(name)

    def user_of(self, location: str) -> str | None:
        """What in the metastore uses ``location`` (decoded URI), in words; None when nothing does: a database
        located at or under it, a table or a partition located at, under or above it (a table above it reads it).
        One call per database and two more per database with tables, one per partitioned table: every database of
        the metastore is looked at, since any table of any database can point anywhere."""
        target = normalized_location(location)
        with self._lock:
            try:
                client, jvm = self._msc(), self.jvm()
                for db in json.loads(to_json(jvm, client.getAllDatabases())):
                    where = str(client.getDatabase(db).getLocationUri())
                    if _at_or_under(normalized_location(where), target):
                        return f"database {db} is located at {where}"
                    names = client.getAllTables(db)
                    if not names.size():
                        continue
                    for table in tables_of(jvm, client.getTableObjectsByName(db, names)):
                        reason = self._table_use(client, db, table, target)
                        if reason is not None:
                            return reason
            except ENGINE_ERRORS as error:
                raise EngineOperationError(f"cannot check who uses {location}: {inspect_error(error).message}",
                                           location, error) from None
        return None

    def _table_use(self, client: Any, db: str, table: HiveTable, target: str) -> str | None:
        label = f"{db}.{table.name}"
        own = table.location
        if own and _related(normalized_location(own), target):
            return f"table {label} is located at {own}"
        if table.partitioned:
            for partition in partitions_of(self.jvm(), client.listPartitions(db, table.name, -1)):
                where = partition.location
                if where and _related(normalized_location(where), target):
                    return f"a partition of table {label} is located at {where}"
        return None

    def set_database_property(self, db: str, key: str, value: str) -> None:
        """Set the property ``key`` of the database ``db`` to ``value``: two metastore calls (its record, then the
        record with the property), what Spark's ``ALTER DATABASE ... SET DBPROPERTIES`` makes without its statement
        around them (parsed and analysed: about 20 of its 25 ms)."""
        with self._lock:
            try:
                record = self._msc().getDatabase(db)
                record.putToParameters(key, value)
                self._connection.change("alterDatabase", db, record)
            except ENGINE_ERRORS as error:
                if self._engine.java_means(error, Cause.METASTORE_NO_SUCH_OBJECT):
                    raise NoSuchObjectError.database(f"database {db} does not exist", db) from None
                raise EngineOperationError(f"cannot set a property of database {db}: {inspect_error(error).message}",
                                           db, error) from None

    def drop_database(self, db: str) -> None:
        """Drop the empty database ``db`` (RESTRICT), its directory left in place (``deleteData`` off)."""
        with self._lock:
            try:
                self._connection.change("dropDatabase", db, False, False, False)
            except ENGINE_ERRORS as error:
                if self._engine.java_means(error, Cause.METASTORE_NO_SUCH_OBJECT):
                    raise NoSuchObjectError.database(f"database {db} does not exist", db) from None
                if self._engine.java_means(error, Cause.METASTORE_INVALID_OPERATION):
                    raise CatalogError(f"database {db} is not empty", db) from None
                raise EngineOperationError(f"cannot drop database {db}: {inspect_error(error).message}", db,
                                           error) from None

    def forget(self, name: TableName, *, present: bool = False) -> None:
        """Remove ``name`` from the metastore, never its files (``deleteData`` off, whatever the table's kind), and
        the partitions held for it; ``present``: a table that is not there raises :class:`NoSuchObjectError` (else
        nothing happens)."""
        with self._lock:
            self._staged.pop(name, None)
            try:
                self._changing(name)
                self._connection.change("dropTable", name.db, name.name, False, not present)
            except ENGINE_ERRORS as error:
                raise self._error(error, f"cannot remove {name} from the metastore", name) from None

    def _error(self, error: BaseException, what: str, name: TableName) -> CatalogError:
        if self._engine.java_means(error, Cause.METASTORE_NO_SUCH_OBJECT):
            return NoSuchObjectError.relation(f"table {name} does not exist", str(name))
        return EngineOperationError(f"{what}: {inspect_error(error).message}", str(name), error)


def _file_system(engine: Engine, location: str) -> tuple[Any, Any]:
    found = engine.hadoop(location)
    if found is None:
        raise CatalogError(engine.profile.metastore_refusal or "no JVM handle on this session", location)
    return found


def _at_or_under(candidate: str, target: str) -> bool:
    return candidate == target or candidate.startswith(target + "/")


def _related(candidate: str, target: str) -> bool:
    """``candidate`` is at, under or above ``target``."""
    return _at_or_under(candidate, target) or target.startswith(candidate + "/")


def swap_refusal(table: HiveTable | None, name: TableName) -> str | None:
    """Why the definition of ``table`` cannot take part in a swap (None when it can)."""
    if table is None:
        return f"{name} does not exist"
    if table.table_type != MANAGED:
        return f"{name} is not a managed table"
    if hive_serde(table):
        return f"{name} is a Hive serde table (its Hive columns are its schema)"
    return None


def hive_serde(table: HiveTable) -> bool:
    """Whether ``table`` is a Hive serde table (no data source provider): its Hive columns and partitions are all a
    reader has."""
    provider = table.parameters.get(PROVIDER_PROPERTY)
    return provider is None or provider.lower() == "hive"


def keys_refusal(orig: HiveTable, tmp: HiveTable, name: TableName) -> str | None:
    """Why the new definition cannot be swapped onto ORIG's: the metastore refuses to change partition keys."""
    if orig.partition_keys != tmp.partition_keys:
        return f"the partition columns of {name} change (the metastore cannot change a table's partition keys)"
    return None


DO_NOT_UPDATE_STATS = "DO_NOT_UPDATE_STATS"

KEEP_STATISTICS = '{"1":{"map":["str","str",1,{"DO_NOT_UPDATE_STATS":"true"}]}}'
"""An ``EnvironmentContext`` (Thrift JSON) telling the metastore to leave a table's statistics parameters as the
record gives them: unasked, ``alter_table`` recounts the files at a changed location, which Spark's own calls never
let it do (so a table the project installed would describe with a ``Statistics`` row plain Spark's never shows)."""


def keep_statistics_context(jvm: Jvm) -> Any:
    return thrift_value(jvm, jvm.classes.hive_environment_context, KEEP_STATISTICS)
