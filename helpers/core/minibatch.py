"""Mini-batch SGD and Adam for a bias-free one-hidden-layer ReLU network (reviewers'
page), with the engine's devices and segment recording ([conv-engine])."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from . import devices as devices_
from .checks import (
    TrainingDiverged,
    check_epochs,
    check_positive,
    check_positive_int,
    check_seeds,
    check_xy,
)
from .engine import UNROLL, record_slots, segments

OPTIMISERS = ("sgd", "adam")
#: Updates unrolled per iteration of the scan over an epoch's batches (True: all).
UNROLL_BATCHES = True


@dataclass
class MinibatchRun:
    """Full-data summed ``loss`` ``(seeds, epochs + 1)``; ``weights``
    ``[W1 (seeds, R, H, d), W2 (seeds, R, p, H)]`` at ``record_epochs``."""

    loss: np.ndarray
    record_epochs: np.ndarray
    weights: list
    optimiser: str
    batch: int
    lr: float


_MB_COMPILED: dict = {}


def _mb_program(
    how, optimiser, n_batches, batch, n_records, k, offset, n_full, tail, betas, eps
):
    """The jitted, sharded training, cached by its shapes."""
    key = (
        how.devices,
        how.batching,
        optimiser,
        n_batches,
        batch,
        n_records,
        k,
        offset,
        n_full,
        tail,
        betas,
        eps,
    )
    if key in _MB_COMPILED:
        return _MB_COMPILED[key]
    b1, b2 = betas

    def batch_loss(V, xb, yb):
        V1, W2 = V
        return 0.5 * jnp.sum((yb - jnp.maximum(xb @ V1, 0.0) @ W2.T) ** 2)

    value_grad = jax.value_and_grad(batch_loss)

    def one_seed(per_seed, Xr, Yr, lr, slots):
        # V = (W1^T (d x H), W2 (p x H)): datapoints as rows, as in the engine
        V0, order = per_seed

        def update(state, g):
            V, m, v, t = state
            if optimiser == "sgd":
                return jax.tree_util.tree_map(lambda w, gw: w - lr * gw, V, g), m, v, t
            t = t + 1.0
            m = jax.tree_util.tree_map(lambda a, gw: b1 * a + (1 - b1) * gw, m, g)
            v = jax.tree_util.tree_map(lambda a, gw: b2 * a + (1 - b2) * gw * gw, v, g)
            c1, c2 = 1 - b1**t, 1 - b2**t
            V = jax.tree_util.tree_map(
                lambda w, a, b: w - lr * (a / c1) / (jnp.sqrt(b / c2) + eps), V, m, v
            )
            return V, m, v, t

        def epoch(state, perm):
            if n_batches == 1:  # full batch: the step's loss is the epoch's loss
                loss, g = value_grad(state[0], Xr[perm], Yr[perm])
                return update(state, g), loss
            loss = batch_loss(state[0], Xr, Yr)

            def step(st, idx):
                _, g = value_grad(st[0], Xr[idx], Yr[idx])
                return update(st, g), None

            state, _ = jax.lax.scan(
                step, state, perm.reshape(n_batches, batch), unroll=UNROLL_BATCHES
            )
            return state, loss

        def run(state, perms):
            return jax.lax.scan(epoch, state, perms, unroll=min(UNROLL, perms.shape[0]))

        def keep(buf, V, slot):
            return jax.tree_util.tree_map(lambda b, w: b.at[slot].set(w), buf, V)

        def segment(carry, inp):
            state, buf = carry
            perms, slot = inp
            buf = keep(buf, state[0], slot)
            state, losses = run(state, perms)
            return (state, buf), losses

        zeros = jax.tree_util.tree_map(jnp.zeros_like, V0)
        buf0 = jax.tree_util.tree_map(
            lambda v: jnp.zeros((n_records + 1, *v.shape), v.dtype), V0
        )
        state, parts = (V0, zeros, zeros, jnp.float32(0.0)), []
        if offset:
            state, first = run(state, order[:offset])
            parts.append(first)
        full = order[offset : offset + n_full * k].reshape(n_full, k, order.shape[-1])
        (state, buf), losses = jax.lax.scan(
            segment, (state, buf0), (full, slots[:n_full])
        )
        parts.append(losses.reshape(-1))
        if tail:
            buf = keep(buf, state[0], slots[n_full])
            state, last = run(state, order[offset + n_full * k :])
            parts.append(last)
        losses = jnp.concatenate(parts) if len(parts) > 1 else parts[0]
        return losses, jax.tree_util.tree_map(lambda b: b[:n_records], buf)

    _MB_COMPILED[key] = devices_.seed_program(how, one_seed, 4)
    return _MB_COMPILED[key]


def batch_orders(seeds, epochs: int, P: int, batch: int) -> np.ndarray:
    """Per seed and epoch a permutation of the datapoints ``(seeds, epochs + 1, P)``,
    cut into mini-batches; the identity when ``batch == P``."""
    if batch == P:
        return np.broadcast_to(
            np.arange(P, dtype=np.int32), (len(seeds), epochs + 1, P)
        ).copy()
    out = np.empty((len(seeds), epochs + 1, P), np.int32)
    for k, s in enumerate(seeds):
        rng = np.random.default_rng(int(s))
        out[k] = np.argsort(rng.random((epochs + 1, P)), axis=1)
    return out


def _checked_starts(X, Y, params0, batch: int, S: int) -> tuple:
    """``params0`` as ``(W1 (S, H, d), W2 (S, p, H))``, checked (ValueError)."""
    d, P = X.shape
    p = Y.shape[0]
    if P % batch:
        raise ValueError(f"batch must divide the {P} datapoints, got {batch}")
    W1, W2 = (np.asarray(W, float) for W in params0)
    if (
        W1.ndim != 3
        or W2.ndim != 3
        or W1.shape[0] != S
        or W2.shape[0] != S
        or W1.shape[2] != d
        or W2.shape[1] != p
        or W1.shape[1] != W2.shape[2]
    ):
        raise ValueError(
            f"params0 must be [W1 ({S}, H, {d}), W2 ({S}, {p}, H)]; got "
            f"{W1.shape} and {W2.shape}"
        )
    return W1, W2


def _run_seeds(
    X,
    Y,
    W1,
    W2,
    seeds,
    *,
    lr: float,
    epochs: int,
    batch: int,
    optimiser: str,
    rec: np.ndarray,
    betas,
    eps: float,
    devices: int | None,
    batching: str | None,
) -> tuple:
    """``(losses, buffers)`` on the devices (padded seeds included)."""
    P = X.shape[1]
    S = len(seeds)
    n_rec = max(int(rec.size), 1)
    k, offset, n_full, tail = segments(epochs, rec)
    slots = record_slots(rec, k, offset, n_full)
    order = batch_orders(seeds, epochs, P, batch)
    how = devices_.plan(S, devices, batching)
    V1, W2, order = devices_.pad_seeds([np.swapaxes(W1, 1, 2), W2, order], how)
    mesh, fn = _mb_program(
        how,
        optimiser,
        P // batch,
        batch,
        n_rec,
        k,
        offset,
        n_full,
        tail,
        tuple(float(b) for b in betas),
        float(eps),
    )
    put, seeds_, shared = devices_.put, devices_.SEEDS, devices_.SHARED
    f32 = np.float32
    return fn(
        (
            (put(V1.astype(f32), mesh, seeds_), put(W2.astype(f32), mesh, seeds_)),
            put(order, mesh, seeds_),
        ),
        put(X.T.astype(f32), mesh, shared),
        put(Y.T.astype(f32), mesh, shared),
        put(f32(lr), mesh, shared),
        put(slots, mesh, shared),
    )


def _fetched(losses, bufs, seeds, rec: np.ndarray, what: str, lr: float) -> tuple:
    """``(loss (S, epochs + 1), [W1, W2] or [])`` from the devices, checked finite."""
    S = len(seeds)
    loss = devices_.get(losses, S).astype(np.float64)
    bad = ~np.isfinite(loss)
    if bad.any():
        s, t = np.argwhere(bad)[0]
        raise TrainingDiverged(
            f"{what} diverged: loss {loss[s, t]} at "
            f"epoch {t} for seed {seeds[s]} (lr={lr})"
        )
    weights = []
    if rec.size:
        b1, b2 = (devices_.get(b, S) for b in bufs)
        weights = [np.swapaxes(b1, 2, 3), b2]
    return loss, weights


def minibatch_train(
    X,
    Y,
    params0,
    *,
    lr: float,
    epochs: int,
    batch: int,
    seeds,
    optimiser: str = "sgd",
    record_epochs: Sequence[int] = (),
    betas=(0.9, 0.999),
    eps: float = 1e-8,
    devices: int | None = None,
    batching: str | None = None,
) -> MinibatchRun:
    """Train ``W2 relu(W1 x)`` by mini-batch SGD or Adam, one run per seed; raises
    :class:`TrainingDiverged` on a non-finite loss.  ``'sgd'`` steps on the batch's
    summed loss, so an epoch equals one full-batch step on the summed loss
    ([conv-data]) and ``batch == P`` *is* gradient descent.

    Args:
        X, Y: ``(d, P)``, ``(p, P)``.
        params0: ``[W1 (S, H, d), W2 (S, p, H)]`` (:func:`stack_params`).
        batch: datapoints per update, dividing ``P`` (order: :func:`batch_orders`).
        seeds: ``S`` seeds of the batch orders.
        betas, eps: Adam's.
        devices, batching: as for :func:`helpers.core.engine.train`.

    Returns:
        A :class:`MinibatchRun`.
    """
    X, Y = check_xy(np.asarray(X, float), np.asarray(Y, float))
    lr = check_positive(lr, "lr")
    epochs = check_epochs(epochs)
    batch = check_positive_int(batch, "batch")
    seeds = check_seeds(seeds)
    if optimiser not in OPTIMISERS:
        raise ValueError(f"optimiser must be one of {OPTIMISERS}, got {optimiser!r}")
    W1, W2 = _checked_starts(X, Y, params0, batch, len(seeds))
    rec = np.unique(np.asarray(list(record_epochs), int))
    if rec.size and (rec.min() < 0 or rec.max() > epochs):
        raise ValueError(f"record_epochs must lie in 0..{epochs}, got {rec.tolist()}")
    losses, bufs = _run_seeds(
        X,
        Y,
        W1,
        W2,
        seeds,
        lr=lr,
        epochs=epochs,
        batch=batch,
        optimiser=optimiser,
        rec=rec,
        betas=betas,
        eps=eps,
        devices=devices,
        batching=batching,
    )
    loss, weights = _fetched(
        losses, bufs, seeds, rec, f"{optimiser} (batch {batch})", lr
    )
    return MinibatchRun(
        loss=loss,
        record_epochs=rec,
        weights=weights,
        optimiser=optimiser,
        batch=batch,
        lr=lr,
    )


def stack_params(params_per_seed) -> list[np.ndarray]:
    """``[[W1, W2], ...]`` per seed stacked into ``[W1 (S, ...), W2 (S, ...)]``."""
    return [
        np.stack([p[i] for p in params_per_seed])
        for i in range(len(params_per_seed[0]))
    ]
