"""The object-store group's short form, in a test process of its own whose warehouse is on the simulated store (one
Spark start for all of it: tests/object_store/group.py lists what it runs; ``make test-object-store`` runs it in
full). Passes when every test there passes or fails as the strict xfails of tests/object_store/expectations.py say."""

from __future__ import annotations

import subprocess

import pytest

from tests.object_store.group import ROOT, command
from tests.object_store.store import JAR

pytestmark = [pytest.mark.spark, pytest.mark.timeout(3600)]


def test_the_object_store_groups_short_form_passes_in_a_process_of_its_own():
    if not JAR.is_file():
        pytest.fail(f"{JAR} is missing: run `make install` (it builds the object-store file system)")
    args, env = command(full=False, extra=[])
    done = subprocess.run(args, env=env, cwd=ROOT, capture_output=True, text=True, timeout=3500, check=False)
    summary = done.stdout[-6000:]
    print(summary)
    assert done.returncode == 0, f"{summary}\n{done.stderr[-3000:]}"
