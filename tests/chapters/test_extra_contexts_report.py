"""The page More contexts' report (helpers.chapters.extra_contexts.report): every
record, verdict, variant and glue the page needs, from a small synthetic results
object (loss curves of known rates, a real closed form, random censuses)."""

import importlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

import helpers as h
from helpers.book import rulebook
from helpers.book.records import Records
from helpers.chapters import extra_contexts as ch
from helpers.core.measures import Evidence

report_module = importlib.import_module("helpers.chapters.extra_contexts.report")
PAGE = Path(__file__).resolve().parents[2] / "book" / "extra_contexts.md"
CS, SEEDS, INIT, LR = [3, 4, 5], [0, 1, 2], "authors", 0.01
T = np.arange(801)
T_REC = np.arange(0, 801, 100)


def _curves(rng, rate):
    """Loss curves of three seeds that fall at about ``rate`` (per 100 epochs)."""
    r = rate * (1 + 0.03 * rng.standard_normal(len(SEEDS)))
    return np.stack([10 * np.exp(-k * T / 100) + 1e-3 for k in r])


def _run(loss):
    return type("Run", (), {"loss": loss})()


def _results() -> ch.Results:
    rng = np.random.default_rng(0)
    INITS = h.relns.INITS
    DS = {C: h.contextual_task(C) for C in CS}
    CM = {C: ch.context_modes(DS[C]) for C in CS}
    stds = {"common": 1e-3, "ctx12": 2e-3}
    CF = {
        C: {
            m: ch.closed_form_for_stds(DS[C], T, LR, stds, a0_method=m)
            for m in ch.A0_METHODS
        }
        for C in CS
    }
    SIM, FAM, CF_INIT, M, M_RELN, CHECK, FOLLOWS = {}, {}, {}, {}, {}, {}, {}
    FOLLOWS_WIDE, M_WIDE = {}, {}
    PAPER = {C: "2+1-of-3" if C == 3 else f"{C - 1}-of-{C}" for C in CS}
    for C in CS:
        SIM[C] = {"relu": _run(_curves(rng, 1.0))}
        for i, rate in zip(INITS, (1.3, 1.1, 1.2)):
            SIM[C]["mixed", i] = _run(_curves(rng, rate))
        SIM[C]["single", INIT] = _run(_curves(rng, 0.4))
        FAM[C] = {f"{k}-of-{C}": _curves(rng, 0.3 + 0.2 * k) for k in range(1, C + 1)}
        FAM[C][f"{C - 1}-of-{C}"] = SIM[C]["mixed", INIT].loss
        FAM[C][f"1-of-{C}"] = SIM[C]["single", INIT].loss
        if C == 3:
            FAM[C]["2+1-of-3"] = _curves(rng, 1.05)
        relu = SIM[C]["relu"].loss
        FOLLOWS[C] = ch.against_family(
            relu,
            FAM[C][PAPER[C]],
            PAPER[C],
            {n: L for n, L in FAM[C].items() if n != PAPER[C]},
            C,
        )
        rivals = {n: L for n, L in FAM[C].items() if n != f"{C - 1}-of-{C}"}
        # the same family with every pathway as wide as the paper's: wider rivals,
        # one of them faster than the ReLU network
        wide = {n: L for n, L in FAM[C].items()}
        wide[f"{C - 2}-of-{C}"] = _curves(rng, 1.02)
        FOLLOWS_WIDE[C] = ch.against_family(
            relu,
            wide[PAPER[C]],
            PAPER[C],
            {n: L for n, L in wide.items() if n != PAPER[C]},
            C,
        )
        wide_rivals = {n: L for n, L in wide.items() if n != f"{C - 1}-of-{C}"}
        for i in INITS:
            CF_INIT[C, i] = _curves(rng, 1.25)
            M[C, i] = ch.against_family(
                relu, CF_INIT[C, i], f"closed form ({C - 1}-of-{C})", rivals, C
            )
            reln = SIM[C]["mixed", i].loss
            M_RELN[C, i] = ch.against_family(relu, reln, f"{C - 1}-of-{C}", rivals, C)
            CHECK[C, i] = ch.paired_gaps(reln, CF_INIT[C, i])
            M_WIDE[C, i] = ch.against_family(
                relu, CF_INIT[C, i], f"closed form ({C - 1}-of-{C})", wide_rivals, C
            )
    R, S = len(T_REC), len(SEEDS)
    MODES = {
        C: {
            n: (rng.random((S, R, 3)), rng.random((S, R, len(CM[C].s))))
            for n in ("reln", "relu")
        }
        for C in CS
    }
    BY_K = {C: rng.dirichlet(np.ones(C + 1), (S, R)) for C in CS}
    FUNC_K = {C: rng.dirichlet(np.ones(C + 1), (S, R)) for C in CS}
    PER_UNIT = {
        (C, how): C * (0.6 + 0.02 * C + 0.01 * rng.random((S, R)))
        for C in CS
        for how in ("weight", "function")
    }
    keys = ("common", "mixed", "single", "other")
    FUNC_FINAL = {
        C: [{"snap_change": 0.05, **dict(zip(keys, rng.dirichlet(np.ones(4))))}] * S
        for C in CS
    }
    prof = (
        "share",
        "active_on",
        "active_off",
        "context_weight_on",
        "context_weight_off",
    )
    PROFILE = {C: [dict(zip(prof, rng.random(5)))] * S for C in CS}
    THRESH = {
        thr: {C: np.c_[rng.random(S), C * (0.7 + 0.01 * rng.random(S))] for C in CS}
        for thr in (0.25, 0.5, 0.75, 1.0)
    }
    return ch.Results(
        init=INIT,
        census_threshold=0.5,
        CS=CS,
        SEEDS=SEEDS,
        INITS=INITS,
        DS=DS,
        HIDDEN={3: 70, 4: 50, 5: 60},
        t_rec=T_REC,
        CM=CM,
        CF=CF,
        SIM=SIM,
        CF_INIT=CF_INIT,
        M=M,
        M_RELN=M_RELN,
        CHECK=CHECK,
        FOLLOWS=FOLLOWS,
        FAM=FAM,
        FOLLOWS_WIDE=FOLLOWS_WIDE,
        M_WIDE=M_WIDE,
        ONEHOT={
            C: {
                "share": 0.8 + 0.05 * rng.random(S),
                "per_unit": C * (0.7 - 0.02 * C + 0.01 * rng.random(S)),
                "by_k": rng.dirichlet(np.ones(C + 1), S),
            }
            for C in (4, 5)
        },
        reln_width=10,
        PAPER_RELN=PAPER,
        SAME_START={3: [INIT], 4: [INIT, "matched"], 5: [INIT, "matched"]},
        MODES=MODES,
        GAP_VAR=ch.tables.gap_variants(CS, CF, SIM, INIT),
        HALFWAY=ch.tables.halfway(CS, CM, CF, MODES, T, T_REC, LR),
        FAM_SHARE={C: {f"1-of-{C}": list(rng.random(S))} for C in CS},
        SHARE={C: 0.9 + 0.05 * rng.random((S, R)) for C in CS},
        BY_K=BY_K,
        FUNC_K=FUNC_K,
        PER_UNIT=PER_UNIT,
        FUNC_FINAL=FUNC_FINAL,
        PROFILE=PROFILE,
        THRESH=THRESH,
    )


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    glued, where = {}, tmp_path_factory.mktemp("records")
    mp = pytest.MonkeyPatch()
    mp.setattr(report_module, "glue", lambda name, value: glued.setdefault(name, value))
    try:
        out = ch.report(Records("extra_contexts", directory=where), _results())
    finally:
        mp.undo()
    stored = json.loads((where / "extra_contexts.json").read_text())
    return out, glued, stored


def test_every_registered_record_is_written_with_the_rulebook_s_verdict(written):
    _, _, stored = written
    registered = rulebook.registry()["extra_contexts"]
    assert set(stored) == set(registered)
    for name, rec in stored.items():
        again = rulebook.decide(registered[name], Evidence.from_record(rec)).verdict
        assert rec["verdict"] == again, name
        assert rec.get("figure") == registered[name].get("figure"), name
    assert isinstance(stored["gap_relu_closed_form_C3"]["value"], float)
    assert stored["gap_relu_closed_form_C4"]["part_of"] == "follows_reln_C4"


def test_every_paper_record_carries_the_variants_of_its_choices(written):
    _, _, stored = written
    registered = rulebook.registry()["extra_contexts"]
    for name, rec in stored.items():
        if registered[name]["kind"] != "paper":
            continue
        assert set(rec["variants"]) == set(registered[name]["choices"]), name
        assert isinstance(rec["depends_on"], list), name
    init = stored["follows_reln_C4"]["variants"]["init"]
    assert [v["setting"] for v in init] == [
        "matched (starts as authors here)",
        "derived",
    ]


def test_every_glue_the_prose_cites_is_glued(written):
    out, glued, _ = written
    cited = set(re.findall(r"\{glue:(?:text|md)\}`(\w+)", PAGE.read_text()))
    cited.discard("extra_contexts_answer")  # glued by Records.save in the notebook
    assert cited <= set(glued), sorted(cited - set(glued))
    assert "| claim | verdict |" in out["summary"]
    assert out["check"].startswith("C = 3: gap_reln_closed_form")


def test_width_and_input_are_variants_and_a_share_is_judged_one_sided(written):
    out, glued, stored = written
    follows = stored["follows_reln_C5"]["variants"]["width"]
    assert [v["setting"] for v in follows] == [
        "10 units per pathway (the rivals wider than the ReLU network)"
    ]
    share = stored["share_mixed_selective_C5"]
    assert share["criterion"] == "near_bound"
    assert [v["setting"] for v in share["variants"]["input"]] == ["one-hot contexts"]
    assert "input" not in stored["share_mixed_selective_C3"]["variants"]
    reuse = stored["node_reuse_contexts_per_unit"]["variants"]["input"]
    assert reuse[0]["setting"] == "one-hot contexts"
    # the one-hot fraction falls by construction here: the reading says so
    assert "falls on one-hot contexts" in glued["ec_onehot_reading"]
    assert glued["ec_width_reading"].startswith("With 10 units in every pathway")
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
