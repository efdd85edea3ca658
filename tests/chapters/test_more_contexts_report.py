"""The page More contexts than five's report (helpers.chapters.more_contexts.report):
every record and glue the page needs, from a small synthetic results object."""

import importlib
import json
import re
from pathlib import Path

import numpy as np

from helpers.book import rulebook
from helpers.book.records import Records
from helpers.chapters import more_contexts as ch
from helpers.core.measures import Evidence, match

report_module = importlib.import_module("helpers.chapters.more_contexts.report")
PAGE = Path(__file__).resolve().parents[2] / "book" / "more_contexts.md"
CS, SEEDS = [2, 3, 6], [0, 1, 2]
T = np.arange(401)


def _curves(rng, rate, n=len(SEEDS)):
    r = rate * (1 + 0.03 * rng.standard_normal(n))
    return np.stack([10 * np.exp(-k * T / 100) + 1e-3 for k in r])


def _results() -> ch.Results:
    rng = np.random.default_rng(0)
    S, R = len(SEEDS), 5
    FIT, TIES, FIT_OTHER = {}, {}, {}
    for C in CS:
        paper = ch.family_name([C - 1], C)
        rivals = {ch.family_name([k], C): _curves(rng, 0.5, 1) for k in (1, C)}
        relu = _curves(rng, 1.0)
        FIT[C] = match(relu, _curves(rng, 1.1, 1), name=paper, competitors=rivals)
        TIES[C] = ch.tied_with_best(FIT[C], FIT[C].spread)
        # with wider rivals, one of them beats the paper's ReLN at C = 6
        wide = dict(
            rivals, **{ch.family_name([1], C): _curves(rng, 1.0 if C == 6 else 0.5, 1)}
        )
        FIT_OTHER[C] = match(relu, _curves(rng, 1.1, 1), name=paper, competitors=wide)
    BY_K = {C: rng.dirichlet(np.ones(C + 1), (S, R)) for C in CS}
    return ch.Results(
        CS=CS,
        SEEDS=SEEDS,
        race_form="factors",
        form_check_C=6,
        sim_check_from=6,
        family_min_share=0.01,
        BY_K=BY_K,
        FUNC={C: rng.dirichlet(np.ones(C + 1), (S, R)) for C in CS},
        FRAC={C: 0.6 + 0.1 * rng.random((S, R)) for C in CS},
        SNAP={C: 0.1 * rng.random((S, R)) for C in CS},
        RACE={C: rng.dirichlet(np.ones(C + 1)) for C in CS},
        FORM_MOVE={"C": 6, "time gap": 0.001, "largest class share change": 0.002},
        FIT=FIT,
        TIES=TIES,
        SIM_GAP={6: 0.01},
        HIDDEN={2: 70, 3: 70, 6: 60},
        reln_width=10,
        width_rule="total",
        OTHER="per_pathway",
        RACE_OTHER={C: rng.dirichlet(np.ones(C + 1)) for C in CS},
        FIT_OTHER=FIT_OTHER,
        TIES_OTHER={C: ch.tied_with_best(m, m.spread) for C, m in FIT_OTHER.items()},
        ONEHOT={6: {"per_unit": 6 * (0.6 + 0.01 * rng.random(S))}},
    )


def test_every_record_and_glue_is_written(tmp_path, monkeypatch):
    glued = {}
    monkeypatch.setattr(report_module, "glue", lambda n, v: glued.setdefault(n, v))
    out = ch.report(Records("more_contexts", directory=tmp_path), _results())
    stored = json.loads((tmp_path / "more_contexts.json").read_text())
    registered = rulebook.registry()["more_contexts"]
    assert set(stored) == set(registered)
    for name, rec in stored.items():
        again = rulebook.decide(registered[name], Evidence.from_record(rec)).verdict
        assert rec["verdict"] == again, name
        assert rec.get("figure") == registered[name].get("figure"), name
    assert stored["race_follows_reln"]["verdict"] == "check"
    assert stored["fraction_served"]["spread"] > 0
    cited = set(re.findall(r"\{glue:text\}`(\w+)", PAGE.read_text()))
    assert cited <= set(glued), sorted(cited - set(glued))
    assert out["reading"].startswith("**Reading.** From C = 2 to C = 6")
    assert "| claim | verdict |" in out["summary"]
    assert "**Width.** The nearest ReLNs change with the width" in out["reading"]
    assert "C = 6: nearest 5-of-6 ('total') against 1-of-6" in out["reading"]
    assert "**Input.** On one-hot contexts" in out["reading"]
    assert "per_pathway" in stored["best_reln"]["value"]["C6"]
    assert "one-hot contexts" in stored["fraction_served"]["value"]["C6"]


def test_without_the_form_check_and_the_trained_reln_two_records_go(
    tmp_path, monkeypatch
):
    r = _results()
    r.FORM_MOVE, r.SIM_GAP = None, {}
    monkeypatch.setattr(report_module, "glue", lambda n, v: None)
    ch.report(Records("more_contexts", directory=tmp_path), r)
    stored = json.loads((tmp_path / "more_contexts.json").read_text())
    assert "race_form_sensitivity" not in stored and "race_follows_reln" not in stored
