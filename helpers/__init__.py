"""helpers: the library behind the book *Make Haste Slowly*, re-derived and re-run.

Every chapter imports it the same way::

    import helpers as h                          # the core and the book's tools
    from helpers import figures as fig           # plot style and shared drawings
    from helpers.chapters import xor as ch       # what only this chapter needs

Layers (each imports only from the ones above it):

* :mod:`helpers.core`: what two or more chapters use, tested on its own (datasets,
  the engine and its store, linear theory, the race predictor, the measures, the ReLNs,
  input checks, the paper's constants in :mod:`helpers.core.paper`);
* :mod:`helpers.book`'s leaf modules, which import nothing from the chapters, the
  figures or :mod:`helpers.book.build`: ``kit`` (the report kit; it calls a chapter's
  functions by the names its TOML gives), ``records``, ``rulebook``, ``rounding``,
  ``notebook``, ``progress``, ``chapter_data``;
* :mod:`helpers.chapters`: one package per chapter, named as the chapter's file: a
  short ``__init__.py`` over modules named for what they hold, and ``report``, whose
  ``report(rec, ...)`` calls the same science functions the page calls; no chapter
  imports another;
* :mod:`helpers.figures`: drawing (tests of the layers above need no plotting backend);
* :mod:`helpers.book`: the pipeline (execution, records, glue, progress, the site).

Docstrings cite the paper's sections and equations, and the sections of
``book/conventions.md`` by their labels, ``[conv-...]``.
"""

from __future__ import annotations

import importlib

from .book import progress, records  # noqa: F401
from .book.notebook import glue  # noqa: F401
from .core import (
    algorithm1,
    checks,
    datasets,
    devices,
    engine,
    ledger,
    linear,
    measures,
    paper,
    race,
    relns,
    xor_reln,
)  # noqa: F401
from .core.checks import TrainingDiverged  # noqa: F401
from .core.datasets import (  # noqa: F401
    Dataset,
    context_gate,
    contextual_task,
    effective_dataset,
    hierarchy4,
    structure,
    xor,
)
from .core.engine import (  # noqa: F401
    GatedNetwork,
    Pathway,
    Run,
    deep_gdln,
    forward,
    gdln,
    init_params,
    linear_network,
    relu_network,
    train,
)
from .core.linear import (  # noqa: F401
    closed_form_loss,
    diagonalizability,
    initial_mode_strength,
    learning_time,
    mode_strength,
    modes,
)
from .core.measures import (  # noqa: F401
    context_patterns,
    curve_distance,
    gating_census,
    halfway_time,
    learning_time_from_curve,
    unit_weight,
)
from .core.relns import common_fit, context_pathways, context_reln  # noqa: F401


def _version() -> str:
    """The installed package's version (``pyproject.toml``, the one place it is set)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("haste-book-helpers")
    except PackageNotFoundError:  # a checkout on the path, not installed
        import tomllib
        from pathlib import Path

        pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
        return tomllib.loads(pyproject.read_text())["project"]["version"]


__version__ = _version()

_LAZY = ("figures", "chapters", "book")


def __getattr__(name):
    """The sub-packages load on first use (importing the core loads no matplotlib)."""
    if name in _LAZY:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'helpers' has no attribute {name!r}")
