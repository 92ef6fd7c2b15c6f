"""``python -m ddl_log``: the ``ddl-log`` command."""

import sys

from ddl_log.frontends.cli import main

sys.exit(main())
