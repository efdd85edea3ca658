"""The GPU command (issue: the GPU command ready) stops cleanly at its limit."""

import json
import sys

import pytest

from helpers.book import gpucheck


def _fake_steps(chapters, paper, out):
    py = sys.executable
    return [
        ("quick", [py, "-c", "print('ok')"]),
        ("slow", [py, "-c", "import time; time.sleep(30)"]),
        ("never", [py, "-c", "print('never')"]),
    ]


def test_a_step_past_the_limit_is_cut_and_the_command_ends(tmp_path, monkeypatch):
    monkeypatch.setattr(gpucheck, "steps", _fake_steps)
    rep = gpucheck.run(tmp_path, limit=6.0, reserve=2.0)
    status = [(s["name"], s["status"]) for s in rep["steps"]]
    assert status == [("quick", "passed"), ("slow", "cut at the limit")]
    assert rep["stopped"] == "slow cut at the limit"
    assert json.loads((tmp_path / "gpu-check.json").read_text()) == rep


def test_the_plan_covers_tests_benchmark_book_and_paper(tmp_path):
    names = [n for n, _ in gpucheck.steps(["xor"], ["depth"], tmp_path)]
    assert names == [
        "environment",
        "engine-tests",
        "benchmark",
        "default:xor",
        "paper:depth",
    ]
    bench = dict(gpucheck.steps([], [], tmp_path))["benchmark"]
    assert bench[-4:] == ["1", "8", "64", "512"]


@pytest.mark.parametrize(
    "kw, match",
    [({"limit": 0}, "limit"), ({"limit": 5, "chapters": ["nope"]}, "chapters")],
)
def test_bad_input_is_refused_before_any_work(tmp_path, kw, match):
    with pytest.raises(ValueError, match=match):
        gpucheck.run(tmp_path / "x", **kw)
    assert not (tmp_path / "x").exists()
