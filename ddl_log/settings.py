"""Every setting of a DDL log home in one frozen, validated record, with its default said once: what
:class:`~ddl_log.AtomicDDL` takes, what ``ddl-log`` reads from its options, and what ``DDL_LOG_<NAME>`` environment
variables set (``DDL_LOG_GRACE_SECONDS=600``), so that every setting can be set the same way everywhere.

Precedence: an explicit value (a keyword, a command option) over the environment over the default.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from typing import Any

import attrs

from actions.context import DEFAULT_GRACE_SECONDS, DEFAULT_RETENTION_SECONDS
from chains.log import DEFAULT_COMPACT_BYTES
from ddl_log.cluster.locks import DEFAULT_LOCK_WAIT_SECONDS
from ddl_log.errors import InvalidSettingError

ENV_PREFIX = "DDL_LOG_"




def _non_negative(instance: object, attribute: attrs.Attribute[Any], value: float | None) -> None:
    if value is not None and value < 0:
        raise InvalidSettingError(attribute.name, value, "must not be negative")


def _positive(instance: object, attribute: attrs.Attribute[Any], value: float | None) -> None:
    if value is not None and value <= 0:
        raise InvalidSettingError(attribute.name, value, "must be more than 0")


def _thrift(instance: object, attribute: attrs.Attribute[Any], value: str | None) -> None:
    if value is not None and not value.startswith("thrift://"):
        raise InvalidSettingError(attribute.name, value, "must be a thrift://host:port URI")


MASTER_PREFIXES = ("local", "spark://", "yarn", "k8s://", "mesos://")


def _master(instance: object, attribute: attrs.Attribute[Any], value: str | None) -> None:
    if value is not None and not value.startswith(MASTER_PREFIXES):
        raise InvalidSettingError(attribute.name, value, "must be a Spark master URL (spark://host:port, yarn, "
                                  "k8s://..., local[N])")


def _setting(default: Any, help: str, *, validator: Any = None, kind: type = float) -> Any:
    return attrs.field(default=default, validator=validator, metadata={"help": help, "kind": kind})


@attrs.frozen
class Settings:
    """How a home runs its statements. Each field's help is what ``ddl-log --help`` and the README say of it."""

    binlog: bool = _setting(True, "write committed statements to the binlog (its write is the commit point); off: "
                                  "closing a statement's chain commits it", kind=bool)
    binlog_versions: bool = _setting(True, "record in the binlog event of a statement with a query (CTAS, INSERT "
                                           "OVERWRITE ... SELECT) where its table version's files are and its "
                                           "definition, so replicas copy rows instead of re-running the query "
                                           "(two metastore reads per such statement)", kind=bool)
    grace_seconds: float = _setting(DEFAULT_GRACE_SECONDS, "how long a replaced or dropped table's old files stay "
                                    "for the queries that listed them; set it to your longest query",
                                    validator=_non_negative)
    retention_seconds: float = _setting(DEFAULT_RETENTION_SECONDS, "how long a replaced or dropped table's previous "
                                        "version stays restorable (RESTORE, UNDROP); a table's "
                                        "spark_ddl_log.retention_seconds property overrides it; never less than "
                                        "grace_seconds", validator=_non_negative)
    lock_wait_seconds: float = _setting(DEFAULT_LOCK_WAIT_SECONDS, "how long a statement waits for another "
                                        "driver's metadata locks (database home) or an open transaction's",
                                        validator=_non_negative)
    lease_seconds: float | None = _setting(None, "database home: the lease its heartbeat renews (default 30)",
                                           validator=_positive)
    takeover_interval: float | None = _setting(None, "database home: how often dead drivers' homes are taken over "
                                               "(default: the lease)", validator=_positive)
    wait_seconds: float = _setting(0.0, "how long opening waits for the home's lock held by another process",
                                   validator=_non_negative)
    metastore_uri: str | None = _setting(None, "a Hive metastore service (thrift://host:port) instead of the "
                                         "embedded metastore", validator=_thrift, kind=str)
    warehouse: str | None = _setting(None, "with metastore_uri: where new databases' managed tables go", kind=str)
    spark_master: str | None = _setting(None, "the cluster manager the driver's executors run on (spark://host:port, "
                                        "yarn, k8s://...; default local[2]: tasks in the driver's JVM); the "
                                        "warehouse must be on a file system every executor reaches",
                                        validator=_master, kind=str)
    orphan_seconds: float | None = _setting(None, "on a cluster: how long a task may go on writing after its driver "
                                            "died or its statement was undone; an undone statement's work table "
                                            "is swept again after it (default: the executors' heartbeat limit, "
                                            "spark.executor.heartbeatInterval x (maxFailures + 1), 610 s; 0: off)",
                                            validator=_non_negative)
    compact_bytes: int = _setting(DEFAULT_COMPACT_BYTES, "rewrite the log with only its live chains once it is "
                                  "this large and no chain is active (0: whenever none is)", validator=_non_negative,
                                  kind=int)
    binlog_segment_bytes: int | None = _setting(None, "rotate the binlog to a new segment at this size (default "
                                                "1 MiB)", validator=_positive, kind=int)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **explicit: Any) -> Settings:
        """The defaults, then ``DDL_LOG_<NAME>`` variables of ``environ`` (default: the process environment), then
        ``explicit`` values (None leaves a setting to the environment)."""
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for field in attrs.fields(cls):
            raw = environ.get(ENV_PREFIX + field.name.upper())
            if raw is not None and raw != "":
                values[field.name] = _parse(field, raw)
        unknown = set(explicit) - {field.name for field in attrs.fields(cls)}
        if unknown:
            raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
        values.update({name: value for name, value in explicit.items() if value is not None})
        return cls(**values)

    def evolve(self, **changes: Any) -> Settings:
        return attrs.evolve(self, **{name: value for name, value in changes.items() if value is not None})


def _parse(field: attrs.Attribute[Any], raw: str) -> Any:
    kind = field.metadata["kind"]
    try:
        if kind is bool:
            lowered = raw.strip().lower()
            if lowered not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                raise ValueError(raw)
            return lowered in ("1", "true", "yes", "on")
        return kind(raw)
    except ValueError:
        raise InvalidSettingError(field.name, raw,
                                  f"not a {kind.__name__} ({ENV_PREFIX}{field.name.upper()})") from None


def add_setting_options(parser: argparse.ArgumentParser) -> None:
    """A ``--<name>`` option per setting (``--no-binlog`` for the one that is on by default); unset options leave a
    setting to the environment and the default (:func:`settings_from_options`)."""
    for field in attrs.fields(Settings):
        option = "--" + field.name.replace("_", "-")
        help_text = f"{field.metadata['help']} (env {ENV_PREFIX}{field.name.upper()})"
        if field.metadata["kind"] is bool:
            parser.add_argument("--no-" + field.name.replace("_", "-"), dest=field.name, action="store_const",
                                const=False, default=argparse.SUPPRESS, help=help_text)
        else:
            parser.add_argument(option, dest=field.name, type=field.metadata["kind"], default=argparse.SUPPRESS,
                                metavar=field.name.upper(), help=help_text)


def settings_from_options(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> Settings:
    """The settings a command runs with: its options over the environment over the defaults."""
    given = {field.name: getattr(args, field.name) for field in attrs.fields(Settings) if hasattr(args, field.name)}
    return Settings.from_env(environ, **given)
