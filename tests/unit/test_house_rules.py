"""Rules of the house that keep it easy to carry on: small files, and no module reaching into another's private
names. (Layers, independence of the record layer and the catalogs, and the absence of import circles are
import-linter contracts in pyproject.toml, run by ``make lint``.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("storage", "chains", "actions", "replace_table", "ddl_log")
MAX_LINES = 450


def project_files() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def test_the_project_has_its_packages() -> None:
    assert len(project_files()) > 40


@pytest.mark.parametrize("path", project_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_no_file_is_longer_than_the_limit(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines; split it by job"


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
