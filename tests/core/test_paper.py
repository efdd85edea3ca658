"""The paper's constants (helpers.core.paper): one place, with sources, read-only."""

import pytest

import helpers as h
from helpers.core import paper


def test_constants_carry_a_known_source_and_a_reason():
    assert len(paper.TABLE) > 20
    for section, name, value, source, why in paper.TABLE:
        assert source in paper.SOURCES and why, (section, name)


def test_values_that_the_chapters_rely_on():
    assert paper.CONTEXTS.relu_width == 700 and paper.CONTEXTS.lr == 1e-3
    assert paper.CONTEXTS.relu_std == 0.005 / 700  # "a / b" in the data file is a / b
    assert paper.CONTEXTS.reln_std_context == 2 * paper.CONTEXTS.reln_std_common
    assert paper.DEPTH.hand_schedule == (500, 12000)
    assert paper.EXTRA_CONTEXTS.relu_hidden == (700, 500, 600)
    assert h.relns.WIDTH == paper.CONTEXTS.reln_width
    assert paper.CONTEXTS.constants["relu_width"].source == "paper"
    assert paper.XOR.constants["lr"].source == "reconstruction"


def test_sections_are_read_only_and_name_what_they_hold():
    with pytest.raises(AttributeError, match="read-only"):
        paper.XOR.width = 64
    with pytest.raises(AttributeError, match="has no constant 'widht'"):
        paper.XOR.widht
    with pytest.raises(ValueError, match="source must be one of"):
        paper.Constant(1, "folklore")
