"""pytest plugin (``-p helpers.book.pytest_plugin`` in ``pyproject.toml``): nbval's
re-executions write their records to a scratch folder (the xdist workers inherit it),
never over ``book/results``, and the session fails if a record drifted
(:mod:`helpers.book.drift`)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from . import drift
from .records import RESULTS_DIR, RESULTS_VARIABLE

_STATE: dict = {}


def pytest_configure(config):
    if os.environ.get(RESULTS_VARIABLE):
        return  # a caller chose the folder already
    scratch = Path(tempfile.mkdtemp(prefix="haste-results-"))
    for p in RESULTS_DIR.glob("*.json"):
        shutil.copy2(p, scratch / p.name)
    before = {p.name: p.read_bytes() for p in scratch.glob("*.json")}
    os.environ[RESULTS_VARIABLE] = str(scratch)  # inherited by nbval's kernels
    _STATE.update(scratch=scratch, before=before)


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
