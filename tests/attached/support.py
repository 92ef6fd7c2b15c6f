"""Running statements on an attached session as a test needs them: a simulated crash inside the engine (which a
real crash would end the process at) comes back to the test as itself, not as the Spark exception it became on its
way through the JVM."""

from __future__ import annotations

from typing import Any

from ddl_log.frontends.extension import statement_error
from storage.crashpoints import SimulatedCrash


def extension_settings() -> dict[str, str]:
    """Spark settings of a test JVM: the session extension loaded, and off in every session until one sets
    ``spark.ddlLog.enabled=true`` (every other test runs on Spark's own statements, through its parser)."""
    from ddl_log.frontends.extension.conf import extension_settings as loaded

    return loaded(enabled=False)


def crashes_through(call: Any) -> Any:
    """Run ``call``; a Spark exception whose typed error is a :class:`SimulatedCrash` raises that crash."""
    try:
        return call()
    except Exception as error:
        typed = statement_error(error)
        if isinstance(typed, SimulatedCrash):
            raise typed from None
        raise


def routed(session: Any, text: str) -> Any:
    """``session.sql(text)``, with simulated crashes raised as themselves."""
    return crashes_through(lambda: session.sql(text))
