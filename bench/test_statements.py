"""Each atomic statement beside its plain Spark equivalent, on the same data, in one run (issue 7 item 3, issues 3
and 5): parquet managed tables in the session catalog (Hive metastore on Derby), one Spark session for the run.

Every benchmark group holds the plain statement (the baseline, ``extra_info["baseline"]``) and the atomic one, run
one after the other; the ratio in ``bench/RESULTS.md`` is atomic / plain. The atomic benchmark also runs the plain
statement before each of its rounds (untimed by pytest-benchmark, timed by itself) for a paired ratio that load
drifts on a shared machine cannot skew. Each round's ``setup`` puts the state back outside the timed part. The rows
are always ``SELECT id, id*2 AS v, concat('r', id) AS s FROM range(N)``.

``test_breakdown`` runs the same statements under :class:`bench.profiler.StatementProfiler` and stores where their
time goes in ``extra_info["breakdown"]`` (issue 7 item 4); its medians include the profiler's own small cost, so
they are compared only with each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from bench.conftest import create_table, exists, run, select
from bench.pairing import run_paired, timed
from bench.profiler import StatementProfiler

ROUNDS = 9
ROUNDS_1M = 5
BREAKDOWN_ROUNDS = 5
METADATA_ROWS = 1000
"""Rows of the tables RENAME and DROP act on (their cost does not depend on the data)."""
FILL_ROWS = 100_000
"""Rows INSERT OVERWRITE writes, and rows of the table TRUNCATE empties."""

Action = Callable[[Any, str], None]
"""``(spark or ddl, kind)``: the kind (``plain`` / ``atomic``) names the tables, so the two never share one."""


def T(name: str) -> str:  # noqa: N802 - reads like a constructor
    return f"`default`.`{name}`"


def size_id(rows: int) -> str:
    return {0: "0", 100_000: "100k", 1_000_000: "1M"}.get(rows, str(rows))


def _nothing(spark: Any, kind: str) -> None:
    return None


@dataclass(frozen=True)
class Scenario:
    """One statement: its plain and atomic forms, and how to put the state back before each round."""

    id: str
    group: str
    rows: int
    plain: Action
    atomic: Action
    setup: Action = _nothing
    """Before every round (outside the timing)."""
    prepare: Action = _nothing
    """Once, before the first round."""
    check: Action = _nothing
    """Once, after the last round: the statement did what it says."""

    def __str__(self) -> str:
        return self.id


def create_or_replace(rows: int) -> Scenario:
    """The table exists (with the same rows) before every round, so each round really replaces it."""

    def setup(spark: Any, kind: str) -> None:
        if not exists(spark, f"cor_{kind}"):
            create_table(spark, f"cor_{kind}", rows)

    def check(spark: Any, kind: str) -> None:
        assert spark.table(T(f"cor_{kind}")).count() == rows

    return Scenario(
        f"create_or_replace_{size_id(rows)}",
        f"CREATE OR REPLACE TABLE AS SELECT, {size_id(rows)} rows (plain: DROP + CTAS)",
        rows,
        plain=lambda spark, kind: run(spark, f"DROP TABLE IF EXISTS {T(f'cor_{kind}')}",
                                      f"CREATE TABLE {T(f'cor_{kind}')} USING parquet AS {select(rows)}"),
        atomic=lambda ddl, kind: ddl.create_or_replace_table(f"cor_{kind}", as_select=select(rows)),
        setup=setup, prepare=setup, check=check,
    )


def create_as_select(rows: int) -> Scenario:
    """The table is absent before every round (dropped in setup)."""

    def check(spark: Any, kind: str) -> None:
        assert spark.table(T(f"ctas_{kind}")).count() == rows

    return Scenario(
        f"create_table_as_select_{size_id(rows)}",
        f"CREATE TABLE AS SELECT, {size_id(rows)} rows",
        rows,
        plain=lambda spark, kind: run(spark, f"CREATE TABLE {T(f'ctas_{kind}')} USING parquet AS {select(rows)}"),
        atomic=lambda ddl, kind: ddl.create_table(f"ctas_{kind}", as_select=select(rows)),
        setup=lambda spark, kind: run(spark, f"DROP TABLE IF EXISTS {T(f'ctas_{kind}')} PURGE"),
        check=check,
    )


def rename_two() -> Scenario:
    """a TO b, c TO d in one statement; setup renames them back (plain ALTER TABLE, outside the timing)."""

    def names(kind: str) -> list[str]:
        return [f"ren_{kind}_{x}" for x in "abcd"]

    def prepare(spark: Any, kind: str) -> None:
        a, _, c, _ = names(kind)
        create_table(spark, a, METADATA_ROWS)
        create_table(spark, c, METADATA_ROWS)

    def setup(spark: Any, kind: str) -> None:
        a, b, c, d = names(kind)
        for new, old in ((b, a), (d, c)):
            if exists(spark, new):
                run(spark, f"ALTER TABLE {T(new)} RENAME TO {T(old)}")

    def plain(spark: Any, kind: str) -> None:
        a, b, c, d = names(kind)
        run(spark, f"ALTER TABLE {T(a)} RENAME TO {T(b)}", f"ALTER TABLE {T(c)} RENAME TO {T(d)}")

    def atomic(ddl: Any, kind: str) -> None:
        a, b, c, d = names(kind)
        ddl.rename_tables([(a, b), (c, d)])

    def check(spark: Any, kind: str) -> None:
        a, b, c, d = names(kind)
        assert exists(spark, b) and exists(spark, d) and not exists(spark, a) and not exists(spark, c)

    return Scenario("rename_two_tables", "RENAME TABLE a TO b, c TO d (plain: two ALTER TABLE RENAME)",
                    METADATA_ROWS, plain, atomic, setup=setup, prepare=prepare, check=check)


def drop_two() -> Scenario:
    """Two tables dropped in one statement; setup creates two new ones (outside the timing). Each round's tables have
    names of their own: an atomic DROP keeps the dropped version of a table at ``<database>/<name>`` for the grace
    period, which a plain CREATE of the same name would collide with (``LOCATION_ALREADY_EXISTS``)."""
    rounds: dict[str, int] = {}

    def names(kind: str) -> tuple[str, str]:
        n = rounds.get(kind, 0)
        return f"drop_{kind}_x{n}", f"drop_{kind}_y{n}"

    def setup(spark: Any, kind: str) -> None:
        rounds[kind] = rounds.get(kind, 0) + 1
        for name in names(kind):
            create_table(spark, name, METADATA_ROWS)

    def check(spark: Any, kind: str) -> None:
        assert not any(exists(spark, name) for name in names(kind))

    return Scenario(
        "drop_two_tables", "DROP TABLE a, b (plain: two DROP TABLE)", METADATA_ROWS,
        plain=lambda spark, kind: run(spark, *(f"DROP TABLE {T(name)}" for name in names(kind))),
        atomic=lambda ddl, kind: ddl.drop_tables(list(names(kind))),
        setup=setup, check=check,
    )


def insert_overwrite() -> Scenario:
    """The table holds the same rows before every round; the statement writes them again."""

    def setup(spark: Any, kind: str) -> None:
        if not exists(spark, f"io_{kind}"):
            create_table(spark, f"io_{kind}", FILL_ROWS)

    def check(spark: Any, kind: str) -> None:
        assert spark.table(T(f"io_{kind}")).count() == FILL_ROWS

    return Scenario(
        "insert_overwrite", f"INSERT OVERWRITE TABLE, {size_id(FILL_ROWS)} rows", FILL_ROWS,
        plain=lambda spark, kind: run(spark, f"INSERT OVERWRITE TABLE {T(f'io_{kind}')} {select(FILL_ROWS)}"),
        atomic=lambda ddl, kind: ddl.insert_overwrite(f"io_{kind}", as_select=select(FILL_ROWS)),
        setup=setup, prepare=setup, check=check,
    )


PARTITIONED_ROWS = 1_000_000
PARTITIONS = 20
MODE = "spark.sql.sources.partitionOverwriteMode"


def partitioned_table(prefix: str) -> Callable[[Any, str], None]:
    """A ``prepare`` making the table ``<prefix>_<kind>`` of 1M rows in 20 partitions once."""
    def prepare(spark: Any, kind: str) -> None:
        if not exists(spark, f"{prefix}_{kind}"):
            run(spark, f"CREATE TABLE {T(f'{prefix}_{kind}')} USING parquet PARTITIONED BY (p) AS "
                       f"SELECT id, id*2 AS v, concat('r', id) AS s, id % {PARTITIONS} AS p "
                       f"FROM range({PARTITIONED_ROWS})")
    return prepare


def partitioned_rows(prefix: str) -> Callable[[Any, str], None]:
    """A ``check`` that ``<prefix>_<kind>`` still holds its 1M rows."""
    def check(spark: Any, kind: str) -> None:
        assert spark.table(T(f"{prefix}_{kind}")).count() == PARTITIONED_ROWS
    return check


def insert_overwrite_one_partition() -> Scenario:
    """A dbt incremental model's statement: a table of 1M rows in 20 partitions, one partition (50k rows) written
    again in dynamic mode; the other 19 are kept (plain Spark leaves them in place; the atomic statement's new
    version takes them as they are: hard links on this local warehouse)."""
    rows = PARTITIONED_ROWS // PARTITIONS
    write = f"SELECT id, id*2 AS v, concat('r', id) AS s, 0 AS p FROM range({rows})"

    def plain(spark: Any, kind: str) -> None:
        spark.conf.set(MODE, "dynamic")
        try:
            run(spark, f"INSERT OVERWRITE TABLE {T(f'iop_{kind}')} {write}")
        finally:
            spark.conf.unset(MODE)

    return Scenario(
        "insert_overwrite_partition", f"INSERT OVERWRITE of 1 of {PARTITIONS} partitions (1M rows), dynamic",
        PARTITIONED_ROWS, plain=plain,
        atomic=lambda ddl, kind: ddl.insert_overwrite(f"iop_{kind}", as_select=write, overwrite_mode="dynamic"),
        prepare=partitioned_table("iop"), check=partitioned_rows("iop"),
    )


def insert_overwrite_static_partition() -> Scenario:
    """A scheduler's daily load: ``INSERT OVERWRITE ... PARTITION (p=0) SELECT ...`` (a static value, static mode)
    of one partition (50k rows) of a table of 1M rows in 20 partitions; the other 19 are kept as in
    :func:`insert_overwrite_one_partition`."""
    rows = PARTITIONED_ROWS // PARTITIONS
    write = f"SELECT id, id*2 AS v, concat('r', id) AS s FROM range({rows})"


    return Scenario(
        "insert_overwrite_static_partition",
        f"INSERT OVERWRITE ... PARTITION (p=0) of 1 of {PARTITIONS} partitions (1M rows), static", PARTITIONED_ROWS,
        plain=lambda spark, kind: run(spark, f"INSERT OVERWRITE TABLE {T(f'iops_{kind}')} PARTITION (p=0) {write}"),
        atomic=lambda ddl, kind: ddl.insert_overwrite(f"iops_{kind}", as_select=write, partition={"p": "0"},
                                                      overwrite_mode="static"),
        prepare=partitioned_table("iops"), check=partitioned_rows("iops"),
    )


def insert_into() -> Scenario:
    """The table exists; every round appends the same rows (plain: Spark's INSERT INTO, moving its task files into
    the table at job commit; atomic: written aside, logged, moved in after the commit point)."""

    def check(spark: Any, kind: str) -> None:
        count = spark.table(T(f"ii_{kind}")).count()
        assert count and count % FILL_ROWS == 0

    return Scenario(
        "insert_into", f"INSERT INTO, {size_id(FILL_ROWS)} rows", FILL_ROWS,
        plain=lambda spark, kind: run(spark, f"INSERT INTO {T(f'ii_{kind}')} {select(FILL_ROWS)}"),
        atomic=lambda ddl, kind: ddl.insert_into(f"ii_{kind}", as_select=select(FILL_ROWS)),
        prepare=lambda spark, kind: exists(spark, f"ii_{kind}") or create_table(spark, f"ii_{kind}", 0),
        check=check,
    )


def truncate() -> Scenario:
    """Setup fills the table again (plain INSERT OVERWRITE, outside the timing); the statement empties it."""

    def check(spark: Any, kind: str) -> None:
        assert spark.table(T(f"trunc_{kind}")).count() == 0

    return Scenario(
        "truncate", f"TRUNCATE TABLE ({size_id(FILL_ROWS)} rows before)", FILL_ROWS,
        plain=lambda spark, kind: run(spark, f"TRUNCATE TABLE {T(f'trunc_{kind}')}"),
        atomic=lambda ddl, kind: ddl.truncate_table(f"trunc_{kind}"),
        setup=lambda spark, kind: run(spark, f"INSERT OVERWRITE TABLE {T(f'trunc_{kind}')} {select(FILL_ROWS)}"),
        prepare=lambda spark, kind: create_table(spark, f"trunc_{kind}", FILL_ROWS),
        check=check,
    )


def truncate_partitioned() -> Scenario:
    """A table of 1M rows in 20 partitions, filled again before each round (outside the timing); the statement
    empties it and keeps its 20 partitions registered, as Spark's TRUNCATE does."""
    fill = (f"SELECT id, id*2 AS v, concat('r', id) AS s, id % {PARTITIONS} AS p "
            f"FROM range({PARTITIONED_ROWS})")

    def setup(spark: Any, kind: str) -> None:
        run(spark, f"INSERT OVERWRITE TABLE {T(f'truncp_{kind}')} {fill}")

    def check(spark: Any, kind: str) -> None:
        assert spark.table(T(f"truncp_{kind}")).count() == 0
        assert len(spark.sql(f"SHOW PARTITIONS {T(f'truncp_{kind}')}").collect()) == PARTITIONS

    return Scenario(
        "truncate_partitioned", f"TRUNCATE TABLE of {PARTITIONS} partitions ({size_id(PARTITIONED_ROWS)} rows "
        "before)", PARTITIONED_ROWS,
        plain=lambda spark, kind: run(spark, f"TRUNCATE TABLE {T(f'truncp_{kind}')}"),
        atomic=lambda ddl, kind: ddl.truncate_table(f"truncp_{kind}"),
        setup=setup, prepare=partitioned_table("truncp"), check=check,
    )


def truncate_partition() -> Scenario:
    """The table of :func:`truncate_partitioned`, filled again before each round; the statement empties one of its 20
    partitions (``PARTITION (p = 0)``, 1/20 of the rows) and keeps the other 19 whole (their files linked into the new
    version), every record registered, as Spark's TRUNCATE ... PARTITION leaves them."""
    fill = (f"SELECT id, id*2 AS v, concat('r', id) AS s, id % {PARTITIONS} AS p "
            f"FROM range({PARTITIONED_ROWS})")

    def setup(spark: Any, kind: str) -> None:
        run(spark, f"INSERT OVERWRITE TABLE {T(f'truncq_{kind}')} {fill}")

    def check(spark: Any, kind: str) -> None:
        assert spark.table(T(f"truncq_{kind}")).where("p = 0").count() == 0
        assert len(spark.sql(f"SHOW PARTITIONS {T(f'truncq_{kind}')}").collect()) == PARTITIONS

    return Scenario(
        "truncate_partition", f"TRUNCATE TABLE ... PARTITION, 1 of {PARTITIONS} partitions "
        f"({size_id(PARTITIONED_ROWS)} rows before)", PARTITIONED_ROWS,
        plain=lambda spark, kind: run(spark, f"TRUNCATE TABLE {T(f'truncq_{kind}')} PARTITION (p = 0)"),
        atomic=lambda ddl, kind: ddl.truncate_table(f"truncq_{kind}", partition={"p": "0"}),
        setup=setup, prepare=partitioned_table("truncq"), check=check,
    )


SIDE_BY_SIDE = [
    create_or_replace(0), create_or_replace(100_000), create_or_replace(1_000_000),
    create_as_select(0), create_as_select(100_000),
    rename_two(), drop_two(), insert_overwrite(), insert_overwrite_one_partition(),
    insert_overwrite_static_partition(), insert_into(), truncate(), truncate_partitioned(), truncate_partition(),
]
BREAKDOWN = [create_or_replace(0), create_or_replace(100_000), create_as_select(100_000),
             rename_two(), drop_two(), insert_overwrite(), insert_overwrite_one_partition(),
             insert_overwrite_static_partition(), insert_into(), truncate()]
KINDS = ("plain", "atomic")


def cases(scenarios: list[Scenario]) -> Any:
    """plain then atomic, scenario by scenario: the two members of a group run back to back."""
    return [pytest.param(s, kind, id=f"{s.id}-{kind}") for s in scenarios for kind in KINDS]


def measure(benchmark: Any, scenario: Scenario, kind: str, spark: Any, target: Callable[[], object], *,
            rounds: int, warmup: int, group_prefix: str = "", baseline: Callable[[], float] | None = None) -> None:
    """``target`` over ``rounds``, the scenario's setup before each; with ``baseline``, in paired rounds
    (:func:`bench.pairing.run_paired`)."""
    benchmark.group = group_prefix + scenario.group
    benchmark.extra_info["rows"] = scenario.rows
    if kind == "plain":
        benchmark.extra_info["baseline"] = True
    scenario.prepare(spark, kind)

    def setup() -> None:
        scenario.setup(spark, kind)

    if baseline is None:
        benchmark.pedantic(target, setup=setup, rounds=rounds, warmup_rounds=warmup, iterations=1)
    else:
        run_paired(benchmark, target, baseline, rounds=rounds, warmup=warmup, setup=setup)
    scenario.check(spark, kind)


@pytest.mark.parametrize(("scenario", "kind"), cases(SIDE_BY_SIDE))
def test_statement(benchmark: Any, ddl: Any, clean: Any, scenario: Scenario, kind: str) -> None:
    big = scenario.rows >= 1_000_000
    rounds, warmup = (ROUNDS_1M, 0) if big else (ROUNDS, 1)
    measure_paired(benchmark, ddl, clean, scenario, kind, rounds=rounds, warmup=warmup)


def measure_paired(benchmark: Any, ddl: Any, spark: Any, scenario: Scenario, kind: str, *, rounds: int,
                   warmup: int) -> None:
    """The plain statement, or the atomic one, which also runs the plain statement (on tables of its own) in each
    round's setup, right before the atomic one, and stores the median of the per-round ratios as ``paired_ratio``:
    on a shared machine whose load drifts, that ratio is steadier than one between two benchmarks measured a minute
    apart."""
    if kind == "plain":
        measure(benchmark, scenario, kind, spark, lambda: scenario.plain(spark, kind), rounds=rounds, warmup=warmup)
        return

    def paired_plain() -> float:
        scenario.setup(spark, "paired")
        return timed(lambda: scenario.plain(spark, "paired"))

    scenario.prepare(spark, "paired")
    measure(benchmark, scenario, kind, spark, lambda: scenario.atomic(ddl, kind), rounds=rounds, warmup=warmup,
            baseline=paired_plain)
    scenario.check(spark, "paired")


@pytest.mark.parametrize(("scenario", "kind"), cases(BREAKDOWN))
def test_breakdown(benchmark: Any, ddl: Any, clean: Any, scenario: Scenario, kind: str) -> None:
    """Every log write, catalog method and engine call of the statement timed (means per round)."""
    spark = clean
    profiler = StatementProfiler(ddl)
    session = profiler.session(spark)  # the plain statement's engine calls are timed the same way

    def target() -> None:
        with profiler.round():
            if kind == "plain":
                scenario.plain(session, kind)
            else:
                scenario.atomic(ddl, kind)

    with profiler.installed():
        measure(benchmark, scenario, kind, spark, target, rounds=BREAKDOWN_ROUNDS, warmup=1,
                group_prefix="breakdown: ")
    profiler.rounds = profiler.rounds[1:]  # the warm-up round is not a measured one
    benchmark.extra_info["breakdown"] = profiler.breakdown()
