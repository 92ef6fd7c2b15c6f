"""Which Spark line the tests run on, asked one way: ``at_least(spark.version, (4, 1))``."""

from __future__ import annotations

import re

SAVE_AS_V1_TABLE_PLANNED = (4, 1)
"""The line from which a JVM ``saveAsTable`` is a plan (``SaveAsV1TableCommand``, SPARK-52451) and the TIME type and
its setting exist."""

PARAMETERS_WRITTEN_IN = (4, 1)
"""The line from which Spark's parser writes the values of ``spark.sql(text, args)`` into the text before it parses
(``ParameterHandler``); 4.0 binds them while analysing."""

DROP_TABLE_DROPS_VIEWS = (4, 2)
"""The line from which Spark's ``DROP TABLE`` of a view drops it and ``DROP FUNCTION`` of a missing function fails
with ``ROUTINE_NOT_FOUND`` (4.0 and 4.1: refused with ``WRONG_COMMAND_FOR_OBJECT_TYPE``; ``UNRESOLVED_ROUTINE``)."""


def line_of(version: str) -> tuple[int, int]:
    """The ``(major, minor)`` of a Spark version text (``4.1.0-preview2`` -> ``(4, 1)``)."""
    found = re.match(r"(\d+)\.(\d+)", version)
    if found is None:
        raise ValueError(f"not a Spark version: {version!r}")
    return int(found.group(1)), int(found.group(2))


def at_least(version: str, line: tuple[int, int]) -> bool:
    """Whether Spark ``version`` is of ``line`` or newer."""
    return line_of(version) >= line
