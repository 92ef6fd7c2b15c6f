"""Plain Spark's Thrift server for bench/test_thrift_server.py: ``python -m bench.thrift_plain_driver WORKDIR PORT``.
An embedded session without the extension, Spark's ``HiveThriftServer2`` started in it as ``ddl-log thrift-server``
starts it; it prints ``serving`` once it accepts connections and runs until it is killed."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

from ddl_log.frontends.extension.thrift_driver import server_settings, start_hive_thrift_server
from storage.catalogs.spark.profile import jvm_of
from storage.catalogs.spark.session import embedded_session


def main(workdir: Path, port: int) -> int:
    spark = embedded_session(workdir, extra=server_settings("127.0.0.1", port))
    jvm = jvm_of(spark)
    assert jvm is not None
    start_hive_thrift_server(jvm)
    print("serving", flush=True)
    threading.Event().wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1]), int(sys.argv[2])))
