"""The page book/extra_contexts.md: the contextual task for C = 3, 4, 5 (paper
Section 5, Appendices F-G)."""

from ...core.families import member_width, onehot_census, pathway_count  # noqa: F401
from . import plots, tables  # noqa: F401
from .closed_form import (  # noqa: F401
    A0_METHODS,
    closed_form_for_stds,
    closed_form_losses,
    common_pathway,
    context_modes,
    effective_check,
    mode_strengths,
)
from .measures import (  # noqa: F401
    census_views,
    final_units,
    fit_all,
    gap_variants,
    halfway,
    thresholds_census,
)
from .networks import (  # noqa: F401
    Trained,
    check_parameters,
    drop_records,
    paper_reln,
    pathway_svals,
    relu_census,
    same_start,
    start_stds,
    train_family,
    train_networks,
    trained_and_read,
)
from .report import Params, Runs, report  # noqa: F401
