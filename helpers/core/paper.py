"""The paper's networks and constants, stated once (book page *Conventions*, section
{ref}`conv-constants`; paper Appendix H).

Every chapter's parameter cell takes its defaults from here, and the conventions page
renders :data:`TABLE` as its table of constants, so a value and where it comes from are
written in one place.  Each constant carries its source:

* ``"paper"``: stated in the paper's text (Appendix H or the section itself);
* ``"authors' code"``: a fact of the authors' public code that the paper does not state;
* ``"reconstruction"``: no source gives it; our choice, labelled wherever it is used.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

__all__ = ["Constant", "Section", "FOUNDATION", "XOR", "CONTEXTS", "EXTRA_CONTEXTS", "DEPTH",
           "GATE_FINDING", "SOURCES", "TABLE"]

SOURCES = ("paper", "authors' code", "reconstruction")


@dataclass(frozen=True)
class Constant:
    """One constant: its value, where it comes from, and a few words on why."""

    value: object
    source: str
    why: str = ""

    def __post_init__(self):
        if self.source not in SOURCES:
            raise ValueError(f"source must be one of {SOURCES}, got {self.source!r}")


class Section:
    """The constants of one part of the paper: ``section.name`` is the plain value and
    ``section.constants[name]`` the :class:`Constant` with its source."""

    def __init__(self, title: str, **constants: Constant):
        object.__setattr__(self, "title", title)
        object.__setattr__(self, "constants", MappingProxyType(dict(constants)))

    def __getattr__(self, name):
        try:
            return self.constants[name].value
        except KeyError:
            raise AttributeError(f"{self.title} has no constant {name!r}; "
                                 f"it has {sorted(self.constants)}") from None

    def __setattr__(self, name, value):
        raise AttributeError("the paper's constants are read-only")


def _c(value, source, why=""):
    return Constant(value, source, why)


#: Appendix A.1, Fig. 7: the 4-16-7 linear network on the 4-item hierarchy.
FOUNDATION = Section(
    "Appendix A.1, Fig. 7 (linear network and node reuse)",
    hidden=_c(16, "reconstruction", "Fig. 7 shows a small network; 16 units per pathway"),
    init_std=_c(1e-3, "reconstruction", "Fig. 7 gives no initial scale; small, in the rich regime"),
    lr=_c(0.01, "reconstruction", "any small step; time is reported in units of 1/lr"),
    epochs=_c(1500, "reconstruction", "long enough for every mode to be learned"),
)

#: Section 3: XoR with a margin, a 3-128-1 ReLU network.
XOR = Section(
    "Section 3 (XoR with a margin)",
    width=_c(128, "paper", "Section 3: 128 hidden units"),
    init_scale=_c(0.005, "reconstruction",
                  "std = init_scale / width, the rule of the authors' contextual runs"),
    lr=_c(0.01, "reconstruction", "the section is not in the authors' code; not stated"),
    epochs=_c(2500, "reconstruction", "long enough for both ReLNs to converge at every margin"),
)

#: Section 4: the contextual task with C = 3 and blocks H, R, K.
CONTEXTS = Section(
    "Section 4 (C = 3; hierarchy, ring, cross)",
    relu_width=_c(700, "paper", "Appendix H: 700 hidden units"),
    relu_std=_c(0.005 / 700, "authors' code", "init std 0.005 / 700"),
    lr=_c(1e-3, "paper", "Appendix H: step size 0.001 on the summed loss"),
    epochs=_c(8000, "paper", "Appendix H: 8001 steps, the loss at epochs 0..8000"),
    reln_width=_c(100, "paper", "Appendix H: 100 hidden units per pathway"),
    reln_std_common=_c(0.005 / 700, "authors' code", "the common pathway's init std"),
    reln_std_context=_c(0.01 / 700, "authors' code",
                        "twice the ReLU network's std; Appendix H says 'same hyper-parameters'"),
    authors_overlap=_c(-0.45, "authors' code", "hand-set overlap of context pathways"),
    authors_a0_common=_c(5e-9, "authors' code", "hand-set initial mode strength, common"),
    authors_a0_context=_c((5e-5, 3e-4), "authors' code",
                          "hand-set initial mode strengths, context pathways"),
)

#: Section 5: C = 3, 4, 5 contexts, every block the hierarchy.
EXTRA_CONTEXTS = Section(
    "Section 5 (C = 3, 4, 5; hierarchy in every block)",
    contexts=_c((3, 4, 5), "paper", "Section 5: three, four and five contexts"),
    relu_hidden=_c((700, 500, 600), "authors' code", "700 is the paper's; 500 and 600 the code's"),
    relu_init_scale=_c(0.005, "authors' code", "init std 0.005 / hidden"),
)

#: Section 6: the 11-420-420-60 ReLU network and its GDLN.
DEPTH = Section(
    "Section 6 (two hidden layers)",
    width=_c(420, "authors' code", "units per hidden layer"),
    relu_std=_c(6e-4, "authors' code", "init std of every ReLU weight"),
    common_width=_c(240, "authors' code", "GDLN layer 2: common pathway units"),
    group_width=_c(60, "authors' code", "GDLN layer 2: units of each 2-of-3 pathway"),
    gdln_std_layer1=_c(5.75e-4, "authors' code", "GDLN init, layer 1"),
    gdln_std_layer2=_c(5.5e-4, "authors' code", "GDLN init, layer 2"),
    gdln_std_readout_common=_c(5.5e-4, "authors' code", "GDLN init, common readout"),
    gdln_std_readout_context=_c(4e-3, "authors' code", "GDLN init, context readouts"),
    lr=_c(1e-3, "paper", "Appendix H"),
    epochs=_c(30000, "authors' code", "30001 epochs: the loss at epochs 0..30000"),
    hand_schedule=_c((500, 12000), "authors' code",
                     "hand-set switch-on epochs: nothing learns before 500, the common "
                     "pathway alone until 12000, then every pathway"),
    coupling=_c("full", "reconstruction", "how the depth GDLN is trained is not stated"),
)

#: Appendix B, Algorithm 1: finding the gates.
GATE_FINDING = Section(
    "Appendix B (Algorithm 1)",
    sample_every=_c(100, "paper", "Algorithm 1: 'if j mod 100 = 0'"),
    epochs=_c(8001, "paper", "Appendix H: 8001 steps"),
)


def _table():
    rows = []
    for sec in (FOUNDATION, XOR, CONTEXTS, EXTRA_CONTEXTS, DEPTH, GATE_FINDING):
        for name, c in sec.constants.items():
            rows.append((sec.title, name, c.value, c.source, c.why))
    return tuple(rows)


#: ``(section, name, value, source, why)`` for every constant, in reading order.
TABLE = _table()
