"""The generator's statements of every form of the refusal table (docs/limitations.md, "What the SQL front end
refuses"; :mod:`tests.differential.refusal_table`): issue 36 asks that each form left unrouted is not only listed but
written by the differential generator, so that the project's refusal (nothing changed) and its ``allow_non_atomic``
run (what Spark does as written) are compared with plain Spark like every other statement.

Each writer makes one statement of its form about the objects the model knows (or a missing one now and then, as a
user would); what it changes is what Spark does, so the model learns only what later statements need (a table made
with a LOCATION, a view with column comments). A form Spark itself refuses in the case drawn (SERDE of a data source
table, a partition spec of an unpartitioned table, double-quoted names with the setting off) fails alike on both
sides, which is a comparison too.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tests.differential.model import Column, Table
from tests.differential.phrases import chance, spec_values, values_rows
from tests.differential.script import Step, placeholder
from tests.differential.vocabulary import TABLES, VIEWS

if TYPE_CHECKING:
    from tests.differential.grammar import Writer

LOCATIONS = Path(tempfile.gettempdir()) / f"ddl-log-differential-locations-{os.getpid()}"
"""Where the LOCATION forms put their files: outside every warehouse, one directory per process (two test processes
may run scripts at once), each side under its own database's name (the placeholder in the path); the harness empties
it when it resets the sides."""


def load_data(w: Writer) -> Step:
    name, _ = w.table()
    return Step(f"LOAD DATA LOCAL INPATH '/nonexistent/differential.parquet' INTO TABLE {name.sql}", "documented")


def repair(w: Writer) -> Step:
    name, _ = w.table()
    return Step(w.rng.choice((f"MSCK REPAIR TABLE {name.sql}", f"REPAIR TABLE {name.sql} SYNC PARTITIONS",
                              f"ALTER TABLE {name.sql} RECOVER PARTITIONS")), "documented")


def insert_directory(w: Writer) -> Step:
    name, _ = w.table()
    local = "LOCAL " if chance(w.rng, 0.5) else ""
    target = LOCATIONS / f"{placeholder(w.model.current)}-directory"
    return Step(f"INSERT OVERWRITE {local}DIRECTORY '{target}' USING parquet SELECT * FROM {name.sql}", "documented")


def execute_immediate(w: Writer) -> Step:
    name, _ = w.table()
    if chance(w.rng, 0.25):
        return Step(f"BEGIN SELECT COUNT(*) FROM {name.sql}; END", "documented")
    return Step(f"EXECUTE IMMEDIATE 'SELECT COUNT(*) FROM {name.sql}'", "documented")


def multi_insert(w: Writer) -> Step:
    """A Hive multi-insert (here of one table, twice): the table's own rows appended twice more. (One INSERT after a
    leading FROM or WITH is routed: the grammar's inserts write it.)"""
    name, _ = w.table()
    if chance(w.rng, 0.5):
        return Step(f"FROM {name.sql} INSERT INTO {name.sql} SELECT * INSERT INTO {name.sql} SELECT *", "documented")
    return Step(f"WITH s AS (SELECT * FROM {name.sql}) FROM s INSERT INTO {name.sql} SELECT * "
                f"INSERT INTO {name.sql} SELECT *", "documented")


def located_table(w: Writer) -> Step:
    """A table whose files live outside the warehouse (Spark makes it external)."""
    name = w.model.pick_new(TABLES)
    where = LOCATIONS / f"{placeholder(name.db if name.db is not None else w.model.current)}-{name.ident.lower()}"
    w.model.add_table(name, Table([Column("a", "INT"), Column("b", "STRING")]))
    return Step(f"CREATE TABLE {name.sql} (a INT, b STRING) USING parquet LOCATION '{where}'", "documented")


def rename_partition(w: Writer) -> Step:
    name, table = w.table()
    if table is None or not table.partitioned:
        return Step(f"ALTER TABLE {name.sql} PARTITION (p = 1) RENAME TO PARTITION (p = 2)", "documented")
    return Step(f"ALTER TABLE {name.sql} PARTITION ({spec_values(w.rng, table)}) RENAME TO PARTITION "
                f"({spec_values(w.rng, table)})", "documented")


def serde(w: Writer) -> Step:
    name, table = w.table()
    spec = f" PARTITION ({spec_values(w.rng, table)})" if table and table.partitioned and chance(w.rng, 0.3) else ""
    if chance(w.rng, 0.5):
        return Step(f"ALTER TABLE {name.sql}{spec} SET SERDEPROPERTIES ('field.delim' = ',')", "documented")
    return Step(f"ALTER TABLE {name.sql}{spec} SET SERDE 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe'",
                "documented")


def overwrite_null_partition(w: Writer) -> Step:
    name, table = w.table()
    if table is None or not table.partitioned:
        return Step(f"INSERT OVERWRITE {name.sql} PARTITION (p = NULL) VALUES (1)", "documented")
    rows = values_rows(w.rng, table.data_columns())
    return Step(f"INSERT OVERWRITE {name.sql} PARTITION ({table.partitioned[0]} = NULL) {rows.text}", "documented")


def column_default(w: Writer) -> Step:
    name, table = w.table()
    column = w.rng.choice(table.data_columns()).sql if table is not None and table.data_columns() else "a"
    change = w.rng.choice(("DROP DEFAULT", "DROP NOT NULL", "SET NOT NULL"))
    return Step(f"ALTER TABLE {name.sql} ALTER COLUMN {column} {change}", "documented")


def database_comment(w: Writer) -> Step:
    db = placeholder(w.model.current)
    roll = w.rng.random()
    if roll < 0.4:
        return Step(f"ALTER DATABASE {db} SET DBPROPERTIES ('team' = 'etl')", "documented")
    if roll < 0.7:
        return Step(f"COMMENT ON DATABASE {db} IS 'the differential run'", "documented")
    name, table = w.table()
    column = table.data_columns()[0].sql if table is not None and table.data_columns() else "a"
    return Step(f"COMMENT ON COLUMN {name.sql}.{column} IS 'a column'", "documented")


def view_column_comment(w: Writer) -> Step:
    name = w.model.pick_new(VIEWS)
    w.model.add_view(name, ["x"])
    return Step(f"CREATE OR REPLACE VIEW {name.sql} (x COMMENT 'one') AS SELECT 1 AS one", "documented")


def computed_identifier(w: Writer) -> Step:
    name, _ = w.table()
    db = placeholder(name.db if name.db is not None else w.model.current)
    return Step(f"TRUNCATE TABLE IDENTIFIER(concat('{db}.', '{name.ident}'))", "documented")


def double_quoted(w: Writer) -> Step:
    """Names as double-quoted identifiers: names under ``spark.sql.ansi.doubleQuotedIdentifiers`` with ANSI on (the
    generator's settings turn both on now and then), a string literal where Spark fails to parse otherwise."""
    name, _ = w.table()
    db = placeholder(name.db if name.db is not None else w.model.current)
    return Step(f'TRUNCATE TABLE "{db}"."{name.ident}"', "documented")


def nested_column(w: Writer) -> Step:
    name, table = w.table()
    column = w.rng.choice(table.data_columns()).sql if table is not None and table.data_columns() else "a"
    return Step(f"ALTER TABLE {name.sql} ALTER COLUMN {column}.x COMMENT 'nested'", "documented")


def function_characteristics(w: Writer) -> Step:
    name = w.model.pick_function(existing=0.5)
    if chance(w.rng, 0.3):
        return Step(f"CREATE OR REPLACE FUNCTION {name.sql}() RETURNS TABLE (x INT) RETURN SELECT 1 AS x",
                    "documented")
    if w.model.exists(name.db):
        w.model.db(name.db).functions.add(name.ident.lower())
    said = w.rng.choice(("DETERMINISTIC", "NOT DETERMINISTIC", "CONTAINS SQL", "COMMENT 'adds one'"))
    return Step(f"CREATE OR REPLACE FUNCTION {name.sql}(x INT) RETURNS INT {said} RETURN x + 1", "documented")


FORMS: tuple[Callable[[Writer], Step], ...] = (
    load_data, repair, insert_directory, execute_immediate, multi_insert, located_table, rename_partition, serde,
    overwrite_null_partition, column_default, database_comment,
    view_column_comment, computed_identifier, double_quoted, nested_column,
    function_characteristics)
"""One writer per form of the refusal table."""


def documented(w: Writer) -> Step:
    """A statement of one of the refusal table's forms, each form as likely as the next."""
    return w.rng.choice(FORMS)(w)
