"""The reviewers' page's report (helpers.chapters.reviewers.report): every record, the
glue the prose cites and the closing table, from a small synthetic results object."""

import re
from pathlib import Path

import numpy as np
import pytest

import helpers as h
from helpers.book import kit
from helpers.book.records import Records
from helpers.chapters.reviewers import measures as me
from helpers.chapters.reviewers import networks as nw
from helpers.chapters.reviewers import report as rp
from helpers.chapters.reviewers import sweeps as sw
from tests.chapters.records_check import check_records

PAGE = Path(__file__).resolve().parents[2] / "book" / "reviewers.md"
SEEDS = 4


def _curves(rate, T=600, jitter=0.02):
    t = np.arange(T)
    return np.stack(
        [10.0 * np.exp(-rate * (1 + jitter * s) * t) + 1e-6 for s in range(SEEDS)]
    )


def _strategy(mixed=0.5, single=0.15):
    st = {
        "common": np.full(SEEDS, 0.3),
        "mixed": np.full(SEEDS, mixed) + 0.01 * np.arange(SEEDS),
        "single": np.full(SEEDS, single),
        "other": np.zeros(SEEDS),
        "snap_change": np.full(SEEDS, 0.08),
    }
    st["mixed_of_context"] = st["mixed"] / (st["mixed"] + st["single"])
    return st


PARAMS = dict(
    seeds=SEEDS, epochs=599, init_scale=0.005, relu_width=700, reln_width=100,
    record_every=599, reln_record_every=599, widths=[16, 700],
    init_stds=[0.005 / 700, 0.2], batch_sizes=[4], code_rho_pct=[0], code_seed=0,
    label_noise=[0.3], noise_seed=0, primed_units=100, primed_gains=[1.0, 30.0],
    primed_off=1.0, schedule_epochs=300, strategy_share=0.5, fit_level=0.01,
    plateau_min=0.25, gate_change_max=0.05, common_done=0.9,
)  # fmt: skip


def _init_row(sd, k, st, m):
    """A row of the init sweep (:func:`sweeps.init_row` needs recorded weights)."""
    return {
        "std": sd,
        "plateau_share": 0.8 - 0.7 * k,
        "plateau": k == 0,
        "gate_change": 0.2 - 0.1 * k,
        "gating_moves": True,
        "initial_loss": 10.0 + 50 * k,
        **{c: float(np.median(st[c])) for c in sw.SHARES},
        "mixed": 0.2 if k else float(np.median(st["mixed"])),  # k = 1: no strategy
        **me.match_fields(m),
        "reln_describes": False,
        "seeds": SEEDS,
    }


@pytest.fixture(scope="module")
def results():
    """The page's results from synthetic curves and shares through the chapter's own
    row functions, and the task's real modes, singular values and ranks."""
    p = sw.Parameters(**PARAMS)
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    relu = _curves(0.02)
    m = me.match_summary(relu, _curves(0.021), _curves(0.03), 2.0)
    far = me.match_summary(relu, _curves(0.012), _curves(0.03), 2.0)
    st = _strategy()
    width_sweep = {
        rule: {
            w: {**sw.width_row(st, relu, m if w == 700 else far, 0.01, 0.5), "std": sd}
            for w in p.widths
        }
        for rule, sd in (("fixed std", p.base_std), ("fixed output scale", 1e-5))
    }
    init_sweep = {
        f"{sd:.2e}": _init_row(sd, k, st, (m, far)[k]) for k, sd in enumerate(p.stds)
    }
    optimiser = {
        name: sw.optimiser_row(st, relu, m, 1e-3, comparable=not name.startswith("A"))
        for name in ("GD", "SGD, batch 4", "Adam, mean rule", "Adam, largest rule")
    }
    codes, noisy = nw.correlated_task(ds, 0.0, 8, 0), nw.noisy_task(ds, 0.3, 0)
    data_table = {
        "one-hot (the paper)": sw.data_row(ds, st, m, 1e-8),
        "codes rho=0": sw.data_row(codes, st, far, 0.02),
        "label noise 0.3": sw.data_row(noisy, st, m, 1e-9),
    }
    matches = {"paper settings": m, "width 16 (fixed std)": far}
    matches.update({"init std 2.0e-01": far, "SGD, batch 4": m})
    matches.update({"codes rho=0": far, "label noise 0.3": m})
    race = {"gap_to_reln": 0.01, "reln_spread": 0.02, "gap_to_relu": 0.19}
    separation = {
        "t_common": 1200,
        "context_at_t_common_sim": 0.59,
        "context_at_t_common_race": 0.6,
        "gap_oneway_vs_full_race": 0.004,
        "one-way race": race,
        "fully coupled race": race,
        "separated race": {**race, "gap_to_reln": 0.9},
    }
    net = h.relns.with_stds(
        h.context_reln(ds, "mixed", "one-way", 100),
        dict.fromkeys(["common", "ctx12", "ctx13", "ctx23"], p.base_std),
    )
    rows6 = me.mode_table(net, ds, lr=1e-3, min_share=0.05)
    both = h.context_reln(ds, "both", "one-way", 100)
    _, R = h.common_fit(ds)
    race7 = {g: {"single": 0.03 * g, "mixed": 0.3} for g in (1.0, 30.0)}
    t1 = np.full(SEEDS, 1000.0)
    intervention = {
        f"primed, gain {g:g}": sw.intervention_row(st, race7[g], t1, 900.0, relu, 10.0)
        for g in (1.0, 30.0)
    }
    intervention["schedule"] = sw.intervention_row(
        st, race7[1.0], t1 * 2, 900.0, relu, 10.0, common_at_switch=0.95
    )
    t_sim = np.linspace(300.0, 3000.0, len(rows6))
    return rp.Results(
        params=p,
        L0=10.0,
        L_linear=2.0,
        need=me.rank_needed(ds),
        matches=matches,
        match_authors=me.match_summary(relu, _curves(0.0205), _curves(0.03), 2.0),
        base_end=st,
        weight_census=np.full((SEEDS, 3), 0.5),
        width_sweep=width_sweep,
        init_sweep=init_sweep,
        optimiser=optimiser,
        lr_adam={"mean": 1e-6, "largest": 1e-4},
        data_table=data_table,
        separation=separation,
        mode_order={
            "modes": len(rows6),
            "isolated_vs_sim": 0.88,
            "race_vs_sim": 0.99,
            "speed_s_vs_sim": 0.88,
            "final_size_vs_sim": 0.87,
        },
        rows6=rows6,
        t_sim=t_sim,
        top_raw=me.pathway_top_singular_values(both, ds.X, ds.Y),
        top_res=me.pathway_top_singular_values(both, ds.X, R),
        race7=race7,
        intervention=intervention,
    )


@pytest.fixture(scope="module")
def written(results, tmp_path_factory):
    glued = {}
    mp = pytest.MonkeyPatch()
    # the report glues through the kit
    mp.setattr(kit, "glue", lambda name, value: glued.__setitem__(name, value))
    rec = Records("reviewers", directory=tmp_path_factory.mktemp("records"))
    try:
        out = rp.report(rec, results)
    finally:
        mp.undo()
    return rec, out, glued


def test_every_registered_record_is_written_with_the_rulebooks_verdict(written):
    rec, out, _ = written
    assert out["path"].exists()
    for name, entry in check_records("reviewers", rec.items).items():
        r = rec.items[name]  # findings and measurements only: no paper claim today
        assert (
            r["verdict"]
            == {"finding": "finding", "measured": "measured"}[entry["kind"]]
        ), name


def test_records_carry_the_numbers(written, results):
    rec, _, _ = written
    base = rec.items["paper_settings_match"]
    mb = results.matches["paper settings"]
    assert base["value"] == pytest.approx(mb["value"], rel=1e-5)
    assert base["spread"] == pytest.approx(mb["spread"], rel=1e-5)
    assert base["alternative"] == pytest.approx(mb["alternative"], rel=1e-5)
    assert base["criterion"] == "seed_noise"
    assert base["figure"] == "fig-reviewers-base"
    sentence = rec.items["authors_sentence"]["value"]
    assert sentence["settings"] == len(results.matches) - 1
    assert sentence["excluded_no_strategy"] == ["init std 2.0e-01"]
    adam = rec.items["optimiser"]["value"]["Adam, largest rule"]
    assert adam["match_value"] is None and adam["race_winner"]
    reuse = rec.items["node_reuse"]["value"]
    raw = np.mean([results.top_raw[n] for n in ("ctx12", "ctx13", "ctx23")])
    assert reuse["top_s_raw"]["2-of-3"] == pytest.approx(raw, rel=1e-5)
    # the task's own numbers: reuse helps on the raw targets, not on the residual
    assert reuse["top_s_raw"]["2-of-3"] > reuse["top_s_raw"]["single"]
    res = reuse["top_s_residual"]
    assert res["2-of-3"] == pytest.approx(res["single"], rel=1e-4)
    assert rec.items["rank_needed"]["value"]["total"] == sum(
        v for k, v in results.need.items() if k != "total"
    )
    assert set(rec.items["label_noise"]["value"]) == {"label noise 0.3"}


def test_every_glue_the_prose_cites_is_written(written):
    _, _, glued = written
    cited = set(re.findall(r"\{glue:text\}`([A-Za-z0-9_]+)", PAGE.read_text()))
    assert cited, "the page cites no glue?"
    assert sorted(cited - set(glued)) == []
    assert glued["reviewers_base_nearer"] in (
        "below",
        "not below",
        "not told apart from",
    )


def test_closing_table(written):
    _, out, _ = written
    assert out["summary"].startswith("| claim | verdict |")
    assert out["summary"].count("\n| ") >= 15
