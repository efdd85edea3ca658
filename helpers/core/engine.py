"""One training engine for ReLU networks, ReLNs and GDLNs ([conv-gdln], paper Eqs. 1-3).

Each hidden layer is a list of *pathways* (blocks of units); ``h = g * (W h_prev)``
with a 0/1 gate per unit and datapoint (Eq. 1): fixed data (GDLN/ReLN) or the unit's
own sign (ReLU), so the gradient is Eq. 3 or back-propagation.  Training is one
``jit``: ``lax.scan`` over epochs, seeds sharded over devices ([conv-engine]); the loss
is kept every epoch, records only at the epochs named.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from . import devices as devices_
from . import store
from .checks import (
    TrainingDiverged,
    check_epochs,
    check_gate,
    check_positive,
    check_seeds,
    check_xy,
)

__all__ = [
    "Pathway",
    "Layer",
    "GatedNetwork",
    "Run",
    "relu_network",
    "linear_network",
    "gdln",
    "deep_gdln",
    "init_params",
    "forward",
    "train",
    "segments",
    "record_slots",
]

RECORDABLE = ("weights", "outputs", "hidden", "gates")


@dataclass(frozen=True)
class Pathway:
    """A block of hidden units sharing a gate ([conv-gdln]): ``gate`` 0/1 per datapoint
    (None: always on); ``inputs``: rows of ``X`` seen (first layer; None: all);
    ``init_std``: (incoming, readout); ``on_epoch``: gate 0 before it; ``common``: in
    the common pathway (one-way coupling)."""

    name: str
    width: int
    gate: np.ndarray | None = None
    inputs: Sequence[int] | None = None
    init_std: tuple[float, float] = (1e-3, 1e-3)
    on_epoch: int = 0
    common: bool = False


@dataclass(frozen=True, eq=False)
class Layer:
    """A hidden layer: gating (``'relu'``, ``'linear'`` or ``(H, P)`` 0/1) per unit."""

    width: int
    gating: str | np.ndarray
    in_std: np.ndarray
    out_std: np.ndarray
    on_epoch: np.ndarray
    in_mask: np.ndarray | None
    pathways: tuple[tuple[str, slice], ...]
    common: np.ndarray

    @property
    def is_relu(self) -> bool:
        return isinstance(self.gating, str) and self.gating == "relu"

    @property
    def mode(self) -> str:
        """``'relu'``, ``'linear'`` or ``'fixed'``."""
        return self.gating if isinstance(self.gating, str) else "fixed"


@dataclass(frozen=True, eq=False)
class GatedNetwork:
    """``sizes = (d, H_1, ..., H_L, p)``, a :class:`Layer` per hidden layer;
    ``coupling`` ``'full'`` or ``'one-way'`` (others fit the common's residual,
    [conv-context-reln])."""

    sizes: tuple[int, ...]
    layers: tuple[Layer, ...]
    coupling: str = "full"
    kind: str = "gdln"
    P: int | None = None

    def __post_init__(self):
        if self.coupling not in ("full", "one-way"):
            raise ValueError(
                f"coupling must be 'full' or 'one-way', got {self.coupling!r}"
            )
        if self.coupling == "one-way" and not self.layers[-1].common.any():
            raise ValueError(
                "one-way coupling needs at least one pathway marked common=True"
            )

    @property
    def depth(self) -> int:
        return len(self.layers)

    def pathway_names(self, layer: int = -1) -> list[str]:
        return [n for n, _ in self.layers[layer].pathways]

    def pathway_slice(self, name: str, layer: int = -1) -> slice:
        for n, sl in self.layers[layer].pathways:
            if n == name:
                return sl
        raise KeyError(
            f"no pathway {name!r} in layer {layer}; have {self.pathway_names(layer)}"
        )


def _std_vector(std, width, what):
    v = np.broadcast_to(np.asarray(std, float), (width,)).copy()
    if np.any(~np.isfinite(v)) or np.any(v < 0):
        raise ValueError(f"{what}: init std must be finite and >= 0, got {std}")
    return v


def relu_network(
    sizes: Sequence[int], init_std: float | Sequence[float]
) -> GatedNetwork:
    """A bias-free ReLU network; ``init_std``: one, or one per weight matrix."""
    return _plain_network(sizes, init_std, "relu")


def linear_network(
    sizes: Sequence[int], init_std: float | Sequence[float]
) -> GatedNetwork:
    """A deep linear network: every hidden unit always on ([conv-linear])."""
    return _plain_network(sizes, init_std, "linear")


def _plain_network(sizes, init_std, kind):
    sizes = tuple(int(s) for s in sizes)
    if len(sizes) < 3 or any(s <= 0 for s in sizes):
        raise ValueError(
            f"sizes must be (d, H_1, ..., p) with positive entries, got {sizes}"
        )
    n_w = len(sizes) - 1
    stds = np.broadcast_to(np.asarray(init_std, float), (n_w,))
    layers = []
    for l, H in enumerate(sizes[1:-1]):
        layers.append(
            Layer(
                width=H,
                gating="relu" if kind == "relu" else "linear",
                in_std=_std_vector(stds[l], H, "init_std"),
                out_std=_std_vector(stds[l + 1], H, "init_std"),
                on_epoch=np.zeros(H, int),
                in_mask=None,
                pathways=((f"layer{l + 1}", slice(0, H)),),
                common=np.zeros(H, bool),
            )
        )
    return GatedNetwork(sizes=sizes, layers=tuple(layers), kind=kind)


def gdln(
    d: int, p: int, P: int, pathways: Sequence[Pathway], coupling: str = "full"
) -> GatedNetwork:
    """A one-hidden-layer GDLN ([conv-gdln]): the ReLNs of Sections 3-5."""
    return deep_gdln(d, p, P, [pathways], coupling=coupling)


def deep_gdln(
    d: int, p: int, P: int, layers: Sequence[Sequence[Pathway]], coupling: str = "full"
) -> GatedNetwork:
    """A GDLN, a list of pathways per hidden layer ([conv-depth])."""
    if not layers or any(len(ps) == 0 for ps in layers):
        raise ValueError("deep_gdln needs at least one pathway in every hidden layer")
    built = []
    prev = int(d)
    for l, pws in enumerate(layers):
        names = [pw.name for pw in pws]
        if len(set(names)) != len(names):
            raise ValueError(
                f"layer {l + 1}: pathway names must be unique, got {names}"
            )
        H = sum(int(pw.width) for pw in pws)
        gating = np.zeros((H, P))
        in_std, out_std, on_epoch = np.zeros(H), np.zeros(H), np.zeros(H, int)
        common = np.zeros(H, bool)
        mask = np.ones((H, prev))
        slices = []
        start = 0
        for pw in pws:
            if int(pw.width) <= 0:
                raise ValueError(
                    f"pathway {pw.name!r}: width must be positive, got {pw.width}"
                )
            sl = slice(start, start + int(pw.width))
            start = sl.stop
            g = (
                np.ones(P)
                if pw.gate is None
                else check_gate(pw.gate, P, f"gate of pathway {pw.name!r}")
            )
            gating[sl] = g
            s_in, s_out = pw.init_std
            in_std[sl] = _std_vector(s_in, pw.width, f"pathway {pw.name!r}")[0]
            out_std[sl] = _std_vector(s_out, pw.width, f"pathway {pw.name!r}")[0]
            if int(pw.on_epoch) < 0:
                raise ValueError(
                    f"pathway {pw.name!r}: on_epoch must be >= 0, got {pw.on_epoch}"
                )
            on_epoch[sl] = int(pw.on_epoch)
            common[sl] = bool(pw.common)
            if pw.inputs is not None:
                if l > 0:
                    raise ValueError(
                        f"pathway {pw.name!r}: 'inputs' applies to the first hidden "
                        f"layer only"
                    )
                idx = np.asarray(list(pw.inputs), int)
                if idx.size == 0 or idx.min() < 0 or idx.max() >= d:
                    raise ValueError(
                        f"pathway {pw.name!r}: inputs {list(pw.inputs)} must index "
                        f"rows 0..{d - 1} of X"
                    )
                mask[sl] = 0
                mask[sl, idx] = 1
            slices.append((pw.name, sl))
        built.append(
            Layer(
                width=H,
                gating=gating,
                in_std=in_std,
                out_std=out_std,
                on_epoch=on_epoch,
                in_mask=mask if l == 0 and not np.all(mask == 1) else None,
                pathways=tuple(slices),
                common=common,
            )
        )
        prev = H
    sizes = (int(d), *[b.width for b in built], int(p))
    return GatedNetwork(
        sizes=sizes, layers=tuple(built), coupling=coupling, kind="gdln", P=int(P)
    )


def init_params(net: GatedNetwork, seed: int) -> list[np.ndarray]:
    """``W_l ~ N(0, std^2)`` from NumPy's ``seed`` generator, per-unit stds."""
    rng = np.random.default_rng(int(seed))
    params = []
    for l, layer in enumerate(net.layers):
        W = rng.standard_normal((layer.width, net.sizes[l])) * layer.in_std[:, None]
        if layer.in_mask is not None:
            W = W * layer.in_mask
        params.append(W)
    last = net.layers[-1]
    params.append(
        rng.standard_normal((net.sizes[-1], last.width)) * last.out_std[None, :]
    )
    return params


# The kernel.  Inside, datapoints are rows and hidden weights ``W^T``: 4-5x faster on a
# CPU (the readout keeps ``W``; Performance page).  Callers see datapoints as columns.


def _net_arrays(net: GatedNetwork, dtype):
    """The network's traced data, rows layout."""
    return {
        "gates": [
            jnp.asarray(L.gating.T, dtype) if L.mode == "fixed" else None
            for L in net.layers
        ],
        "on_epoch": [jnp.asarray(L.on_epoch, jnp.int32)[None, :] for L in net.layers],
        "in_mask": None
        if net.layers[0].in_mask is None
        else jnp.asarray(net.layers[0].in_mask.T, dtype),
        "common": jnp.asarray(net.layers[-1].common, dtype)[None, :],
    }


def _static(net: GatedNetwork) -> tuple:
    """Per layer ``(mode, any on_epoch > 0)``: what the kernel specialises on."""
    return tuple((L.mode, bool(np.any(L.on_epoch > 0))) for L in net.layers)


def _to_rows(params):
    return [*(W.T for W in params[:-1]), params[-1]]


def _forward(static, arrays, V, Xr, t):
    """Eq. 1, rows layout: output ``(p, P)``, per layer activity and gates ``(P, H)``;
    a ReLU gate is ``step(pre)``, so ``g * pre`` is the ReLU and its derivative."""
    h = Xr
    hs, gs = [], []
    for l, W in enumerate(V[:-1]):
        mode, waits = static[l]
        if l == 0 and arrays["in_mask"] is not None:
            W = W * arrays["in_mask"]
        pre = h @ W
        if mode == "relu":
            g = (pre > 0).astype(pre.dtype)
        elif mode == "linear":
            g = jnp.ones_like(pre)
        else:
            g = arrays["gates"][l]
        if waits:
            g = g * (t >= arrays["on_epoch"][l]).astype(pre.dtype)
        g = jax.lax.stop_gradient(g)
        h = pre if (mode == "linear" and not waits) else g * pre
        hs.append(h)
        gs.append(g)
    return V[-1] @ h.T, hs, gs


def _train_loss(static, coupling, arrays, V, Xr, Y, t):
    """(training, reported ``1/2 ||Y - yhat||^2`` (Eq. 2)) losses; one-way coupling
    ([conv-context-reln]) trains on ``1/2 ||Y - yhat_c||^2``
    ``+ 1/2 ||Y - sg(yhat_c) - yhat_x||^2``."""
    out, hs, _ = _forward(static, arrays, V, Xr, t)
    reported = 0.5 * jnp.sum((Y - out) ** 2)
    if coupling == "full":
        return reported, reported
    cm = arrays["common"]
    out_c = V[-1] @ (hs[-1] * cm).T
    out_x = out - out_c
    train = 0.5 * jnp.sum((Y - out_c) ** 2) + 0.5 * jnp.sum(
        (Y - jax.lax.stop_gradient(out_c) - out_x) ** 2
    )
    return train, reported


def _snapshot(static, arrays, V, Xr, t, record):
    """One epoch's records, datapoints as columns."""
    snap = {}
    if "weights" in record:
        snap["weights"] = [*(W.T for W in V[:-1]), V[-1]]
    if any(r in record for r in ("outputs", "hidden", "gates")):
        out, hs, gs = _forward(static, arrays, V, Xr, t)
        if "outputs" in record:
            snap["outputs"] = out
        if "hidden" in record:
            snap["hidden"] = [h.T for h in hs]
        if "gates" in record:
            snap["gates"] = [g.T.astype(jnp.bool_) for g in gs]
    return snap


#: Epochs per inner step of the scan when nothing is recorded.
CHUNK = 100
#: Unrolling of the inner scan: 2 removes XLA's per-iteration weight copy.
UNROLL = 2


def segments(epochs: int, rec: np.ndarray) -> tuple[int, int, int, int]:
    """``(k, offset, n_full, tail)``: the ``epochs + 1`` steps as ``offset``, then
    ``n_full`` segments of ``k`` (gcd of record gaps) and ``tail``, so each recorded
    epoch starts a segment and recording needs no branch (unrecorded: a spare slot)."""
    steps = epochs + 1
    if rec.size > 1:
        k = int(np.gcd.reduce(np.diff(rec)))
    else:
        k = min(CHUNK, steps)
    offset = int(rec[0] % k) if rec.size else 0
    return k, offset, (steps - offset) // k, (steps - offset) % k


def record_slots(rec: np.ndarray, k: int, offset: int, n_full: int) -> np.ndarray:
    """Per segment, its record slot (or the spare, ``max(len(rec), 1)``)."""
    slots = np.full(n_full + 1, max(int(rec.size), 1), np.int32)
    slots[(rec - offset) // k] = np.arange(rec.size)
    return slots


def _one_seed(
    V0,
    arrays,
    Xr,
    Y,
    lr,
    slots,
    *,
    static,
    coupling,
    record,
    k,
    offset,
    n_full,
    tail,
    n_records,
):
    """One seed's descent: the loss ``(epochs + 1,)`` and record buffers."""
    grad_fn = jax.value_and_grad(
        partial(_train_loss, static, coupling, arrays), has_aux=True
    )

    def step(V, t):
        (_, loss), G = grad_fn(V, Xr, Y, t)
        return [W - lr * dW for W, dW in zip(V, G)], loss

    def run(V, start, length):
        return jax.lax.scan(
            step,
            V,
            start + jnp.arange(length, dtype=jnp.int32),
            unroll=min(UNROLL, length),
        )

    snap = partial(_snapshot, static, arrays, Xr=Xr, record=record)
    template = jax.eval_shape(lambda V: snap(V, t=0), V0) if record else {}
    bufs0 = jax.tree_util.tree_map(
        lambda s: jnp.zeros((n_records + 1, *s.shape), s.dtype), template
    )

    def keep(bufs, V, seg):
        if not record:
            return bufs
        start = offset + seg * k
        return jax.tree_util.tree_map(
            lambda b, v: b.at[slots[seg]].set(v), bufs, snap(V, t=start)
        )

    def segment(carry, seg):
        V, bufs = carry
        bufs = keep(bufs, V, seg)
        V, losses = run(V, offset + seg * k, k)
        return (V, bufs), losses

    V, parts = list(V0), []
    if offset:
        V, first = run(V, jnp.int32(0), offset)
        parts.append(first)
    (V, bufs), losses = jax.lax.scan(
        segment, (V, bufs0), jnp.arange(n_full, dtype=jnp.int32)
    )
    parts.append(losses.reshape(-1))
    if tail:
        bufs = keep(bufs, V, jnp.int32(n_full))
        V, last = run(V, jnp.int32(offset + n_full * k), tail)
        parts.append(last)
    losses = jnp.concatenate(parts) if len(parts) > 1 else parts[0]
    return losses, jax.tree_util.tree_map(lambda b: b[:n_records], bufs)


_COMPILED: dict = {}


def _compiled(plan: devices_.Plan, **static):
    """The jitted, sharded training ([conv-engine]), cached."""
    key = (plan.devices, plan.batching, tuple(sorted(static.items())))
    if key not in _COMPILED:
        _COMPILED[key] = devices_.seed_program(plan, partial(_one_seed, **static), 5)
    return _COMPILED[key]


def forward(net: GatedNetwork, params, X, epoch: int = 0):
    """``(output, hiddens, gates)`` of ``net`` on ``X`` (NumPy, datapoints as columns);
    ``epoch`` matters only for switch-on pathways."""
    X = np.asarray(X)
    _check_params(net, params)
    if X.shape[0] != net.sizes[0]:
        raise ValueError(
            f"X has {X.shape[0]} rows but the network takes d={net.sizes[0]} inputs"
        )
    _check_P(net, X.shape[1])
    V = [jnp.asarray(W, jnp.float32) for W in _to_rows(params)]
    out, hs, gs = _forward(
        _static(net),
        _net_arrays(net, jnp.float32),
        V,
        jnp.asarray(X.T, jnp.float32),
        epoch,
    )
    return np.asarray(out), [np.asarray(h).T for h in hs], [np.asarray(g).T for g in gs]


def _check_P(net, P):
    if net.P is not None and P != net.P:
        raise ValueError(
            f"the network's gates are defined on {net.P} datapoints but X has {P}"
        )


def _check_params(net, params):
    shapes = [(L.width, net.sizes[l]) for l, L in enumerate(net.layers)] + [
        (net.sizes[-1], net.layers[-1].width)
    ]
    got = [tuple(np.shape(W)) for W in params]
    if got != shapes:
        raise ValueError(f"weights have shapes {got}, the network needs {shapes}")


@dataclass
class Run:
    """:func:`train`'s result: ``loss`` ``(seeds, epochs + 1)`` (after ``t`` updates);
    ``records['outputs']`` ``(seeds, R, p, P)``; ``'hidden'``, ``'gates'``,
    ``'weights'``: lists per layer of ``(seeds, R, ...)``."""

    net: GatedNetwork
    seeds: tuple[int, ...]
    lr: float
    loss: np.ndarray
    record_epochs: np.ndarray
    records: dict = field(default_factory=dict)

    def index(self, epoch: int) -> int:
        hits = np.flatnonzero(self.record_epochs == epoch)
        if not hits.size:
            raise KeyError(
                f"epoch {epoch} was not recorded; recorded: "
                f"{self.record_epochs.tolist()}"
            )
        return int(hits[0])

    def weights_at(self, epoch: int, seed_index: int = 0) -> list[np.ndarray]:
        r = self.index(epoch)
        return [W[seed_index, r] for W in self.records["weights"]]

    def pathway_maps(self, seed_index: int = 0) -> dict[str, np.ndarray]:
        """Per pathway, ``W2[:, p] W1[p, :]`` ``(R, p, d)`` (one hidden layer)."""
        if self.net.depth != 1:
            raise ValueError("pathway_maps is defined for one hidden layer")
        W1 = self.records["weights"][0][seed_index]
        W2 = self.records["weights"][1][seed_index]
        mask = self.net.layers[0].in_mask
        if mask is not None:
            W1 = W1 * mask
        return {n: W2[:, :, sl] @ W1[:, sl, :] for n, sl in self.net.layers[0].pathways}


def train(
    net: GatedNetwork,
    X,
    Y,
    *,
    lr: float,
    epochs: int,
    seeds: int | Sequence[int] = 0,
    record_epochs: Sequence[int] = (),
    record: Sequence[str] = ("outputs",),
    params0: Sequence[np.ndarray] | None = None,
    devices: int | None = None,
    batching: str | None = None,
) -> Run:
    """Full-batch gradient descent on the summed loss ([conv-data]) per seed; records
    ``record`` (:data:`RECORDABLE`) at ``record_epochs``; ``params0``: one start or one
    per seed.  Raises :class:`TrainingDiverged` on a non-finite loss."""
    X, Y = check_xy(np.asarray(X, float), np.asarray(Y, float))
    if X.shape[0] != net.sizes[0] or Y.shape[0] != net.sizes[-1]:
        raise ValueError(
            f"the network maps {net.sizes[0]} inputs to {net.sizes[-1]} outputs but "
            f"X.shape={X.shape}, Y.shape={Y.shape}"
        )
    _check_P(net, X.shape[1])
    lr = check_positive(lr, "lr")
    epochs = check_epochs(epochs)
    seeds = check_seeds(seeds)
    unknown = set(record) - set(RECORDABLE)
    if unknown:
        raise ValueError(f"cannot record {sorted(unknown)}; choose from {RECORDABLE}")
    rec = np.unique(np.asarray(list(record_epochs), int))
    if rec.size and (rec.min() < 0 or rec.max() > epochs):
        raise ValueError(f"record_epochs must lie in 0..{epochs}, got {rec.tolist()}")
    how = devices_.plan(len(seeds), devices, batching)

    if params0 is None:
        inits = [init_params(net, s) for s in seeds]
        stacked = [np.stack([p[i] for p in inits]) for i in range(len(inits[0]))]
    else:
        shapes = [(L.width, net.sizes[l]) for l, L in enumerate(net.layers)] + [
            (net.sizes[-1], net.layers[-1].width)
        ]
        if [np.shape(W) for W in params0] == [(len(seeds), *s) for s in shapes]:
            stacked = [np.asarray(W, float) for W in params0]
        else:
            _check_params(net, params0)
            stacked = [
                np.repeat(np.asarray(W, float)[None], len(seeds), axis=0)
                for W in params0
            ]
    stacked = devices_.pad_seeds(stacked, how)

    inputs = (
        [np.asarray(W, np.float32) for W in _to_rows_stacked(stacked)],
        jax.tree_util.tree_map(np.asarray, _net_arrays(net, jnp.float32)),
        np.asarray(X.T, np.float32),
        np.asarray(Y, np.float32),
        np.float32(lr),
    )
    layout = (how.backend, len(how.devices), how.batching, how.per_device)
    parts = (
        "engine.train",
        _static(net),
        net.coupling,
        inputs,
        epochs,
        rec,
        tuple(sorted(set(record))),
        layout,
    )
    what = f"{net.kind} {net.sizes} x{len(seeds)} seeds, {epochs} epochs"
    static = (_static(net), net.coupling)
    loss, records = store.load_or_make(
        store.key(*parts),
        lambda: _run(static, how, inputs, epochs, rec, record, len(seeds)),
        what,
        portable=store.portable_key(*parts),
        sample=lambda: {
            "static": static,
            "inputs": ([W[:1] for W in inputs[0]], *inputs[1:]),
            "epochs": epochs,
        },
    )
    bad = ~np.isfinite(loss)
    if bad.any():
        s, t = np.argwhere(bad)[0]
        raise TrainingDiverged(
            f"training diverged: the loss became {loss[s, t]} at epoch {t} for seed "
            f"{seeds[s]} "
            f"(lr={lr}); lower the step size or the init scale"
        )
    return Run(
        net=net, seeds=seeds, lr=lr, loss=loss, record_epochs=rec, records=records
    )


def train_sample(sample: dict, epochs: int) -> np.ndarray:
    """Loss ``(epochs + 1,)`` of a kept run's ``sample`` (first seed, one device),
    retrained for at most its ``epochs`` (:mod:`helpers.core.store`)."""
    epochs = min(check_epochs(epochs), int(sample["epochs"]))
    how = devices_.plan(1, 1)
    loss, _ = _run(sample["static"], how, sample["inputs"], epochs, np.zeros(0, int),
                   (), 1)  # fmt: skip
    return loss[0]


def _run(static, how, inputs, epochs, rec, record, n_seeds):
    """Loss ``(S, T)`` float64 and record buffers, trained on the devices."""
    params, arrays, Xr, Yf, lr = inputs
    k, offset, n_full, tail = segments(epochs, rec)
    slots = record_slots(rec, k, offset, n_full)
    what = tuple(sorted(set(record))) if rec.size else ()
    mesh, fn = _compiled(
        how,
        static=static[0],
        coupling=static[1],
        record=what,
        k=k,
        offset=offset,
        n_full=n_full,
        tail=tail,
        n_records=max(int(rec.size), 1),
    )
    put, shared = devices_.put, devices_.SHARED
    loss, bufs = fn(
        [put(W, mesh, devices_.SEEDS) for W in params],
        jax.tree_util.tree_map(lambda a: put(a, mesh, shared), arrays),
        put(Xr, mesh, shared),
        put(Yf, mesh, shared),
        put(lr, mesh, shared),
        put(slots, mesh, shared),
    )
    loss = devices_.get(loss, n_seeds).astype(np.float64)
    records = (
        jax.tree_util.tree_map(lambda b: devices_.get(b, n_seeds), bufs)
        if rec.size
        else {}
    )
    return loss, records


def _to_rows_stacked(stacked):
    return [*(np.swapaxes(W, 1, 2) for W in stacked[:-1]), stacked[-1]]
