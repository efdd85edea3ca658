"""The reviewers' questions, answered by experiment (``book/reviewers.md``; the
OpenReview discussion of the paper).

* :mod:`.networks`: the runs (many settings of one shape in one engine call, the
  matched ReLNs, Adam's step, the task with dense codes or noisy labels, the ReLN with
  separated phases, primed single-context units);
* :mod:`.measures`: the match, the strategy, the end of the rich regime, the race's
  modes, the separation of the phases;
* :mod:`.sweeps`: the page's :class:`~.sweeps.Parameters` and the rows of its sweeps;
* :mod:`.tables`, :mod:`.plots`: the page's tables and figures;
* :mod:`.report`: the records, the glue and the closing table.
"""

from ...core.minibatch import MinibatchRun, batch_orders, minibatch_train, stack_params
from . import measures, networks, plots, report, sweeps, tables

__all__ = ["measures", "networks", "plots", "report", "sweeps", "tables"]
# the core's mini-batch trainer, which the page calls as the chapter's (ch.)
__all__ += ["MinibatchRun", "batch_orders", "minibatch_train", "stack_params"]
