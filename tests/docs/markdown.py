"""Reading the documentation as the docs tests see it: the Markdown files (README.md and docs/), their fenced code
blocks with the marker that may precede each, and the code spans of their prose.

A block is run by ``test_examples.py`` when its language is ``python`` or ``sh``; a block that must not run carries
a marker on the line just above its fence, with the reason::

    <!-- docs-test: skip: needs a metastore service (a PostgreSQL cluster and a JVM of its own) -->

Every other language (``text``, ``yaml``, ``sql`` ...) is shown, never run; ``text`` blocks are where layouts and
synopses live, so the path test reads the repository paths written in them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import attrs

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
RUN_LANGUAGES = frozenset({"python", "sh"})
MARKER = re.compile(r"^<!--\s*docs-test:\s*(?P<verb>[a-z-]+)\s*(?::\s*(?P<reason>.*?))?\s*-->\s*$")
FENCE = re.compile(r"^(?P<fence>```+)(?P<lang>[\w-]*)\s*$")
SPAN = re.compile(r"(?<!`)(`+)(?!`)(?P<code>.+?)(?<!`)\1(?!`)")


def doc_files() -> list[Path]:
    """The README and every page of the site (results included)."""
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@attrs.frozen
class Block:
    """A fenced code block: where it starts (the fence's line, 1-based), its language and text, and the marker
    above it (``verb`` None when there is none)."""

    path: Path
    line: int
    lang: str
    text: str
    verb: str | None = None
    reason: str = ""

    @property
    def where(self) -> str:
        return f"{relative(self.path)}:{self.line}"

    @property
    def runs(self) -> bool:
        return self.lang in RUN_LANGUAGES and self.verb != "skip"


@attrs.frozen
class Span:
    """A code span of the prose (outside fenced blocks), with its line."""

    path: Path
    line: int
    code: str

    @property
    def where(self) -> str:
        return f"{relative(self.path)}:{self.line}"


def blocks(path: Path) -> list[Block]:
    found: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        end = next((at for at in range(index + 1, len(lines)) if lines[at].startswith(opening["fence"])
                    and not lines[at].strip("`")), len(lines))
        marker = MARKER.match(previous_text(lines, index))
        found.append(Block(path, index + 1, opening["lang"], "\n".join(lines[index + 1:end]) + "\n",
                           marker["verb"] if marker else None, (marker["reason"] or "") if marker else ""))
        index = end + 1
    return found


def previous_text(lines: list[str], index: int) -> str:
    """The nearest non-blank line above ``index`` ("" at the top)."""
    return next((lines[at].strip() for at in range(index - 1, -1, -1) if lines[at].strip()), "")


def spans(path: Path) -> Iterator[Span]:
    """Code spans outside fenced blocks (a span does not cross a line: the docs write none that does)."""
    inside = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if FENCE.match(line) or (inside and line.startswith("```")):
            inside = not inside
            continue
        if not inside:
            for match in SPAN.finditer(line):
                yield Span(path, number, match["code"].strip())
