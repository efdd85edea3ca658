"""The paper's networks and constants, stated once in ``paper.toml`` beside this module
(book page *Conventions*, [conv-constants]; paper Appendix H).

Every chapter's parameter cell takes its defaults from here, and the conventions page
renders :data:`TABLE` as its table of constants, so a value and where it comes from are
written in one place.  Each constant carries its source:

* ``"paper"``: stated in the paper's text (Appendix H or the section itself);
* ``"authors' code"``: a fact of the authors' public code that the paper does not state
  (its ``script``: the path and lines in their repository);
* ``"reconstruction"``: no source gives it; our choice, labelled wherever it is used.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

SOURCES = ("paper", "authors' code", "reconstruction")

#: How a ReLN or GDLN starts ([conv-init]; :func:`helpers.core.relns.start`): the
#: authors' values (per experiment, :func:`authors_init`), every weight at the ReLU
#: network's std, or stds derived from the ReLU network's gates at initialisation.
INITS = ("authors", "matched", "derived")

#: How wide each member of a family of rival ReLNs is ([rulebook-best]): ``"total"``
#: shares the ReLU network's hidden units out equally over the member's pathways, the
#: rule of Appendix F ("the same number of total hidden neurons as the ReLU network"),
#: which every script of the authors obeys; ``"per_pathway"`` gives every pathway the
#: paper's 100 units, so a member grows with its pathway count.
WIDTH_RULES = ("total", "per_pathway")

#: How wide the common pathway of a family's member is under ``"total"``
#: ([rulebook-best]): ``"equal"``, one of the member's pathways with an equal share
#: (Appendix F read literally, so the common pathway shrinks as a rival's pathway count
#: grows: 38 units in 4-of-6, 27 in 5-of-7); ``"fixed"``, the paper's 100 units, the
#: rest of the ReLU network's units shared equally over the context pathways.
COMMON_WIDTHS = ("equal", "fixed")


@dataclass(frozen=True)
class Constant:
    """One constant: its value, where it comes from, and a few words on why."""

    value: object
    source: str
    why: str = ""
    #: ``"path:lines"`` in the authors' repository (``"a:1; b:2"`` for several) for a
    #: constant whose source is the authors' code; empty otherwise.
    script: str = ""

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
            raise AttributeError(
                f"{self.title} has no constant {name!r}; "
                f"it has {sorted(self.constants)}"
            ) from None

    def __setattr__(self, name, value):
        raise AttributeError("the paper's constants are read-only")


_DATA = Path(__file__).with_name("paper.toml")


def _value(v, name):
    """A TOML value; the string ``"a / b"`` is the quotient, a list becomes a tuple."""
    if isinstance(v, list):
        return tuple(v)
    if isinstance(v, str) and "/" in v:
        a, b = (float(x) for x in v.split("/"))
        return a / b
    return v


_AUTHORS_INIT = "authors_init"  # the block of tables that is not a section


def _load() -> dict[str, Section]:
    data = tomllib.loads(_DATA.read_text())
    out = {}
    for key, sec in data.items():
        if key == _AUTHORS_INIT:
            continue
        title = sec.pop("title")
        out[key] = Section(
            title,
            **{
                n: Constant(
                    _value(c["value"], n), c["source"], c["why"], c.get("script", "")
                )
                for n, c in sec.items()
            },
        )
    return out


_SECTIONS = _load()
#: Appendix A.1, Fig. 7: the 4-16-7 linear network on the 4-item hierarchy.
FOUNDATION = _SECTIONS["foundation"]
#: Section 3: XoR with a margin, a 3-128-1 ReLU network.
XOR = _SECTIONS["xor"]
#: Section 4: the contextual task with C = 3 and blocks H, R, K.
CONTEXTS = _SECTIONS["contexts"]
#: Section 5: C = 3, 4, 5 contexts, every block the hierarchy.
EXTRA_CONTEXTS = _SECTIONS["extra_contexts"]
#: Section 6: the 11-420-420-60 ReLU network and its GDLN.
DEPTH = _SECTIONS["depth"]
#: Appendix B, Algorithm 1: finding the gates.
GATE_FINDING = _SECTIONS["gate_finding"]


def _table():
    rows = []
    for sec in _SECTIONS.values():
        for name, c in sec.constants.items():
            rows.append((sec.title, name, c.value, c.source, c.why))
    return tuple(rows)


#: ``(section, name, value, source, why)`` for every constant, in reading order.
TABLE = _table()


# --------------------------------------------------------------------------------------
# The authors' initialisation, per experiment ([conv-init]): the [authors_init.*] tables

_RAW_INITS = MappingProxyType(tomllib.loads(_DATA.read_text()).get(_AUTHORS_INIT, {}))
#: The experiments that have an ``"authors"`` initialisation (:func:`authors_init`).
INIT_EXPERIMENTS = tuple(_RAW_INITS)
_PATHWAY_CLASSES = ("common", "context", "all")
_RULE_KEYS = {"layer", "pathways", "factor", "std", "readout", "readout_factor"}


def _std(v, where):
    """A std of the table: a number, ``"a / b"`` or ``"section.name"`` of a constant."""
    if isinstance(v, str) and "/" not in v:
        sec, _, name = v.partition(".")
        if sec not in _SECTIONS or name not in _SECTIONS[sec].constants:
            raise ValueError(f"{where}: {v!r} names no constant of paper.toml")
        v = _SECTIONS[sec].constants[name].value
    v = _value(v, where)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
        raise ValueError(f"{where}: a std must be a positive number, got {v!r}")
    return float(v)


def _rule(r: dict, where: str) -> dict:
    unknown = set(r) - _RULE_KEYS
    if unknown:
        raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
    if r.get("pathways") not in _PATHWAY_CLASSES:
        raise ValueError(
            f"{where}: pathways must be one of {_PATHWAY_CLASSES}, "
            f"got {r.get('pathways')!r}"
        )
    layer = r.get("layer")
    if layer is not None and (
        isinstance(layer, bool) or not isinstance(layer, int) or layer < 1
    ):
        raise ValueError(f"{where}: layer counts hidden layers from 1, got {layer!r}")
    out = {"layer": layer, "pathways": r["pathways"]}
    for std, factor in (("std", "factor"), ("readout", "readout_factor")):
        if std in r and factor in r:
            raise ValueError(f"{where}: give {std} or {factor}, not both")
        out[std] = _std(r[std], f"{where}, {std}") if std in r else None
        out[factor] = _std(r[factor], f"{where}, {factor}") if factor in r else None
    if out["std"] is None and out["factor"] is None:
        raise ValueError(f"{where}: give std or factor")
    return MappingProxyType(out)


def authors_init(experiment: str):
    """The ``"authors"`` initialisation of ``experiment`` ([conv-init]): its
    ``[authors_init.<experiment>]`` table of ``paper.toml``, read-only.

    ``source``, ``script`` (the authors' script the values come from), ``why`` and
    ``rules``: per class of pathways, ``layer`` (counted from 1; None: the last hidden
    layer), ``pathways`` (``"common"``, ``"context"`` or ``"all"``), the std of the
    incoming weights as ``std`` or as ``factor`` times the ReLU network's std, and that
    of the readout as ``readout`` or ``readout_factor`` (both None: as the incoming
    weights).  Stds named as ``"section.name"`` come back as their values.
    """
    if experiment not in _RAW_INITS:
        raise ValueError(
            f"experiment must be one of {INIT_EXPERIMENTS} (the [authors_init.*] "
            f"tables of paper.toml), got {experiment!r}"
        )
    t = _RAW_INITS[experiment]
    where = f"[authors_init.{experiment}]"
    missing = {"source", "script", "why", "rules"} - set(t)
    if missing:
        raise ValueError(f"{where} lacks {sorted(missing)}")
    Constant(None, t["source"])  # a known source
    if not t["rules"]:
        raise ValueError(f"{where}: no rules")
    return MappingProxyType(
        {
            "experiment": experiment,
            "source": t["source"],
            "script": t["script"],
            "why": t["why"],
            "rules": tuple(
                _rule(r, f"{where} rule {i + 1}") for i, r in enumerate(t["rules"])
            ),
        }
    )
