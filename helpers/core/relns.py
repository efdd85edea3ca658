"""ReLNs of the contextual task ([conv-context-reln], paper Sections 4-5, Fig. 3), and
how a ReLN or GDLN starts ([conv-init]).

The common pathway sees items and contexts and is on for every datapoint; a context
pathway sees the item features only (Appendix F) and is on in a set of contexts:
"C-1 of C" pathways are on in every context but one, single-context pathways in one.

How the gated network's weights start is a choice the paper leaves open (Appendix H:
the mapping holds "as long as the ReLU network and GDLN begin with the same
hyper-parameters"), and it moves the comparison with the ReLU network.  Three choices,
:data:`INITS`, go everywhere a ReLN or GDLN meets a ReLU network:

* ``"authors"``: the values of the authors' code (for the ReLN: common pathway at the
  ReLU network's std, context pathways at twice it);
* ``"matched"``: every weight at the ReLU network's own std (Appendix H read literally);
* ``"derived"``: each pathway starts with the initial strength of the ReLU units that
  gate like it at initialisation (:func:`derived_stds`): nothing is fitted to a loss.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import numpy as np

from .datasets import Dataset, context_gate
from .engine import GatedNetwork, Pathway, forward, gdln, init_params
from .measures import snap_to_contexts
from .paper import CONTEXTS

__all__ = [
    "RELN_KINDS",
    "INITS",
    "item_rows",
    "WIDTH",
    "STD_COMMON",
    "STD_CONTEXT",
    "context_pathways",
    "context_reln",
    "common_fit",
    "derived_stds",
    "with_stds",
    "initial_weights",
    "reln_initial_weights",
]

INITS = ("authors", "matched", "derived")

# The authors' ReLN: 100 units per pathway; init std 0.005/700 (common), 0.01/700
# (context).
WIDTH = CONTEXTS.reln_width
STD_COMMON = CONTEXTS.reln_std_common
STD_CONTEXT = CONTEXTS.reln_std_context

RELN_KINDS = ("mixed", "single", "both", "common")


def item_rows(ds: Dataset) -> list[int]:
    """The rows of ``X`` that describe the item (every row but the context one-hot rows,
    which are named ``ctx1``, ``ctx2``, ...): what a context pathway sees."""
    return [i for i, name in enumerate(ds.inputs) if not name.startswith("ctx")]


def context_pathways(
    ds: Dataset,
    on: int,
    width: int = WIDTH,
    std: float = STD_CONTEXT,
    prefix: str = "ctx",
):
    """One pathway per set of ``on`` contexts out of C, seeing the item inputs only.

    ``on = C - 1`` gives the mixed-selective pathways, ``on = 1`` the single-context
    ones. Names list the contexts the pathway is on in, 1-based: ``'ctx12'`` is on in 1
    and 2.
    """
    C = ds.n_contexts
    if not 1 <= on <= C:
        raise ValueError(f"a context pathway must be on in 1..{C} contexts, got {on}")
    items = item_rows(ds)
    out = []
    for subset in combinations(range(C), on):
        label = "".join(str(c + 1) for c in subset)
        out.append(
            Pathway(
                f"{prefix}{label}", width, context_gate(ds, subset), items, (std, std)
            )
        )
    return out


def context_reln(
    ds: Dataset,
    kind: str = "both",
    coupling: str = "one-way",
    width: int = WIDTH,
    std_common: float = STD_COMMON,
    std_context: float = STD_CONTEXT,
) -> GatedNetwork:
    """The ReLN of Sections 4-5: a common pathway plus context pathways.

    ``kind``: ``'mixed'`` (common + C-1-of-C), ``'single'`` (common + single-context),
    ``'both'`` (common + both sets: 7 pathways for C = 3, as in Fig. 4a) or
    ``'common'`` (the common pathway alone).  ``coupling``: ``'one-way'`` (as the
    authors train it) or ``'full'`` ([conv-context-reln]).
    """
    if kind not in RELN_KINDS:
        raise ValueError(f"kind must be one of {RELN_KINDS}, got {kind!r}")
    C = ds.n_contexts
    pws = [Pathway("common", width, None, None, (std_common, std_common), common=True)]
    if kind in ("mixed", "both") and C > 1:
        pws += context_pathways(ds, C - 1, width, std_context)
    if kind in ("single", "both"):
        singles = context_pathways(ds, 1, width, std_context)
        if C == 2 and kind == "both":
            singles = []  # for C = 2 the single-context and C-1-of-C sets coincide
        pws += singles
    return gdln(ds.X.shape[0], ds.Y.shape[0], ds.P, pws, coupling=coupling)


def common_fit(ds: Dataset) -> tuple[np.ndarray, np.ndarray]:
    """The common pathway's converged map and residual (Appendix F, [conv-contextual]).

    A linear network from small weights converges to the least-squares map
    ``W* = Sigma_yx Sigma_x^+``; returns ``(W*, R* = Y - W* X)``.
    """
    W = (ds.Y @ ds.X.T) @ np.linalg.pinv(ds.X @ ds.X.T)
    return W, ds.Y - W @ ds.X


def derived_stds(
    relu_gates0, pathway_gates: dict, widths: dict, relu_std: float
) -> dict:
    """The ``"derived"`` initialisation ([conv-init]): a std per pathway from the ReLU
    network's gates at initialisation.

    A block of ``H`` units whose two weight matrices start at std ``sigma`` has the
    effective initial mode strength ``H sigma^2 / 2`` (Appendix A; the same for every
    mode).  Each ReLU unit that is on somewhere is assigned to the pathway whose gate is
    nearest to its own (fewest datapoints differ; a tie splits the unit), and pathway
    ``p`` gets ``sigma_p = relu_std sqrt(n_p / H_p)``, so that it starts as strong as
    the ``n_p`` ReLU units that gate like it (at least one unit's worth).

    ``relu_gates0``: the ReLU layer's gates at epoch 0 (``units x P``, 0/1), snapped to
    the level the pathways are defined at (e.g.
    :func:`helpers.core.measures.snap_to_contexts`); ``pathway_gates``: ``{name: gate
    over P}``; ``widths``: ``{name: units}``.
    """
    G = np.asarray(relu_gates0, float)
    names = list(pathway_gates)
    P = np.stack([np.asarray(pathway_gates[n], float) for n in names])
    if P.shape[1] != G.shape[1]:
        raise ValueError(
            f"pathway gates cover {P.shape[1]} datapoints, the ReLU gates {G.shape[1]}"
        )
    counts = np.zeros(len(names))
    for g in G[G.sum(axis=1) > 0]:
        d = np.abs(P - g).sum(axis=1)
        near = d == d.min()
        counts[near] += 1.0 / near.sum()
    return {
        n: float(relu_std * np.sqrt(max(c, 1.0) / widths[n]))
        for n, c in zip(names, counts)
    }


def with_stds(net: GatedNetwork, stds: dict, layer: int = -1) -> GatedNetwork:
    """``net`` with the pathways named in ``stds`` starting at that std (incoming and,
    in the last hidden layer, readout weights)."""
    layers = list(net.layers)
    L = layers[layer]
    in_std, out_std = L.in_std.copy(), L.out_std.copy()
    for name, sl in L.pathways:
        if name in stds:
            in_std[sl] = stds[name]
            out_std[sl] = stds[name]
    unknown = set(stds) - {n for n, _ in L.pathways}
    if unknown:
        raise KeyError(
            f"no pathways {sorted(unknown)} in layer {layer}; "
            f"have {[n for n, _ in L.pathways]}"
        )
    layers[layer] = replace(L, in_std=in_std, out_std=out_std)
    return replace(net, layers=tuple(layers))


def initial_weights(nets_per_seed, seeds) -> list[np.ndarray]:
    """Initial weights stacked over seeds (``params0`` for
    :func:`helpers.core.engine.train`):
    seed ``s`` drawn from its own network (the same architecture, its own stds)."""
    inits = [init_params(n, s) for n, s in zip(nets_per_seed, seeds)]
    return [np.stack([p[i] for p in inits]) for i in range(len(inits[0]))]


def reln_initial_weights(
    reln: GatedNetwork,
    ds: Dataset,
    init: str,
    seeds,
    relu_net: GatedNetwork,
    relu_std: float,
):
    """``(net, params0)`` for a contextual ReLN started by ``init`` ([conv-init]).

    ``"authors"``: ``reln`` as built (the authors' stds), ``params0`` None (the engine
    draws it); ``"matched"``: every pathway at ``relu_std``; ``"derived"``: per seed,
    :func:`derived_stds` from the ReLU network ``relu_net`` of the same seed (its gates
    at epoch 0, snapped to contexts), returned as stacked ``params0``, and the network
    of the first seed (its stds, e.g. for a prediction's initial strengths).
    """
    if init not in INITS:
        raise ValueError(f"init must be one of {INITS}, got {init!r}")
    names = reln.pathway_names()
    if init == "authors":
        return reln, None
    if init == "matched":
        return with_stds(reln, {n: relu_std for n in names}), None
    gates = {n: reln.layers[-1].gating[reln.pathway_slice(n)][0] for n in names}
    widths = {
        n: reln.pathway_slice(n).stop - reln.pathway_slice(n).start for n in names
    }
    nets = []
    for s in seeds:
        _, _, gs = forward(relu_net, init_params(relu_net, s), ds.X)
        snapped = snap_to_contexts(gs[0], ds.contexts, ds.n_contexts)
        nets.append(with_stds(reln, derived_stds(snapped, gates, widths, relu_std)))
    return nets[0], initial_weights(nets, seeds)
