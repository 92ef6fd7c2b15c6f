"""Kept directories at a table name's default directory (:class:`~actions.deletions.NameHold`): the note that
explains one to whoever plain Spark's ``LOCATION_ALREADY_EXISTS`` sends there, and ``RELEASE TABLE NAME`` that
frees the name before its time.

Why they exist at all: a replaced or dropped table's old files stay for the grace period so that a query that listed
them before the change still reads them (README "Concurrent readers"). Spark's CREATE of a managed table needs its
directory absent or empty (``SessionCatalog.validateTableLocation``), and a table plain Spark made lives at
``<database>/<name>``, so both cannot hold at once for that directory: after the first replace or drop of such a
table, plain Spark cannot make a managed table of that name until the directory is deleted. The statement that
leaves one says so (:attr:`StatementResult.holds`, the dbt adapter's warning) and writes the note into it; the
operator who cannot wait runs ``RELEASE TABLE NAME db.t`` (``ddl-log release db.t``), which ends the grace period
of that directory alone.

RELEASE is not binlogged: it changes no catalog object and no table's rows, only deletes files no table uses. A
replica that has not yet copied that version's files stops as it does when the version expires
(``SourceVersionGoneError``); an event could not give them back."""

from __future__ import annotations

import contextlib
import shlex
import time
from collections.abc import Sequence
from typing import ClassVar

import attrs

from actions.context import ActionContext
from actions.deletions import NameHold, name_holds
from actions.errors import StatementFailedError
from actions.leftovers import kept_note
from actions.name_holds import claimed_locations
from actions.results import StatementResult
from chains.lock_keys import LockKeys
from ddl_log.engine.typed import Statement
from ddl_log.engine.version_statements import timestamp_text
from ddl_log.errors import (
    DirectoryInUseError,
    NameHeldByVersionError,
    NameKeptByAnotherHomeError,
    NothingToReleaseError,
)
from replace_table.plans.release import release_holds
from storage.catalogs.kept_directories import KEPT_NOTE, normalized_location, same_location
from storage.catalogs.names import TableName
from storage.errors import DDLLogError, LeftoverFilesError, NoSuchObjectError


def release_command(home: str, name: TableName) -> str:
    """The shell command that frees ``name`` (backquoted, and quoted for the shell, when it needs it)."""
    plain = all(part.replace("_", "").isalnum() and part.isascii() for part in (name.db, name.name))
    return f"ddl-log --home {shlex.quote(home)} release {name if plain else shlex.quote(name.quoted)}"


def held_directory_error(ctx: ActionContext, target: TableName, verb: str,
                         error: StatementFailedError) -> StatementFailedError:
    """``error`` explained when what made the statement fail is a kept version of ``target`` at the name's default
    directory, which the rename path moves the new table into (:class:`NameHeldByVersionError`); else ``error``."""
    cause = error.cause
    if not isinstance(cause, LeftoverFilesError) or cause.name != str(target) or not cause.location:
        return error
    at = normalized_location(cause.location)
    hold = next((hold for hold in name_holds(ctx.log) if hold.name == target and hold.owner == target
                 and normalized_location(hold.location) == at), None)
    if hold is not None:
        return NameHeldByVersionError(verb, str(target), location=hold.location, due=timestamp_text(hold.due))
    if any(normalized_location(hold.location) == at for hold in name_holds(ctx.log)):
        return error  # this home's, of another table: the engine's own words
    note = other_homes_note(ctx, cause.location)
    if note is None:
        return error
    return NameKeptByAnotherHomeError(verb, str(target), location=cause.location, note=note)


def other_homes_note(ctx: ActionContext, location: str) -> str | None:
    """:func:`~actions.leftovers.kept_note`, None also when it cannot be read (the refusal then keeps the
    engine's own words)."""
    with contextlib.suppress(DDLLogError):
        return kept_note(ctx.catalog.directories, location)
    return None


def hold_message(hold: NameHold, home: str) -> str:
    """One line for the statement's caller (the dbt adapter's warning, ``ddl-log sql``)."""
    return (f"the previous files of {hold.owner} stay at {hold.location} until {timestamp_text(hold.due)} for the "
            f"queries reading them: plain Spark (and plain dbt-spark) cannot create a managed table {hold.name} "
            f"until then (LOCATION_ALREADY_EXISTS); to free the name now: {release_command(home, hold.name)}")


def note_text(hold: NameHold, statement: str, home: str) -> str:
    """What :data:`~storage.catalogs.kept_directories.KEPT_NOTE` says: whose files, why kept, until when, and the
    command that frees the name now."""
    what = (f"version {hold.chain} of table {hold.owner} (RESTORE TABLE / UNDROP TABLE can bring it back until then)"
            if hold.version else f"the old files of table {hold.owner}")
    return (
        f"spark-ddl-log keeps this directory: {what}, as it was before this statement of the DDL log home {home}:\n"
        f"  {statement[:300]}\n"
        "A query that listed these files before that statement still reads them; they are deleted at "
        f"{timestamp_text(hold.due)} (writer's local time) by the home's next statement or recovery.\n"
        f"Until then plain Spark cannot create a managed table {hold.name}: its directory must be absent or empty "
        "(LOCATION_ALREADY_EXISTS). To free the name now (a query still reading these files then fails, and the "
        "version is gone):\n"
        f"  {release_command(home, hold.name)}\n"
        f"  (or the SQL statement RELEASE TABLE NAME {hold.name.quoted} through the DDL log)\n"
        "Deleting the directory by hand instead leaves the version listed with no files (ddl-log status).\n")


def explain_holds(ctx: ActionContext, positions: Sequence[int], home: str) -> tuple[NameHold, ...]:
    """After a statement whose chains are at ``positions`` committed: the directories it left at a table name's
    default directory (confirmed by the catalog), each given its note; a version RESTORE or UNDROP made the table's
    again loses its note. Best effort: the statement has committed, so a failure here only leaves a note out."""
    catalog = ctx.catalog
    if not positions:
        return ()
    log = ctx.log
    confirmed: list[NameHold] = []
    with contextlib.suppress(DDLLogError, OSError):
        for location in claimed_locations(ctx, positions):
            catalog.directories.remove_kept_note(location)
        now = time.time()
        for hold in name_holds(log, positions):
            default = catalog.names.default_location(hold.name) if hold.due > now else None
            if not same_location(default, hold.location):
                continue
            catalog.directories.write_kept_note(hold.location, note_text(hold, log.chain(hold.chain).statement, home))
            confirmed.append(hold)
    return tuple(confirmed)


@attrs.frozen(kw_only=True)
class ReleaseResult(StatementResult):
    """RELEASE TABLE NAME: ``location`` the directory freed; ``released`` the deletion chains (version numbers) that
    kept it; ``kept``: why the directory stayed after all (something registered it meanwhile), else None."""

    location: str
    released: tuple[int, ...]
    kept: str | None = None


@attrs.frozen(kw_only=True)
class ReleaseTableName(Statement):
    """RELEASE TABLE NAME db.t: delete now what this home keeps at ``db.t``'s default directory (a replaced or
    dropped version waiting for its grace period), after proving no table, partition or database uses it, so that
    plain Spark can make a managed table ``db.t``. Refused, changing nothing, when nothing is kept there or
    something uses it. The table ``db.t`` itself, if there is one elsewhere, is not touched."""

    label: ClassVar[str] = "RELEASE TABLE NAME"
    name: TableName

    @classmethod
    def of(cls, name: str | TableName, *, text: str | None = None) -> ReleaseTableName:
        return cls(name=TableName.of(name), text=text)

    def canonical_text(self) -> str:
        return f"RELEASE TABLE NAME {self.name.quoted}"

    def lock_keys(self) -> LockKeys:
        """The whole database: which tables' versions sit at the directory is read from the log only once the
        statement runs, and no RESTORE, UNDROP or deletion of them may run beside it."""
        return LockKeys.database(self.name.db)

    def run(self, ctx: ActionContext) -> ReleaseResult:
        catalog = ctx.catalog
        location = catalog.names.default_location(self.name)
        if location is None:
            raise NoSuchObjectError.database(f"cannot release {self.name}: database {self.name.db} does not exist",
                                    self.name.db)
        target = normalized_location(location)
        holds = [hold for hold in name_holds(ctx.log) if normalized_location(hold.location) == target]
        if not holds:
            raise NothingToReleaseError(
                f"nothing this home keeps is at {location}, the default directory of {self.name} (ddl-log status "
                f"lists what is kept; a {KEPT_NOTE} file there names the home that keeps it); other files there "
                "are no version's: if no table uses them (e.g. what a killed plain Spark CTAS left), remove them by "
                "hand", str(self.name))
        user = catalog.directories.directory_user(location)
        if user is not None:
            raise DirectoryInUseError(f"cannot release {location}, the default directory of {self.name}: {user}",
                                      str(self.name))
        kept = release_holds(ctx, self.binlog_text, holds, location, verb=self.label, subject=str(self.name))
        released = tuple(hold.chain for hold in holds)
        return ReleaseResult(objects=(str(self.name),), location=location, released=released, kept=kept,
                             detail=f"released {location} (kept by chain {', '.join(map(str, released))})"
                             + (f"; {kept}" if kept else ""))


__all__ = ["KEPT_NOTE", "ReleaseResult", "ReleaseTableName", "explain_holds", "hold_message", "release_command"]
