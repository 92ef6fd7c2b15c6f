"""``python -m ddl_log``: the ``ddl-log`` command."""

import sys

from ddl_log.cli import main

sys.exit(main())
