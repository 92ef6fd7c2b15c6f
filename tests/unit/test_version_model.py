"""Random histories of one table name (create, replace, truncate, insert, restore to a version or an instant, drop,
undrop, expiry) on the in-memory catalog against the model of tests/version_model.py: after every statement
DESCRIBE HISTORY lists exactly the model's versions (numbers, current first, operations, periods, timestamps), and
every RESTORE installs the model's version or is refused for the model's reason (issue 36)."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ddl_log import AtomicDDL
from storage.catalogs.memory import MemoryTable, memory_catalog
from storage.catalogs.names import TableName
from storage.catalogs.ports import Catalog
from tests.version_model import RETENTION, ApiDriver, Model, fake_clock, play

EXAMPLES = int(os.environ.get("MODEL_EXAMPLES", "60"))
"""Histories per run (``MODEL_EXAMPLES=600`` searches harder)."""
STEPS = st.one_of(
    st.tuples(st.sampled_from(["create", "replace", "insert"]),
              st.lists(st.integers(0, 9), min_size=0, max_size=3).map(tuple)),
    st.tuples(st.sampled_from(["truncate", "drop", "undrop"]), st.just(())),
    st.tuples(st.sampled_from(["restore_version", "restore_ts"]), st.integers(0, 50)),
    st.tuples(st.just("expire"), st.sampled_from([RETENTION / 2, RETENTION + 1])),
)


class MemoryDriver(ApiDriver):
    def __init__(self, ddl: AtomicDDL, catalog: Catalog) -> None:
        self.ddl, self.catalog = ddl, catalog

    def run(self, step: str, rows: tuple[int, ...]) -> Any:
        frame = MemoryTable("", ("x",), [(value,) for value in rows])
        if step == "create":
            return self.ddl.create_table("t", df=frame)
        if step == "replace":
            return self.ddl.create_or_replace_table("t", df=frame)
        if step == "insert":
            return self.ddl.insert_into("t", df=frame)
        if step == "truncate":
            return self.ddl.truncate_table("t")
        return self.ddl.drop_tables(["t"])

    def content(self) -> Any:
        table = self.catalog.backend.tables.get(TableName("default", "t"))
        return None if table is None else (table.columns, tuple(table.rows))


def check(condition: bool, what: str) -> None:
    assert condition, what


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(STEPS, min_size=1, max_size=14).map(lambda steps: [("create", (1,)), *steps]))
def test_describe_history_and_as_of_agree_with_the_model_of_versions(steps, tmp_path_factory, monkeypatch):
    with monkeypatch.context() as patched:
        clock = fake_clock(patched)
        catalog = memory_catalog()
        home = tmp_path_factory.mktemp("home")
        with AtomicDDL(home=str(home), catalog=catalog, retention_seconds=RETENTION, grace_seconds=RETENTION) as ddl:
            play(MemoryDriver(ddl, catalog), Model(clock), steps, check)
