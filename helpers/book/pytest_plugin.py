"""pytest plugin (``-p helpers.book.pytest_plugin`` in ``pyproject.toml``): nbval's
re-execution of the chapters writes its records to a scratch folder, never over the
committed ``book/results``, and the session fails if a record drifted
(:mod:`helpers.book.drift`).

The test command runs in two lanes (pytest-xdist, ``-n 2 --dist loadgroup``): every
file is one group, so a notebook's cells run in order in one kernel and a module's
fixtures are made once; the site's and the PDF's tests share a group, because either
may build the site. The workers inherit the scratch folder from the controller, which
alone checks the drift."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from . import drift
from .records import RESULTS_DIR, RESULTS_VARIABLE

_STATE: dict = {}


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "xdist_group(name): tests that share a lane (pytest-xdist)"
    )  # known without xdist too (``-p no:xdist``)
    if os.environ.get(RESULTS_VARIABLE):
        return  # a caller chose the folder already
    scratch = Path(tempfile.mkdtemp(prefix="haste-results-"))
    for p in RESULTS_DIR.glob("*.json"):
        shutil.copy2(p, scratch / p.name)
    before = {p.name: p.read_bytes() for p in scratch.glob("*.json")}
    os.environ[RESULTS_VARIABLE] = str(scratch)  # inherited by nbval's kernels
    _STATE.update(scratch=scratch, before=before)


#: Test files that must share a lane (both may build ``_build/html``).
SAME_LANE = {"test_site.py": "site", "test_pdf.py": "site"}


def pytest_collection_modifyitems(config, items):
    """One xdist group per file (a notebook is one file), the site's tests in one."""
    for item in items:
        name = item.path.name
        group = SAME_LANE.get(name, str(item.path))
        item.add_marker(pytest.mark.xdist_group(group))


def pytest_sessionfinish(session, exitstatus):
    scratch = _STATE.get("scratch")
    if scratch is None:
        return
    os.environ.pop(RESULTS_VARIABLE, None)
    # a chapter whose re-executed records are byte-identical has not drifted
    changed = [
        p.stem
        for p in sorted(scratch.glob("*.json"))
        if _STATE["before"].get(p.name) != p.read_bytes()
    ]
    drifts = drift.compare(
        drift.load(RESULTS_DIR), drift.load(scratch), chapters=changed
    )
    shutil.rmtree(scratch, ignore_errors=True)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if changed and reporter is not None:
        reporter.write_line(
            f"records that differ after re-execution: {', '.join(changed)}; "
            f"{drift.report(drifts)}"
        )
    if drifts:
        session.exitstatus = 1
