"""The statements under test, each drawn together with the shape it runs on. A case renders the statement as the
SQL text both plain Spark and the project's SQL front end run (or as the equivalent Python API call), and its repr
is the whole reproduction: the shape's script, the session settings, the statement.
"""

from __future__ import annotations

from typing import Any

import attrs
from hypothesis import reject
from hypothesis import strategies as st

from tests.preservation.shapes import Column, Shape, ident, is_nested, select_values, sql_string
from tests.preservation.strategies import PARTITION_VALUES, literal, odd_text, row, shapes

ANSI_OFF = {"spark.sql.ansi.enabled": "false"}
DYNAMIC = {"spark.sql.sources.partitionOverwriteMode": "dynamic"}

TYPE_CHANGES = {
    "INT": ("BIGINT", "STRING", "DECIMAL(10,0)", "DOUBLE", "SMALLINT", "DATE", "VARCHAR(3)"),
    "BIGINT": ("INT", "STRING", "DECIMAL(4,1)"),
    "STRING": ("INT", "VARCHAR(3)", "CHAR(5)", "DATE", "VARCHAR(20)"),
    "VARCHAR(3)": ("STRING", "VARCHAR(5)", "CHAR(3)", "VARCHAR(1)"),
    "CHAR(2)": ("STRING", "VARCHAR(2)", "CHAR(4)"),
    "DECIMAL(5,2)": ("DECIMAL(10,2)", "DECIMAL(4,1)", "STRING", "INT", "DOUBLE"),
    "DATE": ("STRING", "TIMESTAMP"),
    "BOOLEAN": ("INT", "STRING"),
    "DOUBLE": ("DECIMAL(5,2)", "STRING", "INT"),
    "ARRAY<INT>": ("ARRAY<BIGINT>", "STRING"),
    "MAP<STRING, INT>": ("MAP<STRING, BIGINT>",),
    "STRUCT<x: INT, y: STRING>": ("STRUCT<x: BIGINT, y: STRING>", "STRING"),
}
"""For each declared type, the types an ALTER COLUMN ... TYPE may ask for: widening, narrowing, to and from text,
CHAR/VARCHAR lengths, and a few that cannot convert (INT to DATE)."""


def _settings_lines(settings: dict[str, str]) -> list[str]:
    return [f"SET {key}={value}" for key, value in settings.items()]


@attrs.frozen(repr=False)
class Case:
    """A shape and a statement on it (``t`` in the repr; the tables' real names differ per example)."""

    shape: Shape

    def statement(self, table: str) -> str:
        raise NotImplementedError

    @property
    def settings(self) -> dict[str, str]:
        """Session settings while the statement runs (plain Spark's and the project's)."""
        return {}

    def preamble(self) -> str:
        """What comes between the shape's script and the statement in the repr."""
        return ""

    def __repr__(self) -> str:
        lines = [self.shape.script(), self.preamble(), *_settings_lines(self.settings), self.statement("t")]
        return ";\n".join(line for line in lines if line)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """Hypothesis prints a falsifying example with this: the reproduction script, not the attrs fields."""
        for index, line in enumerate(repr(self).splitlines()):
            if index:
                printer.break_()
            printer.text(line)


@attrs.frozen(repr=False)
class AlterType(Case):
    column: str = ""
    type: str = ""
    ansi: bool = True

    def statement(self, table: str) -> str:
        return f"ALTER TABLE {table} ALTER COLUMN {ident(self.column)} TYPE {self.type}"

    @property
    def settings(self) -> dict[str, str]:
        return {} if self.ansi else ANSI_OFF


@attrs.frozen(repr=False)
class DropColumns(Case):
    columns: tuple[str, ...] = ()

    def statement(self, table: str) -> str:
        if len(self.columns) == 1:
            return f"ALTER TABLE {table} DROP COLUMN {ident(self.columns[0])}"
        return f"ALTER TABLE {table} DROP COLUMNS ({', '.join(map(ident, self.columns))})"


@attrs.frozen(repr=False)
class Truncate(Case):
    via: str = "sql"

    def statement(self, table: str) -> str:
        return f"TRUNCATE TABLE {table}" + ("  -- truncate_table()" if self.via == "api" else "")


@attrs.frozen(repr=False)
class InsertOverwrite(Case):
    """``spec``: the PARTITION clause, each partition column with its static value (raw text) or None (dynamic);
    None: no PARTITION clause. ``mode``: the partition overwrite mode, None for the session's default. ``via``:
    ``sql`` (a script, ``SET`` first when a mode is given) or ``api`` (``insert_overwrite(..., overwrite_mode=)``,
    the session left at its default)."""

    spec: tuple[tuple[str, str | None], ...] | None = None
    if_not_exists: bool = False
    mode: str | None = None
    via: str = "sql"
    rows: tuple[tuple[str | None, ...], ...] = ()

    @property
    def settings(self) -> dict[str, str]:
        return DYNAMIC if self.mode == "dynamic" else {"spark.sql.sources.partitionOverwriteMode": "static"} \
            if self.mode == "static" else {}

    @property
    def selected(self) -> tuple[Column, ...]:
        """The columns the query yields: every column but the static partition columns, in table order."""
        static = {name for name, value in self.spec or () if value is not None}
        return tuple(c for c in self.shape.columns if c.name not in static)

    def query(self) -> str:
        return select_values(self.rows, self.selected)

    def partition(self) -> dict[str, str | None] | None:
        return None if self.spec is None else dict(self.spec)

    def statement(self, table: str) -> str:
        text = f"INSERT OVERWRITE TABLE {table}"
        if self.spec is not None:
            text += " PARTITION (" + ", ".join(ident(name) if value is None else f"{ident(name)} = {sql_string(value)}"
                                               for name, value in self.spec) + ")"
        if self.if_not_exists:
            text += " IF NOT EXISTS"
        suffix = f"  -- insert_overwrite(overwrite_mode={self.mode!r})" if self.via == "api" else ""
        return f"{text} {self.query()}{suffix}"


@attrs.frozen(repr=False)
class InsertInto(InsertOverwrite):
    """INSERT INTO [PARTITION (...)] with the same forms (no IF NOT EXISTS, no mode: nothing is replaced)."""

    def statement(self, table: str) -> str:
        text = super().statement(table).replace("INSERT OVERWRITE TABLE", "INSERT INTO TABLE", 1)
        return text.replace(f"-- insert_overwrite(overwrite_mode={self.mode!r})", "-- insert_into()")


@attrs.frozen(repr=False)
class ReplaceLike(Case):
    """CREATE OR REPLACE TABLE t LIKE s: ``shape`` is t's old shape, ``source`` is s."""

    source: Shape = attrs.field(factory=lambda: Shape(columns=(Column("a", "INT"),)))
    via: str = "sql"

    def preamble(self) -> str:
        return self.source.script("s", "<tmp>/s")

    def statement(self, table: str, source: str = "s") -> str:
        suffix = "  -- create_or_replace_table(like=)" if self.via == "api" else ""
        return f"CREATE OR REPLACE TABLE {table} LIKE {source}{suffix}"


@attrs.frozen(repr=False)
class ReplaceAsSelect(Case):
    """CREATE OR REPLACE TABLE t [USING f] [PARTITIONED BY (...)] [COMMENT c] [TBLPROPERTIES (...)] AS SELECT
    <columns> FROM t: the new table is made from the old one's rows."""

    selected: tuple[str, ...] = ()
    using: str | None = None
    partitioned_by: tuple[str, ...] = ()
    comment: str | None = None
    properties: tuple[tuple[str, str], ...] = ()
    via: str = "sql"

    def query(self, source: str) -> str:
        return f"SELECT {', '.join(map(ident, self.selected))} FROM {source}"

    def clauses(self) -> str:
        parts = []
        if self.using:
            parts.append(f"USING {self.using}")
        if self.partitioned_by:
            parts.append(f"PARTITIONED BY ({', '.join(map(ident, self.partitioned_by))})")
        if self.comment is not None:
            parts.append(f"COMMENT {sql_string(self.comment)}")
        if self.properties:
            parts.append("TBLPROPERTIES (" + ", ".join(f"{sql_string(k)} = {sql_string(v)}"
                                                       for k, v in self.properties) + ")")
        return " ".join(parts)

    def statement(self, table: str, source: str | None = None, *, or_replace: bool = True) -> str:
        head = "CREATE OR REPLACE TABLE" if or_replace else "CREATE TABLE"
        suffix = "  -- create_or_replace_table(as_select=)" if self.via == "api" and or_replace else ""
        return " ".join(p for p in (head, table, self.clauses(), "AS", self.query(source or table)) if p) + suffix


# -- strategies


@st.composite
def alter_types(draw: Any, *, ansi: bool = True, to: tuple[str, ...] | None = None,
                altered_default: bool | None = None, altered_comment: bool | None = None,
                **space: Any) -> AlterType:
    """A shape and an ALTER COLUMN ... TYPE on one of its columns (partition columns too). ``to``: only these target
    types; ``ansi``: the statement's session setting; ``altered_default`` / ``altered_comment``: True gives the
    altered column a DEFAULT / a comment, False picks a column without one, None either."""
    shape = draw(shapes(**space))
    columns = list(shape.data_columns if altered_default else shape.columns)
    for wanted, attribute in ((altered_default, "default"), (altered_comment, "comment")):
        if wanted is False:
            columns = [c for c in columns if getattr(c, attribute) is None]
    choices = [(c.name, t) for c in columns if not (altered_default and is_nested(c.type))
               for t in TYPE_CHANGES[c.type] if to is None or t in to]
    if not choices:
        reject()
    column, sql_type = draw(st.sampled_from(choices))
    chosen = shape.column(column)
    if altered_default and chosen.default is None:
        chosen = attrs.evolve(chosen, default=draw(literal(chosen.type)))
    if altered_comment and not chosen.comment:
        chosen = attrs.evolve(chosen, comment=draw(odd_text.filter(bool)))
    shape = attrs.evolve(shape, columns=tuple(chosen if c.name == column else c for c in shape.columns))
    return AlterType(shape, column, sql_type, ansi)


@st.composite
def unconvertible_alters(draw: Any, **space: Any) -> AlterType:
    """ALTER COLUMN s TYPE INT of a STRING column holding a value that is no number, with ANSI off in the session:
    under ANSI rules the value does not convert, so the statement must fail whatever the session says."""
    shape = draw(shapes(types=("STRING",), **space))
    column = attrs.evolve(shape.data_columns[0], default=None)
    extra = tuple("'x'" if c in shape.data_columns else PARTITION_VALUES[c.type][0] for c in shape.columns)
    shape = attrs.evolve(shape, columns=(column, *shape.columns[1:]), rows=(*shape.rows, extra))
    return AlterType(shape, column.name, "INT", ansi=False)


@st.composite
def drop_columns(draw: Any, *, bucket_column: bool | None = None, **space: Any) -> DropColumns:
    """A shape with at least two columns and a DROP COLUMN[S] of one or two of them (partition columns too).
    ``bucket_column``: True drops a bucket or sort column (of a bucketed shape), False none, None either."""
    shape = draw(shapes(min_columns=2, **{**space, **({"bucketed": True} if bucket_column else {})}))
    bucketing = set() if shape.buckets is None else {*shape.buckets.columns, *shape.buckets.sort}
    names = [c.name for c in shape.columns if bucket_column is not False or c.name not in bucketing]
    if not names:
        reject()
    dropped = draw(st.lists(st.sampled_from(names), min_size=1, max_size=2, unique=True))
    if bucket_column and not bucketing & set(dropped):
        dropped[0] = draw(st.sampled_from(sorted(bucketing)))
        dropped = list(dict.fromkeys(dropped))
    return DropColumns(shape, tuple(dropped))


@st.composite
def truncates(draw: Any, **space: Any) -> Truncate:
    return Truncate(draw(shapes(**space)), draw(st.sampled_from(["sql", "api"])))


STATIC_VALUES = {"INT": ("1", "2", "9", "3"), "STRING": ("a", "b c", "x=/%", "empty", "new"),
                 "DATE": ("2024-01-31", "2030-12-31", "2031-01-01")}
"""Static partition values: the ones rows are drawn from, the empty partition's, and new ones."""


@st.composite
def insert_overwrites(draw: Any, **space: Any) -> InsertOverwrite:
    """Every form: the whole table, ``PARTITION (a=1)``, ``(a=1, b)``, ``(a, b)``, IF NOT EXISTS; static,
    dynamic or the session's default mode; through SQL or the Python API; with rows or none."""
    shape = draw(shapes(**space))
    spec = None
    if shape.partition_columns and draw(st.booleans()):
        static_count = draw(st.integers(0, len(shape.partition_columns)))
        spec = tuple((c.name, draw(st.sampled_from(STATIC_VALUES[c.type])) if i < static_count else None)
                     for i, c in enumerate(shape.partition_columns))
    full = spec is not None and all(value is not None for _, value in spec)
    if_not_exists = full and draw(st.booleans())
    static = {name for name, value in spec or () if value is not None}
    chosen = tuple(c for c in shape.columns if c.name not in static)
    dynamic_count = sum(1 for c in shape.partition_columns if c.name not in static)
    rows = draw(st.lists(row(chosen, dynamic_count, shape.hive), max_size=3))
    return InsertOverwrite(shape, spec, if_not_exists, draw(st.sampled_from([None, "static", "dynamic"])),
                           draw(st.sampled_from(["sql", "api"])), tuple(rows))


@st.composite
def insert_intos(draw: Any, **space: Any) -> InsertInto:
    """The forms of :func:`insert_overwrites` that INSERT INTO has, through SQL or the Python API."""
    case = draw(insert_overwrites(**space))
    return InsertInto(case.shape, case.spec, False, None, case.via, case.rows)


@st.composite
def replace_likes(draw: Any, **space: Any) -> ReplaceLike:
    return ReplaceLike(draw(shapes(max_rows=2, **space)), draw(shapes(max_rows=1, **space)),
                       draw(st.sampled_from(["sql", "api"])))


@st.composite
def replace_as_selects(draw: Any, *, via: str | None = None, odd: str = "", all_partitioned: bool = False,
                       **space: Any) -> ReplaceAsSelect:
    """A CREATE OR REPLACE ... AS SELECT over the table itself: some of its columns, maybe another format,
    partitioning by some of the selected columns, a comment and properties, or none of these. ``via``: force the
    SQL front end or the API; ``odd``: text put into the comment; ``all_partitioned``: one column, selected and
    partitioned by."""
    shape = draw(shapes(**space))
    names = [c.name for c in shape.columns]
    atomic = [n for n in names if not is_nested(shape.column(n).type)]
    if all_partitioned:
        if not atomic:
            reject()
        selected = partitioned = (draw(st.sampled_from(atomic)),)
    else:
        selected = tuple(draw(st.lists(st.sampled_from(names), min_size=1, max_size=len(names), unique=True)))
        chosen = [n for n in selected if n in atomic]
        partitioned = tuple(draw(st.lists(st.sampled_from(chosen), max_size=1))) if chosen else ()
    properties = tuple(sorted(draw(st.dictionaries(st.sampled_from(["team", "odd.key"]), odd_text,
                                                   max_size=2)).items()))
    comment = draw(st.none() | odd_text)
    if odd:
        comment = (comment or "") + odd
    return ReplaceAsSelect(shape, selected, draw(st.sampled_from([None, "parquet", "orc", "json"])), partitioned,
                           comment, properties, via or draw(st.sampled_from(["sql", "api"])))
