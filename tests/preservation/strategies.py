"""Hypothesis strategies for table shapes: every part of a definition (format and OPTIONS, partitioning, bucketing
and sort columns, column comments with quotes and odd bytes, NOT NULL, DEFAULT, CHAR/VARCHAR/DECIMAL/nested types,
table comment and properties, MANAGED or EXTERNAL, Hive serde tables) and a few rows, NULLs and partitions included.

Every shape drawn is one plain Spark accepts (the strategies keep to Spark's rules: no nested type in CSV, bucket
and sort columns among the atomic data columns, partition columns of partitionable types), so that examples are not
wasted on shapes no statement could be asked about.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from hypothesis import strategies as st

from tests.preservation.shapes import DATA_SOURCES, HIVE_FORMATS, Buckets, Column, Shape, is_char, is_nested

ODD = "a'\"\\\t\nü漢🙂${};-*/% \x01Z"
"""Characters comments and properties are made of: quotes, backslash, control bytes, non-ASCII, a SQL comment
opener, Spark's variable-substitution syntax."""
DATA = "aZ'\"\\ ü漢%=/"
"""Characters of string values (no newline or field delimiter: text formats would split the row, on both sides)."""

ATOMIC = ("INT", "BIGINT", "STRING", "VARCHAR(3)", "CHAR(2)", "DECIMAL(5,2)", "DATE", "BOOLEAN", "DOUBLE")
NESTED = ("ARRAY<INT>", "MAP<STRING, INT>", "STRUCT<x: INT, y: STRING>")
PARTITION_TYPES = ("INT", "STRING", "DATE")
DATA_NAMES = ("a", "b", "c", "Mixed", "x y", "e_2")
PARTITION_NAMES = ("p", "Part", "q")
PROPERTY_KEYS = ("team", "odd.key", "k ü")
FORMATS = (*DATA_SOURCES, *HIVE_FORMATS)

odd_text = st.text(ODD, min_size=0, max_size=8)


def literal(sql_type: str) -> st.SearchStrategy[str]:
    """SQL literal text of one non-NULL value of ``sql_type`` (small ranges: a few rows, strings that fit)."""
    upper = sql_type.upper()
    if upper in ("INT", "BIGINT"):
        return st.integers(-300, 300).map(str)
    if upper == "STRING":
        return (st.text(DATA, max_size=4) | st.sampled_from(["7", "-42", "2024-02-29"])).map(quote)
    if is_char(upper):
        length = int(upper[upper.index("(") + 1: -1])
        return st.text(DATA, max_size=length).map(quote)
    if upper.startswith("DECIMAL"):
        return st.integers(-99999, 99999).map(lambda n: f"{n / 100:.2f}")
    if upper == "DATE":
        return st.dates(date(1901, 1, 1), date(2099, 12, 31)).map(lambda d: f"DATE'{d.isoformat()}'")
    if upper == "BOOLEAN":
        return st.sampled_from(["true", "false"])
    if upper == "DOUBLE":
        return st.sampled_from(["0.5D", "-1.25D", "1.0E10D", "3.0D"])
    if upper == "ARRAY<INT>":
        return st.lists(st.integers(-9, 9).map(str) | st.just("NULL"), min_size=1, max_size=2).map(
            lambda items: f"array({', '.join(items)})")
    if upper.startswith("MAP<"):
        return st.integers(-9, 9).map(lambda n: f"map('k', {n})")
    if upper.startswith("STRUCT<"):
        return st.tuples(st.integers(-9, 9), st.text(DATA, max_size=2)).map(
            lambda xy: f"named_struct('x', {xy[0]}, 'y', {quote(xy[1])})")
    raise AssertionError(f"no literal strategy for {sql_type}")


def quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


PARTITION_VALUES = {"INT": ("1", "2"), "STRING": ("'a'", "'b c'", "'x=/%'"), "DATE": ("DATE'2024-01-31'",)}
EMPTY_PARTITION_VALUES = {"INT": "9", "STRING": "'empty'", "DATE": "DATE'2030-12-31'"}


@st.composite
def data_column(draw: Any, name: str, fmt: str, *, comments: bool, not_null: bool,
                types: tuple[str, ...] | None) -> Column:
    allowed = types or (ATOMIC if fmt == "csv" else ATOMIC + NESTED)
    sql_type = draw(st.sampled_from(allowed))
    default = draw(st.none() | literal(sql_type)) if not is_nested(sql_type) and draw(st.integers(0, 3)) == 0 else None
    return Column(name, sql_type, not_null=not_null and draw(st.integers(0, 4)) == 0, default=default,
                  comment=draw(st.none() | odd_text) if comments else None)


@st.composite
def shapes(draw: Any, *, formats: tuple[str, ...] = FORMATS, partitions: tuple[int, int] = (0, 2),
           bucketed: bool | None = None, external: bool | None = None, comments: bool = True,
           options: bool = True, not_null: bool = True, empty_partition: bool = True,
           types: tuple[str, ...] | None = None, min_columns: int = 1, max_rows: int = 3) -> Shape:
    """A table shape. ``partitions``: the range of the number of partition columns; ``bucketed``, ``external``:
    True / False to force, None for either; ``comments`` (column comments), ``options`` (storage options),
    ``not_null``, ``empty_partition`` (a partition without rows): False leaves them out; ``types``: the data
    columns' types (default: every type the format takes)."""
    fmt = draw(st.sampled_from(formats))
    names = draw(st.lists(st.sampled_from(DATA_NAMES), min_size=min_columns, max_size=4, unique_by=str.lower))
    columns = [draw(data_column(name, fmt, comments=comments, not_null=not_null, types=types)) for name in names]
    partition_names = draw(st.lists(st.sampled_from(PARTITION_NAMES), min_size=partitions[0], max_size=partitions[1],
                                    unique_by=str.lower))
    for name in partition_names:
        comment = draw(st.none() | odd_text) if comments else None
        columns.append(Column(name, draw(st.sampled_from(PARTITION_TYPES)), comment=comment))
    atomic = [c.name for c in columns[: len(names)] if not is_nested(c.type)]
    buckets = None
    if atomic and bucketed is not False and (bucketed or draw(st.integers(0, 2)) == 0):
        buckets = Buckets(draw(st.integers(1, 4)), tuple(draw(st.lists(st.sampled_from(atomic), min_size=1,
                                                                        max_size=2, unique=True))),
                          tuple(draw(st.lists(st.sampled_from(atomic), max_size=2, unique=True))))
    rows = draw(st.lists(row(tuple(columns), len(partition_names), fmt in HIVE_FORMATS), max_size=max_rows))
    if fmt == "csv" and len(names) == 1:  # a lone NULL is an empty CSV line, which Spark's own reader skips
        rows = [r for r in rows if r[0] is not None]
    empty = None
    if partition_names and empty_partition and draw(st.integers(0, 2)) == 0:
        empty = tuple(EMPTY_PARTITION_VALUES[c.type] for c in columns[len(names):])
    return Shape(
        columns=tuple(columns), format=fmt, options=draw(storage_options(fmt)) if options else (),
        partition_count=len(partition_names),
        buckets=buckets, comment=draw(st.none() | odd_text),
        properties=tuple(sorted(draw(st.dictionaries(st.sampled_from(PROPERTY_KEYS), odd_text, max_size=2)).items())),
        external=draw(st.booleans()) if external is None else external, rows=tuple(rows), empty_partition=empty,
    )


@st.composite
def row(draw: Any, columns: tuple[Column, ...], partition_count: int, hive: bool) -> tuple[str | None, ...]:
    values: list[str | None] = []
    for index, column in enumerate(columns):
        if index >= len(columns) - partition_count:
            # Spark cannot read back a NULL partition of a DATE column, nor of any non-string column of a Hive table
            nullable = () if column.type == "DATE" or (hive and column.type != "STRING") else (None,)
            values.append(draw(st.sampled_from((*PARTITION_VALUES[column.type], *nullable))))
        elif column.not_null:
            values.append(draw(literal(column.type)))
        else:
            values.append(draw(st.none() | literal(column.type)))
    return tuple(values)


def storage_options(fmt: str) -> st.SearchStrategy[tuple[tuple[str, str], ...]]:
    """Storage options: a real one of the format and one the format ignores (kept all the same), or none."""
    known = {"parquet": ("compression", ("gzip", "zstd", "snappy")), "orc": ("compression", ("zlib", "snappy")),
             "json": ("dateFormat", ("yyyy-MM-dd",)), "csv": ("header", ("true", "false"))}
    if fmt == "hive-textfile":
        return st.sampled_from([(), (("field.delim", "|"),), (("field.delim", "\t"),)])
    if fmt in HIVE_FORMATS:
        return st.just(())
    key, choices = known[fmt]
    real = st.sampled_from(choices).map(lambda value: ((key, value),)) | st.just(())
    extra = odd_text.map(lambda value: (("x.note", value),)) | st.just(())
    return st.tuples(real, extra).map(lambda both: tuple(sorted(both[0] + both[1])))
