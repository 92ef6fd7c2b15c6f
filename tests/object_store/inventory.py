"""``python -m tests.object_store.inventory [CASE ...]``: every rename each statement kind makes on the simulated object
store (tests/object_store/statements.py), as a Markdown table: kind (``data`` or ``staging``), objects copied,
source and target relative to the warehouse, staging renames summed per statement. The input of the no-rename
redesign of issue 40; one Spark start for all of it."""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

from ddl_log import AtomicDDL
from tests.conftest import reset_spark, warehouse_of
from tests.object_store.statements import CASES, renames_of
from tests.object_store.store import BUCKET, SCHEME, WAREHOUSE_KEY, object_store_session
from tests.object_store.test_no_data_rename import GRACE_SECONDS, RETENTION_SECONDS

PREFIX = f"{SCHEME}://{BUCKET}/{WAREHOUSE_KEY}/"


def main(names: list[str]) -> int:
    root = Path(tempfile.mkdtemp(prefix="ddl-log-inventory-"))
    spark = object_store_session(root / "spark")
    warehouse = warehouse_of(spark)
    print("| statement | kind | objects | source | target |\n|---|---|---|---|---|")
    for index, name in enumerate(names or sorted(CASES)):
        home = root / f"home{index}"

        def opener(retention_seconds: float = RETENTION_SECONDS, home: Path = home) -> AtomicDDL:
            return AtomicDDL(spark=spark, home=home, compact_bytes=0, grace_seconds=GRACE_SECONDS,
                             retention_seconds=retention_seconds)

        renames = renames_of(spark, opener, CASES[name])
        staging = Counter(r.kind for r in renames if r.kind != "data")
        for rename in (r for r in renames if r.kind == "data"):
            print(f"| {name} | data | {rename.objects} | {rename.source.removeprefix(PREFIX)} | "
                  f"{rename.target.removeprefix(PREFIX)} |")
        objects = sum(r.objects for r in renames if r.kind != "data")
        print(f"| {name} | staging | {objects} in {staging['staging']} renames | | |", flush=True)
        reset_spark(spark, warehouse)
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
