"""Small conveniences for the chapters' notebooks."""

from __future__ import annotations

import numpy as np


def glue(name: str, value, display: bool = False):
    """``myst_nb.glue`` that first turns NumPy scalars into Python numbers.

    myst-nb formats a glued number (``{glue:text}`name:.3f```) by parsing its text
    representation, which for a NumPy scalar reads ``np.float64(...)`` and fails the
    build.
    """
    from myst_nb import glue as _glue

    if isinstance(value, np.generic):
        value = value.item()
    return _glue(name, value, display=display)
