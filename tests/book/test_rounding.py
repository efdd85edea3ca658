"""The rounding floor ([rulebook-rounding], helpers.book.rounding): measured from
stored executions of the book, drift held within it, verdicts that flip with the CPU
marked as depending on rounding, and a chapter re-executed on another instruction set
that stays within it."""

import json
import os
import sys
from pathlib import Path

import pytest

from helpers.book import drift, records, rounding, rulebook
from helpers.book.records import RESULTS_DIR, Records
from helpers.core.measures import Evidence
from tests.conftest import run_to_the_end

ROOT = Path(__file__).resolve().parents[2]
STORED = rounding.floors()


def _rec(value, verdict="reproduced", spread=0.01, **kw):
    return {"value": value, "spread": spread, "verdict": verdict, **kw}


def _floor(rounding: float) -> dict:
    """A record's entry in the floor: it moves by ``rounding`` (its tolerance the
    same) and no text of it was seen in two forms."""
    return {
        "rounding": rounding,
        "tolerance": {"value": rounding} if rounding else {},
        "seen": {},
        "verdicts": {},
        "values": {},
    }


def test_measure_finds_what_moved_and_how_far():
    runs = {
        "a": {"c": {"x": _rec(1.0), "y": _rec({"p": 2.0, "q": 5.0}), "z": _rec(3)}},
        "b": {"c": {"x": _rec(1.02), "y": _rec({"p": 2.0, "q": 5.5}), "z": _rec(3)}},
        "c": {
            "c": {
                "x": _rec(0.99, "not reproduced"),
                "y": _rec({"p": 2.0, "q": 5.0}),
                "z": _rec(3),
            }
        },
    }
    f = rounding.measure(runs)["c"]
    assert f["x"]["tolerance"] == {"value": pytest.approx(0.03)}
    assert f["x"]["rounding"] == pytest.approx(0.03 / 1.02, rel=1e-2)
    assert f["x"]["seen"] == {"verdict": ["not reproduced", "reproduced"]}
    assert f["x"]["verdicts"] == {
        "a": "reproduced",
        "b": "reproduced",
        "c": "not reproduced",
    }
    assert f["y"]["tolerance"] == {"value/q": pytest.approx(0.5)}
    assert f["y"]["rounding"] == pytest.approx(0.5 / 5.5, rel=1e-2)
    assert f["z"] == {**f["z"], "rounding": 0.0, "tolerance": {}, "seen": {}}
    with pytest.raises(ValueError, match="runs: a floor needs at least 2"):
        rounding.measure({"a": runs["a"]})


def test_drift_within_the_floor_and_beyond_it(monkeypatch):
    floor = {"c": {"x": _floor(0.01)}}
    monkeypatch.setattr(
        rounding, "floors", lambda: {"records": floor, "executions": {}}
    )
    old = {"c": {"x": _rec(1.0), "y": _rec(1.0)}}
    within = {"c": {"x": _rec(1.0 + 0.029), "y": _rec(1.0)}}
    assert drift.compare(old, within) == []
    beyond = {"c": {"x": _rec(1.0 + 0.031), "y": _rec(1.0)}}
    assert [d.record for d in drift.compare(old, beyond)] == ["x"]
    # a record that does not move under rounding keeps the exact comparison
    moved = {"c": {"x": _rec(1.0), "y": _rec(1.0001)}}
    assert [d.record for d in drift.compare(old, moved)] == ["y"]
    # the multiple is the rulebook's, set once
    assert rulebook.ROUNDING_MULTIPLE == 3.0


def test_a_text_that_took_both_forms_under_rounding_is_not_drift(monkeypatch):
    floor = {
        "c": {
            "x": {
                "rounding": 0.0,
                "tolerance": {},
                "seen": {
                    "depends_on": [["seeds"], ["input", "seeds"]],
                    "variants/init/0/verdict": ["partly reproduced", "reproduced"],
                },
                "verdicts": {},
                "values": {},
            }
        }
    }
    monkeypatch.setattr(
        rounding, "floors", lambda: {"records": floor, "executions": {}}
    )

    def rec(dep, v):
        return {
            **_rec(1.0),
            "depends_on": dep,
            "variants": {"init": [{"setting": "s", "value": 1.0, "verdict": v}]},
        }

    old = {"c": {"x": rec(["seeds"], "reproduced")}}
    assert (
        drift.compare(old, {"c": {"x": rec(["input", "seeds"], "partly reproduced")}})
        == []
    )
    wrong = drift.compare(old, {"c": {"x": rec(["width"], "not reproduced")}})
    assert [d.field for d in wrong] == ["variants", "depends_on"]


@pytest.mark.rounding_rule
def test_a_verdict_that_flips_with_rounding_is_undecided(monkeypatch, tmp_path):
    """Under the old rule each machine stored its own verdict; now every machine
    stores ``undecided``, names rounding among the choices, and shows each execution's
    verdict as a variant."""
    chapter, name = "gate_finding", "best_k"
    floor = {
        chapter: {
            name: {
                "rounding": 0.25,
                "tolerance": {"value": 1.0},
                "seen": {"verdict": ["not reproduced", "reproduced"]},
                "verdicts": {"m1": "not reproduced", "m2": "reproduced"},
                "values": {"m1": 3, "m2": 4},
            }
        }
    }
    monkeypatch.setattr(
        rounding, "floors", lambda: {"records": floor, "executions": {}}
    )
    claim = rulebook.claim(chapter, name)
    for value in (3, 4):
        rec = Records(chapter, directory=tmp_path)
        r = rec.add(name, Evidence(value, compared=4, criterion="exact"))
        raw = rulebook.decide(claim, Evidence(value, compared=4, criterion="exact"))
        assert r["raw_verdict"] == raw.verdict
        assert r["verdict"] == "undecided"
        assert "rounding" in r["depends_on"]
        assert [x["verdict"] for x in r["variants"]["rounding"]] == [
            "not reproduced",
            "reproduced",
        ]
        assert r["reason"].startswith("float32 rounding decides it")
        assert r["rounding"] == 0.25
    monkeypatch.setenv(rounding.RULE_VARIABLE, "off")
    r = Records(chapter, directory=tmp_path).add(
        name, Evidence(3, compared=4, criterion="exact")
    )
    assert r["verdict"] == "not reproduced" and "rounding" not in r


@pytest.mark.rounding_rule
def test_the_checked_cell_prints_what_holds_on_any_machine(monkeypatch, tmp_path):
    floor = {
        "c": {
            "moves": _floor(0.01),
            "still": _floor(0.0),
        }
    }
    monkeypatch.setattr(
        rounding, "floors", lambda: {"records": floor, "executions": {}}
    )
    data = {
        "moves": _rec(0.123456),
        "still": _rec(0.5, "check"),
        "clock": {"value": 3.0, "verdict": "measured", "timing": True},
        "new": _rec(2.0),
    }
    (tmp_path / "c.json").write_text(json.dumps(data))
    text = records.check("c", tmp_path)
    assert text.splitlines() == [
        "moves  reproduced",
        "still  check = 0.5",
        "new    reproduced",
    ]


def test_the_stored_floors_are_measured_from_the_stored_executions():
    """``book/rounding/floors.json`` is what :func:`rounding.measure` gives the
    records stored beside it, and names the command of each execution."""
    ex = STORED["executions"]
    assert len(ex) >= 3, "the committed book and at least two other executions"
    assert sum(1 for e in ex.values() if e.get("xla_flags")) >= 1
    runs = {
        label: json.loads((rounding.DIR / e["records"]).read_text())
        for label, e in ex.items()
    }
    assert rounding.measure(runs) == STORED["records"]


def test_every_trained_record_carries_its_rounding_figure():
    stored = records.load_all(RESULTS_DIR)
    missing = [
        f"{ch}.{name}"
        for ch, recs in stored.items()
        for name, r in recs.items()
        if not r.get("timing")
        and r.get("kind")
        and "rounding" not in r
        and rounding.entry(ch, name) is not None
    ]
    assert missing == []
    moving = [r for recs in stored.values() for r in recs.values() if r.get("rounding")]
    assert moving, "float32 rounding moves some trained record"


def test_other_isa_and_bad_isa():
    assert rounding.other_isa({}) == "SSE4_2"
    assert rounding.other_isa({"XLA_FLAGS": "--xla_cpu_max_isa=SSE4_2"}) == "AVX2"
    assert rounding.isa_flags("AVX") == "--xla_cpu_max_isa=AVX"
    with pytest.raises(ValueError, match="isa must be one of"):
        rounding.isa_flags("MMX")


#: The chapter re-executed on another instruction set by the slow test: short, and
#: one whose numbers (and one verdict) move under rounding.
CHAPTER = "gate_finding"


@pytest.mark.slow
@pytest.mark.rounding_rule
def test_a_chapter_on_another_instruction_set_stays_within_its_floor():
    """[rulebook-rounding]: a chapter executed with XLA limited to another instruction
    set (another CPU's float32 rounding) gives the committed records within the drift
    rule; a book whose records only the machine that wrote them reproduces fails."""
    isa = rounding.other_isa()
    env = {k: v for k, v in os.environ.items() if k != records.RESULTS_VARIABLE}
    cmd = [sys.executable, "-m", "helpers.book", "execute", CHAPTER, "--isa", isa]
    run_to_the_end(cmd, cwd=ROOT, env=env)
    run = ROOT / "_build" / "runs" / f"default-isa-{isa}"
    manifest = json.loads((run / "manifest.json").read_text())
    assert isa in manifest["xla_flags"]
    new = drift.load(run / "results")
    drifts = drift.compare(drift.load(RESULTS_DIR), new, chapters=[CHAPTER])
    assert drifts == [], drift.report(drifts)


def test_the_rulebook_page_lists_executions_movers_and_flips(monkeypatch):
    floor = {
        "c": {
            "x": _floor(0.2),
            "y": _floor(0.0),
        }
    }
    ex = {
        "m1": {
            "xla_flags": "--xla_cpu_max_isa=SSE4_2",
            "machine": {"cpu": "X"},
            "seconds": 10.0,
        }
    }
    monkeypatch.setattr(
        rounding,
        "floors",
        lambda: {"records": floor, "executions": ex, "date": "d", "commit": "c"},
    )
    recs = {
        "c": {
            "x": {
                "depends_on": ["rounding"],
                "variants": {
                    "rounding": [
                        {"setting": "m1, f", "verdict": "reproduced"},
                        {"setting": "m2", "verdict": "not reproduced"},
                    ]
                },
            }
        }
    }
    text = rounding.summary(recs)
    assert "--xla_cpu_max_isa=SSE4_2" in text and "Of 2 records, 1 move" in text
    assert "`c.x` (reproduced; not reproduced)" in text


def test_measuring_one_chapter_again_keeps_the_others(monkeypatch, tmp_path):
    """``rounding measure --chapters``: the named chapter's floor comes from the new
    runs alone (the old code's records leave every execution), every other chapter's
    from the executions stored before."""
    monkeypatch.setattr(rounding, "DIR", tmp_path / "rounding")
    monkeypatch.setattr(rounding, "FLOORS", tmp_path / "rounding" / "floors.json")
    rounding.floors.cache_clear()
    old = {
        "m1": {"a": {"x": _rec(1.0)}, "b": {"y": _rec(2.0)}},
        "m1 (committed)": {"a": {"x": _rec(1.1)}, "b": {"y": _rec(2.0)}},
        "m1, SSE4_2": {"a": {"x": _rec(1.2)}, "b": {"y": _rec(2.5)}},
    }
    folders = {}
    for label, recs in old.items():
        folders[label] = tmp_path / label.replace(" ", "_").replace(",", "")
        (folders[label] / "results").mkdir(parents=True)
        for ch, r in recs.items():
            (folders[label] / "results" / f"{ch}.json").write_text(json.dumps(r))
        (folders[label] / "manifest.json").write_text(
            json.dumps({"machine": {"platform": label}, "chapters": {"a": 1.0}})
        )
    rounding.store(folders, committed=None)
    assert rounding.floors()["records"]["b"]["y"]["tolerance"]["value"] == 0.5
    new = {"m1": 5.0, "m1, SSE4_2": 5.5}
    for label, v in new.items():
        (folders[label] / "results" / "b.json").write_text(
            json.dumps({"y": _rec(v), "z": _rec(7.0)})
        )
    runs = {label: folders[label] for label in new}
    with pytest.raises(ValueError, match="chapters"):
        rounding.store_chapters(runs, ())
    rounding.store_chapters(runs, ("b",))
    got = rounding.floors()
    assert (
        got["records"]["a"]
        == rounding.measure({k: {"a": v["a"]} for k, v in old.items()})["a"]
    )
    assert got["records"]["b"]["y"]["tolerance"]["value"] == 0.5
    assert set(got["records"]["b"]["y"]["verdicts"]) == set(new)
    assert got["records"]["b"]["z"]["rounding"] == 0
    assert "b" not in json.loads(
        (rounding.DIR / got["executions"]["m1 (committed)"]["records"]).read_text()
    )
    assert set(got["executions"]["m1"]["redone"]) == {"b"}
    rounding.floors.cache_clear()


def test_another_machine_joins_a_chapter_s_executions(monkeypatch, tmp_path):
    """``rounding measure --chapters ch --add``: another machine's execution of the
    same code joins the stored executions of ``ch`` (they keep their records), so the
    floor widens to what that machine moves; other chapters are untouched."""
    monkeypatch.setattr(rounding, "DIR", tmp_path / "rounding")
    monkeypatch.setattr(rounding, "FLOORS", tmp_path / "rounding" / "floors.json")
    rounding.floors.cache_clear()
    old = {"m1": 2.0, "m1, SSE4_2": 2.5}
    folders = {}
    for label, v in {**old, "m2": 4.0}.items():
        folders[label] = tmp_path / label.replace(" ", "_").replace(",", "")
        (folders[label] / "results").mkdir(parents=True)
        recs = {"a": {"x": _rec(1.0)}, "b": {"y": _rec(v)}}
        for ch, r in recs.items():
            (folders[label] / "results" / f"{ch}.json").write_text(json.dumps(r))
        (folders[label] / "manifest.json").write_text(
            json.dumps({"machine": {"platform": label}, "chapters": {"b": 1.0}})
        )
    rounding.store({k: folders[k] for k in old}, committed=None)
    assert rounding.floors()["records"]["b"]["y"]["tolerance"]["value"] == 0.5
    rounding.store_chapters({"m2": folders["m2"]}, ("b",), add=True)
    got = rounding.floors()
    assert set(got["records"]["b"]["y"]["verdicts"]) == {*old, "m2"}
    assert got["records"]["b"]["y"]["tolerance"]["value"] == 2.0
    assert set(got["records"]["a"]["x"]["verdicts"]) == set(old)
    rounding.floors.cache_clear()
