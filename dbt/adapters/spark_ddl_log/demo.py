"""``make dbt-demo``: a ``dbt run`` SIGKILLed (JVM included) while the adapter's CREATE OR REPLACE of a model runs,
then ``ddl-log status`` / ``recover`` showing the model's old table whole, and the next ``dbt run`` succeeding; every
step through the real ``dbt`` and ``ddl-log`` commands, in ``./dbt_demo`` (``DBT_DEMO_DIR``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

DIR = Path(os.environ.get("DBT_DEMO_DIR", "./dbt_demo")).resolve()
HOME = DIR / "ddl_home"
BIN = Path(sys.executable).parent
CRASH_POINT = "replace.exchange.between"
NOISE = ("WARNING: Using incubator modules",)
MODEL = "{{ config(materialized='table') }}\nselect id, {{ var('version') }} as version, id * 2 as amount " \
        "from range(300000)"


def setup() -> None:
    if DIR.exists():
        shutil.rmtree(DIR)
    (DIR / "models").mkdir(parents=True)
    (DIR / "dbt_project.yml").write_text("name: demo\nversion: '1.0'\nconfig-version: 2\nprofile: demo\n")
    (DIR / "models" / "sales.sql").write_text(MODEL)
    (DIR / "models" / "big_sales.sql").write_text(
        "{{ config(materialized='view') }}\nselect * from {{ ref('sales') }} where amount > 1000")
    (DIR / "profiles.yml").write_text(
        "demo:\n  target: dev\n  outputs:\n    dev:\n      type: spark_ddl_log      # the one changed line\n"
        f"      method: session\n      host: localhost\n      schema: demo\n      ddl_log_home: {HOME}\n")


def dbt(*args: str) -> list[str]:
    return [str(BIN / "dbt"), *args, "--project-dir", str(DIR), "--profiles-dir", str(DIR)]


def show(title: str, command: list[str]) -> None:
    print(f"\n== {title}\n   $ {' '.join(command[:6])} ...", flush=True)
    result = subprocess.run(command, text=True, capture_output=True, check=False, start_new_session=True)
    for line in (result.stdout + result.stderr).splitlines():
        if line.strip() and not line.startswith(NOISE):
            print("   " + line)


def ddl_log(*args: str) -> list[str]:
    return [str(BIN / "ddl-log"), "--home", str(HOME), *args]


def killed_run() -> None:
    """SIGKILLed (with its JVM) by the DDL log itself at the crash point between the swap's two metastore calls
    (``DDL_LOG_CRASH_AT``): the old definition is held by TMP, the new table not installed yet."""
    command = dbt("--debug", "run", "--vars", "{version: 2}")
    print(f"\n== dbt run (version 2), SIGKILLed mid-swap of demo.sales (DDL_LOG_CRASH_AT={CRASH_POINT})", flush=True)
    process = subprocess.Popen(command, text=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               start_new_session=True, env={**os.environ, "DDL_LOG_CRASH_AT": CRASH_POINT})
    assert process.stdout is not None
    for line in process.stdout:
        if "create" in line and "any kind" in line and "demo.sales" in line:
            print("   sent: " + line.strip()[:150], flush=True)
    print(f"   dbt run ended with signal {-process.wait()} (9: SIGKILL, its JVM too)", flush=True)


def main() -> int:
    started = time.monotonic()
    setup()
    show("dbt run (version 1)", dbt("run", "--vars", "{version: 1}"))
    killed_run()
    show("ddl-log status: the killed statement's chain is still to do", ddl_log("status"))
    show("ddl-log recover: undone", ddl_log("recover"))
    show("the model's table: the old version, whole", ddl_log(
        "sql", "SELECT version, count(*) AS n FROM demo.sales GROUP BY version"))
    show("dbt run (version 3): succeeds", dbt("run", "--vars", "{version: 3}"))
    show("ddl-log binlog: which model of which dbt run made each change", ddl_log("binlog"))
    print(f"\ndone in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
