"""The XoR ReLNs and their closed forms ([conv-xor]; paper Section 3, Appendix C, Eqs.
13-26),
and the per-pathway initial strengths of helpers.core.race.effective_a0 used with them.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import helpers as h
from helpers.chapters.xor import measures as xch
from helpers.core import xor_reln as xr
from helpers.core.measures import curve_distance
from helpers.core.race import effective_a0

LR = 0.01


@pytest.mark.parametrize("eps", [0.1, 0.5, np.sqrt(2 / 3), 1.0, 1.7])
def test_analytic_modes_match_effective_datasets(eps):
    """s = 2 eps, d = 2 eps^2 per linear pathway; s = sqrt(2 + eps^2), d = 2 + eps^2 per
    XoR pathway ([conv-xor]), computed here from each pathway's gated data."""
    for kind, n in (("linear", 2), ("xor", 4)):
        s_f, d_f = xr.analytic_modes(eps, kind)
        eff = xr.effective_modes(eps, kind)
        assert len(eff) == n
        for s, d, diag in eff.values():
            assert s.shape == (1,)
            assert s[0] == pytest.approx(s_f, rel=1e-12)
            assert d[0] == pytest.approx(d_f, rel=1e-12)
            assert diag["holds"]
    assert xr.analytic_modes(0.5, "linear") == pytest.approx((1.0, 0.5))
    assert xr.analytic_modes(0.5, "xor") == pytest.approx((1.5, 2.25))


@settings(derandomize=True, max_examples=60, deadline=None)
@given(st.floats(0.05, 3.0))
def test_analytic_modes_match_effective_datasets_property(eps):
    for kind in xr.KINDS:
        s_f, d_f = xr.analytic_modes(eps, kind)
        for s, d, _ in xr.effective_modes(eps, kind).values():
            assert s[0] == pytest.approx(s_f, rel=1e-10) and d[0] == pytest.approx(
                d_f, rel=1e-10
            )


def test_eps_star_and_speed_window():
    """Eqs. 24-26: 2 eps = sqrt(2 + eps^2) at eps* = sqrt(2/3) ~ 0.8165."""
    assert xr.eps_star() == pytest.approx(np.sqrt(2 / 3), abs=1e-12)
    assert xr.eps_star() == pytest.approx(0.8165, abs=1e-4)
    lo, hi = xch.speed_ratio_window(1.1)
    for e, ratio in ((lo, 1 / 1.1), (hi, 1.1)):
        s_lin = xr.analytic_modes(e, "linear")[0]
        s_xor = xr.analytic_modes(e, "xor")[0]
        assert s_lin / s_xor == pytest.approx(ratio, rel=1e-12)
    assert xch.speed_ratio_window(1.0) == pytest.approx((xr.eps_star(), xr.eps_star()))
    # the same root from the singular values of the pathways' effective datasets of
    # xor(eps)
    assert xr.eps_star(from_data=True) == pytest.approx(np.sqrt(2 / 3), abs=1e-12)


@pytest.mark.parametrize("kind", xr.KINDS)
def test_closed_form_loss_equals_mode_sum_and_gated_linear_theory(kind):
    """Eq. 22/23 == [conv-linear]: 1/2 tr Sigma_y - sum(s a - d a^2 / 2) == the sum over
    pathways
    of helpers.core.linear.closed_form_loss on each pathway's gated dataset."""
    eps, a0 = 0.6, 1e-4
    t = np.array([0.0, 100.0, 400.0, 800.0, 5000.0])
    L = xr.xor_closed_form_loss(t, eps, kind, a0, LR)
    s, d = xr.analytic_modes(eps, kind)
    a = h.mode_strength(t, s, d, a0, LR)
    n = len(xr.GATES[kind])
    np.testing.assert_allclose(
        L, 2.0 - n * (s * a - 0.5 * d * a**2), rtol=1e-10, atol=1e-12
    )
    ds = h.xor(eps)
    L_gated = sum(
        h.closed_form_loss(t, ds.X * g, ds.Y * g, a0, LR)
        for g in xr.GATES[kind].values()
    )
    np.testing.assert_allclose(L, L_gated, rtol=1e-9, atol=1e-12)
    assert L[0] == pytest.approx(2 * (1 - a0 * d / s) ** 2)
    assert L[-1] < 1e-10


@pytest.mark.parametrize("kind", xr.KINDS)
def test_closed_form_loss_with_one_a0_per_pathway(kind):
    """L = sum_p (n_p / 2)(1 - a_p d / s)^2 equals the sum over pathways of
    helpers.core.linear.closed_form_loss with each pathway's own a0; a list in GATES
    order and
    a dict by name agree; equal a0 give Eqs. 22-23 (the scalar form)."""
    eps, t = 0.7, np.array([0.0, 50.0, 300.0, 900.0, 4000.0])
    names = list(xr.GATES[kind])
    a0 = np.geomspace(1e-5, 1e-3, len(names))
    ds = h.xor(eps)
    ref = sum(
        h.closed_form_loss(t, ds.X * g, ds.Y * g, a, LR)
        for g, a in zip(xr.GATES[kind].values(), a0)
    )
    np.testing.assert_allclose(
        xr.xor_closed_form_loss(t, eps, kind, a0, LR), ref, rtol=1e-9, atol=1e-12
    )
    np.testing.assert_allclose(
        xr.xor_closed_form_loss(t, eps, kind, dict(zip(names, a0)), LR),
        ref,
        rtol=1e-9,
        atol=1e-12,
    )
    np.testing.assert_allclose(
        xr.xor_closed_form_loss(t, eps, kind, [3e-4] * len(names), LR),
        xr.xor_closed_form_loss(t, eps, kind, 3e-4, LR),
        rtol=1e-12,
        atol=1e-15,
    )


def test_closed_form_learning_time():
    """L(t) = f L(0) at the returned time; sampled at whole epochs, the shared
    learning-time routine returns its ceiling; scalar and array inputs agree."""
    a0, f = 3e-5, xr.LEARNING_FRACTION
    for kind in xr.KINDS:
        for eps in (0.3, 0.9, 1.5):
            t = xr.closed_form_learning_time(eps, kind, a0, LR)
            L = xr.xor_closed_form_loss(np.array([0.0, t]), eps, kind, a0, LR)
            assert L[1] == pytest.approx(f * L[0], rel=1e-9)
            curve = xr.xor_closed_form_loss(np.arange(4001), eps, kind, a0, LR)
            assert xch.learning_times(curve[None])[0] == np.ceil(t)
        arr = xr.closed_form_learning_time(np.array([0.0, 0.3, 0.9]), kind, a0, LR)
        assert arr[1] == pytest.approx(xr.closed_form_learning_time(0.3, kind, a0, LR))
    assert xr.closed_form_learning_time(0.0, "linear", a0, LR) == np.inf
    # the linear ReLN at eps = 0.3 is slower than the XoR ReLN; at 1.5 it is faster
    assert xr.closed_form_learning_time(
        0.3, "linear", a0, LR
    ) > 2 * xr.closed_form_learning_time(0.3, "xor", a0, LR)
    assert xr.closed_form_learning_time(
        1.5, "linear", a0, LR
    ) < xr.closed_form_learning_time(1.5, "xor", a0, LR)


def test_learning_time_crossover_is_eps_star_for_the_relns_architecture():
    """With 2x the units per linear pathway (a0_lin = 2 a0_xor) both u0 are equal at
    eps*,
    so the closed-form learning times cross exactly there, for any init; with equal a0
    the
    crossover moves up with a0."""
    for a0 in (1e-10, 1e-6, 1e-3):
        assert xr.learning_time_crossover(2 * a0, a0, LR) == pytest.approx(
            xr.eps_star(), abs=1e-8
        )
    c_small = xr.learning_time_crossover(1e-10, 1e-10, LR)
    c_big = xr.learning_time_crossover(1e-3, 1e-3, LR)
    assert xr.eps_star() < c_small < c_big
    assert c_big == pytest.approx(0.940, abs=0.002)
    a0l = xr.xor_initial_strength("linear", 128, 1e-3)
    a0x = xr.xor_initial_strength("xor", 128, 1e-3)
    assert a0l == pytest.approx(2 * a0x) and a0l == pytest.approx(64 * 2e-6 / 4)


def test_learning_time_crossover_with_equal_a0_tends_to_eps_star():
    """With one a0 for every pathway the exact-time crossover lies above eps* and moves
    down towards it (logarithmically) as a0 -> 0."""
    c = [xr.learning_time_crossover(a0, a0, LR) for a0 in (1e-3, 1e-6, 1e-12, 1e-30)]
    assert all(x > y for x, y in zip(c, c[1:]))
    assert xr.eps_star() < c[-1] < xr.eps_star() + 0.02


def test_relns_share_the_relu_networks_units_and_init():
    lin, xor_ = xr.reln("linear", 128, 1e-3), xr.reln("xor", 128, 1e-3)
    assert lin.sizes == xor_.sizes == (3, 128, 1)
    assert [sl.stop - sl.start for _, sl in lin.layers[0].pathways] == [64, 64]
    assert [sl.stop - sl.start for _, sl in xor_.layers[0].pathways] == [32] * 4
    # every datapoint is seen by exactly one pathway in both ReLNs
    for net in (lin, xor_):
        G = np.array([net.layers[0].gating[sl][0] for _, sl in net.layers[0].pathways])
        np.testing.assert_array_equal(G.sum(axis=0), np.ones(4))
    relu = h.relu_network((3, 128, 1), 1e-3)
    for seed in (0, 3):
        for a, b in zip(h.init_params(relu, seed), h.init_params(xor_, seed)):
            np.testing.assert_array_equal(a, b)


def test_simulated_relns_match_closed_forms():
    """The simulated ReLNs' learning times agree with Eqs. 22-23 within 3% (Euler error
    s lr / 2 <= 1.6% plus the aligned-start approximation of a0)."""
    std, epochs = 1e-3, 1500
    for eps in (0.5, 1.2):
        ds = h.xor(eps)
        for kind in xr.KINDS:
            run = h.train(
                xr.reln(kind, 128, std), ds.X, ds.Y, lr=LR, epochs=epochs, seeds=[0, 1]
            )
            t_sim = np.median(xch.learning_times(run.loss))
            t_cf = xr.closed_form_learning_time(
                eps, kind, xr.xor_initial_strength(kind, 128, std), LR
            )
            assert t_sim == pytest.approx(t_cf, rel=0.03), (eps, kind)


@pytest.mark.slow
def test_closed_form_with_effective_a0_matches_simulation():
    """Eqs. 18-23 per pathway, each from its own a0 of the actual initial weights
    (helpers.core.race.effective_a0), follow the simulated ReLN's whole loss curve."""
    eps, lr, epochs = 0.6, 0.01, 1500
    ds = h.xor(eps)
    t = np.arange(epochs + 1)
    for kind in xr.KINDS:
        net = xr.reln(kind, 16 * len(xr.GATES[kind]), 1e-3)  # 16 units per pathway
        run = h.train(net, ds.X, ds.Y, lr=lr, epochs=epochs, seeds=[0])
        a0 = effective_a0(net, h.init_params(net, 0), ds.X, ds.Y)
        assert list(a0) == list(xr.GATES[kind])
        assert (
            curve_distance(run.loss[0], xr.xor_closed_form_loss(t, eps, kind, a0, lr))
            < 0.02
        )


def test_effective_a0_matches_its_expectation():
    """Averaged over draws, effective_a0 is helpers.core.linear.initial_mode_strength
    (width (std_in^2 + std_out^2) / 4), of which it is the single-draw version."""
    ds = h.xor(0.5)
    net = xr.reln("xor", 128, 1e-3)  # 32 units per pathway
    vals = [
        v
        for s in range(60)
        for v in effective_a0(net, h.init_params(net, s), ds.X, ds.Y).values()
    ]
    assert np.mean(vals) == pytest.approx(
        xr.xor_initial_strength("xor", 128, 1e-3), rel=0.1
    )
    # aligned, balanced weights W1_p = sqrt(a) v^T, W2_p = sqrt(a) u give exactly a
    W1, W2 = (np.zeros_like(W) for W in h.init_params(net, 0))
    for name, sl in net.layers[0].pathways:
        g = net.layers[0].gating[sl][0] > 0
        m = h.modes(ds.X[:, g], ds.Y[:, g])
        W1[sl.start] = np.sqrt(2e-3) * m.V[:, 0]
        W2[:, sl.start] = np.sqrt(2e-3) * m.U[:, 0]
    assert all(
        v == pytest.approx(2e-3, rel=1e-12)
        for v in effective_a0(net, [W1, W2], ds.X, ds.Y).values()
    )


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(ValueError, match="kind"):
        xr.reln("relu")
    with pytest.raises(ValueError, match="multiple of 4"):
        xr.reln("xor", width=130)
    with pytest.raises(ValueError, match="init_std"):
        xr.reln("linear", init_std=-1.0)
    with pytest.raises(ValueError, match="eps"):
        xr.analytic_modes(-0.1, "linear")
    with pytest.raises(ValueError, match="s = 0"):
        xr.xor_closed_form_loss([0, 1], 0.0, "linear", 1e-4, LR)
    with pytest.raises(ValueError, match="fraction"):
        xr.closed_form_learning_time(0.5, "xor", 1e-4, LR, fraction=1.5)
    with pytest.raises(ValueError, match="correlation"):
        xr.effective_modes(0.0, "linear")
    with pytest.raises(ValueError, match="datapoints"):
        xch.gating_classes(np.ones((3, 5)))
    with pytest.raises(ValueError, match="increasing"):
        xch.crossover([1.0, 0.5], [0.2, 0.8])
    with pytest.raises(ValueError, match="no learning-time crossover"):
        xr.learning_time_crossover(1e-6, 1e-6, LR, bracket=(1.0, 2.0))
    with pytest.raises(ValueError, match="one per pathway"):
        xr.xor_closed_form_loss([0, 1], 0.5, "xor", [1e-4, 1e-4], LR)
    with pytest.raises(ValueError, match="no value"):
        xr.xor_closed_form_loss([0, 1], 0.5, "linear", {"positive": 1e-4}, LR)
    net = xr.reln("linear", 8, 1e-3)
    ds = h.xor(0.5)
    with pytest.raises(ValueError, match="fixed gates"):
        effective_a0(h.relu_network((3, 8, 1), 1e-3), h.init_params(net, 0), ds.X, ds.Y)
    with pytest.raises(ValueError, match="shapes"):
        effective_a0(net, [np.zeros((8, 2)), np.zeros((1, 8))], ds.X, ds.Y)
    with pytest.raises(ValueError, match="no input-output correlation"):
        effective_a0(net, h.init_params(net, 0), ds.X, np.zeros_like(ds.Y))
