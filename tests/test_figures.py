"""Drawing code (helpers.figures): the only tests that need a plotting backend."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

import helpers as h  # noqa: E402
from helpers import figures  # noqa: E402


@pytest.mark.parametrize(
    "C,kind,n", [(3, "mixed", 4), (3, "both", 7), (4, "mixed", 5), (2, "both", 3)]
)
def test_draw_context_reln(C, kind, n):
    fig, ax = plt.subplots()
    names = figures.draw_context_reln(ax, h.contextual_task(C), kind)
    assert len(names) == n and names[0] == "common"
    plt.close(fig)
    with pytest.raises(ValueError, match="kind"):
        figures.draw_context_reln(ax, h.contextual_task(C), "bad")


def test_loss_curves_draws_runs_faded_and_one_bold():
    import numpy as np

    curves = np.array([[4.0, 2.0, 1.0], [4.0, 3.0, 2.0], [4.0, 1.0, 0.5]])
    fig, ax = plt.subplots()
    figures.loss_curves(ax, curves, "median", "k")
    assert len(ax.lines) == 4 and ax.get_yscale() == "log"
    assert list(ax.lines[-1].get_ydata()) == [4.0, 2.0, 1.0]  # the median
    ax.clear()
    figures.loss_curves(ax, curves, "run 2", "k", log=False, bold=2)
    assert len(ax.lines) == 3  # the bold run is not drawn faded too
    assert list(ax.lines[-1].get_ydata()) == [4.0, 1.0, 0.5]
    assert ax.lines[-1].get_label() == "run 2" and ax.get_yscale() == "linear"
    ax.clear()
    figures.loss_curves(ax, curves, "alone", "k", alpha_runs=0)
    assert len(ax.lines) == 1
    plt.close(fig)
