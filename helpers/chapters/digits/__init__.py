"""The chapter *Real data* (book/digits.md): Section 4's contextual task on
scikit-learn's handwritten digits: ``task``, ``gates``, ``elbow`` (Algorithm 1),
``comparison``, ``controls``, ``params``, ``report``, ``plots``."""

from . import comparison, controls, elbow, gates, params, plots, report, task

__all__ = ["comparison", "controls", "elbow", "gates", "params", "plots", "report"]
__all__ += ["task"]
