"""The book's pipeline: execute the chapters, keep their records, build the site.

* :mod:`helpers.book.build`: papermill execution and the Jupyter Book site
  (``python -m helpers.book ...``; see that module for the commands); default runs
  update ``book/``, any other parameters make a run of their own in ``_build/runs``;
* :mod:`helpers.book.parameters`: each chapter's parameters, checked before any work;
* :mod:`helpers.book.rulebook`: how verdicts are decided, from
  ``claims/<chapter>.toml``;
* :mod:`helpers.book.drift`: re-executed records against the committed ones;
* :mod:`helpers.book.pytest_plugin`: the test command's scratch records and drift check;
* :mod:`helpers.book.records`: each chapter's headline numbers in ``book/results/``;
* :mod:`helpers.book.notebook`: ``glue`` for the chapters' prose;
* :mod:`helpers.book.progress`: progress of long runs, kept out of the pages;
* :mod:`helpers.book.sphinx_ext`: keeps the built site offline and its console clean.

Importing this package is cheap: papermill and Jupyter Book load only when a command
needs them.
"""

from . import parameters, rulebook  # noqa: F401
from .build import CHAPTERS, PROFILES, chapters_present  # noqa: F401
