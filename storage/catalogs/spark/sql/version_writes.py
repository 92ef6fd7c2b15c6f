"""A new table version written straight into its own directory, with no work table in the metastore (the replace's
write path, :mod:`replace_table.plans.write_path`): an INSERT OVERWRITE of a file-based table, unpartitioned or
partitioned.

Spark analyses the rows as ``INSERT INTO <table> ...`` (columns by position, cast to the table's types as its store
assignment policy says, named as the table names them); ``spark_ddl_log.VersionWrites.atDirectory`` of the project's
jar makes that analysed ``InsertIntoHadoopFsRelationCommand`` write into the version's directory instead, with no
catalog table around it (no metastore call, no statistics, no refresh), and the engine installs the directory in one
``alter_table``. What the work table cost, gone: its create (4 to 12 ms on Derby), its definition read (6 to 16 ms) and
its removal after the commit (4 to 26 ms). The query may read the table itself: it reads the old files, and the
job writes elsewhere.

A CTAS of a new table (``spark_ddl_log.VersionCreates``, the create path's direct create): Spark's analysed
``CreateDataSourceTableAsSelectCommand`` of the work table's statement writes its rows at the work table's default
directory with its own ``saveDataIntoTable``, and the record Spark's Hive catalog would create of that table is made
without the metastore call (a recording client under Spark's own catalog and its ``toHiveTable``);
:func:`created_record` gives it, and the engine creates the table under its own name from it at that directory in
one call, its tag hidden. Gone from the statement: the work table's create (Spark's), its read and its removal (about
65 to 90 ms on Derby). A CREATE TABLE of columns of a file source table the same way: Spark's data source resolves
the columns as its ``CreateDataSourceTableCommand`` does (its checks, the schema it stores), and the metastore makes
the directory when the engine creates the table there.

A partitioned INSERT OVERWRITE (the whole table replaced; in dynamic mode the partitions its rows go to; with static
values, ``PARTITION (d='x')`` or ``PARTITION (d='x', h)``, the partitions matching them, or in dynamic mode those
written): the job writes ``<directory>/<column>=<value>/`` for each partition it has rows for (a static value's
column too: Spark's analysed query carries it), and the engine makes their ``Partition`` records from that
directory's listing, the empty partition a spec of static values only names where no row went to it (registered
empty, as Spark's INSERT does), and puts the partitions the statement keeps into it as hard links
(:meth:`~storage.catalogs.spark.sql.partition_keep.SparkPartitionKeep.written_version`; on HDFS and object stores,
which have no hard links, as byte copies of their files by one Spark job,
:mod:`~storage.catalogs.spark.fs.file_copies`), all held for the install's one switch: no work table, so neither its
create nor its drop (18 and 28 ms on Derby).

Not taken (None: the version is built under TMP): a bucketed table, kept partitions that cannot be placed (a
partition outside its table's directory, a file system without hard links where the executors lack the project's
jar), a spec of static values only whose values
Spark would store cast (``k='01'`` of an INT column, a value with characters a path escapes: the empty partition's
record is made from the values as written), a table whose partitions are its directories, a table whose INSERT is
not a file write (a Hive serde table, a non-file data
source), a session without the project's jar or without a JVM (Spark Connect)."""

from __future__ import annotations

from typing import Any, Literal

import attrs

from storage.catalogs.interface import Fill
from storage.catalogs.names import TableName
from storage.catalogs.spark.engine import ENGINE_ERRORS, Engine
from storage.catalogs.spark.hms.hive_record import HiveTable, tables_of
from storage.catalogs.spark.hms.spark_client_lock import has_project_jar
from storage.catalogs.spark.jvm import singleton_list, static
from storage.catalogs.spark.sql.analysis import analysis, run_analysed
from storage.catalogs.spark.sql.insert_check import insert_statement
from storage.catalogs.spark.sql.partition_keep import insert_error

AT_DIRECTORY = "spark_ddl_log.VersionWrites"
CREATES = "spark_ddl_log.VersionCreates"


@attrs.frozen
class VersionWrite:
    """A write job :func:`prepare_write` made: the analysed command (in the JVM) writing into the version's
    directory."""

    plan: Any = attrs.field(eq=False, repr=False)
    directory: str = ""
    partitioned: bool = False
    """Its rows go to partition directories, whose records the write makes (with the old partitions it keeps)."""
    keeps: bool = False
    """It keeps the old partitions it does not replace: those no row went to (``replaces="written"``) or those not
    matching :attr:`static_values` (``"matching"``)."""
    static_values: tuple[tuple[str, str], ...] = ()
    """The static values of its partition spec (column, value as written)."""
    replaces: Literal["written", "matching"] = "matching"


@attrs.frozen
class VersionCreate:
    """A CTAS :func:`prepare_create` took: Spark's analysed command (in the JVM) of the work table, whose rows
    :func:`created_record` writes at ``directory`` (the work table's default one, empty), creating no table."""

    directory: str
    plan: Any = attrs.field(eq=False, repr=False)


def writes_plainly(fill: Fill) -> bool:
    """Whether ``fill`` is rows only: a SELECT or a DataFrame, no partition spec, nothing kept or registered."""
    return not fill.partition and fill.keep is None and _rows_only(fill)


def writes_partitions(fill: Fill) -> bool:
    """Whether ``fill`` is rows only into a partitioned table, replacing the whole table, the partitions its rows go
    to (dynamic overwrite, ``replaces="written"``) or those matching its static values (``"matching"``)."""
    return bool(fill.partition) and _rows_only(fill)


def _rows_only(fill: Fill) -> bool:
    return (fill.files_from is None and fill.insert_text is None and fill.partitions_of is None
            and not fill.copy_partitions and not fill.copy_files and (fill.as_select is None) != (fill.df is None))


def prepare_write(engine: Engine, name: TableName, fill: Fill, directory: str) -> VersionWrite | None:
    """See ``DataJobs.prepare_write``. Spark's analysis of the INSERT (its refusal raised as the INSERT's) and one
    JVM call that points it at ``directory``; a DataFrame is read through a temporary view, dropped once analysed.
    A partitioned fill only where the caller found the table's partitions fit for it (:func:`writes_partitions`)."""
    jvm = engine.jvm
    if jvm is None or not (writes_plainly(fill) or writes_partitions(fill)) or not has_project_jar(jvm):
        return None
    engine.check_literal_mode()
    with engine.source_view(fill.df, name) as view:
        statement = insert_statement(name, fill, view)
        assert statement is not None  # a SELECT or a DataFrame (writes_plainly)
        analysed = analysis(engine.spark, statement)
    if analysed.failure is not None:
        raise insert_error(name, attrs.evolve(analysed.failure, analysis=True)) from None
    if analysed.plan is None:
        return None
    plan = static(jvm.view, AT_DIRECTORY, "atDirectory")(analysed.plan, directory)
    return None if plan is None else VersionWrite(plan, directory, bool(fill.partition), fill.keep is not None,
                                                  tuple(fill.static.items()), fill.replaces)


def write_version(engine: Engine, name: TableName, job: VersionWrite) -> None:
    """Run ``job``: the rows land in its directory (Spark's job commit); a failure raises what the INSERT would."""
    try:
        run_analysed(engine.spark, job.plan)
    except ENGINE_ERRORS as error:
        raise insert_error(name, engine.failure(error)) from None


def prepare_create(engine: Engine, plan: Any) -> VersionCreate | None:
    """The analysed CTAS ``plan`` as a direct create, where the jar takes it (a managed data source table at its
    default directory, unpartitioned, unbucketed); None otherwise (the work table is built)."""
    jvm = engine.jvm
    if jvm is None or plan is None or not has_project_jar(jvm):
        return None
    directory = static(jvm.view, CREATES, "takes")(jvm.session, plan)
    return None if directory is None else VersionCreate(str(directory), plan)


def created_record(engine: Engine, job: VersionCreate) -> tuple[HiveTable, Any]:
    """Run ``job`` as far as its rows (Spark's job writes the directory; no table made), and the metastore record
    Spark would create of the work table there, with the table it describes (for :func:`fallback_record`). A failure
    raises the engine's error."""
    jvm = engine.jvm
    assert jvm is not None
    record, table = static(jvm.view, CREATES, "written")(jvm.session, job.plan, job.directory)
    return tables_of(jvm, singleton_list(jvm, record))[0], table


def fallback_record(engine: Engine, table: Any) -> HiveTable | None:
    """The record Spark's Hive catalog falls back to where the metastore refuses its first one, or None."""
    jvm = engine.jvm
    assert jvm is not None
    record = static(jvm.view, CREATES, "fallbackRecord")(jvm.session, table)
    return None if record is None else tables_of(jvm, singleton_list(jvm, record))[0]

