"""Fig. 4a's race prediction: the authors' ``3_context_diff/race.py`` against the book's
re-implementation of it, :func:`helpers.core.modes.authors_race`, epoch by epoch.

``race.py`` integrates the race reduction (Eq. 6) of the Section 4 network mode by mode
(the common pathway and the three 2-of-3 pathways on its residual, one Euler step per
epoch, hand-set overlaps and initial strengths) and writes the loss after each step.
It reads no random number, so one stored run (key ``race`` of ``section4``) stands for
it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...book import crosscheck
from ...core import modes, relns
from ...core.measures import time_gap
from .experiments import align, setup, stored

#: float32's machine epsilon: race.py keeps its singular values and overlaps in JAX's
#: float32 (``jnp``), the book integrates in float64.
FLOAT32_EPS = float(np.finfo(np.float32).eps)


@dataclass(frozen=True)
class RaceCheck:
    """The stored ``race.py`` loss (``theirs``) and the book's (``ours``), after each
    update (``(epochs,)``); their relative difference per epoch, aligned and not
    (``unshifted``); their time ``gap``; the stored run's ``seconds``."""

    theirs: np.ndarray
    ours: np.ndarray
    relative: np.ndarray
    unshifted: np.ndarray
    gap: float
    seconds: float

    @property
    def worst(self) -> tuple[float, int]:
        """The largest relative difference and its epoch (1-based, as the scripts)."""
        i = int(np.argmax(self.relative))
        return float(self.relative[i]), i + 1


def race_check(out=crosscheck.RUNS) -> RaceCheck:
    """The stored ``race.py`` run of Section 4 (in ``out``, default
    ``book/authors_runs``) against the book's integration of the same race."""
    theirs_all, _ = stored("section4", out=out)
    if "race" not in theirs_all:
        raise FileNotFoundError(
            "no stored run of 3_context_diff/race.py: run python -m helpers.book "
            "crosscheck --authors PATH --experiments section4 --scripts race"
        )
    theirs = theirs_all["race"][0]
    s = setup("section4")
    net = relns.context_reln(s.ds, "mixed", "one-way")
    full = np.asarray(modes.authors_race(s.ds, net, lr=s.lr, epochs=theirs.size).loss)
    ours = align(full)[0]
    run = crosscheck.manifest(out)["experiments"]["section4"]["scripts"]["race"]
    return RaceCheck(theirs, ours, np.abs(ours - theirs) / theirs,
                     np.abs(full[:-1] - theirs) / theirs, float(time_gap(theirs, ours)),
                     float(run["seconds"][0]))  # fmt: skip


def race_text(r: RaceCheck) -> str:
    """The paragraph on the two races: the largest relative difference and where, in
    float32 epsilons, the time gap, and what a one-epoch offset would give."""
    worst, epoch = r.worst
    return (
        f"Over its {r.theirs.size} steps the book's integration of the race differs "
        f"from the stored `race.py` run by at most {worst:.2g} of the loss (epoch "
        f"{epoch}, {worst / FLOAT32_EPS:.0f} float32 epsilons; median over epochs "
        f"{np.median(r.relative):.2g}), and their time gap is {r.gap:.2g}. "
        f"`race.py` keeps its singular values and overlaps in float32, the book in "
        "float64: the two are the same race to float32 rounding. The comparison can "
        "tell a one-epoch offset: without the alignment of the recorded epochs the "
        f"largest relative difference would be {r.unshifted.max():.2g}, "
        f"{r.unshifted.max() / worst:.0f} times as much. (One run of `race.py`: it "
        f"draws no random number; it took {r.seconds:.0f} s.)"
    )
