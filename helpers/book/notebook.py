"""Small conveniences for the chapters' notebooks."""

from __future__ import annotations

import numpy as np


def glue(name: str, value, display: bool = False):
    """``myst_nb.glue`` that first turns NumPy scalars into Python numbers (whose
    ``np.float64(...)`` text fails ``{glue:text}`` formatting)."""
    from myst_nb import glue as _glue

    if isinstance(value, np.generic):
        value = value.item()
    return _glue(name, value, display=display)
