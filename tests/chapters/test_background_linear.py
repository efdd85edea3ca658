"""The Background chapter's science (helpers.chapters.background.linear) on small
configurations: the effective a0 against its expectation, the effective datasets of
node reuse, the closed form against a short simulation."""

import numpy as np
import pytest

import helpers as h
from helpers.chapters.background import linear


def test_effective_a0_averages_to_the_expected_initial_strength():
    ds = h.hierarchy4()
    m = h.modes(ds.X, ds.Y)
    hidden, std, draws = 16, 0.01, 4000
    rng = np.random.default_rng(0)
    W1 = rng.normal(0, std, (draws, hidden, 4))
    W2 = rng.normal(0, std, (draws, 7, hidden))
    a0 = linear.effective_a0(W1, W2, m)
    assert a0.shape == (draws, len(m.s)) and np.all(a0 >= 0)
    expected = h.initial_mode_strength(hidden, std, std)
    assert a0.mean() == pytest.approx(expected, rel=0.03)


def test_a_pathway_on_for_both_copies_has_twice_the_spectrum():
    ds = h.hierarchy4()
    X2, Y2 = np.hstack([ds.X, ds.X]), np.hstack([ds.Y, ds.Y])
    gates = {"one": np.r_[np.ones(4), np.zeros(4)], "both": np.ones(8)}
    spectra = linear.effective_spectra(X2, Y2, gates)
    s_one, d_one = spectra["one"]
    s_both, d_both = spectra["both"]
    assert len(s_one) == 4 and len(d_one) == 4
    assert np.allclose(s_both, 2 * s_one) and np.allclose(d_both, 2 * d_one)
    assert s_one[0] == pytest.approx(np.linalg.svd(ds.Y, compute_uv=False)[0])


def test_init_sweep_small_inits_follow_the_closed_form_large_do_not():
    ds = h.hierarchy4()
    m = h.modes(ds.X, ds.Y)
    # the page's step size and epochs (helpers.core.paper.FOUNDATION), two seeds
    sweep = linear.init_sweep(
        ds, m, [1e-3, 0.3], [16], lr=0.01, epochs=1500, seeds=[0, 1]
    )
    assert set(sweep) == {(1e-3, 16), (0.3, 16)}
    assert sweep[1e-3, 16] < 0.05  # within the rulebook's check gap
    assert sweep[0.3, 16] > 0.2
