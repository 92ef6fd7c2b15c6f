"""Reading a source's catalog that lives in another metastore: a Spark driver of its own (one Hive metastore per JVM)
that answers one JSON line per request on stdin/stdout with :class:`~ddl_log.replication.snapshot.CatalogReader`'s
answers, so bootstrap, ``check`` and ``resync`` read the source exactly as a driver of it would (the same catalog code,
the source's engine computing its checksums).

``python -m ddl_log.replication.reader_process --dir SCRATCH (--metastore-uri thrift://HOST:PORT | --embedded HOME)``

``--embedded``: the source home's own Derby metastore, opened read-only in spirit. Derby lets one JVM open a
database at a time, so this works only while the source's driver is stopped; otherwise the reader fails to start and
:class:`ProcessReader` says so (:class:`~ddl_log.replication.errors.SourceCatalogError`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

import attrs

from ddl_log.replication.errors import SourceCatalogError
from ddl_log.replication.snapshot import CatalogReader, DatabaseSnapshot, TableCopy
from storage.catalogs.copying import DatabaseDefinition
from storage.catalogs.interface import FunctionDefinition, ViewDefinition
from storage.catalogs.names import TableName

START_SECONDS = 300.0
EMBEDDED = "embedded"
DERBY_BUSY = ("Another instance of Derby", "XSDB6", "Failed to start database")


def name_of(text: str) -> TableName:
    db, _, name = text.partition(".")
    return TableName(db, name)


def table_to_json(table: TableCopy) -> dict[str, Any]:
    return {"name": str(table.name), "definition": table.definition, "location": table.location,
            "refusal": table.refusal}


def table_from_json(data: dict[str, Any]) -> TableCopy:
    return TableCopy(name_of(data["name"]), data["definition"], data["location"], data["refusal"])


def snapshot_to_json(snapshot: DatabaseSnapshot) -> dict[str, Any]:
    return {"name": snapshot.name, "definition": attrs.asdict(snapshot.definition),
            "tables": [table_to_json(t) for t in snapshot.tables],
            "views": [[str(n), attrs.asdict(v)] for n, v in snapshot.views],
            "functions": [[str(n), attrs.asdict(f)] for n, f in snapshot.functions]}


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def snapshot_from_json(data: dict[str, Any]) -> DatabaseSnapshot:
    definition = data["definition"]
    return DatabaseSnapshot(
        data["name"], DatabaseDefinition(definition["comment"], _tuples(definition["properties"])),
        tuple(table_from_json(t) for t in data["tables"]),
        tuple((name_of(n), ViewDefinition(**{k: _tuples(v) for k, v in view.items()})) for n, view in data["views"]),
        tuple((name_of(n), FunctionDefinition(**{k: _tuples(v) for k, v in f.items()}))
              for n, f in data["functions"]))


def serve(reader: CatalogReader, requests: IO[str], replies: IO[str]) -> None:
    """Answer each request line (``{"op": ..., "arg": ...}``) with one line: ``{"ok": answer}`` or
    ``{"error": ...}``."""
    for line in requests:
        request = json.loads(line)
        op, arg = request["op"], request.get("arg")
        try:
            if op == "databases":
                answer: Any = reader.catalog.copies.list_databases()
            elif op == "read_database":
                found = reader.read_database(arg)
                answer = None if found is None else snapshot_to_json(found)
            elif op == "read_table":
                table = reader.read_table(name_of(arg))
                answer = None if table is None else table_to_json(table)
            elif op == "digest":
                answer = reader.digest(name_of(arg))
            elif op == "checksum":
                answer = reader.checksum(name_of(arg))
            else:
                raise ValueError(f"unknown request {op!r}")
            replies.write(json.dumps({"ok": answer}) + "\n")
        except Exception as error:  # noqa: BLE001 - every failure goes back to the caller, typed by name
            replies.write(json.dumps({"error": type(error).__name__, "message": str(error)[:2000]}) + "\n")
        replies.flush()


def session(scratch: Path, metastore_uri: str | None, embedded: str | None) -> Any:
    from storage.catalogs.spark.session import embedded_settings, service_session

    if metastore_uri is not None:
        return service_session(scratch, metastore_uri)
    from pyspark.sql import SparkSession

    home = Path(str(embedded)).resolve()
    settings = embedded_settings(scratch)
    settings["spark.hadoop.javax.jdo.option.ConnectionURL"] = f"jdbc:derby:;databaseName={home / 'metastore_db'}"
    settings["spark.sql.warehouse.dir"] = str(home / "warehouse")
    builder = SparkSession.builder.master("local[2]").appName("ddl-log-source-reader")
    for key, value in settings.items():
        builder = builder.config(key, value)
    return builder.enableHiveSupport().getOrCreate()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dir", required=True)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--metastore-uri")
    group.add_argument("--embedded", metavar="HOME")
    args = parser.parse_args(argv)
    from storage.catalogs.spark.catalog import spark_catalog

    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # what the JVM prints goes to the log, never into the replies
    spark = session(Path(args.dir), args.metastore_uri, args.embedded)
    spark.sparkContext.setLogLevel("ERROR")
    catalog = spark_catalog(spark)
    catalog.copies.list_databases()  # the metastore answers: ready
    replies.write(json.dumps({"ready": True}) + "\n")
    replies.flush()
    serve(CatalogReader(catalog), sys.stdin, replies)
    return 0


class ProcessReader:
    """A :class:`~ddl_log.replication.snapshot.SourceCatalog` served by a reader process (see the module)."""

    files: object | None = None

    def __init__(self, source: str, scratch: str, *, metastore_uri: str | None = None,
                 embedded: str | None = None) -> None:
        self.source = source
        os.makedirs(scratch, mode=0o700, exist_ok=True)
        where = ["--metastore-uri", metastore_uri] if metastore_uri is not None else ["--embedded", str(embedded)]
        self.embedded = embedded is not None
        self.log_path = os.path.join(scratch, "reader.log")
        self.logs = [self.log_path, os.path.join(scratch, "logs", "spark.log"), os.path.join(scratch, "derby.log")]
        for old in self.logs[1:]:  # what an earlier reader said is not this one's
            with contextlib.suppress(FileNotFoundError):
                os.remove(old)
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen([sys.executable, "-m", "ddl_log.replication.reader_process", "--dir",
                                             scratch, *where], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=log, text=True)
        self.lock = threading.Lock()
        self._read_line("start", START_SECONDS)

    def _fail(self, what: str) -> SourceCatalogError:
        with open(self.log_path, encoding="utf-8", errors="replace") as log:
            tail = log.read()[-3000:]
        self.close()
        everything = ""
        for path in self.logs:  # Spark's and Derby's own logs say why the metastore did not open
            with contextlib.suppress(FileNotFoundError), open(path, encoding="utf-8", errors="replace") as log:
                everything += log.read()[-200_000:]
        if self.embedded and any(mark in everything for mark in DERBY_BUSY):
            return SourceCatalogError(self.source, "its embedded Derby metastore is open in its driver's JVM (Derby "
                                      "lets one JVM open it): stop the source's driver while it is read, or run the "
                                      "source on a metastore service and give its URI")
        lines = [line for line in tail.splitlines() if line.strip()]
        return SourceCatalogError(self.source, f"the reader of its catalog failed at {what}: "
                                  f"{lines[-1] if lines else 'no output'}")

    def _read_line(self, what: str, timeout: float) -> Any:
        assert self.process.stdout is not None
        reply: list[str] = []
        reading = threading.Thread(target=lambda: reply.append(self.process.stdout.readline()  # type: ignore
                                                               ), daemon=True)
        reading.start()
        reading.join(timeout)
        if not reply or not reply[0]:
            raise self._fail(what)
        return json.loads(reply[0])

    def _call(self, op: str, arg: str | None = None) -> Any:
        with self.lock:
            assert self.process.stdin is not None
            try:
                self.process.stdin.write(json.dumps({"op": op, "arg": arg}) + "\n")
                self.process.stdin.flush()
            except OSError:
                raise self._fail(op) from None
            answer = self._read_line(op, START_SECONDS)
        if "error" in answer:
            raise SourceCatalogError(self.source, f"{op} {arg or ''}: {answer['error']}: {answer['message']}")
        return answer["ok"]

    def databases(self) -> list[str]:
        return list(self._call("databases"))

    def read_database(self, db: str) -> DatabaseSnapshot | None:
        data = self._call("read_database", db)
        return None if data is None else snapshot_from_json(data)

    def read_table(self, name: TableName) -> TableCopy | None:
        data = self._call("read_table", str(name))
        return None if data is None else table_from_json(data)

    def digest(self, name: TableName) -> str | None:
        found = self._call("digest", str(name))
        return None if found is None else str(found)

    def checksum(self, name: TableName) -> str:
        return str(self._call("checksum", str(name)))

    def close(self) -> None:
        if self.process.poll() is None:
            if self.process.stdin is not None:
                self.process.stdin.close()
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


if __name__ == "__main__":
    sys.exit(main())
