"""A partitioned table made or unmade so that a query never reads it empty (issue 36, finding 11).

A query of a partitioned data source table whose partitions the metastore tracks finds the table, then lists its
partitions by the table's name (two reads of the metastore, the second often seconds after the first under load,
when the query's plan is built). The metastore's DROP deletes a table's partitions first and its table row last, in
one transaction whose partition deletions a lister meets before the table row is gone: a query that found the table
read no partitions, so an EMPTY table, during the project's DROP TABLE. So the name goes first: the table is made
external (the metastore neither moves nor deletes its files), renamed to a holder name in one ``alter_table`` (the
table row changes first: from then on the name finds nothing), then the holder is dropped with its partitions, its
files kept. The rename goes through Spark's own catalog (``renameTable``): a query's partition listing reads the
table, then its partitions by the table's name, both under that catalog's lock; a rename by the project's own
client landed between the two (2 reads of 404 in 80 DROP/UNDROP cycles listed the name's partitions after the
rename: none, so an EMPTY table; 0 of 415 through Spark's catalog). Spark's own DROP is under the same lock. A
crash between leaves the holder, named after the table and its identity, which the drop's recovery finds and
drops.

UNDROP made the table, then registered its partitions: a query in between read it empty. The table is created with
a definition whose partitions are found in its directory (``HiveTable.discovering``: Spark lists the files), the
partitions registered, then the definition installed as it was (one ``alter_table``). A table with a partition
outside its directory (plain Spark's ``ADD PARTITION ... LOCATION``: a listing of the directory would not find it)
and a partitioned Hive serde table (whose definition has no form that finds its partitions in its files: it would
read empty until they are registered) are made whole under a holder name instead, external (the metastore neither
makes nor moves its directory), and renamed to its name through Spark's catalog, then installed as it was: the name
finds nothing, then the table with every partition. A crash between leaves the holder, named after the table and its
identity, which the undo's ``forget_table`` removes (its files kept: they are the kept version's)."""

from __future__ import annotations

import hashlib

from storage.catalogs.names import RESERVED_PREFIX, TableName
from storage.catalogs.partition_points import (
    CREATED_DISCOVERING,
    EXTERNAL_DONE,
    HOLDER_CREATED,
    HOLDER_FILLED,
    HOLDER_RENAMED,
    PARTITIONS_ADDED,
    RENAMED,
)
from storage.catalogs.spark.hms.hive_record import MANAGED, HivePartition, HiveTable
from storage.catalogs.spark.hms.metastore_client import MetastoreClient, hive_serde


def inside(table: HiveTable, partitions: list[HivePartition]) -> bool:
    """Whether every partition lies in the table's directory, where a directory listing finds it."""
    root = table.location.rstrip("/")
    return bool(root) and all(p.location.rstrip("/").startswith(root + "/") for p in partitions)


def holder_of(name: TableName, identity: str | None, *, making: bool = False) -> TableName:
    """The name the partitioned table ``name`` (of ``identity``) has while its DROP removes its partitions, or
    (``making``) while it is being made with a partition outside its directory."""
    digest = hashlib.sha256(f"{name}\x00{identity or ''}".encode()).hexdigest()[:16]
    return name.sibling(f"{RESERVED_PREFIX}{digest}_{'making' if making else 'dropping'}")


def drop_partitioned(client: MetastoreClient, name: TableName, identity: str | None) -> bool:
    """Drop the managed partitioned table ``name`` from the metastore, its files kept, the name first (see the
    module); False (nothing done) for any other table."""
    table = client.get(name)
    if table is None or not table.partitioned or table.table_type != MANAGED:
        return False
    holder = holder_of(name, identity)
    # External, the metastore neither moves its directory on the rename nor deletes it on the drop; tagged with the
    # identity the drop checks, so that its recovery knows it for the table it logged (a table made outside the log
    # is known by a fingerprint that counts its type).
    external = table.as_external()
    if identity:
        external = external.with_tag(identity)
    client.install(name, external)
    EXTERNAL_DONE()
    client.rename_as_spark(name, holder)  # under Spark's catalog lock: see the module
    RENAMED()
    client.forget(holder)
    return True


def drop_holder(client: MetastoreClient, name: TableName, identity: str | None) -> bool:
    """After a crash between the rename and the drop of :func:`drop_partitioned`: drop the holder (its files kept);
    True when there was one."""
    holder = holder_of(name, identity)
    if client.get(holder) is None:
        return False
    client.forget(holder)
    return True


def create_partitioned(client: MetastoreClient, name: TableName, table: HiveTable,
                       partitions: list[HivePartition]) -> None:
    """Create ``table`` with ``partitions`` registered, never readable as a table without them."""
    if not partitions:
        client.create(name, table, keep_statistics=True)
        return
    if not inside(table, partitions) or hive_serde(table):
        # a Hive serde table has no form that finds its partitions in its files: it would read empty until they
        # are registered, so it is made whole under its holder's name too
        _create_through_holder(client, name, table, partitions)
        return
    client.create(name, table.discovering())
    CREATED_DISCOVERING()
    client.add_partitions(name, partitions)
    PARTITIONS_ADDED()
    client.install(name, table)


def _create_through_holder(client: MetastoreClient, name: TableName, table: HiveTable,
                           partitions: list[HivePartition]) -> None:
    """Make ``table`` whole under its holder's name, then give it ``name`` (see the module)."""
    holder = holder_of(name, table.tag, making=True)
    forget_holder(client, name, table.tag)  # an earlier attempt's, cut by a crash before its undo ran
    client.create(holder, table.renamed(holder).as_external())
    HOLDER_CREATED()
    client.add_partitions(holder, [partition.placed(holder) for partition in partitions])
    HOLDER_FILLED()
    client.rename_as_spark(holder, name)
    HOLDER_RENAMED()
    client.install(name, table)


def forget_holder(client: MetastoreClient, name: TableName, identity: str | None) -> bool:
    """After a crash of :func:`create_partitioned` before the holder had its name: remove the holder of the table
    of ``identity`` from the metastore, never its files; True when there was one."""
    holder = holder_of(name, identity, making=True)
    found = client.get(holder)
    if found is None or found.tag != identity:
        return False
    client.forget(holder)
    return True
