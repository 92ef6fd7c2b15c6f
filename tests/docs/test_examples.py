"""The README's and the docs' examples run, as a reader would run them, on the embedded default: local Spark with
a Derby metastore, each page in a directory of its own (``./ddl_home`` is a home there).

Each page's ``python`` and ``sh`` blocks run in the page's order, sharing one namespace (a page is one session at a
prompt, as a doctest file is): a block with ``>>>`` prompts is a doctest whose output must match, any other block
is run whole and must not raise. In a ``sh`` block:

* ``ddl-log ...`` and ``python -m ddl_log ...`` run the real command line (its parser, its commands, its exit code,
  which must be 0) in this process, on the test process's one Spark session instead of a JVM of their own; only the
  process boundary is not real, so the command's stopping of the session it started at exit is left out;
* ``make TARGET [VAR=value]`` must name a target and variables of the Makefile (not run: ``make test`` cannot run
  itself, and the long targets are the suites' own);
* ``pip install 'spark-ddl-log[EXTRA]'`` must name an extra of pyproject.toml (not run: no network in a test);
* ``export NAME=value`` sets the variable for the rest of the page;
* ``> FILE`` after a command writes its output to FILE in the page's directory.

Any other command fails the test: mark a block that is not meant to run (it needs a cluster, a metastore service, a
PostgreSQL database) with ``<!-- docs-test: skip: why -->`` on the line above its fence (tests/docs/markdown.py).
Spark starts once per test process (the ``spark`` fixture of tests/conftest.py); after each page the catalog and
the warehouse are emptied again.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import os
import re
import shlex
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ddl_log.engine.core import DDLEngine
from tests.conftest import reset_spark
from tests.docs.markdown import ROOT, Block, blocks, doc_files, relative

PAGES = [path for path in doc_files() if any(block.runs for block in blocks(path))]
DOCTEST_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def test_every_skipped_block_says_why() -> None:
    unexplained = [block.where for path in doc_files() for block in blocks(path)
                   if block.verb is not None and (block.verb != "skip" or not block.reason)]
    assert not unexplained, f"markers without a known verb and a reason: {unexplained}"


@pytest.mark.parametrize("page", PAGES, ids=relative)
def test_the_examples_of_a_page_run(page: Path, spark: Any, warehouse: Path, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [name for name in os.environ if name.startswith("DDL_LOG_")]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    settings = dict(spark.conf.getAll)
    reset_spark(spark, warehouse)  # a page starts from an empty catalog, whatever a test before it left
    try:
        for block in blocks(page):
            if block.runs:
                run_block(block, namespace, tmp_path, monkeypatch)
    finally:
        close_engines(namespace)
        restore_settings(spark, settings)
        spark.sql("USE default")
        reset_spark(spark, warehouse)


def run_block(block: Block, namespace: dict[str, Any], workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if block.lang == "python":
        run_python(block, namespace)
    else:
        for line, command in shell_commands(block):
            run_command(command, f"{relative(block.path)}:{line}", workdir, monkeypatch)


# ------------------------------------------------------------------ Python


def run_python(block: Block, namespace: dict[str, Any]) -> None:
    if re.search(r"^>>> ", block.text, flags=re.MULTILINE):
        test = doctest.DocTestParser().get_doctest(block.text, namespace, block.where, str(block.path), block.line)
        output = io.StringIO()
        runner = doctest.DocTestRunner(optionflags=DOCTEST_FLAGS)
        runner.run(test, out=output.write, clear_globs=False)
        assert runner.failures == 0, f"{block.where}: the example's output differs\n{output.getvalue()}"
        return
    code = compile("\n" * block.line + block.text, str(block.path), "exec")
    exec(code, namespace)  # the example as a reader runs it


def restore_settings(spark: Any, settings: dict[str, str]) -> None:
    """Undo the page's ``SET``s: the session is shared with the tests that run after it in this process."""
    for key, value in dict(spark.conf.getAll).items():
        if key not in settings:
            spark.conf.unset(key)
        elif settings[key] != value:
            spark.conf.set(key, settings[key])


def close_engines(namespace: dict[str, Any]) -> None:
    """Let go of every home a page left open (its lock, files and metastore client), as the process's end would."""
    for value in namespace.values():
        if isinstance(value, DDLEngine):
            with contextlib.suppress(Exception):
                value.close()


# ------------------------------------------------------------------ shell


def shell_commands(block: Block) -> Iterator[tuple[int, list[str]]]:
    """(line, words) of each command: comments dropped, ``\\`` continuations joined."""
    pending, start = "", 0
    for offset, raw in enumerate(block.text.splitlines(), start=1):
        if not pending:
            start = block.line + offset
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        words = shlex.split(pending + raw, comments=True)
        pending = ""
        if words:
            yield start, words


def run_command(words: list[str], where: str, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    words, target = redirected(words)
    if words[0] == "ddl-log" or words[:3] == ["python", "-m", "ddl_log"]:
        output = run_ddl_log(words[1:] if words[0] == "ddl-log" else words[3:], where, monkeypatch)
        if target is not None:
            (workdir / target).write_text(output, encoding="utf-8")
    elif words[0] == "make":
        check_make(words[1:], where)
    elif words[:2] == ["pip", "install"]:
        check_extras(words[2:], where)
    elif words[0] == "export":
        for assignment in words[1:]:
            name, _, value = assignment.partition("=")
            monkeypatch.setenv(name, value)
    else:
        pytest.fail(f"{where}: {shlex.join(words)} is not a command the docs test runs; mark the block "
                    "<!-- docs-test: skip: why --> if it is not meant to run here")


def redirected(words: list[str]) -> tuple[list[str], str | None]:
    if len(words) >= 2 and words[-2] == ">":
        return words[:-2], words[-1]
    return words, None


def run_ddl_log(argv: list[str], where: str, monkeypatch: pytest.MonkeyPatch) -> str:
    from ddl_log.frontends.cli import main

    out, err = io.StringIO(), io.StringIO()
    with monkeypatch.context() as patched:
        patched.setattr(DDLEngine, "stop_spark", lambda self: None)  # the session is this process's, shared
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    assert code == 0, f"{where}: ddl-log {shlex.join(argv)} exited {code}\n{out.getvalue()}{err.getvalue()}"
    return out.getvalue()


def check_make(arguments: list[str], where: str) -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([\w.-]+):(?!=)", makefile, flags=re.MULTILINE))
    variables = set(re.findall(r"^([A-Z_]+)\s*[?:]?=", makefile, flags=re.MULTILINE))
    for argument in arguments:
        name, assigns, _ = argument.partition("=")
        if assigns:
            assert name in variables, f"{where}: the Makefile has no variable {name}"
        else:
            assert name in targets, f"{where}: the Makefile has no target {name}"


def check_extras(arguments: list[str], where: str) -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    for argument in arguments:
        match = re.fullmatch(r"spark-ddl-log\[([\w,-]+)\]", argument)
        assert match, f"{where}: pip install {argument}: the docs install this project's extras only"
        for extra in match[1].split(","):
            assert extra in extras, f"{where}: pyproject.toml has no extra {extra}"
