"""The mini-batch trainer (helpers.core.minibatch): SGD and Adam for a bias-free ReLU
network, on the engine's devices and recording scheme."""

import numpy as np
import pytest

import helpers as h
from helpers.core import minibatch
from tests.conftest import run_on_two_cpu_devices


@pytest.fixture(scope="module")
def hrk():
    return h.contextual_task(3, ["hierarchy", "ring", "cross"])


@pytest.fixture(scope="module")
def small(hrk):
    net = h.relu_network((11, 32, 60), 0.05)
    p0 = minibatch.stack_params([h.init_params(net, s) for s in (0, 1)])
    return net, p0


def test_full_batch_sgd_is_the_engines_gradient_descent(hrk, small):
    """batch = P: one update per epoch on the summed loss, exactly the engine's GD."""
    net, p0 = small
    kw = dict(lr=0.01, epochs=300, seeds=[0, 1], record_epochs=[0, 150, 300])
    run = h.train(net, hrk.X, hrk.Y, params0=p0, record=("weights",), **kw)
    mb = minibatch.minibatch_train(hrk.X, hrk.Y, p0, batch=hrk.P, **kw)
    assert mb.loss.shape == run.loss.shape == (2, 301)
    np.testing.assert_allclose(mb.loss, run.loss, rtol=1e-4)
    assert run.loss[0, -1] < 0.5 * run.loss[0, 0]  # it did learn something
    for a, b in zip(mb.weights, run.records["weights"]):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, atol=1e-5)


def test_one_epoch_of_small_batches_moves_like_one_gradient_step(hrk, small):
    """Each datapoint's gradient enters once per epoch with step lr: to first order in
    lr
    an epoch of SGD is one GD step, and the loss falls alike."""
    _, p0 = small
    kw = dict(lr=1e-4, epochs=300, seeds=[0, 1], record_epochs=[0, 150, 300])
    gd = minibatch.minibatch_train(hrk.X, hrk.Y, p0, batch=24, **kw)
    sgd = minibatch.minibatch_train(hrk.X, hrk.Y, p0, batch=8, **kw)
    drop_gd = gd.loss[:, 0] - gd.loss[:, 1]
    drop_sgd = sgd.loss[:, 0] - sgd.loss[:, 1]
    assert np.all(drop_gd > 0)
    np.testing.assert_allclose(drop_sgd, drop_gd, rtol=0.02)
    np.testing.assert_allclose(sgd.loss[:, -1], gd.loss[:, -1], rtol=0.05)


def test_adams_first_update_moves_every_weight_by_its_step(hrk, small):
    _, p0 = small
    lr = 1e-3
    mb = minibatch.minibatch_train(
        hrk.X,
        hrk.Y,
        p0,
        lr=lr,
        epochs=1,
        batch=24,
        seeds=[0, 1],
        optimiser="adam",
        record_epochs=[0, 1],
    )
    W1, W2 = mb.weights
    step = np.abs(W2[:, 1] - W2[:, 0])
    assert np.all(step <= lr * (1 + 1e-5))
    # bias-corrected first step: |m / sqrt(v)| = |g| / (|g| + eps), i.e. lr where |g| >>
    # eps
    assert np.mean(np.abs(step - lr) < 1e-3 * lr) > 0.9


def test_batch_orders_are_seeded_permutations():
    o = minibatch.batch_orders([3, 4], epochs=5, P=24, batch=4)
    assert o.shape == (2, 6, 24)
    for row in o.reshape(-1, 24):
        assert sorted(row) == list(range(24))
    np.testing.assert_array_equal(o, minibatch.batch_orders([3, 4], 5, 24, 4))
    assert not np.array_equal(o[0], o[1])
    full = minibatch.batch_orders([3], 5, 24, 24)
    assert np.all(full == np.arange(24))


def test_minibatch_train_refuses_bad_inputs(hrk, small):
    _, p0 = small
    with pytest.raises(ValueError, match="batch must divide"):
        minibatch.minibatch_train(
            hrk.X, hrk.Y, p0, lr=0.01, epochs=2, batch=5, seeds=[0, 1]
        )
    with pytest.raises(ValueError, match="optimiser"):
        minibatch.minibatch_train(
            hrk.X,
            hrk.Y,
            p0,
            lr=0.01,
            epochs=2,
            batch=8,
            seeds=[0, 1],
            optimiser="rmsprop",
        )
    with pytest.raises(ValueError, match="params0"):
        minibatch.minibatch_train(
            hrk.X, hrk.Y, p0, lr=0.01, epochs=2, batch=8, seeds=[0]
        )


def test_weights_recorded_off_the_grid_are_the_same_states(hrk, small):
    """Epochs 5 and 15 are recorded after an offset of 5 epochs (the engine's segments,
    :func:`helpers.core.engine.segments`): the same weights as a dense recording."""
    _, p0 = small
    kw = dict(lr=0.01, epochs=30, batch=6, seeds=[0, 1])
    sparse = minibatch.minibatch_train(hrk.X, hrk.Y, p0, record_epochs=[5, 15], **kw)
    dense = minibatch.minibatch_train(hrk.X, hrk.Y, p0, record_epochs=range(31), **kw)
    np.testing.assert_array_equal(sparse.loss, dense.loss)
    for a, b in zip(sparse.weights, dense.weights):
        np.testing.assert_array_equal(a, b[:, [5, 15]])


def test_the_chapter_calls_the_core_trainer():
    from helpers.chapters import reviewers as rv

    for name in ("minibatch_train", "batch_orders", "stack_params", "MinibatchRun"):
        assert getattr(rv, name) is getattr(minibatch, name)


SCRIPT = """
import json, numpy as np, jax, helpers as h
from helpers.core import minibatch
ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
net = h.relu_network((11, 32, 60), 0.05)
p0 = minibatch.stack_params([h.init_params(net, s) for s in (0, 1, 2)])
res = {"devices": len(jax.devices())}
for opt, batch in (("sgd", 8), ("adam", 24)):
    kw = dict(lr=1e-3, epochs=60, batch=batch, seeds=[0, 1, 2], optimiser=opt,
              record_epochs=[0, 30, 60])
    one = minibatch.minibatch_train(ds.X, ds.Y, p0, devices=1, **kw)
    two = minibatch.minibatch_train(ds.X, ds.Y, p0, devices=2, **kw)
    res[opt] = bool(np.array_equal(one.loss, two.loss)) and all(
        np.array_equal(a, b) for a, b in zip(one.weights, two.weights))
print(json.dumps(res))
"""


def test_the_sharded_path_on_two_cpu_devices_gives_the_single_device_losses():
    """Three seeds on two CPU devices (one padded share): every seed's losses and
    weights are those of one device."""
    res = run_on_two_cpu_devices(SCRIPT)
    assert res == {"devices": 2, "sgd": True, "adam": True}
