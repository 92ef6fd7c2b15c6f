"""How the metastore says a table it was asked to change is gone: both of Hive's wordings are read as that refusal
(replace_run.change_unchanged then names the concurrent change), and nothing else is."""

from __future__ import annotations

import pytest

from replace_table.plans.replace_run import TABLE_NOT_FOUND


@pytest.mark.parametrize("message", [
    "InvalidOperationException(message:ow.t table not found)",
    "cannot install the new definition of ow.t: InvalidOperationException(message:table ow.t doesn't exist)",
    "InvalidOperationException(message:table we ird.t doesn't exist)",
])
def test_hives_refusals_of_a_missing_table_are_recognised(message: str) -> None:
    assert TABLE_NOT_FOUND.search(message)


@pytest.mark.parametrize("message", [
    "InvalidOperationException(message:Bucket columns X is not part of the table columns)",
    "MetaException(message:java.lang.RuntimeException: connection refused)",
    "table ow.t exists",
])
def test_other_refusals_are_not(message: str) -> None:
    assert not TABLE_NOT_FOUND.search(message)
