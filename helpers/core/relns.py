"""ReLNs of the contextual task ([conv-context-reln], Sections 4-5, Fig. 3) and how a
ReLN or GDLN starts ([conv-init]).

The common pathway sees items and contexts and is always on; a context pathway sees
the items only (Appendix F) and is on in a set of contexts (C-1 of C, or one).
The start is a choice the paper leaves open (Appendix H); :data:`INITS`, all through
:func:`start`: ``"authors"`` (the authors' code, ``[authors_init.<experiment>]`` of
``paper.toml``), ``"matched"`` (every weight at the ReLU network's std) and
``"derived"`` (:func:`derived_stds`; nothing fitted to a loss).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import combinations
from typing import Sequence

import numpy as np

from .datasets import Dataset, context_gate
from .engine import GatedNetwork, Pathway, forward, gdln, init_params, train
from .measures import context_patterns, snap_to_contexts
from .paper import CONTEXTS, INIT_EXPERIMENTS, INITS, authors_init

#: Where ``"derived"`` reads the ReLU gates: snapped to contexts, or per datapoint.
LEVELS = ("contexts", "datapoints")

WIDTH = CONTEXTS.reln_width
STD_COMMON = CONTEXTS.reln_std_common
STD_CONTEXT = CONTEXTS.reln_std_context

RELN_KINDS = ("mixed", "single", "both", "common")


def item_rows(ds: Dataset) -> list[int]:
    """Rows of ``X`` that are not context one-hots: what a context pathway sees."""
    return [i for i, name in enumerate(ds.inputs) if not name.startswith("ctx")]


def context_pathways(
    ds: Dataset,
    on: int,
    width: int = WIDTH,
    std: float = STD_CONTEXT,
    prefix: str = "ctx",
):
    """One item-only pathway per set of ``on`` of C contexts, named by its contexts,
    1-based (``'ctx12'``)."""
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


def pathway_pattern(name: str, n_contexts: int) -> str:
    """The pattern (``'110'``) of a pathway name (``'common'``, ``'ctx12'``)."""
    if name == "common":
        return "1" * n_contexts
    if not name.startswith("ctx") or not name[3:].isdigit():
        raise ValueError(f"not a contextual pathway name: {name!r}")
    on = {int(ch) for ch in name[3:]}
    if not on <= set(range(1, n_contexts + 1)):
        raise ValueError(f"pathway {name!r} names contexts outside 1..{n_contexts}")
    return "".join("1" if c in on else "0" for c in range(1, n_contexts + 1))


def context_reln(
    ds: Dataset,
    kind: str = "both",
    coupling: str = "one-way",
    width: int = WIDTH,
    std_common: float = STD_COMMON,
    std_context: float = STD_CONTEXT,
) -> GatedNetwork:
    """The ReLN of Sections 4-5: common pathway plus ``kind`` context pathways
    (``'mixed'``: C-1 of C, ``'single'``, ``'both'``: Fig. 4a, ``'common'``: none);
    ``coupling`` ``'one-way'`` (authors) or ``'full'`` ([conv-context-reln])."""
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


def k_of_c_reln(
    ds: Dataset,
    ks: Sequence[int],
    coupling: str = "one-way",
    width: int = WIDTH,
    std_common: float = STD_COMMON,
    std_context: float = STD_CONTEXT,
    common_width: int | None = None,
) -> GatedNetwork:
    """Common pathway plus every k-of-C pathway for ``k`` in ``ks`` ([rulebook-best]
    family; ``k = C``: an item-only all-context pathway); the common one
    ``common_width`` wide where given."""
    C = ds.n_contexts
    ks = sorted({int(k) for k in ks}, reverse=True)
    if not ks or not all(1 <= k <= C for k in ks):
        raise ValueError(f"ks must be context counts in 1..{C}, got {ks}")
    wc = width if common_width is None else int(common_width)
    if wc < 1:
        raise ValueError(f"common_width must be >= 1, got {common_width}")
    pws = [Pathway("common", wc, None, None, (std_common, std_common), common=True)]
    for k in ks:
        pws += context_pathways(
            ds, k, width, std_context, prefix="ctx" if k < C else "all"
        )
    return gdln(ds.X.shape[0], ds.Y.shape[0], ds.P, pws, coupling=coupling)


def common_fit(ds: Dataset) -> tuple[np.ndarray, np.ndarray]:
    """``(W* = Sigma_yx Sigma_x^+, Y - W* X)``: the common pathway's converged map and
    residual (Appendix F, [conv-contextual])."""
    W = (ds.Y @ ds.X.T) @ np.linalg.pinv(ds.X @ ds.X.T)
    return W, ds.Y - W @ ds.X


def derived_stds(
    relu_gates0, pathway_gates: dict, widths: dict, relu_std: float
) -> dict:
    """The ``"derived"`` stds ([conv-init]): each active ReLU unit goes to the
    pathway of nearest gate (ties split); ``sigma_p = relu_std sqrt(n_p / H_p)``, so
    pathway ``p`` starts as strong (``H sigma^2 / 2``, Appendix A) as its ``n_p`` units.
    ``relu_gates0``: epoch-0 gates ``(units, P)``, snapped to the pathways' level;
    ``pathway_gates``: ``{name: (P,)}``; ``widths``: ``{name: units}``."""
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
    """``net`` with the named pathways at std (or a pair ``(incoming, readout)``)."""
    layers = list(net.layers)
    L = layers[layer]
    in_std, out_std = L.in_std.copy(), L.out_std.copy()
    for name, sl in L.pathways:
        if name in stds:
            s_in, s_out = np.broadcast_to(np.asarray(stds[name], float), (2,))
            in_std[sl] = s_in
            out_std[sl] = s_out
    unknown = set(stds) - {n for n, _ in L.pathways}
    if unknown:
        raise KeyError(
            f"no pathways {sorted(unknown)} in layer {layer}; "
            f"have {[n for n, _ in L.pathways]}"
        )
    layers[layer] = replace(L, in_std=in_std, out_std=out_std)
    return replace(net, layers=tuple(layers))


def initial_weights(nets_per_seed, seeds) -> list[np.ndarray]:
    """``params0`` for :func:`helpers.core.engine.train`: each seed from its own net."""
    inits = [init_params(n, s) for n, s in zip(nets_per_seed, seeds)]
    return [np.stack([p[i] for p in inits]) for i in range(len(inits[0]))]


@dataclass(frozen=True, eq=False)
class Start:
    """How a ReLN or GDLN starts (:func:`start`); unpacks as ``net, params0``: the first
    seed's network and weights stacked over seeds (None when all seeds share stds);
    ``nets``: one network per seed."""

    net: GatedNetwork | None
    params0: list | None
    nets: tuple

    def __iter__(self):
        return iter((self.net, self.params0))

    def stds(self, layer: int = -1) -> list[dict]:
        """Per seed, ``{pathway: incoming std}`` of hidden ``layer``."""
        out = []
        for m in self.nets:
            L = m.layers[layer]
            out.append({n: float(L.in_std[sl][0]) for n, sl in L.pathways})
        return out


def start_and_train(
    net: GatedNetwork,
    init: str,
    seeds: Sequence[int],
    X,
    Y,
    *,
    lr: float,
    epochs: int,
    start_kw: dict | None = None,
    **train_kw,
):
    """:func:`start` ``net`` under ``init`` ([conv-init]) and train it on ``X``
    ``(n_in, P)``, ``Y`` ``(n_out, P)``; ``start_kw`` go to :func:`start`, the rest to
    :func:`helpers.core.engine.train`.  Returns ``(run, start)``, losses ``(S, T)``."""
    st = start(net, init, seeds, **(start_kw or {}))
    run = train(
        st.net,
        X,
        Y,
        lr=lr,
        epochs=epochs,
        seeds=list(seeds),
        params0=st.params0,
        **train_kw,
    )
    return run, st


def check_start(init, experiment=None, level: str = "contexts") -> None:
    """ValueError on a bad ``init``/``experiment``/``level`` of :func:`start`."""
    if init not in INITS:
        raise ValueError(f"init must be one of {INITS}, got {init!r}")
    if experiment is not None and experiment not in INIT_EXPERIMENTS:
        raise ValueError(
            f"experiment must be one of {INIT_EXPERIMENTS} (the [authors_init.*] "
            f"tables of paper.toml), got {experiment!r}"
        )
    if init == "authors" and experiment is None:
        raise ValueError(
            f"init 'authors' needs experiment, one of {INIT_EXPERIMENTS}: the "
            f"authors' values differ between experiments"
        )
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")


def _relu_std(relu_net, relu_std) -> float:
    if relu_std is not None:
        return float(relu_std)
    if relu_net is None:
        raise ValueError("give relu_net (or relu_std): the ReLU network to start from")
    stds = np.concatenate(
        [L.in_std for L in relu_net.layers] + [relu_net.layers[-1].out_std]
    )
    if not np.all(stds == stds[0]):
        raise ValueError(
            "the ReLU network's weights start at several stds; give relu_std"
        )
    return float(stds[0])


def _gates(net: GatedNetwork, layer: int) -> dict:
    L = net.layers[layer]
    return {n: L.gating[sl][0] for n, sl in L.pathways}


def _widths(net: GatedNetwork, layer: int) -> dict:
    return {n: sl.stop - sl.start for n, sl in net.layers[layer].pathways}


def _common(gates: dict, contexts) -> dict:
    """Which pathways are on in every context (or, without contexts, datapoint)."""
    names = list(gates)
    if contexts is None:
        return {n: bool(np.all(np.asarray(gates[n]) > 0)) for n in names}
    C = int(np.max(contexts)) + 1
    pats, _ = context_patterns(np.stack([gates[n] for n in names]), contexts, C)
    return {n: p == "1" * C for n, p in zip(names, pats)}


def _authors(net, experiment, layers, relu_net, relu_std, contexts) -> GatedNetwork:
    """``net`` with ``experiment``'s ``[authors_init]`` stds in ``layers``."""
    table = authors_init(experiment)
    depth = net.depth
    rules = {}
    for i, r in enumerate(table["rules"]):
        layer = depth - 1 if r["layer"] is None else r["layer"] - 1
        if layer >= depth:
            raise ValueError(
                f"[authors_init.{experiment}] rule {i + 1} sets hidden layer "
                f"{layer + 1}, but the network has {depth}"
            )
        rules.setdefault(layer, []).append(r)
    scale = None
    m = net
    for layer in layers:
        if layer not in rules:
            raise ValueError(
                f"[authors_init.{experiment}] has no rule for hidden layer {layer + 1}"
            )
        common = _common(_gates(net, layer), contexts)
        stds = {}
        for name, is_common in common.items():
            cls = "common" if is_common else "context"
            hit = [r for r in rules[layer] if r["pathways"] in (cls, "all")]
            if len(hit) != 1:
                raise ValueError(
                    f"[authors_init.{experiment}]: {len(hit)} rules for pathway "
                    f"{name!r} ({cls}) of hidden layer {layer + 1}; need exactly one"
                )
            r = hit[0]
            if scale is None and (
                r["factor"] is not None or r["readout_factor"] is not None
            ):
                scale = _relu_std(relu_net, relu_std)
            s_in = r["std"] if r["factor"] is None else scale * r["factor"]
            if r["readout"] is not None:
                s_out = r["readout"]
            elif r["readout_factor"] is not None:
                s_out = scale * r["readout_factor"]
            else:
                s_out = s_in
            stds[name] = (s_in, s_out)
        m = with_stds(m, stds, layer=layer)
    return m


def start(
    net: GatedNetwork | None,
    init: str,
    seeds: Sequence[int],
    *,
    experiment: str | None = None,
    relu_net: GatedNetwork | None = None,
    relu_std: float | None = None,
    X=None,
    contexts=None,
    layers: Sequence[int] | None = None,
    level: str = "contexts",
) -> Start:
    """How ``net`` starts under ``init`` ([conv-init]): ``"authors"``: ``experiment``'s
    table, a rule per class (common/context); ``"matched"``: the ReLU std;
    ``"derived"``: per seed, :func:`derived_stds` of ``relu_net``'s epoch-0 gates on
    ``X`` (snapped to ``contexts`` at ``level``).  ``relu_std`` defaults to
    ``relu_net``'s single std; ``layers`` (0-based) to all; ``net=None`` passes
    through.  Returns a :class:`Start`."""
    check_start(init, experiment, level)
    seeds = [int(s) for s in seeds]
    if net is None:
        return Start(None, None, ())
    if layers is None:
        layers = list(range(net.depth))
    else:
        layers = [int(l) % net.depth for l in layers]
    if init == "authors":
        m = _authors(net, experiment, layers, relu_net, relu_std, contexts)
        return Start(m, None, (m,) * len(seeds))
    std = _relu_std(relu_net, relu_std)
    if init == "matched":
        m = net
        for layer in layers:
            m = with_stds(m, {n: std for n in m.pathway_names(layer)}, layer=layer)
        return Start(m, None, (m,) * len(seeds))
    if relu_net is None or X is None:
        raise ValueError("init 'derived' needs relu_net and X (its gates at epoch 0)")
    if level == "contexts" and contexts is None:
        raise ValueError("init 'derived' at level 'contexts' needs contexts")
    if relu_net.depth != net.depth:
        raise ValueError(
            f"init 'derived' pairs hidden layers: the ReLU network has "
            f"{relu_net.depth}, the gated network {net.depth}"
        )
    nets = []
    for s in seeds:
        _, _, gates0 = forward(relu_net, init_params(relu_net, s), X)
        m = net
        for layer in layers:
            G = gates0[layer]
            if level == "contexts":
                G = snap_to_contexts(G, contexts, int(np.max(contexts)) + 1)
            d = derived_stds(G, _gates(net, layer), _widths(net, layer), std)
            m = with_stds(m, d, layer=layer)
        nets.append(m)
    return Start(nets[0], initial_weights(nets, seeds), tuple(nets))
