"""What only the XoR chapter needs (``book/xor.md``; paper Section 3, Fig. 2d-e).

The ReLNs of the XoR task and their closed forms live in :mod:`helpers.core.xor_reln`
(the proofs chapter uses them too); this module holds the chapter's measurements of the
ReLU networks: their gating classes and shares, where the share crosses over, and the
limit of that crossover for vanishing initial weights.
"""

from __future__ import annotations

import numpy as np

from ..core import measures
from ..core.xor_reln import GATES, LEARNING_FRACTION, check_eps

__all__ = [
    "speed_ratio_window",
    "learning_times",
    "gating_classes",
    "gating_shares",
    "crossover",
    "small_init_limit",
    "worst_case",
]


def speed_ratio_window(ratio: float = 1.1) -> tuple[float, float]:
    """The margins at which the linear ReLN's ``s`` is ``1/ratio`` and ``ratio`` times
    the
    XoR ReLN's: ``4 eps^2 = r^2 (2 + eps^2)``, ``eps = r sqrt(2 / (4 - r^2))``."""
    if not 1 <= ratio < 2:
        raise ValueError(f"ratio must lie in [1, 2), got {ratio}")
    lo, hi = 1.0 / ratio, float(ratio)
    return float(lo * np.sqrt(2 / (4 - lo**2))), float(hi * np.sqrt(2 / (4 - hi**2)))


def learning_times(loss, fraction: float = LEARNING_FRACTION) -> np.ndarray:
    """Learning time of each loss curve in ``loss`` (``(..., epochs + 1)``), by
    :func:`helpers.core.measures.learning_time_from_curve` (``inf`` if never reached).
    """
    L = np.asarray(loss, float)
    flat = L.reshape(-1, L.shape[-1])
    return np.array(
        [measures.learning_time_from_curve(c, fraction) for c in flat]
    ).reshape(L.shape[:-1])


def gating_classes(gates) -> np.ndarray:
    """Each hidden unit's gating class from its 0/1 activity on ``(x1, x2, x3, x4)``:
    ``'xor'`` (on for exactly one datapoint, Fig. 2c), ``'linear'`` (on for exactly the
    two same-label points, Fig. 2b), ``'other'``."""
    G = np.asarray(gates).astype(bool)
    if G.ndim != 2 or G.shape[1] != 4:
        raise ValueError(
            f"gates must be (hidden units x 4 datapoints), got shape {G.shape}"
        )
    single = G.sum(axis=1) == 1
    pos, neg = (
        GATES["linear"]["positive"].astype(bool),
        GATES["linear"]["negative"].astype(bool),
    )
    lin = np.all(G == pos, axis=1) | np.all(G == neg, axis=1)
    return np.where(single, "xor", np.where(lin, "linear", "other"))


def gating_shares(gates, W1, W2) -> dict:
    """Share of the hidden layer's weight mass (``|W2[:, j]| |W1[j, :]|``,
    :func:`helpers.core.measures.unit_weight`) in units of each gating class."""
    w = measures.unit_weight(np.asarray(W1), np.asarray(W2))
    cls = gating_classes(gates)
    if len(cls) != len(w):
        raise ValueError(f"{len(cls)} units in gates but {len(w)} in the weights")
    total = w.sum()
    if total <= 0:
        raise ValueError("gating_shares: every unit has zero weight")
    return {k: float(w[cls == k].sum() / total) for k in ("xor", "linear", "other")}


def crossover(eps, share, level: float = 0.5) -> float:
    """The margin at which ``share`` (e.g. the linear-gating share, one value per
    ``eps``)
    first rises through ``level``, by linear interpolation; ``nan`` if it never does."""
    e = check_eps(eps)
    y = np.asarray(share, float)
    if e.ndim != 1 or e.shape != y.shape or e.size < 2 or np.any(np.diff(e) <= 0):
        raise ValueError("crossover needs increasing eps and one share per eps")
    above = y >= level
    if above[0]:
        return float(e[0])
    idx = np.flatnonzero(above)
    if not idx.size:
        return float("nan")
    k = idx[0]
    return float(e[k - 1] + (level - y[k - 1]) * (e[k] - e[k - 1]) / (y[k] - y[k - 1]))


def small_init_limit(x, switches, bootstrap: int = 2000, seed: int = 0) -> dict:
    """The switch margin extrapolated to vanishing initial weights, with an interval.

    Fits ``eps_x = eps_inf + slope * x`` by least squares to the median switch of each
    setting, ``x = 1 / ln(1 / u0*)`` (0 for an infinitely small init).  ``switches`` is
    ``(settings, seeds)``: seed ``k`` of every setting starts from the same normal
    numbers (scaled), so the interval resamples whole seeds, the same ones in every
    setting (``bootstrap`` resamples with replacement, NumPy ``default_rng(seed)``); NaN
    (no switch) is ignored in a median.  Returns ``eps_inf``, ``slope``, the largest
    ``residual`` of the fit, and the 2.5 / 97.5 percentiles ``lo``, ``hi`` and the
    standard deviation ``sd`` of the resampled ``eps_inf``: an interval over seeds, not
    over the form of the fit, which is assumed.
    """
    x = np.asarray(x, float)
    Y = np.asarray(switches, float)
    if x.ndim != 1 or Y.ndim != 2 or Y.shape[0] != x.size:
        raise ValueError(
            f"need one x per setting and (settings, seeds) switches, got {x.shape}, "
            f"{Y.shape}"
        )
    if x.size < 2 or np.unique(x).size < 2:
        raise ValueError("the fit needs at least two settings with different x")
    if int(bootstrap) < 1:
        raise ValueError(f"bootstrap must be >= 1, got {bootstrap}")
    n = Y.shape[1]

    def fit(idx):
        return np.polyfit(x, np.nanmedian(Y[:, idx], axis=1), 1)

    slope, eps_inf = fit(np.arange(n))
    residual = float(np.max(np.abs(np.nanmedian(Y, axis=1) - (eps_inf + slope * x))))
    rng = np.random.default_rng(seed)
    boot = np.array([fit(rng.integers(0, n, n))[1] for _ in range(int(bootstrap))])
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return {
        "eps_inf": float(eps_inf),
        "slope": float(slope),
        "residual": residual,
        "lo": float(lo),
        "hi": float(hi),
        "sd": float(np.std(boot)),
    }


#: The order of the rulebook's verdicts on the paper, worst first.
_VERDICT_ORDER = (
    "not testable",
    "not reproduced",
    "undecided",
    "partly reproduced",
    "reproduced",
)


def worst_case(verdicts, severity) -> int:
    """Index of the case that decides a claim the paper states for every case
    ("always", rulebook rule 4): the worst verdict, and among cases with that verdict
    the largest ``severity`` (e.g. gap over seed spread).  XoR chapter,
    ``learning_time_follows_faster``."""
    verdicts, severity = list(verdicts), list(severity)
    if not verdicts or len(verdicts) != len(severity):
        raise ValueError("worst_case needs one severity per verdict, and at least one")
    unknown = set(verdicts) - set(_VERDICT_ORDER)
    if unknown:
        raise ValueError(f"not verdicts on the paper: {sorted(unknown)}")
    rank = [(_VERDICT_ORDER.index(v), -x) for v, x in zip(verdicts, severity)]
    return min(range(len(rank)), key=rank.__getitem__)
