"""Fig. 4a's race prediction, the authors' ``3_context_diff/race.py`` against the book's
re-implementation of it (page *Against the authors' code*, ``book/authors_code.md``).

``race.py`` integrates the race reduction (Eq. 6) of the Section 4 network mode by mode:
the common pathway's singular values and those of the three 2-of-3 pathways on the
common pathway's residual, one Euler step per epoch, with hand-set overlaps (-0.45,
-0.465, -0.49 on the top modes) and initial strengths (3e-9, and 2e4 times that for the
context pathways), and writes the loss of the network those singular values make after
each step (``losses/race.txt``); its ``replot.py`` draws that loss as Fig. 4a's "Race
Dynamics".  It reads no random number, so one stored run
(:mod:`helpers.book.crosscheck`, key ``race`` of ``section4``) stands for it.  The book
integrates the same race in :func:`helpers.core.modes.authors_race`
(the contexts page draws it as Fig. 4a's green curve); here the two are compared epoch
by epoch.
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
    """The stored ``race.py`` loss (``theirs``) and the book's re-implementation
    (``ours``), both after each update (``(epochs,)``), and how far apart they are.

    ``relative``: ``|ours - theirs| / theirs`` per epoch; ``unshifted``: the same
    without the one-epoch alignment of :func:`helpers.chapters.authors_code.align`
    (what a recording offset would leave); ``gap``: their time gap
    (:func:`helpers.core.measures.time_gap`)."""

    theirs: np.ndarray
    ours: np.ndarray
    relative: np.ndarray
    unshifted: np.ndarray
    gap: float
    seconds: float

    @property
    def worst(self) -> tuple[float, int]:
        """The largest relative difference and the epoch (1-based, the scripts'
        count of updates) where it is."""
        i = int(np.argmax(self.relative))
        return float(self.relative[i]), i + 1


def race_check(out=None) -> RaceCheck:
    """The stored ``race.py`` run of Section 4 against the book's integration of the
    same race at the script's step size and number of steps.

    Args:
        out: the folder of the stored runs (default: ``book/authors_runs``).

    Returns:
        :class:`RaceCheck`.
    """
    theirs_all, _ = stored("section4", out=out)
    if "race" not in theirs_all:
        raise FileNotFoundError(
            "no stored run of 3_context_diff/race.py: run python -m helpers.book "
            "crosscheck --authors PATH --experiments section4 --scripts race"
        )
    theirs = theirs_all["race"][0]
    s = setup("section4")
    net = relns.context_reln(s.ds, "mixed", "one-way")
    pred = modes.authors_race(s.ds, net, lr=s.lr, epochs=theirs.size)
    full = np.asarray(pred.loss, float)
    ours = align(full)[0]
    entry = crosscheck.manifest(crosscheck.RUNS if out is None else out)
    return RaceCheck(
        theirs=theirs,
        ours=ours,
        relative=np.abs(ours - theirs) / theirs,
        unshifted=np.abs(full[:-1] - theirs) / theirs,
        gap=float(time_gap(theirs, ours)),
        seconds=float(
            entry["experiments"]["section4"]["scripts"]["race"]["seconds"][0]
        ),
    )


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
