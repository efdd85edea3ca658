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
