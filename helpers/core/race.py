"""The neural race reduction ([conv-race], paper Eqs. 5-6), integrated for a GDLN.

Under Assumption 2.1.2 (aligned, balanced weights: ``W1 W1^T = W2^T W2`` for each
pathway) the two weight matrices of a pathway can be eliminated, and its map
``W_p = W2_p W1_p`` obeys

    tau dW_p/dt = (W_p W_p^T)^{1/2} E_p + E_p (W_p^T W_p)^{1/2},
    E_p = Sigma_yx(p) - sum_q W_q Sigma_x(q, p),

which, written in the singular-vector basis of each effective dataset, is the race of
Eq. 6: every mode of every pathway is a 1-D network ``tau da/dt = 2 a (s - ...)``, the
overlap terms ``u_p^T u_q v_q^T Sigma_x(q, p) v_p`` coupling the pathways.  We
integrate this matrix form, so the overlaps come from the data rather than being set by
hand, with one Euler step per epoch (step ``lr``), exactly like the simulations; or,
with ``form="factors"``, as a balanced product ``W_p = B_p A_p`` whose factors take the
steps (the same flow, no singular value decomposition: :func:`predict`).

Initial condition: each pathway starts aligned with its own effective dataset,
``W_p(0) = a0_p U_p V_p^T``, with ``a0_p = width (std_in^2 + std_out^2) / 4`` derived
from its init (:func:`helpers.core.linear.initial_mode_strength`) unless given;
:func:`effective_a0` gives the same quantity for one actual draw of the weights.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from . import store
from .checks import TrainingDiverged, check_epochs, check_positive, check_xy
from .engine import GatedNetwork
from .linear import initial_mode_strength, modes

__all__ = ["Prediction", "race_pathways", "predict", "effective_a0"]

#: The race's source, part of a race's key (a changed race integrates anew).
_SOURCE = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


@dataclass(frozen=True)
class RacePathway:
    name: str
    gate: np.ndarray
    mask: np.ndarray
    on_epoch: int
    common: bool
    a0: float


@dataclass
class Prediction:
    """Race-reduction prediction: loss at every epoch; maps and singular values of each
    pathway at ``record_epochs``."""

    names: tuple[str, ...]
    loss: np.ndarray
    record_epochs: np.ndarray
    maps: dict
    a0: dict

    def singular_values(self, name: str) -> np.ndarray:
        """Singular values of a pathway's map at each recorded epoch ``(R, k)``."""
        return np.linalg.svd(self.maps[name], compute_uv=False)


def race_pathways(net: GatedNetwork, a0=None) -> list[RacePathway]:
    """Read a one-hidden-layer GDLN's pathways: gate, input mask, switch-on, a0."""
    if net.depth != 1 or net.layers[0].is_relu:
        raise ValueError(
            "the race predictor takes a one-hidden-layer GDLN with fixed gates"
        )
    L = net.layers[0]
    out = []
    for name, sl in L.pathways:
        gate = L.gating[sl][0]
        mask = np.ones(net.sizes[0]) if L.in_mask is None else L.in_mask[sl][0]
        if isinstance(a0, dict):
            a = a0[name]
        elif a0 is not None:
            a = float(a0)
        else:
            a = initial_mode_strength(
                sl.stop - sl.start, L.in_std[sl][0], L.out_std[sl][0]
            )
        if a <= 0:
            raise ValueError(
                f"pathway {name!r}: initial mode strength must be > 0, got {a}"
            )
        out.append(
            RacePathway(
                name,
                gate,
                mask,
                int(L.on_epoch[sl][0]),
                bool(L.common[sl][0]),
                float(a),
            )
        )
    return out


def _initial_map(X, Y, pw: RacePathway, tol=1e-6):
    syx = (Y * pw.gate) @ (X * pw.mask[:, None]).T
    U, s, Vt = np.linalg.svd(syx, full_matrices=False)
    keep = s > tol * s.max()
    return pw.a0 * U[:, keep] @ Vt[keep]


def _balanced_factors(W0):
    """``B (K, p, r)``, ``A (K, r, d)`` with ``B_k A_k = W0_k`` and ``B_k^T B_k =
    A_k A_k^T`` (balanced), ``r`` the largest rank, narrower pathways padded with
    zero columns (which stay zero under the flow)."""
    svds = [np.linalg.svd(W, full_matrices=False) for W in W0]
    ranks = [int(np.sum(s > 1e-6 * s.max())) for _, s, _ in svds]
    r = max(ranks)
    B = np.zeros((W0.shape[0], W0.shape[1], r))
    A = np.zeros((W0.shape[0], r, W0.shape[2]))
    for k, ((U, s, Vt), n) in enumerate(zip(svds, ranks)):
        B[k, :, :n] = U[:, :n] * np.sqrt(s[:n])
        A[k, :n] = np.sqrt(s[:n])[:, None] * Vt[:n]
    return B, A


def _sqrt_terms(W, E):
    """``(W W^T)^{1/2} E + E (W^T W)^{1/2}`` of one pathway (Eq. 5's right side)."""
    U, s, Vt = jnp.linalg.svd(W, full_matrices=False)
    return (U * s) @ (U.T @ E) + (E @ Vt.T) * s @ Vt


@partial(jax.jit, static_argnames=("one_way", "factors", "n_records"))
def _integrate(
    state,
    X,
    masks,
    Gc,
    members,
    on,
    common,
    Y,
    lr,
    slots,
    *,
    one_way,
    factors,
    n_records,
):
    """Euler steps of the race from ``state``: the maps ``W (K, p, d)``, or with
    ``factors`` the pair ``(B (K, p, r), A (K, r, d))`` with ``W = B A``.

    The factor form uses that the gates are constant on groups of datapoints (``Gc (K,
    groups)``; ``members``: each datapoint's group): every group's summed map is formed
    once per step rather than every pathway's output at every datapoint.  These are the
    same sums in another order; the matrix form keeps the per-pathway order its records
    were made with, because in float32 the order alone moves a C = 3 race by a time gap
    of about 0.004 (in float64 the two orders agree to 1e-11)."""
    onehot = jax.nn.one_hot(members, Gc.shape[1], dtype=Y.dtype)  # (n, groups)
    ones = jnp.ones_like(common)
    # row 0 sums every pathway (the output); row 1 the common ones (their target,
    # one-way); `takes` says which residual each pathway learns from
    sums = jnp.stack([ones, common]) if one_way else ones[None]
    takes = jnp.stack([ones - common, common]) if one_way else ones[None]

    def maps(state):
        return state[0] @ state[1] if factors else state

    def grouped(W, active):
        """residual terms ``E`` and the loss, summed per group of datapoints"""
        Ga = Gc * active[:, None]  # switched-on pathways' gates, per group
        V = jnp.einsum("jk,kc,kpd->jcpd", sums, Ga, W * masks[:, None, :])
        R = Y - jnp.einsum("jnpd,dn->jpn", V[:, members], X)  # residuals
        S = jnp.einsum("jpn,dn,nc->jcpd", R, X, onehot)
        E = jnp.einsum("jk,kc,jcpd->kpd", takes, Ga, S) * masks[:, None, :]
        return E, 0.5 * jnp.sum(R[0] ** 2)

    def per_pathway(W, active):
        """the same, from every pathway's output at every datapoint"""
        G = Gc[:, members]
        Xs = X[None] * masks[:, :, None]
        outs = jnp.einsum("kpd,kdn->kpn", W, Xs) * (G * active[:, None])[:, None, :]
        yhat = outs.sum(0)
        if one_way:
            yc = jnp.einsum("k,kpn->pn", common, outs)
            target = jnp.where(
                common[:, None, None] > 0, (Y - yc)[None], (Y - yhat)[None]
            )
        else:
            target = jnp.broadcast_to(Y - yhat, outs.shape)
        E = jnp.einsum("kpn,kdn->kpd", target * G[:, None, :], Xs)
        return E * active[:, None, None], 0.5 * jnp.sum((Y - yhat) ** 2)

    def step(carry, inp):
        state, buf = carry
        t, slot = inp
        W = maps(state)
        active = (t >= on).astype(Y.dtype)
        if factors:
            E, loss = grouped(W, active)
            B, A = state
            new = (
                B + lr * E @ jnp.swapaxes(A, 1, 2),
                A + lr * jnp.swapaxes(B, 1, 2) @ E,
            )
        else:
            E, loss = per_pathway(W, active)
            new = W + lr * jax.vmap(_sqrt_terms)(W, E)
        buf = jax.lax.cond(slot >= 0, lambda b: b.at[slot].set(W), lambda b: b, buf)
        return (new, buf), loss

    W0 = maps(state)
    buf0 = jnp.zeros((n_records, *W0.shape), W0.dtype)
    ts = jnp.arange(slots.shape[0], dtype=jnp.int32)
    (_, buf), loss = jax.lax.scan(step, (state, buf0), (ts, slots))
    return loss, buf


def predict(
    net: GatedNetwork,
    X,
    Y,
    *,
    lr: float,
    epochs: int,
    a0=None,
    record_epochs=(),
    form: str = "matrix",
) -> Prediction:
    """Integrate the race reduction of a one-hidden-layer GDLN (fully or one-way
    coupled).

    ``a0``: ``None`` (derived from each pathway's width and init stds), one number, or a
    dict per pathway name.  Returns the summed loss at every epoch ``0..epochs``.

    ``form``: ``'matrix'`` steps each map ``W_p`` by Eq. 5 (the book's race
    everywhere); ``'factors'`` steps a balanced factorisation ``W_p = B_p A_p`` of the
    aligned start (``B = a0^{1/2} U``, ``A = a0^{1/2} V^T``) by ``dB = E A^T``,
    ``dA = B^T E``: gradient descent on the pathway's narrowest balanced two-layer
    network, the same flow as Eq. 5 (balance is kept by the flow), with a step that
    differs from the matrix form's by ``lr^2 E W^T E`` and no singular value
    decomposition (the page *More contexts than five* takes it for its large races and
    measures what it moves).
    """
    if form not in ("matrix", "factors"):
        raise ValueError(f"form must be 'matrix' or 'factors', got {form!r}")
    X, Y = check_xy(np.asarray(X, float), np.asarray(Y, float))
    lr = check_positive(lr, "lr")
    epochs = check_epochs(epochs)
    pws = race_pathways(net, a0)
    rec = np.unique(np.asarray(list(record_epochs), int))
    if rec.size and (rec.min() < 0 or rec.max() > epochs):
        raise ValueError(f"record_epochs must lie in 0..{epochs}, got {rec.tolist()}")
    slots = np.full(epochs + 1, -1, np.int32)
    slots[rec] = np.arange(rec.size)
    f32 = jnp.float32
    W0 = np.stack([_initial_map(X, Y, pw) for pw in pws])
    gates, members = np.unique(
        np.stack([pw.gate for pw in pws]), axis=1, return_inverse=True
    )
    state = jnp.asarray(W0, f32)
    if form == "factors":
        state = tuple(jnp.asarray(f, f32) for f in _balanced_factors(W0))
    sample = {
        "args": (
            jax.tree_util.tree_map(np.asarray, state),
            np.asarray(X, np.float32),
            np.stack([pw.mask for pw in pws]).astype(np.float32),
            np.asarray(gates, np.float32),
            members.reshape(-1).astype(np.int32),
            np.array([pw.on_epoch for pw in pws], np.int32),
            np.array([pw.common for pw in pws], np.float32),
            np.asarray(Y, np.float32),
            np.float32(lr),
            slots,
        ),
        "flags": dict(
            one_way=net.coupling == "one-way",
            factors=form == "factors",
            n_records=max(int(rec.size), 1),
        ),
    }
    parts = ("race.integrate", _SOURCE, sample["args"], sample["flags"])
    # the portable key holds the maps, not their factors: the factors' SVD moves with
    # the CPU's BLAS kernels, the maps do not
    mapped = ("race.integrate", _SOURCE, np.asarray(W0, np.float32), parts[2][1:])
    loss, buf = store.load_or_make(
        store.key(*parts),
        lambda: integrate_sample(sample),
        f"race {len(pws)} pathways, {epochs} epochs",
        portable=store.portable_key(*mapped, sample["flags"]),
        sample=lambda: sample,
    )
    loss = np.asarray(loss, np.float64)
    bad = np.flatnonzero(~np.isfinite(loss))
    if bad.size:
        raise TrainingDiverged(
            f"race prediction diverged: loss {loss[bad[0]]} at epoch {bad[0]} (lr={lr})"
        )
    buf = np.asarray(buf)
    names = tuple(pw.name for pw in pws)
    maps = {n: buf[:, k] for k, n in enumerate(names)} if rec.size else {}
    return Prediction(
        names=names,
        loss=loss,
        record_epochs=rec,
        maps=maps,
        a0={pw.name: pw.a0 for pw in pws},
    )


def integrate_sample(sample: dict, epochs: int | None = None):
    """The race of a kept sample (:mod:`helpers.core.store`, kept runs): its loss
    ``(T,)`` and recorded maps, over its first ``epochs`` updates (default all)."""
    args = list(sample["args"])
    if epochs is not None:
        args[-1] = args[-1][: check_epochs(epochs) + 1]
    state = jax.tree_util.tree_map(jnp.asarray, args[0])
    loss, buf = _integrate(state, *map(jnp.asarray, args[1:]), **sample["flags"])
    return np.asarray(loss), np.asarray(buf)


def effective_a0(net: GatedNetwork, params, X, Y) -> dict:
    """Effective initial strength of each pathway's top mode, from the actual initial
    weights.

    The derivation of :func:`helpers.core.linear.initial_mode_strength` ([conv-gdln];
    paper Eq. 7 with Assumption 2.1.2 reached from a small random init): with ``(u, v)``
    the top singular pair of the pathway's effective ``Sigma_yx(p)`` ([conv-gdln], Eq.
    4), the hidden vectors ``x = W1_p v`` and ``y = W2_p^T u`` grow early in learning as
    ``(x + y) e^{s t / tau} / 2`` while ``x - y`` decays, so the mode leaves its plateau
    as if it had started aligned and balanced from

        a0 = |W1_p v + W2_p^T u|^2 / 4 .

    ``initial_mode_strength`` is the expectation of this over the init,
    ``width (std_in^2 + std_out^2) / 4``; here it is evaluated on one draw ``params``
    (``[W1, W2]``, e.g. :func:`helpers.core.engine.init_params`), which removes the
    draw-to-draw spread of ``a0`` (a sum over only ``width`` units) from a comparison
    with the closed form.  Returns ``{pathway name: a0}`` for a one-hidden-layer GDLN
    with fixed gates; input masks are applied to the pathway's effective dataset and
    weights.
    """
    if net.depth != 1 or net.layers[0].is_relu:
        raise ValueError("effective_a0 takes a one-hidden-layer GDLN with fixed gates")
    X, Y = check_xy(np.asarray(X, float), np.asarray(Y, float))
    if len(params) != 2:
        raise ValueError(
            f"effective_a0 needs params = [W1, W2] of a one-hidden-layer network, got "
            f"{len(params)} arrays"
        )
    W1, W2 = (np.asarray(W, float) for W in params)
    L = net.layers[0]
    if W1.shape != (L.width, net.sizes[0]) or W2.shape != (net.sizes[-1], L.width):
        raise ValueError(
            f"params have shapes {W1.shape}, {W2.shape}; the network needs "
            f"{(L.width, net.sizes[0])}, {(net.sizes[-1], L.width)}"
        )
    if X.shape[0] != net.sizes[0] or Y.shape[0] != net.sizes[-1]:
        raise ValueError(
            f"X, Y have {X.shape[0]} inputs and {Y.shape[0]} outputs; the network has "
            f"{net.sizes[0]} and {net.sizes[-1]}"
        )
    mask = np.ones_like(W1) if L.in_mask is None else L.in_mask
    out = {}
    for name, sl in L.pathways:
        on = L.gating[sl][0] > 0
        if not np.any(on):
            raise ValueError(
                f"pathway {name!r} is off for every datapoint: it has no mode"
            )
        m = modes(X[:, on] * mask[sl][0][:, None], Y[:, on])
        if m.s.size == 0:
            raise ValueError(
                f"pathway {name!r} has no input-output correlation: it has no mode"
            )
        u, v = m.U[:, 0], m.V[:, 0]
        x = (W1[sl] * mask[sl]) @ v
        y = W2[:, sl].T @ u
        out[name] = float(0.25 * np.sum((x + y) ** 2))
    return out
