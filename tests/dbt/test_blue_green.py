"""dbt blue/green with ``type: spark_ddl_log`` (docs/transactions.md, "dbt blue/green"): a project builds every model
into its target schema (staging) and its on-run-end hook ``spark_ddl_log_publish`` swaps staging with the published
schema when every node of the ``dbt build`` succeeded. After a green build the published schema has the new models
(and staging the old ones); after a build whose test fails it still has the old ones, and a plain ``dbt run``
publishes nothing; a model added later is published by its first green build and built again after it. Real dbt,
real Spark, one small project of two table models (a third added)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from dbt.tests.util import run_dbt, run_dbt_and_capture

MODELS = {
    "orders.sql": "{{ config(materialized='table') }}\n"
                  "select id, {{ var('version') }} as version from range({{ var('rows', 5) }})",
    "totals.sql": "{{ config(materialized='table') }}\n"
                  "select count(*) as n, max(version) as version from {{ ref('orders') }}",
    "schema.yml": """
version: 2
models:
  - name: totals
    columns:
      - name: n
        data_tests:
          - accepted_values:
              values: [5]
              quote: false
""",
}


def add_target(project: Any, name: str, schema: str) -> None:
    """A second target in the test's profiles.yml: the adapter's, on another schema."""
    path = Path(project.profiles_dir) / "profiles.yml"
    profiles = yaml.safe_load(path.read_text())
    outputs = profiles["test"]["outputs"]
    outputs[name] = {**outputs["default"], "schema": schema}
    path.write_text(yaml.safe_dump(profiles))


class TestBlueGreen:
    @pytest.fixture(scope="class")
    def models(self) -> dict[str, str]:
        return MODELS

    @pytest.fixture(scope="class")
    def project_config_update(self, unique_schema: str) -> dict[str, Any]:
        return {"on-run-end": [f"{{{{ spark_ddl_log_publish('{unique_schema}_live') }}}}"]}

    def published(self, spark: Any, live: str) -> dict[str, Any]:
        return {name: [tuple(row) for row in spark.sql(f"SELECT * FROM `{live}`.`{name}` ORDER BY 1").collect()]
                for name in ("orders", "totals")}

    def test_a_green_build_publishes_every_model_a_failing_test_publishes_nothing(self, project: Any, spark: Any):
        staging, live = project.test_schema, f"{project.test_schema}_live"
        spark.sql(f"CREATE DATABASE `{live}`")
        add_target(project, "live", live)
        try:
            # the first deployment: built straight into the published schema (the hook publishes nothing then)
            run_dbt(["build", "--vars", "{version: 1}", "--target", "live"])
            assert self.published(spark, live)["totals"] == [(5, 1)]
            run_dbt(["build", "--vars", "{version: 2}"])  # green: published
            assert self.published(spark, live)["totals"] == [(5, 2)]
            assert spark.table(f"`{staging}`.`totals`").first().version == 1  # staging holds what was live
            _, output = run_dbt_and_capture(["build", "--vars", "{version: 3, rows: 6}"], expect_pass=False)
            assert "not publishing" in output  # its test failed: nothing published
            assert self.published(spark, live) == {"orders": [(i, 2) for i in range(5)], "totals": [(5, 2)]}
            assert spark.table(f"`{staging}`.`totals`").first().n == 6  # the failed build stays in staging
            run_dbt(["run", "--vars", "{version: 4}"])  # a run, tests not run: nothing published
            assert self.published(spark, live)["totals"] == [(5, 2)]
            run_dbt(["build", "--vars", "{version: 5}"])  # green again: published, staging has version 2 back
            assert self.published(spark, live)["totals"] == [(5, 5)]
            assert spark.table(f"`{staging}`.`totals`").first().version == 2
            # a model added later: published by its first green build, then built into staging again beside the
            # published one's files (before issue 40 that build was refused: the files sat at staging's name)
            (Path(project.project_root) / "models" / "extra.sql").write_text(
                "{{ config(materialized='table') }}\nselect {{ var('version') }} as version")
            run_dbt(["build", "--vars", "{version: 6}"])
            assert spark.table(f"`{live}`.`extra`").first().version == 6
            assert not spark.catalog.tableExists("extra", staging)
            run_dbt(["build", "--vars", "{version: 7}"])
            assert spark.table(f"`{live}`.`extra`").first().version == 7
            assert spark.table(f"`{staging}`.`extra`").first().version == 6
        finally:
            spark.sql(f"DROP DATABASE IF EXISTS `{live}` CASCADE")
