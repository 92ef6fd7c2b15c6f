"""The catalog's own metastore client works from any thread, also one that never ran a Spark call into Hive. Spark's
Hive client gives a thread Hive's session state around each of its calls (and leaves it there); the metastore filter
hook a Hive session may configure, Hive's authorization hook, reads it; so the client gives it too. Found when an
attached session's transaction commit replayed a deletion on a callback thread: ``getAllDatabases`` failed with a
``NullPointerException`` (``SessionState.getUserIpAddress``), the deletion was left to recovery."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from ddl_log import AtomicDDL

pytestmark = pytest.mark.spark

FILTER_HOOK = "hive.metastore.filter.hook"
AUTHORIZATION_HOOK = "org.apache.hadoop.hive.ql.security.authorization.plugin.AuthorizationMetaStoreFilterHook"


def test_who_uses_a_directory_is_answered_on_a_thread_that_never_ran_spark(clean_spark: Any, tmp_path: Any) -> None:
    conf = clean_spark._jsparkSession.sharedState().externalCatalog().unwrapped().client().conf()
    hook = conf.get(FILTER_HOOK)
    conf.set(FILTER_HOOK, AUTHORIZATION_HOOK)  # read by the metastore client the engine below opens
    try:
        with AtomicDDL(spark=clean_spark, home=tmp_path / "home") as ddl:
            ddl.sql("CREATE TABLE th USING parquet AS SELECT 1 AS v")
            location = ddl.sql("DESCRIBE HISTORY th")[-1].result.rows[0].location
            directories = ddl.context().catalog.directories
            answers: list[Any] = []

            def ask() -> None:
                try:
                    answers.append(directories.directory_user(location))
                except Exception as error:  # noqa: BLE001 - reported to the test's thread
                    answers.append(error)

            thread = threading.Thread(target=ask)
            thread.start()
            thread.join()
            assert len(answers) == 1 and isinstance(answers[0], str) and "th" in answers[0], answers
    finally:
        conf.set(FILTER_HOOK, hook)
