"""What a generated script is: statements written once, as templates, and run on two databases.

A statement is written once with database placeholders (``«»`` for a side's main database, ``«x1»`` for a second
one) so that the very same text runs on the plain side (``diffplain``, ``diffplain_x1``) and on the atomic side
(``diffatomic``, ``diffatomic_x1``); what the two sides leave behind is compared after the placeholders are put back
(:func:`normalise`), so a view's text or a function's stored namespace compares equal across sides.

Each :class:`Step` also says what plain Spark runs instead when it cannot run the statement itself on parquet tables
of the session catalog (:data:`Plain`): the equivalent a user would run, which :mod:`tests.differential.plain`
carries out. Everything here is plain data (attrs, frozen), so a script is reproducible from its seed and printable
as a repro.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import attrs

MAIN = ""
"""The placeholder key of a side's main database (the one each side's session starts in)."""
PLACEHOLDER = re.compile(r"«(\w*)»")
PLAIN_PREFIX = "diffplain"
ATOMIC_PREFIX = "diffatomic"
SIDE_NAMES = re.compile(rf"\b(?:{PLAIN_PREFIX}|{ATOMIC_PREFIX})(?:_(\w+?))?\b")


def placeholder(db: str) -> str:
    """The placeholder of the database with key ``db`` (:data:`MAIN` or ``x1``, ...)."""
    return f"«{db}»"


def database(prefix: str, db: str) -> str:
    """The real name of database ``db`` on the side whose main database is ``prefix``."""
    return prefix if db == MAIN else f"{prefix}_{db}"


def render(template: str, prefix: str) -> str:
    """The statement as one side runs it: every placeholder replaced by that side's database."""
    return PLACEHOLDER.sub(lambda match: database(prefix, match.group(1)), template)


def normalise(text: str) -> str:
    """The inverse of :func:`render` for either side: side databases back to placeholders, so that what the plain
    side stored (a view's text, a function's namespace) compares equal to what the atomic side stored."""
    return SIDE_NAMES.sub(lambda match: placeholder(match.group(1) or MAIN), text)


def display(template: str) -> str:
    """A template as a reader of a repro runs it by hand: ``«»`` is the database ``db``, ``«x1»`` is ``db_x1``."""
    return render(template, "db")


@attrs.frozen
class Name:
    """A table, view or function name as the script writes it: ``ident`` (without backquotes), an optional database
    placeholder key ``db`` (None: unqualified, resolved in the current database when it runs), backquoted or not."""

    ident: str
    db: str | None = None
    quoted: bool = False

    @property
    def sql(self) -> str:
        own = f"`{self.ident}`" if self.quoted else self.ident
        return own if self.db is None else f"{placeholder(self.db)}.{own}"

    def key(self, current: str) -> tuple[str, str]:
        """(database key, lower-case identifier): how the metastore tells objects apart."""
        return (current if self.db is None else self.db, self.ident.lower())


@attrs.frozen
class Same:
    """Plain Spark runs the statement as written."""


@attrs.frozen
class Replace:
    """``CREATE OR REPLACE TABLE name <rest>`` / ``REPLACE TABLE name <rest>``: plain Spark refuses both on parquet
    tables of the session catalog, users build the new table, drop the old one and rename. ``must_exist``: REPLACE
    TABLE (a missing table is an error). ``spark_form``: False for the project-only ``... LIKE`` form, which Spark
    cannot even parse."""

    name: Name
    rest: str
    must_exist: bool
    spark_form: bool = True


@attrs.frozen
class RenameMany:
    """``RENAME TABLE a TO b, c TO d`` (MariaDB's form, project-only): the renames one by one, all undone if one
    fails (the project's all-or-none)."""

    pairs: tuple[tuple[Name, Name], ...]


@attrs.frozen
class DropMany:
    """``DROP TABLE a, b`` / ``DROP VIEW a, b`` (project-only): every name checked first (a missing one, or one of
    the other kind, drops nothing), then the drops one by one (README "Guarantees")."""

    kind: str
    names: tuple[Name, ...]
    if_exists: bool


@attrs.frozen
class Rebuild:
    """``ALTER TABLE t ALTER COLUMN c TYPE x`` / ``DROP COLUMN[S]``: Spark refuses both on v1 tables; the project
    rebuilds the table. Expected: the definition before with only that column changed or dropped, the rows
    converted, and a value that does not convert fails the statement whatever ``spark.sql.ansi.enabled`` says."""

    name: Name
    columns: tuple[str, ...]
    new_type: str | None
    if_exists: bool = False


Plain = Same | Replace | RenameMany | DropMany | Rebuild
PROJECT_ONLY = (RenameMany, DropMany)
"""Plain forms that Spark cannot run as written (nothing for Spark to do when the project refuses them)."""


@attrs.frozen
class Step:
    """One statement of a script: its template text, the grammar production that wrote it (differences are grouped
    by it) and what plain Spark runs instead, if anything."""

    text: str
    production: str
    plain: Plain = Same()

    @property
    def project_only(self) -> bool:
        return isinstance(self.plain, PROJECT_ONLY) or (isinstance(self.plain, Replace) and not self.plain.spark_form)


def format_script(steps: Iterable[Step], *, numbered: bool = True) -> str:
    """The script as a reader runs it by hand (``USE db`` first), one statement per line."""
    lines = ["USE db;"]
    for index, step in enumerate(steps):
        prefix = f"/* {index:>2} {step.production} */ " if numbered else ""
        lines.append(f"{prefix}{display(step.text)};")
    return "\n".join(lines)
