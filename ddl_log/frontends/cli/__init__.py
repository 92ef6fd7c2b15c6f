"""``ddl-log``: run DDL atomically from SQL, inspect the DDL log and the binlog, and recover, from the shell.

Exit codes: 0 success; 1 a statement (or reading the log) failed, one ``error:`` line on stderr (``--debug`` adds the
traceback); 2 usage; 3 recovery left abandoned chains.

``sql`` and ``recover`` open the home (taking its lock), which runs recovery first; Spark starts only when a
statement or a chain needs it. ``status``, ``dump``, ``binlog`` and ``crash-points`` only read files: they never
start Spark (nor import pyspark), never take the lock and work on a damaged log. Keep this module free of top-level
imports of Spark or of the statement machinery: they are imported by the commands that need them.
"""

from ddl_log.frontends.cli.commands import COMMANDS, build_parser, main
from ddl_log.frontends.cli.crash_points import load_crash_points

__all__ = ["COMMANDS", "build_parser", "load_crash_points", "main"]
