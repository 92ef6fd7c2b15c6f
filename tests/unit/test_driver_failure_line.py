"""A hosted server's driver that fails says why in one line: for a JVM call's failure the line names the JVM's
innermost cause (Py4J's own first line names only the method called), and a JVM already gone costs only the cause."""

from __future__ import annotations

from typing import Any

import attrs

from ddl_log.frontends.cli.hosting_driver import failure_line


@attrs.frozen
class JavaThrowable:
    """The two calls failure_line makes on a Py4J JavaObject of a Throwable."""

    text: str
    cause: Any = None

    def getCause(self) -> Any:  # noqa: N802 - the Java method's name
        return self.cause

    def toString(self) -> str:  # noqa: N802 - the Java method's name
        return self.text


class JvmCallError(Exception):
    def __init__(self, message: str, java_exception: Any) -> None:
        super().__init__(message)
        self.java_exception = java_exception


class GoneJvm:
    def getCause(self) -> Any:  # noqa: N802 - the Java method's name
        raise ConnectionRefusedError("the gateway is gone")


def test_a_python_error_gives_its_type_and_first_line() -> None:
    assert failure_line(ValueError("bad value\nmore")) == "ValueError: bad value"


def test_a_jvm_call_error_names_the_innermost_cause() -> None:
    bind = JavaThrowable("java.net.BindException: Address already in use\n\tat sun.nio.ch.Net.bind0")
    error = JvmCallError("An error occurred while calling z:SparkConnectService.start.\n: java.io.IOException",
                         JavaThrowable("java.io.IOException: Failed to bind to address", bind))
    assert failure_line(error) == ("JvmCallError: An error occurred while calling z:SparkConnectService.start. "
                                   "(caused by java.net.BindException: Address already in use)")


def test_a_jvm_gone_meanwhile_leaves_the_python_line() -> None:
    error = JvmCallError("An error occurred while calling o12.start", GoneJvm())
    assert failure_line(error) == "JvmCallError: An error occurred while calling o12.start"
