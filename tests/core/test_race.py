"""The race-reduction predictor ([conv-race]) against simulated GDLNs and Eq. 7."""

import numpy as np
import pytest

import helpers as h
from helpers.core.measures import curve_distance


def test_single_pathway_prediction_is_the_closed_form():
    """One always-on pathway on a mutually diagonalizable dataset: the matrix race ODE
    started aligned is Eq. 7 (up to the Euler step)."""
    ds = h.hierarchy4()
    net = h.gdln(4, 7, 4, [h.Pathway("all", 16, None, init_std=(1e-3, 1e-3))])
    pred = h.race.predict(net, ds.X, ds.Y, lr=0.005, epochs=3000)
    a0 = h.initial_mode_strength(16, 1e-3, 1e-3)
    cf = h.closed_form_loss(np.arange(3001), ds.X, ds.Y, a0, 0.005)
    assert curve_distance(pred.loss, cf) < 0.02


@pytest.mark.slow  # about 70 s on 2 cores: the unit subset stays within 2 minutes
def test_prediction_tracks_simulated_reln_on_contexts():
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    net = h.context_reln(ds, "mixed", coupling="one-way")
    sim = h.train(net, ds.X, ds.Y, lr=1e-3, epochs=4000, seeds=[0])
    pred = h.race.predict(net, ds.X, ds.Y, lr=1e-3, epochs=4000, record_epochs=[4000])
    assert curve_distance(sim.loss[0], pred.loss) < 0.05
    assert set(pred.maps) == {"common", "ctx12", "ctx13", "ctx23"}
    assert pred.singular_values("common").shape[0] == 1


def test_predict_rejects_relu_networks():
    with pytest.raises(ValueError, match="fixed gates"):
        h.race.predict(
            h.relu_network((4, 8, 7), 0.1),
            np.eye(4),
            h.hierarchy4().Y,
            lr=0.01,
            epochs=10,
        )


def test_the_factor_form_is_the_same_flow_as_the_matrix_form():
    """Both forms start aligned and follow Eq. 5; their Euler steps differ by
    lr^2 E W^T E, so on the Section 4 task the two losses nearly coincide."""
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    net = h.context_reln(ds, "mixed", coupling="one-way")
    kw = dict(lr=1e-3, epochs=3000, record_epochs=[3000])
    mat = h.race.predict(net, ds.X, ds.Y, **kw)
    fac = h.race.predict(net, ds.X, ds.Y, form="factors", **kw)
    assert curve_distance(mat.loss, fac.loss) < 0.01
    for name in mat.names:
        np.testing.assert_allclose(
            np.linalg.norm(fac.maps[name][-1]),
            np.linalg.norm(mat.maps[name][-1]),
            rtol=0.02,
            atol=1e-4,
        )


def test_the_factor_form_takes_gates_that_differ_at_every_datapoint():
    """The factor form sums the output per group of datapoints with equal gates; with
    one group per datapoint it still tracks the matrix form."""
    ds = h.hierarchy4()
    gates = [np.array(g, float) for g in ([1, 0, 1, 0], [1, 1, 0, 0], [0, 1, 1, 1])]
    net = h.gdln(
        4,
        7,
        4,
        [h.Pathway(f"g{i}", 8, g, init_std=(1e-3, 1e-3)) for i, g in enumerate(gates)],
    )
    mat = h.race.predict(net, ds.X, ds.Y, lr=0.005, epochs=2000)
    fac = h.race.predict(net, ds.X, ds.Y, lr=0.005, epochs=2000, form="factors")
    assert curve_distance(mat.loss, fac.loss) < 0.01


def test_an_unknown_form_is_refused_before_any_work():
    ds = h.hierarchy4()
    net = h.gdln(4, 7, 4, [h.Pathway("all", 16, None, init_std=(1e-3, 1e-3))])
    with pytest.raises(ValueError, match="form must be 'matrix' or 'factors'"):
        h.race.predict(net, ds.X, ds.Y, lr=0.005, epochs=10, form="svd")
