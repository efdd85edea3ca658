"""Algorithm 1: a ReLU network's gates by k-means (Appendix B, [conv-gate-finding]).

Activity rows ``step(W h)`` of one hidden layer, sampled every ``every`` epochs over
several trainings, are clustered into ``K`` gating patterns over the ``P`` datapoints;
the elbow (Fig. 9) trains a GDLN per ``K`` and measures its output error.  Choices the
paper leaves open: binarisation at frequency >= 1/2; widths: the ReLU width split by
cluster shares (largest remainder) at the ReLU init std (Definition 3.1), no pathway
for a centroid off everywhere; the start ([conv-init]); the error: output MSE over
entries, datapoints and sampled epochs, seed against seed; the rule (:func:`elbow_k`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .checks import check_epochs, check_positive, check_positive_int
from .engine import GatedNetwork, Pathway, Run, deep_gdln, train
from .measures import context_patterns, curve_distance
from .relns import check_start, start

SAMPLE_EVERY = 100  # Algorithm 1: "if j mod 100 = 0"


@dataclass
class GateSamples:
    """Algorithm 1's stacked activity rows, duplicates collapsed: ``patterns``
    ``(n_unique, P)`` bool with ``counts`` (weighted k-means = k-means on the stack);
    ``run``: the ReLU training; ``layer``: the sampled hidden layer (0-based)."""

    patterns: np.ndarray
    counts: np.ndarray
    epochs: np.ndarray
    run: Run
    layer: int
    width: int
    index: np.ndarray = field(repr=False, default=None)

    @property
    def n_samples(self) -> int:
        return int(self.counts.sum())

    @property
    def P(self) -> int:
        return int(self.patterns.shape[1])


@dataclass
class Clustering:
    """``K`` k-means centroids ``(K, P)`` of frequencies, with ``shares`` of the rows,
    ``inertia`` and per-row ``labels``; sorted by binarised pattern then share, so
    the order does not depend on k-means' labels."""

    K: int
    centroids: np.ndarray
    shares: np.ndarray
    inertia: float
    labels: np.ndarray = field(repr=False, default=None)
    threshold: float = 0.5

    @property
    def binary(self) -> np.ndarray:
        return self.centroids >= self.threshold

    @property
    def alive(self) -> np.ndarray:
        return self.binary.any(axis=1)


def sample_epochs(epochs: int, every: int = SAMPLE_EVERY) -> np.ndarray:
    """Algorithm 1's sample epochs ``1, 1 + every, ...`` (after update ``j + 1``)."""
    epochs = check_epochs(epochs)
    every = check_positive_int(every, "every")
    return np.arange(1, epochs + 1, every)


def sample_gates(
    net: GatedNetwork,
    X,
    Y,
    *,
    lr: float,
    epochs: int,
    seeds: int | Sequence[int],
    every: int = SAMPLE_EVERY,
    layer: int = 0,
) -> GateSamples:
    """Algorithm 1's sampling (Appendix B): train per seed, recording gates of
    ``layer`` and outputs every ``every`` epochs."""
    if net.kind != "relu":
        raise ValueError(
            f"Algorithm 1 samples a ReLU network's gates; got a network of kind "
            f"{net.kind!r}"
        )
    if not isinstance(layer, (int, np.integer)) or not 0 <= layer < net.depth:
        raise ValueError(
            f"layer must index a hidden layer, 0..{net.depth - 1}; got {layer!r}"
        )
    rec = sample_epochs(epochs, every)
    run = train(
        net,
        X,
        Y,
        lr=lr,
        epochs=epochs,
        seeds=seeds,
        record_epochs=rec,
        record=("gates", "outputs"),
    )
    return samples_from_run(run, layer)


def samples_from_run(
    run: Run,
    layer: int = 0,
    epochs: Sequence[int] | None = None,
    trainings: Sequence[int] | None = None,
) -> GateSamples:
    """:class:`GateSamples` of ``layer``'s recorded gates (optionally only the
    ``epochs`` and ``trainings``, indices into ``run.seeds``)."""
    if "gates" not in run.records:
        raise ValueError("the run holds no gates: train it with record=('gates', ...)")
    if not isinstance(layer, (int, np.integer)) or not 0 <= layer < len(
        run.records["gates"]
    ):
        raise ValueError(
            "layer must index a recorded hidden layer, "
            f"0..{len(run.records['gates']) - 1}; got {layer!r}"
        )
    G = run.records["gates"][layer]  # (seeds, R, H, P) bool
    rec = run.record_epochs
    if epochs is not None:
        idx = [run.index(int(e)) for e in epochs]
        if not idx:
            raise ValueError("epochs lists no recorded epoch")
        G, rec = G[:, idx], rec[idx]
    if trainings is not None:
        tr = [int(i) for i in trainings]
        if not tr or min(tr) < 0 or max(tr) >= G.shape[0]:
            raise ValueError(
                f"trainings must index 0..{G.shape[0] - 1}, got {list(trainings)}"
            )
        G = G[tr]
    rows = G.reshape(-1, G.shape[-1])
    patterns, inverse, counts = np.unique(
        rows, axis=0, return_inverse=True, return_counts=True
    )
    return GateSamples(
        patterns=patterns.astype(bool),
        counts=counts,
        epochs=np.asarray(rec),
        run=run,
        layer=int(layer),
        width=int(G.shape[2]),
        index=inverse.reshape(G.shape[:3]),
    )


def cluster_gates(
    samples: GateSamples,
    K: int,
    *,
    random_state: int = 0,
    n_init: int = 10,
    threshold: float = 0.5,
) -> Clustering:
    """Weighted k-means of the rows (scikit-learn, fixed ``random_state``), on one
    OpenMP thread: many threads on a small problem are far slower."""
    from sklearn.cluster import KMeans
    from threadpoolctl import threadpool_limits

    if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or K < 1:
        raise ValueError(f"K must be a positive integer number of clusters, got {K!r}")
    if K > len(samples.patterns):
        raise ValueError(
            f"K={K} clusters but only {len(samples.patterns)} distinct activity rows "
            f"were sampled"
        )
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must lie in (0, 1], got {threshold}")
    U = samples.patterns.astype(float)
    w = samples.counts.astype(float)
    with threadpool_limits(limits=1, user_api="openmp"):
        km = KMeans(n_clusters=int(K), random_state=random_state, n_init=n_init).fit(
            U, sample_weight=w
        )
    centroids = km.cluster_centers_
    shares = np.bincount(km.labels_, weights=w, minlength=K) / w.sum()
    b = centroids >= threshold
    order = sorted(
        range(K), key=lambda k: (-b[k].sum(), tuple(-b[k].astype(int)), -shares[k])
    )
    rank = np.empty(K, int)
    rank[order] = np.arange(K)
    return Clustering(
        K=int(K),
        centroids=centroids[order],
        shares=shares[order],
        inertia=float(km.inertia_),
        labels=rank[km.labels_],
        threshold=threshold,
    )


def pattern_strings(binary, contexts=None, n_contexts: int = 0) -> list[str]:
    """On/off strings per context (``'110'``) if ``contexts``, else per datapoint."""
    B = np.atleast_2d(np.asarray(binary, float))
    if contexts is None:
        return ["".join("1" if v else "0" for v in row) for row in B]
    if n_contexts < 1:
        raise ValueError("pattern_strings: give n_contexts >= 1 with contexts")
    pats, _ = context_patterns(B, contexts, n_contexts)
    return pats


def pathway_widths(shares, width: int) -> np.ndarray:
    """Split ``width`` hidden units in proportion to ``shares`` (largest remainder)."""
    s = np.asarray(shares, float)
    if s.ndim != 1 or s.size == 0 or np.any(s < 0) or s.sum() <= 0:
        raise ValueError(
            f"shares must be a non-empty vector of non-negative numbers, got {shares}"
        )
    if isinstance(width, bool) or not isinstance(width, (int, np.integer)) or width < 1:
        raise ValueError(f"width must be a positive integer, got {width!r}")
    exact = s / s.sum() * width
    w = np.floor(exact).astype(int)
    rest = width - w.sum()
    w[np.argsort(-(exact - w), kind="stable")[:rest]] += 1
    return w


def centroid_gdln(
    clustering: Clustering,
    d: int,
    p: int,
    *,
    width: int,
    init_std: float,
    first_layer: int | None = None,
    first_std: float | None = None,
) -> GatedNetwork | None:
    """A GDLN, one pathway per live binarised centroid (Appendix B), or None.
    ``first_layer``: width of an always-on first layer before the centroid layer (the
    depth network, Section 6, [conv-contextual])."""
    init_std = check_positive(init_std, "init_std")
    P = clustering.centroids.shape[1]
    widths = pathway_widths(clustering.shares, width)
    keep = [k for k in range(clustering.K) if clustering.alive[k] and widths[k] > 0]
    if not keep:
        return None
    pws = [
        Pathway(
            f"c{k + 1}",
            int(widths[k]),
            clustering.binary[k].astype(float),
            None,
            (init_std, init_std),
        )
        for k in keep
    ]
    if first_layer is None:
        return deep_gdln(d, p, P, [pws])
    std1 = check_positive(init_std if first_std is None else first_std, "first_std")
    layer1 = [Pathway("layer1", int(first_layer), None, None, (std1, std1))]
    return deep_gdln(d, p, P, [layer1, pws])


@dataclass
class ElbowPoint:
    """One ``K`` of the elbow: its clustering, GDLN, errors and GDLN loss curves."""

    K: int
    clustering: Clustering
    net: GatedNetwork | None
    output_mse: float
    curve_distance: float
    loss: np.ndarray
    outputs: np.ndarray = field(repr=False, default=None)


def gdln_error(
    net: GatedNetwork | None,
    X,
    Y,
    relu_run: Run,
    *,
    lr: float,
    epochs: int,
    n_seeds: int | None = None,
    params0=None,
):
    """Train ``net`` (None: output 0) on the ReLU run's first ``n_seeds`` seeds and
    compare (Fig. 9).  Returns ``(output_mse, curve_distance, loss, outputs)``, loss
    ``(seeds, epochs + 1)``."""
    rec = relu_run.record_epochs
    if (
        "outputs" not in relu_run.records
        or relu_run.records["outputs"].shape[1] != rec.size
    ):
        raise ValueError(
            "the ReLU run must hold outputs at its record epochs: record=('outputs', "
            "...)"
        )
    if relu_run.loss.shape[1] != epochs + 1:
        raise ValueError(
            f"the ReLU run has {relu_run.loss.shape[1] - 1} epochs, not {epochs}"
        )
    n = len(relu_run.seeds) if n_seeds is None else int(n_seeds)
    if not 1 <= n <= len(relu_run.seeds):
        raise ValueError(
            f"n_seeds must lie in 1..{len(relu_run.seeds)}, got {n_seeds!r}"
        )
    O_relu = relu_run.records["outputs"][:n]
    L_relu = relu_run.loss[:n]
    if net is None:
        Y = np.asarray(Y, float)
        loss = np.full_like(L_relu, 0.5 * np.sum(Y**2))
        outputs = np.zeros_like(O_relu)
    else:
        run = train(
            net,
            X,
            Y,
            lr=lr,
            epochs=epochs,
            seeds=relu_run.seeds[:n],
            record_epochs=rec,
            record=("outputs",),
            params0=params0,
        )
        loss, outputs = run.loss, run.records["outputs"]
    mse = float(np.mean((O_relu - outputs) ** 2))
    cd = float(np.mean([curve_distance(a, b) for a, b in zip(L_relu, loss)]))
    return mse, cd, loss, outputs


def elbow(
    samples: GateSamples,
    X,
    Y,
    Ks: Sequence[int],
    *,
    lr: float,
    epochs: int,
    init_std: float,
    first_layer: int | None = None,
    first_std: float | None = None,
    random_state: int = 0,
    n_init: int = 10,
    n_seeds: int | None = None,
    clusterings: dict | None = None,
    init: str | None = None,
    experiment: str | None = None,
    relu_net: GatedNetwork | None = None,
    contexts=None,
) -> list[ElbowPoint]:
    """Per ``K``: cluster (or reuse ``clusterings``), build, train and score the
    centroid GDLN (Appendix B, Fig. 9).  ``init``: None (as built, ``init_std``) or a
    :func:`helpers.core.relns.start` choice on the centroid layer at datapoint level."""
    if init is not None:
        check_start(init, experiment, "datapoints")
    X = np.asarray(X, float)
    Y = np.asarray(Y, float)
    run = samples.run
    n = len(run.seeds) if n_seeds is None else int(n_seeds)
    seeds = [int(s) for s in run.seeds[:n]]
    out = []
    for K in Ks:
        cl = (clusterings or {}).get(K) or cluster_gates(
            samples, K, random_state=random_state, n_init=n_init
        )
        net = centroid_gdln(
            cl,
            X.shape[0],
            Y.shape[0],
            width=samples.width,
            init_std=init_std,
            first_layer=first_layer,
            first_std=first_std,
        )
        net_s, params0 = net, None
        if init is not None and net is not None:
            net_s, params0 = start(
                net,
                init,
                seeds,
                experiment=experiment,
                relu_net=relu_net,
                relu_std=init_std,
                X=X,
                contexts=contexts,
                layers=[net.depth - 1],
                level="datapoints",
            )
        mse, cd, loss, outputs = gdln_error(
            net_s, X, Y, run, lr=lr, epochs=epochs, n_seeds=n_seeds, params0=params0
        )
        out.append(
            ElbowPoint(
                K=int(K),
                clustering=cl,
                net=net,
                output_mse=mse,
                curve_distance=cd,
                loss=loss,
                outputs=outputs,
            )
        )
    return out


def elbow_k(
    Ks: Sequence[int], errors: Sequence[float], rule: str = "bend", factor: float = 2.0
) -> int:
    """The elbow of Fig. 9 ([conv-gate-finding]) of consecutive ``Ks``: ``'bend'``,
    the most log-convex inner ``K`` (ties: smaller), or ``'within'``, the smallest
    ``K`` within ``factor`` of the least error."""
    if rule not in ("bend", "within"):
        raise ValueError(f"rule must be 'bend' or 'within', got {rule!r}")
    Ks = np.asarray(list(Ks), int)
    e = np.asarray(list(errors), float)
    if Ks.shape != e.shape or Ks.size < 3:
        raise ValueError(
            f"elbow_k needs at least 3 values of K with one error each, got {Ks.size} "
            f"and {e.size}"
        )
    if np.any(np.diff(Ks) != 1):
        raise ValueError(f"elbow_k needs consecutive K, got {Ks.tolist()}")
    if np.any(~np.isfinite(e)) or np.any(e <= 0):
        raise ValueError(f"elbow_k needs positive finite errors, got {e.tolist()}")
    if rule == "within":
        if not factor >= 1:
            raise ValueError(f"factor must be >= 1, got {factor}")
        return int(Ks[np.flatnonzero(e <= factor * e.min())[0]])
    le = np.log(e)
    bend = le[:-2] - 2 * le[1:-1] + le[2:]
    return int(Ks[1 + int(np.argmax(bend))])
