"""The reviewers' questions, answered by experiment (``book/reviewers.md``; the
OpenReview discussion of the paper)."""

from ...core.minibatch import MinibatchRun, batch_orders, minibatch_train, stack_params
from . import measures, networks, plots, report, sweeps, tables

__all__ = ["measures", "networks", "plots", "report", "sweeps", "tables"]
# the core's mini-batch trainer, which the page calls as the chapter's (ch.)
__all__ += ["MinibatchRun", "batch_orders", "minibatch_train", "stack_params"]
