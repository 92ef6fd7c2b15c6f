"""Statements of a ``ddl-log binlog --sql`` script (FR5 of MySQL's WL#13355: replaying the binlog with a tool gives
the same atomic result): each carries its origin marker, ``/* ddl-log origin <origin> seq <n> id <identity> */``, the
one a replica's applied statements carry (:mod:`ddl_log.replication.origin`)."""

from __future__ import annotations

import attrs

from ddl_log.errors import UnsupportedStatementError
from ddl_log.frontends.sql.plan import PlannedStatement
from ddl_log.replication.origin import COMMENT


def replayed(plan: PlannedStatement, leading: str) -> PlannedStatement:
    """A statement of a ``ddl-log binlog --sql`` script keeps its origin marker (the comment before it) in its text,
    which its binlog event records: the replaying home then knows what it applied, and the executor skips what it
    applied before (:func:`~ddl_log.frontends.sql.execute.execute`). A RESTORE names a version of its home's own
    history, which another home does not number alike: refused (``replica run`` installs the version's files)."""
    marks = COMMENT.findall(leading)
    if not marks:
        return plan
    if plan.label == "RESTORE TABLE":
        raise UnsupportedStatementError(
            "RESTORE TABLE replayed from another home's binlog", line=plan.line, statement=plan.text,
            reason="a version number or time of the source's history means another version here; use "
                   "`ddl-log replica run --source HOME --until SEQ`, which installs the version the event recorded "
                   "(its files), or stop the script before it (`binlog --sql --until`)")
    return attrs.evolve(plan, text=f"{marks[-1]} {plan.text}")
