"""Records of a chapter's headline numbers (``book/results/<chapter>.json``; the
compared value is keyed ``"paper"``, whatever its provenance) and closing tables.

``HASTE_RESULTS_DIR`` names the records' folder (set by the command line and the test
command); any other execution writes to ``_build/interactive/results``, never to
``book/results``.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from collections import Counter
from pathlib import Path

import numpy as np

from ..core.measures import Evidence
from . import chapter_data, rounding, rulebook
from .notebook import glue

RESULTS_DIR = Path(__file__).resolve().parents[2] / "book" / "results"
RESULTS_VARIABLE = "HASTE_RESULTS_DIR"
INTERACTIVE_DIR = RESULTS_DIR.parents[1] / "_build" / "interactive" / "results"
_ANNOUNCED: set = set()


def results_dir() -> Path:
    """The records' folder now: ``HASTE_RESULTS_DIR``, else :data:`INTERACTIVE_DIR`."""
    chosen = os.environ.get(RESULTS_VARIABLE)
    if chosen:
        return Path(chosen)
    d = INTERACTIVE_DIR
    if d not in _ANNOUNCED:
        d.mkdir(parents=True, exist_ok=True)
        for p in RESULTS_DIR.glob("*.json"):  # the committed records, once
            if not (d / p.name).exists():
                shutil.copy2(p, d / p.name)
        _ANNOUNCED.add(d)
        print(
            f"[book] records of this execution go to {d} (not book/results: only "
            "`python -m helpers.book execute --update-book` changes those)"
        )
    return d


def _plain(v):
    """JSON-ready copy (floats to 6 significant digits)."""
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, np.ndarray):
        return _plain(v.tolist())
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if not math.isfinite(v):
            return str(v)
        return float(f"{v:.6g}")
    return v


_NUMERIC = (
    "value compared spread alternative spread_interval spread_candidate candidates "
    "ratio_interval"
).split()


def _rounded(ev):
    """The evidence as stored, so that a verdict decided again from it is the same."""
    ev = ev.but(**{k: _plain(getattr(ev, k)) for k in _NUMERIC})
    if not ev.variants:
        return ev
    return ev.but(
        variants={
            c: {
                s: _rounded(x) if hasattr(x, "but") else _plain(x)
                for s, x in opts.items()
            }
            for c, opts in ev.variants.items()
        }
    )


#: The claim's fields a record carries where given, and the evidence's where measured.
_IF_GIVEN = ("setup", "decided_by", "follows", "part_of")
_IF_MEASURED = (
    "spread_interval ratio_interval spread_candidate candidates best epochs phase"
).split()


def _judge_claim(chapter: str, name: str, entry: dict, ev: Evidence, item: dict):
    """Fill ``item`` with the claim's and evidence's fields; return the verdict."""
    if ev.target is not None:
        raise ValueError(f"{chapter}.{name}: a registered claim has no target")
    d = rulebook.decide(entry, ev)
    verdict, reason, variants, depends_on, extra = rounding.apply(chapter, name, *d)
    fields = ("claim", "where", "group", "quote", "measure", "kind", "provenance")
    item.update({k: entry.get(k, "") for k in fields})
    item.update({k: entry[k] for k in _IF_GIVEN if entry.get(k)})
    item.update(
        {k: _plain(getattr(ev, k)) for k in _IF_MEASURED if getattr(ev, k) is not None}
    )
    spread, alternative = _plain(ev.spread), _plain(ev.alternative)
    item.update(criterion=ev.rule, spread=spread, alternative=alternative, **extra)
    item["reason"] = reason
    if variants or entry.get("kind") == "paper":
        item["variants"] = _plain(variants)
        item["depends_on"] = list(depends_on)
    if entry.get("kind") in ("paper", "check") and rulebook.marginal(
        ev.rule, ev.value, ev.compared, ev.spread, ev.alternative
    ):
        item["marginal"] = True
    lag = ev.lag_percent()
    if lag is not None:
        item["lag_percent"] = _plain(lag)
    item.update({k: True for k in ("censored", "censored_reference") if getattr(ev, k)})
    return verdict


def _measured(chapter: str, name: str, ev: Evidence, item: dict) -> str:
    """The verdict of an unregistered record, a measured time (or its target)."""
    if not ev.timing:
        raise ValueError(
            f"{chapter}.{name} is not registered: add it to "
            f"helpers/book/chapters/{chapter}.toml"
        )
    if ev.target is None:
        return "measured"
    op, bound = ev.target
    if op not in ("<=", ">="):
        raise ValueError(f"target must be ('<=' or '>=', bound), got {ev.target!r}")
    met = ev.value <= bound if op == "<=" else ev.value >= bound
    item.update(paper=_plain(bound), target=op)
    return "target met" if met else "target missed"


class Records:
    """Collects one chapter's records; :meth:`save` writes them (sorted, stable)."""

    def __init__(self, chapter: str, directory: Path | str | None = None):
        self.chapter = chapter
        self.directory = _folder(directory)
        self.items: dict[str, dict] = {}

    def add(self, name: str, evidence, note: str = "") -> dict:
        """Add and return the record ``name`` ([rulebook-evidence]): ``evidence`` (an
        ``Evidence`` or a bare value) decided by :func:`helpers.book.rulebook.decide`.
        ``name`` is registered in ``chapters/<chapter>.toml`` unless a measured time.
        """
        ev = _rounded(
            evidence if isinstance(evidence, Evidence) else Evidence(evidence)
        )
        entry = rulebook.claim(self.chapter, name)
        figure = chapter_data.data(self.chapter).get("figures", {}).get(name)
        item = {"value": _plain(ev.value), "paper": _plain(ev.compared)}
        if entry is not None:
            v = _judge_claim(self.chapter, name, entry, ev, item)
            figure = figure or entry.get("figure")
        else:
            v = _measured(self.chapter, name, ev, item)
        item.update({"verdict": v, "note": note})
        self.items[name] = item
        if figure:
            item["figure"] = figure
        if ev.timing:
            item["timing"] = True
        return item

    def save(self) -> Path:
        """Write the records; in a notebook, glue ``<chapter>_answer``."""
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{self.chapter}.json"
        path.write_text(json.dumps(self.items, indent=2, sort_keys=True) + "\n")
        if _in_notebook():
            from IPython.display import Markdown

            glue(f"{self.chapter}_answer", Markdown(self.answer()))
        return path

    def in_short(self) -> str | None:
        """The data file's ``[in_short] sentences`` filled from the records, or None.

        Raises:
            ValueError: a template names a record or field not written.
        """
        templates = chapter_data.data(self.chapter).get("in_short", {}).get("sentences")
        if not templates:
            return None
        try:
            return " ".join(t.format(**self.items) for t in templates)
        except (KeyError, IndexError, TypeError) as e:
            raise ValueError(f"{self.chapter}: [in_short] names {e!r}") from None

    def answer(self) -> str:
        """The chapter's answer in Markdown: a line per claim of the paper."""
        lines = []
        for name, r in self.items.items():
            if r.get("kind") != "paper" or r.get("part_of"):
                continue
            entry = rulebook.claim(self.chapter, name) or {}
            dep = r.get("depends_on") or []
            tail = f"; depends on {', '.join(dep)}" if dep else ""
            lines.append(
                f"- {entry.get('short') or r.get('claim') or name}: "
                f"{badge(r['verdict'])} (decided by {rulebook.who(r)}{tail})"
            )
        kinds = Counter(r.get("kind") for r in self.items.values())
        rest = ", ".join(
            f"{kinds[k]} {k}{'s' if kinds[k] > 1 else ''}"
            for k in ("check", "finding")
            if kinds[k]
        )
        if not lines:
            short = self.in_short()
            if short is None:
                return f"No claim of the paper is scored here; {rest or 'no record'}."
            listed = (
                f"\n\nIts records ({rest}) are listed with their numbers on the page "
                "{ref}`Every record <records-appendix>`."
            )
            return short + (listed if rest else "")
        tail = f"\n\nBeside them, the book's own {rest}." if rest else ""
        return "\n".join(lines) + tail


def _in_notebook() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _folder(directory) -> Path:
    return Path(directory) if directory is not None else results_dir()


def check(chapter: str, directory: Path | str | None = None) -> str:
    """What a chapter's nbval-checked cell prints, true on any machine
    ([rulebook-rounding]): each record's verdict, and its value only where rounding
    did not move it; timings left out.  ``directory``: default :func:`results_dir`."""
    items = json.loads((_folder(directory) / f"{chapter}.json").read_text())
    width = max((len(n) for n in items), default=0)
    lines = []
    for name, r in items.items():
        if r.get("timing"):
            continue
        e = rounding.entry(chapter, name)
        still = e is not None and e["rounding"] == 0 and not e["seen"]
        shown = f" = {_short(r['value'])}" if still else ""
        lines.append(f"{name:{width}s}  {r['verdict']}{shown}")
    return "\n".join(lines)


def load_all(directory: Path | str | None = None) -> dict[str, dict]:
    """Every chapter's records, keyed by chapter name."""
    paths = sorted(_folder(directory).glob("*.json"))
    return {p.stem: json.loads(p.read_text()) for p in paths}


def _fmt(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_fmt(x)}" for k, x in v.items())
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


#: Beyond this many entries a table of values is summarised in a row.
_INLINE = 3


def _short(v) -> str:
    if isinstance(v, dict) and (
        len(v) > _INLINE or any(isinstance(x, (dict, list)) for x in v.values())
    ):
        keys = list(v)
        return f"{len(keys)} values ({keys[0]} … {keys[-1]}; in the details)"
    if isinstance(v, list) and len(v) > 4:
        return f"{len(v)} values (in the details)"
    return _fmt(v)


def value_table(v) -> str:
    """A record's dict as a small Markdown table (a list where too wide)."""
    if not isinstance(v, dict):
        return _fmt(v)
    nested = [x for x in v.values() if isinstance(x, dict)]
    if not nested:
        rows = ["| | value |", "|---|---|"]
        rows += [f"| {_cell(k)} | {_cell(_fmt(x))} |" for k, x in v.items()]
        return "\n".join(rows)
    columns = list(dict.fromkeys(k for x in nested for k in x))
    deep = any(isinstance(y, (dict, list)) for x in nested for y in x.values())
    if len(columns) <= 4 and len(nested) == len(v) and not deep:
        rows = ["| | " + " | ".join(map(_cell, columns)) + " |"]
        rows.append("|---" * (len(columns) + 1) + "|")
        for k, x in v.items():
            rows.append(
                f"| {_cell(k)} | "
                + " | ".join(_cell(_fmt(x.get(c))) for c in columns)
                + " |"
            )
        return "\n".join(rows)
    lines = []
    for k, x in v.items():
        if isinstance(x, dict) and any(isinstance(y, dict) for y in x.values()):
            lines.append(f"* **{k}**")
            lines += [f"  * {k2}: {_fmt(y)}" for k2, y in x.items()]
        else:
            lines.append(f"* **{k}**: {_fmt(x)}")
    return "\n".join(lines)


#: The sphinx-design badge (its colour) of each verdict.
BADGES = {
    "reproduced": "success",
    "partly reproduced": "warning",
    "not reproduced": "danger",
    "undecided": "info",
    "not testable": "secondary",
    "check": "success",
    "check failed": "danger",
    "finding": "primary",
    "measured": "light",
    "target met": "success",
    "target missed": "danger",
}


def badge(verdict: str) -> str:
    """A verdict as a coloured badge (MyST role of sphinx-design)."""
    return f"{{bdg-{BADGES.get(verdict, 'secondary')}}}`{verdict}`"


#: Criteria whose compared value is a number the paper states; under any other, a
#: ``paper`` record compares with the book's measurement ([rulebook-labels]).
_PAPER_NUMBER = ("exact",)


def compared(rec: dict) -> str:
    """What a record is compared with, labelled with its provenance from the registry
    ([rulebook-labels]: a number the book measured is never labelled "paper")."""
    parts = []
    provenance = rec.get("provenance") or "none"
    if rec.get("paper") is not None:
        value = _short(rec["paper"])
        if provenance == "paper" and rec.get("criterion") not in _PAPER_NUMBER:
            label = "measured here; the paper's relation"
        elif provenance == "none":
            label = "measured here"
        else:
            label = provenance
        parts.append(f"{value} ({label})")
    elif provenance == "paper" and rec.get("criterion"):
        parts.append("the paper's words")
    if rec.get("alternative") is not None:
        parts.append(f"alternative {_short(rec['alternative'])} (measured here)")
    if rec.get("best") is not None:
        gap = (rec.get("candidates") or {}).get(rec["best"])
        shown = f" ({_fmt(gap)})" if gap is not None else ""
        parts.append(f"best candidate: {_short(rec['best'])}{shown}")
    return "; ".join(parts) or "—"


def measured(rec: dict) -> str:
    """The book's value with its seed spread (and the spread's interval)."""
    text = _short(rec["value"])
    if rec.get("spread") is not None:
        text += f" (seed spread {_short(rec['spread'])}"
        interval = rec.get("spread_interval")
        if isinstance(interval, list) and len(interval) == 2:
            text += f", 90 % interval {_fmt(interval[0])}–{_fmt(interval[1])}"
        text += ")"
    if rec.get("rounding"):
        text += f" (rounding floor {100 * rec['rounding']:.2g} %)"
    ratio = rec.get("ratio_interval")
    if isinstance(ratio, list) and len(ratio) == 2:
        text += f" (ratio's 90 % interval over seeds {_fmt(ratio[0])}–{_fmt(ratio[1])})"
    return text


#: A record's detail lines, each where its field is given (not None, not empty).
_LINES = {
    "where": "Where: {where}",
    "quote": 'The paper\'s words: *"{quote}"*',
    "reason": "Verdict: {verdict}: {reason}",
    "setup": "Setup: {setup}",
    "decided_by": "Decided by: {decided_by}",
    "spread_candidate": "The candidate's own seed spread: {spread_candidate}",
    "phase": "Phase (epochs where the paper's description applies): {phase}",
    "measure": "Measure: {measure}",
}


def _details(name: str, rec: dict, statement: str | None = None) -> list[str]:
    """A record's details as Markdown lines, every table of values in full."""
    title = f"**{_fmt(rec.get('claim') or name)}**"
    out = [f"{title} (`{name}`)" if name else title, ""]
    out += [f"* The paper: {statement}"] if statement else []
    shown = {**rec, **{k: _fmt(rec.get(k)) for k in ("spread_candidate", "phase")}}
    out += [
        f"* {line.format(**shown)}"
        for k, line in _LINES.items()
        if rec.get(k) is not None and rec[k] != ""
    ]
    for key, label in (
        ("value", "This book"),
        ("paper", "Compared with"),
        ("alternative", "Alternative"),
        ("candidates", "Candidates (gap to the reference)"),
        ("epochs", "Over training"),
    ):
        v = rec.get(key)
        if isinstance(v, dict) or (isinstance(v, list) and len(v) > 4):
            out += ["", f"{label}:", "", value_table(v)]
    out.append("")
    return out


#: The class of a dropdown the PDF prints closed (:mod:`helpers.book.pdf`).
PRINT_OMIT = "print-omit"


def _dropdown(title: str, body: list[str], print_omit: bool = False) -> list[str]:
    """A MyST dropdown; ``print_omit``: the PDF prints its title alone."""
    opts = [f":class-container: {PRINT_OMIT}"] if print_omit else []
    return ["", f"::::{{dropdown}} {title}", *opts, *body, "::::", ""]


def claims_table(rows) -> str:
    """A closing table as Markdown from rows ``(claim, paper's statement, record)``."""
    lines = ["| claim | verdict | measured here | compared with |", "|---|---|---|---|"]
    details = []
    for claim, paper, rec in rows:
        cells = (
            _cell(claim),
            badge(rec["verdict"]) + (" marginal" if rec.get("marginal") else ""),
            _cell(measured(rec)),
            _cell(compared(rec)),
        )
        lines.append("| " + " | ".join(cells) + " |")
        details += _details(rec.get("name", ""), {**rec, "claim": claim}, paper)
    lines += _dropdown("The paper's words, reasons and setups", details)
    lines.append("Verdicts follow the book's {ref}`rulebook <rulebook>`.")
    return "\n".join(lines)


def notes(records: dict) -> str:
    """What every record measures, chapter by chapter, in one dropdown."""
    body = []
    for chapter, recs in records.items():
        body += [f"**{chapter}**", ""]
        for name, r in sorted(recs.items()):
            what = f"{r['measure']}. " if r.get("measure") else ""
            body.append(f"- `{name}`: {what}{r.get('note') or ''}")
        body.append("")
    return "\n".join(
        _dropdown("Every record, chapter by chapter", body, print_omit=True)
    )


# the scorecard's formatting helpers, by public names
fmt, cell, short, details, dropdown = _fmt, _cell, _short, _details, _dropdown
