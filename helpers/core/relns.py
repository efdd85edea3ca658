"""ReLNs of the contextual task ([conv-context-reln], paper Sections 4-5, Fig. 3).

The common pathway sees items and contexts and is on for every datapoint; a context
pathway sees the item features only (Appendix F) and is on in a set of contexts:
"C-1 of C" pathways are on in every context but one, single-context pathways in one.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np

from .datasets import Dataset, context_gate
from .engine import GatedNetwork, Pathway, gdln
from .paper import CONTEXTS

__all__ = ["RELN_KINDS", "WIDTH", "STD_COMMON", "STD_CONTEXT", "context_pathways", "context_reln",
           "common_fit"]

# The authors' ReLN: 100 units per pathway; init std 0.005/700 (common), 0.01/700 (context).
WIDTH = CONTEXTS.reln_width
STD_COMMON = CONTEXTS.reln_std_common
STD_CONTEXT = CONTEXTS.reln_std_context

RELN_KINDS = ("mixed", "single", "both", "common")


def context_pathways(ds: Dataset, on: int, width: int = WIDTH, std: float = STD_CONTEXT, prefix: str = "ctx"):
    """One pathway per set of ``on`` contexts out of C, seeing the item inputs only.

    ``on = C - 1`` gives the mixed-selective pathways, ``on = 1`` the single-context ones.
    Names list the contexts the pathway is on in, 1-based: ``'ctx12'`` is on in 1 and 2.
    """
    C = ds.n_contexts
    if not 1 <= on <= C:
        raise ValueError(f"a context pathway must be on in 1..{C} contexts, got {on}")
    items = [i for i, name in enumerate(ds.inputs) if name.startswith("item")]
    out = []
    for subset in combinations(range(C), on):
        label = "".join(str(c + 1) for c in subset)
        out.append(Pathway(f"{prefix}{label}", width, context_gate(ds, subset), items, (std, std)))
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
