"""The tables of the page ``book/reviewers.md`` (:func:`helpers.book.kit.table`)."""

from __future__ import annotations

from ...book.kit import table
from .measures import nanmed


def _cells(r: dict, spec) -> list[str]:
    """``format(r[key], fmt)`` per ``(key, fmt)`` of ``spec``."""
    return [format(r[k], f) for k, f in spec]


def _spread(spread: float, interval) -> str:
    """A seed spread with its 90 % interval."""
    return f"{spread:.3f} [{interval[0]:.3f}, {interval[1]:.3f}]"


#: The match's cells: the gap, its seed spread and the alternative's gap.
_MATCH = (("match_value", ".3f"), ("match_spread", ".3f"), ("match_alternative", ".3f"))
#: The strategy's shares.
_SHARES = (("mixed", ".2f"), ("single", ".2f"))
#: The last cells of the init sweep and of the data comparison, and their titles.
_TAIL = (*_SHARES, ("snap_change", ".2f"), *_MATCH)
_TAIL_HEAD = ["2-of-3", "single", "snap change", "match", "seed spread", "alternative"]
#: The width sweep's cells up to the match's gap.
_WIDTH = (("std", ".2e"), ("final_loss_share", ".2g"), ("common", ".2f"), *_SHARES)
_WIDTH += (("mixed_of_context", ".2f"), ("snap_change", ".2f"), ("match_value", ".3f"))


def width_table(sweep: dict) -> str:
    """The width sweep (Table 1), rows of :func:`~.sweeps.width_row` by rule and width;
    the match also relative to 700 units' (or the middle width's, 700 not swept)."""
    rows = []
    for rule, by_width in sweep.items():
        ref = by_width.get(700) or by_width[sorted(by_width)[len(by_width) // 2]]
        for w in sorted(by_width):
            r = by_width[w]
            spread = _spread(r["match_spread"], r["match_spread_interval"])
            ends = [f"{r['match_alternative']:.3f}"]
            ends += [f"{r['match_value'] / ref['match_value']:.2f}"]
            rows.append([rule, str(w), *_cells(r, _WIDTH), spread, *ends])
    head = ["std rule", "width", "init std", "final loss / L(0)", "common", "2-of-3"]
    head += ["single", "2-of-3 of non-common", "snap change", "match"]
    head += ["seed spread [90 %]", "alternative", "match / match at 700"]
    return table(rows, head)


def init_table(init_sweep: dict) -> str:
    """The init sweep (section 2), rows of :func:`~.sweeps.init_row` by std."""
    spec = (("std", ".1e"), ("initial_loss", ".1f"), ("plateau_share", ".2f"))
    spec += (("gate_change", ".3f"), *_TAIL)
    rows = sorted(init_sweep.values(), key=lambda r: r["std"])
    head = ["init std", "initial loss", "plateau share", "gates moved", *_TAIL_HEAD]
    return table([_cells(r, spec) for r in rows], head)


def optimiser_table(optimiser: dict) -> str:
    """The optimisers (section 3), rows of :func:`~.sweeps.optimiser_row`."""
    spec = (*_SHARES, ("common", ".2f"), ("final_loss_share", ".2g"))
    rows = []
    for name, r in optimiser.items():
        match = ["not compared (another time axis)", "—", "—"]
        match = match if r["match_value"] is None else _cells(r, _MATCH)
        first = [name, f"{r['step']:.3g}", r["race_winner"]]
        rows.append([*first, *_cells(r, spec), *match])
    head = ["optimiser", "step", "race winner", "2-of-3", "single", "common"]
    head += ["final loss / L(0)", "match", "seed spread", "alternative"]
    return table(rows, head)


def data_table(data: dict) -> str:
    """The data comparison (section 4), rows of :func:`~.sweeps.data_row`."""
    spec = (("offdiag_common", ".3f"), ("offdiag_ctx23", ".3f"))
    spec += (("final_loss_share", ".2g"), *_TAIL)
    rows = [[name, *_cells(r, spec)] for name, r in data.items()]
    head = ["data", "off-diagonal (common)", "off-diagonal (2-of-3)"]
    head += ["final loss / L(0)", *_TAIL_HEAD]
    return table(rows, head)


def mode_table(rows6, t_iso, t_race, t_sim) -> str:
    """Every mode of the matched ReLN (section 6), with its half-way epochs."""
    rows = [
        [r.pathway, str(r.index + 1), f"{r.s:.3f}", f"{r.d:.2f}", f"{r.final:.3f}"]
        + [f"{r.a0:.1e}", *(f"{t:.0f}" for t in ts)]
        for r, *ts in zip(rows6, t_iso, t_race, t_sim)
    ]
    head = ["pathway", "mode", "s", "d", "s / d", "a0", "half-way: Eq. 7 alone"]
    head += ["race", "simulated"]
    return table(rows, head)


def intervention_table(intervention: dict, base_end: dict, base_loss: float) -> str:
    """The interventions (section 7), rows of :func:`~.sweeps.intervention_row`, after
    the paper's settings (their strategy per seed, ``base_end``, and final loss)."""
    b = [f"{nanmed(base_end[c]):.2f}" for c in ("mixed", "single", "common")]
    rows = [["none (the paper's settings)", *b, "—", "—", "1", f"{base_loss:.2g}"]]
    keys = ("mixed", "single", "common", "race_mixed", "race_single")
    spec = [(k, ".2f") for k in (*keys, "time_to_1pc_over_gd")]
    spec += [("final_loss_share", ".2g")]
    rows += [[name, *_cells(r, spec)] for name, r in intervention.items()]
    head = ["intervention", "2-of-3", "single", "common", "race: 2-of-3"]
    head += ["race: single", "time to 1 % (x GD)", "final loss / L(0)"]
    return table(rows, head)


def sentence_table(matches: dict, reference: str) -> str:
    """Every setting's match (:func:`~.measures.match_summary`), also relative."""
    ref = matches[reference]["value"]
    rows = []
    for name, m in matches.items():
        verdict = "undecided" if m["undecided"] else ("yes" if m["matches"] else "no")
        cells = [name, f"{m['value']:.3f}", _spread(m["spread"], m["spread_interval"])]
        cells += [f"{m['value'] / m['spread']:.1f}", f"{m['alternative']:.3f}"]
        cells += [f"{m['value'] / ref:.2f}", str(m["levels"]), verdict]
        rows.append([*cells, m.get("nearer_verdict", "—")])
    head = ["setting", "match", "seed spread [90 %]", "match / spread", "alternative"]
    head += ["match / match at the paper's setting", "levels reached", "within noise"]
    head += ["below half the alternative"]
    return table(rows, head)
