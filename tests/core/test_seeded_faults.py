"""Tests that check numbers, so that a seeded fault fails more than one of them: a
90 % bootstrap interval computed as a 50 % one, the context input's value ignored."""

import re
from pathlib import Path

import numpy as np
import pytest

from helpers.core import measures
from helpers.core.datasets import contextual_task

ROOT = Path(__file__).resolve().parents[2]


def _gaps(x):
    x = np.asarray(x, float)
    return np.abs(x[:, None] - x[None, :])


def test_the_bootstrap_interval_is_central_ninety_percent():
    lo, hi = measures.BOOTSTRAP["percentiles"]
    assert (lo, hi) == (5.0, 95.0) and hi - lo == 90.0


def test_the_ninety_percent_interval_is_wider_than_a_fifty_percent_one(monkeypatch):
    """On one seeded sample: the 90 % interval of a normal-like bootstrap is about
    2.4 x the width of the 50 % one (1.645 / 0.674); a fault that computes the 50 %
    one gives a ratio of 1."""
    x = np.random.default_rng(1).normal(size=16)
    lo90, hi90 = measures.bootstrap_interval(_gaps(x))
    monkeypatch.setitem(measures.BOOTSTRAP, "percentiles", (25.0, 75.0))
    lo50, hi50 = measures.bootstrap_interval(_gaps(x))
    assert lo90 < lo50 < hi50 < hi90
    assert (hi90 - lo90) / (hi50 - lo50) > 1.8


def test_the_interval_covers_a_known_spread_about_ninety_percent_of_the_time():
    """Seeds drawn from N(0, 1): the median gap between two seeds is
    sqrt(2) x 0.6745 = 0.954.  Over 40 draws of 12 seeds the 90 % interval covers it
    in at least 75 % of them (a 50 % interval: about half)."""
    truth = np.sqrt(2) * 0.6744897501960817
    rng = np.random.default_rng(7)
    hits = []
    for _ in range(40):
        lo, hi = measures.bootstrap_interval(_gaps(rng.normal(size=12)))
        hits.append(lo <= truth <= hi)
    assert 0.75 <= np.mean(hits) <= 1.0


@pytest.mark.parametrize("C,value", [(4, 1.1), (5, 1.35)])
def test_the_context_rows_carry_the_context_value(C, value):
    ds = contextual_task(C, context_value=value)
    items, contexts = ds.X[:8], ds.X[8:]
    assert set(np.unique(items)) == {0.0, 1.0}
    assert set(np.unique(contexts)) == {0.0, value}
    np.testing.assert_allclose(contexts.sum(axis=0), value)  # one context per column
    # the input correlation's context block: value**2 / C on its diagonal
    sigma = ds.X @ ds.X.T / ds.X.shape[1]
    np.testing.assert_allclose(np.diag(sigma)[8:], value**2 / C)


def test_the_chapter_builds_its_tasks_with_the_authors_context_values():
    """Section 5 runs C = 3, 4, 5 with the authors' 1.0, 1.1, 1.35 (their
    ``diff_context_num/gen_data.py``): the page passes them to the task."""
    from helpers.core.paper import EXTRA_CONTEXTS as PAPER

    assert list(PAPER.context_value) == [1.0, 1.1, 1.35]
    page = (ROOT / "book" / "extra_contexts.md").read_text()
    assert re.search(
        r"contextual_task\(C, context_value=v\) for C, v in zip\(CS, "
        r"context_values\)",
        page,
    )
    four = contextual_task(4, context_value=PAPER.context_value[1])
    assert four.X[8:].max() == pytest.approx(1.1)


def _masked_task():
    """Targets that depend on input row 1 alone; a pathway that sees rows 0 and 2."""
    X = np.eye(3)
    Y = np.array([[0.0, 1.0, 0.0]])
    return X, Y


def _one_pathway(inputs):
    from helpers.core.engine import Pathway, gdln

    return gdln(3, 1, 3, [Pathway("p", 4, inputs=inputs, init_std=(0.1, 0.1))])


def test_the_input_mask_is_the_pathways_inputs():
    net = _one_pathway([0, 2])
    mask = net.layers[0].in_mask
    assert mask.shape == (4, 3)
    np.testing.assert_array_equal(mask, np.tile([1.0, 0.0, 1.0], (4, 1)))
    assert _one_pathway(None).layers[0].in_mask is None


def test_a_pathway_cannot_learn_from_an_input_it_does_not_see():
    """The target lives on row 1: the pathway that sees rows 0 and 2 keeps its loss
    (it only unlearns its own start), the one that sees every row learns it."""
    from helpers.core.engine import train

    X, Y = _masked_task()
    blind = train(_one_pathway([0, 2]), X, Y, lr=0.2, epochs=300, seeds=[0]).loss[0]
    sees = train(_one_pathway(None), X, Y, lr=0.2, epochs=300, seeds=[0]).loss[0]
    assert blind[-1] > 0.45  # 0.5 of the target's squared norm stays out of reach
    assert sees[-1] < 0.01 * sees[0]


def test_a_masked_pathway_trains_as_if_the_hidden_rows_were_zero():
    """Masking an input row is zeroing it: the two runs' loss curves agree to float32
    rounding, epoch by epoch."""
    from helpers.core.engine import train

    X, Y = _masked_task()
    masked = train(_one_pathway([0, 2]), X, Y, lr=0.2, epochs=200, seeds=[3]).loss[0]
    Z = X.copy()
    Z[1] = 0.0
    zeroed = train(_one_pathway(None), Z, Y, lr=0.2, epochs=200, seeds=[3]).loss[0]
    np.testing.assert_allclose(masked, zeroed, rtol=1e-5, atol=0)


def test_appendix_fs_width_rule_counts_the_common_pathway():
    """Every rival as wide as the ReLU network (Appendix F): the common pathway and
    C choose k pathways per k share its units.  C = 4, 500 units: 2-of-4 has 7
    pathways of 71 units, 3+2-of-4 11 of 45, 4-of-4 2 of 250; C = 3, 700 units:
    3-of-3 2 of 350."""
    from helpers.chapters.extra_contexts import member_width, pathway_count

    cases = [
        ((2,), 4, 500, 7, 71),
        ((3, 2), 4, 500, 11, 45),
        ((4,), 4, 500, 2, 250),
        ((3,), 3, 700, 2, 350),
    ]
    for ks, C, total, n, width in cases:
        assert pathway_count(ks, C) == n
        assert member_width(ks, C, total, 100) == width
        assert abs(n * width - total) <= n / 2  # as many units as the ReLU network


def _one_mode_race(a0, s, lr, epochs):
    from helpers.core.engine import Pathway, gdln
    from helpers.core.race import predict

    net = gdln(1, 1, 1, [Pathway("c", 1)])
    return predict(
        net, np.array([[1.0]]), np.array([[s]]), lr=lr, epochs=epochs, a0=a0
    ).loss


def test_the_race_takes_the_euler_step_of_eq_6():
    """One mode, one pathway: a <- a + 2 lr a (s - a) per epoch, the loss
    (s - a)^2 / 2; a race at half its step lags from the first epoch."""
    a0, s, lr = 0.01, 2.0, 0.05
    loss = np.asarray(_one_mode_race(a0, s, lr, 3), float).ravel()
    a, want = a0, []
    for _ in range(4):
        want.append(0.5 * (s - a) ** 2)
        a = a + 2 * lr * a * (s - a)
    np.testing.assert_allclose(loss, want, rtol=1e-5)


def test_the_race_crosses_half_its_target_when_the_logistic_says():
    """Gradient flow: a(t) = s / (1 + (s / a0 - 1) e^{-2 s t}); in epochs of step lr
    it reaches s / 2 at ln(s / a0 - 1) / (2 s lr), within a few epochs."""
    a0, s, lr = 0.01, 2.0, 0.01
    loss = np.asarray(_one_mode_race(a0, s, lr, 400), float).ravel()
    a = s - np.sqrt(2 * loss)
    crossed = int(np.argmax(a >= s / 2))
    assert abs(crossed - np.log(s / a0 - 1) / (2 * s * lr)) <= 3
