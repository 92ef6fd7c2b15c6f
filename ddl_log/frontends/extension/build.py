"""Build the extension's JVM part (``make install`` runs ``python -m ddl_log.frontends.extension.build``): the Java
sources under ``java/`` compiled by the JDK's ``javac`` against the jars pyspark ships (no Maven), packed into
``spark-ddl-log-<line>.jar`` beside this module (:func:`~ddl_log.cluster.project_jar.jar_for`; package data,
git-ignored)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from ddl_log.cluster.project_jar import jar_for, java_sources
from ddl_log.errors import ExtensionError

JDK_MISSING = ("the JDK's javac is needed to build the Spark extension (ddl_log/frontends/extension/java): install "
               "a JDK 17 (Debian: apt-get install openjdk-17-jdk-headless) or put its bin/ on PATH")


def pyspark_jars() -> Path:
    """The directory of the jars pyspark ships (found without importing pyspark)."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        raise ExtensionError("pyspark is not installed in this Python: the extension compiles against its jars")
    return Path(next(iter(spec.submodule_search_locations))) / "jars"


def build(jar: Path | None = None) -> Path:
    """Compile the sources against the installed pyspark's jars and write ``jar`` (default: that Spark line's,
    :func:`~ddl_log.cluster.project_jar.jar_for`; replaced whole: written aside, then moved in)."""
    jar = jar or jar_for()
    javac = shutil.which("javac")
    if javac is None:
        raise ExtensionError(JDK_MISSING)
    jars = pyspark_jars()
    with tempfile.TemporaryDirectory(prefix="ddl-log-extension-") as work:
        classes = Path(work) / "classes"
        classes.mkdir()
        command = [javac, "--release", "17", "-Xlint:all,-path", "-Werror", "-d", str(classes),
                   "-cp", str(jars / "*"), *map(str, java_sources())]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise ExtensionError("javac failed:\n" + (done.stderr or done.stdout).strip())
        partial = Path(work) / jar.name
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nCreated-By: spark-ddl-log\n\n")
            for path in sorted(classes.rglob("*.class")):
                archive.write(path, path.relative_to(classes).as_posix())
        shutil.move(str(partial), jar)
    return jar


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    jar = Path(args[0]) if args else None
    try:
        built = build(jar)
    except ExtensionError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"built {built}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
