"""Routing: which statement a piece of the script is, read over its tokens into a :class:`PlannedStatement` (an
atomic DDL form for :class:`AtomicDDL`, or a statement for ``spark.sql``); nothing runs here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
from sqlglot.tokenizer_core import TokenType

from ddl_log.engine import alter_ops
from ddl_log.engine.alter import AlterTable
from ddl_log.engine.create_statements import CreateOrReplaceTable, CreateTable, InsertOverwrite, TruncateTable
from ddl_log.engine.history_statements import DescribeHistory, ShowTablesDropped
from ddl_log.engine.insert import InsertInto
from ddl_log.engine.kind_replace import CreateOrReplaceAnyKind, any_kind_marked
from ddl_log.engine.release_name import ReleaseTableName
from ddl_log.engine.schema_swap import SwapSchemas
from ddl_log.engine.tables import CreateDatabase, DropDatabase, DropTables, RenameTables, SwapTables
from ddl_log.engine.version_statements import RestoreTable, UndropTable
from ddl_log.engine.views import (
    AlterView,
    AlterViewProperties,
    CreateFunction,
    CreateView,
    DropFunction,
    DropViews,
    RenameView,
)
from ddl_log.errors import SqlParseError, Unsupported, UnsupportedStatementError
from ddl_log.frontends.sql.clauses import ClauseReader
from ddl_log.frontends.sql.name_resolution import SessionFacts
from ddl_log.frontends.sql.plan import Name, PlannedStatement, draft
from ddl_log.frontends.sql.replayed import replayed
from ddl_log.frontends.sql.token_cursor import Cursor
from ddl_log.frontends.sql.tokens import Piece, line_col, slice_text, split_script
from ddl_log.frontends.sql.validate import is_data_type, is_describe_history, validate
from storage.catalogs.create_text import GROUP_CLAUSES, QUERY_STARTS, create_text
from storage.catalogs.interface import ParseFailure

SparkParser = Callable[[str], ParseFailure | None]
"""Spark's own parser on one statement's text: why it refuses it, or None
(:mod:`storage.catalogs.spark.sql.analysis`)."""


def plan_script(text: str, *, allow_non_atomic: bool = False,
                parser: SparkParser | None = None) -> list[PlannedStatement]:
    """Tokenize, split, parse and route every statement of ``text``; run nothing. ``parser``: Spark's, when a
    session is there to ask (else sqlglot's Spark parser checks the syntax)."""
    return [plan_statement(text, piece, allow_non_atomic=allow_non_atomic, parser=parser)
            for piece in split_script(text)]


def plan_statement(script: str, piece: Piece, *, allow_non_atomic: bool = False,
                   parser: SparkParser | None = None) -> PlannedStatement:
    """Route one statement of ``script`` (a piece from :func:`split_script`).

    With Spark's parser, Spark decides what parses: a statement it refuses is refused with its reason (unless it is
    a form of this project's own, ``RENAME TABLE a TO b, c TO d`` or ``DROP TABLE a, b``, which sqlglot checks), and
    one it parses is never refused as a syntax error here (one the router cannot read is an unsupported form)."""
    cursor = Cursor(script, piece.tokens)
    control = transaction_control(cursor)
    if control is not None:
        return control
    refusal = parser(cursor.statement) if parser is not None else None
    if parser is None:
        validate(script, piece.raw)
    try:
        plan = Router(cursor).route()
    except Unsupported as unsupported:
        if refusal is not None:
            raise _spark_parse_error(script, piece, refusal) from None
        if not allow_non_atomic:
            raise UnsupportedStatementError(unsupported.what, line=cursor.line, statement=cursor.statement) from None
        return cursor.query()
    except SqlParseError as error:
        if parser is None or refusal is not None:
            raise error if refusal is None else _spark_parse_error(script, piece, refusal) from None
        if not allow_non_atomic:  # Spark reads it, the router cannot: a form the DDL log does not run
            raise UnsupportedStatementError(f"this form ({error.reason})", line=cursor.line,
                                            statement=cursor.statement) from None
        return cursor.query()
    if refusal is not None:
        if plan.spark_sql:
            raise _spark_parse_error(script, piece, refusal)
        validate(script, piece.raw)  # a form Spark does not know: sqlglot checks its syntax
    plan = replayed(plan, piece.leading(script))
    return attrs.evolve(plan, allow_non_atomic=True) if allow_non_atomic and plan.draft else plan


CONTROL_FORMS: dict[tuple[str, ...], str] = {
    ("START", "TRANSACTION"): "START TRANSACTION", ("BEGIN", "TRANSACTION"): "START TRANSACTION",
    ("BEGIN", "WORK"): "START TRANSACTION", ("COMMIT",): "COMMIT", ("COMMIT", "WORK"): "COMMIT",
    ("COMMIT", "TRANSACTION"): "COMMIT", ("ROLLBACK",): "ROLLBACK", ("ROLLBACK", "WORK"): "ROLLBACK",
    ("ROLLBACK", "TRANSACTION"): "ROLLBACK",
}
"""A DDL transaction's control statements (Spark has none; ``BEGIN`` alone stays Spark's compound statement)."""


def transaction_control(cursor: Cursor) -> PlannedStatement | None:
    """The control statement ``cursor`` is, exactly one of :data:`CONTROL_FORMS`; else None."""
    words = tuple(word.upper() for index in range(len(cursor.tokens)) for word in cursor.words(index) or ("?",))
    label = CONTROL_FORMS.get(words)
    if label is None:
        return None
    return PlannedStatement(cursor.statement, cursor.line, "control", label=label, spark_sql=False)


def _spark_parse_error(script: str, piece: Piece, refusal: ParseFailure) -> SqlParseError:
    """Spark's refusal at its position in the script (Spark counts within the statement)."""
    start_line, start_column = line_col(script, piece.tokens[0].start)
    line = start_line + refusal.line - 1
    column = start_column + refusal.column - 1 if refusal.line == 1 else refusal.column
    offset = piece.tokens[0].start + _offset(piece.text(script), refusal.line, refusal.column)
    return SqlParseError(refusal.reason, line=line, column=column, text=script[offset:offset + 20].split("\n")[0],
                         condition=refusal.condition)


def _offset(text: str, line: int, column: int) -> int:
    lines = text.split("\n")
    return sum(len(lines[i]) + 1 for i in range(min(line - 1, len(lines)))) + column - 1


class Router(ClauseReader):
    """Routes one statement: the first words pick the form, whose reader takes the rest."""

    def route(self) -> PlannedStatement:
        c = self.c
        head = (c.words() or ("",))[0]
        if head == "CREATE":
            return self.create()
        if head == "REPLACE" and c.at("REPLACE", "TABLE"):
            c.i = 2
            return self.create_table(or_replace=True, verb="REPLACE TABLE")
        if head == "RENAME" and c.at("RENAME", "TABLE"):
            c.i = 2
            return self.rename_tables()
        if head == "ALTER":
            c.i = 1
            if c.take("TABLE"):
                return self.alter_table()
            if c.take("VIEW"):
                return self.alter_view()
            if c.at_any("DATABASE", "SCHEMA", "NAMESPACE"):
                swap = self.swap_schemas()
                if swap is not None:
                    return swap
            raise Unsupported(f"ALTER {c.word() or '...'}")
        if head == "DROP":
            c.i = 1
            return self.drop()
        if head == "TRUNCATE":
            c.i = 1
            c.expect("TABLE")
            return self.truncate()
        if head == "INSERT" and c.at("INSERT", "OVERWRITE"):
            c.i = 2
            return self.insert_overwrite()
        if head == "INSERT" and c.at("INSERT", "INTO"):
            c.i = 2
            return self.insert_into()
        if (head in ("RESTORE", "UNDROP") and c.at(head, "TABLE")) or (head == "SHOW" and c.at(
                "SHOW", "TABLES", "DROPPED")) or (head == "RELEASE" and c.at("RELEASE", "TABLE", "NAME")):
            return self.versions(head)
        if head in ("DESCRIBE", "DESC") and is_describe_history(c.script, c.tokens):
            return self.describe_history()
        if head in ("MSCK", "REPAIR"):
            raise Unsupported(f"{head} ... (adds or drops many partitions, one by one)")
        if head == "LOAD":
            raise Unsupported("LOAD DATA (moves files into a table)")
        if head == "COMMENT" and c.at("COMMENT", "ON"):
            c.i = 2
            return self.comment_on()
        if head == "EXECUTE":
            raise Unsupported("EXECUTE IMMEDIATE (it runs SQL the DDL log cannot see)")
        if head == "BEGIN":
            raise Unsupported("a compound statement BEGIN ... END")
        if head in ("WITH", "FROM"):
            leading = self.insert_after_clauses()
            if leading is not None:
                return leading
        for k in range(len(c.tokens) if head != "EXPLAIN" else 0):  # EXPLAIN runs nothing
            if c.words(k) == ("INSERT",) and c.words(k + 1) in (("OVERWRITE",), ("INTO",)):
                verb = f"INSERT {c.words(k + 1)[0]}"
                raise Unsupported(f"{verb} in this form (only {verb} [TABLE] t ... <query>, one table per statement)")
        return c.query()

    # -- the table versions' own forms (Spark does not run them): RESTORE, UNDROP, SHOW TABLES DROPPED, RELEASE

    def versions(self, head: str) -> PlannedStatement:
        c = self.c
        if head == "SHOW":
            c.i = 3
            database = self.database_name() if c.take("IN") or c.take("FROM") else None
            c.expect_end()
            return c.ddl("SHOW TABLES DROPPED", draft(ShowTablesDropped.of, database), spark_sql=False)
        c.i = 3 if head == "RELEASE" else 2
        name = c.name("a table name").as_kind("relation")
        if head == "RELEASE":
            c.expect_end()
            return c.ddl("RELEASE TABLE NAME", draft(ReleaseTableName.of, name), spark_sql=False)
        if head == "UNDROP":
            c.expect_end()
            return c.ddl("UNDROP TABLE", draft(UndropTable.of, name), spark_sql=False)
        c.take("TO")
        if c.take("VERSION", "AS", "OF"):
            token = c.token()
            number = token.text if token is not None else ""
            if not number.isdigit():
                raise c.error("expected a version number")
            c.i += 1
            c.expect_end()
            return c.ddl("RESTORE TABLE", draft(RestoreTable.of, name, version=int(number)), spark_sql=False)
        c.expect("TIMESTAMP", "AS", "OF")
        timestamp = c.string("a timestamp literal")
        c.expect_end()
        return c.ddl("RESTORE TABLE", draft(RestoreTable.of, name, timestamp=timestamp), spark_sql=False)

    def describe_history(self) -> PlannedStatement:
        """``DESC[RIBE] HISTORY t`` (Delta's form): Spark reads the same words as DESCRIBE of the column ``t`` of a
        table ``history``, so it is Spark's statement while a relation ``history`` resolves in the session (then
        Spark runs the text); otherwise this project's, the versions of ``t``."""
        c = self.c
        c.i = 2
        name = c.name("a table name").as_kind("relation")
        c.expect_end()
        plan = c.ddl("DESCRIBE HISTORY", draft(DescribeHistory.of, name), spark_sql=False)
        return attrs.evolve(plan, spark_if=history_table_exists)

    # -- CREATE

    def create(self) -> PlannedStatement:
        c = self.c
        c.i = 1
        or_replace = c.take("OR", "REPLACE")
        temporary = c.take("TEMPORARY") or c.take("TEMP") or c.take("GLOBAL", "TEMPORARY") or c.take("GLOBAL", "TEMP")
        if temporary:
            return c.query()  # temporary views and functions live in the session only: nothing to make atomic
        if c.take("EXTERNAL"):
            raise Unsupported("CREATE EXTERNAL TABLE (its files live outside the warehouse)")
        any_kind = or_replace and any_kind_marked(c.script[c.tokens[0].start:c.tokens[c.i].start])
        if c.take("TABLE"):
            return self.create_table(or_replace=or_replace, verb="CREATE OR REPLACE TABLE" if or_replace
                                     else "CREATE TABLE", any_kind=any_kind)
        if c.take("VIEW"):
            return self.create_view(or_replace, any_kind=any_kind)
        if c.take("FUNCTION"):
            return self.create_function(or_replace)
        if c.at_any("DATABASE", "SCHEMA", "NAMESPACE"):
            c.i += 1
            return self.create_database(or_replace)
        raise Unsupported(f"CREATE {c.word() or '...'}")

    def create_table(self, *, or_replace: bool, verb: str, any_kind: bool = False) -> PlannedStatement:
        """Every form Spark accepts: the statement's own text goes to Spark (:mod:`storage.catalogs.create_text`),
        which decides what it says or leaves to the session; the clauses read here only describe it (and refuse a
        LOCATION, whose files would live outside the warehouse)."""
        c = self.c
        if_not_exists = c.at("IF", "NOT", "EXISTS")
        if if_not_exists and or_replace:
            raise c.error("OR REPLACE and IF NOT EXISTS cannot be used together")
        c.take("IF", "NOT", "EXISTS")
        name = c.name("a table name")
        kwargs: dict[str, Any] = {"create_text": create_text(c.script, c.tokens[c.i:])}
        if c.is_kind(TokenType.L_PAREN) and not (c.words(1) and c.words(1)[0] in QUERY_STARTS):
            columns = c.group("column list")
            if columns.done:
                raise columns.error("empty column list")
            kwargs["schema"] = columns.text()
        seen: set[str] = set()
        while not c.done:
            clause = c.word()
            if clause in ("USING", "PARTITIONED BY", "PARTITIONED", "COMMENT", "TBLPROPERTIES", "LIKE"):
                if clause in seen:
                    raise c.error(f"{clause} given twice")
                seen.add(clause)
            if c.take("USING"):
                kwargs["using"] = ".".join(c.name("a data source").parts)
            elif c.take("PARTITIONED", "BY"):
                kwargs["partitioned_by"] = self.partition_columns()
            elif c.take("COMMENT") and c.is_kind(TokenType.STRING):
                kwargs["comment"] = c.string("a comment string")
            elif c.take("TBLPROPERTIES"):
                kwargs["properties"] = self.properties()
            elif c.take("LIKE"):
                kwargs["like"] = c.name("a table name")
            elif c.at("LOCATION"):
                raise Unsupported(f"{verb} with {self.clause_name()}")
            elif (c.at("AS") and c.words(-1) != ("STORED",)) or c.at_any(*QUERY_STARTS) or (
                    c.is_kind(TokenType.L_PAREN) and not (c.words(-1) and c.words(-1)[-1] in GROUP_CLAUSES)):
                if "schema" in kwargs:
                    raise c.error("AS SELECT cannot be combined with a column list")
                c.take("AS")
                kwargs["as_select"] = self.query_text()
            elif c.is_kind(TokenType.L_PAREN):
                c.group("clause")
            else:
                c.i += 1  # a clause Spark reads (OPTIONS, CLUSTERED BY, STORED AS, ...): its text goes as written
        if "like" in kwargs:  # Spark's CREATE TABLE LIKE is a v1 command: its names resolve the v1 way
            name, kwargs["like"] = name.as_kind("v1"), kwargs["like"].as_kind("v1_relation")
        if any_kind and "like" not in kwargs:
            return c.ddl(verb, draft(CreateOrReplaceAnyKind.as_table, name, **kwargs))
        if or_replace:  # Spark knows no [CREATE OR] REPLACE TABLE ... LIKE
            statement = draft(CreateOrReplaceTable.of, name, must_exist=verb == "REPLACE TABLE", **kwargs)
            return c.ddl(verb, statement, spark_sql="like" not in kwargs)
        return c.ddl(verb, draft(CreateTable.of, name, if_not_exists=if_not_exists, **kwargs))

    def create_view(self, or_replace: bool, *, any_kind: bool = False) -> PlannedStatement:
        c = self.c
        verb = "CREATE OR REPLACE VIEW" if or_replace else "CREATE VIEW"
        if_not_exists = c.at("IF", "NOT", "EXISTS")
        if if_not_exists and or_replace:
            raise c.error("OR REPLACE and IF NOT EXISTS cannot be used together")
        c.take("IF", "NOT", "EXISTS")
        name = c.name("a view name")
        kwargs: dict[str, Any] = {"or_replace": or_replace, "comment": None, "if_not_exists": if_not_exists}
        if c.is_kind(TokenType.L_PAREN):
            inner = c.group("view columns")
            columns = [inner.ident("a column name")]
            while not inner.done:
                if inner.at("COMMENT"):
                    raise Unsupported(f"{verb} with column comments")
                inner.expect_kind(TokenType.COMMA, ", or )")
                columns.append(inner.ident("a column name"))
            kwargs["columns"] = tuple(columns)
        while not c.done:
            if c.take("COMMENT"):
                kwargs["comment"] = c.string("a comment string")
            elif c.take("TBLPROPERTIES"):
                kwargs["properties"] = self.properties()
            elif c.take("WITH", "SCHEMA"):
                kwargs["schema_mode"] = self.schema_mode()
            elif c.take("AS"):
                if any_kind:
                    kwargs.pop("or_replace")
                    kwargs.pop("if_not_exists")
                    return c.ddl(verb, draft(CreateOrReplaceAnyKind.as_view, name, as_select=self.query_text(),
                                             **kwargs))
                return c.ddl(verb, draft(CreateView.of, name, as_select=self.query_text(), **kwargs))
            else:
                raise Unsupported(f"{verb} with {self.clause_name()}")
        raise c.error("expected AS and a query")

    def schema_mode(self) -> str:
        """A view's schema binding mode after ``WITH SCHEMA``, as Spark's DESCRIBE spells it."""
        c = self.c
        for words in (("TYPE", "EVOLUTION"), ("BINDING",), ("COMPENSATION",), ("EVOLUTION",)):
            if c.take(*words):
                return " ".join(words)
        raise c.error("expected BINDING, COMPENSATION, EVOLUTION or TYPE EVOLUTION")

    def create_function(self, or_replace: bool) -> PlannedStatement:
        c = self.c
        verb = "CREATE OR REPLACE FUNCTION" if or_replace else "CREATE FUNCTION"
        if_not_exists = c.take("IF", "NOT", "EXISTS")
        extra: dict[str, Any] = {"if_not_exists": True} if if_not_exists else {}
        name = c.name("a function name")
        if c.take("AS"):
            class_name = c.string("a class name string")
            resources: list[tuple[str, str]] = []
            if c.take("USING"):
                while True:
                    kind = c.word()
                    if kind not in ("JAR", "FILE", "ARCHIVE"):
                        raise c.error("expected JAR, FILE or ARCHIVE")
                    c.i += 1
                    resources.append((kind.lower(), c.string("a resource URI string")))
                    if not c.take_kind(TokenType.COMMA):
                        break
            c.expect_end()
            return c.ddl(verb, draft(CreateFunction.of, name, class_name=class_name, resources=resources,
                                     or_replace=or_replace, **extra))
        if c.is_kind(TokenType.L_PAREN):
            params = c.group("parameters")
            c.expect("RETURNS")
            start = c.i
            depth = 0
            while not c.done and not (depth == 0 and c.at("RETURN")):
                token_type = c.tokens[c.i].token_type
                depth += 1 if token_type is TokenType.L_PAREN else -1 if token_type is TokenType.R_PAREN else 0
                c.i += 1
            if c.done or c.i == start:
                raise c.error("expected RETURNS <type> RETURN <expression>")
            returns = slice_text(c.script, c.tokens[start], c.tokens[c.i - 1])
            if not is_data_type(returns):
                raise Unsupported(f"{verb} ... RETURNS {returns} (only a return type, then RETURN)")
            c.i += 1
            body = c.rest()
            return c.ddl(verb, draft(CreateFunction.sql, name, params=params.text(), returns=returns, body=body,
                                     or_replace=or_replace, **extra))
        raise c.error("expected AS 'class' or a parameter list")

    def create_database(self, or_replace: bool) -> PlannedStatement:
        c = self.c
        if or_replace:
            raise c.error("CREATE OR REPLACE DATABASE does not exist")
        if_not_exists = c.take("IF", "NOT", "EXISTS")
        database = self.database_name()
        kwargs: dict[str, Any] = {"if_not_exists": if_not_exists}
        while not c.done:
            if c.take("COMMENT"):
                kwargs["comment"] = c.string("a comment string")
            elif c.take("WITH", "DBPROPERTIES") or c.take("WITH", "PROPERTIES"):
                kwargs["properties"] = self.properties()
            else:
                raise Unsupported(f"CREATE DATABASE with {self.clause_name()}")
        return c.ddl("CREATE DATABASE", draft(CreateDatabase.of, database, **kwargs))

    # -- RENAME, ALTER

    def rename_tables(self) -> PlannedStatement:
        c = self.c
        pairs: list[tuple[Name, Name]] = []
        while True:
            old = c.name("a table name").as_kind("relation")
            c.expect("TO")
            pairs.append((old, c.name("a table name")))
            if not c.take_kind(TokenType.COMMA):
                break
        c.expect_end()
        return c.ddl("RENAME TABLE", draft(RenameTables.of, pairs), spark_sql=False)  # not Spark SQL (MariaDB's)

    def alter_table(self) -> PlannedStatement:
        c = self.c
        name = c.name("a table name").as_kind("relation")
        if c.take("RENAME", "TO"):
            new = c.name("a table name").as_kind("new_name", renamed=name)
            c.expect_end()
            return c.ddl("ALTER TABLE ... RENAME TO", draft(RenameTables.of, [(name, new)]))
        if c.take("SWAP", "WITH"):
            other = c.name("a table name").as_kind("relation")
            c.expect_end()
            return c.ddl("ALTER TABLE ... SWAP WITH", draft(SwapTables.of, name, other), spark_sql=False)
        op = self.alter_op()
        c.expect_end()
        return c.ddl(f"ALTER TABLE ... {type(op).__name__}", draft(AlterTable.of, name, op))

    def swap_schemas(self) -> PlannedStatement | None:
        """ALTER SCHEMA a SWAP WITH b (Snowflake's form; not Spark SQL); None: another ALTER DATABASE (Spark's)."""
        c = self.c
        start = c.i
        c.i += 1
        first = self.database_name()
        if not c.take("SWAP", "WITH"):
            c.i = start
            return None
        second = self.database_name()
        c.expect_end()
        return c.ddl("ALTER SCHEMA ... SWAP WITH", draft(SwapSchemas.of, first, second), spark_sql=False)

    def comment_on(self) -> PlannedStatement:
        """``COMMENT ON TABLE t IS 'c' | NULL``: Spark runs it on a session-catalog table as ALTER TABLE SET
        TBLPROPERTIES ('comment' = ...), so it is that atomic statement, binlogged as written."""
        c = self.c
        if not c.take("TABLE"):
            raise Unsupported(f"COMMENT ON {c.word() or '...'} (only COMMENT ON TABLE)")
        name = c.name("a table name").as_kind("relation")
        c.expect("IS")
        # IS NULL: Spark's command stores an empty comment (it does not remove it)
        op = alter_ops.SetProperties({"comment": "" if c.take("NULL") else c.one_string("a comment")})
        c.expect_end()
        return c.ddl("COMMENT ON TABLE", draft(AlterTable.of, name, op))

    def alter_view(self) -> PlannedStatement:
        c = self.c
        name = c.name("a view name").as_kind("relation")
        if c.take("AS"):
            return c.ddl("ALTER VIEW", draft(AlterView.of, name, as_select=self.query_text()))
        if c.take("WITH", "SCHEMA"):
            mode = self.schema_mode()
            c.expect_end()
            return c.ddl("ALTER VIEW ... WITH SCHEMA", draft(AlterView.of, name, schema_mode=mode))
        if c.take("RENAME", "TO"):
            new = c.name("a view name").as_kind("new_name", renamed=name)
            c.expect_end()
            return c.ddl("ALTER VIEW ... RENAME TO", draft(RenameView.of, name, new))
        if c.take("SET", "TBLPROPERTIES"):
            properties = self.properties()
            c.expect_end()
            return c.ddl("ALTER VIEW ... SET TBLPROPERTIES", draft(AlterViewProperties.of, name, set=properties))
        if c.take("UNSET", "TBLPROPERTIES"):
            if_exists = c.take("IF", "EXISTS")
            keys = self.property_keys()
            c.expect_end()
            return c.ddl("ALTER VIEW ... UNSET TBLPROPERTIES",
                         draft(AlterViewProperties.of, name, unset=keys, if_exists=if_exists))
        raise Unsupported(f"ALTER VIEW ... {c.word() or '...'}")

    # -- DROP, TRUNCATE, INSERT OVERWRITE

    def drop(self) -> PlannedStatement:
        c = self.c
        if c.at("TEMPORARY") or c.at("TEMP"):
            return c.query()  # DROP TEMPORARY FUNCTION / VARIABLE: session only
        kind = c.word()
        if kind in ("DATABASE", "SCHEMA", "NAMESPACE"):
            c.i += 1
            if_exists = c.take("IF", "EXISTS")
            database = self.database_name()
            cascade = c.take("CASCADE")
            if not cascade:
                c.take("RESTRICT")
            c.expect_end()
            return c.ddl("DROP DATABASE", draft(DropDatabase.of, database, if_exists=if_exists, cascade=cascade))
        if kind not in ("TABLE", "VIEW", "FUNCTION"):
            raise Unsupported(f"DROP {kind or '...'}")
        c.i += 1
        if_exists = c.take("IF", "EXISTS")
        if kind == "FUNCTION":
            function = c.name("a function name").as_kind("function")
            c.expect_end()
            return c.ddl("DROP FUNCTION", draft(DropFunction.of, function, if_exists=if_exists))
        names = [name.as_kind("relation") for name in c.names(f"a {kind.lower()} name")]
        purge = kind == "TABLE" and c.take("PURGE")
        c.expect_end()
        single = len(names) == 1  # Spark drops one object per statement
        if kind == "TABLE":
            return c.ddl("DROP TABLE", draft(DropTables.of, names, if_exists=if_exists, purge=purge),
                         spark_sql=single)
        return c.ddl("DROP VIEW", draft(DropViews.of, names, if_exists=if_exists), spark_sql=single)

    def truncate(self) -> PlannedStatement:
        c = self.c
        name = c.name("a table name").as_kind("relation")
        partition = self.partition_spec() if c.at("PARTITION") else None
        c.expect_end()
        return c.ddl("TRUNCATE TABLE", draft(TruncateTable.of, name, partition=partition))

    def insert_after_clauses(self) -> PlannedStatement | None:
        """``WITH <ctes> INSERT ...``, ``FROM <source> INSERT ... SELECT ...`` (Hive's order) or both, with one
        INSERT: Spark reads the leading clauses as the INSERT's query's own, so they are put in front of it
        (:meth:`leading_query`) and the INSERT routed as any. None where there is not exactly one INSERT (Spark's
        multi-insert writes several tables: refused by the caller)."""
        c = self.c
        depth, inserts = 0, []
        c.i = 0
        for k, token in enumerate(c.tokens):
            depth += (token.token_type is TokenType.L_PAREN) - (token.token_type is TokenType.R_PAREN)
            if depth == 0 and c.words(k) == ("INSERT",) and c.words(k + 1) in (("OVERWRITE",), ("INTO",)):
                inserts.append(k)
        if len(inserts) != 1:
            return None
        at = inserts[0]
        leading = slice_text(c.script, c.tokens[0], c.tokens[at - 1])
        overwrite = c.words(at + 1) == ("OVERWRITE",)
        c.i = at + 2
        return self.insert_overwrite(leading=leading) if overwrite else self.insert_into(leading=leading)

    def leading_query(self, leading: str) -> str:
        """The query from here, with the clauses written before its INSERT (``leading``) in front: Spark's own
        reading of them (a query may start ``WITH ...`` or ``FROM ... SELECT``); a query with CTEs of its own is
        nested under them."""
        own_ctes = self.c.at("WITH")
        query = self.query_text()
        if not leading:
            return query
        return f"{leading}\nSELECT * FROM (\n{query}\n)" if own_ctes else f"{leading}\n{query}"

    def insert_overwrite(self, *, leading: str = "") -> PlannedStatement:
        c = self.c
        if c.at("DIRECTORY") or c.at("LOCAL", "DIRECTORY"):
            raise Unsupported("INSERT OVERWRITE DIRECTORY (writes files, not a table)")
        c.take("TABLE")
        name = c.name("a table name").as_kind("relation")
        extra: dict[str, Any] = {}
        if c.at("PARTITION"):
            extra["partition"] = self.overwrite_partition_spec()
        if c.take("IF", "NOT", "EXISTS"):
            if "partition" not in extra:
                raise c.error("IF NOT EXISTS needs a PARTITION spec")
            extra["if_not_exists"] = True
        if c.at("REPLACE"):
            raise Unsupported(f"INSERT OVERWRITE ... {c.word()}")
        if c.take("BY", "NAME"):
            extra["by_name"] = True
        elif c.is_kind(TokenType.L_PAREN) and not (c.words(1) and c.words(1)[0] in QUERY_STARTS) \
                and not c.is_kind(TokenType.L_PAREN, 1):
            listed = c.group("column list")
            columns = [self.column_name(listed)]
            while listed.take_kind(TokenType.COMMA):
                columns.append(self.column_name(listed))
            listed.expect_end()
            extra["columns"] = columns
        return c.ddl("INSERT OVERWRITE", draft(InsertOverwrite.of, name, as_select=self.leading_query(leading),
                                               **extra))

    def insert_into(self, *, leading: str = "") -> PlannedStatement:
        """``INSERT INTO [TABLE] t <the rest>``: the rest (a PARTITION spec, a column list, ``BY NAME``, the query or
        VALUES) goes to Spark as written, on the statement's work table (:mod:`ddl_log.engine.insert`); clauses
        written before the INSERT (``leading``) in front of its query."""
        c = self.c
        c.take("TABLE")
        name = c.name("a table name").as_kind("relation")
        if not leading:
            return c.ddl("INSERT INTO", draft(InsertInto.of, name, body=c.rest()))
        start = c.i
        if c.take("PARTITION"):
            c.group("partition spec")
        c.take("IF", "NOT", "EXISTS")
        if not c.take("BY", "NAME") and c.is_kind(TokenType.L_PAREN) and not (
                c.words(1) and c.words(1)[0] in QUERY_STARTS) and not c.is_kind(TokenType.L_PAREN, 1):
            c.group("column list")
        clauses = slice_text(c.script, c.tokens[start], c.tokens[c.i - 1]) + " " if c.i > start else ""
        body = clauses + self.leading_query(leading)
        return c.ddl("INSERT INTO", draft(InsertInto.of, name, body=body))


def history_table_exists(facts: SessionFacts) -> bool:
    """Whether ``history`` names a relation of the session (Spark's DESCRIBE of a column then)."""
    return facts.relation_exists("history")
