"""Apache Spark's SQL golden-file inputs (``sql/core/src/test/resources/sql-tests/inputs/*.sql``) read into the
statements its ``SQLQueryTestSuite`` runs, by the same rules, written again here (none of Spark's code or files is
in this project):

* a line whose trimmed text starts with ``--`` is a comment (``--QUERY-DELIMITER`` lines excepted) and leaves the
  code; the directives are comments: ``--SET k=v, k2=v2`` settings for the file's session, ``--CONFIG_DIM<n> k=v``
  one config set of dimension ``n`` (the suite runs the file once per combination; here the first combination runs,
  and how many there were is reported), ``--IMPORT other.sql`` the code of another input first;
* the code is split at every ``;`` not preceded by a backslash (inside strings and comments too, as Spark's suite
  does), except between ``--QUERY-DELIMITER-START`` and ``--QUERY-DELIMITER-END``, which make one statement (its
  last ``;`` removed);
* each piece is trimmed, its lines starting with ``--`` dropped (a comment after a statement's last ``;``), trimmed
  again; empty pieces are not statements.

What this runner cannot run the way Spark's suite does is skipped and counted (:data:`SKIPPED_FILES`,
:data:`SKIPPED_STATEMENTS`): a file that imports another, and statements needing the suite's test classes (Scala
UDFs, test data sources), which exist only on its own class path.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import attrs

SPLIT = re.compile(r"(?<=[^\\]);")
"""Spark's suite: ``split("(?<=[^\\\\]);")``, a ``;`` not preceded by a backslash ends a statement."""
DELIMITER_START = "--QUERY-DELIMITER-START"
DELIMITER_END = "--QUERY-DELIMITER-END"
def imports(path: str, comments: Sequence[str]) -> bool:
    return any(comment.startswith("--IMPORT ") for comment in comments)


def uses_test_udfs(path: str, comments: Sequence[str]) -> bool:
    return bool(re.search(r"(?:^|/)(?:udf|udaf|udtf)[-/]|udf-|udaf-|udtf-", path))


SKIPPED_FILES: tuple[tuple[str, Callable[[str, Sequence[str]], bool]], ...] = (
    ("imports another input (--IMPORT)", imports),
    ("test UDF input (udf/, udaf, udtf: the suite's Python and Scala test functions)", uses_test_udfs),
)
"""(why, does it apply to (relative path, comment lines)): whole files this runner cannot run as the suite does."""
SKIPPED_STATEMENTS = (
    ("needs a class of Spark's test jar", re.compile(r"\btest\.org\.apache\.spark\b|\bDDLScanSource\b")),
    ("needs the suite's test UDF", re.compile(r"\b(?:udf|udaf|udtf)\s*\(", re.I)),
)
"""(why, pattern): statements that need what exists only on the suite's class path; they would fail on both sides
for a reason unrelated to either."""


@attrs.frozen
class GoldenFile:
    """One input: its statements in order (with their 1-based position among the file's statements), the settings
    of its session, and what was skipped (why -> count)."""

    name: str
    statements: tuple[tuple[int, str], ...]
    settings: tuple[tuple[str, str], ...] = ()
    config_sets: int = 1
    """How many config combinations ``--CONFIG_DIM`` asks for (the first runs here)."""
    skipped: tuple[tuple[str, int], ...] = ()
    skipped_file: str = ""
    """Why the whole file was skipped ("" if it runs)."""


def split_comments(text: str) -> tuple[list[str], list[str]]:
    """(comment lines, code lines), as the suite tells them apart."""
    comments: list[str] = []
    code: list[str] = []
    for line in text.split("\n"):
        stripped = line.strip()
        is_comment = stripped.startswith("--") and not stripped.startswith("--QUERY-DELIMITER")
        (comments if is_comment else code).append(line)
    return comments, code


def split_semicolons(lines: Sequence[str]) -> list[str]:
    return SPLIT.split("\n".join(lines))


def queries(code: Sequence[str]) -> list[str]:
    """The statements of the code lines, in order."""
    pieces: list[str] = []
    if any(line.strip().startswith("--QUERY-DELIMITER") for line in code):
        other: list[str] = []
        block = ""
        inside = False
        for line in code:
            stripped = line.strip()
            if stripped.startswith(DELIMITER_START):
                inside = True
                pieces.extend(split_semicolons(other))
                other = []
            elif stripped.startswith(DELIMITER_END):
                inside = False
                pieces.append("\n" + block.removesuffix(";"))
                block = ""
            elif inside:
                block += "\n" + line
            else:
                other.append(line)
        if other:
            pieces.extend(split_semicolons(other))
    else:
        pieces = split_semicolons(code)
    found = []
    for piece in (p.strip() for p in pieces):
        if not piece:
            continue
        kept = "\n".join(line for line in piece.split("\n") if not line.startswith("--")).strip()
        if kept:
            found.append(kept)
    return found


def key_values(text: str) -> list[tuple[str, str]]:
    """``k=v, k2=v2`` as the suite reads it (split at commas, then at the first ``=``)."""
    pairs = []
    for item in text.split(","):
        key, _, value = item.partition("=")
        pairs.append((key.strip(), value.strip()))
    return pairs


def settings_of(comments: Sequence[str]) -> list[tuple[str, str]]:
    return [pair for line in comments if line.startswith("--SET ") for pair in key_values(line[len("--SET "):])]


def config_sets(comments: Sequence[str]) -> list[list[tuple[str, str]]]:
    """Every combination of the ``--CONFIG_DIM`` dimensions (one set of each), in the suite's order."""
    dimensions: dict[str, list[list[tuple[str, str]]]] = {}
    for line in comments:
        if line.startswith("--CONFIG_DIM"):
            rest = line[len("--CONFIG_DIM"):]
            dimension, _, pairs = rest.partition(" ")
            dimensions.setdefault(dimension, []).append(key_values(pairs))
    combinations: list[list[tuple[str, str]]] = [[]]
    for sets in dimensions.values():
        combinations = [[*done, *extra] for extra, done in itertools.product(sets, combinations)]
    return combinations


def skipped_statement(text: str) -> str:
    for why, pattern in SKIPPED_STATEMENTS:
        if pattern.search(text):
            return why
    return ""


def read_golden(text: str, name: str) -> GoldenFile:
    """The input ``text`` (named ``name``, its path under ``inputs/``) as this runner runs it."""
    comments, code = split_comments(text)
    for why, applies in SKIPPED_FILES:
        if applies(name, comments):
            return GoldenFile(name, (), skipped_file=why)
    combinations = config_sets(comments)
    settings = [*settings_of(comments), *combinations[0]]
    kept: list[tuple[int, str]] = []
    skipped: dict[str, int] = {}
    for position, statement in enumerate(queries(code), start=1):
        why = skipped_statement(statement)
        if why:
            skipped[why] = skipped.get(why, 0) + 1
        else:
            kept.append((position, statement))
    return GoldenFile(name, tuple(kept), tuple(settings), len(combinations), tuple(sorted(skipped.items())))


def read_inputs(directory: Path, only: Sequence[str] = ()) -> list[GoldenFile]:
    """Every ``*.sql`` under ``directory`` (recursively, sorted), or only those named in ``only``."""
    found = []
    for path in sorted(directory.rglob("*.sql")):
        name = path.relative_to(directory).as_posix()
        if only and name not in only and path.name not in only:
            continue
        found.append(read_golden(path.read_text(encoding="utf-8"), name))
    return found
