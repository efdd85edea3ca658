"""The proofs chapter's computations (helpers/proofs.py): Lemma 4.1 (Appendix D) and
Proposition 4.2 (Appendix E), with property-based tests of the inequalities.  Appendix C
(the XoR ReLNs and the crossover) is tested with its one implementation, in
tests/test_xor_reln.py."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import helpers as h
from helpers.chapters.proofs import interlacing, lemma, race, xor

FAST = settings(derandomize=True, max_examples=60, deadline=None)
MEDIUM = settings(derandomize=True, max_examples=150, deadline=None)


# --------------------------------------------------------------------- Lemma 4.1


def test_two_by_two_patterns():
    X = lemma.item_context_input(2, 2)  # columns (o1,c1), (o2,c1), (o1,c2), (o2,c2)
    pats = np.array(list(itertools.product([0, 1], repeat=4)))
    feas = lemma.lp_feasible_patterns(X, pats)
    assert feas.sum() == 14
    infeasible = {tuple(p) for p in pats[~feas]}
    assert infeasible == {
        (1, 0, 0, 1),
        (0, 1, 1, 0),
    }  # the two "combined" patterns of Appendix D
    np.testing.assert_array_equal(
        feas, lemma.lp_feasible_patterns(X, pats, strict_off=True)
    )
    # the certificate of the combined pattern is Appendix D's sum of the four
    # inequalities
    lam, mu = lemma.farkas_certificate(X, [1, 0, 0, 1])
    np.testing.assert_allclose(lam, [0.5, 0.5], atol=1e-9)
    np.testing.assert_allclose(mu, [0.5, 0.5], atol=1e-9)
    for p, f in zip(pats, feas):
        assert (
            lemma.farkas_certificate(X, p) is None
        ) == f  # Motzkin: exactly one alternative


def test_item_context_input_matches_task():
    np.testing.assert_array_equal(
        lemma.item_context_input(8, 3), h.contextual_task(3).X
    )


def test_full_enumeration_counts():
    e = lemma.enumerate_patterns(8, 3)
    assert e["implementable"] == e["formula"] == 354106
    assert (e["constant"], e["context_only"], e["item_only"]) == (2, 6, 254)
    assert e["both"] == 354106 - 262
    assert e["patterns"] == 2**24


@pytest.mark.parametrize(
    "n,C", [(1, 1), (2, 2), (3, 2), (8, 1), (8, 2), (3, 3), (2, 5), (4, 4)]
)
def test_count_nested_formula_against_brute_force(n, C):
    assert lemma.count_nested(n, C) == lemma.enumerate_patterns(n, C)["implementable"]


def test_lp_agrees_with_nestedness_on_3x3():
    X = lemma.item_context_input(3, 3)
    pats = np.array(list(itertools.product([0, 1], repeat=9)))
    np.testing.assert_array_equal(
        lemma.lp_feasible_patterns(X, pats), lemma.is_nested(pats, 3, 3)
    )
    assert lemma.is_nested(pats, 3, 3).sum() == 230


def test_pattern_class_examples():
    n, C = 2, 3
    assert lemma.pattern_class(np.zeros(6), n, C) == "constant"
    assert lemma.pattern_class([1, 1, 0, 0, 1, 1], n, C) == "context-only"
    assert lemma.pattern_class([1, 0, 1, 0, 1, 0], n, C) == "item-only"
    assert lemma.pattern_class([1, 0, 0, 0, 0, 0], n, C) == "both"


weights = st.integers(2, 5).flatmap(
    lambda n: st.integers(2, 4).flatmap(
        lambda C: st.tuples(
            arrays(float, n, elements=st.floats(-3, 3, allow_nan=False)),
            arrays(float, C, elements=st.floats(-3, 3, allow_nan=False)),
        )
    )
)


@FAST
@given(weights)
def test_any_unit_gives_a_nested_lp_feasible_pattern(w):
    """Property: whatever the weights, a unit's pattern is nested, the LP finds it and
    the
    witness reproduces it."""
    a, b = w
    n, C = a.size, b.size
    pattern = (np.add.outer(b, a) > 0).reshape(-1).astype(int)  # context-major
    assert lemma.is_nested(pattern, n, C)
    assert lemma.unit_pattern_lp(lemma.item_context_input(n, C), pattern)["feasible"]
    wit = lemma.nested_witness(pattern, n, C)
    np.testing.assert_array_equal(
        (np.add.outer(wit[n:], wit[:n]) > 0).reshape(-1), pattern.astype(bool)
    )


@FAST
@given(arrays(bool, 9))
def test_lp_and_certificate_are_alternatives(pattern):
    """Property (3 items x 3 contexts): implementable iff nested; otherwise a valid
    certificate."""
    X = lemma.item_context_input(3, 3)
    feasible = lemma.unit_pattern_lp(X, pattern.astype(int))["feasible"]
    assert feasible == lemma.is_nested(pattern, 3, 3)
    cert = lemma.farkas_certificate(X, pattern.astype(int))
    assert (cert is None) == feasible
    if cert is not None:
        lam, mu = cert
        np.testing.assert_allclose(X[:, pattern] @ lam, X[:, ~pattern] @ mu, atol=1e-8)
        assert (
            lam.sum() == pytest.approx(1.0)
            and lam.min() >= -1e-12
            and mu.min() >= -1e-12
        )


def test_lemma_errors():
    X = lemma.item_context_input(2, 2)
    with pytest.raises(ValueError, match="one 0/1 entry per datapoint"):
        lemma.unit_pattern_lp(X, [1, 0, 1])
    with pytest.raises(ValueError, match="0 \\(off\\) and 1 \\(on\\)"):
        lemma.unit_pattern_lp(X, [1, 0, 2, 0])
    with pytest.raises(ValueError, match="brute force"):
        lemma.enumerate_patterns(8, 4)
    with pytest.raises(ValueError, match="not nested"):
        lemma.nested_witness([1, 0, 0, 1], 2, 2)
    with pytest.raises(ValueError, match="n_items >= 1"):
        lemma.count_nested(0, 3)


# --------------------------------------------------------------------- Proposition 4.2


def test_thompson_bounds_example():
    A = np.diag([3.0, 2.0, 1.0])
    sA, sB, upper, lower = interlacing.thompson_bounds(
        A, [1, 2], [0, 1, 2]
    )  # delete row 0
    np.testing.assert_allclose(sB, [2.0, 1.0])
    np.testing.assert_allclose(upper, [3.0, 2.0])
    np.testing.assert_allclose(lower, [2.0, 1.0])  # sigma_{k+1}(A): tight here
    assert interlacing.interlacing_gaps(A, [1, 2], [0, 1, 2])["violations"] == 0
    with pytest.raises(ValueError, match="at least one row"):
        interlacing.thompson_bounds(A, [], [0])
    with pytest.raises(ValueError, match="inside A's shape"):
        interlacing.thompson_bounds(A, [0, 5], [0])


matrices = st.tuples(st.integers(1, 8), st.integers(1, 8)).flatmap(
    lambda mn: st.tuples(
        arrays(float, mn, elements=st.floats(-10, 10, allow_nan=False, width=32)),
        arrays(bool, mn[0]),
        arrays(bool, mn[1]),
    )
)


@MEDIUM
@given(matrices)
def test_interlacing_property(case):
    """Property: Thompson's inequalities hold for every submatrix (Appendix E)."""
    A, rmask, cmask = case
    rows = np.flatnonzero(rmask) if rmask.any() else np.array([0])
    cols = np.flatnonzero(cmask) if cmask.any() else np.array([0])
    res = interlacing.interlacing_gaps(A, rows, cols, rtol=1e-9)
    assert res["violations"] == 0
    assert res["top_ratio"] <= 1 + 1e-9


datasets = st.tuples(st.integers(1, 6), st.integers(2, 8), st.integers(1, 5)).flatmap(
    lambda s: st.tuples(
        arrays(
            float, (s[0], s[1]), elements=st.floats(0, 5, allow_nan=False, width=32)
        ),
        arrays(
            float, (s[2], s[1]), elements=st.floats(0, 5, allow_nan=False, width=32)
        ),
    )
)


@MEDIUM
@given(datasets)
def test_deleting_a_nonnegative_datapoint_never_raises_the_top(data):
    """Property: for non-negative data, deleting a datapoint lowers (or keeps) both
    lambda_max(X X^T) and sigma_1(Y X^T) (Appendix E's orthant argument)."""
    X, Y = data
    e = interlacing.deletion_effects(X, Y)
    assert np.all(e["d_eig"] >= -1e-9 * max(e["lambda_max"], 1e-12))
    assert np.all(e["d_sv"] >= -1e-9 * max(e["sigma_1"], 1e-12))


@FAST
@given(arrays(float, (4, 6), elements=st.floats(-5, 5, allow_nan=False, width=32)))
def test_top_eigenvalue_never_rises_for_signed_data_either(X):
    """Property: x x^T is PSD, so lambda_max(Sigma_x) needs no sign condition."""
    e = interlacing.deletion_effects(X, np.ones((1, X.shape[1])))
    assert np.all(e["d_eig"] >= -1e-9 * max(e["lambda_max"], 1e-12))


def test_signed_targets_can_raise_sigma_1():
    """The control: with a negative target, deleting a datapoint raises
    sigma_1(Sigma_yx)."""
    e = interlacing.deletion_effects(np.array([[1.0, 1.0]]), np.array([[1.0, -0.5]]))
    assert e["d_sv"][1] == pytest.approx(0.5 - 1.0)
    signed = interlacing.random_deletion_cases(40, 0, signed=True)
    assert np.sum(signed["d_sv"] < -1e-10) > 0
    assert np.all(signed["d_eig"] >= -1e-10)


def test_orthogonal_edge_case():
    base = np.array([[1.0, 1.0], [1.0, 1.0], [0.0, 0.0]])
    small = interlacing.deletion_effects(
        np.column_stack([base, [0, 0, 1.0]]), np.ones((1, 3))
    )
    large = interlacing.deletion_effects(
        np.column_stack([base, [0, 0, 3.0]]), np.ones((1, 3))
    )
    assert small["d_eig"][2] == pytest.approx(
        0.0, abs=1e-12
    )  # unchanged: the edge case
    assert large["d_eig"][2] == pytest.approx(
        9.0 - 4.0
    )  # orthogonal, but it raises the top


def test_task_deletions_strictly_lower_the_top():
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    e = interlacing.deletion_effects(ds.X, ds.Y)
    assert e["lambda_max"] == pytest.approx(11.0)
    assert e["d_eig"].min() > 0.3 and e["d_sv"].min() > 0.5 and e["overlap"].min() > 0.4


def test_random_and_task_interlacing_cases():
    cases = interlacing.random_interlacing_cases(200, 1)
    assert len(cases) == 200 and sum(c["violations"] for c in cases) == 0
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    task = interlacing.task_interlacing_cases(ds, 3, 0)
    assert {c["matrix"] for c in task} == {
        "common",
        "ctx1",
        "ctx2",
        "ctx3",
        "ctx12",
        "ctx13",
        "ctx23",
    }
    assert sum(c["violations"] for c in task) == 0
    drop = [c for c in task if c["deletion"] == "context inputs"][0]
    assert 0.4 < drop["top_ratio"] < 0.6


def test_best_linear_loss_and_context_time():
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    assert race.best_linear_loss(ds.X, ds.Y) == pytest.approx(16.5084333, rel=1e-6)
    assert race.best_linear_loss(h.hierarchy4().X, h.hierarchy4().Y) == pytest.approx(
        0.0, abs=1e-12
    )
    L = np.array([10.0, 8.0, 4.0, 1.0])
    assert race.context_learning_time(L, 8.0) == 2.0
    assert race.context_learning_time(L, 1.0) == float("inf")
    with pytest.raises(ValueError, match="fraction"):
        race.context_learning_time(L, 8.0, fraction=1.5)


def test_residual_datasets_of_the_two_strategies_agree():
    """After the common pathway, 2-of-3 off in j sees minus what 1-of-3 on j sees
    ([conv-contextual])."""
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    R = ds.Y - ds.Y @ np.linalg.pinv(ds.X) @ ds.X
    for j in range(3):
        s1, _ = h.effective_dataset(ds.X, R, h.context_gate(ds, [j]), inputs=range(8))
        s2, _ = h.effective_dataset(
            ds.X,
            R,
            h.context_gate(ds, [c for c in range(3) if c != j]),
            inputs=range(8),
        )
        np.testing.assert_allclose(s1, -s2, atol=1e-12)


# What the page computes with the module (moved off the page)


def test_uniform_nested_and_the_witness():
    rng = np.random.default_rng(0)
    g = lemma.uniform_nested(rng, 20, 8, 3)
    assert g.shape == (20, 24) and lemma.is_nested(g, 8, 3).all()
    assert lemma.witness_reproduces(g, 8, 3)
    bad = np.zeros(24, int)
    bad[[0, 9]] = 1  # (o0, c1) and (o1, c2) on: the combined pattern
    with pytest.raises(ValueError, match="not nested"):
        lemma.witness_reproduces(bad, 8, 3)


def test_edge_cases_and_strategy_datasets():
    edge = interlacing.edge_cases()
    lam = {k: (v[2], v[3]) for k, v in edge.items()}
    assert lam["orthogonal to all, small: (0, 0, 1)"] == pytest.approx((4.0, 4.0))
    assert lam["orthogonal to all, large: (0, 0, 3)"] == pytest.approx((4.0, 9.0))
    _, gap = race.strategy_datasets(
        h.contextual_task(3, ["hierarchy", "ring", "cross"])
    )
    assert gap < 1e-9


def test_crossing_interpolates_the_log_ratio():
    times = {
        (0.5, "linear", 0): 4.0,
        (0.5, "xor", 0): 2.0,
        (1.0, "linear", 0): 2.0,
        (1.0, "xor", 0): 4.0,
    }
    assert xor.crossing(times, [0.5, 1.0], 0) == pytest.approx(0.75)
    times[1.0, "linear", 0] = 5.0
    assert np.isnan(xor.crossing(times, [0.5, 1.0], 0))
