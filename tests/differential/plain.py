"""The plain side: each statement through ``spark.sql`` as written, or, where plain Spark cannot run it on parquet
tables of the session catalog, what users run instead (the :data:`~tests.differential.script.Plain` forms).

Spark is asked first whenever it knows the form: its parser and analyser decide syntax errors, bad types and missing
sources exactly as they would for the user; only when it answers "a v1 table cannot do that"
(``UNSUPPORTED_FEATURE.TABLE_OPERATION``, ``NOT_SUPPORTED_CHANGE_COLUMN``) does the equivalent run:

* CREATE OR REPLACE / REPLACE TABLE: build the new table under another name, drop the old one, rename the new one
  into place; REPLACE of a missing table fails, and so does either form of a view, checked first (plain Spark refuses
  CREATE OR REPLACE TABLE of a view on every line, ``UNSUPPORTED_FEATURE.TABLE_OPERATION``: the stand-in must not
  drop it the way ``DROP TABLE`` drops a view from Spark 4.2 on).
* RENAME TABLE a TO b, c TO d: one ALTER TABLE ... RENAME TO per pair; a failure undoes the earlier ones.
* DROP TABLE|VIEW a, b: every name checked first (missing, or of the other kind: nothing dropped), then one DROP each.
* ALTER COLUMN ... TYPE, DROP COLUMN[S]: the rebuild a user does by hand: ``SHOW CREATE TABLE`` with the column
  changed or left out, ``INSERT ... SELECT CAST(...)`` under ANSI (a value that does not convert fails the
  statement), empty partitions added again, the old table dropped and the new one renamed. The result is checked
  against the definition before with only that column changed (:class:`EmulationError` if the emulation itself
  lost anything, which is the harness's bug, not the product's).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import unquote

import attrs

from tests.definitions import Definition, Field, partitions, table_definition
from tests.differential.outcomes import Outcome, classify, failed, succeeded
from tests.differential.script import PLAIN_PREFIX, DropMany, Name, Rebuild, RenameMany, Replace, Step, database, render

V1_CANNOT = ("UNSUPPORTED_FEATURE.TABLE_OPERATION", "NOT_SUPPORTED_CHANGE_COLUMN")
"""Spark's answer when a statement it parses is not available for v1 (session catalog, file source) tables."""
CHAR_TYPE = "__CHAR_VARCHAR_TYPE_STRING"
OR_REPLACE_IF_NOT_EXISTS = re.compile(r"\s*CREATE\s+OR\s+REPLACE\s+TABLE\s+IF\s+NOT\s+EXISTS\b", re.I)
"""A syntax error Spark's parser reports for every CREATE OR REPLACE form; the LIKE form it cannot parse at all."""
IMPOSSIBLE_DROP = frozenset({"refused", "invalid"})
"""A DROP COLUMN no table can do (a partition or bucket column, every data column): plain Spark has no statement to
compare with, so either class a reasonable engine reports is accepted."""


class EmulationError(RuntimeError):
    """The plain side's emulation did not do what it stands for: a bug of the harness (not an AssertionError, so
    that it never passes for a product difference in an xfail)."""


def attempt(session: Any, *statements: str) -> Outcome:
    """Run ``statements`` in order; the first failure is the outcome."""
    for text in statements:
        try:
            session.sql(text)
        except Exception as error:  # noqa: BLE001 - every failure is an outcome to compare
            return classify(error)
    return succeeded()


def emulated(outcome: Outcome) -> Outcome:
    """An outcome of the statements that stand in for one plain Spark cannot run: their failure's class is what a
    user of plain Spark meets, but its condition belongs to another statement's text, so it names none."""
    return attrs.evolve(outcome, condition=None)


def v1_cannot(outcome: Outcome) -> bool:
    return outcome.key in V1_CANNOT


def quoted(db: str, ident: str) -> str:
    return f"`{db}`.`{ident}`"


class PlainRunner:
    """Runs steps on the plain side's session (main database ``diffplain``)."""

    def __init__(self, session: Any) -> None:
        self.session = session

    def run(self, step: Step) -> Outcome:
        text = render(step.text, PLAIN_PREFIX)
        plain = step.plain
        if isinstance(plain, Replace):
            return self.replace(plain, text)
        if isinstance(plain, RenameMany):
            return emulated(self.rename_many(plain))
        if isinstance(plain, DropMany):
            return emulated(self.drop_many(plain))
        if isinstance(plain, Rebuild):
            return self.rebuild(plain, text)
        return attempt(self.session, text)

    # -- names

    def where(self, name: Name) -> tuple[str, str]:
        """(database, lower-case identifier) of ``name`` as the session resolves it now."""
        db = str(self.session.catalog.currentDatabase()) if name.db is None else database(PLAIN_PREFIX, name.db)
        return db, name.ident.lower()

    def kind(self, db: str, ident: str) -> str | None:
        """"table", "view" or None: what the metastore holds under ``db.ident``."""
        external = self.session._jsparkSession.sharedState().externalCatalog()
        if not external.databaseExists(db) or not external.tableExists(db, ident):
            return None
        return "view" if str(external.getTable(db, ident).tableType().name()) == "VIEW" else "table"

    # -- the equivalents

    def replace(self, plain: Replace, text: str) -> Outcome:
        if not plain.spark_form and OR_REPLACE_IF_NOT_EXISTS.match(text):
            return failed("parse", "emulated: OR REPLACE with IF NOT EXISTS (Spark: INVALID_SQL_SYNTAX)")
        if plain.spark_form:
            native = attempt(self.session, text)
            if native.ok or not v1_cannot(native):
                return native
        return emulated(self.replace_by_hand(plain))

    def replace_by_hand(self, plain: Replace) -> Outcome:
        db, ident = self.where(plain.name)
        found = self.kind(db, ident)
        if plain.must_exist and found is None:
            return failed("missing", "emulated: REPLACE TABLE of a missing table (CANNOT_REPLACE_MISSING_TABLE)")
        if found == "view":
            return failed("refused", "emulated: a view is not replaced by a table (EXPECT_TABLE_NOT_VIEW)")
        new = quoted(db, f"{ident}__dnew")
        built = attempt(self.session, f"CREATE TABLE {new} {render(plain.rest, PLAIN_PREFIX)}")
        if not built.ok:
            return built
        if found is not None:
            dropped = attempt(self.session, f"DROP TABLE {quoted(db, ident)}")
            if not dropped.ok:
                attempt(self.session, f"DROP TABLE {new}")
                return dropped
        return attempt(self.session, f"ALTER TABLE {new} RENAME TO {quoted(db, ident)}")

    def rename_many(self, plain: RenameMany) -> Outcome:
        done: list[tuple[str, str]] = []
        for old, new in plain.pairs:
            outcome = attempt(self.session, f"ALTER TABLE {render(old.sql, PLAIN_PREFIX)} RENAME TO "
                                            f"{render(new.sql, PLAIN_PREFIX)}")
            if not outcome.ok:
                for was, now in reversed(done):
                    attempt(self.session, f"ALTER TABLE {now} RENAME TO {was}")
                return outcome
            db, ident = self.where(old)
            done.append((quoted(db, ident), quoted(db, new.ident.lower())))
        return succeeded()

    def drop_many(self, plain: DropMany) -> Outcome:
        wanted = plain.kind.lower()
        targets = list(dict.fromkeys(self.where(name) for name in plain.names))
        for db, ident in targets:
            found = self.kind(db, ident)
            if found is not None and found != wanted:
                return failed("refused", f"emulated: {db}.{ident} is a {found}, checked before anything is dropped")
            if found is None and not plain.if_exists:
                return failed("missing", f"emulated: {db}.{ident} does not exist, checked before anything is dropped")
        for db, ident in targets:
            if self.kind(db, ident) is not None:
                outcome = attempt(self.session, f"DROP {plain.kind} {quoted(db, ident)}")
                if not outcome.ok:
                    return outcome
        return succeeded()

    def rebuild(self, plain: Rebuild, text: str) -> Outcome:
        native = attempt(self.session, text)
        if native.ok or not v1_cannot(native):
            return native
        return emulated(self.rebuild_by_hand(plain, native))

    def rebuild_by_hand(self, plain: Rebuild, native: Outcome) -> Outcome:
        db, ident = self.where(plain.name)
        before = table_definition(self.session, db, ident)
        if before is None:
            raise EmulationError(f"Spark said {native.detail} for a table that is not there: {db}.{ident}")
        by_name = {field.name.lower(): field.name for field in before.fields}
        absent = [column for column in plain.columns if column.lower() not in by_name]
        if absent and not (plain.new_type is None and plain.if_exists):
            return failed("missing", f"emulated: no column {absent[0]!r} in {db}.{ident} (UNRESOLVED_COLUMN)")
        chosen = {by_name[column.lower()] for column in plain.columns if column.lower() in by_name}
        if not chosen:
            return succeeded("emulated: nothing to drop")
        if plain.new_type is None:
            impossible = self.impossible_drop(before, chosen)
            if impossible:
                return failed(IMPOSSIBLE_DROP, f"emulated: {impossible}")
        old_partitions = partitions(self.session, db, ident)
        new = quoted(db, f"{ident}__drebuild")
        fields = [field for field in before.fields if plain.new_type is not None or field.name not in chosen]
        columns = ", ".join(self.column_sql(field, plain.new_type if field.name in chosen else None)
                            for field in fields)
        created = attempt(self.session, f"CREATE TABLE {new} ({columns}) {self.clauses(db, ident, before.comment)}")
        if not created.ok:
            return created
        values = ", ".join(f"CAST(`{f.name}` AS {plain.new_type})" if f.name in chosen and plain.new_type else
                           f"`{f.name}`" for f in fields)
        with strict_casts(self.session):
            copied = attempt(self.session, f"INSERT INTO {new} SELECT {values} FROM {quoted(db, ident)}")
        if not copied.ok:
            attempt(self.session, f"DROP TABLE {new}")
            return copied
        for spec in old_partitions:
            pairs = [part.split("=", 1) for part in spec.split("/")]
            if all(unquote(value) != "__HIVE_DEFAULT_PARTITION__" for _, value in pairs):
                literal = ", ".join(f"`{unquote(k)}` = '{sql_escape(unquote(v))}'" for k, v in pairs)
                attempt(self.session, f"ALTER TABLE {new} ADD IF NOT EXISTS PARTITION ({literal})")
        done = attempt(self.session, f"DROP TABLE {quoted(db, ident)}",
                       f"ALTER TABLE {new} RENAME TO {quoted(db, ident)}")
        if not done.ok:
            raise EmulationError(f"the rebuild of {db}.{ident} could not be put in place: {done.detail}")
        self.check_rebuild(before, table_definition(self.session, db, ident), chosen, plain)
        return succeeded("emulated: rebuilt")

    @staticmethod
    def impossible_drop(before: Definition, chosen: set[str]) -> str:
        lowered = {name.lower() for name in chosen}
        if lowered & {name.lower() for name in before.partition_columns}:
            return "a partition column cannot be dropped"
        if before.buckets and lowered & {name.lower() for name in (*before.buckets[1], *before.buckets[2])}:
            return "a bucket or sort column cannot be dropped"
        partition = {name.lower() for name in before.partition_columns}
        if all(field.name.lower() in lowered | partition for field in before.fields):
            return "every data column would be dropped"
        return ""

    def column_sql(self, field: Field, new_type: str | None) -> str:
        """A column of the rebuilt table as Spark's DDL writes it (the declared CHAR/VARCHAR, NOT NULL, DEFAULT,
        COMMENT kept), with ``new_type`` if given."""
        metadata = {key: json.loads(value) for key, value in field.metadata}
        declared = metadata.get(CHAR_TYPE)
        data_type = self.session._jvm.org.apache.spark.sql.types.DataType.fromJson(field.type)
        parts = [f"`{field.name}`", new_type or (str(declared).upper() if declared else str(data_type.sql()))]
        if not field.nullable:
            parts.append("NOT NULL")
        if "CURRENT_DEFAULT" in metadata:
            parts.append(f"DEFAULT {metadata['CURRENT_DEFAULT']}")
        if "comment" in metadata:
            parts.append(f"COMMENT '{sql_escape(str(metadata['comment']))}'")
        return " ".join(parts)

    def clauses(self, db: str, ident: str, comment: str | None) -> str:
        """Everything ``SHOW CREATE TABLE`` says after the column list, except the location, with the table's
        ``comment`` written again: SHOW CREATE TABLE prints a comment's backslashes as they are, which its parser then
        reads as escapes (``back\\slash`` came back ``backslash``)."""
        text = str(self.session.sql(f"SHOW CREATE TABLE {quoted(db, ident)}").collect()[0][0])
        at = text.find("\nUSING ")
        if at < 0:
            raise EmulationError(f"SHOW CREATE TABLE {db}.{ident} has no USING clause: {text!r}")
        rest = re.sub(r"(?m)^LOCATION '(?:[^'\\]|\\.)*'\n?", "", text[at + 1:])
        rest = re.sub(r"(?m)^COMMENT '(?:[^'\\]|\\.)*'\n?", "", rest)
        return rest if comment is None else f"{rest.rstrip()}\nCOMMENT '{sql_escape(comment)}'"

    @staticmethod
    def check_rebuild(before: Definition, after: Definition | None, chosen: set[str], plain: Rebuild) -> None:
        if after is None:
            raise EmulationError(f"the rebuild left no table for {plain.name}")
        expected = [f for f in before.fields if plain.new_type is not None or f.name not in chosen]
        names = [f.name for f in after.fields]
        same = [f for f in after.fields if f.name not in chosen] == [f for f in expected if f.name not in chosen]
        if names != [f.name for f in expected] or not same or after.without("fields") != before.without("fields"):
            raise EmulationError(f"the rebuild changed more than {sorted(chosen)}:\n  before {before}\n  after "
                                 f"{after}")


@contextmanager
def strict_casts(session: Any) -> Iterator[None]:
    """ANSI casts for the copy, whatever the session says: a value that does not convert fails the rebuild."""
    keys = {"spark.sql.ansi.enabled": "true", "spark.sql.storeAssignmentPolicy": "ANSI"}
    saved = {key: session.conf.get(key, None) for key in keys}
    for key, value in keys.items():
        session.conf.set(key, value)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                session.conf.unset(key)
            else:
                session.conf.set(key, value)


def sql_escape(text: str) -> str:
    """``text`` inside a single-quoted Spark SQL string (Spark unescapes backslash sequences)."""
    return text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\t", "\\t")
