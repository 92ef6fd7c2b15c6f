"""The pieces statements are made of (column lists, table clauses, queries, VALUES rows, partition specs), for the
productions of :mod:`tests.differential.grammar`.

Each builder may slip in one user mistake with a small probability and says so (``Phrase.mistake``), so that a
statement carries at most one deliberate mistake and the model is only updated for statements expected to work.
"""

from __future__ import annotations

import random

import attrs

from tests.differential.model import Column, Model, Table
from tests.differential.script import Name
from tests.differential.vocabulary import (
    BAD_TYPES,
    COMMENTS,
    DATA_COLUMNS,
    FORMATS,
    GOOD_TYPES,
    PARTITION_COLUMNS,
    PROPERTIES,
    RESERVED_PROPERTY,
    literal,
    partition_literal,
)


@attrs.frozen
class Phrase:
    text: str
    mistake: bool = False


def chance(rng: random.Random, probability: float) -> bool:
    return rng.random() < probability


def comment(rng: random.Random) -> Phrase:
    text = rng.choice(COMMENTS)
    return Phrase(f"COMMENT {text}", mistake="''s" in text)


def properties(rng: random.Random) -> str:
    """A property list; now and then with a property Spark reserves (a mistake it refuses whatever the table)."""
    chosen = rng.sample(PROPERTIES, rng.randint(1, 2))
    if chance(rng, 0.03):
        chosen.append(RESERVED_PROPERTY)
    return "(" + ", ".join(f"{key} = {value}" if chance(rng, 0.7) else f"{key} {value}" for key, value in chosen) + ")"


def column_definition(rng: random.Random, column: Column, *, options: bool = True) -> str:
    """``name TYPE [NOT NULL] [DEFAULT v] [COMMENT 'c']``."""
    parts = [column.sql, column.type]
    if options and chance(rng, 0.07):
        parts.append("NOT NULL")
    if options and chance(rng, 0.07) and not column.type.upper().startswith(("ARRAY", "MAP", "STRUCT")):
        parts.append(f"DEFAULT {literal(rng, column.type)}")
    if options and chance(rng, 0.2):
        parts.append(comment(rng).text)
    return " ".join(parts)


def new_table(rng: random.Random) -> tuple[Table, Phrase]:
    """A table's columns (data columns, then maybe partition columns) and its column list; the mistakes: a type
    Spark refuses, a column named twice (in another case)."""
    idents = rng.sample(DATA_COLUMNS, rng.randint(1, 4))
    columns = [Column(ident, rng.choice(GOOD_TYPES)) for ident in idents]
    mistake = False
    if chance(rng, 0.07):
        rng.choice(columns).type = rng.choice(BAD_TYPES)
        mistake = True
    elif chance(rng, 0.03):
        columns.append(Column(columns[0].ident.upper(), "INT"))
        mistake = True
    partitioned: list[str] = []
    if chance(rng, 0.3):
        for ident, type_text in PARTITION_COLUMNS[: rng.randint(1, 2)]:
            columns.append(Column(ident, type_text))
            partitioned.append(ident)
    texts = [column_definition(rng, column) for column in columns]
    if "''s" in " ".join(texts):
        mistake = True
    return Table(columns, partitioned), Phrase(", ".join(texts), mistake)


def table_clauses(rng: random.Random, table: Table, *, columns_given: bool) -> Phrase:
    """``[USING f] [OPTIONS] [PARTITIONED BY] [CLUSTERED BY .. SORTED BY .. INTO n BUCKETS] [COMMENT]
    [TBLPROPERTIES]``, the clauses after USING in any order (Spark takes any); the mistakes: PARTITIONED BY before
    USING, a partition column that is not a column, COMMENT with SQL-standard quote doubling."""
    using = f"USING {rng.choice(FORMATS)}" if chance(rng, 0.7) else ""
    clauses: list[str] = []
    mistake = False
    if using and chance(rng, 0.1):
        clauses.append(f"OPTIONS ({rng.choice(PROPERTIES)[0]} = 'x')")
    partition = ""
    if table.partitioned:
        partition = f"PARTITIONED BY ({', '.join(column.sql for column in table.partition_columns())})"
        if chance(rng, 0.03):
            partition, mistake = "PARTITIONED BY (zz)", True
        clauses.append(partition)
    data = table.data_columns()
    if columns_given and data and chance(rng, 0.08):
        bucket = f"CLUSTERED BY ({data[0].sql})"
        if len(data) > 1 and chance(rng, 0.5):
            bucket += f" SORTED BY ({data[-1].sql})"
        clauses.append(f"{bucket} INTO {rng.choice((2, 4))} BUCKETS")
        table.bucketed = True
    if chance(rng, 0.2):
        said = comment(rng)
        clauses.append(said.text)
        mistake = mistake or said.mistake
    if chance(rng, 0.2):
        clauses.append(f"TBLPROPERTIES {properties(rng)}")
    rng.shuffle(clauses)
    if using and partition and chance(rng, 0.04):
        clauses.remove(partition)
        return Phrase(" ".join([partition, using, *clauses]), True)
    return Phrase(" ".join([using, *clauses]).strip(), mistake)


def query(rng: random.Random, model: Model) -> tuple[str, list[Column]]:
    """A query as users write them: from a table or view (which may be missing), from literals, from range()."""
    roll = rng.random()
    if roll < 0.55:
        source = model.pick_table(existing=0.92)
        table = model.lookup(source)
        columns = list(table.columns) if table else [Column(ident, "STRING") for ident in model.columns_of(source)]
        if columns and chance(rng, 0.3):
            chosen = rng.sample(columns, rng.randint(1, len(columns)))
            return f"SELECT {', '.join(column.sql for column in chosen)} FROM {source.sql}", chosen
        where = " WHERE 1 = 1" if chance(rng, 0.2) else ""
        return f"SELECT * FROM {source.sql}{where}", columns
    if roll < 0.85:
        columns = [Column("a", "INT"), Column("b", "STRING")]
        text = f"SELECT {rng.choice((1, 2, 7))} AS a, {literal(rng, 'STRING')} AS b"
        if chance(rng, 0.4):
            columns.append(Column("p", "INT"))
            text += f", {rng.choice((1, 2))} AS p"
        return text, columns
    return ("SELECT CAST(id AS INT) AS a, CAST(id % 2 AS INT) AS p FROM range(3)",
            [Column("a", "INT"), Column("p", "INT")])


def values_rows(rng: random.Random, columns: list[Column]) -> Phrase:
    """``VALUES (...), (...)`` for ``columns``; the mistake: a value that does not fit its column."""
    bad = chance(rng, 0.07) and bool(columns)
    bad_at = rng.randrange(len(columns)) if bad else -1
    rows = []
    for _ in range(rng.randint(1, 3)):
        values = [literal(rng, column.type, bad=index == bad_at) for index, column in enumerate(columns)]
        rows.append("(" + ", ".join(values) + ")")
    return Phrase("VALUES " + ", ".join(rows), bad)


def partition_spec(rng: random.Random, table: Table, *, dynamic: bool) -> tuple[str, list[Column]]:
    """``PARTITION (p=1, q='x')`` (static) or with the last column without value (dynamic); the columns the query
    must still yield."""
    parts = table.partition_columns()
    static = parts[: rng.randint(0, len(parts) - 1)] if dynamic else parts
    spec = [f"{column.sql} = {partition_literal(rng, column.type)}" for column in static]
    spec += [column.sql for column in parts if column not in static]
    remaining = [column for column in table.columns if column not in static]
    return f"PARTITION ({', '.join(spec)})", remaining


def spec_values(rng: random.Random, table: Table) -> str:
    """A full static spec for ADD/DROP PARTITION and TRUNCATE ... PARTITION."""
    return ", ".join(f"{column.sql} = {partition_literal(rng, column.type)}" for column in table.partition_columns())


def spec_some(rng: random.Random, table: Table) -> str:
    """A spec of some of the partition columns (any order): a DROP PARTITION or TRUNCATE ... PARTITION of every
    partition it matches."""
    columns = table.partition_columns()
    return ", ".join(f"{column.sql} = {partition_literal(rng, column.type)}"
                     for column in rng.sample(columns, rng.randint(1, len(columns))))


def query_for(rng: random.Random, model: Model, target: Name, columns: list[Column]) -> Phrase:
    """A query whose rows fit ``columns`` of ``target``: VALUES, or a SELECT of another table (which may not fit)."""
    if not columns:
        return Phrase("VALUES (1)")
    if chance(rng, 0.75) or not model.existing_tables():
        return values_rows(rng, columns)
    text, _ = query(rng, model)
    return Phrase(text)
