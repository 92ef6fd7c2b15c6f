"""The adapter's errors, rooted in :class:`ddl_log.DDLLogError` like every error of the project."""

from __future__ import annotations

from ddl_log import DDLLogError


class AdapterSettingError(DDLLogError):
    """A profiles.yml setting the adapter cannot run with (a method other than ``session``, a bad home...)."""
