"""``ddl-log crash-points``: every crash point of the registry (:mod:`storage.crashpoints`), declared on import by
the modules of every layer."""

from __future__ import annotations

import argparse
import importlib

from ddl_log.frontends.cli.output import EXIT_OK, out


def cmd_crash_points(args: argparse.Namespace) -> int:
    from storage import crashpoints

    load_crash_points()
    for point in crashpoints.describe():
        out(f"{point.name}\t{point.doc}" if args.describe else point.name)
    return EXIT_OK


def load_crash_points() -> None:
    """Import the modules that declare crash points (they register on import). The Python API imports them all: the
    statements (``ddl_log.engine``), recovery, the replace machine (``replace_table``), the actions, the log and
    binlog (``chains``), the record layer (``storage.records``) and the catalog interface (``storage.catalogs``); it
    imports Spark only when a session is needed, so no JVM starts (tests/cli/test_cli.py checks the list is whole)."""
    importlib.import_module("ddl_log.frontends.python")
