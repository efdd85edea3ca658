"""Dataset matrices against hand-written expected values ([conv-datasets])."""

import numpy as np
import pytest

import helpers as h


def test_hierarchy4_matrices():
    ds = h.hierarchy4()
    assert ds.X.shape == (4, 4) and ds.Y.shape == (7, 4)
    np.testing.assert_array_equal(ds.X, np.eye(4))
    np.testing.assert_array_equal(ds.Y[0], [1, 1, 1, 1])  # grow
    np.testing.assert_array_equal(ds.Y[1], [1, 1, 0, 0])  # move
    np.testing.assert_array_equal(ds.Y[:, 3], [1, 0, 1, 0, 0, 0, 1])  # rose
    assert np.linalg.matrix_rank(ds.Y) == 4
    # singular values of Sigma_yx = Y: sqrt(7), sqrt(3), 1, 1
    np.testing.assert_allclose(
        h.modes(ds.X, ds.Y).s, [np.sqrt(7), np.sqrt(3), 1, 1], atol=1e-12
    )


def test_xor_matrices():
    ds = h.xor(0.5)
    np.testing.assert_array_equal(
        ds.X, [[1, 1, -1, -1], [1, -1, 1, -1], [0.5, -0.5, -0.5, 0.5]]
    )
    np.testing.assert_array_equal(ds.Y, [[1, -1, -1, 1]])
    assert np.linalg.matrix_rank(h.xor(0.0).X) == 2
    assert np.linalg.matrix_rank(ds.X) == 3
    with pytest.raises(ValueError, match="eps"):
        h.xor(-1)


def test_structures():
    H, R, K = (h.structure(n) for n in ("hierarchy", "ring", "cross"))
    for M in (H, R, K):
        assert M.shape == (15, 8)
        np.testing.assert_array_equal(M[0], np.ones(8))
    np.testing.assert_array_equal(H[1], [1, 1, 1, 1, 0, 0, 0, 0])
    np.testing.assert_array_equal(H[3], [1, 1, 0, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(H[7:], np.eye(8))
    np.testing.assert_array_equal(K[3], [1, 0, 1, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(K[6], [0, 0, 0, 0, 0, 1, 0, 1])
    np.testing.assert_allclose(R[1], [0, 0.33, 0.66, 1, 1, 0.66, 0.33, 0])
    np.testing.assert_allclose(R[2], [0.33, 0.66, 1, 1, 0.66, 0.33, 0, 0])
    np.testing.assert_array_equal(R[9:], R[1:7])
    assert np.linalg.matrix_rank(H) == 8
    with pytest.raises(ValueError, match="unknown structure"):
        h.structure("tree")


@pytest.mark.parametrize("C", [3, 4, 5])
def test_contextual_task_shapes(C):
    ds = h.contextual_task(C)
    assert ds.X.shape == (8 + C, 8 * C)
    assert ds.Y.shape == (15 * (C + 1), 8 * C)
    # context-major columns; context one-hot rows
    np.testing.assert_array_equal(ds.contexts, np.repeat(np.arange(C), 8))
    np.testing.assert_array_equal(ds.X[8 + 1], np.repeat(np.eye(C)[1], 8))
    # common block = H under every context, block k only on context k
    H = h.structure("hierarchy")
    np.testing.assert_array_equal(ds.Y[:15], np.tile(H, (1, C)))
    blk = ds.Y[15 * 2 : 15 * 3]  # block of context 2 (index 1)
    np.testing.assert_array_equal(blk[:, 8:16], H)
    assert blk[:, :8].sum() == 0 and blk[:, 16:].sum() == 0
    assert (
        np.linalg.matrix_rank(ds.X) == 8 + C - 1
    )  # item and context one-hots share the all-ones vector


def test_section4_task_blocks():
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    np.testing.assert_allclose(ds.Y[30:45, 8:16], h.structure("ring"))
    np.testing.assert_array_equal(ds.Y[45:60, 16:24], h.structure("cross"))
    assert ds.Y.shape == (60, 24) and ds.X.shape == (11, 24)
    np.testing.assert_allclose(0.5 * np.sum(ds.Y**2), 105.623, atol=1e-9)


def test_effective_dataset_gate():
    ds = h.contextual_task(3)
    g = h.context_gate(ds, [0, 1])
    syx, sx = h.effective_dataset(ds.X, ds.Y, g)
    np.testing.assert_allclose(syx, ds.Y[:, :16] @ ds.X[:, :16].T)
    np.testing.assert_allclose(sx, ds.X[:, :16] @ ds.X[:, :16].T)
    g2 = h.context_gate(ds, [1, 2])
    _, sx12 = h.effective_dataset(ds.X, ds.Y, g, gate_q=g2)
    np.testing.assert_allclose(sx12, ds.X[:, 8:16] @ ds.X[:, 8:16].T)
    with pytest.raises(ValueError, match="0/1"):
        h.effective_dataset(ds.X, ds.Y, g * 0.5)


def test_contextual_task_context_value_scales_only_the_context_rows():
    one = h.contextual_task(4)
    scaled = h.contextual_task(4, context_value=1.1)
    np.testing.assert_array_equal(scaled.X[:8], one.X[:8])
    np.testing.assert_allclose(scaled.X[8:], 1.1 * one.X[8:])
    np.testing.assert_array_equal(scaled.Y, one.Y)
    assert one.name == h.contextual_task(4, context_value=1.0).name


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan")])
def test_contextual_task_refuses_a_bad_context_value(bad):
    with pytest.raises(ValueError, match="context_value"):
        h.contextual_task(3, context_value=bad)
