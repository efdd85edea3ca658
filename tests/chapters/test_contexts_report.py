"""The records, glue and tables of the contexts chapter
(helpers.chapters.contexts.report), written from a small synthetic results object:
every registered record, the rulebook's verdicts, the variants of every paper claim,
every glue name the page cites."""

import json
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from helpers.book import rulebook
from helpers.book.records import Records
from helpers.chapters import contexts as ch
from helpers.chapters.contexts.report import ablation_reading, ablation_summary
from helpers.core import measures
from helpers.core.measures import Evidence, match
from helpers.core.relns import INITS

PAGE = Path(__file__).resolve().parents[2] / "book" / "contexts.md"
S, T, EVERY = 4, 201, 50
SHOW = [50, 100, 200]


def _curves(rng, rate, S=S):
    t = np.arange(T)
    return np.array(
        [10 * np.exp(-rate * (1 + 0.03 * rng.standard_normal()) * t) for _ in range(S)]
    )


def _run(loss):
    return SimpleNamespace(loss=loss, index=lambda e: e // EVERY)


def _results():
    rng = np.random.default_rng(0)
    R = T // EVERY + 1
    t_rec = np.arange(0, T, EVERY)
    relu = _run(_curves(rng, 0.1))
    family = {
        "both": _curves(rng, 0.09),
        "mixed": _curves(rng, 0.089),
        "single": _curves(rng, 0.05),
        "common": _curves(rng, 0.02),
    }
    runs = {
        "both/one-way": _run(family["both"]),
        "both/full": _run(_curves(rng, 0.092)),
        "mixed/one-way": _run(family["mixed"]),
        "single/one-way": _run(family["single"]),
    }
    sens = {}
    for k, init in enumerate(INITS):
        L = family if init == "authors" else {n: _curves(rng, 0.1) for n in family}
        if init != "authors":
            L["single"] = _curves(rng, 0.05 + 0.01 * k)
        sens[init] = {n: ch.family_match(relu.loss, L, n) for n in L}
        sens[init]["curves"] = L
    shares = lambda lo, hi: rng.uniform(lo, hi, (S, R))  # noqa: E731
    out_gaps = {
        n: {e: rng.uniform(a, 2 * a, 6) for e in SHOW}
        for n, a in [("reln", 0.03), ("seed", 0.01), ("single", 0.1)]
    }
    out_spread = {"spread": 0.012, "interval": (0.008, 0.02), "sides": [0.01, 0.012]}
    out_at = {
        e: {"spread": 0.01, "interval": (0.006, 0.03), "sides": [0.009, 0.01]}
        for e in SHOW
    }
    row = lambda label, gap: ch.LadderRow(  # noqa: E731
        label, gap, 0.1, 0.05, _curves(rng, 0.08, 1)[0]
    )
    ladder = [row(f"variant {k}", 0.1 + 0.01 * k) for k in range(9)] + [
        row("matrix race", 0.01)
    ]
    modes = lambda top: [  # noqa: E731
        SimpleNamespace(name=f"p{k}", s=np.array([top, top / 2])) for k in range(3)
    ]
    names = ["common", "ctx12", "ctx13", "ctx23", "ctx1", "ctx2", "ctx3"]
    return SimpleNamespace(
        init="authors",
        lr=1e-3,
        epochs=T - 1,
        relu_width=700,
        record_every=EVERY,
        show_epochs=SHOW,
        head_start_epoch=100,
        t_rec=t_rec,
        authors_overlap=-0.45,
        authors_a0_context=[5e-5, 3e-4],
        ds=SimpleNamespace(P=24),
        L0=10.0,
        L_linear=3.0,
        diag_211={"offdiag": 0.044},
        diag_211_H={"offdiag": 1e-16},
        mirror_err=1e-15,
        d_all=np.full(6, 2.0),
        sx_cross=np.eye(8),
        raw_mixed=modes(2.0),
        raw_single=modes(1.0),
        pm_mixed=modes(1.5),
        relu=relu,
        runs=runs,
        m_reln=sens["authors"]["both"],
        m_full=ch.family_match(
            relu.loss, {**family, "both": runs["both/full"].loss}, "both"
        ),
        m_mixed=sens["authors"]["mixed"],
        m_single=match(relu.loss, family["single"]),
        gaps={
            k: 0.01
            for k in ("ow_full", "pred", "pred_full", "pred_mixed", "pred_single")
        },
        level_ratio=np.array([0.05, 0.04, 0.03, 0.02]),
        sens=sens,
        init_rows=ch.init_table(sens, relu.loss),
        out_gaps=out_gaps,
        out_spread=out_spread,
        m_out=ch.output_gap_match(out_gaps, out_spread, out_at),
        order_ok=[True, False, True],
        rel_err={n: rng.uniform(0, 0.1, S) for n in names},
        main_names=names[:4],
        single_names=names[4:],
        sims={
            n: {m: shares(0.9, 1.0) for m in ch.SIMILARITY_METRICS}
            for n in ("reln", "seed", "single")
        },
        mds_explained=[0.9, 0.8, 0.7],
        cka_gap={"reln": 0.01, "seed": 0.001, "single": 0.02},
        cka_by_epoch={n: rng.uniform(0, 0.1, R) for n in ("reln", "seed", "single")},
        single_closer_from=150,
        census={
            k: shares(0.0, 0.5)
            for k in (
                "common",
                "mixed",
                "single",
                "other",
                "item_dependent",
                "consistency",
            )
        },
        single_by_ctx={"100": 0.01, "010": 0.1, "001": 0.01},
        peak_common=0.9,
        split_epoch=100.0,
        div={
            net: {c: rng.uniform(0, 1, 4) for c in ("common", "2-of-3", "single")}
            for net in ("ReLU", "ReLN")
        },
        fc={
            k: shares(0.05, 0.2)
            for k in ("common", "mixed", "single", "other", "snap_change")
        },
        singles_alt=0.28,
        phase=[50, 200],
        r_last=R - 1,
        strict=[
            {"context_level": 0.03, "one_context_only": 0.003 + 0.001 * s}
            for s in range(S)
        ],
        ablation=[
            {"loss": 0.01, "ablated": 3.0 + s, "share_units": 0.1} for s in range(S)
        ],
        control=[
            {
                "ablated": 1.0 + s,
                "ablated_draws": np.array([0.5, 1.0 + s, 2.0 + s]),
                "weight_ratio": 1.01,
                "share_units": 0.08,
                "enough": True,
            }
            for s in range(S)
        ],
        ratio_final=np.array([0.09, 0.08, 0.1, 0.085]),
        ratio_pred=np.array([0.5, 0.1]),
        single_norm=[1e-3, 0.4],
        out_single_share=0.01,
        resid={"2-of-3": _curves(rng, 0.05), "single": _curves(rng, 0.05)},
        a0_common=1e-10,
        a0_context=1e-8,
        a0_hs_pred=1e-4,
        a0_hs_sim=2e-4,
        a0_eq=np.array([1e-4, 1e-5, np.nan]),
        top_H=np.array([-0.5, -0.5]),
        top_vals=np.array([-0.44, -0.46]),
        partner_all=np.array([-0.5, -0.3, -0.1]),
        ladder=ladder,
        race_row=ladder[-2],
        m_race=match(family["both"], ladder[-2].loss),
        g_race_relu=0.2,
        sim_m=family["mixed"],
        g_authors=0.15,
        reln_spread=0.01,
        star_row=ladder[-3],
        g_race_star=0.03,
    )


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    glued = {}
    mp = pytest.MonkeyPatch()
    # a short bootstrap: the intervals' numbers do not matter here, only their use
    mp.setitem(measures.BOOTSTRAP, "resamples", 40)
    mp.setattr(
        sys.modules["helpers.chapters.contexts.report"],
        "glue",
        lambda name, value, **kw: glued.setdefault(name, value),
    )
    try:
        results = _results()
        d = tmp_path_factory.mktemp("records")
        tables = ch.report(Records("contexts", directory=d), results)
    finally:
        mp.undo()
    saved = json.loads((d / "contexts.json").read_text())
    return results, tables, saved, glued


def test_every_registered_record_is_written(written):
    _, _, saved, _ = written
    assert set(saved) == set(rulebook.registry()["contexts"])


def test_verdicts_are_the_rulebooks(written):
    _, _, saved, _ = written
    for name, r in saved.items():
        claim = rulebook.claim("contexts", name)
        expected = rulebook.decide(claim, Evidence.from_record(r)).verdict
        assert r["verdict"] == expected, name


def test_paper_records_carry_every_choice_of_their_claim(written):
    _, _, saved, _ = written
    for name, claim in rulebook.registry()["contexts"].items():
        if claim["kind"] != "paper":
            continue
        r = saved[name]
        assert set(claim["choices"]) <= set(r["variants"]), name
        assert isinstance(r["depends_on"], list), name
        assert set(r["depends_on"]) <= set(claim["choices"]), name
        assert r["figure"] == claim["figure"], name


def test_the_numbers_are_the_results(written):
    results, tables, saved, _ = written
    assert saved["gap_relu_reln"]["value"] == pytest.approx(
        results.m_reln.value, rel=1e-5
    )
    assert saved["gap_relu_singles"]["criterion"] == "beyond_noise"
    assert saved["single_context_share"]["paper"] == 0.0
    assert saved["single_context_share"]["value"] == pytest.approx(
        np.median(results.fc["single"][:, -1]), rel=1e-5
    )
    assert saved["output_gap"]["value"] == pytest.approx(results.m_out.value, rel=1e-5)
    inits = {v["setting"] for v in saved["gap_relu_reln"]["variants"]["init"]}
    assert inits == set(INITS) - {"authors"}
    assert "ReLU loss follows the 7-pathway ReLN" in tables["summary"]
    assert tables["headline"].startswith("gap_relu_reln")


def test_both_readings_and_the_ablation_control_are_recorded(written):
    results, _, saved, glued = written
    share = saved["single_context_share"]
    (literal,) = share["variants"]["definition"]
    one = np.median([d["one_context_only"] for d in results.strict])
    assert literal["value"] == pytest.approx(one, rel=1e-5)
    assert f"{one:.3g}" in literal["setting"] and f"{one:.3g}" in share["note"]
    assert f"{share['value']:.3g}" in share["note"]
    ab = saved["single_context_ablation"]["value"]
    assert ab["control_median"] == pytest.approx(2.5)
    ratios = [3 / 1, 4 / 2, 5 / 3, 6 / 4]
    assert ab["ratio_median"] == pytest.approx(np.median(ratios), rel=1e-5)
    assert ab["seeds_above_median"] == 4 and ab["seeds_above_every_draw"] == 4
    assert "more than every one of the 3 random sets" in glued["contexts_ctl_reading"]


def test_ablation_reading_follows_the_numbers():
    base = dict(draws=5, seeds=4, ratio_min=0.5, ratio_max=0.9, ratio_median=0.7)
    low = ablation_reading(
        {**base, "seeds_above_median": 0, "seeds_above_every_draw": 0}
    )
    assert "less than the median random set in each of the 4 seeds" in low
    assert "matter less" in low
    mixed = ablation_reading(
        {
            **base,
            "ratio_median": 1.2,
            "seeds_above_median": 2,
            "seeds_above_every_draw": 0,
        }
    )
    assert "in 2 of the 4 seeds" in mixed and "matter more" in mixed
    with pytest.raises(ValueError, match="one entry per seed"):
        ablation_summary([{"loss": 1, "ablated": 1, "share_units": 0.1}], [])


def test_every_glue_name_the_page_cites_is_glued(written):
    *_, glued = written
    cited = set(re.findall(r"\{glue:text\}`(\w+)", PAGE.read_text()))
    assert cited <= set(glued), sorted(cited - set(glued))


def test_tables_of_the_page():
    po = {
        "top": {("a", "b"): -0.4, ("b", "a"): -0.4},
        "pairs": {("a", "b"): np.array([-0.4, -0.2]), ("b", "a"): np.array([-0.4])},
    }
    assert "| a, b" in ch.overlap_table(po)
    text = ch.loss_table({"x": np.ones((2, 10))}, [0, 9])
    assert text.splitlines()[0].count("|") == 4
    assert "0.25" in ch.threshold_table({0.25: (0.9, 0.1)})
