"""What a statement returns: one family of results, so that every caller (the Python API, the SQL front end, the
CLI, replication) reads the same fields without guessing."""

from __future__ import annotations

import attrs

from actions.deletions import NameHold
from chains.binlog import BinlogEvent


@attrs.frozen
class StatementResult:
    """A statement's outcome. ``done``: False when it did nothing (``IF [NOT] EXISTS`` met an object as it should
    be); ``objects``: what it acted on (``db.name``, a database's name); ``event``: the binlog event of its commit
    (None with the binlog off, or when it did nothing); ``detail``: one line on how it went, for people; ``holds``: see
    below."""

    done: bool = True
    objects: tuple[str, ...] = ()
    event: BinlogEvent | None = None
    detail: str = ""
    holds: tuple[NameHold, ...] = ()
    """Directories the statement left at a table name's default directory for the grace period (a table plain
    Spark made, replaced or dropped): plain Spark cannot make a managed table of that name until each is due
    (``RELEASE TABLE NAME`` frees it now)."""

    @property
    def seq(self) -> int | None:
        """The binlog sequence of the commit (None: not binlogged)."""
        return None if self.event is None else self.event.seq

    def describe(self) -> str:
        """One line on how it went ("" when there is nothing to say beyond that it ran)."""
        return self.detail if self.done else "nothing to do"


NOTHING_DONE = StatementResult(done=False)
