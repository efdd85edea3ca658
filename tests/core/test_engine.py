"""The training engine: equivalences that hold by construction, and bad input."""

import numpy as np
import pytest

import helpers as h


def _final_weights(net, ds, *, lr, epochs, params0):
    """Train ``net`` on ``ds`` from ``params0``, recording the weights of the last
    epoch only.

    Args:
        net: the network.
        ds: the dataset (``ds.X``, ``ds.Y``).
        lr, epochs: as :func:`helpers.train`.
        params0: the initial weights.

    Returns:
        The :class:`helpers.core.engine.Run`.
    """
    return h.train(
        net,
        ds.X,
        ds.Y,
        lr=lr,
        epochs=epochs,
        params0=params0,
        record_epochs=[epochs],
        record=("weights",),
    )


def test_gdln_with_one_always_on_pathway_is_a_linear_network():
    ds = h.hierarchy4()
    lin = h.linear_network((4, 12, 7), 1e-2)
    g = h.gdln(4, 7, 4, [h.Pathway("all", 12, None, init_std=(1e-2, 1e-2))])
    params0 = h.init_params(lin, 3)
    r1 = _final_weights(lin, ds, lr=0.02, epochs=400, params0=params0)
    r2 = _final_weights(g, ds, lr=0.02, epochs=400, params0=params0)

    # the same network, compiled as two programs: XLA may order float32 sums
    # differently (on some CPUs a few ulps apart), never more: every epoch's loss
    # above 1 % of its initial value within 16 ulps of float32 (below it the loss's
    # relative rounding grows as it falls: 3.8e-4 at a loss of 4e-8 on an AMD EPYC,
    # 1.0e-6 above 1 %), every weight within 1e-5 of the largest weight of its matrix
    def close(a, b):
        high = a.loss > 1e-2 * a.loss[:, :1]
        gap = np.abs(a.loss - b.loss)[high]
        loss = np.all(gap <= 2e-6 * np.abs(a.loss[high]))
        weights = all(
            np.max(np.abs(x - y)) <= 1e-5 * np.max(np.abs(x))
            for x, y in zip(a.records["weights"], b.records["weights"])
        )
        return loss and weights

    assert close(r1, r2)
    # negative controls: a step size 0.5 % off is told apart, and so is one 1e-6
    # off, which an absolute slack of 1e-6 on the loss let pass (the loss is below
    # 0.1 for 195 of the 401 epochs); above 1 % of the initial loss it moves the
    # loss by up to 1.3e-5 relative
    for off in (5e-3, 1e-6):
        r3 = _final_weights(lin, ds, lr=0.02 * (1 + off), epochs=400, params0=params0)
        assert not close(r1, r3), off


def test_reln_from_relu_gating_reproduces_relu_output():
    """Definition 3.1 by construction: a GDLN given the ReLU network's own gating
    pattern
    has the ReLU network's output (and the same gradient step)."""
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    relu = h.relu_network((11, 50, 60), 0.05)
    kept = dict(record_epochs=[0, 150, 300], record=("weights", "outputs", "gates"))
    run = h.train(relu, ds.X, ds.Y, lr=1e-3, epochs=300, seeds=[0, 1], **kept)
    for s in range(2):
        for e in (150, 300):
            W = run.weights_at(e, s)
            gates = run.records["gates"][0][s, run.index(e)]
            pws = [
                h.Pathway(f"unit{j}", 1, gates[j].astype(float))
                for j in range(50)
                if gates[j].any()
            ]
            keep = [j for j in range(50) if gates[j].any()]
            reln = h.gdln(11, 60, 24, pws)
            params = [W[0][keep], W[1][:, keep]]
            out, _, _ = h.forward(reln, params, ds.X)
            np.testing.assert_allclose(
                out, run.records["outputs"][s, run.index(e)], rtol=1e-5, atol=1e-6
            )
            # one gradient step from these weights moves both networks' weights
            # identically (units never active get no gradient in either)
            r_relu = _final_weights(relu, ds, lr=1e-3, epochs=1, params0=[W[0], W[1]])
            r_reln = _final_weights(reln, ds, lr=1e-3, epochs=1, params0=params)
            np.testing.assert_allclose(
                r_reln.records["weights"][0][0, 0],
                r_relu.records["weights"][0][0, 0][keep],
                rtol=1e-5,
                atol=1e-8,
            )
            np.testing.assert_allclose(
                r_reln.records["weights"][1][0, 0],
                r_relu.records["weights"][1][0, 0][:, keep],
                rtol=1e-5,
                atol=1e-8,
            )


def test_seeds_are_deterministic_and_distinct():
    ds = h.hierarchy4()
    net = h.relu_network((4, 8, 7), 0.1)
    a = h.train(net, ds.X, ds.Y, lr=0.01, epochs=50, seeds=[0, 1])
    b = h.train(net, ds.X, ds.Y, lr=0.01, epochs=50, seeds=[1])
    np.testing.assert_array_equal(a.loss[1], b.loss[0])
    assert not np.array_equal(a.loss[0], a.loss[1])


def test_switch_on_epoch_freezes_a_pathway():
    ds = h.hierarchy4()
    net = h.gdln(
        4, 7, 4, [h.Pathway("late", 8, None, init_std=(0.1, 0.1), on_epoch=30)]
    )
    kept = dict(record_epochs=[0, 30, 60], record=("weights",))
    run = h.train(net, ds.X, ds.Y, lr=0.01, epochs=60, **kept)
    W = run.records["weights"][0][0]
    np.testing.assert_array_equal(W[0], W[1])  # nothing learns before epoch 30
    assert not np.array_equal(W[1], W[2])
    assert np.allclose(run.loss[0, :30], 0.5 * np.sum(ds.Y**2))  # output is gated off


def test_one_way_coupling_matches_definition():
    """One-way coupling: the common pathway ignores the context pathways
    ([conv-context-reln])."""
    ds = h.contextual_task(3)
    full = h.context_reln(ds, "mixed", coupling="full")
    oneway = h.context_reln(ds, "mixed", coupling="one-way")
    common_only = h.context_reln(ds, "common", coupling="full")
    p0 = h.init_params(oneway, 0)
    sl = oneway.pathway_slice("common")
    r_ow = _final_weights(oneway, ds, lr=1e-3, epochs=2000, params0=p0)
    r_c = _final_weights(
        common_only, ds, lr=1e-3, epochs=2000, params0=[p0[0][sl], p0[1][:, sl]]
    )
    W_ow, W_c = r_ow.records["weights"][0][0, 0, sl], r_c.records["weights"][0][0, 0]
    # float32 products of different shapes round differently (by machine): compare at
    # 1e-4 of the weights' scale; the fully coupled network differs by far more
    scale = np.abs(W_c).max()
    np.testing.assert_allclose(W_ow, W_c, rtol=1e-4, atol=1e-4 * scale)
    r_full = _final_weights(full, ds, lr=1e-3, epochs=2000, params0=p0)
    assert (
        np.abs(r_full.records["weights"][0][0, 0, sl] - W_c).max() > 100 * 1e-4 * scale
    )
    assert not np.allclose(r_full.loss, r_ow.loss)


def test_records_shapes():
    ds = h.xor(0.5)
    net = h.relu_network((3, 16, 1), 0.1)
    run = h.train(
        net,
        ds.X,
        ds.Y,
        lr=0.01,
        epochs=20,
        seeds=range(3),
        record_epochs=[0, 10, 20],
        record=("weights", "outputs", "hidden", "gates"),
    )
    assert run.loss.shape == (3, 21)
    assert run.records["outputs"].shape == (3, 3, 1, 4)
    assert run.records["hidden"][0].shape == (3, 3, 16, 4)
    assert run.records["gates"][0].dtype == bool
    assert [w.shape for w in run.records["weights"]] == [(3, 3, 16, 3), (3, 3, 1, 16)]
    # the recorded hidden activity is the ReLU of the pre-activation
    W = run.weights_at(10, 2)
    np.testing.assert_allclose(
        run.records["hidden"][0][2, 1], np.maximum(W[0] @ ds.X, 0), rtol=1e-5, atol=1e-7
    )


# ---- bad input
# ---------------------------------------------------------------------------


def test_shape_mismatch_raises():
    ds = h.hierarchy4()
    net = h.linear_network((4, 8, 7), 0.1)
    with pytest.raises(ValueError, match="datapoints"):
        h.train(net, ds.X, ds.Y[:, :3], lr=0.01, epochs=10)
    with pytest.raises(ValueError, match="maps 4 inputs"):
        h.train(net, ds.X[:3], ds.Y, lr=0.01, epochs=10)
    with pytest.raises(ValueError, match="shapes"):
        h.train(
            net,
            ds.X,
            ds.Y,
            lr=0.01,
            epochs=10,
            params0=[np.zeros((8, 3)), np.zeros((7, 8))],
        )


def test_bad_gates_raise():
    with pytest.raises(ValueError, match="0/1"):
        h.gdln(4, 7, 4, [h.Pathway("p", 4, np.array([1, 0.5, 0, 1]))])
    with pytest.raises(ValueError, match="off for every datapoint"):
        h.gdln(4, 7, 4, [h.Pathway("p", 4, np.zeros(4))])
    with pytest.raises(ValueError, match="one entry per datapoint"):
        h.gdln(4, 7, 4, [h.Pathway("p", 4, np.ones(5))])
    net = h.gdln(4, 7, 4, [h.Pathway("p", 4, None)])
    ds = h.contextual_task(3)
    with pytest.raises(ValueError, match="gates are defined on 4 datapoints"):
        h.train(
            h.gdln(11, 60, 4, [h.Pathway("p", 4, None)]), ds.X, ds.Y, lr=0.01, epochs=5
        )
    with pytest.raises(ValueError, match="unique"):
        h.gdln(4, 7, 4, [h.Pathway("p", 4), h.Pathway("p", 4)])
    assert net.P == 4


@pytest.mark.parametrize("lr", [0, -1e-3, float("nan"), "0.1"])
def test_bad_lr_raises(lr):
    ds = h.hierarchy4()
    with pytest.raises(ValueError, match="lr"):
        h.train(h.linear_network((4, 8, 7), 0.1), ds.X, ds.Y, lr=lr, epochs=10)


@pytest.mark.parametrize("epochs", [0, -5, 2.5, True])
def test_bad_epochs_raise(epochs):
    ds = h.hierarchy4()
    with pytest.raises(ValueError, match="epochs"):
        h.train(h.linear_network((4, 8, 7), 0.1), ds.X, ds.Y, lr=0.01, epochs=epochs)


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"record_epochs": [11]}, "record_epochs"),
        ({"record": ("grads",)}, "cannot record"),
    ],
)
def test_bad_recording_raises(kw, match):
    """An epoch past the last one, or a quantity the engine does not record."""
    ds = h.hierarchy4()
    with pytest.raises(ValueError, match=match):
        h.train(h.linear_network((4, 8, 7), 0.1), ds.X, ds.Y, lr=0.01, epochs=10, **kw)


def test_divergence_names_the_epoch():
    ds = h.hierarchy4()
    with pytest.raises(h.TrainingDiverged, match=r"at epoch \d+ for seed 0"):
        h.train(h.linear_network((4, 8, 7), 1.0), ds.X, ds.Y, lr=5.0, epochs=200)


def test_nonfinite_data_raises():
    X = np.eye(4)
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        h.train(
            h.linear_network((4, 8, 7), 0.1), X, h.hierarchy4().Y, lr=0.01, epochs=10
        )


def test_recorded_epochs_off_the_grid_are_the_same_states():
    # epochs 1, 101, 201 are recorded in segments of 100 after one step
    # (engine.segments); they must be the states a denser recording sees at the same
    # epochs
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    net = h.relu_network((11, 30, 60), 0.01)
    kw = dict(lr=1e-3, epochs=250, seeds=[0, 1], record=("weights", "outputs"))
    sparse, dense = (
        h.train(net, ds.X, ds.Y, record_epochs=at, **kw)
        for at in ([1, 101, 201], range(0, 251))
    )
    np.testing.assert_array_equal(sparse.loss, dense.loss)
    for e in (1, 101, 201):
        np.testing.assert_allclose(
            sparse.records["outputs"][:, sparse.index(e)],
            dense.records["outputs"][:, dense.index(e)],
            rtol=1e-6,
        )
    assert h.engine.segments(8001, np.arange(1, 8002, 100)) == (100, 1, 80, 1)
