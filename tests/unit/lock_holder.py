"""Another driver's process holding cross-driver metadata locks:
``python -m tests.unit.lock_holder URL HOME_ID WAIT_SECONDS HOLD REPEAT LOCK...``.

Each LOCK is ``x:KIND:NAME`` (exclusive) or ``s:KIND:NAME`` (shared), KIND ``table`` (NAME ``db.t``), ``db`` or
``function``; they are taken through :class:`MetadataLocks` (sorted, whatever the order given). ``HOLD``: seconds to
hold them, or ``stdin`` to hold until a line arrives. The whole is done ``REPEAT`` times. Prints one JSON line per
event (``held``, ``leaving``, ``released``, ``timeout``) with the wall time ``t``.
"""

from __future__ import annotations

import json
import sys
import time

from chains.lock_keys import database_key, function_key, object_key
from ddl_log.cluster.locks import MetadataLocks
from storage.catalogs.names import TableName
from storage.errors import MetadataLockTimeoutError
from storage.records.pg_locks import ClusterLocks


def key_of(kind: str, name: str) -> str:
    if kind == "db":
        return database_key(name)
    table = TableName.of(name)
    return function_key(table) if kind == "function" else object_key(table)


def say(event: str, **details: object) -> None:
    print(json.dumps({"event": event, "t": time.time(), **details}), flush=True)


def main(url: str, home_id: str, wait: str, hold: str, repeat: str, locks: list[str]) -> int:
    cluster = ClusterLocks(url, f"ddl-log:{home_id}", wait_seconds=float(wait))
    metadata = MetadataLocks(cluster)
    exclusive, shared = [], []
    for lock in locks:
        mode, kind, name = lock.split(":", 2)
        (exclusive if mode == "x" else shared).append(key_of(kind, name))
    for _ in range(int(repeat)):
        try:
            with metadata.hold(exclusive, shared=shared):
                say("held")
                if hold == "stdin":
                    sys.stdin.readline()
                else:
                    time.sleep(float(hold))
                say("leaving")  # still held: spans from held to leaving never overlap another driver's
            say("released")
        except MetadataLockTimeoutError as exc:
            say("timeout", object=exc.object_name, holder=exc.holder, message=str(exc))
            return 3
    cluster.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:6], sys.argv[6:]))
