"""The paper's proofs turned into computations that could fail (Appendices C, D, E),
for the page *Proofs checked numerically* (``book/proofs.md``): Lemma 4.1 in
:mod:`.lemma`, Proposition 4.2's interlacing and deletions in :mod:`.interlacing`, its
race in :mod:`.race`, Appendix C in :mod:`.xor`; figures, tables and records in
:mod:`.plots`, :mod:`.tables` and :func:`report`.
"""

# ruff: noqa: F401
from . import plots, tables
from .interlacing import deletion_checks, edge_cases, interlacing_checks
from .lemma import (
    CLASSES,
    census,
    count_nested,
    item_context_input,
    two_by_two,
    unit_classes,
)
from .race import NAMES, control_race, race_measures
from .report import report
from .xor import EPS_PAPER, crossover_algebra, simulate
