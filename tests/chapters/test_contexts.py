"""Analyses of the Section 4 contextual task (helpers.chapters.contexts)."""

import numpy as np
import pytest

import helpers as h
from helpers.chapters import contexts as ca
from helpers.core import measures
from helpers.core.measures import gating_census
from helpers.core.relns import common_fit, context_reln


@pytest.fixture(scope="module")
def hrk():
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    return ds, common_fit(ds)[1]


def test_single_context_pathways_mirror_the_two_of_three_ones(hrk):
    """On the residual, the pathway on in j sees minus what the pathway off in j
    sees."""
    ds, R = hrk
    mixed = {
        p.name: p for p in ca.modes.pathway_modes(context_reln(ds, "mixed"), ds.X, R)
    }
    single = {
        p.name: p for p in ca.modes.pathway_modes(context_reln(ds, "single"), ds.X, R)
    }
    assert sorted(mixed) == ["ctx12", "ctx13", "ctx23"] and sorted(single) == [
        "ctx1",
        "ctx2",
        "ctx3",
    ]
    for m, s in [("ctx23", "ctx1"), ("ctx13", "ctx2"), ("ctx12", "ctx3")]:
        np.testing.assert_allclose(mixed[m].s, single[s].s, atol=1e-12)
        assert mixed[m].rank == 7  # the item-centred structures have rank 7
    # input variances: C - 1 = 2 for a 2-of-3 pathway, 1 for a single-context one
    np.testing.assert_allclose(
        np.diag(ca.modes.overlap_matrix(ds.X, list(mixed.values()))), 2.0
    )
    np.testing.assert_allclose(
        np.diag(ca.modes.overlap_matrix(ds.X, list(single.values()))), 1.0
    )
    # the top singular value of the hierarchy/ring/cross residual, by hand: 2.143 for
    # ctx12
    assert mixed["ctx12"].s[0] == pytest.approx(2.1433, abs=1e-3)


def test_overlap_matrix_is_symmetric_and_single_context_pathways_do_not_overlap(hrk):
    ds, R = hrk
    pm = ca.modes.pathway_modes(context_reln(ds, "mixed"), ds.X, R)
    O = ca.modes.overlap_matrix(ds.X, pm)
    np.testing.assert_allclose(O, O.T, atol=1e-12)
    ps = ca.modes.pathway_modes(context_reln(ds, "single"), ds.X, R)
    Os = ca.modes.overlap_matrix(ds.X, ps)
    np.testing.assert_allclose(Os, np.diag(np.diag(Os)), atol=1e-12)  # disjoint gates


@pytest.mark.parametrize("C", [3, 4, 5])
def test_top_mode_overlap_on_the_all_hierarchy_task_is_minus_C_minus_2_over_C_minus_1(
    C,
):
    ds = h.contextual_task(C)
    pm = ca.modes.pathway_modes(context_reln(ds, "mixed"), ds.X, common_fit(ds)[1])
    O = ca.modes.overlap_matrix(ds.X, pm)
    top = ca.modes.partner_overlaps(O, pm)["top"]
    assert len(top) == C * (C - 1)
    # (u.u') (v^T Sigma_x(p, q) v') = (-1/(C-1)) (C-2)
    np.testing.assert_allclose(list(top.values()), -(C - 2) / (C - 1), atol=1e-10)


def test_hrk_top_mode_overlaps_average_the_authors_constant(hrk):
    ds, R = hrk
    pm = ca.modes.pathway_modes(context_reln(ds, "mixed"), ds.X, R)
    top = np.array(
        list(
            ca.modes.partner_overlaps(ca.modes.overlap_matrix(ds.X, pm), pm)[
                "top"
            ].values()
        )
    )
    assert top.mean() == pytest.approx(-0.4527, abs=2e-3)
    assert top.min() == pytest.approx(-0.5168, abs=2e-3) and top.max() == pytest.approx(
        -0.4195, abs=2e-3
    )


def test_constant_overlap_matrix(hrk):
    ds, R = hrk
    pm = ca.modes.pathway_modes(context_reln(ds, "mixed"), ds.X, R)
    O = ca.modes.constant_overlap_matrix(ds.X, pm, -0.45)
    K = sum(p.rank for p in pm)
    assert O.shape == (K, K)
    np.testing.assert_allclose(np.diag(O), 2.0)
    assert O[0, 7] == -0.45 and O[1, 8] == -0.45 and O[0, 8] == 0.0 and O[0, 1] == 0.0
    with pytest.raises(ValueError, match="finite"):
        ca.modes.constant_overlap_matrix(ds.X, pm, np.nan)


def test_pathway_modes_rejects_unknown_pathways_and_bad_shapes(hrk):
    ds, R = hrk
    net = context_reln(ds, "mixed")
    with pytest.raises(ValueError, match="no pathways"):
        ca.modes.pathway_modes(net, ds.X, R, names=["ctx99"])
    with pytest.raises(ValueError, match="outputs"):
        ca.modes.pathway_modes(net, ds.X, R[:10])


def test_mode_race_without_cross_overlaps_follows_eq7(hrk):
    """Each mode alone is a 1-D linear network: Euler steps of Eq. 6 track Eq. 7."""
    ds, R = hrk
    pm = ca.modes.pathway_modes(context_reln(ds, "mixed"), ds.X, R)
    O = np.diag(np.diag(ca.modes.overlap_matrix(ds.X, pm)))
    lr, T, a0 = 1e-3, 6000, 1e-4
    mr = ca.modes.mode_race(
        ds.X, ds.Y, R, pm, O, a0=a0, a0_common=1e-6, lr=lr, epochs=T
    )
    s = np.concatenate([p.s for p in pm])
    ref = h.mode_strength(np.arange(T + 1)[:, None], s, 2.0, a0, lr)
    # Euler with step lr vs the exact flow: relative error of order s * lr * ln(s/a0)
    assert np.max(np.abs(mr.a - ref) / (s / 2.0)) < 0.03
    assert mr.loss.shape == (T + 1,) and mr.loss[0] == pytest.approx(
        0.5 * np.sum(ds.Y**2), rel=1e-4
    )


def test_mode_race_with_derived_overlaps_has_an_exact_fixed_point(hrk):
    ds, R = hrk
    pm = ca.modes.pathway_modes(context_reln(ds, "mixed"), ds.X, R)
    O = ca.modes.overlap_matrix(ds.X, pm)
    mr = ca.modes.mode_race(
        ds.X, ds.Y, R, pm, O, a0=1e-3, a0_common=1e-6, lr=1e-3, epochs=50
    )
    assert mr.fixed_point_loss < 1e-12
    O45 = ca.modes.constant_overlap_matrix(ds.X, pm, -0.45)
    mr45 = ca.modes.mode_race(
        ds.X, ds.Y, R, pm, O45, a0=1e-3, a0_common=1e-6, lr=1e-3, epochs=50
    )
    assert mr45.fixed_point_loss == pytest.approx(0.343, abs=0.01)


def test_mode_race_rejects_bad_input(hrk):
    ds, R = hrk
    pm = ca.modes.pathway_modes(context_reln(ds, "mixed"), ds.X, R)
    O = ca.modes.overlap_matrix(ds.X, pm)
    with pytest.raises(ValueError, match="O must be"):
        ca.modes.mode_race(
            ds.X, ds.Y, R, pm, O[:-1, :-1], a0=1e-3, a0_common=1e-6, lr=1e-3, epochs=10
        )
    with pytest.raises(ValueError, match="initial mode strengths"):
        ca.modes.mode_race(
            ds.X, ds.Y, R, pm, O, a0=0.0, a0_common=1e-6, lr=1e-3, epochs=10
        )
    with pytest.raises(ValueError, match="lr"):
        ca.modes.mode_race(
            ds.X, ds.Y, R, pm, O, a0=1e-3, a0_common=1e-6, lr=-1.0, epochs=10
        )


def test_equivalent_initial_strength_inverts_eq7():
    s, d, a0, lr = (
        np.array([2.0, 0.7]),
        np.array([2.0, 1.0]),
        np.array([1e-5, 3e-7]),
        1e-3,
    )
    for t in [0, 500, 2000]:
        a_t = h.mode_strength(t, s, d, a0, lr)
        np.testing.assert_allclose(
            ca.modes.equivalent_initial_strength(a_t, s, d, t, lr), a0, rtol=1e-6
        )
    assert np.isnan(ca.modes.equivalent_initial_strength(-1e-3, 1.0, 1.0, 10, lr))
    assert np.isnan(
        ca.modes.equivalent_initial_strength(1.5, 1.0, 1.0, 10, lr)
    )  # beyond s/d
    with pytest.raises(ValueError):
        ca.modes.equivalent_initial_strength(0.1, -1.0, 1.0, 10, lr)


def test_mode_projections_read_back_mode_strengths(hrk):
    ds, R = hrk
    p = ca.modes.pathway_modes(context_reln(ds, "mixed"), ds.X, R)[0]
    a = np.linspace(0.1, 0.7, p.rank)
    W = np.zeros((2, ds.Y.shape[0], ds.X.shape[0]))
    W[1][:, p.inputs] = p.U @ np.diag(a) @ p.V.T
    proj = ca.modes.mode_projections(W, p)
    np.testing.assert_allclose(proj[0], 0, atol=1e-12)
    np.testing.assert_allclose(proj[1], a, atol=1e-12)


def test_classical_mds_recovers_a_planar_configuration():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(12, 2))
    Q, _ = np.linalg.qr(rng.normal(size=(5, 5)))
    H = Q[:, :2] @ Z.T + 3.0  # units x datapoints, rotated into 5-D and shifted
    Zm, explained = ca.representations.classical_mds(H, 2)
    D = lambda A: np.linalg.norm(A[:, None] - A[None], axis=-1)
    np.testing.assert_allclose(D(Zm), D(Z), atol=1e-9)
    assert explained == pytest.approx(1.0)
    with pytest.raises(ValueError, match="k must"):
        ca.representations.classical_mds(H, 12)


def test_representation_similarity_is_invariant_to_rotation_and_scale():
    rng = np.random.default_rng(2)
    Ha = rng.normal(size=(30, 24))
    Q, _ = np.linalg.qr(rng.normal(size=(30, 30)))
    same = ca.representations.representation_similarity(Ha, 3.7 * Q @ Ha)
    assert same["rsa"] == pytest.approx(1.0) and same["cka"] == pytest.approx(1.0)
    assert same["procrustes"] < 1e-10
    np.testing.assert_allclose(same["aligned"], same["mds_a"], atol=1e-8)
    other = ca.representations.representation_similarity(Ha, rng.normal(size=(50, 24)))
    assert other["rsa"] < 0.5 and other["cka"] < 0.8 and other["procrustes"] > 0.2
    with pytest.raises(ValueError, match="datapoints"):
        ca.representations.representation_similarity(Ha, Ha[:, :10])


def test_unit_groups():
    contexts = np.repeat(np.arange(3), 4)
    gates = np.array(
        [np.isin(contexts, on) for on in ([0, 1, 2], [0, 1], [2], [0, 1])], float
    )
    groups = ca.gating.unit_groups(gates, contexts, 3)
    assert {k: v.tolist() for k, v in groups.items()} == {
        "001": [2],
        "110": [1, 3],
        "111": [0],
    }


def test_gate_consistency_counts_gates_off_their_context_pattern():
    contexts = np.repeat(np.arange(3), 4)
    gates = np.array([np.isin(contexts, on) for on in ([0, 1, 2], [0, 1])], float)
    W1, W2 = np.ones((2, 5)), np.ones((3, 2))
    assert measures.gate_consistency(gates, W1, W2, contexts, 3) == pytest.approx(1.0)
    gates[1, 0] = (
        0  # unit 2 off for one item of context 1: 11 of 12 gates follow its pattern
    )
    assert measures.gate_consistency(gates, W1, W2, contexts, 3) == pytest.approx(
        (1 + 11 / 12) / 2
    )
    W1[1] *= 3  # weight 3x for unit 2
    assert measures.gate_consistency(gates, W1, W2, contexts, 3) == pytest.approx(
        (1 + 3 * 11 / 12) / 4
    )


def test_census_over_training_matches_the_single_census():
    rng = np.random.default_rng(3)
    contexts = np.repeat(np.arange(3), 8)
    G = rng.random((4, 20, 24)) > 0.4
    W1, W2 = rng.normal(size=(4, 20, 11)), rng.normal(size=(4, 60, 20))
    cen = measures.census_over_training(G, W1, W2, contexts, 3)
    for r in range(4):
        ref = gating_census(G[r], W1[r], W2[r], contexts, 3)
        for k in ("common", "mixed", "single", "other", "item_dependent"):
            assert cen[k][r] == pytest.approx(ref[k])
    with pytest.raises(ValueError, match="need gates"):
        measures.census_over_training(G[0], W1, W2, contexts, 3)


def test_output_division_splits_a_fit_between_groups():
    rng = np.random.default_rng(4)
    Y = rng.normal(size=(6, 10))
    H = np.vstack(
        [np.eye(10), np.eye(10)]
    )  # two groups of 10 units, each a copy of the datapoints
    W2 = np.hstack([0.25 * Y, 0.75 * Y])
    div = ca.gating.output_division(
        W2,
        H,
        {"a": slice(0, 10), "b": np.arange(10, 20)},
        Y,
        [slice(0, 3), slice(3, 6)],
    )
    np.testing.assert_allclose(div["a"], 0.25)
    np.testing.assert_allclose(div["b"], 0.75)
    with pytest.raises(ValueError, match="chain"):
        ca.gating.output_division(W2, H[:5], {"a": slice(0, 5)}, Y, [slice(0, 6)])


def test_pathway_norm_ratio():
    maps = {
        "a": np.ones((2, 3, 4)),
        "b": 2 * np.ones((2, 3, 4)),
        "c": np.zeros((2, 3, 4)),
    }
    np.testing.assert_allclose(
        ca.comparisons.pathway_norm_ratio(maps, ["a", "c"], ["b"]), 0.5
    )
    np.testing.assert_allclose(
        ca.comparisons.pathway_norm_ratio(maps, ["a"], ["a", "b"]), 1 / np.sqrt(5)
    )
    with pytest.raises(ValueError, match="no maps"):
        ca.comparisons.pathway_norm_ratio(maps, ["a"], ["zzz"])


def test_seed_reductions_of_the_page():
    from types import SimpleNamespace

    from helpers.core.measures import time_gap

    t = np.arange(3001)
    A = np.stack([100 * np.exp(-t / s) for s in (100.0, 110.0, 121.0)])
    B = 100 * np.exp(-t / 130.0)
    assert ca.comparisons.median_gap(A, B) == pytest.approx(
        np.median([time_gap(a, B) for a in A])
    )
    assert ca.comparisons.pairwise_gap(A) == pytest.approx(np.log(1.1), rel=1e-2)
    assert ca.comparisons.level_log_ratio(A, A[::-1])[0] == pytest.approx(0.0, abs=1e-2)
    # half-height times in order of final size
    epochs = np.arange(4)
    sv = np.array([[0, 0], [2, 0], [2, 1], [2, 1]], float)
    assert ca.comparisons.learned_in_order(sv, epochs)
    assert not ca.comparisons.learned_in_order(sv[:, ::-1] * [1, 1.5], epochs)
    shares = {"111": 1.0, "101": 0.5, "011": 0.25, "010": 0.125, "000": 2.0}
    div = ca.gating.division_by_class(shares, 3)
    assert div == {"common": 1.0, "2-of-3": 0.75, "single": 0.125, "other": 2.0}
    # output gaps at an epoch: the run's own seeds and every seed against every seed
    out = np.ones((2, 1, 2, 2))
    out[1] *= 2
    run = SimpleNamespace(records={"outputs": out}, index=lambda e: 0)
    other = SimpleNamespace(
        records={"outputs": 3 * np.ones((1, 1, 2, 2))}, index=run.index
    )
    g = ca.comparisons.output_gaps_at(run, {"x": other}, [0])
    assert g["seed"][0].tolist() == [1.0] and g["x"][0].tolist() == [2.0, 0.5]
    # the energy share of one pathway of three, each producing a unit-norm output
    W2 = np.eye(3)[None]
    H = np.eye(3)[None]
    sl = {"a": slice(0, 1), "b": slice(1, 2), "c": slice(2, 3)}
    assert ca.comparisons.pathway_energy_share(W2, H, H, sl, ["a"]) == pytest.approx(
        1 / 3
    )


def test_constant_overlap_matrix_with_race_py_pairs_and_top(hrk):
    """race.py's solver: one overlap per pair of pathways, another on the top modes."""
    ds, R = hrk
    pm = ca.modes.pathway_modes(context_reln(ds, "mixed"), ds.X, R)
    pairs = {
        frozenset(("ctx12", "ctx23")): -0.45,
        frozenset(("ctx12", "ctx13")): -0.465,
        frozenset(("ctx23", "ctx13")): -0.465,
    }
    O = ca.modes.constant_overlap_matrix(ds.X, pm, -0.45, pairs=pairs, top=-0.49)
    start = {p.name: k for k, p in zip(np.cumsum([0] + [p.rank for p in pm]), pm)}
    assert O[start["ctx12"], start["ctx23"]] == -0.49
    assert O[start["ctx12"] + 1, start["ctx13"] + 1] == -0.465
    assert O[start["ctx12"] + 1, start["ctx23"] + 1] == -0.45
    np.testing.assert_allclose(O, O.T)
    with pytest.raises(ValueError, match="not a pair"):
        ca.modes.constant_overlap_matrix(
            ds.X, pm, -0.45, pairs={frozenset(("ctx1",)): 1.0}
        )


def test_strict_census_and_ablation_of_a_handmade_network():
    """Units on in one context only, or all-or-none per context, by weight; removing the
    single-context units removes exactly their output."""
    contexts = np.repeat([0, 1, 2], 2)  # 6 datapoints, 2 per context
    X = np.eye(6)
    # unit 0: common; unit 1: context 0 only, all-or-none; unit 2: context 1, one item
    W1 = np.array([[1.0] * 6, [1, 1, -1, -1, -1, -1], [-1, -1, 1, -1, -1, -1]])
    W2 = np.array([[1.0, 2.0, 3.0]])
    G = W1 @ X > 0
    c = ca.gating.strict_context_census(G, W1, W2, contexts, 3)
    w = np.linalg.norm(W1, axis=1) * np.abs(W2[0])
    np.testing.assert_allclose(c["one_context_only"], (w[1] + w[2]) / w.sum())
    np.testing.assert_allclose(c["context_level"], (w[0] + w[1]) / w.sum())
    Y = W2 @ np.maximum(W1 @ X, 0)
    a = ca.gating.ablate_class(W1, W2, X, Y, contexts, 3, "single")
    assert a["loss"] == 0.0
    # units 1 and 2 snap to single-context gates (unit 2: on for half of context 1)
    gone = W2[:, 1:] @ np.maximum(W1[1:] @ X, 0)
    np.testing.assert_allclose(a["ablated"], 0.5 * np.sum(gone**2))


def test_ablation_control_removes_equal_weight_of_the_pool():
    """Random 2-of-3 units of (nearly) the single-context units' weight, seeded."""
    contexts = np.repeat([0, 1, 2], 2)
    X = np.eye(6)
    # unit 0: single-context (context 0); units 1-4: on in contexts 0 and 1 (2-of-3)
    W1 = np.array([[1.0, 1, -1, -1, -1, -1]] + [[1.0, 1, 1, 1, -1, -1]] * 4) * np.array(
        [[2.0], [1.0], [1.0], [1.0], [1.0]]
    )
    W2 = np.ones((1, 5))
    Y = W2 @ np.maximum(W1 @ X, 0)
    w = np.linalg.norm(W1, axis=1)
    c = ca.gating.ablation_control(W1, W2, X, Y, contexts, 3, draws=7, seed=3)
    assert c["enough"] and c["ablated_draws"].shape == (7,)
    # the single unit weighs as much as two 2-of-3 units: two go, whatever the draw
    assert c["weight_ratio"] == pytest.approx(2 * w[1] / w[0])
    assert c["share_units"] == pytest.approx(2 / 5)
    gone = 2 * np.maximum(W1[1] @ X, 0)  # two of the identical 2-of-3 units
    np.testing.assert_allclose(c["ablated_draws"], 0.5 * np.sum(gone**2))
    again = ca.gating.ablation_control(W1, W2, X, Y, contexts, 3, draws=7, seed=3)
    np.testing.assert_array_equal(again["ablated_draws"], c["ablated_draws"])
    with pytest.raises(ValueError, match="draws"):
        ca.gating.ablation_control(W1, W2, X, Y, contexts, 3, draws=0, seed=0)
    with pytest.raises(ValueError, match="seed"):
        ca.gating.ablation_control(W1, W2, X, Y, contexts, 3, draws=1, seed=-1)
    with pytest.raises(ValueError, match="pool must differ"):
        ca.gating.ablation_control(
            W1, W2, X, Y, contexts, 3, draws=1, seed=0, pool="single"
        )


def test_authors_common_race_pairs_modes_by_rank():
    """Where the modes of Sigma_yx and Sigma_x come in the same order the common race
    tends to W* and its residual is Y - W* X; otherwise each singular value is divided
    by the eigenvalue of Sigma_x of the same rank, as race.py does."""
    X = np.diag([3.0, 2.0, 1.0])
    Y = np.array([[3.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    maps, resid = ca.modes.authors_common_race(X, Y, 1e-3, lr=0.05, epochs=400)
    assert maps.shape == (401, 2, 3)
    W_star = Y @ np.linalg.pinv(X)
    np.testing.assert_allclose(maps[-1], W_star, atol=1e-6)
    np.testing.assert_allclose(resid, Y - W_star @ X, atol=1e-12)
    X2 = np.diag([1.0, 2.0, 3.0])  # s = 3, 2 on inputs 1, 2; eigenvalues 9, 4, 1
    maps2, _ = ca.modes.authors_common_race(X2, Y, 1e-3, lr=0.02, epochs=2000)
    np.testing.assert_allclose(maps2[-1][:, :2], np.diag([3 / 9, 2 / 4]), atol=1e-6)
    with pytest.raises(ValueError, match="a0"):
        ca.modes.authors_common_race(X, Y, 0.0, lr=0.05, epochs=10)


def test_class_output_share_uses_the_norm_of_the_summed_contribution():
    """Two single pathways acting on disjoint datapoints: the class norm is the norm of
    their sum, not the sum of their norms."""
    W2 = np.ones((1, 1, 3))
    H = np.array([[[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]])
    pw = {"common": slice(0, 1), "a": slice(1, 2), "b": slice(2, 3)}
    share = ca.gating.class_output_share(
        W2, H, pw, {"common": ["common"], "single": ["a", "b"]}, "single"
    )
    np.testing.assert_allclose(share, np.sqrt(2) / (1 + np.sqrt(2)))


def test_family_match_leaves_out_the_same_strategy():
    t = np.arange(300.0)
    c = lambda tau: np.exp(-t / tau)  # noqa: E731
    curves = {
        "both": [c(21.0), c(21.5), c(20.5)],
        "mixed": [c(21.2)] * 3,
        "single": [c(40.0)] * 3,
        "common": [c(80.0)] * 3,
    }
    m = ca.comparisons.family_match([c(20.0), c(20.3), c(19.8)], curves, "both")
    assert set(m.candidates) == {
        ca.comparisons.STRATEGIES[k] for k in ("both", "single", "common")
    }
    assert (
        m.best == ca.comparisons.STRATEGIES["both"] and m.spread_candidate is not None
    )
