"""The networks between Section 4's ReLU network (11-700-60) and the 7-pathway ReLN of
Fig. 4a (``book/lag.md``), each changing one thing, all from the ReLU network's initial
weights of the same seed ([conv-init], [conv-gdln]).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...book import progress
from ...core import store
from ...core.engine import GatedNetwork, init_params, train
from ...core.measures import snap_to_contexts

#: The rungs from the ReLU network to the ReLN of Fig. 4a, one change each.
LADDER = {
    "frozen": "the ReLU network's own gates, frozen as they end",
    "snapped": "the same gates snapped to the context level",
    "designed": "the ReLN's gates (7 pathways) in the ReLU network",
    "items_only": "the same, context pathways seeing the items only",
    "reln_relu_start": "the ReLN as built (one-way), ReLU network's start",
    "reln": "the ReLN as the authors start it (Fig. 4a)",
}
#: What each step of the ladder changes from the rung before.
STEPS = {
    "frozen": "fixing the gates from the start (the ReLU network's own final gates)",
    "snapped": "snapping the gates to the context level (no within-context variation)",
    "designed": "replacing the learned context patterns by the ReLN's pathways",
    "items_only": "letting the context pathways see only the items",
    "reln_relu_start": "coupling the pathways one way (the common pathway first)",
    "reln": "starting the ReLN as the authors do, not from the ReLU's weights",
}


def check_parameters(seeds, epochs, record_every, freeze_epochs, relu_width, units):
    """ValueError naming a bad parameter: ``freeze_epochs`` not recorded epochs ending
    at the last, ``relu_width`` not ``units``.  Defined for the page book/lag.md."""
    if relu_width != units:
        raise ValueError(
            f"relu_width must equal the ReLN's {units} units (the ladder pairs them "
            f"unit by unit), got {relu_width!r}"
        )
    if not isinstance(seeds, (int, np.integer)) or int(seeds) < 2:
        raise ValueError(f"seeds must be an integer >= 2, got {seeds!r}")
    if not isinstance(epochs, (int, np.integer)) or int(epochs) < 1:
        raise ValueError(f"epochs must be an integer >= 1, got {epochs!r}")
    if (
        not isinstance(record_every, (int, np.integer))
        or not 1 <= int(record_every) <= int(epochs)
        or int(epochs) % int(record_every)
    ):
        raise ValueError(
            f"record_every must be an integer dividing epochs ({epochs}), got "
            f"{record_every!r}"
        )
    fe = list(freeze_epochs)
    if not fe or any(
        not isinstance(e, (int, np.integer)) or e < 0 or e > epochs or e % record_every
        for e in fe
    ):
        raise ValueError(
            f"freeze_epochs must be recorded epochs (multiples of record_every in "
            f"0..{epochs}), got {freeze_epochs!r}"
        )
    if sorted(set(fe)) != fe or fe[-1] != epochs:
        raise ValueError(
            f"freeze_epochs must increase and end at the last epoch ({epochs}), got "
            f"{freeze_epochs!r}"
        )


def frozen_network(relu_net: GatedNetwork, gates, P: int) -> GatedNetwork:
    """The one-hidden-layer ReLU network with its gates fixed to ``H x P`` 0/1
    ``gates``: a fully coupled GDLN ([conv-gdln]).  Defined for the page book/lag.md."""
    if relu_net.depth != 1 or not relu_net.layers[0].is_relu:
        raise ValueError("relu_net must be a one-hidden-layer ReLU network")
    L = relu_net.layers[0]
    G = np.asarray(gates, float)
    if G.shape != (L.width, P) or not np.isin(G, (0.0, 1.0)).all():
        raise ValueError(f"gates must be a 0/1 array of shape {(L.width, P)}")
    return replace(relu_net, layers=(replace(L, gating=G),), kind="gdln", P=int(P))


def relu_start(relu_net: GatedNetwork, seeds) -> list[np.ndarray]:
    """``[W1 (S, H, d), W2 (S, p, H)]``: the ReLU network's initial weights stacked
    over seeds, as ``params0``.  Defined for the page book/lag.md."""
    inits = [init_params(relu_net, s) for s in seeds]
    return [np.stack([p[i] for p in inits]) for i in range(len(inits[0]))]


def random_gates(shape, seeds) -> np.ndarray:
    """The control's ``(S, H, P)`` gates: each unit on for a random ``P // 2``
    datapoints (``default_rng(seed)``).  Defined for the page book/lag.md."""
    H, P = (int(n) for n in shape)
    out = np.zeros((len(seeds), H, P))
    for i, s in enumerate(seeds):
        rng = np.random.default_rng(int(s))
        for j in range(H):
            out[i, j, rng.permutation(P)[: P // 2]] = 1.0
    return out


def train_frozen(
    relu_net, ds, gates, seeds, epochs_at, *, lr, epochs, snap=False, state=None
):
    """Train a fixed-gate network of each seed and freeze epoch, a kept summary
    (:func:`helpers.core.store.derived`).  Defined for the page book/lag.md.

    Args:
        gates: the ReLU run's recorded gates ``(S, R, H, P)``, or ``(S, H, P)`` used
            at every freeze epoch (the random control).
        epochs_at: ``{freeze epoch: index into R}``.
        snap: snap the gates to the context level first.
        state: None to restart from the initial weights, else ``(W1 (S, R, H, d), W2
            (S, R, p, H), relu_loss (S, epochs + 1))`` to go on from the freeze epoch.

    Returns:
        ``{freeze epoch: losses (S, epochs + 1)}``."""
    for e in epochs_at:
        if state is not None and not 0 <= e < epochs:
            raise ValueError(f"epochs_at: from the state, epoch {e} leaves no training")
    at = {int(e): int(r) for e, r in epochs_at.items()}
    G_all = np.asarray(gates, np.float32)
    used = G_all[:, list(at.values())] if G_all.ndim == 4 else G_all
    start = None
    if state is not None:  # what of the state the runs read: the weights at each epoch
        W1, W2, before = state
        rows = list(at.values())
        start = (W1[:, rows], W2[:, rows], before[:, : max(at) + 1])
    parts = (relu_net, ds, used, tuple(seeds), at, lr, epochs, snap, start)
    what = "from the state" if state is not None else "restarted"
    return store.derived(
        f"lag gates fixed: {what}{', snapped' * snap}, epochs {list(at)}",
        parts,
        lambda: _train_frozen(relu_net, ds, gates, seeds, at, lr, epochs, snap, state),
        "helpers.chapters.lag",
    )


def _train_frozen(relu_net, ds, gates, seeds, epochs_at, lr, epochs, snap, state):
    G_all = np.asarray(gates, float)
    out = {}
    for e, r in epochs_at.items():
        what = "from the state" if state is not None else "restarted"
        progress.report(f"gates fixed at epoch {e}, {what}" + (", snapped" * snap))
        losses = []
        for i, s in enumerate(seeds):
            G = G_all[i, r] if G_all.ndim == 4 else G_all[i]
            if snap:
                G = snap_to_contexts(G, ds.contexts, ds.n_contexts)
            net = frozen_network(relu_net, G, ds.P)
            if state is None:
                run = train(
                    net, ds.X, ds.Y, lr=lr, epochs=epochs, seeds=[s],
                    params0=init_params(relu_net, s),
                )  # fmt: skip
                losses.append(run.loss[0])
                continue
            W1, W2, before = state
            run = train(
                net, ds.X, ds.Y, lr=lr, epochs=epochs - e, seeds=[s],
                params0=[W1[i, r], W2[i, r]],
            )  # fmt: skip
            losses.append(np.concatenate([before[i, :e], run.loss[0]]))
        out[e] = np.stack(losses)
    return out


def train_ladder(relu_net, ds, seeds, frozen, snapped, reln_start, *, lr, epochs):
    """``{rung: losses (S, epochs + 1)}`` of :data:`LADDER`, in order; ``frozen`` and
    ``snapped`` come from :func:`train_frozen`, ``reln_start`` is ``(net, params0)``
    of the authors' ReLN start.  Defined for the page book/lag.md."""
    reln_net, reln_p0 = reln_start
    G = reln_net.layers[0].gating
    if G.shape[0] != relu_net.layers[0].width:
        raise ValueError(
            f"the ReLN has {G.shape[0]} units, the ReLU network "
            f"{relu_net.layers[0].width}: the ladder pairs them unit by unit"
        )
    p0 = relu_start(relu_net, seeds)
    kw = dict(lr=lr, epochs=epochs, seeds=list(seeds))
    progress.report("the ReLN's gates in the ReLU network")
    designed = train(frozen_network(relu_net, G, ds.P), ds.X, ds.Y, params0=p0, **kw)
    progress.report("the ReLN's pathways in the ReLU network, items-only inputs")
    items = train(replace(reln_net, coupling="full"), ds.X, ds.Y, params0=p0, **kw)
    progress.report("the ReLN from the ReLU network's start")
    own = train(reln_net, ds.X, ds.Y, params0=p0, **kw)
    progress.report("the ReLN as the authors start it")
    authors = train(reln_net, ds.X, ds.Y, params0=reln_p0, **kw)
    return {
        "frozen": frozen,
        "snapped": snapped,
        "designed": designed.loss,
        "items_only": items.loss,
        "reln_relu_start": own.loss,
        "reln": authors.loss,
    }
