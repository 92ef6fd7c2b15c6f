"""Rules of the house that keep it easy to carry on: small files, and no module reaching into another's private
names. (Layers, independence of the record layer and the catalogs, and the absence of import circles are
import-linter contracts in pyproject.toml, run by ``make lint``.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("storage", "chains", "actions", "replace_table", "ddl_log", "dbt")
MAX_LINES = 450
LONGER = {"ddl_log/frontends/sql/router.py": 520}
"""Files merged back from a split made only for the line cap (issue 36: version_routes.py into router.py), which
function and class size rules replace."""


def project_files() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def test_the_project_has_its_packages() -> None:
    assert len(project_files()) > 40


@pytest.mark.parametrize("path", project_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_no_file_is_longer_than_the_limit(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    limit = LONGER.get(str(path.relative_to(ROOT)), MAX_LINES)
    assert lines <= limit, f"{path.relative_to(ROOT)} has {lines} lines; split it by job"


@pytest.mark.parametrize("path", project_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_no_private_name_is_imported_from_another_file(path: Path) -> None:
    tree = ast.parse(path.read_text())
    private = [
        f"{node.module}.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module is not None
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]
    assert private == [], f"{path.relative_to(ROOT)} imports private names {private}"


FOREIGN_PRIVATE = frozenset({"_jsparkSession", "_jvm", "_jsc", "_origin"})
"""PySpark's and Py4J's own handles (the only way to a session's JVM): not names of this project."""


@pytest.mark.parametrize("path", project_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_no_module_reads_another_objects_private_attribute_through_getattr(path: Path) -> None:
    """``getattr(obj, "_name")`` hides a reach into another object's private state from the rule above."""
    tree = ast.parse(path.read_text())
    reached = [
        node.args[1].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
        and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
        and node.args[1].value.startswith("_") and not node.args[1].value.startswith("__")
        and node.args[1].value not in FOREIGN_PRIVATE
    ]
    assert reached == [], f"{path.relative_to(ROOT)} reads private attributes {reached} through getattr"


def error_classes(path: Path) -> list[str]:
    """Classes of ``path`` whose base names say they are errors (``...Error``, ``Exception``). A simulated crash
    (``BaseException``, so that no ``except Exception`` swallows it) is not an error: it lives with the crash points."""
    tree = ast.parse(path.read_text())
    return [node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
            and any(isinstance(base, ast.Name) and (base.id.endswith("Error") or base.id == "Exception")
                    for base in node.bases)]


@pytest.mark.parametrize("path", project_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_every_error_class_lives_in_an_errors_module(path: Path) -> None:
    """README: each layer keeps its errors in its errors.py (found in one place, re-exported from ddl_log)."""
    if path.name == "errors.py":
        return
    assert error_classes(path) == [], f"{path.relative_to(ROOT)} defines errors outside an errors.py"


LAYERS_BELOW_DDL_LOG = ("storage", "chains", "actions", "replace_table")


@pytest.mark.parametrize("path", sorted((ROOT / "dbt").rglob("*.py")), ids=lambda path: str(path.relative_to(ROOT)))
def test_the_dbt_adapter_reaches_the_project_only_through_ddl_log(path: Path) -> None:
    """The adapter is a front end over ddl_log, as the SQL front end and the CLI are (import-linter cannot take a
    portion of dbt's namespace package as a root, so this rule is checked here)."""
    tree = ast.parse(path.read_text())
    imported = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    imported += [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module]
    below = [name for name in imported if name.split(".")[0] in LAYERS_BELOW_DDL_LOG]
    assert below == [], f"{path.relative_to(ROOT)} imports {below}: go through ddl_log"
