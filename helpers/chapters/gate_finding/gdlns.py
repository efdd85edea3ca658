"""The GDLNs of Algorithm 1's clusterings against the ReLU network, and the elbow
(Defined for the page book/gate_finding.md)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...book.rulebook import kmeans_tie, verdict
from ...core.algorithm1 import (
    Clustering,
    ElbowPoint,
    GateSamples,
    cluster_gates,
    elbow,
    elbow_k,
    gdln_error,
    pathway_widths,
    pattern_strings,
    sample_gates,
)
from ...core.datasets import Dataset, xor
from ...core.engine import Pathway, gdln, relu_network
from ...core.measures import match
from .clusterings import context_level, context_strings


def errors_by_seed(samples: GateSamples, by_k: dict, Ks, n_seeds: int) -> np.ndarray:
    """Eq. gate_finding-error of each GDLN seed against the ReLU training of the same
    seed, ``(K, seed)``."""
    out = samples.run.records["outputs"]
    return np.array(
        [
            [np.mean((out[r] - by_k[K].outputs[r]) ** 2) for r in range(n_seeds)]
            for K in Ks
        ]
    )


@dataclass
class Elbow:
    """Fig. 9 read off the elbow points: errors ``(K, seed)`` and their mean, the
    elbow by the bend rule (also per seed) and the factor-2 rule, time gaps per K."""

    Ks: list
    err_seed: np.ndarray
    errors: np.ndarray
    best_k: int
    best_k_seed: list
    best_k_within: int
    gaps: dict
    relu_loss: np.ndarray

    @property
    def n_seeds(self) -> int:
        return len(self.best_k_seed)


def read_elbow(samples: GateSamples, by_k: dict, n_seeds: int) -> Elbow:
    """The elbow of ``{K: ElbowPoint}`` (Defined for the page book/gate_finding.md)."""
    Ks = list(by_k)
    err_seed = errors_by_seed(samples, by_k, Ks, n_seeds)
    errors = err_seed.mean(axis=1)  # Eq. gate_finding-error, averaged over the seeds
    relu_loss = samples.run.loss[:n_seeds]
    return Elbow(
        Ks,
        err_seed,
        errors,
        elbow_k(Ks, errors),
        [elbow_k(Ks, err_seed[:, r]) for r in range(n_seeds)],
        elbow_k(Ks, errors, rule="within", factor=2.0),
        {K: match(relu_loss, by_k[K].loss) for K in Ks},
        relu_loss,
    )


def elbow_restarts(samples, X, Y, by_k: dict, n_init: int, random_state: int, **gd):
    """Fig. 9's elbow with every ``K`` clustered from ``n_init`` k-means restarts; a
    GDLN is retrained only where the centroids differ from ``by_k``'s.  ``gd``:
    :func:`helpers.core.algorithm1.elbow`'s.  Returns ``{"errors", "best_k",
    "retrained", "k3", "clusterings"}``."""
    if isinstance(n_init, bool) or not isinstance(n_init, (int, np.integer)):
        raise ValueError(f"n_init must be an integer >= 1, got {n_init!r}")
    if n_init < 1:
        raise ValueError(f"n_init must be an integer >= 1, got {n_init!r}")
    Ks = sorted(by_k)
    errors, retrained, k3, cls = [], [], None, {}
    for K in Ks:
        cl = cluster_gates(samples, K, random_state=random_state, n_init=int(n_init))
        k3, cls[K] = (cl if K == 3 else k3), cl
        if np.array_equal(cl.binary, by_k[K].clustering.binary):
            errors.append(float(by_k[K].output_mse))
            continue
        pt = elbow(samples, X, Y, [K], clusterings={K: cl}, **gd)[0]
        errors.append(float(pt.output_mse))
        retrained.append(int(K))
    return {
        "errors": errors,
        "best_k": elbow_k(Ks, errors),
        "retrained": retrained,
        "k3": k3,
        "clusterings": cls,
    }


@dataclass
class Starts:
    """The K = 3 and 4 GDLNs per start: ``points``, the K = 4 match ``m`` (K = 3 the
    alternative) and the table ``rows``."""

    points: dict
    m: dict
    rows: dict


def compare_starts(relu_loss, points: dict) -> Starts:
    """The elbow's GDLNs per start against the ReLU trainings (Defined for the page
    book/gate_finding.md)."""
    m = {
        i: match(relu_loss, d[4].loss, alternative=d[3].loss) for i, d in points.items()
    }
    rows = {
        init: {
            "gap_k4": mi.value,
            "gap_k3": mi.alternative,
            "output_mse_k4": points[init][4].output_mse,
            "final_loss_k4": float(np.median(points[init][4].loss[:, -1])),
            "verdict": verdict(mi),
        }
        for init, mi in m.items()
    }
    return Starts(points, m, rows)


def paper_gdln(cl, ds, gates, widths, ctx_std, items_only, init_std):
    """The GDLN of a clustering: ``gates`` 'binarised' or 'context-level', ``widths``
    per pathway, context pathways at ``ctx_std`` (items only if ``items_only``), the
    all-on one at ``init_std``.  Dead centroids give no pathway; None if none is left.
    """
    items = [i for i, n in enumerate(ds.inputs) if n.startswith("item")]
    pws = []
    for k, p in enumerate(context_strings(cl, ds)):
        if gates != "binarised" and p == "0" * ds.n_contexts:
            continue
        common = p == "1" * ds.n_contexts
        g = cl.binary[k] if gates == "binarised" else context_level(p, ds)
        pws.append(
            Pathway(
                f"c{k + 1}",
                int(widths[k]),
                g.astype(float),
                None if (common or not items_only) else items,
                (init_std if common else ctx_std,) * 2,
            )
        )
    if not pws:
        return None
    return gdln(ds.X.shape[0], ds.Y.shape[0], ds.P, pws)


#: The elbow's GDLN constructions (``elbow_construction``): the paper's (its Section 4
#: ReLN's: context-level, 100 units, items only, twice the std) and the book's
#: (binarised gates, widths by share, every input).
CONSTRUCTIONS = ("paper", "book")


def check_construction(construction: str) -> str:
    """``construction`` if it is one of :data:`CONSTRUCTIONS` (ValueError otherwise)."""
    if construction not in CONSTRUCTIONS:
        raise ValueError(
            f"elbow_construction must be one of {list(CONSTRUCTIONS)}, got "
            f"{construction!r}"
        )
    return construction


def paper_points(
    samples, ds: Dataset, clusterings: dict, init_std: float, *, lr, epochs, n_seeds
) -> dict:
    """``{K: ElbowPoint}``: the elbow's GDLNs built the paper's way, seed ``s``
    against ReLU training ``s`` (Defined for the page book/gate_finding.md)."""
    out = {}
    for K, cl in clusterings.items():
        net = paper_gdln(cl, ds, "context-level", [100] * cl.K, 2 * init_std, True,
                         init_std)  # fmt: skip
        mse, cd, loss, outputs = gdln_error(
            net, ds.X, ds.Y, samples.run, lr=lr, epochs=epochs, n_seeds=n_seeds
        )
        out[K] = ElbowPoint(int(K), cl, net, mse, cd, loss, outputs)
    return out


@dataclass
class Tie:
    """A ``K`` where k-means' runner-up ties the best ([rulebook-ties]), with the
    elbow's ``best_k`` if it takes the best's place."""

    K: int
    runner_up: Clustering
    excess: float
    best_k: int
    point: ElbowPoint


def runner_up(
    samples, best: Clustering, random_states, ds: Dataset, tol: float | None = None
) -> tuple[Clustering | None, float]:
    """k-means' runner-up at ``best.K`` (lowest objective with other context strings
    over single restarts) if it ties the best (:func:`~.rulebook.kmeans_tie`).

    Returns:
        ``(clustering or None, excess)``: the relative objective excess (``inf`` where
        every restart found the best's strings)."""
    states = list(random_states)
    if not states:
        raise ValueError("random_states must list at least one k-means seed")
    key = sorted(context_strings(best, ds))
    other = None
    for rs in states:
        cl = cluster_gates(samples, best.K, random_state=int(rs), n_init=1)
        if sorted(context_strings(cl, ds)) != key and (
            other is None or cl.inertia < other.inertia
        ):
            other = cl
    if other is None:
        return None, float("inf")
    low = min(best.inertia, other.inertia)
    excess = float((other.inertia - best.inertia) / low) if low > 0 else float("inf")
    args = (best.inertia, other.inertia) + (() if tol is None else (tol,))
    return (other if kmeans_tie(*args) else None), excess


def construction_points(
    construction: str, samples, ds: Dataset, clusterings: dict, **gd
) -> dict:
    """``{K: ElbowPoint}`` of ``clusterings`` built with ``construction``; ``gd``:
    :func:`helpers.core.algorithm1.elbow`'s arguments."""
    check_construction(construction)
    if construction == "book":
        pts = elbow(samples, ds.X, ds.Y, list(clusterings), clusterings=clusterings,
                    **gd)  # fmt: skip
        return {p.K: p for p in pts}
    return paper_points(samples, ds, clusterings, gd["init_std"], lr=gd["lr"],
                        epochs=gd["epochs"], n_seeds=gd.get("n_seeds"))  # fmt: skip


def elbow_ties(
    construction: str,
    samples,
    ds: Dataset,
    points: dict,
    read: Elbow,
    random_states,
    **gd,
) -> list:
    """One :class:`Tie` per ``K >= 2`` whose k-means runner-up ties the best
    ([rulebook-ties]; the ``optimum`` variant of ``best_k``), in order of K."""
    out = []
    for K in read.Ks:
        other, excess = (
            (None, 0.0)
            if K < 2
            else runner_up(samples, points[K].clustering, random_states, ds)
        )
        if other is None:
            continue
        pt = construction_points(construction, samples, ds, {K: other}, **gd)[K]
        errors = np.array(read.errors, float)
        errors[read.Ks.index(K)] = errors_by_seed(samples, {K: pt}, [K],
                                                  read.n_seeds).mean()  # fmt: skip
        out.append(Tie(int(K), other, excess, elbow_k(read.Ks, errors), pt))
    return out


@dataclass
class Constructions:
    """The K = 4 GDLN per construction ``(gates, widths, context std, items only)``:
    :func:`gdln_error`'s results and time gaps; the last is the paper's."""

    specs: list
    built: list
    gaps: list

    @property
    def paper_loss(self) -> np.ndarray:
        return self.built[-1][2]


def build_constructions(
    cl, ds: Dataset, samples, specs, width, init_std, *, lr, epochs, n_seeds
) -> Constructions:
    """Train the GDLN of ``cl`` under each construction of ``specs`` (Defined for the
    page book/gate_finding.md)."""
    shares = pathway_widths(cl.shares, width)
    built = [
        gdln_error(
            paper_gdln(cl, ds, g, shares if w == "by share" else [100] * cl.K, sd, io,
                       init_std),
            ds.X, ds.Y, samples.run, lr=lr, epochs=epochs, n_seeds=n_seeds,
        )
        for g, w, sd, io in specs
    ]  # fmt: skip
    relu_loss = samples.run.loss[:n_seeds]
    return Constructions(
        list(specs), built, [match(relu_loss, L).value for _, _, L, _ in built]
    )


def xor_algorithm1(eps, width, init_std, *, lr, epochs, trainings, every, ks, **km):
    """Algorithm 1 on the XoR ReLU network at margin ``eps``: samples, elbow points,
    errors, the elbow by both rules and its binarised centroids (``'1001'``)."""
    d = xor(eps)
    net = relu_network((3, width, 1), init_std)
    smp = sample_gates(
        net, d.X, d.Y, lr=lr, epochs=epochs, seeds=range(trainings), every=every
    )
    pts = elbow(smp, d.X, d.Y, ks, lr=lr, epochs=epochs, init_std=init_std, **km)
    err = np.array([p.output_mse for p in pts])
    k = elbow_k(ks, err)
    return dict(
        samples=smp,
        points=pts,
        errors=err,
        k=k,
        k_within=elbow_k(ks, err, "within"),
        patterns=pattern_strings(pts[k - 1].clustering.binary),
    )
