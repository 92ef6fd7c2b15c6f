"""The grammar of random DDL scripts, in one place: every statement form the generator writes, with its weight.

A script is what a user types into a notebook: mostly statements on objects that exist (the model,
:mod:`tests.differential.model`, steers names toward them), with the mistakes users make now and then (missing
objects, names in use, a view where a table is expected and the other way round, temporary views that shadow names,
types from other databases, columns that do not exist, values that do not fit) and session settings changed between
statements. ``generate(seed, length)`` always gives the same script for the same seed: the generator never looks at
Spark.

:data:`PRODUCTIONS` is the grammar: (name, weight, production). A production writes one :class:`Step` (or None when
it has nothing sensible to say, and another is drawn); the name groups the differences found by the statement kind.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from tests.differential.model import Column, Model, Table
from tests.differential.phrases import (
    Phrase,
    chance,
    column_definition,
    comment,
    new_table,
    partition_spec,
    properties,
    query,
    query_for,
    spec_some,
    spec_values,
    table_clauses,
    values_rows,
)
from tests.differential.refused_forms import documented
from tests.differential.script import MAIN, DropMany, Name, Rebuild, RenameMany, Replace, Step, placeholder
from tests.differential.vocabulary import (
    BAD_TYPES,
    DATA_COLUMNS,
    FORMATS,
    GOOD_TYPES,
    TABLES,
    TEMP_VIEWS,
    TYPE_CHANGES,
    VIEWS,
    literal,
)

UDF_CLASS = "'org.apache.hadoop.hive.ql.udf.generic.GenericUDFAbs'"


class Writer:
    """Writes statements from the grammar and keeps the model up to date with what they should do."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.model = Model(self.rng)

    def step(self) -> Step:
        if not self.model.existing_tables() and chance(self.rng, 0.7):
            found = self.rng.choice((create_table, create_as_select))(self)
            if found is not None:
                return found
        while True:
            _, _, production = self.rng.choices(PRODUCTIONS, weights=[weight for _, weight, _ in PRODUCTIONS])[0]
            found = production(self)
            if found is not None:
                return found

    def table(self, *, existing: float = 0.88) -> tuple[Name, Table | None]:
        name = self.model.pick_table(existing=existing)
        return name, self.model.lookup(name)


def generate(seed: int, length: int) -> list[Step]:
    """The script of ``seed``: ``length`` statements."""
    writer = Writer(seed)
    return [writer.step() for _ in range(length)]


# -- CREATE TABLE, CREATE OR REPLACE TABLE, REPLACE TABLE


def table_body(w: Writer) -> tuple[str, Table, bool, bool]:
    """What follows the name in CREATE TABLE: (text, table, mistake, spark_form) for a column list with clauses,
    AS SELECT, or LIKE (which the project alone knows with OR REPLACE)."""
    roll = w.rng.random()
    if roll < 0.55:
        table, columns = new_table(w.rng)
        clauses = table_clauses(w.rng, table, columns_given=True)
        return f"({columns.text}) {clauses.text}".strip(), table, columns.mistake or clauses.mistake, True
    if roll < 0.85:
        text, selected = query(w.rng, w.model)
        table = Table(list(selected))
        parts = [f"USING {w.rng.choice(FORMATS)}"] if chance(w.rng, 0.7) else []
        if any(column.ident == "p" for column in selected) and chance(w.rng, 0.6):
            parts.append("PARTITIONED BY (p)")
            table.partitioned = ["p"]
            table.columns = [c for c in selected if c.ident != "p"] + [c for c in selected if c.ident == "p"]
        if chance(w.rng, 0.15):
            parts.append(f"TBLPROPERTIES {properties(w.rng)}")
        said = comment(w.rng) if chance(w.rng, 0.1) else Phrase("")
        return " ".join(filter(None, [*parts, said.text, f"AS {text}"])), table, said.mistake, True
    source, found = w.table(existing=0.85)
    if chance(w.rng, 0.08) and w.model.temp_views:
        source = Name(w.rng.choice(sorted(w.model.temp_views)))
    text = f"LIKE {source.sql}"
    if chance(w.rng, 0.2):
        text += f" USING {w.rng.choice(FORMATS)}"
    if chance(w.rng, 0.15):
        text += f" TBLPROPERTIES {properties(w.rng)}"
    return text, Table(list(found.columns), list(found.partitioned)) if found else Table([]), found is None, False


def create_table(w: Writer) -> Step:
    name = w.model.pick_new(TABLES)
    body, table, mistake, _ = table_body(w)
    if_not_exists = "IF NOT EXISTS " if chance(w.rng, 0.15) else ""
    if not mistake:
        w.model.add_table(name, table)
    return Step(f"CREATE TABLE {if_not_exists}{name.sql} {body}", "create_table")


def create_as_select(w: Writer) -> Step:
    name = w.model.pick_new(TABLES)
    text, selected = query(w.rng, w.model)
    w.model.add_table(name, Table(list(selected)))
    using = f"USING {w.rng.choice(FORMATS)} " if chance(w.rng, 0.6) else ""
    return Step(f"CREATE TABLE {name.sql} {using}AS {text}", "create_table")


def create_or_replace(w: Writer) -> Step:
    replace = chance(w.rng, 0.25)
    name = w.model.pick_table(existing=0.75) if chance(w.rng, 0.8) else w.model.pick_new(TABLES)
    body, table, mistake, spark_form = table_body(w)
    verb = "REPLACE TABLE" if replace else "CREATE OR REPLACE TABLE"
    if chance(w.rng, 0.03):
        verb, mistake = "CREATE OR REPLACE TABLE IF NOT EXISTS", True
    if not mistake and (not replace or w.model.lookup(name) is not None):
        w.model.replace_table(name, table)
    production = "replace_table" if replace else "create_or_replace"
    return Step(f"{verb} {name.sql} {body}", production, Replace(name, body, replace, spark_form))


# -- data


def insert(w: Writer) -> Step:
    overwrite = chance(w.rng, 0.45)
    verb = "INSERT OVERWRITE TABLE" if overwrite and chance(w.rng, 0.5) else (
        "INSERT OVERWRITE" if overwrite else w.rng.choice(("INSERT INTO", "INSERT INTO TABLE")))
    name, table = w.table()
    if table is None:
        return Step(f"{verb} {name.sql} VALUES (1)", "insert_overwrite" if overwrite else "insert_into")
    columns = list(table.columns)
    spec = ""
    if table.partitioned and chance(w.rng, 0.6):
        spec, columns = partition_spec(w.rng, table, dynamic=chance(w.rng, 0.5))
        if overwrite and "=" in spec and spec.count("=") == len(table.partitioned) and chance(w.rng, 0.3):
            spec += " IF NOT EXISTS"
        if overwrite and chance(w.rng, 0.04):
            spec = f"PARTITION ({table.partitioned[0]} = NULL)"
        spec += " "
    production = "insert_overwrite" if overwrite else "insert_into"
    if chance(w.rng, 0.3):
        return Step(f"{verb} {name.sql} {spec}{named_columns(w.rng, columns)}", production)
    body = query_for(w.rng, w.model, name, columns)
    if chance(w.rng, 0.1):  # the query's CTE written before the INSERT, as Spark reads it too
        return Step(f"WITH s AS ({body.text}) {verb} {name.sql} {spec}SELECT * FROM s", production)
    return Step(f"{verb} {name.sql} {spec}{body.text}", production)


def named_columns(rng: random.Random, columns: list[Column]) -> str:
    """INSERT INTO's other ways of naming the columns: a column list (shuffled, some left out: Spark fills them with
    their defaults or NULL), or ``BY NAME`` (the query's aliases in another order)."""
    chosen = rng.sample(columns, rng.randint(1, len(columns))) if columns else []
    if chance(rng, 0.5):
        return "(" + ", ".join(c.sql for c in chosen) + ") " + values_rows(rng, chosen).text
    return "BY NAME SELECT " + (", ".join(f"{literal(rng, c.type)} AS {c.sql}" for c in chosen) or "1 AS x")


def truncate(w: Writer) -> Step:
    name, table = w.table()
    if table is not None and table.partitioned and chance(w.rng, 0.25):  # of some partition columns, or all
        spec = spec_some(w.rng, table) if chance(w.rng, 0.4) else spec_values(w.rng, table)
        return Step(f"TRUNCATE TABLE {name.sql} PARTITION ({spec})", "truncate")
    return Step(f"TRUNCATE TABLE {name.sql}", "truncate")


# -- ALTER TABLE


def alter_properties(w: Writer) -> Step:
    name, _ = w.table()
    if chance(w.rng, 0.65):
        return Step(f"ALTER TABLE {name.sql} SET TBLPROPERTIES {properties(w.rng)}", "alter_properties")
    if_exists = "IF EXISTS " if chance(w.rng, 0.5) else ""
    keys = w.rng.sample(("'team'", "'k'", "'note'", "'zz'"), w.rng.randint(1, 2))
    return Step(f"ALTER TABLE {name.sql} UNSET TBLPROPERTIES {if_exists}({', '.join(keys)})", "alter_properties")


def add_columns(w: Writer) -> Step:
    name, table = w.table()
    taken = {column.ident.lower() for column in table.columns} if table else set()
    free = [ident for ident in DATA_COLUMNS if ident.lower() not in taken]
    idents = w.rng.sample(free, min(len(free), w.rng.randint(1, 2))) if free else ["a"]
    mistake = table is None or not free
    if table and chance(w.rng, 0.08):
        idents, mistake = [table.columns[0].ident], True
    columns = [Column(ident, w.rng.choice(GOOD_TYPES)) for ident in idents]
    if chance(w.rng, 0.05):
        columns[0].type, mistake = w.rng.choice(BAD_TYPES), True
    texts = [column_definition(w.rng, column) for column in columns]
    if len(texts) == 1 and chance(w.rng, 0.4):
        text = f"ALTER TABLE {name.sql} ADD COLUMN {texts[0]}"
    else:
        text = f"ALTER TABLE {name.sql} {w.rng.choice(('ADD COLUMNS', 'ADD COLUMN'))} ({', '.join(texts)})"
    if not mistake and table is not None:
        data = table.data_columns()
        table.columns = data + columns + table.partition_columns()
    return Step(text, "add_columns")


def pick_column(w: Writer, table: Table | None, *, missing: float = 0.06) -> Column:
    if table is None or not table.columns or chance(w.rng, missing):
        return Column("zz", "INT")
    data = table.data_columns()
    if data and not chance(w.rng, 0.1):
        return w.rng.choice(data)
    return w.rng.choice(table.columns)


def column_comment(w: Writer) -> Step:
    name, table = w.table()
    column = pick_column(w, table)
    said = comment(w.rng)
    if chance(w.rng, 0.1):
        return Step(f"ALTER TABLE {name.sql} CHANGE COLUMN {column.sql} {column.sql} {column.type} {said.text}",
                    "column_comment")
    verb = w.rng.choice(("ALTER COLUMN", "CHANGE COLUMN", "ALTER"))
    return Step(f"ALTER TABLE {name.sql} {verb} {column.sql} {said.text}", "column_comment")


def column_type(w: Writer) -> Step:
    name, table = w.table()
    column = pick_column(w, table)
    choices = TYPE_CHANGES.get(column.type.upper(), ("STRING",))
    new_type = w.rng.choice(BAD_TYPES) if chance(w.rng, 0.05) else w.rng.choice(choices)
    verb = "ALTER COLUMN" if chance(w.rng, 0.8) else "CHANGE COLUMN"
    text = f"ALTER TABLE {name.sql} {verb} {column.sql} TYPE {new_type}"
    if table is not None and column in table.columns and new_type not in BAD_TYPES:
        column.type = new_type
    return Step(text, "column_type", Rebuild(name, (column.ident,), new_type))


def drop_columns(w: Writer) -> Step:
    name, table = w.table()
    columns = [pick_column(w, table)]
    if table is not None and len(table.data_columns()) > 2 and chance(w.rng, 0.3):
        columns = w.rng.sample(table.data_columns(), 2)
    if_exists = chance(w.rng, 0.15)
    listed = ", ".join(column.sql for column in columns)
    guard = "IF EXISTS " if if_exists else ""
    if len(columns) == 1 and chance(w.rng, 0.5):
        text = f"ALTER TABLE {name.sql} DROP COLUMN {guard}{listed}"
    else:
        text = f"ALTER TABLE {name.sql} DROP COLUMNS {guard}({listed})"
    if table is not None:
        kept = [column for column in table.columns if column not in columns]
        if kept and any(column.ident not in table.partitioned for column in kept):
            table.columns = kept
    return Step(text, "drop_columns", Rebuild(name, tuple(column.ident for column in columns), None, if_exists))


def partitions(w: Writer) -> Step:
    name, table = w.table()
    if table is None or not table.partitioned:
        return Step(f"ALTER TABLE {name.sql} ADD PARTITION (p = 1)", "add_partition")
    several = 1 + (chance(w.rng, 0.25) * w.rng.randint(1, 2))  # several partitions in one statement, as Spark's
    if chance(w.rng, 0.55):
        guard = "IF NOT EXISTS " if chance(w.rng, 0.3) else ""
        specs = " ".join(f"PARTITION ({spec_values(w.rng, table)})" for _ in range(several))
        return Step(f"ALTER TABLE {name.sql} ADD {guard}{specs}", "add_partition")
    guard = "IF EXISTS " if chance(w.rng, 0.3) else ""
    purge = " PURGE" if chance(w.rng, 0.05) else ""
    # a DROP's spec may name some of the partition columns: every partition it matches goes
    specs = ", ".join(f"PARTITION ({spec_some(w.rng, table) if chance(w.rng, 0.3) else spec_values(w.rng, table)})"
                      for _ in range(several))
    return Step(f"ALTER TABLE {name.sql} DROP {guard}{specs}{purge}", "drop_partition")


def rename(w: Writer) -> Step:
    old, _ = w.table()
    new = w.model.pick_new(TABLES)
    if chance(w.rng, 0.03) and w.model.current == MAIN:
        new = Name(new.ident, "x1")
    w.model.rename_table(old, new)
    return Step(f"ALTER TABLE {old.sql} RENAME TO {new.sql}", "rename")


def rename_many(w: Writer) -> Step:
    local = [written for key, written in w.model.existing_tables() if key == w.model.current]
    if len(local) >= 2 and chance(w.rng, 0.3):  # the swap users write: a -> x, b -> a, x -> b
        first, second = w.rng.sample(local, 2)
        a, b = w.model.name(first, w.model.current), w.model.name(second, w.model.current)
        pairs: tuple[tuple[Name, Name], ...] = ((a, Name("tmp_x")), (b, a), (Name("tmp_x"), b))
    else:
        pairs = tuple((w.model.pick_table(), w.model.pick_new(TABLES)) for _ in range(w.rng.randint(1, 2)))
        for old, new in pairs:
            w.model.rename_table(old, new)
    text = "RENAME TABLE " + ", ".join(f"{old.sql} TO {new.sql}" for old, new in pairs)
    return Step(text, "rename_many", RenameMany(pairs))


def drop_table(w: Writer) -> Step:
    name, _ = w.table(existing=0.85)
    if_exists = "IF EXISTS " if chance(w.rng, 0.3) else ""
    if chance(w.rng, 0.2):
        names = (name, w.model.pick_table(existing=0.8))
        w.model.drop_table(names[0])
        w.model.drop_table(names[1])
        return Step(f"DROP TABLE {if_exists}{names[0].sql}, {names[1].sql}", "drop_many",
                    DropMany("TABLE", names, bool(if_exists)))
    w.model.drop_table(name)
    purge = " PURGE" if chance(w.rng, 0.05) else ""
    return Step(f"DROP TABLE {if_exists}{name.sql}{purge}", "drop_table")


# -- views, functions, databases, settings


def create_view(w: Writer) -> Step:
    temporary = chance(w.rng, 0.15)
    name = Name(w.rng.choice(TEMP_VIEWS)) if temporary else w.model.pick_new(VIEWS)
    text, selected = query(w.rng, w.model)
    roll = w.rng.random()
    head = "CREATE OR REPLACE" if roll < 0.35 else "CREATE"
    guard = "IF NOT EXISTS " if head == "CREATE" and not temporary and chance(w.rng, 0.15) else ""
    kind = "TEMPORARY VIEW" if temporary else "VIEW"
    columns = ""
    if selected and chance(w.rng, 0.15):
        columns = " (" + ", ".join(f"c{index}" for index in range(len(selected))) + ")"
    extra = f" {comment(w.rng).text}" if chance(w.rng, 0.15) else ""
    if chance(w.rng, 0.1) and not temporary:
        extra += f" TBLPROPERTIES {properties(w.rng)}"
    if temporary:
        w.model.temp_views.add(name.ident)
    else:
        w.model.add_view(name, [f"c{i}" for i in range(len(selected))] if columns else [c.ident for c in selected])
    return Step(f"{head} {kind} {guard}{name.sql}{columns}{extra} AS {text}", "create_view")


def alter_view(w: Writer) -> Step:
    name = w.model.pick_view()
    roll = w.rng.random()
    if roll < 0.5:
        text, selected = query(w.rng, w.model)
        w.model.add_view(name, [column.ident for column in selected])
        return Step(f"ALTER VIEW {name.sql} AS {text}", "alter_view")
    if roll < 0.85:
        new = w.model.pick_new(VIEWS)
        w.model.rename_view(name, new)
        return Step(f"ALTER VIEW {name.sql} RENAME TO {new.sql}", "alter_view")
    return Step(f"ALTER VIEW {name.sql} SET TBLPROPERTIES {properties(w.rng)}", "alter_view")


def drop_view(w: Writer) -> Step:
    name = Name(w.rng.choice(TEMP_VIEWS)) if chance(w.rng, 0.1) else w.model.pick_view()
    if_exists = "IF EXISTS " if chance(w.rng, 0.3) else ""
    if chance(w.rng, 0.15):
        names = (name, w.model.pick_view())
        for each in names:
            w.model.drop_view(each)
        return Step(f"DROP VIEW {if_exists}{names[0].sql}, {names[1].sql}", "drop_many",
                    DropMany("VIEW", names, bool(if_exists)))
    w.model.drop_view(name)
    w.model.temp_views.discard(name.ident)
    return Step(f"DROP VIEW {if_exists}{name.sql}", "drop_view")


def function(w: Writer) -> Step:
    name = w.model.pick_function(existing=0.5)
    if chance(w.rng, 0.3):
        if_exists = "IF EXISTS " if chance(w.rng, 0.3) else ""
        w.model.db(name.db).functions.discard(name.ident.lower())
        return Step(f"DROP FUNCTION {if_exists}{name.sql}", "drop_function")
    head = w.rng.choice(("CREATE", "CREATE", "CREATE OR REPLACE"))
    guard = "IF NOT EXISTS " if head == "CREATE" and chance(w.rng, 0.2) else ""
    if w.model.exists(name.db):
        w.model.db(name.db).functions.add(name.ident.lower())
    if chance(w.rng, 0.15):
        return Step(f"{head} FUNCTION {guard}{name.sql} AS {UDF_CLASS}", "create_function")
    body = w.rng.choice(("x + 1", "x * 2", "CAST(x AS STRING)", "abs(x)"))
    returns = "STRING" if "STRING" in body else "INT"
    return Step(f"{head} FUNCTION {guard}{name.sql}(x INT) RETURNS {returns} RETURN {body}", "create_function")


def database(w: Writer) -> Step:
    key = w.model.pick_database()
    roll = w.rng.random()
    if roll < 0.4:
        guard = "IF NOT EXISTS " if chance(w.rng, 0.3) else ""
        said = f" {comment(w.rng).text}" if chance(w.rng, 0.2) else ""
        w.model.databases.setdefault(key, w.model.db(key))
        return Step(f"CREATE DATABASE {guard}{placeholder(key)}{said}", "database")
    if roll < 0.7:
        guard = "IF EXISTS " if chance(w.rng, 0.3) else ""
        mode = w.rng.choice(("", " CASCADE", " CASCADE", " RESTRICT"))
        if mode == " CASCADE" or not (w.model.db(key).tables or w.model.db(key).views):
            w.model.databases.pop(key, None)
        return Step(f"DROP DATABASE {guard}{placeholder(key)}{mode}", "database")
    target = MAIN if w.model.current != MAIN and chance(w.rng, 0.6) else key
    if w.model.exists(target):
        w.model.current = target
    return Step(f"USE {placeholder(target)}", "use")


SETTINGS = (("spark.sql.ansi.enabled", ("false", "true")),
            ("spark.sql.sources.default", ("json", "orc", "parquet")),
            ("spark.sql.sources.partitionOverwriteMode", ("dynamic", "static")),
            ("spark.sql.ansi.doubleQuotedIdentifiers", ("false", "true")))


def setting(w: Writer) -> Step:
    key, values = w.rng.choice(SETTINGS)
    return Step(f"SET {key}={w.rng.choice(values)}", "set")


PRODUCTIONS: tuple[tuple[str, int, Callable[[Writer], Step | None]], ...] = (
    ("create_table", 12, create_table),
    ("create_as_select", 3, create_as_select),
    ("create_or_replace", 10, create_or_replace),
    ("insert", 16, insert),
    ("truncate", 3, truncate),
    ("alter_properties", 5, alter_properties),
    ("add_columns", 4, add_columns),
    ("column_comment", 3, column_comment),
    ("column_type", 5, column_type),
    ("drop_columns", 3, drop_columns),
    ("partitions", 5, partitions),
    ("rename", 3, rename),
    ("rename_many", 2, rename_many),
    ("drop_table", 5, drop_table),
    ("create_view", 6, create_view),
    ("alter_view", 3, alter_view),
    ("drop_view", 3, drop_view),
    ("function", 4, function),
    ("database", 3, database),
    ("setting", 6, setting),
    ("documented", 3, documented),
)
"""The grammar: (name, weight, production)."""
