"""Partition values a statement's spec gives that Spark stores as they are written, so that the metastore can be
asked for the matching partitions by those values directly (one call, ``MetastoreClient.partition_names``) instead
of by a ``SHOW PARTITIONS ... PARTITION (...)`` (a Spark statement of about 45 ms): the existence check of every
ALTER TABLE ADD / DROP PARTITION.

Spark casts a spec's values to the partition columns' types and stores the cast value's text (``p='01'`` on an INT
column is ``p=1``; a value that does not convert fails). Only values that are already that text are answered here:
an integer in its shortest form within its type's range, a valid ``yyyy-MM-dd`` date, a plain STRING (no collation,
not CHAR or VARCHAR, which pad or limit) made of letters, digits, ``_`` and ``-``: the metastore matches a pattern
built from the values and the column names, in which these characters stand for themselves (a column name of others,
``a.b`` or ``r s``, is left to Spark too). Anything else (NULL, ``''``, other types,
other characters) is left to Spark's statement, which casts and refuses as Spark does."""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping, Sequence

INTEGER_RANGES = {"tinyint": 2**7, "smallint": 2**15, "int": 2**31, "bigint": 2**63}
"""Each Spark integer type's bound: values from ``-bound`` to ``bound - 1``."""
_INTEGER = re.compile(r"0|-?[1-9][0-9]*")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_PLAIN_STRING = re.compile(r"[A-Za-z0-9_-]+")
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_]+")


def stored_as_written(spark_type: str, value: str | None) -> bool:
    """Whether Spark stores ``value``, given for a partition column of ``spark_type`` (Spark's type text), as it is
    written."""
    if value is None:
        return False
    kind = spark_type.strip().lower()
    if kind in INTEGER_RANGES:
        bound = INTEGER_RANGES[kind]
        return _INTEGER.fullmatch(value) is not None and -bound <= int(value) < bound
    if kind == "date":
        if _DATE.fullmatch(value) is None:
            return False
        try:
            datetime.date.fromisoformat(value)
        except ValueError:
            return False
        return True
    return kind == "string" and _PLAIN_STRING.fullmatch(value) is not None


def metastore_values(columns: Sequence[tuple[str, str]], spec: Mapping[str, str | None]) -> list[str] | None:
    """The values to ask the metastore for the partitions matching ``spec`` (partition column -> value, any case):
    one per partition column of ``columns`` ((name, Spark type) in order), ``""`` for one the spec leaves out; None
    where Spark's own statement must answer (a column the table lacks, a value not stored as written, no value)."""
    given = {key.lower(): value for key, value in spec.items()}
    names = {name.lower(): kind for name, kind in columns}
    if not given or not set(given) <= set(names) or not all(_PLAIN_NAME.fullmatch(name) for name in names):
        return None  # the pattern holds the column names too
    values = []
    for name, kind in columns:
        if name.lower() not in given:
            values.append("")
            continue
        value = given[name.lower()]
        if not stored_as_written(kind, value):
            return None
        assert value is not None  # stored as written
        values.append(value)
    return values
