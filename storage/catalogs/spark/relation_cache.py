"""A session's cached relation of a data source table, replaced by the version a statement installed without a
moment in which the session's cache holds none.

Spark keeps one relation (its files listed) per data source table and session. A query resolves the table's
definition first (a metastore read), then asks the cache: if it holds nothing, the query builds the relation from
the definition it read and stores it (``FindDataSourceTable``: a get, then a put). A reader thread that read the old
definition just before an install and finds the cache empty after it (Spark's ``refreshTable`` and every
invalidation leave it empty) stores the old version's relation, which every later query of the session then reads
(seen in the same-session readers test: 1 CI run of about 20 with ``refreshTable``, 5 probe runs of 12 with an
invalidation followed at once by a resolution). :func:`hold_installed` builds the new version's relation as Spark
builds it, outside the cache, and puts it in place of the old one: a reader finds the old or the new relation, never
an empty entry, so none builds one (a reader that found the entry empty before the statement began and stores its
build after the whole install remains: Spark's get-then-put gives no way to stop it).
"""

from __future__ import annotations

from typing import Any

from storage.catalogs.names import SESSION_CATALOG, TableName
from storage.catalogs.spark.engine import ENGINE_ERRORS, Engine
from storage.catalogs.spark.jvm import caches_data, new, session_part, static, table_identifier
from storage.catalogs.spark.profile import Jvm

_DATA_SOURCE = "org.apache.spark.sql.execution.datasources.DataSource"
_BUILD_FORMS: dict[int, str] = {}
"""Per JVM (the id of its gateway client): which form of Spark's relation build it has (``4.0`` or ``4.1+``)."""


def hold_installed(engine: Engine, name: TableName) -> bool:
    """This session's cached relation of ``name`` made the one of its current definition (just installed by the
    caller), built as Spark's ``FindDataSourceTable`` builds it and put in place of whatever the cache held (one
    metastore read, the new directory's listing, about 20 round trips). A Hive serde table's or a view's entry is
    emptied (a query checks a converted Hive table's cached relation against the definition it read, and rebuilds).
    False where this cannot be done here (Spark Connect; a session that caches data, whose cached data Spark's
    ``refreshTable`` rebuilds; a table without a stored schema; a Spark whose build this does not know): the
    caller refreshes the Spark way."""
    jvm = engine.jvm
    if jvm is None or caches_data(jvm):
        return False
    catalog = session_part(jvm, "session catalog")
    identifier = table_identifier(jvm, name.db, name.name)
    try:
        table = catalog.getTableMetadata(identifier)
        if not static(jvm.view, "org.apache.spark.sql.execution.command.DDLUtils", "isDatasourceTable")(table):
            catalog.refreshTable(identifier)
            return True
        if table.schema().isEmpty():
            return False
        relation = _built(jvm, table)
    except ENGINE_ERRORS:
        return False
    if relation is None:
        return False
    key = static(jvm.view, jvm.classes.qualified_table_name, "apply")(
        SESSION_CATALOG, table.database(), table.identifier().table())
    catalog.cacheTable(key, relation)
    return True


def _module(jvm: Jvm, class_name: str) -> Any:
    """The Scala object ``class_name`` (its class's ``MODULE$``), looked up once per JVM."""
    return static(jvm.view, class_name + "$", "MODULE$")


def _built(jvm: Jvm, table: Any) -> Any:
    """``LogicalRelation(DataSource(...).resolveRelation(checkFilesExist = false), table)`` as Spark's
    ``FindDataSourceTable`` makes it for ``table`` with no read options; None where this Spark's ``DataSource``
    has neither known form (Spark 4.0's: eight fields, ``resolveRelation(checkFilesExist)``; 4.1's on: a ninth,
    two more flags with their defaults)."""
    view = jvm.view
    companion = _module(jvm, _DATA_SOURCE)
    options = static(view, "org.apache.spark.sql.execution.datasources.DataSourceUtils",
                     "generateDatasourceOptions")(
        static(view, "org.apache.spark.sql.util.CaseInsensitiveStringMap", "empty")(), table)
    some = static(view, "scala.Option", "apply")
    arguments = [jvm.session, table.provider().get(), getattr(companion, "apply$default$3")(), some(table.schema()),
                 table.partitionColumnNames(), table.bucketSpec(), options, some(table)]
    client = id(view._gateway_client)
    for form in [_BUILD_FORMS[client]] if client in _BUILD_FORMS else ["4.1+", "4.0"]:
        try:
            if form == "4.1+":
                source = new(view, _DATA_SOURCE, *arguments, getattr(companion, "apply$default$9")())
                relation = source.resolveRelation(False, getattr(source, "resolveRelation$default$2")(),
                                                  getattr(source, "resolveRelation$default$3")())
            else:
                relation = new(view, _DATA_SOURCE, *arguments).resolveRelation(False)
        except ENGINE_ERRORS as error:
            if "does not exist" not in str(error):
                raise
            continue
        _BUILD_FORMS[client] = form
        return _module(jvm, "org.apache.spark.sql.execution.datasources.LogicalRelation").apply(relation, table)
    return None
