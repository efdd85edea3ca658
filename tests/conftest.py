import contextlib
import fcntl
import os
from pathlib import Path

import pytest

# Tests run on the CPU with deterministic settings, whatever the machine has.
os.environ.setdefault("JAX_PLATFORMS", "cpu")

# the shared record check's asserts say what differs, as a test's own do
pytest.register_assert_rewrite("tests.chapters.records_check")


def run_on_two_cpu_devices(script: str) -> dict:
    """Run ``script`` in a fresh process that sees two CPU devices (the engine's
    device count is fixed when JAX starts) and return the JSON of its last line."""
    import json
    import subprocess
    import sys

    from helpers.core import devices

    env = {**os.environ, devices.DEVICES_VARIABLE: "2", "JAX_PLATFORMS": "cpu"}
    out = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_to_the_end(args: list, **kw):
    """Run the command ``args`` (``kw``: ``subprocess.run``'s ``env``, ``cwd``),
    its text output captured, for at most 15 minutes, and assert that it exits 0 (the
    message: the end of its stderr); returns its ``CompletedProcess``."""
    import subprocess

    res = subprocess.run(args, capture_output=True, text=True, timeout=900, **kw)
    assert res.returncode == 0, res.stderr[-3000:]
    return res


@pytest.fixture(scope="package", autouse=True)
def _no_rounding_rule_on_made_up_results():
    """The unit tests' records come from small made-up results, which the stored
    executions of the book (``book/rounding``) say nothing about: the rounding rule is
    off for the whole ``tests`` package (module-scoped fixtures included) and on again
    before nbval executes the chapters; a test marked ``rounding_rule`` turns it on."""
    from helpers.book import rounding

    before = os.environ.get(rounding.RULE_VARIABLE)
    os.environ[rounding.RULE_VARIABLE] = "off"
    yield
    if before is None:
        os.environ.pop(rounding.RULE_VARIABLE, None)
    else:
        os.environ[rounding.RULE_VARIABLE] = before


@pytest.fixture(autouse=True)
def _the_rounding_rule_where_a_test_asks_for_it(request, monkeypatch):
    if request.node.get_closest_marker("rounding_rule") is not None:
        monkeypatch.delenv("HASTE_ROUNDING", raising=False)


@contextlib.contextmanager
def site_lock():
    """Hold the lock on building ``_build/html``: the site's and the PDF's tests run in
    two lanes (pytest-xdist), and either may build the site; the second waits for the
    first and finds it built."""
    lock = Path(__file__).resolve().parents[1] / "_build" / ".site.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
