"""A Hive metastore client of the catalog's own, beside Spark's, for the one thing Spark's SQL cannot do: change a
table's whole definition (columns, location, properties, kind) in one ``alter_table`` call, which the metastore runs
as one transaction.

Why not Spark's client: ``HiveExternalCatalog.alterTable`` keeps a data source table's old schema, and Spark's
``HiveClientImpl`` serialises its calls on a lock the Python side cannot take, while reader threads use it. This
client is built from the same Hive configuration (embedded Derby or a Thrift service), used under a Python lock, and
works on the metastore's own ``Table`` records, so a definition taken from one table is installed on another exactly.

Hive 2.3 refuses an ``alter_table`` whose column types are not implicitly convertible from the old ones
(``hive.metastore.disallow.incompatible.col.type.changes``, on by default) and compares columns by position. For a
data source table those Hive columns are only a copy (Spark reads the schema from the table properties), so
:meth:`MetastoreClient.install` then installs the definition with no Hive columns first and with its own columns
right after: readers see the new table from the first call on.

Only on a classic session (a JVM handle) with Hive support; :meth:`MetastoreClient.refusal` says why not otherwise.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any

from storage.catalogs.interface import TAG_PROPERTY
from storage.catalogs.kept_directories import normalized_location
from storage.catalogs.names import TableName
from storage.catalogs.spark.engine import ENGINE_ERRORS, Engine, inspect_error
from storage.errors import CatalogError, EngineOperationError, NoSuchObjectError, ObjectExistsError

MANAGED = "MANAGED_TABLE"
EXTERNAL = "EXTERNAL_TABLE"
PROVIDER_PROPERTY = "spark.sql.sources.provider"
"""Where Spark keeps a data source table's provider; a Hive serde table has none (or ``hive``)."""
PARTITION_PROVIDER_PROPERTY = "spark.sql.partitionProvider"
"""``catalog`` when Spark reads a table's partitions from the metastore (else it lists the table's directory)."""
STATISTICS = frozenset({"numFiles", "numRows", "rawDataSize", "totalSize", "COLUMN_STATS_ACCURATE",
                        "transient_lastDdlTime", "numFilesErasureCoded"})
"""Table parameters the metastore keeps as statistics of a table's files: an empty copy starts without them."""
SPARK_STATISTICS = "spark.sql.statistics."
EMPTY_DIRECTORY = "_ddllog_no_rows"
"""A path under a table's directory that never exists: a partition pointing there has no rows (Spark lists a
missing partition directory as empty; the leading ``_`` hides it from partition discovery)."""


def _java_class(error: BaseException) -> str:
    java = getattr(error, "java_exception", None)
    try:
        return str(java.getClass().getName()) if java is not None else ""
    except Exception:  # noqa: BLE001 - a gone JVM cannot name the class
        return ""


class MetastoreClient:
    """One Hive ``IMetaStoreClient`` per catalog, created on first use, every call under one lock."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._client: Any = None
        self._session: Any = None
        self._lock = threading.Lock()

    def refusal(self) -> str | None:
        """Why this session has no metastore client (None when it has one)."""
        jsession = getattr(self._engine.spark, "_jsparkSession", None)
        if jsession is None:
            return "a Spark Connect session has no handle on the Hive metastore client"
        try:
            implementation = self._engine.spark.conf.get("spark.sql.catalogImplementation", "in-memory")
        except ENGINE_ERRORS:
            return "the session's catalog implementation cannot be read"
        if str(implementation).lower() != "hive":
            return f"the session catalog is {implementation!r}, not the Hive metastore"
        return None

    def _msc(self) -> Any:
        jsession = self._engine.spark._jsparkSession
        if self._client is None or self._session is not jsession:
            self._close_client()  # another session: its client goes with it
            hive = jsession.sharedState().externalCatalog().unwrapped().client()
            jvm = self._engine.spark._jvm
            self._client = jvm.org.apache.hadoop.hive.metastore.HiveMetaStoreClient(hive.conf())
            self._session = jsession
        return self._client

    def close(self) -> None:
        """Close the metastore client this object opened (on a service: its Thrift connection, which the service
        keeps until the client closes it); a later call opens a new one. The Spark session is not touched."""
        with self._lock:
            self._close_client()

    def _close_client(self) -> None:
        client, self._client, self._session = self._client, None, None
        if client is not None:
            with contextlib.suppress(*ENGINE_ERRORS):  # a stopped JVM or a gone service: nothing is left open
                client.close()

    def get(self, name: TableName) -> Any | None:
        """The metastore's ``Table`` record of ``name`` (None when missing), read afresh every time: Spark's own
        statements (a RENAME through Spark SQL) change names behind this client, so an answer kept for the statement
        went stale (found by the soak: RENAME t4 TO t5, t1 TO t4 refused "t4 already exists")."""
        with self._lock:
            try:
                return self._msc().getTable(name.db, name.name)
            except ENGINE_ERRORS as error:
                if _java_class(error).endswith("NoSuchObjectException"):
                    return None
                raise self._error(error, f"cannot read the definition of {name}", name) from None

    def database(self, db: str) -> Any | None:
        """The metastore's ``Database`` record of ``db`` (None when missing)."""
        with self._lock:
            try:
                return self._msc().getDatabase(db)
            except ENGINE_ERRORS as error:
                if _java_class(error).endswith("NoSuchObjectException"):
                    return None
                raise EngineOperationError(f"cannot read database {db}: {inspect_error(error).message}", db,
                                           error) from None

    def install(self, name: TableName, table: Any) -> None:
        """Make ``table`` (a ``Table`` record, renamed to ``name`` by the caller) the definition of ``name``."""
        with self._lock:
            client = self._msc()
            try:
                client.alter_table(name.db, name.name, table)
                return
            except ENGINE_ERRORS as error:
                if not _java_class(error).endswith("InvalidOperationException") or "incompatible" not in str(error):
                    raise self._error(error, f"cannot install the new definition of {name}", name) from None
            bridge = table.deepCopy()
            bridge.getSd().setCols(self._engine.spark._jvm.java.util.ArrayList())
            try:
                client.alter_table(name.db, name.name, bridge)
                client.alter_table(name.db, name.name, table)
            except ENGINE_ERRORS as error:
                raise self._error(error, f"cannot install the new definition of {name}", name) from None

    def create(self, name: TableName, table: Any) -> None:
        """Create ``table`` (a ``Table`` record naming ``name``); the metastore makes a managed table's directory."""
        with self._lock:
            try:
                self._msc().createTable(table)
            except ENGINE_ERRORS as error:
                if _java_class(error).endswith("AlreadyExistsException"):
                    raise ObjectExistsError(f"{name} already exists", str(name)) from None
                raise self._error(error, f"cannot create {name}", name) from None

    def add_partitions(self, name: TableName, partitions: list[Any]) -> None:
        """Register ``partitions`` (``Partition`` records naming ``name``) in one call, their files where they are."""
        with self._lock:
            try:
                added = self._engine.spark._jvm.java.util.ArrayList()
                for partition in partitions:
                    added.add(partition)
                self._msc().add_partitions(added)
            except ENGINE_ERRORS as error:
                raise self._error(error, f"cannot add the partitions of {name}", name) from None

    def default_location(self, name: TableName) -> str | None:
        """``<database location>/<name>`` as the metastore puts a managed table; None when the database is missing."""
        with self._lock:
            try:
                database = self._msc().getDatabase(name.db)
            except ENGINE_ERRORS as error:
                if _java_class(error).endswith("NoSuchObjectException"):
                    return None
                raise self._error(error, f"cannot look up database {name.db}", name) from None
        return f"{str(database.getLocationUri()).rstrip('/')}/{name.name.lower()}"

    def directory_in_use(self, location: str) -> bool:
        """Whether ``location`` exists and holds anything (through Hadoop's file system, as the metastore sees it)."""
        jvm = self._engine.spark._jvm
        try:
            path = jvm.org.apache.hadoop.fs.Path(location)
            file_system = path.getFileSystem(self._engine.spark._jsc.hadoopConfiguration())
            return bool(file_system.exists(path)) and len(file_system.listStatus(path)) > 0
        except ENGINE_ERRORS as error:
            raise EngineOperationError(f"cannot list {location}: {inspect_error(error).message}", location,
                                       error) from None

    def make_directory(self, location: str) -> None:
        """Make the empty directory ``location`` (and its parents), as the metastore makes a new managed table's."""
        jvm = self._engine.spark._jvm
        try:
            path = jvm.org.apache.hadoop.fs.Path(location)
            path.getFileSystem(self._engine.spark._jsc.hadoopConfiguration()).mkdirs(path)
        except ENGINE_ERRORS as error:
            raise EngineOperationError(f"cannot make {location}: {inspect_error(error).message}", location,
                                       error) from None

    def partitions(self, name: TableName) -> list[Any]:
        """The metastore's ``Partition`` records of ``name``."""
        with self._lock:
            try:
                return list(self._msc().listPartitions(name.db, name.name, -1))
            except ENGINE_ERRORS as error:
                raise self._error(error, f"cannot list the partitions of {name}", name) from None

    def switch_partitions(self, name: TableName, wanted: list[Any], empty_location: str) -> None:
        """Make ``wanted`` (``Partition`` records of any table) the partitions of ``name`` with at most one switch a
        reader can see: partitions missing so far are added pointing at ``empty_location`` (a path that does not
        exist: no rows), then one ``alter_partitions`` (one metastore transaction) points every partition at its new
        directory (the unwanted ones at ``empty_location``), then the unwanted ones are dropped without their files.
        A query that lists the partitions sees the old set of rows or the new one. Idempotent."""
        jvm = self._engine.spark._jvm
        current = {tuple(p.getValues()): p for p in self.partitions(name)}
        target = {tuple(p.getValues()): p for p in wanted}
        with self._lock:
            client = self._msc()
            try:
                added = jvm.java.util.ArrayList()
                for values, partition in target.items():
                    if values not in current:
                        added.add(_partition_for(partition, name, empty_location))
                if added.size():
                    client.add_partitions(added)
                switched = jvm.java.util.ArrayList()
                for partition in target.values():
                    switched.add(_partition_for(partition, name, None))
                for values, partition in current.items():
                    if values not in target:
                        switched.add(_partition_for(partition, name, empty_location))
                if switched.size():
                    client.alter_partitions(name.db, name.name, switched)
                for values in current:
                    if values not in target:
                        client.dropPartition(name.db, name.name, jvm.java.util.ArrayList(list(values)), False)
            except ENGINE_ERRORS as error:
                raise self._error(error, f"cannot switch the partitions of {name}", name) from None

    def user_of(self, location: str) -> str | None:
        """What in the metastore uses ``location`` (decoded URI), in words; None when nothing does: a database
        located at or under it, a table or a partition located at, under or above it (a table above it reads it).
        One call per database and two more per database with tables, one per partitioned table: every database of
        the metastore is looked at, since any table of any database can point anywhere."""
        target = normalized_location(location)
        with self._lock:
            try:
                client = self._msc()
                for db in client.getAllDatabases():
                    database = client.getDatabase(db)
                    if _at_or_under(normalized_location(str(database.getLocationUri())), target):
                        return f"database {db} is located at {database.getLocationUri()}"
                    names = client.getAllTables(db)
                    if not names.size():
                        continue
                    for table in client.getTableObjectsByName(db, names):
                        reason = self._table_use(client, table, target)
                        if reason is not None:
                            return reason
            except ENGINE_ERRORS as error:
                raise EngineOperationError(f"cannot check who uses {location}: {inspect_error(error).message}",
                                           location, error) from None
        return None

    @staticmethod
    def _table_use(client: Any, table: Any, target: str) -> str | None:
        label = f"{table.getDbName()}.{table.getTableName()}"
        storage = table.getSd()
        own = storage.getLocation() if storage is not None else None
        if own and _related(normalized_location(str(own)), target):
            return f"table {label} is located at {own}"
        if table.getPartitionKeysSize():
            for partition in client.listPartitions(table.getDbName(), table.getTableName(), -1):
                where = partition.getSd().getLocation() if partition.getSd() is not None else None
                if where and _related(normalized_location(str(where)), target):
                    return f"a partition of table {label} is located at {where}"
        return None

    def drop_database(self, db: str) -> None:
        """Drop the empty database ``db`` (RESTRICT), its directory left in place (``deleteData`` off)."""
        with self._lock:
            try:
                self._msc().dropDatabase(db, False, False, False)
            except ENGINE_ERRORS as error:
                java = _java_class(error)
                if java.endswith("NoSuchObjectException"):
                    raise NoSuchObjectError(f"database {db} does not exist", db) from None
                if java.endswith("InvalidOperationException"):
                    raise CatalogError(f"database {db} is not empty", db) from None
                raise EngineOperationError(f"cannot drop database {db}: {inspect_error(error).message}", db,
                                           error) from None

    def forget(self, name: TableName) -> None:
        """Remove ``name`` from the metastore, never its files (``deleteData`` off, whatever the table's kind)."""
        with self._lock:
            try:
                self._msc().dropTable(name.db, name.name, False, True)
            except ENGINE_ERRORS as error:
                raise self._error(error, f"cannot remove {name} from the metastore", name) from None

    @staticmethod
    def _error(error: BaseException, what: str, name: TableName) -> CatalogError:
        if _java_class(error).endswith("NoSuchObjectException"):
            return NoSuchObjectError(f"table {name} does not exist", str(name))
        return EngineOperationError(f"{what}: {inspect_error(error).message}", str(name), error)


def _at_or_under(candidate: str, target: str) -> bool:
    return candidate == target or candidate.startswith(target + "/")


def _related(candidate: str, target: str) -> bool:
    """``candidate`` is at, under or above ``target``."""
    return _at_or_under(candidate, target) or target.startswith(candidate + "/")


def _partition_for(partition: Any, name: TableName, location: str | None) -> Any:
    copy = partition.deepCopy()
    copy.setDbName(name.db)
    copy.setTableName(name.name)
    if location is not None:
        copy.getSd().setLocation(location)
    return copy


def discovering(table: Any) -> Any:
    """A partitioned data source table's definition with its partitions found in its directory rather than in the
    metastore: what a reader resolves while the metastore's partitions are being switched."""
    copy = table.deepCopy()
    copy.getParameters().remove(PARTITION_PROVIDER_PROPERTY)
    return copy


def renamed(table: Any, name: TableName) -> Any:
    """A copy of a ``Table`` record that names ``name``: the metastore alters the table the call names, and takes
    the name inside the record as its new name, so a definition taken from another table must carry this one's."""
    copy = table.deepCopy()
    copy.setDbName(name.db)
    copy.setTableName(name.name)
    return copy


def empty_copy(table: Any, name: TableName, tag: str, location: str) -> Any:
    """An empty table with ``table``'s whole definition under ``name`` at ``location``, tagged ``tag``: what Spark's
    TRUNCATE leaves (properties and comment kept, statistics gone)."""
    copy = renamed(table, name)
    parameters = copy.getParameters()
    for key in [str(key) for key in parameters.keySet()]:
        if key in STATISTICS or key.startswith(SPARK_STATISTICS):
            parameters.remove(key)
    parameters.put(TAG_PROPERTY, tag)
    storage = copy.getSd()
    storage.setLocation(location)
    serde = storage.getSerdeInfo().getParameters() if storage.getSerdeInfo() is not None else None
    if serde is not None and serde.containsKey("path"):
        serde.put("path", location)
    copy.setCreateTime(int(time.time()))
    copy.setLastAccessTime(0)
    return copy


def as_holder(table: Any, name: TableName, holder_tag: str) -> Any:
    """ORIG's definition as TMP keeps it until the commit: external (dropping it never deletes ORIG's files) and
    tagged ``holder_tag``, so recovery knows it from any other table."""
    holder = renamed(table, name)
    holder.setTableType(EXTERNAL)
    holder.getParameters().put("EXTERNAL", "TRUE")
    holder.getParameters().put(TAG_PROPERTY, holder_tag)
    return holder


def as_restored(holder: Any, name: TableName, orig_tag: str | None) -> Any:
    """The holder's definition back on ORIG: managed again, with ORIG's own tag property (or none)."""
    table = renamed(holder, name)
    table.setTableType(MANAGED)
    parameters = table.getParameters()
    parameters.remove("EXTERNAL")
    if orig_tag is None:
        parameters.remove(TAG_PROPERTY)
    else:
        parameters.put(TAG_PROPERTY, orig_tag)
    return table


def swap_refusal(table: Any, name: TableName) -> str | None:
    """Why the definition of ``table`` cannot take part in a swap (None when it can)."""
    if table is None:
        return f"{name} does not exist"
    if str(table.getTableType()) != MANAGED:
        return f"{name} is not a managed table"
    provider = table.getParameters().get(PROVIDER_PROPERTY)
    if provider is None or str(provider).lower() == "hive":
        return f"{name} is a Hive serde table (its Hive columns are its schema)"
    return None


def keys_refusal(orig: Any, tmp: Any, name: TableName) -> str | None:
    """Why the new definition cannot be swapped onto ORIG's: the metastore refuses to change partition keys."""
    def keys(table: Any) -> list[tuple[str, str]]:
        return [(str(k.getName()).lower(), str(k.getType()).lower()) for k in table.getPartitionKeys()]

    if keys(orig) != keys(tmp):
        return f"the partition columns of {name} change (the metastore cannot change a table's partition keys)"
    return None


def tag_of(table: Any) -> str | None:
    value = table.getParameters().get(TAG_PROPERTY)
    return None if value is None else str(value)


def location_of(table: Any) -> str:
    return str(table.getSd().getLocation())
