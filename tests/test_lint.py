"""The library and the tests are held to the pages' rule: ruff (pyflakes, import order,
88 characters) finds nothing, and ruff's formatter would change nothing."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff(*args):
    exe = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(exe).exists():
        pytest.fail("ruff is not installed (it is in requirements.txt)")
    return subprocess.run(
        [exe, *args, "helpers", "tests"], cwd=ROOT, capture_output=True, text=True
    )


def test_ruff_lint_is_clean():
    r = _ruff("check", "--no-cache")
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_format_changes_nothing():
    r = _ruff("format", "--check", "--no-cache")
    assert r.returncode == 0, r.stdout + r.stderr
