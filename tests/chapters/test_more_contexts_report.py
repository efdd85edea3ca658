"""The page More contexts than five's report (helpers.chapters.more_contexts.report):
every record and glue the page needs, from the page's own science run on a shrunk
setting (few C and seeds, narrow networks, short training)."""

import importlib
import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import helpers as h
from helpers.book import kit, rulebook
from helpers.book.records import Records
from helpers.chapters import more_contexts as ch
from helpers.core.measures import Evidence

#: The page's science on a shrunk setting still compiles many networks (20-70 s
#: on 2 cores): the full test command runs it, the quick unit subset does not.
pytestmark = pytest.mark.slow

report_module = importlib.import_module("helpers.chapters.more_contexts.report")
PAGE = Path(__file__).resolve().parents[2] / "book" / "more_contexts.md"
CS, SEEDS, LR, EPOCHS, RELU_STD, WIDTH = [2, 3, 4], [0, 1, 2], 0.01, 600, 0.005, 3
HIDDEN = {C: 12 for C in CS}
RACE_KW = dict(lr=LR, epochs=EPOCHS, form="factors")


def _page():
    """The page's runs at the shrunk setting, by the page's own functions."""
    DS = {C: h.contextual_task(C, context_value=ch.nearest_authors(C)) for C in CS}
    t_rec = np.arange(0, EPOCHS + 1, 200)
    RELU, CENSUS, SNAP = {}, {}, {}
    for C in CS:
        RELU[C], CENSUS[C], SNAP[C] = ch.train_relu(
            DS[C], HIDDEN[C], SEEDS, relu_std=RELU_STD, lr=LR, epochs=EPOCHS,
            record_epochs=t_rec, threshold=0.5,
        )  # fmt: skip
    BY_K, _, _ = ch.census_views(CENSUS)
    ONEHOT = {
        C: ch.onehot_census(
            C, HIDDEN[C], SEEDS, relu_std=RELU_STD, lr=LR, epochs=EPOCHS, threshold=0.5
        )
        for C in CS
        if ch.nearest_authors(C) != 1
    }
    RACE, RUN = {}, {}
    settings = {
        "primary": ("total", "equal"),
        "common": ("total", "fixed"),
        "rule": ("per_pathway", "equal"),
    }
    FITS = {k: {} for k in settings}
    for C in CS:
        RACE[C], *RUN[C] = ch.race_census(
            DS[C], RELU[C][0], HIDDEN[C], WIDTH, "total", **RACE_KW
        )
        family = ch.family_for(C, np.median(BY_K[C][:, -1], axis=0), 0.01)
        for key, (rule, common) in settings.items():
            seeds = SEEDS if C == 4 and key != "rule" else ()
            FITS[key][C] = ch.family_fit(
                DS[C], family, RELU[C], HIDDEN[C], WIDTH, rule, common, seeds,
                **RACE_KW,
            )  # fmt: skip
    loss, net = RUN[4]
    FORM = ch.form_move(
        net, DS[4], RACE[4], lr=LR, epochs=EPOCHS, form="factors", loss=loss
    )
    params = ch.Params(SEEDS, HIDDEN, WIDTH, "total", "equal", "factors", 4, 4, 0.01)
    runs = ch.Runs(CENSUS, SNAP, ONEHOT, RACE, FORM, FITS)
    return params, runs


@pytest.fixture(scope="module")
def page():
    return _page()


def _report(tmp_path, monkeypatch, params, runs):
    glued = {}
    monkeypatch.setattr(kit, "glue", lambda n, v: glued.setdefault(n, v))
    out = ch.report(Records("more_contexts", directory=tmp_path), params, runs)
    stored = json.loads((tmp_path / "more_contexts.json").read_text())
    return out, glued, stored


def test_every_record_and_glue_is_written(page, tmp_path, monkeypatch):
    params, runs = page
    out, glued, stored = _report(tmp_path, monkeypatch, params, runs)
    registered = rulebook.registry()["more_contexts"]
    assert set(stored) == set(registered)
    for name, rec in stored.items():
        again = rulebook.decide(registered[name], Evidence.from_record(rec)).verdict
        assert rec["verdict"] == again, name
        assert rec.get("figure") == registered[name].get("figure"), name
    assert stored["race_follows_reln"]["verdict"] in ("check", "check failed")
    cited = set(re.findall(r"\{glue:text\}`(\w+)", PAGE.read_text()))
    assert cited <= set(glued), sorted(cited - set(glued))
    assert out["reading"].startswith("**Reading.** From C = 2 to C = 4")
    assert "| claim | verdict |" in out["summary"]
    assert "**Input.** On one-hot contexts" in out["reading"]
    width = stored["best_reln"]["variants"]["width"]
    assert [row["setting"] for row in width] == [
        "a common pathway of 3 units, the rest shared",
        "3 units in every pathway",
    ]
    assert stored["best_reln"]["depends_on"] == []  # a finding: no verdict moves
    assert "nearest ReLN by loss" in out["reading"]
    assert "one-hot contexts" in stored["fraction_served"]["value"]["C4"]


def test_the_records_hold_the_numbers_of_the_science_functions(
    page, tmp_path, monkeypatch
):
    params, runs = page
    _, glued, stored = _report(tmp_path, monkeypatch, params, runs)
    by_k, func, frac = ch.census_views(runs.census)
    census = stored["census_by_class"]["value"]
    fraction = stored["fraction_served"]["value"]
    for C in CS:
        for k in range(1, C + 1):
            want = kit.med(by_k[C][:, -1, k])
            assert census[f"C{C}"][f"k{k}"] == pytest.approx(want, 1e-5)
        assert fraction[f"C{C}"]["median"] == pytest.approx(
            kit.med(frac[C][:, -1]), 1e-5
        )
        assert fraction[f"C{C}"]["(C-1)/C"] == pytest.approx((C - 1) / C, 1e-5)
    onehot = runs.onehot[4]["per_unit"] / 4
    assert fraction["C4"]["one-hot contexts"] == pytest.approx(kit.med(onehot), 1e-5)
    best = stored["best_reln"]["value"]
    for C, f in runs.fits["primary"].items():
        for name, gap in f.gaps.items():
            assert best[f"C{C}"][name] == pytest.approx(gap, 1e-5)
        assert best[f"C{C}"]["seed spread"] == pytest.approx(f.relu_spread, 1e-5)
    four = runs.fits["primary"][4]
    assert best["C4"]["trained"]["3-of-4"]["race"] == pytest.approx(
        four.race["3-of-4"], 1e-5
    )
    assert "trained" not in best["C3"]  # only C >= sim_check_from is trained
    fixed = stored["best_reln"]["variants"]["width"][0]["value"]["C4"]
    for name, gap in runs.fits["common"][4].gaps.items():
        assert fixed[name] == pytest.approx(gap, 1e-5)
    sim = stored["race_follows_reln"]["value"]
    assert sim == pytest.approx(four.follows["3-of-4"], 1e-5)
    assert glued["mc_check_C"] == "4" and glued["mc_noise_multiple"] == "2"
    assert glued["mc_common_example"].startswith(
        "at C = 4 the common pathway has 2 units in 3-of-4 and 2 in 2-of-4"
    )


def test_without_the_form_check_and_the_trained_reln_two_records_go(
    page, tmp_path, monkeypatch
):
    params, runs = page
    untrained = {
        k: {C: replace(f, follows={}) for C, f in v.items()}
        for k, v in runs.fits.items()
    }
    runs = replace(runs, form_move=None, fits=untrained)
    _, _, stored = _report(tmp_path, monkeypatch, params, runs)
    assert "race_form_sensitivity" not in stored and "race_follows_reln" not in stored
