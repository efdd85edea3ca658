"""The ReLU network of the page book/more_contexts.md (C = 2..8) and its census by
number of contexts on ([conv-census])."""

from __future__ import annotations

import numpy as np

from ...book import progress
from ...core import store
from ...core.families import census_over_training, node_reuse_index, trained_relu
from ...core.measures import functional_census
from ...core.paper import EXTRA_CONTEXTS


def nearest_authors(C: int, values=None, contexts=None):
    """The authors' setting (default: the context input value) of the nearest C they
    ran; their values follow no stated rule, so the page does not extrapolate."""
    contexts = list(EXTRA_CONTEXTS.contexts if contexts is None else contexts)
    values = list(EXTRA_CONTEXTS.context_value if values is None else values)
    if len(values) != len(contexts):
        raise ValueError("one value per number of contexts")
    k = int(np.argmin([abs(int(C) - c) for c in contexts]))
    return values[k]


def check_parameters(seeds: int, family_min_share: float) -> None:
    """The page's own checks of its parameters (beyond the registry's)."""
    if seeds < 2:
        raise ValueError(f"seeds must be >= 2 for a spread, got {seeds}")
    if not 0 <= family_min_share < 1:
        raise ValueError(f"family_min_share must lie in [0, 1), got {family_min_share}")


def snap_changes(W1s, W2s, ds, threshold: float) -> np.ndarray:
    """``(S, R)``: the ``snap_change`` of :func:`functional_census` per seed and record
    ([rulebook-phase])."""
    S, R = np.shape(W1s)[:2]
    return np.array(
        [
            [
                functional_census(
                    W1s[s, r], W2s[s, r], ds.X, ds.contexts, ds.n_contexts, threshold
                )["snap_change"]
                for r in range(R)
            ]
            for s in range(S)
        ]
    )


def train_relu(
    ds,
    hidden: int,
    seeds,
    *,
    relu_std: float,
    lr: float,
    epochs: int,
    record_epochs,
    threshold: float,
):
    """The ReLU network of one C and its census over training: ``((net, loss),
    census, snap change)``, both ``(seeds, records, ...)``.  Kept ``same_everywhere``
    (:func:`helpers.core.store.derived`): float32 rounding can move a share across
    ``family_min_share``, so every CPU picks the same family."""
    seeds = tuple(int(s) for s in seeds)
    record_epochs = tuple(int(t) for t in record_epochs)
    parts = (ds, int(hidden), seeds, relu_std, lr, epochs, record_epochs, threshold)

    def make():
        C = ds.n_contexts
        progress.report(f"C = {C}: the ReLU network ({len(seeds)} seeds)")
        net, run = trained_relu(
            ds, hidden, seeds, relu_std=relu_std, lr=lr, epochs=epochs,
            record_epochs=record_epochs,
        )  # fmt: skip
        W1s, W2s = run.records["weights"]
        census = census_over_training(run.records["gates"][0], W1s, W2s, ds, threshold)
        return (net, run.loss), census, snap_changes(W1s, W2s, ds, threshold)

    return store.derived(
        f"more_contexts census: C = {ds.n_contexts}",
        parts,
        make,
        "helpers.chapters.more_contexts",
        same_everywhere=True,
    )


def census_views(census: dict) -> tuple[dict, dict, dict]:
    """``(by_k, func, frac)`` per C: weight share by contexts on, by weight and by
    function (``(S, R, C + 1)``), and the node reuse index ``(S, R)``."""
    by_k = {C: c["by_k"] for C, c in census.items()}
    func = {C: c["functional_by_k"] for C, c in census.items()}
    frac = {
        C: np.array([[node_reuse_index(x) for x in row] for row in by_k[C]])
        for C in census
    }
    return by_k, func, frac
