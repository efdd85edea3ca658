"""The XoR task's two ReLNs and their closed forms ([conv-xor]; Section 3, Appendix C).

Data: :func:`helpers.core.datasets.xor` (Eqs. 11-12), ``x = (+-1, +-1, eps y)``.  The
*linear* ReLN has two pathways (``{x1, x4}``, ``{x2, x3}``, Fig. 2b), the *XoR* ReLN
four, one per datapoint (Fig. 2c).  They share out the ReLU network's hidden units
(Definition 3.1), so with one init std a ReLN starts from the ReLU network's weights.
Every pathway's effective dataset has one mode (Eqs. 13-17 and the XoR paragraph):

==========  =====================  =================  ================================
ReLN        ``s``                  ``d``              total loss (Eqs. 22, 23)
==========  =====================  =================  ================================
linear      ``2 eps``              ``2 eps^2``        ``2 (1 - eps a(t))^2``
XoR         ``sqrt(2 + eps^2)``    ``2 + eps^2``      ``2 (1 - sqrt(2 + eps^2) a(t))^2``
==========  =====================  =================  ================================

with ``a(t)`` of Eq. 7 / Eqs. 18-19 (:func:`helpers.core.linear.mode_strength`).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from . import datasets, engine, linear
from .checks import check_positive

KINDS = ("linear", "xor")

#: Learning time, of every kind of run: the first epoch at this fraction of ``L(0)``.
LEARNING_FRACTION = 0.5

#: The pathways' gates over the datapoints ``(x1, x2, x3, x4)`` (Fig. 2b, 2c).
GATES = {
    "linear": {
        "positive": np.array([1.0, 0.0, 0.0, 1.0]),
        "negative": np.array([0.0, 1.0, 1.0, 0.0]),
    },
    "xor": {f"x{i + 1}": np.eye(4)[i] for i in range(4)},
}


def _check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"unknown ReLN kind {kind!r}; choose from {KINDS}")
    return kind


def check_eps(eps) -> np.ndarray:
    e = np.asarray(eps, float)
    if not np.all(np.isfinite(e)) or np.any(e < 0):
        raise ValueError(f"the margin eps must be finite and >= 0, got {eps}")
    return e


def pathway_width(kind: str, width: int) -> int:
    """Units per pathway of the ``kind`` ReLN of ``width`` units (Definition 3.1)."""
    n = len(GATES[_check_kind(kind)])
    if int(width) != width or width < n or width % n:
        raise ValueError(
            f"width must be a positive multiple of {n} for the {kind} ReLN, got {width}"
        )
    return int(width) // n


def reln(kind: str, width: int = 128, init_std: float = 1e-3) -> engine.GatedNetwork:
    """The linear (Fig. 2b) or XoR (Fig. 2c) ReLN of the ReLU network's ``width``."""
    w = pathway_width(kind, width)
    std = check_positive(init_std, "init_std")
    pws = [
        engine.Pathway(name, w, gate=g, init_std=(std, std))
        for name, g in GATES[kind].items()
    ]
    return engine.gdln(3, 1, 4, pws)


def analytic_modes(eps, kind: str):
    """``(s, d)`` of each pathway's mode (Eqs. 13-17; Appendix C), as in the table."""
    e = check_eps(eps)
    if _check_kind(kind) == "linear":
        return 2.0 * e, 2.0 * e**2
    return np.sqrt(2.0 + e**2), 2.0 + e**2


def effective_modes(eps: float, kind: str) -> dict:
    """``{name: (s, d, diagonalizability)}`` from the pathways' effective datasets
    ([conv-gdln], Eq. 4)."""
    ds = datasets.xor(float(eps))
    out = {}
    for name, g in GATES[_check_kind(kind)].items():
        Xg, Yg = ds.X * g, ds.Y * g
        if not np.any(Yg @ Xg.T):
            raise ValueError(
                f"pathway {name!r} has no input-output correlation at eps={eps}"
            )
        m = linear.modes(Xg, Yg)
        out[name] = (m.s, m.d, linear.diagonalizability(Xg, Yg))
    return out


def xor_initial_strength(kind: str, width: int = 128, init_std: float = 1e-3) -> float:
    """A pathway's ``a0`` from its width and init (no fitted constant)."""
    return linear.initial_mode_strength(pathway_width(kind, width), init_std, init_std)


def xor_closed_form_loss(t, eps: float, kind: str, a0, lr: float) -> np.ndarray:
    """Closed-form loss, Eq. 22 (linear) or Eq. 23 (XoR):
    ``L(t) = sum_p (n_p / 2) (1 - (d/s) a_p(t))^2``, ``a0`` one number, one per
    pathway (order of ``GATES[kind]``) or a dict by name; ``tau = 1 / lr``."""
    gates = GATES[_check_kind(kind)]
    if isinstance(a0, dict):
        missing = set(gates) - set(a0)
        if missing:
            raise ValueError(
                f"a0 has no value for the {kind} ReLN's pathway(s) {sorted(missing)}"
            )
        a0 = [a0[name] for name in gates]
    a0 = np.asarray(a0, float)
    if a0.ndim > 1 or (a0.ndim == 1 and a0.size != len(gates)):
        raise ValueError(
            f"a0 must be one number or one per pathway ({len(gates)} for the {kind} "
            f"ReLN), "
            f"got shape {a0.shape}"
        )
    s, d = analytic_modes(eps, kind)
    if s <= 0:
        raise ValueError(f"the {kind} ReLN has no mode to learn at eps={eps} (s = 0)")
    if a0.ndim == 0:
        a = linear.mode_strength(t, s, d, a0, lr)
        return 2.0 * (1.0 - d / s * a) ** 2
    n = np.array([g.sum() for g in gates.values()])
    a = linear.mode_strength(np.asarray(t, float)[..., None], s, d, a0, lr)
    return np.sum(0.5 * n * (1.0 - d / s * a) ** 2, axis=-1)


def closed_form_learning_time(
    eps, kind: str, a0: float, lr: float, fraction: float = LEARNING_FRACTION
):
    """Continuous epochs until the loss of Eqs. 22-23 reaches ``fraction`` of ``L(0)``
    ([conv-linear]; ``u_f = 1 - sqrt(fraction) (1 - u_0)``); ``inf`` where ``s = 0``."""
    if not 0 < fraction < 1:
        raise ValueError(f"fraction must lie in (0, 1), got {fraction}")
    e = check_eps(eps)
    scalar = e.ndim == 0
    e = np.atleast_1d(e)
    s, d = analytic_modes(e, kind)
    out = np.full(e.shape, np.inf)
    ok = s > 0
    if np.any(ok):
        s, d = s[ok], d[ok]
        u0 = a0 * d / s
        if np.any(u0 >= 1):
            raise ValueError(
                f"a0={a0} is at or beyond the fixed point s/d: nothing to learn"
            )
        uf = 1.0 - np.sqrt(fraction) * (1.0 - u0)
        out[ok] = linear.learning_time(s, d, a0, uf * s / d, lr)
    return float(out[0]) if scalar else out


def eps_star(from_data: bool = False) -> float:
    """The crossover margin of Eqs. 24-26, ``2 eps = sqrt(2 + eps^2)`` (``sqrt(2/3)``),
    solved as a root; ``from_data``: from the datasets' singular values, so a wrong
    dataset or formula would show."""
    if from_data:

        def s_top(e, kind):
            return float(next(iter(effective_modes(e, kind).values()))[0][0])

        f = lambda e: s_top(e, "linear") - s_top(e, "xor")  # noqa: E731
        return float(
            brentq(f, 0.05, 5.0, xtol=1e-14, rtol=1e-14)
        )  # the SVD needs s well above 0
    f = lambda e: analytic_modes(e, "linear")[0] - analytic_modes(e, "xor")[0]  # noqa: E731
    return float(brentq(f, 1e-6, 10.0, xtol=1e-14))


def learning_time_crossover(
    a0_linear: float,
    a0_xor: float,
    lr: float,
    fraction: float = LEARNING_FRACTION,
    bracket=(0.05, 5.0),
) -> float:
    """The margin where the closed-form learning times are equal: unlike
    :func:`eps_star` it depends on the init (via ``ln(1 / u_0)``), tending to it as
    ``a_0 -> 0``."""
    f = lambda e: (
        closed_form_learning_time(e, "linear", a0_linear, lr, fraction)  # noqa: E731
        - closed_form_learning_time(e, "xor", a0_xor, lr, fraction)
    )
    lo, hi = bracket
    if not f(lo) > 0 > f(hi):
        raise ValueError(
            f"no learning-time crossover in eps {bracket} for a0 = ({a0_linear}, "
            f"{a0_xor})"
        )
    return float(brentq(f, lo, hi, xtol=1e-10))
