"""The contextual task of Section 5 for more contexts, C = 2..8 (page *More contexts
than five*, ``book/more_contexts.md``): how the authors' settings extend beyond the C
they ran, the ReLU network's census by pathway class, and what the race reduction
(:mod:`helpers.core.race`, paper Eqs. 5-6) predicts for it without training a ReLU
network.
"""

from __future__ import annotations

import numpy as np

from ..core.paper import EXTRA_CONTEXTS
from ..core.relns import pathway_pattern
from .extra_contexts import census_over_training, family_name, node_reuse_index

__all__ = [
    "nearest_authors",
    "race_class_shares",
    "class_curve_table",
    # shared with Section 5 (helpers.chapters.extra_contexts)
    "census_over_training",
    "family_name",
    "node_reuse_index",
]


def nearest_authors(C: int, values=None, contexts=None):
    """The authors' setting for ``C`` contexts, extended beyond the C they ran by the
    nearest C they ran (``values``: one per C of ``contexts``; default the context
    input value of ``diff_context_num/gen_data.py``, 1 / 1.1 / 1.35 for C = 3, 4, 5):
    C = 2 takes C = 3's, C >= 6 takes C = 5's.  The authors' values follow no rule
    they state, so the page holds the last one rather than extrapolate."""
    contexts = list(EXTRA_CONTEXTS.contexts if contexts is None else contexts)
    values = list(EXTRA_CONTEXTS.context_value if values is None else values)
    if len(values) != len(contexts):
        raise ValueError("one value per number of contexts")
    k = int(np.argmin([abs(int(C) - c) for c in contexts]))
    return values[k]


def race_class_shares(prediction, C: int) -> np.ndarray:
    """Share of a race prediction's final output carried by each class of pathway,
    ``k = 0..C`` contexts on (the common pathway counts as ``k = C``): the norm of
    each pathway's last recorded map, summed by class, over the total, the race's
    counterpart of the ReLU network's census by weight
    (:func:`helpers.chapters.extra_contexts.census_by_contexts_on`)."""
    out = np.zeros(C + 1)
    for name in prediction.names:
        k = C if name == "common" else pathway_pattern(name, C).count("1")
        out[k] += np.linalg.norm(prediction.maps[name][-1])
    if out.sum() <= 0:
        raise ValueError("race_class_shares: every pathway's map is zero")
    return out / out.sum()


def class_curve_table(relu: dict, race: dict) -> str:
    """Markdown table, per C: the ReLU network's final census share by the fraction
    k/C of the contexts a unit is on in (median over seeds, with the range over seeds)
    and the race reduction's prediction where it was integrated."""
    rows = [
        "| C | k/C | ReLU census (median; range over seeds) | race reduction |",
        "|---|---|---|---|",
    ]
    for C, shares in relu.items():
        shares = np.asarray(shares)  # (seeds, C + 1)
        for k in range(1, C + 1):
            med = np.median(shares[:, k])
            if med < 0.005 and (C not in race or race[C][k] < 0.005):
                continue
            r = f"{race[C][k]:.3f}" if C in race else "—"
            rows.append(
                f"| {C} | {k}/{C} = {k / C:.2f} | {med:.3f} "
                f"({shares[:, k].min():.3f}-{shares[:, k].max():.3f}) | {r} |"
            )
    return "\n".join(rows)
