"""The map cannot go stale: every code path the README and the docs name exists in the tree.

Read from every Markdown file (README.md and docs/): the repository paths in code spans and ``text`` blocks
(``storage/records/pg_store.py``, ``tests/dbt/test_atomic_runs.py::TestGoingBackToPlainDbtSpark``), bare file names
(``leftovers.py``), dotted references (``actions.kept_versions.kept_versions``, ``AtomicDDL.release_table_name``), make
targets (``make test-dbt``), ``ddl-log`` commands and ``DDL_LOG_*`` variables. Each test lists every stale reference
at once, with where it is written, so that one run after a move says everything to update. Then the other
direction: docs/layout.md names every source file and package, docs/troubleshooting.md every public error class,
and the README keeps its map in its first 150 of at most 300 lines.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import attrs

from tests.docs.markdown import ROOT, Block, Span, blocks, doc_files, relative, spans

TOP_DIRECTORIES = (".ci", "storage", "chains", "actions", "replace_table", "ddl_log", "dbt", "tests", "bench",
                   "docs")
PACKAGES = ("storage", "chains", "actions", "replace_table", "ddl_log", "dbt")
"""Where the product's source lives (the layers and the dbt adapter)."""
IMPORTABLE = ("storage", "chains", "actions", "replace_table", "ddl_log", "dbt", "tests", "bench")
EXTERNAL = frozenset({
    "python_submissions.py",  # dbt-spark's
    "SparkAdapter",  # dbt-spark's
    "BaseDocsGenerate",  # dbt-tests-adapter's
    "SessionCatalog",  # Spark's
    "AdapterPlugin",  # dbt's
    "PySparkLogger",  # PySpark's
})
"""Names the docs use that belong to other projects: not checked against this tree."""

REPO_PATH = re.compile(r"(?<![\w<>$/.@-])((?:" + "|".join(re.escape(top) for top in TOP_DIRECTORIES)
                       + r")/[\w./-]*)(?P<symbol>::?\w+)?")
BARE_FILE = re.compile(r"^[\w-]+\.py$")
DOTTED = re.compile(r"^(?P<ref>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(.*\))?$")
MAKE = re.compile(r"^make ([\w-]+)")
DDL_LOG_COMMAND = re.compile(r"^(?:ddl-log|python -m ddl_log)\b(?P<rest>.*)$")
ENV = re.compile(r"\bDDL_LOG_[A-Z][A-Z_]*[A-Z]\b")


def references(path: Path) -> Iterator[tuple[str, str]]:
    """(where, text) of every code span and every line of a ``text`` block of ``path``."""
    for span in spans(path):
        yield span.where, span.code
    for block in blocks(path):
        if block.lang == "text":
            for offset, line in enumerate(block.text.splitlines(), start=1):
                yield f"{relative(path)}:{block.line + offset}", line


def all_references() -> list[tuple[str, str]]:
    return [reference for path in doc_files() for reference in references(path)]


def all_spans() -> list[Span]:
    return [span for path in doc_files() for span in spans(path)]


def all_blocks() -> list[Block]:
    return [block for path in doc_files() for block in blocks(path)]


def report(stale: list[str], what: str) -> None:
    assert not stale, f"{len(stale)} {what} (update the docs, or the code):\n" + "\n".join(sorted(set(stale)))


# ------------------------------------------------------------------ repository paths and file names


def defines(path: Path, name: str) -> bool:
    """Whether the Python file ``path`` defines ``name`` at its top level or as a class or function anywhere."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return True
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(target, ast.Name) and target.id == name for target in targets):
                return True
    return False


def stale_path(text: str, symbol: str | None) -> str | None:
    cleaned = text.rstrip(".,;:")
    target = ROOT / cleaned
    if not target.exists():
        return f"no such file or folder: {cleaned}"
    if symbol and target.suffix == ".py" and not defines(target, symbol.lstrip(":")):
        return f"{cleaned} defines no {symbol.lstrip(':')}"
    return None


@cache
def basenames() -> frozenset[str]:
    return frozenset(path.name for top in TOP_DIRECTORIES if (ROOT / top).is_dir()
                     for path in (ROOT / top).rglob("*.py"))


def test_every_repository_path_named_exists() -> None:
    stale = []
    for where, text in all_references():
        for match in REPO_PATH.finditer(text):
            problem = stale_path(match[1], match["symbol"])
            if problem:
                stale.append(f"{where}: {problem}")
    report(stale, "paths the docs name do not exist")


def test_every_file_named_by_its_name_alone_exists_somewhere() -> None:
    stale = [f"{span.where}: no file named {span.code} in the tree" for span in all_spans()
             if BARE_FILE.match(span.code) and span.code not in EXTERNAL and span.code not in basenames()]
    report(stale, "file names the docs use name no file")


# ------------------------------------------------------------------ module.function and Class.method


@cache
def class_index() -> dict[str, tuple[str, ...]]:
    """Class name -> the modules (dotted) of the product and the tests that define a class of that name."""
    found: dict[str, list[str]] = {}
    for top in IMPORTABLE:
        for path in sorted((ROOT / top).rglob("*.py")):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    found.setdefault(node.name, []).append(module)
    return {name: tuple(modules) for name, modules in found.items()}


def has_member(owner: Any, name: str) -> bool:
    if hasattr(owner, name):
        return True
    if isinstance(owner, type):
        if attrs.has(owner) and name in attrs.fields_dict(owner):
            return True
        return any(name in getattr(klass, "__annotations__", {}) for klass in owner.__mro__)
    return False


def member(owner: Any, name: str) -> Any:
    if hasattr(owner, name):
        return getattr(owner, name)
    return None  # an attrs field or annotation without a class-level value: nothing further to follow


def resolve_chain(owner: Any, parts: Iterable[str]) -> str | None:
    """None when every part is a member of the one before; else the first missing part."""
    for part in parts:
        if owner is None:
            return None
        if not has_member(owner, part):
            return part
        owner = member(owner, part)
    return None


def stale_dotted(reference: str) -> str | None:
    parts = reference.split(".")
    if parts[0] in IMPORTABLE:
        for cut in range(len(parts), 0, -1):
            try:
                module = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            missing = resolve_chain(module, parts[cut:])
            return None if missing is None else f"{reference}: {'.'.join(parts[:cut])} has no {missing}"
        return f"{reference}: no such module"
    if parts[0][:1].isupper() and not parts[0].isupper():  # FULL_CAPS: a Spark error condition
        if parts[0] in EXTERNAL:
            return None
        modules = class_index().get(parts[0])
        if not modules:
            return f"{reference}: no class {parts[0]} in the tree"
        for module in modules:
            if resolve_chain(getattr(importlib.import_module(module), parts[0]), parts[1:]) is None:
                return None
        return f"{reference}: {parts[0]} ({', '.join(modules)}) has no {'.'.join(parts[1:])}"
    return None  # a Spark setting, a crash point's name, a variable of an example: not a name of this tree


def test_every_module_function_and_class_method_named_exists() -> None:
    stale = []
    for span in all_spans():
        match = DOTTED.match(span.code)
        if match:
            problem = stale_dotted(match["ref"])
            if problem:
                stale.append(f"{span.where}: {problem}")
    report(stale, "dotted names the docs use do not resolve")


# ------------------------------------------------------------------ make targets, ddl-log commands, variables


@cache
def make_targets() -> frozenset[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return frozenset(re.findall(r"^([\w.-]+):(?!=)", text, flags=re.MULTILINE))


def test_every_make_target_named_exists() -> None:
    stale = [f"{span.where}: no make target {match[1]}" for span in all_spans()
             for match in [MAKE.match(span.code)] if match and match[1] not in make_targets()]
    report(stale, "make targets the docs name do not exist")


def command_words(rest: str) -> list[str]:
    """The words of a ``ddl-log`` command line that are not options or option values."""
    words, skip = [], False
    for word in rest.split():
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = word in ("--home",)
        else:
            words.append(word)
    return words


def stale_command(rest: str) -> str | None:
    from ddl_log.frontends.cli import build_parser

    parser = build_parser()
    actions = [action for action in parser._actions if action.dest == "command"]
    choices: dict[str, Any] = actions[0].choices  # type: ignore[assignment]
    words = command_words(rest)
    if not words or not re.fullmatch(r"[a-z-]+(/[a-z-]+)*", words[0]):
        return None
    for name in words[0].split("/"):
        if name not in choices:
            return f"no ddl-log command {name}"
    group = choices[words[0].split("/")[0]]
    subcommands = [action for action in group._actions if getattr(action, "choices", None)
                   and action.dest != "help" and isinstance(action.choices, dict)]
    if subcommands and len(words) > 1 and re.fullmatch(r"[a-z-]+(/[a-z-]+)*", words[1]):
        for name in words[1].split("/"):
            if name not in subcommands[0].choices:
                return f"no ddl-log {words[0]} {name}"
    return None


def test_every_ddl_log_command_named_exists() -> None:
    stale = []
    for span in all_spans():
        match = DDL_LOG_COMMAND.match(span.code)
        problem = stale_command(match["rest"]) if match else None
        if problem:
            stale.append(f"{span.where}: {problem}")
    report(stale, "ddl-log commands the docs name do not exist")


@cache
def source_text() -> str:
    files = [path for top in IMPORTABLE for path in (ROOT / top).rglob("*.py")] + [ROOT / "Makefile"]
    return "\n".join(path.read_text(encoding="utf-8") for path in files)


@cache
def setting_variables() -> frozenset[str]:
    """The variables of the settings (``DDL_LOG_<FIELD>``, read by ``Settings.from_env``)."""
    from ddl_log.settings import ENV_PREFIX, Settings

    return frozenset(ENV_PREFIX + field.name.upper() for field in attrs.fields(Settings))


def test_every_ddl_log_variable_named_is_read_somewhere() -> None:
    stale = [f"{where}: {name} appears nowhere in the code and is no setting" for where, text in all_references()
             for name in ENV.findall(text) if name not in source_text() and name not in setting_variables()]
    report(stale, "DDL_LOG_* variables the docs name are read nowhere")


# ------------------------------------------------------------------ the other direction: the map is whole


def source_files() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*")):
            if path.suffix in (".py", ".sql") and path.name != "__init__.py" and "__pycache__" not in path.parts:
                found.append(relative(path))
    return found


def package_folders() -> list[str]:
    return sorted({relative(path.parent) + "/" for path in map(ROOT.joinpath, source_files())})


def test_the_layout_page_names_every_source_file_and_folder() -> None:
    layout = (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([\w./-]+)`", layout))
    missing = [f"docs/layout.md does not name {path}" for path in source_files() + package_folders()
               if path not in named]
    report(missing, "source files or folders are missing from the layout")


def public_errors() -> list[str]:
    import ddl_log

    return [name for name in ddl_log.__all__
            if isinstance(getattr(ddl_log, name), type) and issubclass(getattr(ddl_log, name), BaseException)]


def test_troubleshooting_explains_every_public_error_class_and_only_those() -> None:
    text = (ROOT / "docs" / "troubleshooting.md").read_text(encoding="utf-8")
    headed = set(re.findall(r"^#{2,4} `(\w+)`", text, flags=re.MULTILINE))
    public = set(public_errors())
    problems = [f"docs/troubleshooting.md has no section for {name}" for name in sorted(public - headed)]
    problems += [f"docs/troubleshooting.md explains {name}, which ddl_log does not export"
                 for name in sorted(headed - public)]
    report(problems, "error classes and troubleshooting sections differ")


def test_the_readme_is_short_and_shows_its_map_early() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    layout = next((number for number, line in enumerate(lines, start=1) if line.startswith("## Layout")), None)
    assert len(lines) <= 300, f"README.md has {len(lines)} lines; the manual lives in docs/"
    assert layout is not None and layout <= 150, f"README.md's '## Layout' is at line {layout}, not in the first 150"
