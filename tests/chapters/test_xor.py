"""What only the XoR chapter needs (helpers.chapters.xor): gating classes and shares of
the ReLU networks, and the crossover of the linear share."""

import numpy as np
import pytest

import helpers as h
from helpers.book.rulebook import NOISE_MULTIPLE
from helpers.chapters import xor as xch
from helpers.chapters.xor import measures as xm
from helpers.core import xor_reln as xr

LR = 0.01  # as in tests/core/test_xor_reln.py


def test_relu_units_can_implement_both_gatings():
    """w = (0, 0, 1) is on for {x1, x4} (linear gating) and w = (1, 1, delta) for x1
    only
    (XoR gating), for small and large margins."""
    for eps in (0.2, 1.0, 1.8):
        X = h.xor(eps).X
        W = np.array(
            [[0.0, 0.0, 1.0], [0.0, 0.0, -1.0], [1.0, 1.0, 0.1], [-1.0, 1.0, -0.1]]
        )
        cls = xm.gating_classes(W @ X > 0)
        assert list(cls) == ["linear", "linear", "xor", "xor"]


def test_gating_classes_shares_and_crossover():
    G = np.array([[1, 0, 0, 0], [0, 1, 1, 0], [1, 1, 0, 0], [1, 0, 0, 1], [0, 0, 0, 0]])
    assert list(xm.gating_classes(G)) == ["xor", "linear", "other", "linear", "other"]
    W1 = np.array(
        [
            [3.0, 4.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 2.0, 0.0],
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0],
        ]
    )
    W2 = np.array([[2.0, -1.0, 0.5, 1.0, 0.0]])
    # weights |w2| |W1|: 10, 1, 1, 1, 0  -> xor 10/13, linear 2/13, other 1/13
    sh = xm.gating_shares(G, W1, W2)
    assert sh["xor"] == pytest.approx(10 / 13)
    assert sh["linear"] == pytest.approx(2 / 13)
    assert sh["other"] == pytest.approx(1 / 13)
    eps = np.array([0.6, 0.8, 1.0, 1.2])
    assert xm.crossover(eps, [0.1, 0.3, 0.7, 0.9]) == pytest.approx(0.9)
    assert xm.crossover(eps, [0.6, 0.7, 0.8, 0.9]) == pytest.approx(0.6)
    assert np.isnan(xm.crossover(eps, [0.1, 0.2, 0.3, 0.4]))


@pytest.mark.slow
def test_relu_network_switches_gating_with_the_margin():
    """A 128-unit ReLU network from small weights ends XoR-gated at eps = 0.3 and
    linearly gated at eps = 1.4 (>= 90% of its hidden weight), and its learning time is
    within 10% of the faster closed form."""
    std, epochs = 1e-3, 1000
    relu = h.relu_network((3, 128, 1), std)
    kw = dict(lr=LR, epochs=epochs, seeds=[0, 1], record_epochs=[epochs])
    for eps, expect in ((0.3, "xor"), (1.4, "linear")):
        ds = h.xor(eps)
        run = h.train(relu, ds.X, ds.Y, record=("weights", "gates"), **kw)
        W1, W2 = (W[:, -1] for W in run.records["weights"])
        G = run.records["gates"][0][:, -1]
        for s in range(2):
            assert xm.gating_shares(G[s], W1[s], W2[s])[expect] > 0.9
        t_fast = min(
            xr.closed_form_learning_time(
                eps, k, xr.xor_initial_strength(k, 128, std), LR
            )
            for k in xr.KINDS
        )
        assert np.median(xm.learning_times(run.loss)) == pytest.approx(t_fast, rel=0.1)


def test_small_init_limit_recovers_the_intercept_with_an_interval():
    x = np.array([0.04, 0.05, 0.066, 0.095, 0.059])
    rng = np.random.default_rng(1)
    seed_offset = rng.normal(
        0, 0.01, 10
    )  # one offset per seed, shared by every setting
    switches = 0.8 + 1.2 * x[:, None] + seed_offset[None, :]
    lim = xm.small_init_limit(x, switches, bootstrap=500)
    assert lim["slope"] == pytest.approx(1.2, abs=1e-9)
    assert lim["eps_inf"] == pytest.approx(0.8 + np.median(seed_offset), abs=1e-9)
    assert lim["residual"] < 1e-12
    assert lim["lo"] <= 0.8 <= lim["hi"] and lim["hi"] - lim["lo"] < 0.03
    # without seed-to-seed differences the interval collapses
    exact = xm.small_init_limit(x, np.repeat((0.8 + 1.2 * x)[:, None], 4, axis=1), 50)
    assert exact["hi"] - exact["lo"] < 1e-9 and exact["sd"] < 1e-9
    # a seed without a switch (NaN) is left out of the medians
    switches[0, 3] = np.nan
    assert np.isfinite(xm.small_init_limit(x, switches, bootstrap=50)["eps_inf"])
    with pytest.raises(ValueError, match="two settings"):
        xm.small_init_limit([0.1, 0.1], np.ones((2, 3)))
    with pytest.raises(ValueError, match="one x per setting"):
        xm.small_init_limit(x, np.ones((4, 3)))


def _two_relns(rates, seeds=3, T=400):
    """A main sweep of two ReLNs with the given (linear, xor) decay rates per
    margin, identical over seeds apart from a small jitter."""
    from types import SimpleNamespace

    t = np.arange(T)

    def curves(rate):
        return np.stack([np.exp(-rate * (1 + 0.01 * s) * t) for s in range(seeds)])

    sim = {
        "linear": np.stack([curves(a) for a, _ in rates]),
        "xor": np.stack([curves(b) for _, b in rates]),
    }
    return SimpleNamespace(eps=np.linspace(0.5, 1.0, len(rates)), sim=sim)


def test_reln_separation_and_which_margins_can_decide():
    main = _two_relns([(0.02, 0.03), (0.025, 0.025), (0.03, 0.02)])
    faster = ["xor", "xor", "linear"]
    sep = xm.reln_separation(main, faster)
    assert sep[1] == pytest.approx(0.0, abs=1e-12)  # a tie: the same curves
    assert sep[0] == pytest.approx(np.log(1.5), rel=0.02) and sep[2] == sep[0]
    follow = [h.measures.Evidence(0.01, spread=0.01)] * 3
    decides = xm.can_decide(follow, sep)
    assert decides.tolist() == [True, False, True]
    # the yardstick is the rulebook's NOISE_MULTIPLE x the margin's seed spread
    wide = [h.measures.Evidence(0.01, spread=sep[0] / NOISE_MULTIPLE)] * 3
    assert not xm.can_decide(wide, sep).any()
    with pytest.raises(ValueError, match="faster"):
        xm.reln_separation(main, ["xor", "relu", "linear"])
    with pytest.raises(ValueError, match="faster"):
        xm.reln_separation(main, ["xor"])
    with pytest.raises(ValueError, match="separation"):
        xm.can_decide(follow, sep[:2])
    with pytest.raises(ValueError, match="separation"):
        xm.can_decide(follow, [0.1, -0.1, np.nan])


def test_learning_time_figure_marks_the_near_ties():
    import matplotlib

    matplotlib.use("Agg")
    from types import SimpleNamespace

    import matplotlib.pyplot as plt

    eps = np.array([0.5, 0.8, 1.1])
    a0 = {k: xr.xor_initial_strength(k, 128, 1e-4) for k in xr.KINDS}
    main = SimpleNamespace(eps=eps, a0=a0, lr=LR)
    t = np.array([[100.0, 110.0], [90.0, 95.0], [80.0, 85.0]])
    t_sim = {"linear": t * 1.2, "xor": t * 1.1}
    switch = {"eps_x": 0.9, "q25": 0.85, "q75": 0.95}
    xch.plots.learning_time(main, t, t_sim, switch, ties=eps[[1]])
    ax = plt.gcf().axes[0]
    crosses = [ln for ln in ax.lines if ln.get_label().startswith("ReLNs within")]
    assert len(crosses) == 1 and list(crosses[0].get_xdata()) == [0.8]
    plt.close("all")
