"""A stored run of the authors' scripts that changes is a drift
(helpers.book.drift.authors_runs)."""

import json
import shutil

from helpers.book import crosscheck, drift


def test_the_committed_runs_have_not_drifted():
    assert drift.authors_runs() == []


def test_a_changed_stored_curve_is_a_drift(tmp_path):
    copy = tmp_path / "runs"
    shutil.copytree(crosscheck.RUNS, copy)
    assert drift.authors_runs(out=copy) == []  # outside git: files vs manifest only
    man = json.loads((copy / "manifest.json").read_text())
    name = sorted(man["experiments"])[0]
    f = copy / man["experiments"][name]["file"]
    data = f.read_bytes()
    f.write_bytes(data[:-1] + bytes([data[-1] ^ 0xFF]))
    (d,) = drift.authors_runs(out=copy)
    assert d.chapter == "authors_runs" and d.record == name and d.field == "file"
