"""The chapter *Real data* (book/digits.md): Section 4's contextual task on
scikit-learn's handwritten digits.  The science: ``task`` (the task, its split, step
size, floor and errors), ``gates`` (what gates depend on, the census), ``elbow``
(Algorithm 1), ``comparison`` (the ReLNs against the ReLU network) and ``controls``;
the page's parameters in ``params``; records and glue in ``report``; figures in
``plots``."""

from . import comparison, controls, elbow, gates, params, plots, report, task

__all__ = ["comparison", "controls", "elbow", "gates", "params", "plots", "report"]
__all__ += ["task"]
