"""The scorecard and the appendix of every record (pages *Scorecard* and *Every
record*), built from the chapters' records; nothing here is typed by hand.

One row per claim of the paper (a record registered ``part_of`` joins its claim's
row): its verdict, mark, who decides it, and the quantity that decides it.
"""

from __future__ import annotations

from collections import Counter

from tabulate import tabulate

from . import rulebook
from .records import badge, cell, details, dropdown, fmt, short

#: The verdicts on the paper's claims, in the bottom line's order and short names.
_SHORT = ("reproduced", "partly", "not", "undecided", "not testable")
COUNTED = dict(zip(rulebook.PAPER_VERDICTS, _SHORT))
#: The scorecard's groups, in the paper's order, then beyond the paper.
GROUPS = (*(f"Section {i}" for i in range(2, 7)), "Appendix B", "Appendices C-E")
GROUPS += ("Reviewers' questions", "Real data")
OTHER_KINDS = {
    "check": "The book's consistency checks",
    "finding": "Results beyond the paper",
    "measured": "Measurements",
}


def claims(records: dict) -> list[tuple[str, str, dict, list]]:
    """The paper's claims as rows ``(chapter, name, record, part_of records)``."""
    out = []
    for ch, recs in records.items():
        for name, r in recs.items():
            if r.get("kind") != "paper" or r.get("part_of"):
                continue
            parts = [
                (n, _short_of(ch, n, p))
                for n, p in recs.items()
                if p.get("part_of") == name
            ]
            out.append((ch, name, _short_of(ch, name, r), parts))
    return out


def _short_of(chapter: str, name: str, r: dict) -> dict:
    """The record with the registry's ``short`` and ``quantity``."""
    entry = rulebook.claim(chapter, name) or {}
    extra = {k: entry[k] for k in ("short", "quantity") if entry.get(k)}
    return {**r, **extra} if extra else r


def _quantity(r: dict) -> str:
    return r.get("quantity") or ("time gap" if r.get("lag_percent") else "gap")


def counts(records: dict) -> dict[str, int]:
    """How many of the paper's claims got each verdict (one per claim)."""
    out = dict.fromkeys(COUNTED, 0)
    for _, _, r, _ in claims(records):
        out[r["verdict"]] = out.get(r["verdict"], 0) + 1
    return out


def _label(r: dict) -> str:
    return (r.get("short") or r.get("claim") or "").rstrip(".")


def bottom_line(records: dict) -> str:
    """The bottom line in one sentence: the verdicts counted, and the dependent."""
    c = counts(records)
    parts = ", ".join(f"{c[v]} {short}" for v, short in COUNTED.items())
    rows = claims(records)
    dep = sum(1 for _, _, r, _ in rows if set(r.get("depends_on") or []) - {"rounding"})
    tail = f"; {dep} of them depend on a choice of this book" if dep else ""
    rounded = sum(1 for _, _, r, _ in rows if "rounding" in (r.get("depends_on") or []))
    if rounded:
        tail += f"; {rounded} on float32 rounding (the machine)"
    return f"Of the paper's {len(rows)} claims: {parts}{tail}."


def _lag(r: dict, brief: bool = False) -> str:
    lag = r.get("lag_percent")
    if not isinstance(lag, dict):
        return ""
    text = f"{lag['median']:.1f} % apart"
    if isinstance(lag.get("range"), list) and not brief:
        lo, hi = lag["range"]
        text += f" ({lo:.1f} to {hi:.1f} % over seeds)"
    return text


def decides(r: dict, brief: bool = False) -> str:
    """The quantity that decides a verdict, with its numbers against its yardstick."""
    crit = r.get("criterion")
    value, spread, paper = r.get("value"), r.get("spread"), r.get("paper")
    num = rulebook._number
    noise = crit in ("seed_noise", "beyond_noise") and num(spread)
    near = crit in ("near", "same_run") and num(spread) and num(paper)
    if num(value) and (crit == "gap" or near or noise):  # as the reason says it,
        text = rulebook._rule(crit, value, paper, spread, None)  # less the alternative
        lag = _lag(r, brief) if noise else ""
        text = _quantity(r) + text.removeprefix("gap") if noise else text
        return f"{text}; {lag}" if lag else text
    if crit == "near_bound" and num(value) and num(paper):
        return (
            f"{_g(value)}, short of the bound {_g(paper)} by "
            f"{_g(abs(value - paper))}, against {rulebook.BOUND_TOLERANCE:g} "
            "(one-sided)"
        )
    if crit == "smaller" and num(value) and num(paper) and paper:
        text = (
            f"ratio {_g(value / paper)} against {rulebook.CLEARLY:g} "
            f"({_g(value)} / {_g(paper)})"
        )
        iv = r.get("ratio_interval")
        if isinstance(iv, list) and len(iv) == 2:
            text += f", its interval {_g(iv[0])} to {_g(iv[1])}"
        return text
    if paper is not None:
        return f"{short(value)} against {short(paper)}"
    return short(value)


def why(r: dict) -> str:
    """Why a verdict is what it is, in one plain sentence from the record."""
    text, variants = _why(r), r.get("variants") or {}
    other = [x for x in variants.get("definition", []) if x["verdict"] != r["verdict"]]
    if other:
        text += f" Read as {other[0]['setting']}: {other[0]['verdict']}."
    rest = [
        x["verdict"]
        for c, xs in variants.items()
        if c not in ("seeds", "rounding")
        for x in xs
        if x["verdict"] != "not testable"
    ]
    if r.get("verdict") == "undecided" and rest and set(rest) == {"not reproduced"}:
        text += " Every other setting of the book's choices fails."
    return text


#: What :func:`why` says of a lower bound, and of a verdict the seeds cannot decide.
_LOWER = " (a lower bound: one side never reaches a loss level the other reaches)"
_MORE_SEEDS = (
    "; the verdict changes within the seed spread's interval, so more seeds are needed"
)


def _why(r: dict) -> str:
    v, crit = r.get("verdict"), r.get("criterion")
    value, spread, paper = map(r.get, ("value", "spread", "paper"))
    num = rulebook._number
    if v == "undecided" and "rounding" in (r.get("depends_on") or []):
        # counted, not listed: the row stays short as machines join the floors
        rows = (r.get("variants") or {}).get("rounding", [])
        counts = Counter(x["verdict"] for x in rows).most_common()
        said = ", ".join(f"{v} on {n}" for v, n in counts)
        return (
            "Float32 rounding decides it, not the evidence: of the "
            f"{len(rows)} stored executions, {said} (the record names them)."
        )
    lower = _LOWER if r.get("censored") or r.get("censored_reference") else ""
    tail = _MORE_SEEDS if v == "undecided" else ""
    spread_ok = num(spread) and spread
    if crit in ("seed_noise", "beyond_noise") and num(value) and spread_ok:
        return _why_noise(r, value / spread, f"{lower}{tail}")
    if crit == "near_bound" and num(value) and num(paper):
        gap = abs(value - paper)
        ok = "within" if gap <= rulebook.BOUND_TOLERANCE else "beyond"
        return (
            f"The share is {_g(value)}: {_g(gap)} of the weight falls outside the "
            f"claimed structure where the claim says none does, {ok} the "
            f"{rulebook.BOUND_TOLERANCE:g} a description may miss{tail}."
        )
    if crit == "near" and num(value) and num(paper) and spread_ok:
        return (
            f"The book measures {_g(value)} where the claim says {_g(paper)}: "
            f"{abs(value - paper) / spread:.2g} x the seed spread away{tail}."
        )
    if crit == "smaller" and num(value) and num(paper) and paper:
        ok = "under" if value / paper <= rulebook.CLEARLY else "not under"
        return (
            f"The ratio is {_g(value / paper)}, {ok} the {rulebook.CLEARLY:g} that "
            f"'clearly' asks{tail}."
        )
    if crit == "gap" and num(value):
        ok = "within" if value <= rulebook.CHECK_GAP else "beyond"
        gap = rulebook.CHECK_GAP
        return f"The time gap is {_g(value)}, {ok} the {gap:g} allowed{lower}."
    if crit == "same_run" and num(value) and num(paper) and spread_ok:
        ok = rulebook.holds(crit, value, paper, spread)
        return (
            f"The runs agree to rounding through drops that leave a step-size error "
            f"of {_g(paper)} possible (at most {rulebook.SAME_RUN_TOL:g} allowed); "
            f"after they part their time gap is {_g(value)}, "
            f"{value / spread:.2g} x the seed spread"
            f"{lower}: {'holds' if ok else 'fails'}."
        )
    if crit == "exact":
        return f"The book finds {short(value)}; the paper says {short(paper)}."
    reason = (r.get("reason") or "").split(":")[0]
    return f"{reason[:1].upper()}{reason[1:]}." if reason else ""


def _why_noise(r: dict, k: float, tail: str) -> str:
    """:func:`_why` under ``seed_noise`` and ``beyond_noise``: the gap is ``k``
    seed spreads."""
    m, alt = rulebook.NOISE_MULTIPLE, r.get("alternative")
    text = f"The {_quantity(r)} is {_g(r['value'])}, {k:.2g} x the seed spread"
    if r["criterion"] == "beyond_noise":
        where = "beyond" if k > m else "within"
        return f"{text}: {where} the {m:g} x a second seed gives{tail}."
    if k <= m:
        text += f", within the {m:g} x a second seed gives"
    elif rulebook._number(alt):
        under = "but under" if r["value"] <= rulebook.CLEARLY * alt else "and not under"
        text += f", beyond the noise {under} half the alternative's {_g(alt)}"
    else:
        text += ", beyond the noise"
    return f"{text}{tail}."


def _g(x) -> str:
    return f"{x:.3g}" if rulebook._number(x) else short(x)


def mark(r: dict, brief: bool = False) -> str:
    """Robust, or the choices the verdict depends on (``brief``: names alone)."""
    hair = "marginal (within a tenth of its threshold); " if r.get("marginal") else ""
    variants = r.get("variants") or {}
    if not variants:
        return hair + "not varied"
    dep = r.get("depends_on") or []
    if not dep:
        return hair + "robust to " + ", ".join(variants)
    if brief:
        return hair + "depends on " + ", ".join(dep)
    said = []
    for choice in dep:
        moved = [
            x
            for x in variants.get(choice, [])
            if x["verdict"] not in (r["verdict"], "not testable")
        ]
        where = "; ".join(f"{x['setting']}: {x['verdict']}" for x in moved[:1])
        more = f"; +{len(moved) - 1} more" if len(moved) > 1 else ""
        said.append(f"{choice} ({where}{more})")
    return hair + "depends on " + "; ".join(said)


def legend() -> str:
    """What the badges and marks mean, in one paragraph."""
    meaning = {
        "reproduced": "within the seed noise, or the relation the paper states holds",
        "partly reproduced": "outside the noise, but clearly nearer the paper's "
        "candidate than the alternative it argues against",
        "not reproduced": "neither",
        "undecided": "the verdict changes within the bootstrap interval of the "
        "yardstick (more seeds are needed), or with float32 rounding on another "
        "machine (*depends on rounding*)",
        "not testable": "the paper gives nothing to compare with",
    }
    items = [f"{badge(v)} {text}" for v, text in meaning.items()]
    return (
        "**Legend.** "
        + "; ".join(items)
        + ". *robust to ...*: the verdict is the same under every setting of the "
        "book's own choices that was varied ({ref}`rulebook <rulebook-variants>`); "
        "*depends on ...*: the choice, the setting and the verdict there. *Decided "
        "by*: whose choice the verdict rests on: the paper's claim, the authors' code "
        "(a choice the paper does not state) or this book (a reconstruction or "
        "measure of its own). *marginal*: the deciding number lies within a tenth of "
        "its threshold ({ref}`rulebook <rulebook-marginal>`)."
    )


def _names(rows) -> str:
    labels = [_label(r) for _, _, r, _ in rows]
    if len(labels) <= 1:
        return "".join(labels)
    return "; ".join(labels[:-1]) + "; and " + labels[-1]


def _rescued(r: dict) -> list[str]:
    return [
        c
        for c in r.get("depends_on") or []
        if c != "rounding"
        and any(
            x["verdict"] in ("reproduced", "partly reproduced")
            for x in (r.get("variants") or {}).get(c, [])
        )
    ]


#: Whose problem a failure is, by who decides it (:data:`rulebook.DECIDED_BY`).
_PROBLEM = {
    "the paper's claim": "the paper's problem",
    "the authors' code": "a choice of the authors' code",
    "this book's construction": "resting on this book's construction",
}


def _group(row) -> str:
    return row[2].get("group") or "Other"


def _grouped(rows):
    """``(group, its rows)`` per group with rows: :data:`GROUPS`, then any other."""
    for group in (*GROUPS, *sorted({_group(x) for x in rows} - set(GROUPS))):
        mine = [x for x in rows if _group(x) == group]
        if mine:
            yield group, mine


def in_words(records: dict, reasons: bool = True) -> list[str]:
    """The bottom line per section of the paper, in plain words (no record names):
    what holds, what fails and whose problem, what is undecided or depends on a
    choice."""
    out = []
    for group, mine in _grouped(claims(records)):
        said = []

        def by(*verdicts):
            return [x for x in mine if x[2]["verdict"] in verdicts]

        def named(rows, words):
            if rows:
                said.append(f"{words}: {_names(rows)}")

        named(by("reproduced"), "holds")
        named(by("partly reproduced"), "holds in part")
        fails = by("not reproduced")
        rescued = [x for x in fails if _rescued(x[2])]
        if rescued:
            said.append(
                "fails under the paper's own setup, but holds at least in part under "
                "another choice of this book (so whose problem it is turns on that "
                "choice): "
                + "; ".join(
                    f"{_label(x[2])} ("
                    + (f"{why(x[2])[:-1]}; " if reasons else "")
                    + f"holds under {', '.join(_rescued(x[2]))})"
                    for x in rescued
                )
            )
        for who, problem in _PROBLEM.items():
            mine_ = [
                x
                for x in fails
                if x not in rescued
                and (x[2].get("decided_by") or rulebook.DECIDED_BY[0]) == who
            ]
            if mine_ and reasons:
                each = "; ".join(f"{_label(x[2])} ({why(x[2])[:-1]})" for x in mine_)
                said.append(f"fails ({problem}): {each}")
            else:
                named(mine_, f"fails ({problem})")
        open_ = by("undecided")
        rounded = [x for x in open_ if "rounding" in (x[2].get("depends_on") or [])]
        named(rounded, "float32 rounding decides (undecided)")
        named([x for x in open_ if x not in rounded], "the seeds cannot decide")
        named(by("not testable"), "not testable")
        dep = [x for x in mine if set(x[2].get("depends_on") or []) - {"rounding"}]
        chosen = {c for x in dep for c in x[2]["depends_on"] if c != "rounding"}
        said.append(
            f"{len(dep)} of {len(mine)} change with a choice of this book "
            f"({', '.join(sorted(chosen))})"
            if dep
            else "none changes with a choice of this book"
        )
        head = f"**{group}** ({len(mine)} claim{'s' if len(mine) > 1 else ''})."
        out.append(head + " " + ". ".join(s[0].upper() + s[1:] for s in said))
    return [s + "." for s in out]


def _row(ch: str, name: str, r: dict, parts: list) -> list[str]:
    fig = f" · {{numref}}`{r['figure']}`" if r.get("figure") else ""
    claim = f"{cell(_label(r))}<br>[{ch}]({ch}.ipynb){fig}"
    verdict = (
        f"{badge(r['verdict'])}<br>{cell(mark(r, True))}; decided by {rulebook.who(r)}"
    )
    lag = _lag(r, True)
    said = why(r)
    number = cell(f"{said[:-1]}: {lag} in time." if lag and said else said)
    for pname, p in parts:
        number += (
            f"<br>also, {cell(_label(p))}: {badge(p['verdict'])} "
            f"({cell(decides(p, True))})"
        )
    return [claim, verdict, number]


def verdict_line(chapter: str, name: str, records: dict) -> str:
    """The MyST line the directive ``verdict`` (:mod:`helpers.book.sphinx_ext`) renders
    under a figure.

    Raises:
        KeyError: ``name`` is no record of ``chapter``, or no claim of the paper.
    """
    recs = records.get(chapter) or {}
    if name not in recs:
        raise KeyError(f"verdict: {chapter} has no record {name!r}")
    rec = recs[name]
    if rec.get("kind") != "paper":
        raise KeyError(f"verdict: {chapter}.{name} is a {rec.get('kind')}, no claim")
    r = _short_of(chapter, name, rec)
    return (
        f"{badge(r['verdict'])} **{_label(r)}**: {decides(r)}; "
        f"{mark(r)}; decided by {rulebook.who(r)}."
    )


def bold_line(records: dict) -> str:
    """The bottom line in bold, as the scorecard opens (before its figure)."""
    return f"**{bottom_line(records)}**"


def scorecard(records: dict, bold: bool = True) -> str:
    """The scorecard page's body as Markdown, a table per section of the paper."""
    out = [bold_line(records), ""] if bold else []
    out += dropdown(
        "The bottom line per section, in words",
        [x for sentence in in_words(records, reasons=False) for x in (sentence, "")],
        print_omit=True,
    )
    for group, mine in _grouped(claims(records)):
        rows = [_row(*x) for x in mine]
        table = tabulate(rows, ["claim", "verdict", "why"], tablefmt="github")
        out += ["", f"## {group}", "", table]
        body = []
        for ch, n, r, parts in mine:
            for name, rec in [(n, r), *parts]:
                body += details(name, rec) + _variants(rec)
        out += dropdown(
            f"Details of {group}: the paper's words, reasons, variants",
            body,
            print_omit=True,  # the PDF prints the table; the details are online
        )
    return "\n".join(out)


def _variants(r: dict) -> list[str]:
    lines = [
        f"  * {choice}: "
        + "; ".join(f"{x['setting']}: {fmt(x['value'])} ({x['verdict']})" for x in rows)
        for choice, rows in (r.get("variants") or {}).items()
    ]
    return ["* Varied over the book's own choices:", *lines, ""] if lines else []


def choices_table() -> str:
    """:data:`rulebook.CHOICES` as a table (page *How verdicts are decided*)."""
    rows = [[f"`{k}`", cell(v)] for k, v in rulebook.CHOICES.items()]
    return tabulate(rows, ["choice", "what is varied"], tablefmt="github")


def _where(records: dict, test) -> list[tuple[str, str, dict]]:
    """``(chapter, name, record)`` of every record that passes ``test``."""
    return [
        (ch, n, r) for ch, recs in records.items() for n, r in recs.items() if test(r)
    ]


def appendix(records: dict) -> str:
    """Every record, kind by kind, with its numbers, reason and variants."""
    out = []
    for kind, title in {"paper": "The paper's claims", **OTHER_KINDS}.items():
        mine = _where(records, lambda r: r.get("kind") == kind)
        if not mine:
            continue
        tally = Counter(r["verdict"] for _, _, r in mine)
        verdicts = ", ".join(f"{n} {v}" for v, n in sorted(tally.items()))
        rows = [
            [f"{cell(r.get('claim') or n)}<br>[{ch}]({ch}.ipynb)", badge(r["verdict"])]
            + [cell(decides(r))]
            for ch, n, r in mine
        ]
        body = [tabulate(rows, ["record", "verdict", "what decides it"], "github"), ""]
        for ch, n, r in mine:
            body += details(n, r) + _variants(r)
        counted = ""
        if kind == "paper":
            n_claims = len(claims(records))
            counted = (
                f" Every record on the paper counts here, one per measure: "
                f"{len(mine) - n_claims} of them (a closed form beside its ReLN, "
                f"joined with `part_of`) share a claim's row on the scorecard, which "
                f"counts {n_claims} claims, one verdict each."
            )
        out += ["", f"## {title}", "", f"{len(mine)} records: {verdicts}.{counted}"]
        out += dropdown(f"{title}: every record", body, print_omit=True)
    targets = _where(records, lambda r: r.get("target"))
    if targets:
        rows = [
            [f"[`{n}`]({ch}.ipynb)", cell(short(r["value"]))]
            + [f"{r['target']} {cell(fmt(r['paper']))}", badge(r["verdict"])]
            for ch, n, r in targets
        ]
        table = tabulate(rows, ["record", "value", "target", "verdict"], "github")
        out += ["", "## The book's own targets", "", table]
    return "\n".join(out)
