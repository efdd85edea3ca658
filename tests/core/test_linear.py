"""Closed-form theory ([conv-linear], Eq. 7) and its agreement with simulation."""

import numpy as np
import pytest

import helpers as h
from helpers.core.measures import curve_distance


def test_mode_strength_limits_and_learning_time():
    s, d, a0, lr = 2.0, 1.5, 1e-6, 0.01
    assert h.mode_strength(0, s, d, a0, lr) == pytest.approx(a0)
    assert h.mode_strength(1e6, s, d, a0, lr) == pytest.approx(s / d)
    af = 0.5 * s / d
    t = h.learning_time(s, d, a0, af, lr)
    assert h.mode_strength(t, s, d, a0, lr) == pytest.approx(af, rel=1e-9)
    # learning time scales as 1/s at fixed s/d and a0
    assert h.learning_time(2 * s, 2 * d, a0, af, lr) == pytest.approx(t / 2)


def test_closed_form_loss_identity():
    """L = 1/2 tr Sigma_y - sum(s a - d a^2 / 2) when Assumption 2.1.1 holds."""
    ds = h.hierarchy4()
    m = h.modes(ds.X, ds.Y)
    t = np.array([0.0, 200.0, 400.0, 3000.0])
    L = h.closed_form_loss(t, ds.X, ds.Y, 1e-4, 0.01)
    A = h.mode_strength(t[:, None], m.s, m.d, 1e-4, 0.01)
    L2 = 0.5 * np.sum(ds.Y**2) - np.sum(m.s * A - 0.5 * m.d * A**2, axis=1)
    np.testing.assert_allclose(L, L2, rtol=1e-10, atol=1e-12)


def test_diagonalizability_report():
    ds = h.hierarchy4()
    assert h.diagonalizability(ds.X, ds.Y)["holds"]
    rng = np.random.default_rng(0)
    X = rng.standard_normal((4, 6))
    Y = rng.standard_normal((3, 6))
    rep = h.diagonalizability(X, Y)
    assert not rep["holds"] and rep["offdiag"] > 1e-3


def test_linear_network_from_aligned_init_matches_closed_form():
    """A linear network started aligned and balanced follows Eq. 7 (the only error is
    the
    Euler step: the per-epoch growth (1 + s lr)^2 vs e^{2 s lr}, about s*lr/2 = 0.7%).
    """
    ds = h.hierarchy4()
    m = h.modes(ds.X, ds.Y)
    a0, lr, epochs, H = 1e-4, 0.005, 3000, 8
    Q = np.linalg.qr(np.random.default_rng(1).standard_normal((H, 4)))[0]
    W1 = np.sqrt(a0) * Q @ m.V.T
    W2 = np.sqrt(a0) * m.U @ Q.T
    net = h.linear_network((4, H, 7), 1e-3)
    run = h.train(net, ds.X, ds.Y, lr=lr, epochs=epochs, params0=[W1, W2])
    cf = h.closed_form_loss(np.arange(epochs + 1), ds.X, ds.Y, a0, lr)
    assert run.loss[0, 0] == pytest.approx(cf[0], rel=1e-6)
    assert curve_distance(run.loss[0], cf) < 0.02


def test_initial_mode_strength():
    assert h.initial_mode_strength(100, 1e-3, 2e-3) == pytest.approx(100 * 5e-6 / 4)
    with pytest.raises(NotImplementedError):
        h.initial_mode_strength(10, 1, 1, depth=3)
