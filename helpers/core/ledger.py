"""The setup ledger (``ledger.toml``; page *The setup ledger*): per experiment and
setting, the authors' value and script lines (CAandL-Lab/make-haste-slowly at
b7d6e41), the paper's, the book's and whose the verdicts use.  A book value
``"=paper:SECTION.name"`` or ``"=cell:chapter.name"`` is read from
:mod:`helpers.core.paper` or the chapter's parameters cell.  Imports no JAX.
"""

from __future__ import annotations

import ast
import math
import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from . import paper

LEDGER = Path(__file__).with_name("ledger.toml")
BOOK = Path(__file__).resolve().parents[2] / "book"

#: Values that are never compared.
NOT_COMPARED = ("none", "not stated", "n/a")
#: What a row's ``verdicts`` says when its setting moves no verdict.
NONE_AFFECTED = "none affected"
VERDICT_USES = ("authors", "paper", "book")
FIELDS = ("authors", "script", "paper", "book", "verdict_uses", "why")

_REF = re.compile(r"^=(paper|cell):(\w+)\.(\w+)(?:\[(\d+)\])?$")
_QUOTIENT = re.compile(r"^\s*([-+0-9.eE]+)\s*/\s*([-+0-9.eE]+)\s*$")


@dataclass(frozen=True)
class Row:
    """One setting of one experiment; ``book`` resolved, ``book_source`` as written."""

    experiment: str
    setting: str
    authors: object
    script: str
    paper: object
    book: object
    verdict_uses: str
    why: str
    book_source: object = None
    verdicts: tuple[str, ...] = ()
    #: ``verdicts = "none affected"``: no verdict depends on it.
    none_affected: bool = False

    @property
    def scripts(self) -> tuple[tuple[str, str], ...]:
        """``((path, lines), ...)`` in the authors' repository; empty for ``"none"``."""
        if self.script == "none":
            return ()
        out = []
        for part in self.script.split(";"):
            path, _, lines = part.strip().partition(":")
            out.append((path, lines))
        return tuple(out)

    @property
    def authors_differ(self) -> bool:
        """The authors' scripts set a value and the book uses another."""
        return _compared(self.authors, self.book) and not same(self.authors, self.book)

    @property
    def paper_differs(self) -> bool:
        """The paper states a value and the book uses another."""
        return _compared(self.paper, self.book) and not same(self.paper, self.book)

    @property
    def authors_paper_differ(self) -> bool:
        """The authors' scripts and the paper's text disagree."""
        return _compared(self.authors, self.paper) and not same(
            self.authors, self.paper
        )

    @property
    def differs(self) -> bool:
        return self.authors_differ or self.paper_differs or self.authors_paper_differ


@dataclass(frozen=True)
class Experiment:
    """The ledger of one experiment: a title, a one-line summary and its rows."""

    key: str
    title: str
    summary: str
    rows: tuple[Row, ...]

    def row(self, setting: str) -> Row:
        for r in self.rows:
            if r.setting == setting:
                return r
        raise KeyError(
            f"{self.key} has no setting {setting!r}; it has "
            f"{[r.setting for r in self.rows]}"
        )

    @property
    def authors_differ(self) -> tuple[Row, ...]:
        return tuple(r for r in self.rows if r.authors_differ)

    @property
    def verdicts_off_authors(self) -> tuple[str, ...]:
        """Records judged under a setting other than the authors', in order."""
        seen = []
        for r in self.authors_differ:
            seen += [v for v in r.verdicts if v not in seen]
        return tuple(seen)


def _compared(a, b) -> bool:
    return not any(isinstance(v, str) and v in NOT_COMPARED for v in (a, b))


def _number(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        m = _QUOTIENT.match(v)
        if m:
            return float(m.group(1)) / float(m.group(2))
    return None


def same(a, b) -> bool:
    """Ledger values agree: numbers (``"a / b"`` too) to 1e-9, strings ignoring case."""
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        if not (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))):
            return False
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    na, nb = _number(a), _number(b)
    if na is not None and nb is not None:
        return math.isclose(na, nb, rel_tol=1e-9, abs_tol=0.0)
    if na is not None or nb is not None:
        return False
    return str(a).strip().lower() == str(b).strip().lower()


@lru_cache(maxsize=None)
def cell_defaults(chapter: str) -> dict:
    """The literal defaults of ``book/<chapter>.md``'s parameters cell."""
    src = BOOK / f"{chapter}.md"
    if not src.exists():
        raise KeyError(f"no chapter {chapter!r} (no {src})")
    m = re.search(
        r"```\{code-cell\} ipython3\n:tags: \[parameters[^\]]*\]\n(.*?)\n```",
        src.read_text(),
        re.S,
    )
    if m is None:
        raise KeyError(f"{src.name} has no parameters cell")
    out = {}
    for node in ast.parse(m.group(1)).body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    return out


def _resolve(v):
    """A book value, references resolved."""
    if not (isinstance(v, str) and v.startswith("=")):
        return v
    m = _REF.match(v)
    if m is None:
        raise ValueError(
            f"a book reference is '=paper:SECTION.name' or '=cell:chapter.name' "
            f"(an index [i] may follow), got {v!r}"
        )
    kind, owner, name, index = m.groups()
    if kind == "paper":
        section = getattr(paper, owner, None)
        if not isinstance(section, paper.Section):
            raise KeyError(f"helpers.core.paper has no section {owner!r}")
        value = getattr(section, name)
    else:
        cells = cell_defaults(owner)
        if name not in cells:
            raise KeyError(
                f"book/{owner}.md's parameters cell sets no literal {name!r}; it "
                f"sets {sorted(cells)}"
            )
        value = cells[name]
    if isinstance(value, tuple):
        value = list(value)
    return value[int(index)] if index is not None else value


def load(path: Path | str | None = None) -> dict[str, Experiment]:
    """Every experiment of the ledger, in the file's order."""
    path = LEDGER if path is None else Path(path)
    data = tomllib.loads(path.read_text())
    if set(data) != {"ledger"}:
        raise ValueError(f"{path.name}: one top-level table 'ledger', got {set(data)}")
    out = {}
    for key, sec in data["ledger"].items():
        sec = dict(sec)
        title, summary = sec.pop("title"), sec.pop("summary", "")
        rows = []
        for setting, entry in sec.items():
            missing = [f for f in FIELDS if f not in entry]
            unknown = set(entry) - set(FIELDS) - {"verdicts"}
            if missing or unknown:
                raise ValueError(
                    f"ledger.{key}.{setting}: missing {missing}, unknown "
                    f"{sorted(unknown)}"
                )
            if entry["verdict_uses"] not in VERDICT_USES:
                raise ValueError(
                    f"ledger.{key}.{setting}: verdict_uses must be one of "
                    f"{VERDICT_USES}, got {entry['verdict_uses']!r}"
                )
            verdicts = entry.get("verdicts", ())
            if isinstance(verdicts, str) and verdicts != NONE_AFFECTED:
                raise ValueError(
                    f"ledger.{key}.{setting}: verdicts is a list of records or "
                    f"{NONE_AFFECTED!r}, got {verdicts!r}"
                )
            if (entry["authors"] == "none") != (entry["script"] == "none"):
                raise ValueError(
                    f"ledger.{key}.{setting}: an authors' value needs its script, "
                    f"and 'none' has none"
                )
            rows.append(
                Row(
                    experiment=key,
                    setting=setting,
                    authors=entry["authors"],
                    script=entry["script"],
                    paper=entry["paper"],
                    book=_resolve(entry["book"]),
                    verdict_uses=entry["verdict_uses"],
                    why=entry["why"],
                    book_source=entry["book"],
                    verdicts=() if isinstance(verdicts, str) else tuple(verdicts),
                    none_affected=verdicts == NONE_AFFECTED,
                )
            )
        out[key] = Experiment(key, title, summary, tuple(rows))
    return out


@lru_cache(maxsize=1)
def _cached() -> dict[str, Experiment]:
    return load()


#: The experiments of the ledger, in reading order.
EXPERIMENTS = tuple(tomllib.loads(LEDGER.read_text())["ledger"])


def experiment(key: str) -> Experiment:
    """One experiment of the book's ledger."""
    led = _cached()
    if key not in led:
        raise KeyError(f"no experiment {key!r} in the ledger; choose from {list(led)}")
    return led[key]


def differences(key: str | None = None) -> list[Row]:
    """Rows where the authors' scripts and the book disagree."""
    keys = EXPERIMENTS if key is None else (key,)
    return [r for k in keys for r in experiment(k).authors_differ]


def show(v) -> str:
    """A ledger value as the page prints it."""
    if isinstance(v, (list, tuple)):
        return ", ".join(show(x) for x in v)
    if isinstance(v, float):
        return f"{v:.3g}"
    if isinstance(v, str) and _QUOTIENT.match(v):
        return f"{v.replace(' ', '')} = {_number(v):.3g}"
    return str(v)


_WHOSE = {"authors": "the authors'", "paper": "the paper's", "book": "the book's"}


def _cite(r: Row) -> str:
    return "; ".join(f"`{p}:{n}`" for p, n in r.scripts)


def _affected(r: Row) -> str:
    if r.verdicts:
        return "verdicts that depend on it: " + ", ".join(f"`{v}`" for v in r.verdicts)
    if r.none_affected:
        return "none affected"
    return "no verdict listed"


def departures(key: str, led: dict | None = None) -> str:
    """The ledger page's prose for one experiment, from its rows (so it cannot
    contradict the table): departures from the scripts, then from the paper."""
    exp = (_cached() if led is None else led)[key]
    differ = exp.authors_differ
    if all(r.authors == "none" for r in exp.rows):
        head = (
            "No script of the authors sets any value of this experiment: every "
            "setting below is the paper's or the book's."
        )
    elif not differ:
        head = "The book uses every value the authors' scripts set."
    else:
        head = (
            f"The book departs from the authors' scripts in {len(differ)} of "
            f"{len(exp.rows)} settings:"
        )
    lines = [head, ""]
    for r in differ:
        lines.append(
            f"* **{r.setting}**: the scripts {show(r.authors)} ({_cite(r)}), the book "
            f"{show(r.book)}; the verdicts use {_WHOSE[r.verdict_uses]} value "
            f"({r.why}); {_affected(r)}."
        )
    follows = [
        r
        for r in exp.rows
        if r.authors_paper_differ and not r.authors_differ and r.paper_differs
    ]
    if follows:
        lines += [
            "",
            f"Where the scripts depart from the paper's text, the book follows the "
            f"scripts ({len(follows)} settings):",
            "",
        ]
        for r in follows:
            lines.append(
                f"* **{r.setting}**: the scripts and the book {show(r.authors)} "
                f"({_cite(r)}), the paper {show(r.paper)}; {_affected(r)}."
            )
    return "\n".join(lines)
