"""What only the Background chapter needs (helpers.chapters.background): the GDLN
notation schematic (the page's counterpart of the paper's Fig. 1)."""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from helpers.chapters.background import plots


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_gdln_schematic_returns_a_figure_of_the_network_and_its_gates():
    fig = plots.gdln_schematic()
    assert isinstance(fig, matplotlib.figure.Figure) and len(fig.axes) == 2
    texts = _texts(fig)
    n_p, n_i = np.shape(plots.SCHEMATIC_GATES)
    for k in range(1, n_p + 1):  # every pathway's weights and gate are named
        assert f"$W_1^{{({k})}}$" in texts and f"$W_2^{{({k})}}$" in texts
        assert f"$g_{{{k}}}(x)$" in texts
    # the gate table: one 0/1 entry per pathway and datapoint, as given
    table = fig.axes[1]
    cells = [t.get_text() for t in table.texts if t.get_text() in ("0", "1")]
    assert cells == [str(g) for row in plots.SCHEMATIC_GATES for g in row]
    assert [t.get_text() for t in table.get_xticklabels()] == [
        f"$x^{{{i + 1}}}$" for i in range(n_i)
    ]
    plt.close(fig)


def test_gdln_schematic_draws_other_gates_and_rejects_bad_ones():
    fig = plots.gdln_schematic([[1, 0], [0, 1]])
    assert sum(t.get_text() in ("0", "1") for t in fig.axes[1].texts) == 4
    plt.close(fig)
    with pytest.raises(ValueError, match="gates"):
        plots.gdln_schematic([1, 0, 1])
    with pytest.raises(ValueError, match="gates"):
        plots.gdln_schematic([[1, 2], [0, 1]])
    with pytest.raises(ValueError, match="gates"):
        plots.gdln_schematic(np.ones((7, 2)))
    plt.close("all")
