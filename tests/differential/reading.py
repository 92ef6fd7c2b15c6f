"""Scripts written by hand (the specification cases of the short test, a repro pasted into ``--script``) read into
the same :class:`~tests.differential.script.Step` objects the generator makes: the statement text as it is, and the
plain-Spark equivalent its form calls for (:data:`~tests.differential.script.Plain`), recognised from the text.

Names use the generator's placeholders (``«»`` the side's main database, ``«x1»`` a second one); a repro printed
with ``db`` / ``db_x1`` (:func:`~tests.differential.script.display`) is read back with :func:`from_display`.
"""

from __future__ import annotations

import re

from tests.differential.script import DropMany, Name, Plain, Rebuild, RenameMany, Replace, Same, Step

NAME = r"(?:«(\w*)»\.)?(`[^`]+`|[\w]+)"
REPLACE = re.compile(rf"^\s*(CREATE\s+OR\s+REPLACE|REPLACE)\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?{NAME}\s*(.*)$",
                     re.I | re.S)
RENAME = re.compile(r"^\s*RENAME\s+TABLE\s+(.*)$", re.I | re.S)
DROP = re.compile(rf"^\s*DROP\s+(TABLE|VIEW)\s+(IF\s+EXISTS\s+)?({NAME}(?:\s*,\s*{NAME})+)\s*$", re.I | re.S)
ALTER_TYPE = re.compile(rf"^\s*ALTER\s+TABLE\s+{NAME}\s+(?:ALTER|CHANGE)\s+(?:COLUMN\s+)?(`[^`]+`|\w+)\s+TYPE\s+(.+?)"
                        r"\s*$", re.I | re.S)
DROP_COLUMNS = re.compile(rf"^\s*ALTER\s+TABLE\s+{NAME}\s+DROP\s+COLUMNS?\s+(IF\s+EXISTS\s+)?\(?([^)]*?)\)?\s*$",
                          re.I | re.S)
ONE_NAME = re.compile(NAME)


def name_of(db: str | None, ident: str) -> Name:
    quoted = ident.startswith("`")
    return Name(ident.strip("`"), db, quoted)


def names_in(text: str) -> list[Name]:
    return [name_of(db if db or "«" in match.group(0) else None, ident)
            for match in ONE_NAME.finditer(text) for db, ident in [match.groups()]]


def plain_form(text: str) -> tuple[str, Plain]:
    """(production, plain equivalent) of a statement."""
    if found := REPLACE.match(text):
        verb, db, ident, rest = found.groups()
        must_exist = verb.upper() == "REPLACE"
        return ("replace_table" if must_exist else "create_or_replace",
                Replace(name_of(db, ident), rest, must_exist, not re.match(r"LIKE\b", rest, re.I)))
    if found := RENAME.match(text):
        pairs = []
        for pair in found.group(1).split(","):
            old, new = re.split(r"\s+TO\s+", pair.strip(), flags=re.I)
            pairs.append((names_in(old)[0], names_in(new)[0]))
        return "rename_many", RenameMany(tuple(pairs))
    if found := DROP.match(text):
        return "drop_many", DropMany(found.group(1).upper(), tuple(names_in(found.group(3))), bool(found.group(2)))
    if found := ALTER_TYPE.match(text):
        db, ident, column, new_type = found.groups()
        return "column_type", Rebuild(name_of(db, ident), (column.strip("`"),), new_type)
    if found := DROP_COLUMNS.match(text):
        db, ident, guard, columns = found.groups()
        listed = tuple(column.strip().strip("`") for column in columns.split(","))
        return "drop_columns", Rebuild(name_of(db, ident), listed, None, bool(guard))
    return (text.split() or ["empty"])[0].lower(), Same()


def step_of(text: str) -> Step:
    production, plain = plain_form(text)
    return Step(text.strip(), production, plain)


def steps_of(statements: list[str]) -> list[Step]:
    return [step_of(text) for text in statements]


def from_display(script: str) -> list[Step]:
    """A repro as :func:`~tests.differential.script.format_script` prints it (``USE db;`` first, ``/* n kind */``
    comments, one statement per line ending in ``;``) read back into steps."""
    steps = []
    for line in script.splitlines():
        line = re.sub(r"^\s*/\*.*?\*/\s*", "", line).strip().rstrip(";")
        if line and line.upper() != "USE DB":
            steps.append(step_of(re.sub(r"\bdb(?:_(\w+))?\b", lambda m: f"«{m.group(1) or ''}»", line)))
    return steps
