"""The project's jar (its JVM part: the session extension, the one-round-trip listing, the commit protocol that names
an INSERT's job): built by ``make install`` (``python -m ddl_log.frontends.extension.build``) for the installed
pyspark's line, beside the extension's sources. A session the project builds itself carries it when it is built
(:func:`jar_settings`), so that its statements get what the jar gives without the extension being loaded."""

from __future__ import annotations

from pathlib import Path

from ddl_log.errors import ExtensionError

HERE = Path(__file__).resolve().parents[1] / "frontends" / "extension"
"""Where the jars live (package data of :mod:`ddl_log.frontends.extension`)."""
SOURCES = HERE / "java"


def spark_line() -> str:
    """The ``major.minor`` of the installed pyspark, read from its package metadata (pyspark is not imported)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return ".".join(version("pyspark").split(".")[:2])
    except PackageNotFoundError:
        raise ExtensionError("pyspark is not installed in this Python: the extension is built for its jars") from None


def jar_for(line: str | None = None) -> Path:
    """The extension's jar for a Spark line (default: the installed pyspark's): built by ``make install``
    (``python -m ddl_log.frontends.extension.build``) against that line's jars, package data, git-ignored. One jar
    per line, so that environments of several Spark versions can share one source tree."""
    return HERE / f"spark-ddl-log-{line or spark_line()}.jar"


def java_sources() -> list[Path]:
    return sorted(SOURCES.rglob("*.java"))


def stale(jar: Path | None = None) -> bool:
    """Whether ``jar`` (default: the installed pyspark's) is missing or older than one of its sources."""
    jar = jar or jar_for()
    return not jar.exists() or any(source.stat().st_mtime > jar.stat().st_mtime for source in java_sources())


def jar_settings() -> dict[str, str]:
    """``spark.jars`` with the project's jar for a session the project builds (its executors get it too), or
    nothing where it is not built or older than its sources (that session then does without it: INSERT INTO writes
    aside, listings walk from Python)."""
    try:
        jar = jar_for()
    except ExtensionError:
        return {}
    return {} if stale(jar) else {"spark.jars": str(jar)}
