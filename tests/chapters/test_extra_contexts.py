"""Closed form of the Section 5 ReLN for general C (Appendices F-G;
helpers.chapters.extra_contexts)."""

import numpy as np
import pytest

import helpers as h
from helpers.chapters.extra_contexts import closed_form as cf
from helpers.chapters.extra_contexts import measures, networks
from helpers.core import families
from helpers.core.measures import functional_census, time_gap
from helpers.core.relns import STD_COMMON, STD_CONTEXT, WIDTH, common_fit, context_reln

CS = (2, 3, 4, 5)


@pytest.mark.parametrize("C", CS)
def test_block_coefficients_geometry(C):
    b = cf.block_coefficients(C)
    assert b.shape == (C, C + 1)
    np.testing.assert_allclose(b[:, 0], 0)
    G = b @ b.T
    np.testing.assert_allclose(np.diag(G), (C - 1) / C)
    np.testing.assert_allclose(G[~np.eye(C, dtype=bool)], -1 / C)
    np.testing.assert_allclose(b.sum(axis=0), 0, atol=1e-15)


@pytest.mark.parametrize("bad", [1, 0, 2.5, True, "3"])
def test_block_coefficients_rejects_bad_C(bad):
    with pytest.raises(ValueError, match="contexts"):
        cf.block_coefficients(bad)


@pytest.mark.parametrize("C", CS)
def test_residual_formula_is_the_least_squares_residual(C):
    ds = h.contextual_task(C)
    W, R = common_fit(ds)
    np.testing.assert_allclose(R, cf.residual_formula(ds), atol=1e-12)
    # the residual floor: (C-1)/2 ||B_c||_F^2 = 17 (C-1)/2 for the hierarchy
    assert 0.5 * np.sum(R**2) == pytest.approx(17 * (C - 1) / 2)
    # the common pathway's dataset meets Assumption 2.1.1 exactly
    assert h.diagonalizability(ds.X, ds.Y)["holds"]


@pytest.mark.parametrize("C", (3, 4, 5))
def test_context_effective_datasets_match_the_derivation(C):
    ds = h.contextual_task(C)
    cm = cf.context_modes(ds)
    np.testing.assert_allclose(cm.s, np.sqrt((C - 1) / C) * cm.sigma)
    np.testing.assert_allclose(
        cm.sigma, [np.sqrt(7), np.sqrt(3), np.sqrt(3), 1, 1, 1, 1], atol=1e-12
    )
    assert cm.d_eff == pytest.approx(1.0)
    # the race coupling of two pathways: cosine x shared input variance = -(C-2)/(C-1)
    assert cm.coupling == pytest.approx(-(C - 2) / (C - 1))
    lefts = []
    for j in range(C):
        syx, sx = cf.context_effective_dataset(ds, j)
        U, s, _ = np.linalg.svd(syx)
        np.testing.assert_allclose(s[: len(cm.s)], cm.s, atol=1e-12)
        assert s[len(cm.s)] < 1e-12
        np.testing.assert_allclose(sx, (C - 1) * np.eye(8))
        # the closed-form map of pathway j: b_j (x) B_c, i.e. Sigma_yx(j) itself
        np.testing.assert_allclose(
            syx, np.kron(cm.b[j][:, None], cm.U * cm.sigma @ cm.V.T), atol=1e-12
        )
        lefts.append(U[:, 0])
    _, sx01 = cf.context_effective_dataset(ds, 0, q=1)
    np.testing.assert_allclose(sx01, (C - 2) * np.eye(8))
    # top output singular vectors of two pathways: cosine -1/(C-1) (up to sign)
    assert abs(lefts[0] @ lefts[1]) == pytest.approx(1 / (C - 1))


def test_block_structure_rejects_section4_task():
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    with pytest.raises(ValueError, match="same structure"):
        cf.block_structure(ds)
    with pytest.raises(ValueError, match="out of range"):
        cf.context_effective_dataset(h.contextual_task(3), 3)


def test_head_start_gain_properties():
    ds = h.contextual_task(3)
    cm = cf.context_modes(ds)
    a0c = h.initial_mode_strength(WIDTH, STD_COMMON, STD_COMMON)
    g = cf.head_start_gain(
        cm.s[:1], cm.s_common[:1], cm.d_common, 3, a0c, 1e-3, STD_CONTEXT, STD_CONTEXT
    )
    # the head start raises a0 by orders of magnitude (authors' hand-set a0 ~ 1e-4 vs
    # 1e-8)
    assert 1e3 < g[0] < 1e5
    # no head start when the common pathway starts at its fixed point
    g1 = cf.head_start_gain(
        cm.s[:1],
        cm.s_common[:1],
        cm.d_common,
        3,
        cm.s_common[0] / 3,
        1e-3,
        STD_CONTEXT,
        STD_CONTEXT,
    )
    assert g1[0] == pytest.approx(1.0)
    # linear in the init: the gain does not depend on the overall scale of the context
    # init
    g2 = cf.head_start_gain(
        cm.s[:1],
        cm.s_common[:1],
        cm.d_common,
        3,
        a0c,
        1e-3,
        3 * STD_CONTEXT,
        3 * STD_CONTEXT,
    )
    assert g2[0] == pytest.approx(g[0], rel=1e-6)
    with pytest.raises(ValueError, match="lr"):
        cf.head_start_gain(cm.s, cm.s_common, 3, 3, a0c, 0.0, 1e-5, 1e-5)


def test_matched_a0_tends_to_linear_for_small_init():
    """The nonlinear head start reduces to the small-weight one as the init shrinks."""
    ds = h.contextual_task(4)
    cm = cf.context_modes(ds)
    ratios = []
    for scale in (1.0, 1e-3):
        lin, mat = (
            cf.context_initial_strength(
                cm,
                1e-3,
                std_context=STD_CONTEXT * scale,
                std_common=STD_COMMON * scale,
                method=method,
            )
            for method in ("linear", "head_start")
        )
        ratios.append(mat[0] / lin[0])
    assert ratios[0] < 0.8  # at the authors' init the saturation matters for C = 4
    assert abs(ratios[1] - 1) < 0.05
    with pytest.raises(ValueError, match="method"):
        cf.context_initial_strength(cm, 1e-3, method="hand-set")


@pytest.mark.parametrize("C", (3, 5))
def test_closed_form_loss_formula_matches_maps(C):
    ds = h.contextual_task(C)
    t = np.array([0.0, 1500.0, 3000.0, 6000.0, 1e6])
    F = cf.closed_form(ds, t, 1e-3)
    L_maps = cf.loss_from_maps(ds, F.common_map(), [F.context_map(j) for j in range(C)])
    np.testing.assert_allclose(F.loss, L_maps, rtol=1e-9, atol=1e-9)
    # the effective context a0 (~1e-3 for C = 5) is a virtual start: L(0) is within 0.1%
    # of 1/2 ||Y||^2
    assert F.loss[0] == pytest.approx(0.5 * np.sum(ds.Y**2), rel=1e-3)
    assert F.loss[-1] < 1e-9
    # authors' hand-set context a0 were 5e-5 .. 3e-4 ([conv-contextual]); ours is
    # derived
    if C == 3:
        assert 3e-5 < F.a0_context.min() < F.a0_context.max() < 1e-4


@pytest.mark.slow
def test_closed_form_tracks_simulated_reln_C3():
    ds = h.contextual_task(3)
    epochs = 8000
    run = h.train(
        context_reln(ds, "mixed"), ds.X, ds.Y, lr=1e-3, epochs=epochs, seeds=[0]
    )
    F = cf.closed_form(ds, np.arange(epochs + 1), 1e-3)
    F0 = cf.closed_form(ds, np.arange(epochs + 1), 1e-3, a0_method="none")
    assert time_gap(run.loss[0], F.loss) < 0.05
    assert time_gap(run.loss[0], F0.loss) > 0.5  # without the head start it is far off


@pytest.mark.parametrize("C", (3, 4))
def test_output_mode_strengths_recover_the_closed_form(C):
    ds = h.contextual_task(C)
    t = np.array([500.0, 2500.0, 5000.0])
    F = cf.closed_form(ds, t, 1e-3)
    items = [i for i, n in enumerate(ds.inputs) if n.startswith("item")]
    out = np.einsum("tpd,dn->tpn", F.common_map(), ds.X)
    for j in range(C):
        out = out + np.einsum("tpd,dn->tpn", F.context_map(j), ds.X[items]) * (
            ds.contexts != j
        )
    a_c, a_x = cf.output_mode_strengths(ds, out)
    np.testing.assert_allclose(a_c, F.a_common, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a_x, F.a_context, rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="shape of Y"):
        cf.output_mode_strengths(ds, out[:, :-1])


def test_census_by_contexts_on_and_node_reuse():
    ds = h.contextual_task(3)
    # three units: common, on in contexts 1-2, on in context 3 only; weights 1, 2, 1
    G = np.stack(
        [np.ones(24), (ds.contexts < 2).astype(float), (ds.contexts == 2).astype(float)]
    )
    W1 = np.zeros((3, 11))
    W1[:, 0] = [1, 2, 1]
    W2 = np.zeros((60, 3))
    W2[0] = 1
    sh = families.census_by_contexts_on(G, W1, W2, ds.contexts, 3)
    np.testing.assert_allclose(sh, [0, 0.25, 0.5, 0.25])
    assert families.node_reuse_index(sh) == pytest.approx(
        (0.25 * 1 + 0.5 * 2 + 0.25 * 3) / 3
    )
    assert families.node_reuse_index([0, 0, 1, 0]) == pytest.approx(2 / 3)


def _units(ds, patterns, weights):
    """A ReLU layer whose unit j is on exactly in the contexts of patterns[j] (a string
    such as '110'), through a context input weight of +1 / -1, with readout weights."""
    ctx = [i for i, n in enumerate(ds.inputs) if n.startswith("ctx")]
    W1 = np.zeros((len(patterns), ds.X.shape[0]))
    for j, p in enumerate(patterns):
        W1[j, ctx] = [1.0 if c == "1" else -1.0 for c in p]
    W2 = np.zeros((ds.Y.shape[0], len(patterns)))
    W2[0] = weights
    return W1, W2, ctx


def test_functional_census_by_contexts_and_contexts_per_unit():
    ds = h.contextual_task(3)
    # a common unit, a 2-of-3 unit and a single-context unit, readouts 1, 2, 1
    W1, W2, _ = _units(ds, ["111", "110", "001"], [1.0, 2.0, 1.0])
    fk = families.functional_by_contexts_on(W1, W2, ds.X, ds.contexts, 3)
    # the units' outputs: 1 on 24 points, 2 on 16 points, 1 on 8 points
    norms = np.array([0, np.sqrt(8), 2 * np.sqrt(16), np.sqrt(24)])
    np.testing.assert_allclose(fk, norms / norms.sum())
    # the four classes of measures.functional_census are sums of these groups
    fc = functional_census(W1, W2, ds.X, ds.contexts, 3)
    assert fc["snap_change"] == pytest.approx(0.0)  # gates are context-level already
    assert fc["common"] == pytest.approx(fk[3]) and fc["mixed"] == pytest.approx(fk[2])
    assert families.contexts_per_unit([0, 0.25, 0.5, 0.25]) == pytest.approx(2.0)
    assert families.contexts_per_unit(fk) == pytest.approx(np.dot(fk, np.arange(4)))
    assert families.node_reuse_index(fk) == pytest.approx(
        families.contexts_per_unit(fk) / 3
    )


def test_unit_profile_of_the_units_on_in_three_of_five():
    ds = h.contextual_task(5)
    W1, W2, ctx = _units(ds, ["11100", "11111", "01011"], [1.0, 1.0, 3.0])
    G = (W1 @ ds.X > 0).astype(float)
    p = measures.unit_profile(G, W1, W2, ds.contexts, 5, 3, ctx)
    w = np.linalg.norm(W2, axis=0) * np.linalg.norm(W1, axis=1)
    assert p["share"] == pytest.approx((w[0] + w[2]) / w.sum())
    assert p["active_on"] == pytest.approx(8.0) and p["active_off"] == pytest.approx(
        0.0
    )
    assert p["context_weight_on"] == pytest.approx(1.0)
    assert p["context_weight_off"] == pytest.approx(-1.0)


def test_start_stds_and_the_closed_form_they_imply():
    ds = h.contextual_task(3)
    reln = context_reln(ds, "mixed")
    relu = h.relu_network((11, 700, 60), 0.005 / 700)

    def stds(init, seeds):
        return h.relns.start(
            reln,
            init,
            seeds,
            experiment="extra_contexts_C3",
            relu_net=relu,
            X=ds.X,
            contexts=ds.contexts,
        ).stds()

    authors = stds("authors", [0, 1])
    assert authors[0] == authors[1]
    assert authors[0]["common"] == STD_COMMON
    assert authors[0]["ctx12"] == STD_CONTEXT
    matched = stds("matched", [0])[0]
    np.testing.assert_allclose(list(matched.values()), 0.005 / 700)
    derived = stds("derived", [0, 1])
    assert derived[0] != derived[1]  # each seed from its own ReLU network
    t = np.arange(0, 8001, 100.0)
    # the matched closed form starts its context pathways 4x weaker than the authors'
    F_a = cf.closed_form_for_stds(ds, t, 1e-3, authors[0], a0_method="none")
    F_m = cf.closed_form_for_stds(ds, t, 1e-3, matched, a0_method="none")
    assert F_a.a0_context[0] / F_m.a0_context[0] == pytest.approx(4.0)
    L = cf.closed_form_losses(ds, t, 1e-3, authors + [matched])
    assert L.shape == (3, t.size)
    np.testing.assert_allclose(L[0], L[1])
    np.testing.assert_allclose(L[2], cf.closed_form_for_stds(ds, t, 1e-3, matched).loss)
    with pytest.raises(ValueError, match="common pathway"):
        cf.closed_form_for_stds(ds, t, 1e-3, {"ctx12": 1e-5})


def test_the_family_holds_every_k_and_the_census_mixture():
    by_k = np.array([0.0, 0.01, 0.02, 0.45, 0.5, 0.02])  # C = 5: 4 and 3 lead
    fam = families.family_sets(5, by_k)
    assert set(fam) == {"1-of-5", "2-of-5", "3-of-5", "4-of-5", "5-of-5", "4+3-of-5"}
    assert fam["4+3-of-5"] == (4, 3)
    fam3 = families.family_sets(3, np.array([0, 0.01, 0.7, 0.29]), [(2, 1)])
    assert "2+1-of-3" in fam3 and fam3["2+1-of-3"] == (2, 1)


def test_k_of_c_reln_matches_the_named_relns():
    from helpers.core import relns

    ds = h.contextual_task(3)
    assert (
        relns.k_of_c_reln(ds, [2]).pathway_names()
        == relns.context_reln(ds, "mixed").pathway_names()
    )
    assert len(relns.k_of_c_reln(ds, [2, 1]).pathway_names()) == 7
    assert len(relns.k_of_c_reln(ds, [3]).pathway_names()) == 2


def test_smallest_rise_is_the_worst_step():
    out = measures.smallest_rise({3: [0.70, 0.72], 4: [0.74, 0.75], 5: [0.73, 0.76]})
    assert out["step"] == "4 to 5" and out["value"] < 0.01
    assert out["spread"] == pytest.approx(0.03)
    lo, hi = out["interval"]
    assert lo <= hi


def test_appendix_f_shares_the_relu_width_out_and_keeps_the_paper_s_relns():
    # the authors' ReLNs: 7, 5 and 6 pathways of 100 units against 700, 500, 600
    for C, ks, total in ((3, (2, 1), 700), (4, (3,), 500), (5, (4,), 600)):
        assert families.member_width(ks, C, total, 100) == 100
    assert families.pathway_count((3,), 5) == 11
    assert families.member_width((3,), 5, 600, 100) == 55  # 54.5 rounds half up
    assert families.member_width((4, 3), 5, 600, 100) == 38
    assert families.member_width((3,), 5, 600, 100, rule="per_pathway") == 100
    with pytest.raises(ValueError, match="width rule must be one of"):
        families.member_width((3,), 5, 600, 100, rule="equal")


def test_the_family_under_both_width_rules_reuses_equal_members():
    ds, seeds = h.contextual_task(3), [0, 1]
    kw = dict(relu_std=0.014, width=2, lr=0.05, epochs=30)
    runs = networks.train_networks(ds, 14, seeds, "matched", record_epochs=[30], **kw)
    by_k = np.array([0.0, 0.1, 0.6, 0.3])
    first = networks.train_family(ds, runs, by_k, "matched", seeds, **kw)
    losses, shares, widths = first
    assert widths["2+1-of-3"] == 2 and widths["3-of-3"] == 7  # 14 units over 7 and 2
    again = networks.train_family(
        ds, runs, by_k, "matched", seeds, rule="per_pathway", known=first, **kw
    )
    assert again[2]["3-of-3"] == 2
    assert again[0]["2+1-of-3"] is losses["2+1-of-3"]  # as wide: taken, not retrained
    assert not np.array_equal(again[0]["3-of-3"], losses["3-of-3"])
