"""The page book/more_contexts.md: the contextual task of Section 5 for C = 2..8, the
ReLU network's census (``census``) and the race reduction's prediction (``races``)."""

from ...core.families import onehot_census  # noqa: F401
from . import plots, tables  # noqa: F401
from .census import (  # noqa: F401
    census_views,
    check_parameters,
    nearest_authors,
    train_relu,
)
from .races import (  # noqa: F401
    Fit,
    family_fit,
    family_for,
    form_move,
    other_rule,
    race_census,
    reln,
    tied_with_best,
)
from .report import Params, Runs, report  # noqa: F401
