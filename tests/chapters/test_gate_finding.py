"""Unit tests of helpers.chapters.gate_finding: what the chapter reads as ``ch.``
(Algorithm 1 itself, and the elbow with a GDLN started by each init: tests/core)."""

from helpers.chapters import gate_finding as gf
from helpers.core import algorithm1


def test_the_chapter_reads_algorithm_1():
    for name in gf.__all__:
        assert getattr(gf, name) is getattr(algorithm1, name)
    assert set(gf.__all__) <= set(algorithm1.__all__)
