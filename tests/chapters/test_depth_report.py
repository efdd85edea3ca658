"""The depth chapter's report (helpers.chapters.depth.report): from a small synthetic
results object, every registered record is written, with the rulebook's verdict and,
for the paper's claims, the variants of every choice the chapter's data file lists."""

import json

import numpy as np
import pytest

import helpers as h
from helpers.book import rulebook
from helpers.book.records import Records
from helpers.chapters import depth as ch
from helpers.core.measures import Evidence


def _curve(t, drops):
    """A loss staircase from 96 down to about 1, one logistic drop per epoch in
    ``drops``."""
    L = np.full(t.shape, 96.0)
    for t0, step in zip(drops, (30.0, 36.0, 29.0)):
        L = L - step / (1 + np.exp(-(t - t0) / 40.0))
    return L


def _runs(rng, name, S, T, every, jitter):
    t = np.arange(T + 1)
    grid = ch.record_grid(T, every)
    R = grid.size
    loss = np.stack(
        [
            _curve(
                t,
                (
                    1500 + rng.normal(0, 20),
                    4000 + rng.normal(0, jitter),
                    6500 + rng.normal(0, jitter / 2),
                ),
            )
            for _ in range(S)
        ]
    )
    ramp = lambda start: np.clip((grid - start) / 500.0, 0, None)  # noqa: E731
    common = np.stack([ramp(800 + 10 * s) for s in range(S)])
    mixed = np.stack([ramp(3000 + 50 * s) for s in range(S)])
    zero = np.zeros((S, R))
    classes = [
        np.stack([common, zero, zero, zero], axis=2),
        np.stack([common, mixed, 0.2 * mixed, zero], axis=2),
    ]
    total = np.stack([c.sum(axis=2) for c in classes], axis=2) + 1e-3
    pats = ch._patterns(3)
    mass = [np.zeros((S, R, 8)), np.zeros((S, R, 8))]
    mass[1][:, :, pats.index("111")] = common
    mass[1][:, :, pats.index("110")] = mixed
    mid = (grid >= 2000) & (grid <= 5000)
    snap = np.where(mid, 0.05, 0.4) + rng.uniform(0, 0.01, (S, R))
    # layer 1 on everywhere in the middle of training only
    on = np.where(mid, 0.99, 0.2) + rng.uniform(0, 0.01, (S, R))
    func = rng.uniform(0.0, 0.5, (S, R, 5))
    func[:, :, 0] = snap
    return ch.DepthRuns(
        name=name,
        net=None,
        seeds=tuple(range(S)),
        loss=loss,
        grid=grid,
        outputs=rng.normal(1.0, 0.05, (S, R, 60, 24)).astype(np.float32),
        patterns=pats,
        mass=mass,
        classes=classes,
        total=total,
        always_on=np.stack([on, on], axis=2),
        item_dependent=rng.uniform(0, 0.2, (S, R, 2)),
        final_shares={q: rng.uniform(0, 1, (S, 2, 4)) for q in (0.25, 0.5, 0.75)},
        linear_l1_change=rng.uniform(0.0, 0.05, (S, R)),
        linear_l1_loss=rng.uniform(1, 2, (S, R)),
        linear_l2_change=rng.uniform(0.05, 0.5, (S, R)),
        functional2=func,
        snap_all=snap,
        non_nested=np.zeros((S, R, 2)),
        seconds=1.0,
        cpu_seconds=1.0,
    )


def _results():
    """The page's computations on synthetic runs (6 + 6 seeds, 8000 epochs)."""
    rng = np.random.default_rng(1)
    ds = ch.depth_task()
    S, T, every = 6, 8000, 400
    relu = _runs(rng, "ReLU", S, T, every, 300)
    gh = _runs(rng, "GDLN", S, T, every, 60)
    gd = _runs(rng, "GDLN derived", 2, T, every, 60)
    L0 = 0.5 * float(np.sum(ds.Y**2))
    L_rank = L0 - np.array([30.0, 60.0, 90.0])
    i_r, i_g = relu.stereotype(), gh.stereotype()
    gap = h.measures.time_gap(relu.loss[i_r], gh.loss[i_g])
    m_runs = ch.match_runs(relu.loss, gh.loss)
    m_stereo = m_runs.but(value=gap, per_seed=(gap,))
    init_loss = {"authors": gh.loss, "matched": gd.loss, "derived": gd.loss[::-1]}
    init_out = {"authors": gh.outputs, "matched": gd.outputs, "derived": gd.outputs}
    init_rows, init_evidence = ch.init_comparison(relu.loss, init_loss, i_r)
    levels = ch.plateau_levels(relu.loss)
    levels_all = np.r_[levels, 0.0]
    names = [f"{a:.0f} → {b:.0f}" for a, b in zip(levels_all[:-1], levels_all[1:])]
    drops = {
        k: ch.drop_epochs(r.loss, levels_all) for k, r in (("relu", relu), ("hand", gh))
    }
    durs = {
        k: ch.drop_durations(r.loss, levels_all)
        for k, r in (("relu", relu), ("hand", gh))
    }
    pairs = [(drops["relu"][:, k], drops["hand"][:, k]) for k in range(len(names))]
    scatter = [ch.log_scatter_ratio(a, b) for a, b in pairs]
    with pytest.MonkeyPatch.context() as mp:  # a smaller bootstrap of the bootstrap
        mp.setattr(ch, "INNER_RESAMPLES", 10)
        scatter_bs = [ch.scatter_bootstrap(a, b) for a, b in pairs]
    k_var = int(
        np.nanargmax([abs(v) / e for (v, _), (e, _) in zip(scatter, scatter_bs)])
    )
    phase = ch.training_phase(np.median(relu.snap_all, axis=0), relu.grid, 0.1)
    hand = ch.Schedule(500, 3000)
    derived, info = ch.derive_schedule(relu, gh, hand, threshold=0.3)
    drops["derived"] = ch.drop_epochs(gd.loss, levels_all)
    durs["derived"] = ch.drop_durations(gd.loss, levels_all)
    plat = list(levels[1:])
    shared = np.ones(len(plat), bool)
    gaps_out, m_out, _, _ = ch.compare_plateaus(relu, gh, plat, shared, i_r, i_g)
    cand = [g for g in gaps_out if g[0] in m_out and m_out[g[0]].spread > 0]
    L_ow = gh.loss[:1] * 1.01
    # the stored runs: 8 + 8 seeds of the same kind, and a rounding floor
    big_r = _runs(rng, "ReLU", 8, T, every, 300).loss
    big_g = _runs(rng, "GDLN", 8, T, every, 60).loss
    lv_big = np.r_[ch.plateau_levels(big_r), 0.0]
    pool = ch.pool_seeds(
        range(S),
        {"relu": relu.loss, "gdln": gh.loss},
        np.arange(6, 14),
        {"relu": big_r, "gdln": big_g},
    )
    assert pool["seeds"] == list(range(14)) and pool["added"] == list(range(6, 14))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ch, "INNER_RESAMPLES", 10)
        var24 = ch.drop_scatter(pool["relu"], pool["gdln"], lv_big)
    names24 = [f"{a:.0f} → {b:.0f}" for a, b in zip(lv_big[:-1], lv_big[1:])]
    shift = np.zeros_like(big_r[:2])
    shift[:, 7000:] = -0.5
    stored_rd = {"seeds": np.arange(2), "float32": relu.loss[:2] + 0 * shift}
    stored_rd["float64"] = relu.loss[:2] + shift
    floor = ch.rounding_floor(ch.same_start(relu.loss, range(S), stored_rd), lv_big)
    assert np.nanmax(np.abs(floor["diff"]["plain, float32"])) == 0
    entry = {"seeds": list(range(8)), "command": "cmd", "seconds": 60.0}
    entry.update(machine="test")
    exists = relu.loss[:, relu.grid] < L_rank[-1]
    return ch.Results(
        SEEDS=list(range(S)),
        init="authors",
        coupling="one-way",
        other_coupling="full",
        epochs=T,
        record_every=every,
        init_seeds=2,
        coupling_seeds=1,
        appear_threshold=0.3,
        width=420,
        ds=ds,
        L_rank=L_rank,
        relu=relu,
        gh=gh,
        gd=gd,
        hand=hand,
        derived=derived,
        checks={0.3: derived},
        info=info,
        i_r=i_r,
        i_g=i_g,
        m_runs=m_runs,
        m_stereo=m_stereo,
        spread_relu=ch.match_runs(relu.loss, relu.loss[:1]).spread,
        gap_mean=0.01,
        init_loss=init_loss,
        init_out=init_out,
        init_rows=init_rows,
        init_evidence=init_evidence,
        levels=levels,
        names_drop=names,
        drops=drops,
        durs=durs,
        scatter=scatter,
        scatter_bs=scatter_bs,
        k_var=k_var,
        sub=ch.subset_scatter_ratios(*pairs[k_var], 4, draws=100),
        var24=var24,
        lv_big=lv_big,
        names24=names24,
        big_entry=entry,
        pool=pool,
        floor=floor,
        rd_entry={"seeds": [0, 1], "command": "cmd"},
        phase=phase,
        exists=exists,
        m_derived=ch.match_runs(relu.loss, gd.loss),
        m_hand_same=ch.match_runs(relu.loss, gh.loss[:2]),
        gap_stereo_derived=0.02,
        gaps_out=gaps_out,
        m_out=m_out,
        worst=max(cand, key=lambda g: g[2] / m_out[g[0]].spread),
        L_ow=L_ow,
        gap_ow=[h.measures.time_gap(gh.loss[0], L_ow[0])],
        m_ow=ch.match_runs(relu.loss, L_ow),
    )


@pytest.fixture(scope="module")
def results():
    return _results()


def test_report_writes_every_record_with_its_verdict_and_variants(results, tmp_path):
    rec = Records("depth", directory=tmp_path)
    out = ch.report(rec, results)
    saved = json.loads((tmp_path / "depth.json").read_text())
    registry = rulebook.registry()["depth"]
    assert set(saved) == set(registry)
    for name, item in saved.items():
        claim = registry[name]
        ev = Evidence.from_record(item)
        assert rulebook.decide(claim, ev).verdict == item["verdict"], name
        assert item.get("figure") == claim.get("figure"), name
        if claim["kind"] == "paper":
            assert set(claim["choices"]) <= set(item["variants"]), name
            assert isinstance(item["depends_on"], list), name
            assert set(item["depends_on"]) <= set(claim["choices"]), name
            clause, depends = rulebook.variants_clause(
                item["variants"], item["verdict"]
            )
            assert item["reason"].endswith(clause) and item["depends_on"] == depends
    # the numbers: the stereotypes' gap, the worst drop's log ratio, the phase
    m = results.m_stereo
    assert saved["gap_relu_gdln_stereotypes"]["value"] == pytest.approx(m.value, 1e-5)
    v24 = results.var24
    v = v24["scatter"][v24["k"]][0]
    assert saved["variance_profile"]["value"] == pytest.approx(v, 1e-5)
    # rule 5: the gating claims are read where context gating exists
    x = ch.window_mean(results.relu.linear_l1_change, results.exists)
    assert saved["layer1_linear"]["value"] == pytest.approx(np.nanmedian(x), 1e-5)
    # against chance: layer 2's ratio at initialisation, the baseline a variant
    mixed = saved["layer2_mixed"]
    assert {"baseline", "window", "seeds"} <= set(mixed["variants"])
    f = results.relu.functional
    chance = np.median(f("single")[:, 0] / f("mixed")[:, 0])
    assert mixed["paper"] == pytest.approx(chance, 1e-5)
    assert saved["layer1_always_on"]["criterion"] == "near_bound"
    assert saved["layer1_always_on"]["phase"] == list(results.phase)
    # the closing table and the headline text come back for the page
    assert "| claim | verdict |" in out["summary"]
    assert out["check"].startswith("layer1_always_on")
    assert out["in_short"].startswith("In short")


def test_the_pages_tables_are_built_from_what_it_computed(results):
    r = results
    shared = np.ones(len(r.levels) - 1, bool)
    texts = [
        ch.tables.inits(r.init_rows, r.relu.loss, r.spread_relu),
        ch.tables.drops(r.names_drop, r.drops, r.durs, r.scatter, r.scatter_bs),
        ch.tables.census_thresholds(r.relu.final_shares),
        ch.tables.schedules(r.checks, r.hand),
        ch.tables.derived(r.names_drop, r.drops, 0.1, 0.2, r.m_hand_same, r.m_derived),
    ]
    for text in texts:
        assert text.startswith("| ") and "|---|" in text
    assert len(texts[0].splitlines()) == 2 + len(r.init_rows) + 1  # + the spread
    assert "sharper steps" in ch.tables.sharper_steps(r.names_drop, r.durs, shared)
