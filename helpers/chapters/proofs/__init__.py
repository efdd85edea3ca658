"""The paper's proofs turned into computations that could fail (Appendices C, D, E),
for the page *Proofs checked numerically* (``book/proofs.md``): Lemma 4.1 in
:mod:`.lemma`, Proposition 4.2's interlacing and deletions in :mod:`.interlacing`, its
race in :mod:`.race`, Appendix C in :mod:`.xor`; figures, tables and records in
:mod:`.plots`, :mod:`.tables` and :func:`report`.
"""

# ruff: noqa: F401
from . import plots, tables
from .interlacing import (
    deletion_checks,
    deletion_effects,
    edge_cases,
    interlacing_checks,
    interlacing_gaps,
    random_deletion_cases,
    random_interlacing_cases,
    task_interlacing_cases,
    thompson_bounds,
)
from .lemma import (
    CLASSES,
    census,
    count_nested,
    enumerate_patterns,
    farkas_certificate,
    is_nested,
    item_context_input,
    lp_feasible_patterns,
    nested_witness,
    pattern_class,
    two_by_two,
    uniform_nested,
    unit_classes,
    unit_pattern_lp,
    witness_reproduces,
)
from .race import (
    NAMES,
    best_linear_loss,
    context_learning_time,
    control_race,
    race_measures,
    strategy_datasets,
)
from .report import report
from .xor import EPS_PAPER, crossing, crossover_algebra, simulate
