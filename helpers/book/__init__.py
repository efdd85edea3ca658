"""The book's pipeline: execute the chapters, keep their records, build the site.

* :mod:`helpers.book.build`: execution and the site (``python -m helpers.book ...``);
  only ``--update-book`` rewrites ``book/``;
* :mod:`helpers.book.chapter_data`: each chapter's data file and the chapters;
* :mod:`helpers.book.parameters`: each chapter's parameters, checked before any work;
* :mod:`helpers.book.rulebook`: how verdicts are decided, from the claims;
* :mod:`helpers.book.drift`: re-executed records against the committed ones;
* :mod:`helpers.book.rounding`: each record's rounding floor, and its verdict rule;
* :mod:`helpers.book.pytest_plugin`: the test command's scratch records and drift check;
* :mod:`helpers.book.records`: each chapter's headline numbers in ``book/results/``;
* :mod:`helpers.book.scorecard`: the scorecard, its bottom line, every record;
* :mod:`helpers.book.glance`: the bottom line as one figure (intro and scorecard);
* :mod:`helpers.book.researchers`: the paper's figures in the book, the downloads;
* :mod:`helpers.book.notebook`: ``glue`` for the chapters' prose;
* :mod:`helpers.book.progress`: progress of long runs, kept out of the pages;
* :mod:`helpers.book.sphinx_ext`: keeps the built site offline and its console clean.

Importing this package is cheap: papermill and Jupyter Book load only when needed.
"""

from . import (  # noqa: F401
    chapter_data,
    glance,
    parameters,
    researchers,
    rounding,
    rulebook,
    scorecard,
)
from .chapter_data import chapters_present  # noqa: F401


def __getattr__(name):
    """``CHAPTERS``: the chapters in the order they execute (read on first use)."""
    if name == "CHAPTERS":
        return list(chapter_data.chapters())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
