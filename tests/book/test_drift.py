"""Drift: a re-executed record that moved fails the check (helpers.book.drift)."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

from helpers.book import drift
from helpers.book.records import RESULTS_DIR

ROOT = Path(__file__).resolve().parents[2]


def _committed():
    return drift.load(RESULTS_DIR)


def test_identical_records_do_not_drift():
    old = _committed()
    assert drift.compare(old, json.loads(json.dumps(old))) == []


def test_a_deliberately_changed_record_drifts_and_names_itself():
    old = _committed()
    new = json.loads(json.dumps(old))
    chapter, name = "xor", "eps_crossover_relu"
    new[chapter][name]["value"] = old[chapter][name]["value"] * 1.001
    drifts = drift.compare(old, new)
    assert [(d.chapter, d.record, d.field) for d in drifts] == [
        (chapter, name, "value")
    ]
    text = drift.report(drifts)
    assert name in text and repr(old[chapter][name]["value"]) in text


def test_last_digit_rounding_and_timing_records_are_not_drift():
    old = {
        "c": {
            "x": {"value": 0.123456, "verdict": "measured"},
            "t": {"value": 12.0, "verdict": "measured", "timing": True},
        }
    }
    new = {
        "c": {
            "x": {"value": 0.123457, "verdict": "measured"},
            "t": {"value": 99.0, "verdict": "measured", "timing": True},
        }
    }
    assert drift.compare(old, new) == []
    new["c"]["x"]["verdict"] = "reproduced"
    assert [d.field for d in drift.compare(old, new)] == ["verdict"]
    del new["c"]["x"]
    assert [d.field for d in drift.compare(old, new)] == ["record"]


def test_the_command_fails_on_a_changed_record(tmp_path):
    shutil.copytree(RESULTS_DIR, tmp_path / "results")
    path = tmp_path / "results" / "background.json"
    data = json.loads(path.read_text())
    name = sorted(k for k, r in data.items() if isinstance(r["value"], float))[0]
    data[name]["value"] = -1.0
    path.write_text(json.dumps(data))
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "helpers.book",
            "drift",
            "--results",
            str(tmp_path / "results"),
            "--against",
            "HEAD",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert res.returncode == 1, res.stdout + res.stderr
    assert f"background.{name} [value]" in res.stdout and "now -1.0" in res.stdout
