"""The depth networks' gates over training ([conv-census]): the census of each hidden
layer per record, and :func:`simulate`, seeds trained and reduced in batches."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import combinations, product
from typing import Callable, Sequence

import numpy as np

from ...core import store
from ...core.checks import check_epochs, check_positive
from ...core.datasets import Dataset
from ...core.engine import GatedNetwork, train
from ...core.measures import (
    functional_census,
    gating_census,
    snap_to_contexts,
    stereotype_index,
    unit_weight,
)
from .networks import EPOCHS, LR

# Census classes of :func:`helpers.core.measures.gating_census`.
CLASSES = ("common", "mixed", "single", "other")
# Entries of the functional census of layer 2 (:func:`layer2_functional`).
FUNCTIONAL = ("snap_change", "common", "mixed", "single", "other")


def _patterns(C: int) -> tuple[str, ...]:
    return tuple("".join(b) for b in product("01", repeat=C))


def layer_census(
    gates, W_in, W_out, contexts, n_contexts: int, threshold: float = 0.5
) -> dict:
    """Gating census of one hidden layer ([conv-census]; ``gates`` ``(H, P)``,
    ``W_in`` ``(H, ·)``, ``W_out`` ``(·, H)``): the class and item-dependent shares,
    ``total`` weight mass, ``mass`` per context pattern and ``always_on`` (the share
    in units active on every datapoint).
    """
    G = np.asarray(gates)
    if G.ndim != 2:
        raise ValueError(f"gates must be (units, datapoints), got shape {G.shape}")
    w = unit_weight(np.asarray(W_in, float), np.asarray(W_out, float))
    if w.shape[0] != G.shape[0]:
        raise ValueError(
            f"{G.shape[0]} units in the gates but {w.shape[0]} in the weights"
        )
    total = float(w.sum())
    pats = _patterns(n_contexts)
    if total <= 0:
        out = {c: 0.0 for c in CLASSES}
        out.update(
            item_dependent=0.0, always_on=0.0, total=0.0, mass={p: 0.0 for p in pats}
        )
        return out
    c = gating_census(G, W_in, W_out, contexts, n_contexts, threshold)
    out = {k: c[k] for k in CLASSES}
    out["item_dependent"] = c["item_dependent"]
    out["always_on"] = float(w[np.all(G > 0, axis=1)].sum() / total)
    out["total"] = total
    out["mass"] = {p: c["patterns"].get(p, 0.0) * total for p in pats}
    return out


def linearised_first_layer(params, X) -> tuple[np.ndarray, np.ndarray]:
    """A bias-free ReLU network's output as trained and with its first hidden layer
    made linear (Section 6)."""
    Ws = [np.asarray(W, float) for W in params]
    if len(Ws) < 3:
        raise ValueError("linearised_first_layer needs at least two hidden layers")
    h_relu = np.maximum(Ws[0] @ X, 0.0)
    h_lin = Ws[0] @ X
    for W in Ws[1:-1]:
        h_relu = np.maximum(W @ h_relu, 0.0)
        h_lin = np.maximum(W @ h_lin, 0.0)
    return Ws[-1] @ h_relu, Ws[-1] @ h_lin


def layer2_functional(
    params, X, contexts, n_contexts: int, threshold: float = 0.5
) -> dict:
    """Functional census of layer 2 of ``W3 relu(W2 relu(W1 X))`` ([conv-census]):
    :func:`functional_census` on ``relu(W1 X)`` (``snap_change`` and class shares),
    and ``linear_change``, the relative output change with layer 2 made linear."""
    Ws = [np.asarray(W, float) for W in params]
    if len(Ws) != 3:
        raise ValueError(
            f"layer2_functional needs the three weight matrices of a two-hidden-layer "
            f"network, got {len(Ws)}"
        )
    X = np.asarray(X, float)
    h1 = np.maximum(Ws[0] @ X, 0.0)
    out = functional_census(Ws[1], Ws[2], h1, contexts, n_contexts, threshold)
    yhat = Ws[2] @ np.maximum(Ws[1] @ h1, 0.0)
    lin = Ws[2] @ (Ws[1] @ h1)
    nrm = np.linalg.norm(yhat)
    out["linear_change"] = (
        float(np.linalg.norm(lin - yhat) / nrm) if nrm > 0 else float("nan")
    )
    return out


def network_snap_change(params, X, contexts, n_contexts: int) -> float:
    """``||yhat_snapped - yhat|| / ||yhat||`` with both hidden layers snapped to
    context-level gates ([rulebook-phase], [conv-census])."""
    W1, W2, W3 = (np.asarray(W, float) for W in params)
    X = np.asarray(X, float)
    pre1 = W1 @ X
    yhat = W3 @ np.maximum(W2 @ np.maximum(pre1, 0.0), 0.0)
    h1 = snap_to_contexts(pre1 > 0, contexts, n_contexts) * pre1
    pre2 = W2 @ h1
    snapped = W3 @ (snap_to_contexts(pre2 > 0, contexts, n_contexts) * pre2)
    nrm = np.linalg.norm(yhat)
    return float(np.linalg.norm(snapped - yhat) / nrm) if nrm > 0 else float("nan")


def non_nested_share(gates, W_in, W_out, items, contexts, n_contexts: int) -> float:
    """Share of a layer's weight in units whose gating is not nested (Lemma 4.1): for
    two contexts neither set of active items contains the other's, which a unit
    additive in item and context cannot do.  ``gates`` ``(H, P)``."""
    G = np.asarray(gates) > 0
    items, contexts = np.asarray(items), np.asarray(contexts)
    w = unit_weight(np.asarray(W_in, float), np.asarray(W_out, float))
    total = float(w.sum())
    if total <= 0:
        return 0.0
    ids = np.unique(items)
    on = np.zeros((G.shape[0], n_contexts, ids.size), bool)
    for c in range(n_contexts):
        for k, i in enumerate(ids):
            cols = (contexts == c) & (items == i)
            if cols.any():
                on[:, c, k] = G[:, cols].any(axis=1)
    bad = np.zeros(G.shape[0], bool)
    for a, b in combinations(range(n_contexts), 2):
        a_only = (on[:, a] & ~on[:, b]).any(axis=1)
        b_only = (on[:, b] & ~on[:, a]).any(axis=1)
        bad |= a_only & b_only
    return float(w[bad].sum() / total)


@dataclass
class DepthRuns:
    """Many seeds of one depth network, reduced (:func:`simulate`).

    ``loss`` ``(S, epochs + 1)``; ``grid`` ``(R,)``; ``outputs`` ``(S, R, p, P)``;
    per hidden layer ``l``: ``mass[l]`` ``(S, R, 2^C)``, ``classes[l]`` ``(S, R, 4)``;
    ``total``, ``always_on``, ``item_dependent``, ``non_nested`` ``(S, R, L)``;
    ``final_shares[thr]`` ``(S, L, 4)``; ``linear_l1_change``, ``linear_l1_loss``,
    ``linear_l2_change``, ``snap_all`` ``(S, R)``; ``functional2`` ``(S, R, 5)``.
    ReLU-only measures are NaN for GDLNs.
    """

    name: str
    net: GatedNetwork
    seeds: tuple[int, ...]
    loss: np.ndarray
    grid: np.ndarray
    outputs: np.ndarray
    patterns: tuple[str, ...]
    mass: list
    classes: list
    total: np.ndarray
    always_on: np.ndarray
    item_dependent: np.ndarray
    final_shares: dict
    linear_l1_change: np.ndarray
    linear_l1_loss: np.ndarray
    linear_l2_change: np.ndarray = None
    functional2: np.ndarray = None
    snap_all: np.ndarray = None
    non_nested: np.ndarray = None
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    @property
    def n_contexts(self) -> int:
        return len(self.patterns[0])

    def class_mass(self, layer: int, cls: str) -> np.ndarray:
        """Weight mass ``(S, R)`` of layer ``layer``'s units in census class ``cls``."""
        if cls not in CLASSES:
            raise ValueError(f"class must be one of {CLASSES}, got {cls!r}")
        return self.classes[layer][:, :, CLASSES.index(cls)]

    def share(self, layer: int, cls: str) -> np.ndarray:
        """Census share ``(S, R)`` of class ``cls`` in layer ``layer`` (0 if empty)."""
        tot = self.total[:, :, layer]
        m = self.class_mass(layer, cls)
        return np.divide(m, tot, out=np.zeros_like(m), where=tot > 0)

    def stereotype(self) -> int:
        """Index of the run closest to the mean loss curve."""
        return stereotype_index(self.loss)

    def functional(self, key: str) -> np.ndarray:
        """``(S, R)``: one entry of layer 2's functional census (:data:`FUNCTIONAL`)."""
        if key not in FUNCTIONAL:
            raise ValueError(f"key must be one of {FUNCTIONAL}, got {key!r}")
        return self.functional2[:, :, FUNCTIONAL.index(key)]


#: The per-record measures of :func:`reduce_record` (fields of :class:`DepthRuns`).
REDUCED = (
    "mass",
    "classes",
    "total",
    "always_on",
    "item_dependent",
    "linear_l1_change",
    "linear_l1_loss",
    "linear_l2_change",
    "functional2",
    "snap_all",
    "non_nested",
)


def record_grid(epochs: int = EPOCHS, every: int = 500) -> np.ndarray:
    """The epochs :func:`simulate` records: every ``every`` from 0, and the last."""
    if int(every) <= 0:
        raise ValueError(f"every must be positive, got every={every}")
    grid = np.arange(0, int(epochs) + 1, int(every))
    return grid if grid[-1] == epochs else np.append(grid, epochs)


def train_seeds(net, ds, seeds, grid, *, epochs=EPOCHS, lr=LR, params0=None):
    """Train a batch of seeds, recording gates, weights and outputs at ``grid``."""
    return train(
        net,
        ds.X,
        ds.Y,
        lr=lr,
        epochs=epochs,
        seeds=list(seeds),
        record_epochs=grid,
        record=("gates", "weights", "outputs"),
        params0=params0,
    )


def _masked(net: GatedNetwork, weights) -> list:
    Ws = list(weights)
    if net.layers[0].in_mask is not None:
        Ws[0] = Ws[0] * net.layers[0].in_mask
    return Ws


def reduce_record(net: GatedNetwork, ds: Dataset, gates, weights) -> dict:
    """The measures :data:`REDUCED` of one seed at one record ([conv-census];
    ``gates`` one ``(H, P)`` per hidden layer); NaN where they do not apply."""
    C, L = ds.n_contexts, net.depth
    relu = net.kind == "relu"
    Ws = _masked(net, weights)
    cs = [layer_census(gates[l], Ws[l], Ws[l + 1], ds.contexts, C) for l in range(L)]
    pats = _patterns(C)
    nan = float("nan")
    out = {
        "mass": np.array([[c["mass"][p] for p in pats] for c in cs]),
        "classes": np.array([[c[k] * c["total"] for k in CLASSES] for c in cs]),
        "total": np.array([c["total"] for c in cs]),
        "always_on": np.array([c["always_on"] for c in cs]),
        "item_dependent": np.array([c["item_dependent"] for c in cs]),
        "linear_l1_change": nan,
        "linear_l1_loss": nan,
        "linear_l2_change": nan,
        "functional2": np.full(len(FUNCTIONAL), nan),
        "snap_all": nan,
        "non_nested": np.full(L, nan),
    }
    if relu and L >= 2:
        y, y_lin = linearised_first_layer(Ws, ds.X)
        nrm = np.linalg.norm(y)
        out["linear_l1_change"] = np.linalg.norm(y - y_lin) / nrm if nrm > 0 else 0.0
        out["linear_l1_loss"] = 0.5 * np.sum((ds.Y - y_lin) ** 2)
    if relu and L == 2:
        f = layer2_functional(Ws, ds.X, ds.contexts, C)
        out["functional2"] = np.array([f[k] for k in FUNCTIONAL])
        out["linear_l2_change"] = f["linear_change"]
        out["snap_all"] = network_snap_change(Ws, ds.X, ds.contexts, C)
    if relu:
        out["non_nested"] = np.array(
            [
                non_nested_share(gates[l], Ws[l], Ws[l + 1], ds.items, ds.contexts, C)
                for l in range(L)
            ]
        )
    return out


def reduce_run(net: GatedNetwork, ds: Dataset, run, thresholds=(0.25, 0.5, 0.75)):
    """A trained batch reduced: ``loss`` ``(B, epochs + 1)``, float32 ``outputs``
    ``(B, R, p, P)``, :data:`REDUCED` as ``(B, R, ...)`` and ``final_shares``
    ``{threshold: (B, L, 4)}``."""
    gates, weights = run.records["gates"], run.records["weights"]
    B, R = np.shape(run.records["outputs"])[:2]
    per = [
        [
            reduce_record(net, ds, [G[j, r] for G in gates], [W[j, r] for W in weights])
            for r in range(R)
        ]
        for j in range(B)
    ]
    out = {k: np.array([[x[k] for x in row] for row in per], float) for k in REDUCED}
    out["loss"] = np.asarray(run.loss, float)
    out["outputs"] = np.asarray(run.records["outputs"], np.float32)
    last = [
        (
            [G[j, R - 1] for G in gates],
            _masked(net, [W[j, R - 1] for W in weights]),
        )
        for j in range(B)
    ]
    out["final_shares"] = {
        float(t): np.array(
            [
                [
                    [
                        layer_census(
                            g[l], Ws[l], Ws[l + 1], ds.contexts, ds.n_contexts, t
                        )[k]
                        for k in CLASSES
                    ]
                    for l in range(net.depth)
                ]
                for g, Ws in last
            ],
            float,
        )
        for t in thresholds
    }
    return out


def simulate(
    net: GatedNetwork,
    ds: Dataset,
    seeds: Sequence[int],
    *,
    name: str = "",
    epochs: int = EPOCHS,
    lr: float = LR,
    every: int = 500,
    batch: int = 2,
    thresholds: Sequence[float] = (0.25, 0.5, 0.75),
    params0: Sequence[np.ndarray] | None = None,
    progress: Callable[[str], None] | None = None,
) -> DepthRuns:
    """Train ``net`` from each seed and reduce the runs, ``batch`` seeds at a time so
    memory does not grow with the seeds; ``params0``: initial weights stacked over
    ``seeds``.  A kept summary (:func:`helpers.core.store.derived`; ``seconds``,
    ``cpu_seconds`` are the maintainer's training)."""
    parts = (net, ds, tuple(int(s) for s in seeds), name, epochs, lr, every, batch)
    parts += (tuple(thresholds), params0)

    def make():
        return _simulate(
            net, ds, seeds, name=name, epochs=epochs, lr=lr, every=every,
            batch=batch, thresholds=thresholds, params0=params0, progress=progress,
        )  # fmt: skip

    return store.derived(
        f"depth census: {name or net.kind}", parts, make, "helpers.chapters.depth"
    )


def _simulate(
    net, ds, seeds, *, name, epochs, lr, every, batch, thresholds, params0, progress
) -> DepthRuns:
    epochs = check_epochs(epochs)
    lr = check_positive(lr, "lr")
    seeds = tuple(int(s) for s in seeds)
    if not seeds:
        raise ValueError("simulate needs at least one seed")
    if int(every) <= 0 or int(batch) <= 0:
        raise ValueError(
            f"every and batch must be positive, got every={every}, batch={batch}"
        )
    grid = record_grid(epochs, every)
    S = len(seeds)
    if params0 is not None:
        params0 = [np.asarray(W, float) for W in params0]
        if any(W.shape[0] != S for W in params0):
            raise ValueError(
                f"params0 must be stacked over the {S} seeds (leading axis)"
            )
    t0, c0 = time.perf_counter(), time.process_time()
    parts = []
    for b0 in range(0, S, int(batch)):
        chunk = seeds[b0 : b0 + int(batch)]
        if progress is not None:
            spent = time.perf_counter() - t0
            left = f", about {spent / b0 * (S - b0):.0f} s left" if b0 else ""
            progress(
                f"{name or net.kind}: seeds {chunk[0]}..{chunk[-1]} of {S} "
                f"({spent:.0f} s so far{left})"
            )
        p0 = None if params0 is None else [W[b0 : b0 + len(chunk)] for W in params0]
        with store.disabled():  # timed (the page's paper-scale estimate): trained
            run = train_seeds(net, ds, chunk, grid, epochs=epochs, lr=lr, params0=p0)
        parts.append(reduce_run(net, ds, run, thresholds))
        del run
    cat = {
        k: np.concatenate([p[k] for p in parts])
        for k in parts[0]
        if k != "final_shares"
    }

    def per_layer(a):
        return [np.ascontiguousarray(a[:, :, l]) for l in range(net.depth)]

    return DepthRuns(
        name=name or net.kind,
        net=net,
        seeds=seeds,
        loss=cat["loss"],
        grid=grid,
        outputs=cat["outputs"],
        patterns=_patterns(ds.n_contexts),
        mass=per_layer(cat["mass"]),
        classes=per_layer(cat["classes"]),
        total=cat["total"],
        always_on=cat["always_on"],
        item_dependent=cat["item_dependent"],
        final_shares={
            t: np.concatenate([p["final_shares"][t] for p in parts])
            for t in parts[0]["final_shares"]
        },
        linear_l1_change=cat["linear_l1_change"],
        linear_l1_loss=cat["linear_l1_loss"],
        linear_l2_change=cat["linear_l2_change"],
        functional2=cat["functional2"],
        snap_all=cat["snap_all"],
        non_nested=cat["non_nested"],
        seconds=time.perf_counter() - t0,
        cpu_seconds=time.process_time() - c0,
    )
