"""The reviewers' chapter's own tools (helpers.chapters.reviewers)."""

import dataclasses

import numpy as np
import pytest

import helpers as h
from helpers.book import parameters
from helpers.chapters.reviewers import measures as me
from helpers.chapters.reviewers import networks as nw
from helpers.chapters.reviewers import sweeps as sw
from helpers.chapters.reviewers import tables as tb
from helpers.core import linear, race


@pytest.fixture(scope="module")
def hrk():
    return h.contextual_task(3, ["hierarchy", "ring", "cross"])


# ---------------------------------------------------------------------------- Adam's
# step (the mini-batch trainer's tests: tests/core/test_minibatch.py)


def test_adam_step_rules():
    a = [np.zeros((2, 3, 4)), np.zeros((2, 1, 4))]
    b = [np.full((2, 3, 4), 0.5), np.zeros((2, 1, 4))]
    b[1][:, 0, 0] = 2.0
    # mean: ||diff|| / sqrt(16) / 10 epochs; largest: 2.0 / 10
    assert nw.adam_step_rule(a, b, 10, "mean") == pytest.approx(
        np.sqrt(12 * 0.25 + 4) / 4 / 10
    )
    assert nw.adam_step_rule(a, b, 10, "largest") == pytest.approx(0.2)
    with pytest.raises(ValueError, match="rule"):
        nw.adam_step_rule(a, b, 10, "median")


# ---------------------------------------------------------------------------- the
# strategy


def test_strategy_reads_the_race_winner_among_context_classes():
    census = {
        "common": np.array([[0.3, 0.5]]),
        "mixed": np.array([[0.2, 0.3]]),
        "single": np.array([[0.5, 0.1]]),
        "other": np.array([[0.0, 0.1]]),
        "snap_change": np.array([[0.1, 0.05]]),
    }
    end = me.strategy(census)
    assert end["winner"] == ["mixed"]
    assert end["mixed_of_context"][0] == pytest.approx(0.6)
    start = me.strategy(census, index=0)
    assert start["winner"] == ["single"]


def test_census_over_training_of_a_hand_built_network(hrk):
    """Three units: on everywhere, on in contexts 2-3, on in context 1 only."""
    X = hrk.X
    W1 = np.zeros((3, 11))
    W1[0, :8] = 1.0  # items: on everywhere
    W1[1, :8] = 1.0
    W1[1, 8] = -5.0  # off in context 1
    W1[2, :8] = 1.0
    W1[2, 9:] = -5.0  # on in context 1 only
    W2 = np.eye(60, 3)
    c = me.census_over_training(W1[None, None], W2[None, None], X, hrk.contexts, 3)
    assert c["snap_change"][0, 0] == pytest.approx(0.0, abs=1e-12)
    # each unit writes 1 on its own output row wherever it is on: norms sqrt(24, 16, 8)
    norms = np.sqrt([24.0, 16.0, 8.0])
    for k, cls in enumerate(["common", "mixed", "single"]):
        assert c[cls][0, 0] == pytest.approx(norms[k] / norms.sum())
    assert me.strategy(c)["winner"] == ["mixed"]


def test_plateau_share_separates_exponential_and_sigmoidal_curves():
    t = np.arange(2000.0)
    expo = np.exp(-t / 100)
    assert me.plateau_share(expo)[0] == pytest.approx(
        np.log(1 / 0.95) / np.log(2), abs=0.01
    )
    sig = 1 / (1 + np.exp((t - 1000) / 30))
    assert me.plateau_share(sig)[0] > 0.8


def test_gate_change_is_weighted_by_the_final_contribution():
    g0 = np.array([[1, 1, 0, 0], [1, 1, 1, 1]], bool)
    g1 = np.array([[1, 1, 1, 1], [1, 1, 1, 1]], bool)
    W1 = np.array([[1.0], [3.0]])
    W2 = np.array([[1.0, 1.0]])
    # unit 0: half its gates flipped, weight 1; unit 1: none, weight 3
    assert me.gate_change(g0, g1, W1, W2) == pytest.approx(0.5 * 1 / 4)


# ---------------------------------------------------------------------------- other
# data


def test_correlated_codes(hrk):
    d = nw.correlated_task(hrk, 0.9, 8, seed=0)
    assert d.X.shape == (11, 24) and d.inputs[:8] == tuple(f"code{k}" for k in range(8))
    np.testing.assert_array_equal(d.X[8:], hrk.X[8:])  # context rows kept
    np.testing.assert_array_equal(d.Y, hrk.Y)
    # the same item in every context has the same code
    np.testing.assert_array_equal(d.X[:8, :8], d.X[:8, 8:16])
    wide = nw.correlated_task(hrk, 0.9, 4000, seed=1)
    M = wide.X[:4000, :8]
    cos = (M.T @ M) / np.outer(np.linalg.norm(M, axis=0), np.linalg.norm(M, axis=0))
    assert np.mean(cos[~np.eye(8, dtype=bool)]) == pytest.approx(0.9, abs=0.03)
    assert h.relns.item_rows(d) == list(range(8))  # the context pathways see the codes
    with pytest.raises(ValueError, match="rho"):
        nw.correlated_task(hrk, 1.0, 8, 0)
    with pytest.raises(ValueError, match="dims"):
        nw.correlated_task(hrk, 0.5, 4, 0)


def test_noisy_task(hrk):
    np.testing.assert_array_equal(nw.noisy_task(hrk, 0.0, 0).Y, hrk.Y)
    a, b = nw.noisy_task(hrk, 0.3, 5), nw.noisy_task(hrk, 0.3, 5)
    np.testing.assert_array_equal(a.Y, b.Y)
    assert np.std(a.Y - hrk.Y) == pytest.approx(0.3, rel=0.1)


def test_rank_needed(hrk):
    assert me.rank_needed(hrk) == {
        "common": 10,
        "ctx12": 7,
        "ctx13": 7,
        "ctx23": 7,
        "total": 31,
    }


# ---------------------------------------------------------------------------- the race


def test_mode_table_uses_the_effective_datasets(hrk):
    net = h.context_reln(hrk, "mixed", "one-way")
    rows = me.mode_table(net, hrk, lr=1e-3)
    common = [r for r in rows if r.pathway == "common"]
    m = linear.modes(hrk.X, hrk.Y)
    np.testing.assert_allclose([r.s for r in common], m.s, rtol=1e-10)
    ctx = [r for r in rows if r.pathway == "ctx12"]
    assert len(ctx) == 7 and all(r.d == pytest.approx(2.0) for r in ctx)
    assert ctx[0].s == pytest.approx(2.1433, abs=1e-3)
    r = ctx[0]
    assert r.t_half == pytest.approx(
        linear.learning_time(r.s, r.d, r.a0, r.final / 2, 1e-3)
    )


def test_mode_half_times_recover_eq7(hrk):
    """Maps built from Eq. 7 give back Eq. 7's half-way times."""
    net = h.context_reln(hrk, "mixed", "one-way")
    rows = me.mode_table(net, hrk, lr=1e-3)
    _, R = h.common_fit(hrk)
    epochs = np.arange(0, 20001, 10)
    maps = {}
    for pw in race.race_pathways(net):
        idx, U, s, V, d = me._pathway_svd(hrk.X, hrk.Y if pw.common else R, pw)
        A = linear.mode_strength(epochs[:, None], s, d, pw.a0, 1e-3)
        W = np.zeros((epochs.size, 60, 11))
        W[..., idx] = np.einsum("oa,ta,ia->toi", U, A, V)
        maps[pw.name] = W
    t = me.mode_half_times(maps, net, hrk, epochs, rows)
    np.testing.assert_allclose(t, [r.t_half for r in rows], atol=10)


def test_rank_agreement():
    assert me.rank_agreement([1, 2, 3], [10, 20, 30]) == 1.0
    assert me.rank_agreement([1, 2, 3], [30, 20, 10]) == 0.0
    assert me.rank_agreement([1, 2, np.nan], [1, 2, 3]) == 1.0


def test_separation_on_synthetic_maps():
    t = np.arange(0, 1001, 100)
    common = np.minimum(t / 500, 1.0)[:, None, None] * np.ones((1, 2, 2))
    ctx = {"a": np.clip((t - 300) / 700, 0, 1)[:, None, None] * np.ones((1, 2, 2))}
    s = me.separation(common, ctx, t, done=0.9)
    assert s["t_common"] == 500
    assert s["context_at"] == pytest.approx(200 / 700)


def test_delayed_reln_switches_the_context_pathways_on_late(hrk):
    net = nw.delayed_reln(hrk, "mixed", 1e-3, 20, on_epoch=50)
    assert net.coupling == "one-way"
    p = race.predict(net, hrk.X, hrk.Y, lr=1e-3, epochs=60, record_epochs=[0, 49, 60])
    assert np.all(p.maps["ctx12"][0] == p.maps["ctx12"][1])  # frozen before epoch 50
    assert not np.allclose(p.maps["ctx12"][1], p.maps["ctx12"][2])
    shares = me.prediction_shares(p, net, hrk.X, 3)
    assert sum(shares.values()) == pytest.approx(1.0)
    assert set(shares) == {"common", "mixed", "single", "other"}


def test_primed_units_start_gated_to_their_context(hrk):
    W = nw.primed_relu_weights(hrk, 60, 1e-3, seed=0, primed=5, gain=10.0, off=1.0)
    net = h.relu_network((11, 60, 60), 1e-3)
    _, _, gates = h.forward(net, W, hrk.X)
    G = gates[0]
    for c in range(3):
        on = G[c * 5 : (c + 1) * 5]
        assert np.all(on[:, hrk.contexts == c]) and not np.any(on[:, hrk.contexts != c])
    base = h.init_params(net, 0)
    np.testing.assert_array_equal(W[0][15:], base[0][15:])  # the others as drawn
    np.testing.assert_allclose(W[1][:, :15], 10.0 * base[1][:, :15])


def test_match_summary_of_identical_curves():
    L = np.vstack(
        [np.exp(-np.arange(3000) / 300.0) * 100, np.exp(-np.arange(3000) / 310.0) * 100]
    )
    m = me.match_summary(L, L, L[:1] * 2, multiple=2.0)
    assert m["value"] == 0.0 and m["matches"] and m["levels"] == 4
    assert m["spread"] > 0


def test_starts_stack_settings_then_seeds(hrk):
    net, p = nw.relu_starts(hrk, 10, [1e-3, 1e-1], [0, 1])
    assert p[0].shape == (4, 10, 11)
    np.testing.assert_allclose(p[0][2], 100 * p[0][0])  # same draw, 100 x the std
    reln, q = nw.reln_starts(
        hrk, "mixed", [1e-3, 1e-1], [0, 1], width=10, relu_width=10
    )
    assert q[0].shape[0] == 4 and reln.sizes == (11, 40, 60)
    assert np.std(q[1][2]) == pytest.approx(0.1, rel=0.15)


def test_match_summary_carries_the_spreads_interval():
    t = np.arange(3000)
    L = np.vstack([np.exp(-t / (300.0 + 10 * k)) * 100 for k in range(4)])
    m = me.match_summary(L, L * 1.0, L[:1] * 2, multiple=2.0)
    lo, hi = m["spread_interval"]
    assert 0 < lo <= m["spread"] <= hi
    assert not m["undecided"]  # a gap of 0 is within the noise at any spread
    far = me.match_summary(L, np.exp(-t / 600.0)[None] * 100, L[:1], multiple=2.0)
    assert not far["matches"] and not far["undecided"]


def _row(value, spread=0.01):
    st = {k: np.array([0.25, 0.25]) for k in me.STRATEGY_CLASSES}
    st["snap_change"] = np.array([0.1, 0.1])
    st["mixed_of_context"] = np.array([0.6, 0.6])
    m = {
        "value": value,
        "spread": spread,
        "spread_interval": (spread / 2, spread * 2),
        "alternative": 0.5,
        "matches": value <= 2 * spread,
        "undecided": False,
        "nearer": value < 0.25,
        "levels": 4,
    }
    L = np.array([[10.0, 0.05], [10.0, 0.08]])
    return sw.width_row(st, L, m, 0.01, 0.5), m


def test_width_row_and_table():
    row, _ = _row(0.2)
    assert row["final_loss_share"] == pytest.approx(0.0065)
    assert row["strategy"] and row["seeds"] == 2
    sweep = {"fixed std": {}}
    for w, v in ((16, 0.4), (700, 0.2)):
        sweep["fixed std"][w] = {**_row(v)[0], "std": 1e-5}
    text = tb.width_table(sweep)
    assert text.count("\n") == 3
    # the last column: the match relative to the one at 700 units
    assert [_cells(line)[-1] for line in text.splitlines()[2:]] == ["2.00", "1.00"]


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def test_sentence_table_is_relative_to_the_reference():
    _, a = _row(0.2)
    _, b = _row(0.1)
    text = tb.sentence_table({"paper settings": a, "other": b}, "paper settings")
    relative = [_cells(line)[5] for line in text.splitlines()[2:]]
    assert relative == ["1.00", "0.50"]


def test_nearer_than_half_is_undecided_inside_the_noise():
    # 0.1889 against half of 0.365 (0.1825): 0.006 apart, inside 2 x a 0.017 spread
    s = (0.0169, 0.0122, 0.0227)
    assert me.nearer_than_half(0.1889, 0.365, s, s, 2.0) == "undecided"
    assert me.nearer_than_half(0.05, 0.365, s, s, 2.0) == "below"
    assert me.nearer_than_half(0.30, 0.365, s, s, 2.0) == "not below"
    # the alternative's own, larger noise counts too (noise on both sides)
    wide = (0.08, 0.07, 0.09)
    assert me.nearer_than_half(0.05, 0.365, s, wide, 2.0) == "undecided"


def test_match_summary_with_an_alternative_per_seed():
    t = np.arange(3000)
    L = np.vstack([np.exp(-t / (300.0 + 10 * k)) * 100 for k in range(4)])
    alt = np.vstack([np.exp(-t / (900.0 + 10 * k)) * 100 for k in range(4)])
    m = me.match_summary(L, L * 1.0, alt, multiple=2.0)
    assert m["nearer_verdict"] == "below" and m["nearer"]
    lo, hi = m["alternative_spread_interval"]
    assert 0 < lo <= hi and m["alternative_spread"] > 0
    f = me.match_fields(m)
    assert f["match_nearer"] == "below" and len(f["match_spread_interval"]) == 2


# ---------------------------------------------------------------------------- the
# page's rows (helpers.chapters.reviewers.sweeps)


def _page_parameters(**changes):
    """The page's parameters cell (book/reviewers.md, its defaults) as
    :class:`sw.Parameters` takes them, with ``changes``.

    Args:
        changes: the parameters to set otherwise.

    Returns:
        ``{name: value}`` for every field of :class:`sw.Parameters`.
    """
    page = parameters.declared("reviewers")
    return {
        **{f.name: page[f.name] for f in dataclasses.fields(sw.Parameters)},
        **changes,
    }


def test_parameters_name_every_problem():
    p = sw.Parameters(**_page_parameters(init_stds=[0.2, 0.005 / 700]))
    assert p.base_std == 0.005 / 700 and p.stds == [0.005 / 700, 0.2]
    with pytest.raises(ValueError, match="widths must contain.*batch_sizes"):
        sw.Parameters(**_page_parameters(widths=[16], batch_sizes=[5]))
    with pytest.raises(ValueError, match="record_every"):
        sw.Parameters(**_page_parameters(record_every=300))
    with pytest.raises(ValueError, match="fit_level must lie in"):
        sw.Parameters(**_page_parameters(fit_level=1.5))


def test_min_width_is_the_first_width_with_the_strategy():
    sweep = {"a": {16: {"strategy": False}, 48: {"strategy": True}}}
    sweep["b"] = {16: {"strategy": False}, 48: {"strategy": False}}
    assert sw.min_width(sweep, [16, 48]) == {"a": 48, "b": None}


def test_score_sentence_counts_each_setting_once():
    def m(matches, nearer):
        return {
            "matches": matches,
            "undecided": False,
            "nearer": nearer == "below",
            "nearer_verdict": nearer,
            "levels": 4,
        }

    s = sw.score_sentence(
        {"a": m(True, "below"), "b": m(False, "not below"), "c": m(False, "undecided")}
    )
    assert s["settings"] == 3 and s["within_seed_noise"] == 1
    assert s["nearer_than_half_the_alternative"] == 1
    assert s["not_nearer_than_half"] == 1 and s["nearer_undecided"] == 1
    assert s["matching_settings"] == ["a"]
    s = sw.score_sentence({"a": m(True, "below"), "b": m(False, "below")}, {"a": False})
    assert s["settings"] == 1 and s["all_settings"] == 2
    assert s["excluded_no_strategy"] == ["a"] and s["within_seed_noise"] == 0


def test_structure_by_setting_reads_the_strategy_where_it_is_given():
    width = {"fixed std": {700: {"strategy": True}, 16: {"strategy": False}}}
    row = {"common": 0.5, "mixed": 0.3, "single": 0.2, "std": 0.2}
    out = sw.structure_by_setting(
        width, {"0.2": row}, {"GD": {**row, "mixed": 0.1}}, {}, 700, 0.5
    )
    assert out["paper settings"] and not out["width 16 (fixed std)"]
    assert out["init std 2.0e-01"] and not out["GD"]


def test_optimiser_row_reads_the_winner_among_context_classes():
    st = {k: np.array([0.1, 0.2]) for k in ("common", "mixed", "other", "snap_change")}
    st["single"] = np.array([0.5, 0.6])
    L = np.array([[10.0, 1.0], [10.0, 2.0]])
    m = {"value": 0.1, "spread": 0.05, "spread_interval": (0.04, 0.06)}
    row = sw.optimiser_row(st, L, {**m, "alternative": 0.3}, 1e-3)
    assert row["race_winner"] == "single"
    assert row["final_loss_share"] == pytest.approx(0.15)
    assert row["match_value"] == 0.1
    row = sw.optimiser_row(st, L, {**m, "alternative": 0.3}, 1e-3, comparable=False)
    assert row["match_value"] is None and "another time axis" in row["match_nearer"]
