"""The contexts chapter: the contextual task of Section 4 (C = 3, hierarchy / ring /
cross), its ReLN and the ReLU network it imitates (page book/contexts.md).

* :mod:`.task`: the chapter's parameters, the task and its effective datasets;
* ``modes``: :mod:`helpers.core.modes` (pathway modes, their overlaps and the
  diagonal mode race of Eq. 6, shared with the page book/authors_code.md);
* :mod:`.comparisons`: the ReLNs' training and their losses, outputs and singular
  values against the ReLU network;
* :mod:`.representations`: MDS and the correspondence of hidden representations;
* :mod:`.gating`: the ReLU network's gating census, ablations, division of labour;
* :mod:`.predictions`: race.py's race, the derived constants, the ladder;
* :mod:`.tables`, :mod:`.plots`, :func:`report`: what the page shows and records.
"""

from ...core import modes
from . import comparisons, gating, plots, predictions, representations, tables, task
from .report import report

__all__ = [
    "comparisons",
    "gating",
    "modes",
    "plots",
    "predictions",
    "report",
    "representations",
    "tables",
    "task",
]
