"""Datasets of the paper, datapoints as columns ([conv-data], [conv-datasets]); the XoR
margin is our reconstruction of Eqs. 11-12 ([conv-xor])."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .checks import check_gate, check_xy


@dataclass(frozen=True)
class Dataset:
    """``X`` (d x P), ``Y`` (p x P); ``items``, ``contexts`` label columns, ``inputs``,
    ``features`` rows; ``n_contexts`` 0 without contexts."""

    name: str
    X: np.ndarray
    Y: np.ndarray
    inputs: tuple[str, ...]
    features: tuple[str, ...]
    items: np.ndarray
    contexts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    n_contexts: int = 0
    reconstruction: str = ""

    def __post_init__(self):
        check_xy(self.X, self.Y)
        if len(self.inputs) != self.X.shape[0] or len(self.features) != self.Y.shape[0]:
            raise ValueError(
                f"{self.name}: {len(self.inputs)} input names for {self.X.shape[0]} "
                f"rows of X "
                f"or {len(self.features)} feature names for {self.Y.shape[0]} rows of Y"
            )

    @property
    def P(self) -> int:
        return self.X.shape[1]

    def column_labels(self) -> list[str]:
        """One short label per datapoint, e.g. ``'3/c2'`` for item 3 in context 2."""
        if self.n_contexts:
            return [f"{i}/c{c + 1}" for i, c in zip(self.items, self.contexts)]
        return [str(i) for i in self.items]


def hierarchy4() -> Dataset:
    """The 4-item hierarchy of Appendix A / Fig. 7 ([conv-hierarchy]), ``X = I_4``."""
    Y = np.array(
        [
            [1, 1, 1, 1],  # grow
            [1, 1, 0, 0],  # move
            [0, 0, 1, 1],  # roots
            [1, 0, 0, 0],  # fly
            [0, 1, 0, 0],  # swim
            [0, 0, 1, 0],  # leaves
            [0, 0, 0, 1],  # petals
        ],
        dtype=float,
    )
    items = ("canary", "salmon", "oak", "rose")
    return Dataset(
        name="hierarchy4",
        X=np.eye(4),
        Y=Y,
        inputs=items,
        features=("grow", "move", "roots", "fly", "swim", "leaves", "petals"),
        items=np.arange(4),
    )


def xor(eps: float) -> Dataset:
    """XoR, ``x = (+-1, +-1, eps * y)``: **[reconstruction]** of Eqs. 11-12, whose
    matrices the paper's copy lost ([conv-xor])."""
    eps = float(eps)
    if not np.isfinite(eps) or eps < 0:
        raise ValueError(f"xor: the margin eps must be a finite number >= 0, got {eps}")
    y = np.array([1.0, -1.0, -1.0, 1.0])
    X = np.array([[1.0, 1.0, -1.0, -1.0], [1.0, -1.0, 1.0, -1.0], eps * y])
    return Dataset(
        name=f"xor(eps={eps:g})",
        X=X,
        Y=y[None, :],
        inputs=("x1", "x2", "margin"),
        features=("label",),
        items=np.arange(4),
        reconstruction="Eqs. 11-12: third coordinate eps * y ([conv-xor])",
    )


def _hierarchy8() -> np.ndarray:
    H = np.zeros((15, 8))
    H[0] = 1
    H[1, :4] = 1
    H[2, 4:] = 1
    for k in range(4):
        H[3 + k, 2 * k : 2 * k + 2] = 1
    H[7:] = np.eye(8)
    return H


def _ring8() -> np.ndarray:
    r = np.array([0, 0.33, 0.66, 1, 1, 0.66, 0.33, 0])
    R = np.zeros((15, 8))
    R[0] = 1
    for k in range(8):
        R[1 + k] = np.roll(r, -k)
    R[9:] = R[1:7]
    return R


def _cross8() -> np.ndarray:
    K = _hierarchy8()
    K[3:7] = 0
    for k, (a, b) in enumerate([(0, 2), (1, 3), (4, 6), (5, 7)]):
        K[3 + k, [a, b]] = 1
    return K


STRUCTURES = {"hierarchy": _hierarchy8, "ring": _ring8, "cross": _cross8}


def structure(name: str) -> np.ndarray:
    """A 15 x 8 output structure of [conv-contextual] (:data:`STRUCTURES`)."""
    try:
        return STRUCTURES[name]()
    except KeyError:
        raise ValueError(
            f"unknown structure {name!r}; choose from {sorted(STRUCTURES)}"
        ) from None


def contextual_task(
    n_contexts: int = 3,
    structures: Sequence[str | np.ndarray] | None = None,
    common: str | np.ndarray = "hierarchy",
    context_value: float = 1.0,
) -> Dataset:
    """The contextual task of Sections 4-6 ([conv-contextual]) with C contexts: ``X``
    ``(8 + C, 8C)``, item over context one-hots, context-major; ``Y``
    ``(15 (C + 1), 8C)``: the ``common`` block, then each context's structure on its
    columns.  ``structures`` default to the hierarchy (Section 4: hierarchy, ring,
    cross); ``context_value``: the on context input (authors 1.1, 1.35 at C = 4, 5)."""
    C = int(n_contexts)
    if C < 1:
        raise ValueError(f"contextual_task: n_contexts must be >= 1, got {n_contexts}")
    if not (np.isfinite(context_value) and context_value > 0):
        raise ValueError(
            f"contextual_task: context_value must be a positive number, got "
            f"{context_value!r}"
        )
    if structures is None:
        structures = ["hierarchy"] * C
    if len(structures) != C:
        raise ValueError(
            f"contextual_task: {len(structures)} structures given for {C} contexts"
        )
    blocks = [
        structure(s) if isinstance(s, str) else np.asarray(s, float) for s in structures
    ]
    base = structure(common) if isinstance(common, str) else np.asarray(common, float)
    for b in [base, *blocks]:
        if b.shape[1] != 8:
            raise ValueError(
                f"contextual_task: every structure must have 8 item columns, got "
                f"{b.shape}"
            )
    n_items = 8
    P = n_items * C
    items = np.tile(np.arange(n_items), C)
    contexts = np.repeat(np.arange(C), n_items)
    X = np.vstack(
        [
            np.tile(np.eye(n_items), (1, C)),
            float(context_value) * np.repeat(np.eye(C), n_items, axis=1),
        ]
    )
    Y_blocks = [np.tile(base, (1, C))]
    for k, b in enumerate(blocks):
        blk = np.zeros((b.shape[0], P))
        blk[:, contexts == k] = b
        Y_blocks.append(blk)
    Y = np.vstack(Y_blocks)
    names = [s if isinstance(s, str) else "custom" for s in structures]
    features = [f"common.{r}" for r in range(base.shape[0])]
    for k, (nm, b) in enumerate(zip(names, blocks)):
        features += [f"c{k + 1}.{nm}.{r}" for r in range(b.shape[0])]
    return Dataset(
        name=f"contexts(C={C}: {', '.join(names)})"
        + ("" if context_value == 1 else f" (context input {context_value:g})"),
        X=X,
        Y=Y,
        inputs=tuple(
            [f"item{i}" for i in range(n_items)] + [f"ctx{k + 1}" for k in range(C)]
        ),
        features=tuple(features),
        items=items,
        contexts=contexts,
        n_contexts=C,
    )


def context_gate(ds: Dataset, on_contexts: Sequence[int]) -> np.ndarray:
    """The 0/1 gate over datapoints that is on in the listed contexts (0-based)."""
    if not ds.n_contexts:
        raise ValueError(f"{ds.name} has no contexts")
    bad = [c for c in on_contexts if not 0 <= c < ds.n_contexts]
    if bad:
        raise ValueError(
            f"context_gate: contexts {bad} out of range 0..{ds.n_contexts - 1}"
        )
    return np.isin(ds.contexts, list(on_contexts)).astype(float)


def effective_dataset(X, Y, gate, gate_q=None, inputs=None, inputs_q=None):
    """A pathway's effective dataset (Eq. 4): ``(Sigma_yx(p) = sum_i g_p^i y^i
    x_p^{iT}, Sigma_x(q, p) = sum_i g_q^i g_p^i x_q^i x_p^{iT})``; ``q`` defaults to
    ``p``; ``inputs``, ``inputs_q``: rows of ``X`` seen ([conv-gdln])."""
    X = np.asarray(X, float)
    Y = np.asarray(Y, float)
    check_xy(X, Y)
    g = check_gate(gate, X.shape[1], "gate")
    gq = g if gate_q is None else check_gate(gate_q, X.shape[1], "gate_q")
    Xp = X if inputs is None else X[list(inputs)]
    Xq = X if inputs_q is None else X[list(inputs_q)]
    if inputs_q is None and gate_q is None:
        Xq = Xp
    sigma_yx = (Y * g) @ Xp.T
    sigma_x = (Xq * (gq * g)) @ Xp.T
    return sigma_yx, sigma_x
