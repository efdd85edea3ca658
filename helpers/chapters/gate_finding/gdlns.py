"""The GDLNs Algorithm 1's clusterings give, held against the ReLU network: the elbow
read off their errors, under other k-means restarts, each start and construction, and
Algorithm 1 on the XoR networks.

Defined for the page book/gate_finding.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...book.rulebook import verdict
from ...core.algorithm1 import (
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
    """Fig. 9 read off the elbow points: the ``Ks``, the error per K and GDLN seed
    (``err_seed``) and its mean (``errors``), the elbow by the bend rule (``best_k``;
    per seed ``best_k_seed``) and by the factor-2 rule (``best_k_within``), the time
    gaps to ``relu_loss`` (the ReLU trainings the GDLNs face) per K."""

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
    """The elbow of the page's points ``{K: ElbowPoint}`` (Defined for the page
    book/gate_finding.md)."""
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
    """Fig. 9's elbow again with every ``K`` clustered from ``n_init`` k-means restarts
    (the ``restarts`` variant of ``best_k``).

    Args:
        samples: the sampled gates (:func:`helpers.core.algorithm1.sample_gates`).
        X, Y: the task's input and target.
        by_k: ``{K: ElbowPoint}`` of the page's own elbow (its restarts).
        n_init: k-means restarts, at least 1.
        random_state: k-means' seed.
        **gd: the arguments of :func:`helpers.core.algorithm1.elbow` (the GDLNs).

    Returns:
        ``{"errors": [...], "best_k": K*, "retrained": [K, ...], "k3": Clustering}``:
        the seed-averaged output error per ``K`` (a GDLN is trained again only where
        the binarised centroids differ from the page's; the others keep its error),
        the bend rule's elbow, the ``K`` retrained, and the ``K = 3`` clustering.
    """
    if isinstance(n_init, bool) or not isinstance(n_init, (int, np.integer)):
        raise ValueError(f"n_init must be an integer >= 1, got {n_init!r}")
    if n_init < 1:
        raise ValueError(f"n_init must be an integer >= 1, got {n_init!r}")
    Ks = sorted(by_k)
    errors, retrained, k3 = [], [], None
    for K in Ks:
        cl = cluster_gates(samples, K, random_state=random_state, n_init=int(n_init))
        k3 = cl if K == 3 else k3
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
    }


@dataclass
class Starts:
    """The K = 3 and 4 GDLNs under each start: their ``points`` (``{start: {K:
    ElbowPoint}}``), the K = 4 GDLN's match to the ReLU trainings (``m``, K = 3 the
    alternative) and the table's ``rows`` per start (gaps, output error, final loss,
    verdict)."""

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
    """The GDLN of a clustering built as chosen: ``gates`` 'binarised' (the
    centroids) or 'context-level' (their context strings), ``widths`` per pathway,
    the context pathways at ``ctx_std`` and the all-on one at ``init_std``, the
    context pathways seeing the items only when ``items_only`` (the Section 4 ReLN:
    'context-level', 100 each, twice the std, items only)."""
    items = [i for i, n in enumerate(ds.inputs) if n.startswith("item")]
    pws = []
    for k, p in enumerate(context_strings(cl, ds)):
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
    return gdln(ds.X.shape[0], ds.Y.shape[0], ds.P, pws)


@dataclass
class Constructions:
    """The K = 4 GDLN under each construction: ``specs`` ``(gates, widths, context
    std, items only)``, what :func:`gdln_error` returned for each (``built``) and
    their time gaps to the ReLU trainings (``gaps``); the last is the paper's."""

    specs: list
    built: list
    gaps: list

    @property
    def paper_loss(self) -> np.ndarray:
        return self.built[-1][2]


def build_constructions(
    cl, ds: Dataset, samples, specs, width, init_std, *, lr, epochs, n_seeds
) -> Constructions:
    """Train the GDLN of ``cl`` under each construction of ``specs`` (widths 'by
    share' of ``width`` or '100 each'; Defined for the page book/gate_finding.md)."""
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
    """Algorithm 1 on the XoR ReLU network at margin ``eps``: the samples, the elbow
    points, errors, the elbow by both rules and the binarised centroids at it
    (per datapoint, ``'1001'``); ``km``: k-means' ``random_state`` and ``n_init``."""
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
