"""The Background chapter's linear-network science (``book/background.md``; paper
Section 2 and Appendix A): the effective initial mode strength read off initial
weights, the closed form's sensitivity sweep, the effective datasets of node reuse.
"""

from __future__ import annotations

import numpy as np

from ...core.datasets import effective_dataset
from ...core.engine import linear_network, train
from ...core.linear import closed_form_loss
from ...core.measures import time_gap


def effective_a0(W1, W2, modes) -> np.ndarray:
    """The effective initial strength of each mode, ``a0 = |W1 v + W2^T u|^2 / 4``
    (Eq. ``bg-a0``), per seed, from initial weights ``W1`` ``(seeds, hidden, in)`` and
    ``W2`` ``(seeds, out, hidden)`` and the dataset's ``modes`` (``U``, ``V``).

    Returns:
        ``(seeds, modes)``.
    """
    x0 = np.einsum("shd,da->sha", np.asarray(W1), modes.V)
    y0 = np.einsum("sph,pa->sha", np.asarray(W2), modes.U)
    return 0.25 * np.sum((x0 + y0) ** 2, axis=1)


def init_sweep(ds, modes, stds, widths, *, lr, epochs, seeds) -> dict:
    """The time gap between simulation and closed form (each seed's own ``a0``,
    :func:`effective_a0`), median over ``seeds``, for every init std in ``stds`` and
    hidden width in ``widths``: ``{(std, width): gap}``."""
    t_all = np.arange(epochs + 1)
    sweep = {}
    for std in stds:
        for hid in widths:
            net = linear_network((4, hid, 7), std)
            r = train(net, ds.X, ds.Y, lr=lr, epochs=epochs, seeds=seeds,
                      record_epochs=[0], record=("weights",))  # fmt: skip
            a0 = effective_a0(*(w[:, 0] for w in r.records["weights"]), modes)
            gaps = [
                time_gap(L, closed_form_loss(t_all, ds.X, ds.Y, a, lr))
                for L, a in zip(r.loss, a0)
            ]
            sweep[std, hid] = float(np.median(gaps))
    return sweep


def effective_spectra(X, Y, gates: dict) -> dict:
    """``{name: (singular values of Sigma_yx(p), eigenvalues of Sigma_x(p, p))}`` of
    the effective dataset of each pathway gated by ``gates[name]`` (Eq.
    ``bg-effective``): the four largest singular values and every eigenvalue, largest
    first."""
    out = {}
    for name, g in gates.items():
        syx, sx = effective_dataset(X, Y, g)
        out[name] = (
            np.linalg.svd(syx, compute_uv=False)[:4],
            np.linalg.eigvalsh(sx)[::-1],
        )
    return out
