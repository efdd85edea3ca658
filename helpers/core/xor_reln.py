"""The two ReLNs of the XoR task and their closed forms ([conv-xor]; paper Section 3,
Appendix C).

The dataset is :func:`helpers.core.datasets.xor` (our reconstruction of Eqs. 11-12):
``x = (+-1, +-1, eps y)`` with ``y`` the XoR label of the first two coordinates.

Two gating structures compete (Fig. 2b, 2c):

* the *linear* ReLN: two pathways, one on for the positive points ``{x1, x4}``, one
  on for the negative points ``{x2, x3}``;
* the *XoR* ReLN: four pathways, each on for exactly one datapoint.

A ReLN has the ReLU network's architecture (Definition 3.1), so the ReLU network's
hidden units are shared out among the pathways: ``width / 2`` per linear pathway,
``width / 4`` per XoR pathway.  With one init std for every weight, the ReLN then starts
from exactly the ReLU network's initial weights for the same seed
(:func:`helpers.core.engine.init_params` draws the same numbers).

Every pathway's effective dataset has one mode (Eqs. 13-17 and the XoR paragraph):

==========  =====================  =================  ================================
ReLN        ``s``                  ``d``              total loss (Eqs. 22, 23)
==========  =====================  =================  ================================
linear      ``2 eps``              ``2 eps^2``        ``2 (1 - eps a(t))^2``
XoR         ``sqrt(2 + eps^2)``    ``2 + eps^2``      ``2 (1 - sqrt(2 + eps^2) a(t))^2``
==========  =====================  =================  ================================

with ``a(t)`` the mode strength of Eq. 7 / Eqs. 18-19
(:func:`helpers.core.linear.mode_strength`). Both losses are ``2 (1 - u(t))^2`` in the
*normalised* strength ``u = a d / s``. With one ``a0`` per pathway (e.g.
:func:`helpers.core.race.effective_a0` of an actual draw) the total loss is ``sum_p (n_p
/ 2)(1 - a_p(t) d / s)^2`` (:func:`xor_closed_form_loss`).

Learning time (one definition for ReLU networks, simulated ReLNs and closed forms): the
first epoch at which the summed loss is at most :data:`LEARNING_FRACTION` of its initial
value (:func:`helpers.core.measures.learning_time_from_curve`).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from . import datasets, engine, linear
from .checks import check_positive

KINDS = ("linear", "xor")

#: The learning-time criterion: the loss has fallen to this fraction of its initial
#: value.
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
    """Hidden units per pathway when a ReLU layer of ``width`` units is shared out
    among the pathways of the ``kind`` ReLN (Definition 3.1: same architecture)."""
    n = len(GATES[_check_kind(kind)])
    if int(width) != width or width < n or width % n:
        raise ValueError(
            f"width must be a positive multiple of {n} for the {kind} ReLN, got {width}"
        )
    return int(width) // n


def reln(kind: str, width: int = 128, init_std: float = 1e-3) -> engine.GatedNetwork:
    """The linear (Fig. 2b, two pathways) or XoR (Fig. 2c, four pathways) ReLN as a
    GDLN.

    ``width`` is the ReLU network's hidden width, shared out equally among the pathways;
    every weight starts ``N(0, init_std^2)`` like the ReLU network's.
    """
    w = pathway_width(kind, width)
    std = check_positive(init_std, "init_std")
    pws = [
        engine.Pathway(name, w, gate=g, init_std=(std, std))
        for name, g in GATES[kind].items()
    ]
    return engine.gdln(3, 1, 4, pws)


def analytic_modes(eps, kind: str):
    """``(s, d)`` of each pathway's single mode (Eqs. 13-17; Appendix C, XoR paragraph).

    linear: ``s = 2 eps``, ``d = 2 eps^2``; XoR: ``s = sqrt(2 + eps^2)``, ``d = 2 +
    eps^2``. Broadcasts over ``eps``.
    """
    e = check_eps(eps)
    if _check_kind(kind) == "linear":
        return 2.0 * e, 2.0 * e**2
    return np.sqrt(2.0 + e**2), 2.0 + e**2


def effective_modes(eps: float, kind: str) -> dict:
    """Each pathway's modes computed from its effective dataset ([conv-gdln], Eq. 4),
    not from
    the formulas: ``{name: (s, d, diagonalizability)}`` (one mode per pathway here)."""
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
    """``a0`` of one pathway of the ``kind`` ReLN, derived from its width and init
    (:func:`helpers.core.linear.initial_mode_strength`; no fitted constant)."""
    return linear.initial_mode_strength(pathway_width(kind, width), init_std, init_std)


def xor_closed_form_loss(t, eps: float, kind: str, a0, lr: float) -> np.ndarray:
    """Total summed loss of a ReLN in closed form: Eq. 22 (linear) or Eq. 23 (XoR).

    Pathway ``p`` sees ``n_p`` datapoints and has one mode whose strength ``a_p(t)``
    follows Eq. 7 (Eqs. 18-19) from its own ``a0_p``; its output on each of its points
    is ``y_i a_p d / s``, so

        ``L(t) = sum_p (n_p / 2) (1 - (d/s) a_p(t))^2``.

    ``a0``: one number for every pathway, one per pathway in the order of
    ``GATES[kind]``, or a dict keyed by pathway name (e.g.
    :func:`helpers.core.race.effective_a0` of an actual draw).  With one ``a0`` for all
    pathways this is Eqs. 22-23, ``L(t) = 2 (1 - (d/s) a(t))^2``, ``d/s = eps`` (linear)
    or ``sqrt(2 + eps^2)`` (XoR). ``t`` in epochs, ``tau = 1 / lr``.
    """
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
    """Epochs until the closed-form loss (Eqs. 22-23) reaches ``fraction`` of ``L(0)``.

    ``L = 2 (1 - u)^2`` with ``u = a d / s``: the criterion is
    ``u_f = 1 - sqrt(fraction) (1 - u_0)`` and the time is that of [conv-linear]
    ``t = tau / (2 s) ln(a_f (s - d a_0) / (a_0 (s - d a_f)))``
    (:func:`helpers.core.linear.learning_time`).  Continuous time; the loss curve
    sampled at integer epochs crosses the level at ``ceil`` of this.  ``inf`` where ``s
    = 0``.
    """
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
    """The crossover margin of Eqs. 24-26: the linear and the XoR ReLN learn equally
    fast
    when their singular values are equal, ``2 eps = sqrt(2 + eps^2)``, i.e.
    ``3 eps^2 = 2`` and ``eps* = sqrt(2/3)``.  Solved here as a root of the two ``s``:
    from the closed forms (:func:`analytic_modes`) or, with ``from_data``, from the
    singular values of the pathways' effective datasets of ``xor(eps)`` themselves
    (:func:`effective_modes`), so that a wrong dataset or a wrong formula would show."""
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
    """The margin at which the two closed-form learning times are equal.

    Eqs. 24-26 compare only the speeds ``s``; the learning times also carry
    ``ln(1 / u_0)`` with ``u_0 = a_0 d / s`` (``a_0 eps`` linear, ``a_0 sqrt(2 +
    eps^2)`` XoR), so this crossover depends (logarithmically) on the init and tends to
    :func:`eps_star` as ``a_0 -> 0``.
    """
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
