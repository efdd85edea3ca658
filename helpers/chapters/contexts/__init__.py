"""The contexts chapter (book/contexts.md): the contextual task of Section 4 (C = 3),
its ReLN and the ReLU network it imitates.  :mod:`.task` (parameters, task, effective
datasets), ``modes`` (:mod:`helpers.core.modes`), :mod:`.comparisons` (the ReLNs
against the ReLU network), :mod:`.representations` (MDS, correspondence),
:mod:`.gating` (census, ablations), :mod:`.predictions` (race.py, constants, ladder);
:mod:`.tables`, :mod:`.plots` and :func:`report` for the page."""

from ...core import modes
from . import comparisons, gating, plots, predictions, representations, tables, task
from .report import report

__all__ = ["comparisons", "gating", "modes", "plots", "predictions", "report"]
__all__ += ["representations", "tables", "task"]
