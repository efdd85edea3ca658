"""The page More contexts' report (helpers.chapters.extra_contexts.report): every
record, verdict, variant and glue the page needs, from the page's own science run on
a shrunk setting (few seeds, narrow networks, short training)."""

import json
import re
from pathlib import Path

import numpy as np
import pytest

import helpers as h
from helpers.book import kit, rulebook
from helpers.book.records import Records
from helpers.chapters import extra_contexts as ch
from helpers.core import families
from helpers.core.relns import INITS
from tests.chapters.records_check import check_records

#: The page's science on a shrunk setting still compiles many networks (20-70 s
#: on 2 cores): the full test command runs it, the quick unit subset does not.
pytestmark = pytest.mark.slow

PAGE = Path(__file__).resolve().parents[2] / "book" / "extra_contexts.md"
CS, SEEDS, INIT, LR, EPOCHS = [3, 4, 5], [0, 1, 2], "authors", 0.01, 600
HIDDEN, WIDTH, RELU_STD = {3: 14, 4: 10, 5: 12}, 2, 0.005
T, T_REC = np.arange(EPOCHS + 1), np.arange(0, EPOCHS + 1, 100)


def _page():
    """The page's runs at the shrunk setting, by the page's own functions."""
    DS = {C: h.contextual_task(C, context_value=v) for C, v in zip(CS, (1, 1.1, 1.35))}
    kw = dict(relu_std=RELU_STD, width=WIDTH, lr=LR, epochs=EPOCHS)
    SIM, CENSUS, FAM, FAM_SHARE, FAM_WIDE, MODES, STDS = {}, {}, {}, {}, {}, {}, {}
    for C in CS:
        out = ch.trained_and_read(
            DS[C], HIDDEN[C], SEEDS, INIT, census_threshold=0.5, record_epochs=T_REC,
            **kw,
        )  # fmt: skip
        SIM[C], CENSUS[C], _, FAM[C], FAM_SHARE[C], FAM_WIDE[C], MODES[C] = out
        STDS[C] = ch.start_stds(DS[C], HIDDEN[C], SEEDS, relu_std=RELU_STD, width=WIDTH)
    CF = {
        C: {
            m: ch.closed_form_for_stds(
                DS[C], T, LR, STDS[C][INIT][0], width=WIDTH, a0_method=m
            )
            for m in ch.A0_METHODS
        }
        for C in CS
    }
    CF_INIT = {
        (C, i): ch.closed_form_losses(DS[C], T, LR, STDS[C][i], width=WIDTH)
        for C in CS
        for i in INITS
    }
    ONEHOT = {
        C: ch.onehot_census(
            C, HIDDEN[C], SEEDS, relu_std=RELU_STD, lr=LR, epochs=EPOCHS, threshold=0.5
        )
        for C in (4, 5)
    }
    params = ch.Params(INIT, 0.5, SEEDS, HIDDEN, WIDTH, T, T_REC, LR)
    runs = ch.Runs(DS, SIM, CENSUS, FAM, FAM_SHARE, ONEHOT, CF, CF_INIT, MODES)
    return params, runs, ch.fit_all(SIM, FAM, FAM_WIDE, CF_INIT)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    glued, where = {}, tmp_path_factory.mktemp("records")
    params, runs, fits = _page()
    mp = pytest.MonkeyPatch()
    mp.setattr(kit, "glue", lambda name, value: glued.setdefault(name, value))
    try:
        out = ch.report(Records("extra_contexts", directory=where), params, runs, fits)
    finally:
        mp.undo()
    stored = json.loads((where / "extra_contexts.json").read_text())
    return out, glued, stored, runs, fits


def test_every_registered_record_is_written_with_the_rulebook_s_verdict(written):
    _, _, stored, _, _ = written
    check_records("extra_contexts", stored)
    assert isinstance(stored["gap_relu_closed_form_C3"]["value"], float)
    assert stored["gap_relu_closed_form_C4"]["part_of"] == "follows_reln_C4"


def test_the_records_hold_the_numbers_of_the_science_functions(written):
    _, glued, stored, runs, fits = written
    for C in CS:
        gap = kit.med(fits.check[C, INIT])
        assert glued[f"ec_gap_reln_{C}"] == gap
        assert stored[f"gap_reln_closed_form_C{C}"]["value"] == pytest.approx(gap, 1e-5)
        assert glued[f"ec_gap_relu_{C}"] == fits.closed[C, INIT].value
        assert glued[f"ec_follow_{C}"] == fits.follows[C].value
    _, _, share, per_unit = ch.census_views(runs.census)
    assert stored["share_mixed_selective_C5"]["value"] == pytest.approx(
        kit.med(share[5][:, -1]), 1e-5
    )
    frac = stored["node_reuse_fraction"]["value"]
    for C in CS:
        assert frac[f"C{C}"] == pytest.approx(kit.med(per_unit[C, "weight"][:, -1]) / C)
    assert glued["ec_reuse_4"] == kit.med(per_unit[4, "weight"][:, -1])


def test_every_paper_record_carries_the_variants_of_its_choices(written):
    _, _, stored, runs, _ = written
    registered = rulebook.registry()["extra_contexts"]
    for name, rec in stored.items():
        if registered[name]["kind"] != "paper":
            continue
        # the rulebook's own: 'levels' where a short run leaves a level unreached,
        # 'rounding' where the stored executions of another CPU disagree
        extra = set(rec["variants"]) - set(registered[name]["choices"])
        assert extra <= {"levels", "rounding"}, name
    init = [v["setting"] for v in stored["follows_reln_C4"]["variants"]["init"]]
    twins = ch.same_start(runs.sim[4], INIT)
    assert init == [
        f"{i} (starts as {INIT} here)" if i in twins else i for i in INITS if i != INIT
    ]


def test_every_glue_the_prose_cites_is_glued(written):
    out, glued, _, _, _ = written
    cited = set(re.findall(r"\{glue:(?:text|md)\}`(\w+)", PAGE.read_text()))
    cited.discard("extra_contexts_answer")  # glued by Records.save in the notebook
    assert cited <= set(glued), sorted(cited - set(glued))
    assert "| claim | verdict |" in out["summary"]


def test_width_and_input_are_variants_and_a_share_is_judged_one_sided(written):
    _, glued, stored, runs, _ = written
    follows = stored["follows_reln_C5"]["variants"]["width"]
    assert [v["setting"] for v in follows] == [
        "2 units per pathway (the rivals wider than the ReLU network)"
    ]
    share = stored["share_mixed_selective_C5"]
    assert share["criterion"] == "near_bound"
    assert [v["setting"] for v in share["variants"]["input"]] == ["one-hot contexts"]
    assert "input" not in stored["share_mixed_selective_C3"]["variants"]
    reuse = stored["node_reuse_contexts_per_unit"]["variants"]["input"]
    assert reuse[0]["setting"] == "one-hot contexts"
    _, _, _, per_unit = ch.census_views(runs.census)
    onehot = {
        C: families.onehot_fraction(runs.onehot, C, per_unit[C, "weight"][:, -1] / C)
        for C in CS
    }
    rise = ch.measures.smallest_rise(onehot)["value"]
    moves = "rises" if rise > 0 else "falls"
    assert f"{moves} on one-hot contexts ({rise:+.4f}" in glued["ec_onehot_reading"]
    assert glued["ec_width_reading"].startswith("With 2 units in every pathway")
    assert (
        "Final losses (median over seeds): ReLU network"
        in (stored["follows_reln_C3"]["note"])
    )


def test_a_share_short_of_its_bound_by_less_than_the_tolerance_is_reproduced():
    claim = rulebook.registry()["extra_contexts"]["share_mixed_selective_C3"]
    x = np.array([0.995, 0.993, 0.997, 0.996])
    ev = h.measures.share_at_bound(x, 0.3)
    assert rulebook.decide(claim, ev).verdict == "reproduced"
    far = h.measures.share_at_bound(x - 0.2, 0.3)
    assert rulebook.decide(claim, far).verdict == "partly reproduced"
