"""The SQL front end: run a script of Spark SQL statements, the DDL atomically through :class:`AtomicDDL`.

How a script is read:

1. sqlglot's Spark tokenizer turns the whole script into tokens, so strings, comments and backquoted names are
   understood exactly as sqlglot does; the script is split at ``;`` tokens (never inside a string or comment).
2. Every statement is parsed with sqlglot's Spark parser before anything runs: a syntax error anywhere in the script
   raises :class:`SqlParseError` (line, column, offending text) and runs nothing. ``REPLACE TABLE`` (which sqlglot
   does not know) is parsed as ``CREATE OR REPLACE TABLE``; forms sqlglot only keeps as an opaque command
   (``RENAME TABLE a TO b, c TO d``, ``CREATE FUNCTION ... USING JAR ..., FILE ...``, ``UNSET TBLPROPERTIES``) are
   checked by the reader of step 3 alone.
3. The DDL forms this project makes atomic are read over the same tokens (names, flags, clauses, property lists);
   every piece of free SQL text handed on (the SELECT of an AS SELECT, a column list, a function body) is sliced
   from the original text by token positions, never re-rendered, so Spark sees exactly what the user wrote.
4. Each atomic DDL form goes to its :class:`AtomicDDL` method with ``statement=`` the original statement text (what
   the binlog records); any other statement goes unchanged to ``spark.sql``. A DDL form that the DDL log cannot run
   atomically raises :class:`UnsupportedStatementError` (nothing of the script is run) unless ``allow_non_atomic``.

Names are resolved when the statement runs, exactly as Spark would resolve them then (so ``USE`` earlier in the
script works as in Spark): current catalog and namespace, catalog-qualified names, temporary views and functions (see
:mod:`ddl_log.frontends.sql.name_resolution`). A statement whose object lies outside the session catalog
(another catalog, a temporary view) or that Spark itself would refuse goes to ``spark.sql`` unchanged; one that
Spark cannot run as written (``DROP TABLE a, b``, ``RENAME TABLE``) and that names such an object is refused. The
engine gets each statement typed (:mod:`ddl_log.engine.typed`), its names parsed.

The files, by job: :mod:`~ddl_log.frontends.sql.tokens` (tokenizing, splitting, positions),
:mod:`~ddl_log.frontends.sql.validate` (the sqlglot parse), :mod:`~ddl_log.frontends.sql.token_cursor` (the token
reader), :mod:`~ddl_log.frontends.sql.clauses` and :mod:`~ddl_log.frontends.sql.router` (reading and routing),
:mod:`~ddl_log.frontends.sql.name_resolution` (name resolution), :mod:`~ddl_log.frontends.sql.plan` (what a routed
statement is) and :mod:`~ddl_log.frontends.sql.execute` (running it).
"""

from ddl_log.errors import SqlParseError, UnsupportedStatementError
from ddl_log.frontends.sql.execute import execute, run_sql, spark_parser
from ddl_log.frontends.sql.plan import PlannedStatement, SqlResult
from ddl_log.frontends.sql.router import plan_script
from ddl_log.frontends.sql.tokens import split_statements

__all__ = [
    "PlannedStatement",
    "SqlParseError",
    "SqlResult",
    "UnsupportedStatementError",
    "execute",
    "plan_script",
    "run_sql",
    "spark_parser",
    "split_statements",
]
