"""INSERT OVERWRITE on real Spark in each partition overwrite mode and spec form: the atomic statement leaves exactly
the rows and partitions plain Spark leaves on a copy of the same table (same statement, same mode), and the
partitions it does not replace keep their rows."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ddl_log import AtomicDDL, CatalogError, SqlParseError
from storage.catalogs.spark.engine import sql_string_literal

pytestmark = pytest.mark.spark

MODE = "spark.sql.sources.partitionOverwriteMode"

TABLES = {
    "p": ("CREATE TABLE {t} (v INT, k INT) USING parquet PARTITIONED BY (k)",
          ["INSERT INTO {t} VALUES (1, 1), (2, 2), (3, NULL), (4, 1)", "ALTER TABLE {t} ADD PARTITION (k=5)"]),
    "r": ("CREATE TABLE {t} (v INT, a INT, b STRING) USING parquet PARTITIONED BY (a, b)",
          ["INSERT INTO {t} VALUES (1, 1, 'x'), (2, 1, 'y'), (3, 2, 'x'), (4, 2, NULL), (5, 1, '01')"]),
}

ODD_VALUES = ["a b/c%d", "é#?", "x=y", "'q'", "%2F", "tab\tnew\nline", " ", "", None]
"""Partition values Spark escapes in directory names (or writes as ``__HIVE_DEFAULT_PARTITION__``): a dynamic
INSERT OVERWRITE's new partitions are made from the directories Spark wrote, so each must read back as the value."""

ODD_ROWS = ", ".join(f"({n}, {'NULL' if value is None else sql_string_literal(value)})"
                     for n, value in enumerate(ODD_VALUES))

# (mode, table, statement): {t} is the table, {odd} the rows of ODD_VALUES, {s} a copy of it (plain Spark refuses a
# static overwrite of a table its query reads; the atomic statement may, see test_defect5_...).
CASES: list[tuple[str, str, str]] = [
    ("static", "p", "INSERT OVERWRITE TABLE {t} SELECT 10, 1"),
    ("dynamic", "p", "INSERT OVERWRITE TABLE {t} SELECT 10, 1"),
    ("dynamic", "p", "INSERT OVERWRITE TABLE {t} SELECT 10, NULL"),
    ("dynamic", "p", "INSERT OVERWRITE TABLE {t} SELECT v + 100, k FROM {s} WHERE k = 2"),
    ("dynamic", "p", "INSERT OVERWRITE TABLE {t} SELECT 10, 1 WHERE false"),
    ("static", "p", "INSERT OVERWRITE TABLE {t} PARTITION (k=1) SELECT 10"),
    ("static", "p", "INSERT OVERWRITE TABLE {t} PARTITION (k='01') SELECT 10"),
    ("static", "p", "INSERT OVERWRITE TABLE {t} PARTITION (k=1) SELECT 10 WHERE false"),
    ("dynamic", "p", "INSERT OVERWRITE TABLE {t} PARTITION (k=2) SELECT v FROM {s} WHERE k = 1"),
    ("static", "p", "INSERT OVERWRITE TABLE {t} PARTITION (k) SELECT 10, 2"),
    ("dynamic", "p", "INSERT OVERWRITE TABLE {t} PARTITION (k) SELECT 10, 2"),
    ("static", "p", "INSERT OVERWRITE TABLE {t} PARTITION (k=1) IF NOT EXISTS SELECT 10"),
    ("static", "p", "INSERT OVERWRITE TABLE {t} PARTITION (k=5) IF NOT EXISTS SELECT 10"),
    ("static", "p", "INSERT OVERWRITE TABLE {t} PARTITION (k=7) IF NOT EXISTS SELECT 10"),
    ("static", "r", "INSERT OVERWRITE TABLE {t} PARTITION (a=1, b) SELECT 10, 'z'"),
    ("dynamic", "r", "INSERT OVERWRITE TABLE {t} PARTITION (a=1, b) SELECT 10, 'x'"),
    ("dynamic", "r", "INSERT OVERWRITE TABLE {t} PARTITION (a=2, b) SELECT 10, ''"),
    ("static", "r", "INSERT OVERWRITE TABLE {t} PARTITION (b='x', a=1) SELECT 10"),
    ("static", "r", "INSERT OVERWRITE TABLE {t} PARTITION (a=1, b='1') SELECT 10"),
    ("dynamic", "r", "INSERT OVERWRITE TABLE {t} SELECT 10, 1, '01'"),
    ("dynamic", "r", "INSERT OVERWRITE TABLE {t} SELECT v * 10, a, b FROM {s} WHERE b IS NULL OR b = 'y'"),
    ("dynamic", "r", "INSERT OVERWRITE TABLE {t} SELECT v, 3, b FROM VALUES {odd} AS o(v, b)"),
    ("dynamic", "r", "INSERT OVERWRITE TABLE {t} PARTITION (a=1, b) SELECT v, b FROM VALUES {odd} AS o(v, b)"),
]

BUILT_UNDER_A_WORK_TABLE = {"INSERT OVERWRITE TABLE {t} PARTITION (k='01') SELECT 10"}
"""The forms whose new version is not written straight into its directory (the replace's write path): a spec of
static values only whose values Spark stores cast (``k=1``), which the empty partition it names would need."""


@pytest.fixture
def session(spark, spare_shared) -> Iterator[Any]:
    """The shared session, its partition overwrite mode put back afterwards."""
    old = spark.conf.get(MODE)
    yield spark
    spark.conf.set(MODE, old)


def make(spark: Any, kind: str, name: str) -> None:
    create, fills = TABLES[kind]
    spark.sql(create.format(t=name))
    for statement in fills:
        spark.sql(statement.format(t=name))


Partitions = dict[tuple[Any, ...], list[tuple[Any, ...]]]


def by_partition(spark: Any, name: str, columns: list[str]) -> Partitions:
    """Every partition (the metastore's, empty ones too) with its sorted rows."""
    result: Partitions = {}
    for row in spark.sql(f"SHOW PARTITIONS {name}").collect():
        result[tuple(part.split("=", 1)[1] for part in str(row[0]).split("/"))] = []
    for row in spark.table(name).collect():
        values = row.asDict()
        key = tuple("__HIVE_DEFAULT_PARTITION__" if values[c] is None else str(values[c]) for c in columns)
        result.setdefault(key, []).append(tuple(str(v) for v in row))
    return {key: sorted(rows) for key, rows in result.items()}


PARTITION_COLUMNS = {"p": ["k"], "r": ["a", "b"]}


@pytest.fixture(scope="module")
def sources(spark, shared_db) -> Iterator[dict[str, tuple[str, Partitions]]]:
    """For each kind of table, one made once for the module (the ``{s}`` the statements read, never written) and
    its partitions: each case makes its own tables the same way, so these are also theirs before the statement."""
    made = {}
    for kind, columns in PARTITION_COLUMNS.items():
        name = f"{shared_db}.src_{kind}"
        make(spark, kind, name)
        made[kind] = (name, by_partition(spark, name, columns))
    yield made
    for kind, (name, partitions) in made.items():
        assert by_partition(spark, name, PARTITION_COLUMNS[kind]) == partitions, f"{name} was written"


@pytest.mark.parametrize(("mode", "kind", "statement"), CASES, ids=[f"{m}: {s}" for m, _, s in CASES])
def test_same_rows_and_partitions_as_plain_spark(session, sources, tmp_path, mode, kind, statement):
    spark = session
    columns = PARTITION_COLUMNS[kind]
    source, before = sources[kind]
    for name in ("plain", kind):
        make(spark, kind, name)
    spark.conf.set(MODE, mode)
    spark.sql(statement.format(t="plain", s=source, odd=ODD_ROWS))
    expected = by_partition(spark, "plain", columns)
    ddl = AtomicDDL(spark=spark, home=tmp_path)
    path = getattr(ddl.sql(statement.format(t=kind, s=source, odd=ODD_ROWS))[-1].result, "path", None)
    assert ddl.active_chains() == []
    assert path in (None, "swap" if statement in BUILT_UNDER_A_WORK_TABLE else "write")  # None: IF NOT EXISTS skipped
    ddl.close()
    got = by_partition(spark, kind, columns)
    assert got == expected
    untouched = {key for key in before if before[key] == expected.get(key)}
    assert all(got[key] == before[key] for key in untouched), "a partition not replaced keeps its rows"


def test_defect5_dynamic_mode_keeps_unwritten_partitions(session, tmp_path):
    spark = session
    spark.sql("CREATE TABLE p (v INT, k INT) USING parquet PARTITIONED BY (k)")
    spark.sql("INSERT INTO p VALUES (1, 1), (2, 2)")
    ddl = AtomicDDL(spark=spark, home=tmp_path)
    ddl.sql("SET spark.sql.sources.partitionOverwriteMode=dynamic; INSERT OVERWRITE TABLE p SELECT 10 AS v, 1 AS k")
    assert sorted(tuple(r) for r in spark.table("p").collect()) == [(2, 2), (10, 1)]
    spark.conf.set(MODE, "static")
    ddl.insert_overwrite("p", as_select="SELECT 20 AS v, 2 AS k", overwrite_mode="dynamic")
    assert sorted(tuple(r) for r in spark.table("p").collect()) == [(10, 1), (20, 2)]
    ddl.insert_overwrite("p", as_select="SELECT 30 AS v, 2 AS k")
    assert [tuple(r) for r in spark.table("p").collect()] == [(30, 2)], "static mode: the whole table"
    assert ddl.binlog_events()[0].statement == "INSERT OVERWRITE TABLE p SELECT 10 AS v, 1 AS k"
    ddl.close()


def test_the_query_runs_once(session, tmp_path):
    """A nondeterministic query: the rows written are the rows of one evaluation (rand() differs per run)."""
    spark = session
    spark.sql("CREATE TABLE p (v DOUBLE, k INT) USING parquet PARTITIONED BY (k)")
    spark.sql("INSERT INTO p VALUES (1, 1), (2, 2)")
    ddl = AtomicDDL(spark=spark, home=tmp_path)
    ddl.insert_overwrite("p", as_select="SELECT rand() AS v, CAST(rand() * 3 AS INT) + 3 AS k FROM range(20)",
                         overwrite_mode="dynamic")
    ddl.close()
    rows = spark.table("p").collect()
    assert len(rows) == 22 and sorted(r.v for r in rows if r.k in (1, 2)) == [1.0, 2.0]


def test_a_bad_spec_is_refused_and_changes_nothing(session, tmp_path):
    spark = session
    make(spark, "r", "r")
    before = by_partition(spark, "r", ["a", "b"])
    ddl = AtomicDDL(spark=spark, home=tmp_path)
    for statement in ("INSERT OVERWRITE TABLE r PARTITION (a=1) SELECT 10, 'x'",
                      "INSERT OVERWRITE TABLE r PARTITION (b='x', a) SELECT 10, 1"):
        with pytest.raises(CatalogError) as raised:
            ddl.sql(statement)
        assert raised.value.name == "default.r"
    with pytest.raises(SqlParseError, match="IF NOT EXISTS with dynamic partitions"):  # Spark's parser refuses it
        ddl.sql("INSERT OVERWRITE TABLE r PARTITION (a=1, b) IF NOT EXISTS SELECT 10, 'x'")
    assert ddl.binlog_events() == [] and ddl.active_chains() == []
    ddl.close()
    assert by_partition(spark, "r", ["a", "b"]) == before


def test_a_partition_listed_as_01_is_kept_as_plain_spark_keeps_it(session, tmp_path):
    """An INT partition whose directory another writer named ``k=01`` (registered by MSCK REPAIR: the metastore lists
    ``01``, not ``1``), beside ``k=1``: a dynamic overwrite of rows with k = 1 replaces ``k=1`` and keeps ``k=01``,
    as plain Spark's directory-level overwrite does (the kept partitions are decided by the listed values). (A static
    whole-table overwrite differs: plain Spark 4.3 leaves ``k=01`` listed with no rows and the new ``k=1`` row
    unlisted, a table that reads empty; the atomic one leaves ``k=1`` with its row: docs/limitations.md.)"""
    mode = "dynamic"
    import shutil

    from storage.catalogs.spark.profile import local_path

    spark = session
    for name in ("plain", "p"):
        spark.sql(f"CREATE TABLE {name} (v INT, k INT) USING parquet PARTITIONED BY (k)")
        spark.sql(f"INSERT INTO {name} VALUES (1, 1), (2, 2)")
        where = local_path(str(spark.sql(f"DESCRIBE TABLE EXTENDED {name}")
                               .where("col_name = 'Location'").collect()[0][1]))
        assert where is not None
        written = next((where / "k=2").glob("*.parquet"))
        (where / "k=01").mkdir()
        shutil.copy(written, where / "k=01" / written.name)
        spark.sql(f"MSCK REPAIR TABLE {name}")
    spark.conf.set(MODE, mode)
    spark.sql("INSERT OVERWRITE TABLE plain SELECT 10, 1")
    with AtomicDDL(spark=spark, home=tmp_path) as ddl:
        ddl.sql("INSERT OVERWRITE TABLE p SELECT 10, 1")
    assert by_partition(spark, "p", ["k"]) == by_partition(spark, "plain", ["k"])
    assert sorted(row[0] for row in spark.sql("SHOW PARTITIONS p").collect()) == \
        sorted(row[0] for row in spark.sql("SHOW PARTITIONS plain").collect())


def test_new_partitions_with_odd_values_are_found_by_a_filter_as_plain_sparks_are(session, tmp_path):
    """A filter on the partition column is answered from the metastore's partition records (pruning): the records a
    dynamic overwrite makes from its directories must hold the values themselves, not their escaped names."""
    spark = session
    for name in ("plain_odd", "odd"):
        make(spark, "r", name)
    spark.conf.set(MODE, "dynamic")
    statement = f"INSERT OVERWRITE TABLE {{t}} SELECT v, 3, b FROM VALUES {ODD_ROWS} AS o(v, b)"
    spark.sql(statement.format(t="plain_odd"))
    with AtomicDDL(spark=spark, home=tmp_path) as ddl:
        ddl.sql(statement.format(t="odd"))

    def found(name: str, value: str | None) -> list[Any]:
        test = "b IS NULL" if value is None else f"b = {sql_string_literal(value)}"
        return sorted(tuple(row) for row in spark.sql(f"SELECT v, a FROM {name} WHERE a = 3 AND {test}").collect())

    for value in ODD_VALUES:
        expected = found("plain_odd", value)
        assert found("odd", value) == expected, value
        assert expected or value == "", value  # '' is written as NULL, as plain Spark writes it
    described = [spark.sql(f"DESCRIBE TABLE EXTENDED {name} PARTITION (a=3, b='x=y')").collect()
                 for name in ("odd", "plain_odd")]
    assert [[(row[0], row[1]) for row in rows if row[0] == "Partition Values"] for rows in described] == [
        [("Partition Values", "[a=3, b=x=y]")]] * 2
