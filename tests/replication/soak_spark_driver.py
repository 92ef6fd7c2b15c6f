"""A source driver of the Spark replication soak: ``python -m tests.replication.soak_spark_driver --url URL --home ID
--uri thrift://... --warehouse DIR --seed S --stop-file FILE [--setup]``.

Opens a database home on the source's PostgreSQL (``URL?home=ID``: a reopened home is recovered on open; live drivers
take over dead ones) on the source's metastore service and runs random SQL statements through the SQL front end until
the stop file exists: every statement kind the replica applies (CTAS and CREATE OR REPLACE with ``rand()``, a
partitioned one, column-list and LIKE creates, INSERT INTO, INSERT OVERWRITE of a table and of a partition, TRUNCATE,
ALTER, RENAME and a swap of two names, DROP TABLE of one and of two, UNDROP, RESTORE, views, functions, a database
created, filled and dropped with CASCADE). Statements race with the other driver's and many fail on their
preconditions (a failed statement leaves nothing). Prints ``SOAK {...}`` lines: ``ready``, ``begin``/``end`` of each
statement (kind, outcome).

The rows say what a reader of the replica may see (:func:`judge`): every row of a write carries the tag
``SID:v:N`` (a version made by CTAS, CREATE OR REPLACE or INSERT OVERWRITE: its ``N`` rows, ids ``lo..lo+N-1``, all or
none) or ``SID:i:N`` (an INSERT INTO: its files appear one rename at a time, so up to ``N``). ``sk.w`` is created by
``--setup`` (with ``sk.t0``) and only ever replaced, overwritten or appended to: once a reader saw it, it is never
missing or empty.
"""

from __future__ import annotations

import argparse
import random
from typing import Any

from tests.soak.workload import emit
from tests.soak_cluster.cluster_state import ddl_options, home_url

DB, OTHER_DB = "sk", "skx"
WATCHED = f"{DB}.w"
TABLES = [f"{DB}.t{i}" for i in range(4)]
PARTITIONED = f"{DB}.p"
SIZES = (1, 10, 500, 5000)
EXIT_FENCED = 3


def rows(rng: random.Random, sid: str, kind: str, partition: bool = False) -> str:
    n = rng.choice(SIZES)
    lo = rng.randrange(0, 10_000_000)
    extra = ", CAST(id % 3 AS STRING) AS p" if partition else ""
    return f"SELECT id AS k, '{sid}:{kind}:{n}' AS w, rand() AS x{extra} FROM range({lo}, {lo + n})"


SETUP = [f"CREATE DATABASE {DB}", *(f"CREATE TABLE {name} USING parquet AS SELECT id AS k, 'setup:v:3' AS w, "
                                    "rand() AS x FROM range(3)" for name in (WATCHED, TABLES[0]))]


def pick(rng: random.Random, wanted: list[str], count: int) -> list[str]:
    """``count`` names of ``wanted`` (the names the statement's precondition wants), any of the pool if too few:
    the other driver races for them anyway, and a statement whose precondition fails changes nothing."""
    return rng.sample(wanted, count) if len(wanted) >= count else rng.sample(TABLES, count)


def statement(rng: random.Random, sid: str, present: set[str], dropped: list[str], versions: list[int]
              ) -> tuple[str, str]:
    """One random statement: (its kind, its SQL text). ``present``: the pool's tables this driver sees now;
    ``dropped``: tables it dropped (for UNDROP); ``versions``: kept versions of ``TABLES[0]``'s history (RESTORE)."""
    there = sorted(present & set(TABLES))
    free = [name for name in TABLES if name not in present]
    t, u = pick(rng, there, 2)
    new, _ = pick(rng, free, 2)
    n = rng.randint(1, 9)
    choices: list[tuple[str, str, int]] = [
        ("cor_watched", f"CREATE OR REPLACE TABLE {WATCHED} USING parquet AS {rows(rng, sid, 'v')}", 4),
        ("overwrite_watched", f"INSERT OVERWRITE {WATCHED} {rows(rng, sid, 'v')}", 3),
        ("insert_watched", f"INSERT INTO {WATCHED} {rows(rng, sid, 'i')}", 3),
        ("ctas", f"CREATE TABLE {new} USING parquet AS {rows(rng, sid, 'v')}", 4),
        ("cor", f"CREATE OR REPLACE TABLE {t} USING parquet AS {rows(rng, sid, 'v')}", 5),
        ("create_columns", f"CREATE TABLE {new} (k BIGINT, w STRING, x DOUBLE) USING parquet", 2),
        ("create_like", f"CREATE TABLE {new} LIKE {WATCHED}", 1),
        ("insert", f"INSERT INTO {t} {rows(rng, sid, 'i')}", 5),
        ("overwrite", f"INSERT OVERWRITE {t} {rows(rng, sid, 'v')}", 3),
        ("truncate", f"TRUNCATE TABLE {t}", 2),
        ("alter_properties", f"ALTER TABLE {rng.choice([t, WATCHED])} SET TBLPROPERTIES ('team' = 'x{n}')", 2),
        ("comment", f"COMMENT ON TABLE {t} IS 'note {n}'", 1),
        ("add_columns", f"ALTER TABLE {t} ADD COLUMNS (c{n} INT)", 1),
        ("rename", f"ALTER TABLE {t} RENAME TO {new}", 3),
        ("rename_swap", f"RENAME TABLE {t} TO {DB}.tmp{n}, {u} TO {t}, {DB}.tmp{n} TO {u}", 2),
        ("drop", f"DROP TABLE {t}", 3),
        ("drop_two", f"DROP TABLE {t}, {u}", 2),
        ("undrop", f"UNDROP TABLE {rng.choice(dropped or TABLES)}", 2),
        ("restore", f"RESTORE TABLE {TABLES[0]} TO VERSION AS OF {rng.choice(versions or [n])}", 2),
        ("cor_partitioned", f"CREATE OR REPLACE TABLE {PARTITIONED} USING parquet PARTITIONED BY (p) AS "
                            f"{rows(rng, sid, 'v', partition=True)}", 2),
        ("insert_partitioned", f"INSERT INTO {PARTITIONED} {rows(rng, sid, 'i', partition=True)}", 2),
        ("overwrite_partition", f"INSERT OVERWRITE {PARTITIONED} PARTITION (p = '1') {rows(rng, sid, 'v')}", 1),
        ("add_partition", f"ALTER TABLE {PARTITIONED} ADD PARTITION (p = 'e{n}')", 1),
        ("view", f"CREATE OR REPLACE VIEW {DB}.v{n % 2} AS SELECT w, count(*) AS c FROM {WATCHED} GROUP BY w", 2),
        ("alter_view", f"ALTER VIEW {DB}.v{n % 2} AS SELECT max(k) AS m FROM {WATCHED}", 1),
        ("drop_view", f"DROP VIEW {DB}.v{n % 2}", 1),
        ("function", f"CREATE OR REPLACE FUNCTION {DB}.f{n % 2} AS 'com.example.F{n}'", 1),
        ("drop_function", f"DROP FUNCTION {DB}.f{n % 2}", 1),
        ("create_database", f"CREATE DATABASE {OTHER_DB}", 1),
        ("fill_database", f"CREATE TABLE {OTHER_DB}.a{n % 2} USING parquet AS {rows(rng, sid, 'v')}", 1),
        ("view_database", f"CREATE OR REPLACE VIEW {OTHER_DB}.v AS SELECT {n} AS one", 1),
        ("drop_database", f"DROP DATABASE {OTHER_DB} CASCADE", 1),
    ]
    kind, text, _ = rng.choices(choices, [weight for *_, weight in choices])[0]
    return kind, text


def judge(table: str, groups: list[tuple[str, int, int, int]] | None) -> str | None:
    """What is wrong with one read of a replica table (None: nothing): ``groups`` are its rows grouped by tag,
    ``(w, count, min(k), max(k))``, or None when the table is not there."""
    if groups is None:
        return None  # a t table may be dropped or renamed; sk.w's absence is the reader's to judge
    versions = [g for g in groups if g[0].split(":")[1:2] == ["v"]]
    if table == WATCHED and not groups:
        return "empty, which it never was"
    if table != PARTITIONED and len(versions) > 1:
        return f"{len(versions)} versions' rows at once: {sorted(g[0] for g in versions)}"
    for w, count, low, high in groups:
        declared = int(w.rsplit(":", 1)[1])
        if w.split(":")[1] == "v" and table != PARTITIONED and (count != declared or high - low + 1 != declared):
            return f"{w}: {count} rows of {declared} (a partial version)"
        if count > declared:
            return f"{w}: {count} rows of {declared} (rows twice)"
    return None


def state(ddl: Any, dropped: list[str]) -> tuple[set[str], list[str], list[int]]:
    """What the next statement is planned from: the tables there now, the ones dropped, ``TABLES[0]``'s versions."""
    spark = ddl.spark
    try:
        present = {f"{DB}.{row['tableName']}" for row in spark.sql(f"SHOW TABLES IN {DB}").collect()}
        versions = [int(row.version) for row in ddl.describe_history(TABLES[0]).rows] if TABLES[0] in present else []
    except Exception:  # noqa: BLE001 - sk not there yet, or the table went away in between: plan blind
        return set(), dropped, []
    return present, [name for name in dropped if name not in present], versions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.replication.soak_spark_driver")
    parser.add_argument("--url", required=True)
    parser.add_argument("--home", required=True)
    parser.add_argument("--uri", required=True)
    parser.add_argument("--warehouse", required=True)
    parser.add_argument("--seed", required=True)
    parser.add_argument("--stop-file", required=True)
    parser.add_argument("--lease", type=float, default=3.0)
    parser.add_argument("--setup", action="store_true", help="create sk and sk.w first")
    parser.add_argument("--incarnation", type=int, default=0, help="how many processes had this home before")
    args = parser.parse_args(argv)

    from pathlib import Path

    from ddl_log import AtomicDDL, DDLLogError

    options = ddl_options(lease_seconds=args.lease, lock_wait_seconds=20.0, takeover_interval=args.lease)
    ddl = AtomicDDL(home=home_url(args.url, args.home), metastore_uri=args.uri, warehouse=args.warehouse,
                    wait_seconds=60.0, **options)
    rng = random.Random(f"{args.seed}:{args.home}:{args.incarnation}")
    stop = Path(args.stop_file)
    code = 0
    try:
        ddl.spark.sql("SELECT 1").collect()
        for text in SETUP if args.setup else []:
            ddl.sql(text)
        emit("ready", home=args.home, recovery=[o.outcome for o in ddl.last_recovery.outcomes])
        number, dropped = 0, list[str]()
        while not stop.exists():
            sid = f"{args.home}s{number}"
            kind, text = statement(rng, sid, *state(ddl, dropped))
            emit("begin", sid=sid, kind=kind)
            outcome, message = "ok", None
            try:
                ddl.sql(text)
            except DDLLogError as error:
                outcome, message = type(error).__name__, str(error)[:300]
            except Exception as error:  # noqa: BLE001 - Spark refusing a random statement (analysis): counted
                outcome, message = type(error).__name__, str(error).splitlines()[0][:300]
            emit("end", sid=sid, kind=kind, outcome=outcome, text=text, error=message)
            if outcome == "ok" and kind in ("drop", "drop_two"):
                dropped[:] = [*dropped[-5:], *(name.strip() for name in text.split("TABLE ")[1].split(","))]
            if outcome == "HomeFencedError":
                code = EXIT_FENCED
                break
            number += 1
        if code == 0:  # the last live drivers recover what dead ones left (a survivor's periodic takeover, now)
            emit("takeovers", homes=[t.home for t in ddl.take_over_dead().homes if t.outcome == "recovered"])
    finally:
        ddl.close()
        emit("done", code=code)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
