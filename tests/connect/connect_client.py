"""A Spark Connect client in a process of its own (a classic and a Connect session cannot share one):
``python -m tests.connect.connect_client sc://HOST:PORT STEPS`` takes a JSON list of steps and prints one JSON
object per step: ``{"label": ..., "rows": [...]}``, or ``{"label": ..., "error": class, "condition": ...,
"message": its first line}``. All steps run in one Connect session.

Steps: ``["sql", label, text]`` (or ``["sql", label, text, args]``, the values of its parameter markers);
``["write", label, source, call, table]``, ``source`` a query whose DataFrame is written, ``call`` one of
:data:`CALLS`; ``["tables", label, pattern]``, the names ``spark.catalog.listTables`` gives
for database ``default`` (``pattern`` may be null)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

CALLS: dict[str, Callable[[Any, str], None]] = {
    "saveAsTable": lambda frame, table: frame.write.saveAsTable(table),
    "saveAsTable:append": lambda frame, table: frame.write.mode("append").saveAsTable(table),
    "saveAsTable:overwrite": lambda frame, table: frame.write.mode("overwrite").saveAsTable(table),
    "insertInto": lambda frame, table: frame.write.insertInto(table),
    "insertInto:overwrite": lambda frame, table: frame.write.insertInto(table, overwrite=True),
    "writeTo:create": lambda frame, table: frame.writeTo(table).using("parquet").create(),
    "writeTo:createOrReplace": lambda frame, table: frame.writeTo(table).using("parquet").createOrReplace(),
    "writeTo:replace": lambda frame, table: frame.writeTo(table).using("parquet").replace(),
    "writeTo:append": lambda frame, table: frame.writeTo(table).append(),
}


def run_step(spark: Any, step: list[Any]) -> dict[str, Any]:
    kind, label = step[0], step[1]
    try:
        if kind == "sql":
            rows = [list(row) for row in spark.sql(step[2], args=step[3] if len(step) > 3 else None).collect()]
        elif kind == "tables":
            rows = sorted([table.name] for table in spark.catalog.listTables("default", step[2]))
        else:
            CALLS[step[3]](spark.sql(step[2]), step[4])
            rows = []
    except Exception as error:  # noqa: BLE001 - what the client gets is the step's outcome
        condition = getattr(error, "getCondition", lambda: None)()
        return {"label": label, "error": type(error).__name__, "condition": condition,
                "message": str(error).strip().splitlines()[0] if str(error).strip() else ""}
    return {"label": label, "rows": rows}


def main(url: str, steps: list[list[Any]]) -> int:
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(url).getOrCreate()
    for step in steps:
        print(json.dumps(run_step(spark, step), default=str), flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1], json.loads(sys.argv[2])))
