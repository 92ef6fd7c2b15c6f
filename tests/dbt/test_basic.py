"""dbt's own adapter suite (dbt-tests-adapter's basic classes) against ``type: spark_ddl_log``, in session mode, with
the skips dbt-spark's own ``spark_session`` profile has:

* the snapshot classes (``BaseSnapshotCheckCols``, ``BaseSnapshotTimestamp``): dbt-spark's snapshot materialization
  needs ``file_format`` delta, iceberg or hudi (a MERGE), which a session on the Hive metastore's parquet tables
  does not have; dbt-spark skips them for ``spark_session`` too.
* ``BaseDocsGenerate`` (the full catalog comparison): its expected catalog is written for each adapter's types and
  statistics, and dbt-spark does not run it; ``test_docs_generate_lists_the_models`` below checks what docs generate
  gives here.

`make test` runs simple materializations, incremental and adapter methods; `make test-dbt` (``DBT_FULL=1``) all.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dbt.tests.adapter.basic.test_adapter_methods import BaseAdapterMethod
from dbt.tests.adapter.basic.test_base import BaseSimpleMaterializations
from dbt.tests.adapter.basic.test_empty import BaseEmpty
from dbt.tests.adapter.basic.test_ephemeral import BaseEphemeral
from dbt.tests.adapter.basic.test_generic_tests import BaseGenericTests
from dbt.tests.adapter.basic.test_incremental import BaseIncremental
from dbt.tests.adapter.basic.test_singular_tests import BaseSingularTests
from dbt.tests.adapter.basic.test_singular_tests_ephemeral import BaseSingularTestsEphemeral
from dbt.tests.adapter.basic.test_validate_connection import BaseValidateConnection
from dbt.tests.util import run_dbt

from tests.dbt.conftest import full_only


class TestSimpleMaterializations(BaseSimpleMaterializations):
    pass


@full_only
class TestSingularTests(BaseSingularTests):
    pass


@full_only
class TestSingularTestsEphemeral(BaseSingularTestsEphemeral):
    pass


@full_only
class TestEmpty(BaseEmpty):
    pass


@full_only
class TestEphemeral(BaseEphemeral):
    pass


class TestIncremental(BaseIncremental):
    pass


@full_only
class TestGenericTests(BaseGenericTests):
    pass


class TestAdapterMethods(BaseAdapterMethod):
    pass


@full_only
class TestValidateConnection(BaseValidateConnection):
    pass


@full_only
class TestDocsGenerate:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return {"t.sql": "{{ config(materialized='table') }} select 1 as id",
                "v.sql": "{{ config(materialized='view') }} select id from {{ ref('t') }}"}

    def test_docs_generate_lists_the_models(self, project: object) -> None:
        run_dbt(["run"])
        run_dbt(["docs", "generate"])
        catalog = json.loads((Path(str(project.project_root)) / "target" / "catalog.json").read_text())  # type: ignore[attr-defined]
        nodes = {key.rsplit(".", 1)[-1]: node for key, node in catalog["nodes"].items()}
        assert set(nodes) == {"t", "v"}
        assert [column for column in nodes["t"]["columns"]] == ["id"]
