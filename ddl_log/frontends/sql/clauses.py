"""The clauses several statements share (property lists, partition specs, column names, a query's text, ALTER TABLE
operations), read for the router of :mod:`ddl_log.frontends.sql.router`."""

from __future__ import annotations

from sqlglot.tokenizer_core import TokenType

from ddl_log.engine import alter_ops
from ddl_log.errors import Unsupported
from ddl_log.frontends.sql.plan import Name
from ddl_log.frontends.sql.token_cursor import Cursor
from ddl_log.frontends.sql.tokens import TEXT_STRINGS, slice_text, source_text
from ddl_log.frontends.sql.validate import is_data_type
from storage.catalogs.create_text import QUERY_STARTS

PASS_THROUGH_CLAUSES = {
    "LOCATION": "LOCATION (an external table: its files live outside the warehouse)",
    "OPTIONS": "OPTIONS (...)",
    "CLUSTERED BY": "CLUSTERED BY (bucketing)",
    "CLUSTER BY": "CLUSTER BY (clustering)",
    "SORTED BY": "SORTED BY (bucketing)",
    "SKEWED BY": "SKEWED BY",
    "STORED AS": "STORED AS (a Hive serde table)",
    "STORED BY": "STORED BY (a Hive storage handler)",
    "ROW FORMAT": "ROW FORMAT (a Hive serde table)",
}


class ClauseReader:
    """Reads clauses at the cursor; errors point at the offending token."""

    def __init__(self, cursor: Cursor) -> None:
        self.c = cursor

    def clause_name(self) -> str:
        c = self.c
        for words in (c.words(), c.words() + c.words(1)):
            key = " ".join(words)
            if key in PASS_THROUGH_CLAUSES:
                return PASS_THROUGH_CLAUSES[key]
        token = c.token()
        return repr(source_text(c.script, token)) if token is not None else "more clauses"

    def partition_columns(self) -> list[str]:
        """The column of each item of ``PARTITIONED BY (a, b INT COMMENT 'x', ...)``: a Hive column's type and
        comment, like anything else in the clause, go to Spark as written (which refuses what it does not take)."""
        inner = self.c.group("partition columns")
        columns: list[str] = []
        while True:
            columns.append(inner.ident("a partition column"))
            while not inner.done and not inner.is_kind(TokenType.COMMA):
                if inner.is_kind(TokenType.L_PAREN):
                    inner.group("a partition column's type")
                else:
                    inner.i += 1
            if inner.done:
                return columns
            inner.take_kind(TokenType.COMMA)

    def properties(self) -> dict[str, str]:
        inner = self.c.group("properties")
        result: dict[str, str] = {}
        while True:
            key = self.property_key(inner)
            inner.take_kind(TokenType.EQ)
            result[key] = inner.property_value()
            if inner.done:
                return result
            inner.expect_kind(TokenType.COMMA, ", or )")

    def property_keys(self) -> list[str]:
        inner = self.c.group("property keys")
        keys = [self.property_key(inner)]
        while inner.take_kind(TokenType.COMMA):
            keys.append(self.property_key(inner))
        inner.expect_end()
        return keys

    @staticmethod
    def property_key(inner: Cursor) -> str:
        token = inner.token()
        if token is not None and token.token_type in TEXT_STRINGS:
            return inner.one_string("a property key")
        return ".".join(inner.name("a property key").parts)

    def partition_spec(self) -> dict[str, str]:
        c = self.c
        c.expect("PARTITION")
        inner = c.group("partition spec")
        spec: dict[str, str] = {}
        while True:
            column = inner.ident("a partition column")
            if not inner.take_kind(TokenType.EQ):
                raise Unsupported("a partition spec without a value for every column")
            if inner.word() == "NULL":
                raise Unsupported("a NULL partition value")
            spec[column] = inner.literal("a partition value")
            if inner.done:
                return spec
            inner.expect_kind(TokenType.COMMA, ", or )")

    def overwrite_partition_spec(self) -> dict[str, str | None]:
        """``PARTITION (a=1, b)``: a static value, or None for a dynamic column (the query yields it)."""
        c = self.c
        c.expect("PARTITION")
        inner = c.group("partition spec")
        spec: dict[str, str | None] = {}
        while True:
            column = inner.ident("a partition column")
            if inner.take_kind(TokenType.EQ):
                if inner.word() == "NULL":
                    raise Unsupported("a NULL static partition value (write the column without a value and "
                                       "yield NULL from the query, in dynamic overwrite mode)")
                spec[column] = inner.literal("a partition value")
            else:
                spec[column] = None
            if inner.done:
                return spec
            inner.expect_kind(TokenType.COMMA, ", or )")

    def query_text(self) -> str:
        c = self.c
        if not c.at_any(*QUERY_STARTS) and not c.is_kind(TokenType.L_PAREN):
            raise c.error("expected a query")
        return c.rest()

    def database_name(self) -> Name:
        return self.c.name("a database name").as_kind("database")

    @staticmethod
    def column_name(source: Cursor) -> str:
        name = source.name("a column name")
        if name.qualified:
            raise Unsupported(f"the nested column {'.'.join(name.parts)!r}")
        return name.parts[0]

    def alter_op(self) -> alter_ops.AlterOp:
        c = self.c
        if c.take("ADD"):
            if c.take("COLUMNS") or c.take("COLUMN"):
                if c.is_kind(TokenType.L_PAREN):
                    columns = c.group("column list")
                    if columns.done:
                        raise columns.error("empty column list")
                    return alter_ops.AddColumns(columns.text())
                return alter_ops.AddColumns(c.rest())
            if_not_exists = c.take("IF", "NOT", "EXISTS")
            if c.at("PARTITION"):
                specs = []
                while c.at("PARTITION"):  # Spark's: PARTITION (...) [LOCATION '...'] PARTITION (...) ...
                    specs.append(self.partition_spec())
                    if c.at("LOCATION"):
                        raise Unsupported("ALTER TABLE ... ADD PARTITION ... LOCATION (files outside the warehouse)")
                return alter_ops.AddPartition(specs, if_not_exists)
            raise Unsupported(f"ALTER TABLE ... ADD {c.word() or '...'}")
        if c.take("DROP"):
            if c.take("COLUMNS") or c.take("COLUMN"):
                if_exists = c.take("IF", "EXISTS")
                source = c.group("column names") if c.is_kind(TokenType.L_PAREN) else c
                dropped = [self.column_name(source)]
                while source.take_kind(TokenType.COMMA):
                    dropped.append(self.column_name(source))
                source.expect_end()
                return alter_ops.DropColumns(tuple(dropped), if_exists)
            if_exists = c.take("IF", "EXISTS")
            if c.at("PARTITION"):
                specs = [self.partition_spec()]
                while c.take_kind(TokenType.COMMA):  # Spark's: PARTITION (...), PARTITION (...) ... [PURGE]
                    specs.append(self.partition_spec())
                return alter_ops.DropPartition(specs, if_exists, purge=c.take("PURGE"))
            raise Unsupported(f"ALTER TABLE ... DROP {c.word() or '...'}")
        if c.take("SET", "TBLPROPERTIES"):
            return alter_ops.SetProperties(self.properties())
        if c.take("UNSET", "TBLPROPERTIES"):
            if_exists = c.take("IF", "EXISTS")
            return alter_ops.UnsetProperties(tuple(self.property_keys()), if_exists)
        hive_style = c.at("CHANGE")
        if c.take("ALTER") or c.take("CHANGE"):
            c.take("COLUMN")
            column = self.column_name(c)
            if hive_style and not c.at_any("TYPE", "COMMENT", "SET", "DROP", "FIRST", "AFTER"):
                return self.hive_change_column(column)
            if c.take("TYPE"):
                type_start = c.i
                type_text = c.rest()
                if not is_data_type(type_text):
                    c.i = type_start
                    raise c.error("expected a data type")
                return alter_ops.ChangeColumnType(column, type_text)
            if c.take("COMMENT"):
                return alter_ops.ColumnComment(column, c.string("a comment string"))
            raise Unsupported("ALTER TABLE ... ALTER COLUMN in this form (only TYPE or COMMENT)")
        words = " ".join(c.words() + c.words(1)) or "..."
        raise Unsupported(f"ALTER TABLE ... {words}")

    def hive_change_column(self, column: str) -> alter_ops.ChangeColumn:
        """``CHANGE [COLUMN] old new type [NOT NULL] [COMMENT 'c'] [FIRST | AFTER x]`` after ``old``."""
        c = self.c
        new_name = self.column_name(c)
        type_start, depth = c.i, 0
        while not c.done:
            kind = c.tokens[c.i].token_type
            if kind in (TokenType.L_PAREN, TokenType.LT):
                depth += 1
            elif kind in (TokenType.R_PAREN, TokenType.GT):
                depth -= 1
            elif depth == 0 and c.at_any("NOT", "COMMENT", "FIRST", "AFTER"):
                break
            c.i += 1
        if c.i == type_start:
            raise c.error("expected a data type")
        type_text = slice_text(c.script, c.tokens[type_start], c.tokens[c.i - 1])
        if not is_data_type(type_text):
            c.i = type_start
            raise c.error("expected a data type")
        not_null = c.take("NOT", "NULL")
        comment = c.one_string("a comment string") if c.take("COMMENT") else None
        position: str | None = None
        if c.at_any("FIRST", "AFTER"):
            position = c.rest()
        c.expect_end()
        return alter_ops.ChangeColumn(column, new_name, type_text, comment, position, not_null)
