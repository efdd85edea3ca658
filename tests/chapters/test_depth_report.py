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
    grid = ch.census.record_grid(T, every)
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
    pats = ch.census._patterns(3)
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
        net=ch.relu_depth(),
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


def _runs_and_params():
    """Synthetic runs of the page's kinds (6 + 6 seeds, 8000 epochs), stored runs of
    8 + 8 seeds and a rounding floor, and the parameters: what the page hands the
    report."""
    rng = np.random.default_rng(1)
    ds = ch.depth_task()
    S, T, every = 6, 8000, 400
    relu = _runs(rng, "ReLU", S, T, every, 300)
    gh = _runs(rng, "GDLN", S, T, every, 60)
    gd = _runs(rng, "GDLN derived", 2, T, every, 60)
    big = {
        "relu": _runs(rng, "ReLU", 8, T, every, 300).loss,
        "gdln": _runs(rng, "GDLN", 8, T, every, 60).loss,
        "seeds": np.arange(6, 14),
    }
    shift = np.zeros_like(relu.loss[:2])
    shift[:, 7000:] = -0.5
    rd = {
        "seeds": np.arange(2),
        "float32": relu.loss[:2],
        "float64": relu.loss[:2] + shift,
    }
    entry = {
        "seeds": list(range(8)),
        "command": "cmd",
        "seconds": 60.0,
        "machine": "t",
        "commit": "abc1234 (working tree modified)",
    }
    # the authors' script runs: 4 + 4, one epoch longer than this execution's
    rng_a = np.random.default_rng(7)
    authors = {
        k: np.c_[_runs(rng_a, k, 4, T, every, j).loss, np.zeros(4)]
        for k, j in (("relu", 300), ("gdln", 60))
    }
    runs = ch.Runs(
        ds=ds,
        relu=relu,
        gh=gh,
        gd=gd,
        init_loss={"authors": gh.loss, "matched": gd.loss, "derived": gd.loss[::-1]},
        init_out={"authors": gh.outputs, "matched": gd.outputs, "derived": gd.outputs},
        L_ow=gh.loss[:1] * 1.01,
        stored={
            "scatter": (big, entry),
            "rounding": (rd, {"seeds": [0, 1], "command": "c", "commit": "abc1234"}),
            "authors": (authors, {"seeds": [1, 2, 3, 4]}),
        },
    )
    params = ch.Params(
        init="authors",
        coupling="one-way",
        hand_schedule=[500, 3000],
        appear_threshold=0.3,
        appear_threshold_check=[0.1, 1.0],
        init_seeds=2,
        coupling_seeds=1,
        record_every=every,
    )
    return runs, params


@pytest.fixture(scope="module")
def handed():
    return _runs_and_params()


@pytest.fixture(scope="module")
def written(handed, tmp_path_factory):
    """The report on the synthetic runs (a smaller bootstrap of the bootstrap)."""
    path = tmp_path_factory.mktemp("depth")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ch.drops, "INNER_RESAMPLES", 10)
        out = ch.report(Records("depth", directory=path), *handed)
    return out, json.loads((path / "depth.json").read_text())


def test_report_writes_every_record_with_its_verdict_and_variants(written):
    out, saved = written
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
    # the closing table and the headline text come back for the page
    assert "| claim | verdict |" in out["summary"]
    assert out["check"].startswith("layer1_always_on")
    assert out["in_short"].startswith("In short")


def test_report_reads_its_numbers_off_the_runs(handed, written):
    runs, params = handed
    _, saved = written
    relu, gh = runs.relu, runs.gh
    # the stereotypes: each network's run nearest its mean curve
    i_r = int(np.argmin(((relu.loss - relu.loss.mean(0)) ** 2).sum(1)))
    i_g = int(np.argmin(((gh.loss - gh.loss.mean(0)) ** 2).sum(1)))
    gap = h.measures.time_gap(relu.loss[i_r], gh.loss[i_g])
    assert saved["gap_relu_gdln_stereotypes"]["value"] == pytest.approx(gap, 1e-5)
    # the variance profile on the pooled seeds: 6 of this execution + 8 stored
    big = runs.stored["scatter"][0]
    pooled = [np.r_[relu.loss, big["relu"]], np.r_[gh.loss, big["gdln"]]]
    lv = np.r_[ch.drops.plateau_levels(pooled[0]), 0.0]
    d = [ch.drops.drop_epochs(x, lv) for x in pooled]
    k = saved["variance_profile"]["value"]
    logs = [np.log(np.nanstd(d[0][:, j], ddof=1) / np.nanstd(d[1][:, j], ddof=1))
            for j in range(lv.size - 1)]  # fmt: skip
    assert k == pytest.approx(min(logs, key=lambda v: abs(v - k)), 1e-5)
    assert "14 + 14 seeds" in saved["variance_profile"]["note"]
    # its definition variants: the IQR and the MAD in place of the SD, each at its
    # own worst drop; the authors' script runs a seeds variant at the verdict's drop
    var = saved["variance_profile"]
    k24 = int(np.nanargmin([abs(v - k) for v in logs]))
    for spread in ("interquartile range", "median absolute deviation"):
        (setting,) = [
            x for x in var["variants"]["definition"] if spread in x["setting"]
        ]
        p = ch.drops.spread_profile(*d, "iqr" if "inter" in spread else "mad")
        assert setting["value"] == pytest.approx(p["value"][p["k"]], 1e-5)
        assert f"ratio {p['spread_ratio'][p['k']]:.2g}" in setting["setting"]
    auth = runs.stored["authors"][0]
    a = [ch.drops.drop_epochs(auth[x][:, : relu.loss.shape[1]], lv) for x in auth]
    va = np.log(np.nanstd(a[0][:, k24], ddof=1) / np.nanstd(a[1][:, k24], ddof=1))
    (setting,) = [
        x
        for x in var["variants"]["seeds"]
        if x["setting"].startswith("the authors' own")
    ]
    assert setting["value"] == pytest.approx(va, 1e-5)
    sub = ch.drops.subset_scatter_ratios(d[0][:, k24], d[1][:, k24], 4)
    assert f"above {100 * np.mean(sub[:, 0] < va):.0f} %" in setting["setting"]
    # the rounding floor is the ReLU network's; the manifest's modified tree is said
    assert "the GDLN's last-drop variance" not in var["note"]
    assert "abc1234 (working tree modified)" in var["note"]
    # rule 5: the gating claims are read where context gating exists, below the
    # best linear map's loss
    L_lin = ch.linear_losses(runs.ds)[-1]
    exists = relu.loss[:, relu.grid] < L_lin
    x = ch.gating.window_mean(relu.linear_l1_change, exists)
    assert saved["layer1_linear"]["value"] == pytest.approx(np.nanmedian(x), 1e-5)
    # against chance: layer 2's ratio at initialisation, the baseline a variant
    mixed = saved["layer2_mixed"]
    assert {"baseline", "window", "seeds"} <= set(mixed["variants"])
    f = relu.functional
    chance = np.median(f("single")[:, 0] / f("mixed")[:, 0])
    assert mixed["paper"] == pytest.approx(chance, 1e-5)
    assert saved["layer1_always_on"]["criterion"] == "near_bound"
    # rule 3's phase: where snapping changes the output by at most PHASE_SNAP
    snap = np.median(relu.snap_all, axis=0) <= rulebook.PHASE_SNAP
    phase = saved["layer1_always_on"]["phase"]
    assert snap[list(relu.grid).index(phase[0])] and phase[0] <= phase[1]
    # the derived schedule: [start, context], against the hand-set one
    derived = saved["switch_epochs_derived"]
    assert derived["paper"] == params.hand_schedule
    assert 0 <= derived["value"][0] <= derived["value"][1]


def test_the_pages_tables_are_built_from_what_it_computed(handed):
    runs, _ = handed
    relu, gh, gd = runs.relu, runs.gh, runs.gd
    st = ch.compare.stereotypes(relu.loss, gh.loss)
    rows, _ = ch.compare.init_comparison(relu.loss, runs.init_loss, st.i_r)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ch.drops, "INNER_RESAMPLES", 10)
        prof = ch.drops.drop_profile(relu.loss, gh.loss)
    drops = {
        **prof["drops"],
        "derived": ch.drops.drop_epochs(gd.loss, prof["levels_all"]),
    }
    dc = ch.compare.derived_comparison(relu.loss, gh.loss, gd.loss, st.i_r)
    hand = ch.Schedule(500, 3000)
    _, _, checks = ch.gating.derived_schedules(relu, gh, hand, 0.3, [1.0])
    names = prof["names"]
    texts = [
        ch.tables.inits(rows, relu.loss, st.spread_relu),
        ch.tables.drops(
            names, drops, prof["durs"], prof["scatter"], prof["scatter_bs"]
        ),
        ch.tables.census_thresholds(relu.final_shares),
        ch.tables.schedules(checks, hand),
        ch.tables.derived(names, drops, 0.1, 0.2, dc["m_hand_same"], dc["m_derived"]),
    ]
    for text in texts:
        assert text.startswith("| ") and "|--" in text
    assert len(texts[0].splitlines()) == 2 + len(rows) + 1  # + the spread
    assert len(texts[3].splitlines()) == 2 + len(checks) + 1  # + the hand-set one
    assert list(checks) == [0.3, 1.0]
    shared = np.ones(len(names) - 1, bool)
    assert "sharper steps" in ch.tables.sharper_steps(names, prof["durs"], shared)
