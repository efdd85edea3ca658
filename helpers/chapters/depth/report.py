"""The depth chapter's records, glue and closing tables, read from its runs (defined
for the page ``book/depth.md``; :func:`report`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from ...book import kit
from ...book import rulebook as rb
from ...book.notebook import glue
from ...book.records import claims_table
from ...core.measures import (
    Evidence,
    level_times,
    output_gap,
    ratio_interval,
    seed_spread,
    share_at_bound,
    time_gap,
)
from . import compare, drops, gating, networks
from .compare import plateau_outputs, plateau_record
from .drops import med, plateau_levels
from .gating import (
    appearance_epoch,
    context_weight_window,
    epoch_ranges,
    smaller_by_epoch,
    verdicts_over_training,
    window_mean,
)
from .networks import GDLN_STDS, Schedule, paper_profile_runs
from .tables import INIT_NAME


@dataclass(frozen=True)
class Runs:
    """The runs the page trained (and the stored ones it loaded).

    ``ds`` the task; ``relu``, ``gh`` (main GDLN, hand-set schedule), ``gd`` (derived
    schedule): :class:`helpers.chapters.depth.census.DepthRuns`; ``init_loss``,
    ``init_out``: ``{init: loss curves / outputs}`` of the GDLN under each
    initialisation; ``L_ow``: the other coupling's loss curves (None: not run);
    ``stored``: ``{"scatter": (run, manifest entry), "rounding": (run, entry)}``
    (:func:`helpers.chapters.depth.stored.load`), and optionally ``"authors": (curves,
    entry)``, the authors' own script runs (``{"relu", "gdln"}: (seeds, epochs)``,
    :func:`helpers.book.crosscheck.load`'s ``curves`` and ``meta``).
    """

    ds: object
    relu: object
    gh: object
    gd: object
    init_loss: dict
    init_out: dict
    L_ow: np.ndarray | None
    stored: dict


@dataclass(frozen=True)
class Params:
    """The page's parameters the report reads (the rest it reads off the runs)."""

    init: str
    coupling: str
    hand_schedule: list
    appear_threshold: float
    appear_threshold_check: list
    init_seeds: int
    coupling_seeds: int
    record_every: int


def report(rec, runs: Runs, params: Params) -> dict:
    """Write the depth chapter's records, the glue its prose reads and its closing
    tables.  Defined for the page ``book/depth.md``.

    Args:
        rec: the chapter's :class:`helpers.book.records.Records`.
        runs: the runs (:class:`Runs`); params: the parameters (:class:`Params`).

    Returns:
        ``{"summary": closing table, "in_short": closing paragraph, "check": the
        headline numbers as text}`` (Markdown and plain text); the records are saved
        (``rec.save()``).
    """
    r = _read(runs, params)
    _setup(r)
    _stereotypes(r)
    inits = _inits(r)
    var = _drops(r)
    g = _gating(r)
    _schedule(r)
    out = _outputs(r)
    _coupling(r)
    _cost(r)
    recs = _records(rec, r, g, var, out)
    rec.save()
    return {
        "summary": _summary(r, recs),
        "in_short": _in_short(r, g, var, out, inits, recs),
        "check": _check(r, g, out, recs),
    }


def _read(runs: Runs, p: Params) -> SimpleNamespace:
    """What the page derives from its runs, by the same science functions, under the
    page's names."""
    relu, gh, gd = runs.relu, runs.gh, runs.gd
    seeds = [int(s) for s in relu.seeds]
    L_rank = networks.linear_losses(runs.ds)
    L0 = 0.5 * float(np.sum(runs.ds.Y**2))
    st = compare.stereotypes(relu.loss, gh.loss)
    init_rows, init_evidence = compare.init_comparison(
        relu.loss, runs.init_loss, st.i_r
    )
    prof = drops.drop_profile(relu.loss, gh.loss)
    (big, big_entry), (rd, rd_entry) = runs.stored["scatter"], runs.stored["rounding"]
    v24 = drops.stored_profile(seeds, relu.loss, gh.loss, big)
    robust = {
        s: drops.spread_profile(v24["drops"]["relu"], v24["drops"]["hand"], s)
        for s in ("iqr", "mad")
    }
    authors = _authors(runs.stored.get("authors"), relu.loss.shape[1], v24)
    floor = drops.rounding_floor(
        drops.same_start(relu.loss, seeds, rd), v24["levels_all"]
    )
    hand = Schedule(*p.hand_schedule)
    derived, info, checks = gating.derived_schedules(
        relu, gh, hand, p.appear_threshold, p.appear_threshold_check
    )
    dc = compare.derived_comparison(relu.loss, gh.loss, gd.loss, st.i_r)
    po = compare.plateau_comparison(
        relu, gh, prof["levels"], L_rank, L0, st.i_r, st.i_g
    )
    gap_ow, m_ow = compare.coupling_comparison(relu.loss, gh.loss, runs.L_ow)
    return SimpleNamespace(
        **vars(p),
        SEEDS=seeds,
        other_coupling="full" if p.coupling == "one-way" else "one-way",
        epochs=int(relu.loss.shape[1] - 1),
        width=int(relu.net.sizes[1]),
        ds=runs.ds,
        L_rank=L_rank,
        relu=relu,
        gh=gh,
        gd=gd,
        init_loss=runs.init_loss,
        init_out=runs.init_out,
        L_ow=runs.L_ow,
        **vars(st),
        init_rows=init_rows,
        init_evidence=init_evidence,
        levels=prof["levels"],
        names_drop=prof["names"],
        drops=prof["drops"],
        scatter=prof["scatter"],
        scatter_bs=prof["scatter_bs"],
        k_var=prof["k"],
        sub=prof["sub"],
        var24=v24,
        names24=v24["names"],
        pool=v24["pool"],
        robust=robust,
        authors=authors,
        big_entry=big_entry,
        floor=floor,
        rd_entry=rd_entry,
        hand=hand,
        derived=derived,
        info=info,
        checks=checks,
        phase=gating.gating_phase(relu)[0],
        exists=gating.context_gating(relu, L_rank),
        m_derived=dc["m_derived"],
        m_hand_same=dc["m_hand_same"],
        gap_stereo_derived=dc["gap_stereo"],
        gaps_out=po["gaps"],
        m_out=po["matches"],
        worst=po["worst"],
        gap_ow=gap_ow,
        m_ow=m_ow,
    )


def _authors(stored, T: int, v24: dict) -> dict | None:
    """The authors' script runs (``(curves, entry)`` or None) at the verdict's levels
    and drop (:func:`helpers.chapters.depth.drops.authors_profile`), cut to this
    execution's ``T`` loss values; None where they are not handed over or are
    shorter."""
    if stored is None:
        return None
    curves, entry = stored
    if min(np.shape(curves["relu"])[1], np.shape(curves["gdln"])[1]) < T:
        return None
    k = v24["k"]
    out = drops.authors_profile(
        np.asarray(curves["relu"])[:, :T],
        np.asarray(curves["gdln"])[:, :T],
        v24["levels_all"],
        v24["pairs"][k],
        k,
    )
    return {**out, "entry": entry}


def _setup(r):
    glue("depth_gdln_init_name", INIT_NAME[r.init])
    glue(
        "depth_readout_ratio",
        GDLN_STDS["readout_context"] / GDLN_STDS["readout_common"],
    )
    glue("depth_readout_context", GDLN_STDS["readout_context"])
    glue("depth_L0", _L0(r))
    glue("depth_L_rank1", float(r.L_rank[0]))
    glue("depth_L_rank2", float(r.L_rank[1]))
    glue("depth_L_linear", float(r.L_rank[-1]))
    glue("depth_n_seeds", len(r.SEEDS))
    glue("depth_record_every", r.record_every)
    glue("depth_coupling", r.coupling)
    glue("depth_epochs", r.epochs)


def _L0(r) -> float:
    return 0.5 * float(np.sum(r.ds.Y**2))


def _stereotypes(r) -> dict:
    relu, gh, m_runs = r.relu, r.gh, r.m_runs
    glue("depth_gap_stereo", r.m_stereo.value)
    glue("depth_gap_runs", m_runs.value)
    glue("depth_gap_mean", r.gap_mean)
    glue("depth_spread_relu", r.spread_relu)
    glue("depth_spread_both", m_runs.spread)
    glue("depth_spread_2x", rb.NOISE_MULTIPLE * m_runs.spread)
    glue("depth_spread_gdln", m_runs.spread_candidate)
    glue("depth_spread_interval", "{:.3f}–{:.3f}".format(*m_runs.spread_interval))
    glue("depth_seed_relu", relu.seeds[r.i_r])
    glue("depth_seed_gdln", gh.seeds[r.i_g])
    glue("depth_verdict_stereo", rb.verdict(r.m_stereo))
    glue("depth_verdict_runs", rb.verdict(m_runs))
    glue(
        "depth_runs_censored",
        ": some runs miss, within the run, a loss level their partner reaches, so the "
        "gap is a lower bound, which cannot show agreement"
        if m_runs.censored
        else "",
    )
    level_t = {
        k: np.array([level_times(L) for L in x.loss])
        for k, x in (("relu", relu), ("gdln", gh))
    }
    glue("depth_n_reach_1pc_relu", int(np.isfinite(level_t["relu"][:, 2]).sum()))
    both_t = np.concatenate([level_t["relu"], level_t["gdln"]])
    for k, nm in [(0, "t50"), (1, "t10")]:
        v = both_t[:, k]
        glue(f"depth_{nm}_range", f"{np.nanmin(v):.0f} and {np.nanmax(v):.0f}")
    glue("depth_n_reach_1pc_gdln", int(np.isfinite(level_t["gdln"][:, 2]).sum()))
    return {"level_t": level_t}


def _inits(r) -> dict:
    rows, relu = r.init_rows, r.relu
    ratio_ro = GDLN_STDS["readout_context"] / GDLN_STDS["readout_common"]
    glue("depth_n_init", r.init_seeds)
    glue("depth_final_relu", med(relu.loss[:, -1]))
    stuck = [i for i in rows if rows[i]["reach_10pc"].startswith("0 ")]
    made = [i for i in rows if i not in stuck]
    if stuck and made:
        reading = (
            "Every initialisation takes the GDLN through the first drops at about the "
            "ReLU network's epochs; they part at the last drop, to zero. Started with "
            + " and ".join(INIT_NAME[i] for i in stuck)
            + ", no GDLN run reaches 10 % of the initial loss within the run (it ends "
            "at "
            + ", ".join(f"{rows[i]['final_loss']:.1f}" for i in stuck)
            + f", median; the ReLU runs at {med(relu.loss[:, -1]):.2g}), against "
            + " and ".join(
                f"{rows[i]['reach_10pc']} runs with {INIT_NAME[i]}" for i in made
            )
            + ". So the GDLN follows the ReLU network's last drop only when started "
            "with "
            + " or ".join(INIT_NAME[i] for i in made)
            + (
                f" (whose context readout is {ratio_ro:.1f} times the common one)"
                if made == ["authors"]
                else ""
            )
            + ". The time gaps of runs that miss a level are lower bounds (the level "
            "counts at the run's end), and a lower bound cannot show agreement: the "
            "rulebook gives such runs no 'reproduced'; the missed drop itself is the "
            "finding."
        )
    elif stuck:
        reading = (
            "No GDLN run reaches 10 % of the initial loss within the run under any "
            "initialisation tried here."
        )
    else:
        reading = (
            "Under every initialisation the GDLN makes all the drops within the run; "
            "the table shows how far each choice moves the gap."
        )
    glue("depth_init_reading", reading)
    return {"stuck": stuck, "made": made}


def _drops(r) -> dict:
    """The variance of the drops: this execution's seeds, the stored 24 + 24 seeds
    (the verdict) and the rounding floor."""
    _glue_levels(r)
    here = _drops_here(r)
    var = _drops_stored(r, here)
    _glue_rounding(r, var["sd24"])
    return {**here, **var}


def _glue_levels(r):
    levels, L0 = r.levels, _L0(r)
    lv_g = plateau_levels(r.gh.loss)
    glue("depth_levels", ", ".join(f"{x:.1f}" for x in levels))
    glue("depth_levels_gdln", ", ".join(f"{x:.1f}" for x in lv_g))
    glue("depth_level_third", float(levels[2]) if levels.size > 2 else float("nan"))
    extra = [x for x in levels if not np.any(np.abs(lv_g - x) <= 0.05 * L0)]
    glue(
        "depth_extra_plateau",
        f"The ReLU network has a plateau the GDLN does not, at {extra[0]:.1f}, just "
        f"below the rank-two linear map's {float(r.L_rank[1]):.1f}: its 2-of-3 units "
        "are already appearing there (census and schedule below), whereas the GDLN is "
        "linear until its context pathways switch on and only passes through that "
        "level."
        if extra
        else "Both networks rest at the same levels (a level counts when at least half "
        "the runs rest there).",
    )
    glue("depth_n_drops", len(r.names_drop))


def _drops_here(r) -> dict:
    """The drops on this execution's seeds, and 4 + 4 seed subsets of them."""
    drops, scatter, scatter_bs, k_var = r.drops, r.scatter, r.scatter_bs, r.k_var
    names = r.names_drop
    sd = {k: np.nanstd(v, axis=0, ddof=1) for k, v in drops.items()}
    glue("depth_sd_first_relu", float(sd["relu"][0]))
    glue("depth_sd_first_gdln", float(sd["hand"][0]))
    var_log, (var_se, var_iv) = scatter[k_var][0], scatter_bs[k_var]
    per_drop = [
        Evidence(v, spread=e, compared=0.0, criterion="near", spread_interval=iv)
        for (v, _), (e, iv) in zip(scatter, scatter_bs)
    ]
    verdict_drop = [rb.verdict(ev) for ev in per_drop]
    n_same = sum(v == "reproduced" for v in verdict_drop)
    glue("depth_var_drop", names[k_var])
    glue("depth_var_n_same", f"{n_same} of {len(names)}")
    glue("depth_sd_worst_relu", float(sd["relu"][k_var]))
    glue("depth_sd_worst_gdln", float(sd["hand"][k_var]))
    glue("depth_var_ratio", float(np.exp(var_log)))
    glue("depth_var_log", var_log)
    glue("depth_var_se", var_se)
    glue("depth_var_se_normal", scatter[k_var][1])
    glue("depth_var_se_iv", f"{var_iv[0]:.2f}–{var_iv[1]:.2f}")
    glue("depth_var_limit", float(np.exp(rb.NOISE_MULTIPLE * var_se)))
    glue("depth_var_limit_99", float(np.exp(rb.NOISE_MULTIPLE * np.sqrt(1 / 98))))
    ev = per_drop[k_var]
    glue("depth_verdict_var", rb.verdict(ev))
    # how often 4 + 4 of these seeds (the first pass's number) would fail "the same"
    # at this drop, judged as the first pass judged it (normal-theory error, no
    # interval)
    sub = r.sub
    fail4 = np.mean(
        [rb.holds("near", v, 0.0, e) is not True for v, e in sub if np.isfinite(v)]
    )
    glue("depth_var_fail4", 100 * float(fail4))
    glue(
        "depth_var_chance",
        "on 4 seeds the verdict was decided by chance"
        if 0.1 < fail4 < 0.9
        else "4 seeds would mostly have given the same verdict",
    )
    v_ends = {rb.verdict(ev.but(spread=e, spread_interval=None)) for e in var_iv}
    glue(
        "depth_var_iv_reading",
        "the verdict is the same at both ends"
        if len(v_ends) == 1
        else "the verdict changes within it",
    )
    r4 = np.exp(np.nanpercentile(sub[:, 0], [5, 95]))
    glue("depth_var_ratio4", f"{r4[0]:.1f}–{r4[1]:.1f}")
    offsets = np.nanmedian(drops["hand"], axis=0) - np.nanmedian(drops["relu"], axis=0)
    glue("depth_offset_max_hand", float(np.nanmax(np.abs(offsets))))
    # the seeds' variants: the yardstick at both ends of its interval, and 4 + 4
    # seeds (random subsets at the 5th and 95th percentile of the log ratio, with
    # their normal-theory error, as the first pass judged them)
    ok = np.isfinite(sub[:, 0])
    lo4, hi4 = np.nanpercentile(sub[ok, 0], [5, 95])
    se4 = med(sub[ok, 1])
    return {
        "sd": sd,
        "verdict_drop": verdict_drop,
        "n_same": n_same,
        "ev": ev,
        "fail4": fail4,
        "lo4": lo4,
        "hi4": hi4,
        "se4": se4,
        "var_log": var_log,
    }


def _drops_stored(r, h) -> dict:
    """The verdict on the stored run's 24 + 24 seeds ([rulebook-noise]); this
    execution's seeds and 4 + 4 subsets of them are the seeds' variants."""
    ev, var_log, lo4, hi4, se4 = h["ev"], h["var_log"], h["lo4"], h["hi4"], h["se4"]
    # the verdict: the stored run of 24 + 24 seeds ([rulebook-noise]); this
    # execution's seeds and 4 + 4 subsets of them are the seeds' variants
    v24 = r.var24
    k24, n24 = v24["k"], len(r.pool["seeds"])
    per24 = [
        Evidence(v, spread=e, compared=0.0, criterion="near", spread_interval=iv)
        for (v, _), (e, iv) in zip(v24["scatter"], v24["scatter_bs"])
    ]
    verdict24 = [rb.verdict(e) for e in per24]
    ev24 = per24[k24]
    S = len(r.SEEDS)
    seeds = {
        **rb.seed_variants(ev24),
        f"this execution's {S} + {S} seeds (ratio {np.exp(var_log):.2g})": ev.but(
            variants=None
        ),
        f"4 + 4 seeds, ratio {np.exp(lo4):.2g} (5th percentile of subsets)": ev.but(
            value=float(lo4), spread=se4, spread_interval=None
        ),
        f"4 + 4 seeds, ratio {np.exp(hi4):.2g} (95th percentile)": ev.but(
            value=float(hi4), spread=se4, spread_interval=None
        ),
    }
    # the profile's shape apart from the last drop's size: every drop but the last
    z_shape = v24["z"][:-1]
    definition = {}
    if z_shape.size and np.isfinite(z_shape).any():
        k_sh = int(np.nanargmax(z_shape))
        definition[
            f"the profile's shape: every drop but the last (worst "
            f"{r.names24[k_sh]}, ratio {np.exp(v24['scatter'][k_sh][0]):.2g})"
        ] = per24[k_sh]
    glue(
        "depth_v24_shape_verdict",
        rb.verdict(per24[k_sh]) if definition else "not testable (one drop only)",
    )
    definition.update(_robust_variants(r, per24, k24))
    seeds.update(_authors_variants(r, ev24))
    sd24 = v24["sd"]
    order = {k: list(np.argsort(-np.nan_to_num(sd24[k], nan=-1))) for k in sd24}
    same_order = order["relu"] == order["hand"]
    glue("depth_v24_n", f"{n24} + {n24}")
    glue("depth_v24_drop", r.names24[k24])
    glue("depth_v24_ratio", float(np.exp(v24["scatter"][k24][0])))
    glue("depth_v24_se", float(v24["scatter_bs"][k24][0]))
    glue(
        "depth_v24_limit", float(np.exp(rb.NOISE_MULTIPLE * v24["scatter_bs"][k24][0]))
    )
    glue("depth_v24_verdict", rb.verdict(ev24))
    glue(
        "depth_v24_n_same",
        f"{sum(v == 'reproduced' for v in verdict24)} of {len(verdict24)}",
    )
    glue(
        "depth_v24_shape",
        "the same in both networks"
        if same_order
        else "not the same in the two networks",
    )
    glue("depth_v24_first_sd", f"{sd24['relu'][0]:.0f} and {sd24['hand'][0]:.0f}")
    added = r.pool["added"]
    glue(
        "depth_v24_added",
        f"{added[0]}–{added[-1]}" if added else "none (other epochs: not pooled)",
    )
    glue("depth_v24_command", r.big_entry["command"])
    glue("depth_v24_commit", _commit_reading(r.big_entry, r.rd_entry))
    glue("depth_v24_seconds", float(r.big_entry["seconds"]) / 60)
    glue("depth_v24_machine", r.big_entry["machine"])
    return {
        "evidence": _sorted_variants(ev24, seeds=seeds, definition=definition),
        "verdict24": verdict24,
        "sd24": sd24,
        "same_order": same_order,
    }


def _commit_reading(*entries) -> str:
    """What the stored runs' manifest entries say of the code that made them: the
    commit, and whether its working tree was modified (then no commit holds that code,
    and the runs cannot be made again from the repository bit for bit)."""
    commits = sorted({str(e.get("commit", "unknown")) for e in entries})
    dirty = any("modified" in c for c in commits)
    text = "The manifest names commit " + " and ".join(commits)
    if dirty:
        return (
            text + ": the code was a modified working tree, not that commit's, so no "
            "commit of the repository remakes these runs bit for bit; the command "
            "above, run from a clean commit, would make a stored run whose code is "
            "on record."
        )
    return text + ", a clean working tree."


def _robust_variants(r, per24, k24) -> dict:
    """The ``definition`` variants of the variance profile with an outlier-resistant
    spread in place of the standard deviation (interquartile range, median absolute
    deviation; :func:`helpers.chapters.depth.drops.spread_profile`), each at its own
    worst drop; glues their reading and what one early ReLU run does to the SD."""
    out, words = {}, []
    for name, rp in r.robust.items():
        k = rp["k"]
        if k is None:
            continue
        e, iv = rp["scatter_bs"][k]
        ev = per24[k].but(
            value=float(rp["value"][k]), spread=float(e), spread_interval=tuple(iv)
        )
        what = drops.SPREAD_NAMES[name]
        out[
            f"the {what} in place of the standard deviation (worst drop "
            f"{r.names24[k]}, ratio {rp['spread_ratio'][k]:.2g})"
        ] = ev
        words.append(
            f"the {what} gives {rp['spread_ratio'][k24]:.2f} at the drop "
            f"{r.names24[k24]} and is worst at {r.names24[k]} (ratio "
            f"{rp['spread_ratio'][k]:.2f}, {rb.verdict(ev)})"
        )
    a = r.var24["drops"]["relu"][:, k24]
    a = a[np.isfinite(a)]
    glue(
        "depth_v24_robust",
        (
            "In place of the standard deviation, "
            + "; ".join(words)
            + " (the record's `definition` variants)."
            if words
            else "No outlier-resistant spread can be read on these seeds."
        ),
    )
    text = ""
    if a.size > 2:
        sd, sd1 = a.std(ddof=1), np.delete(a, np.argmin(a)).std(ddof=1)
        text = (
            f"Without the single earliest ReLU run at the drop {r.names24[k24]} "
            f"(epoch {a.min():.0f}) the ReLU runs' standard deviation there moves from "
            f"{sd:.0f} to {sd1:.0f} epochs: "
            + (
                "that one run carries much of it."
                if sd1 < 0.75 * sd
                else "on these seeds no single run carries it."
            )
        )
    glue("depth_v24_outlier", text)
    return out


def _authors_variants(r, ev24) -> dict:
    """The ``seeds`` variants from the authors' own script runs (``r.authors``,
    :func:`helpers.chapters.depth.drops.authors_profile`): their ratio at the verdict's
    drop, judged as the 4 + 4 subsets are (normal-theory error, no interval), and at
    their own worst drop; glues their reading."""
    a = r.authors
    if a is None:
        glue("depth_auth_reading", "The authors' script runs were not handed over.")
        return {}
    n, k, kw = a["n"], a["k"], a["k_worst"]
    v, e = a["scatter"][k]
    ev = ev24.but(value=float(v), spread=float(e), spread_interval=None, variants=None)
    out = {
        f"the authors' own {n} + {n} script runs (book/authors_runs), drop "
        f"{r.names24[k]}: ratio {np.exp(v):.2g}, above {a['percentile']:.0f} % of "
        f"the engine's {n} + {n} subsets": ev
    }
    text = (
        f"The authors' own scripts (depth/relu.py and depth/gdln_off.py, run "
        f"{n} + {n} times as stored in `book/authors_runs`, seeds "
        f"{', '.join(str(s) for s in a['entry'].get('seeds', []))}) give at the "
        f"drop {r.names24[k]} a ratio of {np.exp(v):.2f} (standard deviations "
        f"{a['sd']['relu'][k]:.0f} and {a['sd']['gdln'][k]:.0f} epochs): "
        f"{rb.verdict(ev)} as 'the same', judged as the {n} + {n} subsets are. "
        f"Of random {n} + {n} subsets of the engine's {len(r.pool['seeds'])} + "
        f"{len(r.pool['seeds'])} seeds, {a['percentile']:.1f} % give a smaller "
        "ratio: the scripts' runs sit "
        + (
            "in the low tail of what as many of the engine's seeds give, not outside it"
            if a["percentile"] < 10
            else "within what as many of the engine's seeds give"
        )
        + "; on so few seeds the paper's 'the same' is what one draw can show."
    )
    if kw is not None and kw != k:
        vw, ew = a["scatter"][kw]
        evw = ev24.but(
            value=float(vw), spread=float(ew), spread_interval=None, variants=None
        )
        out[
            f"the authors' {n} + {n} runs at their own worst drop {r.names24[kw]}: "
            f"ratio {np.exp(vw):.2g}"
        ] = evw
        text += (
            f" Read as the record reads every profile, at its worst drop, their runs "
            f"are worst at {r.names24[kw]}: ratio {np.exp(vw):.1f} (standard "
            f"deviations {a['sd']['relu'][kw]:.0f} and {a['sd']['gdln'][kw]:.0f} "
            f"epochs), {rb.verdict(evw)}."
        )
    glue("depth_auth_reading", text)
    return out


def _glue_rounding(r, sd24):
    # the rounding floor: same initial weights, other sums
    fl, n_rd = r.floor, len(r.rd_entry["seeds"])
    glue("depth_rd_n", n_rd)
    glue("depth_rd_command", r.rd_entry["command"])
    names_fl = list(fl["max"])
    glue(
        "depth_rd_last",
        "; ".join(
            f"{k}: {', '.join(f'{d:+.0f}' for d in fl['diff'][k][:, -1])}"
            for k in names_fl
        ),
    )
    glue("depth_rd_sd_last", float(fl["sd"][-1]))
    glue(
        "depth_rd_max_last", float(max(np.nanmax(fl["max"][k][-1:]) for k in names_fl))
    )
    glue(
        "depth_rd_max_early",
        float(max(np.nanmax(fl["max"][k][:-1]) for k in names_fl))
        if fl["sd"].size > 1
        else float("nan"),
    )
    glue("depth_rd_sd_gdln_last", float(sd24["hand"][-1]))
    glue("depth_rd_reading", _rounding_reading(r, sd24))
    glue("depth_rd_sd_relu_last", float(sd24["relu"][-1]))


def _rounding_reading(r, sd24) -> str:
    """The rounding floor in words: it is the ReLU network's (the comparison from the
    same initial weights runs the ReLU network only), on the stored rounding run's
    seeds; its share of the ReLU runs' last-drop variance, the ratio left when it is
    taken out of the ReLU side, and the floor that would make the two networks'
    last drops scatter alike."""
    fl, n_rd = r.floor, len(r.rd_entry["seeds"])
    f, s_r, s_g = float(fl["sd"][-1]), float(sd24["relu"][-1]), float(sd24["hand"][-1])
    se = float(r.var24["scatter_bs"][-1][0])
    limit = float(np.exp(rb.NOISE_MULTIPLE * se))
    with np.errstate(invalid="ignore"):
        left = np.sqrt(s_r**2 - f**2) / s_g
        need = np.sqrt(s_r**2 - (limit * s_g) ** 2)
    cmd = COMMAND_MORE_ROUNDING.format(n=2 * n_rd)
    per_seed = float(r.rd_entry.get("seconds", float("nan"))) / 60 / n_rd
    cost = (
        f", about {per_seed:.0f} minutes of wall time per seed on the machine that "
        "made this one"
        if np.isfinite(per_seed)
        else ""
    )
    alike = (
        f"For the last drops to scatter alike ('the same' allows a ratio up to "
        f"{limit:.2f}), rounding would have to add a standard deviation of about "
        f"{need:.0f} epochs to each ReLU run's last drop, against the {f:.0f} "
        "measured. "
        if np.isfinite(need)
        else "The last drops scatter alike within 'the same' without it. "
    )
    return (
        "This floor is the ReLU network's: only the ReLU network is retrained from the "
        "same initial weights, so it is not a floor for the GDLN, and no share of the "
        "GDLN's scatter is read from it. "
        f"Taken as independent of the initial weights, rounding makes about "
        f"{(f / s_r) ** 2:.0%} of the ReLU runs' last-drop variance; taken out of it, "
        f"the ReLU runs still scatter {left:.1f} times as much as the GDLN's there "
        "(a GDLN floor, were there one, would only raise that). "
        + alike
        + f"The floor rests on {n_rd} seeds ({2 * n_rd} comparisons); a floor on more "
        f"seeds needs a new stored run (`{cmd}`{cost})."
    )


#: The command of a rounding floor on more seeds (page ``book/depth.md``).
COMMAND_MORE_ROUNDING = (
    "JAX_ENABLE_X64=1 python -m helpers.chapters.depth.stored rounding --seeds {n}"
)


def _or_nan(ev, criterion):
    """The evidence, or, where no run reaches the window (no record where the
    structure exists), a measure that cannot be compared (not testable)."""
    if ev is not None:
        return ev
    return Evidence(float("nan"), compared=1.0, criterion=criterion)


def _iv(iv) -> str:
    return "none" if iv is None else f"{iv[0]:.2f}–{iv[1]:.2f}"


def _review(r, g, ref):
    """Where the external review of the first pass (2026-11-26) was right and where
    not, from this execution's numbers (its own numbers are quoted as its)."""
    x, rev = g["read"][g["primary"]], g["rev"]
    others = [(w, v) for w, v in g["read"].items() if w != g["primary"]]
    moved = abs(rev["phase"] - rev["phase_late"]) > 0.2 * max(rev["phase"], 1e-12)
    flat = rev["first_plateau"] > rb.CLEARLY
    glue(
        "depth_review_window",
        "An external review of the first pass found the ratio 0.04-0.11 'in any "
        "window from the first plateau on' and 0.90 in the phase against 0.43 "
        "without its edge records. Here the phase's mean ratio is "
        f"{rev['phase']:.2f}, {rev['phase_late']:.2f} without its first record "
        + ("(the edge record moves it, as the review said)" if moved else "")
        + f", and {rev['plateau_on']:.2f} from epoch 5000 to one record past the "
        f"phase. On the first plateau alone the ratio is {rev['first_plateau']:.2f}"
        + (
            ": both layers are linear there, so the plateau cannot show the claim "
            "for or against, and the review's small ratios of windows that start on "
            "the plateau come from their records after it, where the second layer "
            "gates (the review was wrong to read them as the plateau's)"
            if flat
            else ", small as the review said"
        )
        + ". Where context gating exists the median of the per-seed ratios is "
        f"{med(x['lin1'] / x['lin2']):.2f}.",
    )
    glue(
        "depth_review_baseline",
        "The review put chance at 0.56 (its 12 seeds, at initialisation), the "
        "network at 0.42-0.64 by window and the Section 4 network at 0.27; here "
        f"chance is {med(g['chance']):.2f}, the network "
        f"{med(x['ratio']):.2f} where context gating exists and "
        f"{_range([med(v['ratio']) for w, v in others])}"
        " in the other windows (the variants), and the Section 4 network "
        + (f"{ref:.2f}." if np.isfinite(ref) else "not available."),
    )


def _section4_reference(rec) -> float:
    """The Section 4 network's single-context to 2-of-3 ratio of its snapped output at
    its last recorded epoch (record ``census_over_training`` of the page
    ``book/contexts.md``, read from the folder this chapter's records go to); NaN where
    that record is missing."""
    path = getattr(rec, "directory", None)
    path = None if path is None else path / "contexts.json"
    try:
        value = json.loads(path.read_text())["census_over_training"]["value"]
        at = value[max(value, key=int)]
        return float(at["single"]) / float(at["mixed"])
    except (
        AttributeError,
        OSError,
        KeyError,
        TypeError,
        ValueError,
        ZeroDivisionError,
    ):
        return float("nan")


def _sorted_variants(ev, **settings):
    """``ev`` with the variants of each choice in ``settings`` and the automatic
    ``seeds`` variants (:func:`helpers.book.rulebook.seed_variants`), in the order of
    the choices' names (the order the stored record lists them in, so that the
    reason's clause reads in the same order); a choice without a setting is left
    out."""
    settings = {c: x for c, x in settings.items() if x}
    if "seeds" not in settings:
        settings["seeds"] = rb.seed_variants(ev)
    for choice in sorted(settings):
        if settings[choice]:
            ev = ev.varied(choice, settings[choice])
    return ev


def _share_near(v, alternative):
    """Evidence of per-seed shares ``v`` (layer 1 always on) held against 1, a bound
    a share cannot pass (:func:`helpers.core.measures.share_at_bound`); None where
    fewer than 2 seeds have a value."""
    v = np.asarray(v, float)
    v = v[np.isfinite(v)]
    return share_at_bound(v, alternative) if v.size >= 2 else None


def _range(v) -> str:
    v = np.asarray(v, float)
    v = v[np.isfinite(v)]
    return f"{v.min():.2f}–{v.max():.2f}" if v.size else "none"


def _gating(r) -> dict:
    """The gating claims of Section 6: the per-seed readings in the phase and in the
    other windows, and the glue of the section."""
    g = _gating_series(r)
    g["verdict_at"] = _always_on_by_epoch(g)
    _glue_layer1(r, g)
    _glue_layer2(r, g)
    _glue_phase(r, g)
    _glue_nested(r, g)
    g.update(_windows(r, g))
    _glue_windows(r, g)
    return g


def _fall_epoch(grid, share, below=0.5):
    """Per seed, the first record after the share's maximum where it is below
    ``below``."""
    out = []
    for row in share:
        k0 = int(np.argmax(row))
        after = np.flatnonzero(row[k0:] < below)
        out.append(grid[k0 + after[0]] if after.size else np.nan)
    return np.array(out, float)


def _gating_series(r) -> dict:
    """The ReLU runs' gating series, their means over rule 3's phase
    (:func:`.gating.phase_means`), their verdicts record by record, and the epochs at
    which layer 1's always-on share rises and falls."""
    relu, grid, phase, S = r.relu, r.relu.grid, r.phase, len(r.SEEDS)
    s = gating.gating_series(relu)
    strict1, lin1, lin2 = s["strict1"], s["lin1"], s["lin2"]
    fshare = {c: relu.functional(c) for c in ("common", "mixed", "single", "other")}
    in_phase = (grid >= phase[0]) & (grid <= phase[1])
    ph = gating.phase_means(relu, in_phase)
    # the first plateau (the linear part learned, no context units yet)
    k_pre = plateau_record(relu, r.levels[1])
    ok_pre = k_pre >= 0
    # "late": once a run's loss is below half its initial value
    t_half = np.array([level_times(L, (0.5,))[0] for L in relu.loss])
    late = grid[None, :] >= t_half[:, None]
    # the always-on phase of each run: from the first record at which the share is
    # above one half to the record at which it falls below one half again
    t_fall = _fall_epoch(grid, strict1)
    t_rise = np.array([grid[np.argmax(row >= 0.5)] for row in strict1], float)
    on = [(grid >= t_rise[k]) & (grid <= t_fall[k]) for k in range(S)]
    return {
        "grid": grid,
        "in_phase": in_phase,
        "strict1": strict1,
        "lin1": lin1,
        "lin2": lin2,
        "snap2": s["snap2"],
        "fshare": fshare,
        "snap_all": np.median(relu.snap_all, axis=0),
        **{f"{k}_ph": v for k, v in ph.items()},
        "k_end": int(np.flatnonzero(in_phase)[-1]),
        "iv_lin": ratio_interval(ph["lin1"], ph["lin2"]),
        "iv_l2": ratio_interval(ph["single"], ph["mixed"]),
        "v_lin_at": smaller_by_epoch(lin1, lin2, grid),
        "v_mix_at": smaller_by_epoch(fshare["single"], fshare["mixed"], grid),
        "alt1": med(strict1[:, 0]),
        "lin1_ok": np.median(lin1, axis=0) <= rb.PHASE_SNAP,
        "nn": relu.non_nested,
        "zero2": np.all(relu.non_nested[:, :, 1] == 0, axis=0),
        "pre": (np.flatnonzero(ok_pre), k_pre[ok_pre]),
        "ok_pre": ok_pre,
        "t_half": t_half,
        "late": late,
        "t_fall": t_fall,
        "t_rise": t_rise,
        "before_fall": np.array([np.nanmax(lin1[k, on[k]]) for k in range(S)]),
        "single_late": np.array(
            [fshare["single"][k, late[k]].mean() for k in range(S)]
        ),
    }


def _always_on_by_epoch(g):
    """The rulebook's "near" of layer 1's always-on share against 1 at every record,
    as a function of the verdict giving the epochs where it is that verdict."""
    strict1, grid = g["strict1"], g["grid"]
    v1 = {
        int(e): rb.verdict(
            Evidence(
                med(strict1[:, k]),
                compared=1.0,
                spread=seed_spread(strict1[:, k]),
                alternative=g["alt1"],
                criterion="near",
            )
        )
        for k, e in enumerate(grid)
    }

    def verdict_at(v):
        return epoch_ranges(grid, [v1[int(e)] == v for e in grid])

    return verdict_at


def _glue_layer1(r, g):
    relu, levels, pre, ok_pre = r.relu, r.levels, g["pre"], g["ok_pre"]
    strict1, lin1, lin2, t_fall = g["strict1"], g["lin1"], g["lin2"], g["t_fall"]
    glue("depth_l1_strict_end", med(strict1[:, -1]))
    glue("depth_l1_strict_init", med(strict1[:, 0]))
    glue("depth_l1_strict_pre", med(strict1[pre]) if ok_pre.any() else float("nan"))
    glue("depth_l1_lin_pre", 100 * med(lin1[pre]) if ok_pre.any() else float("nan"))
    glue("depth_pre_level", float(levels[1]) if levels.size > 1 else float("nan"))
    glue("depth_l1_fall", med(t_fall))
    glue("depth_l1_fall_range", f"{np.nanmin(t_fall):.0f}–{np.nanmax(t_fall):.0f}")
    glue("depth_l1_lin_end", 100 * med(lin1[:, -1]))
    glue("depth_l2_lin_end", 100 * med(lin2[:, -1]))
    glue("depth_l12_ratio", med(lin2[:, -1]) / med(lin1[:, -1]))
    glue("depth_l2_strict_end", med(relu.always_on[:, -1, 1]))
    glue("depth_l1_lin_loss", med(relu.linear_l1_loss[:, -1]))
    glue("depth_final_loss", med(relu.loss[:, -1]))
    glue("depth_l1_lin_before_fall", 100 * med(g["before_fall"]))
    glue("depth_l1_rise", med(g["t_rise"]))
    glue("depth_l1_itemdep", med(relu.item_dependent[:, -1, 0]))
    glue("depth_l1_holds", g["verdict_at"]("reproduced"))
    glue("depth_l1_partly", g["verdict_at"]("partly reproduced"))
    glue("depth_l1_lin_ok", epoch_ranges(g["grid"], g["lin1_ok"]))


def _glue_layer2(r, g):
    relu, fshare, snap2, late = r.relu, g["fshare"], g["snap2"], g["late"]
    single_late = g["single_late"]
    for c in ("common", "mixed", "single"):
        glue(f"depth_f2_{c}_end", med(fshare[c][:, -1]))
    glue("depth_snap2_end", 100 * med(snap2[:, -1]))
    snap2_late = [snap2[s, late[s]].mean() for s in range(len(r.SEEDS))]
    glue("depth_snap2_late", 100 * med(snap2_late))
    glue("depth_single_late", med(single_late))
    glue("depth_single_late_range", f"{single_late.min():.2f}–{single_late.max():.2f}")
    glue("depth_t_half", med(g["t_half"]))
    glue("depth_w2_single_end", med(relu.share(1, "single")[:, -1]))
    w2_cm = relu.share(1, "common")[:, -1] + relu.share(1, "mixed")[:, -1]
    glue("depth_w2_cm_end", med(w2_cm))
    glue("depth_l2_itemdep", med(relu.item_dependent[:, -1, 1]))
    v_l2_end = rb.verdict(
        Evidence(
            med(fshare["single"][:, -1]),
            compared=med(fshare["mixed"][:, -1]),
            criterion="smaller",
        )
    )
    glue("depth_clearly", rb.CLEARLY)
    glue("depth_v_l2_end", v_l2_end)


def _glue_phase(r, g):
    """Rule 3's phase: the claims read there, and the first record after it."""
    phase, grid, k_end, fshare = r.phase, g["grid"], g["k_end"], g["fshare"]
    single_ph, mixed_ph = g["single_ph"], g["mixed_ph"]
    iv_l2, iv_lin = g["iv_l2"], g["iv_lin"]
    glue("depth_phase", f"{phase[0]}–{phase[1]}")
    glue("depth_phase_snap", rb.PHASE_SNAP)
    glue("depth_snap_all_end", 100 * med(r.relu.snap_all[:, -1]))
    glue("depth_l1_strict_phase", med(g["strict1_ph"]))
    glue("depth_l1_strict_phase_end", med(g["strict1"][:, k_end]))
    lin1_med = np.median(g["lin1"], axis=0)
    glue("depth_l1_lin_max_phase", 100 * float(np.max(lin1_med[g["in_phase"]])))
    glue("depth_f2_single_phase", med(single_ph))
    glue("depth_f2_mixed_phase", med(mixed_ph))
    glue("depth_f2_single_phase_end", med(fshare["single"][:, k_end]))
    glue("depth_f2_mixed_phase_end", med(fshare["mixed"][:, k_end]))
    glue("depth_phase_end", int(grid[k_end]))
    ev_l2 = Evidence(
        med(single_ph),
        compared=med(mixed_ph),
        criterion="smaller",
        ratio_interval=iv_l2,
    )
    glue("depth_l2_iv", f"{iv_l2[0]:.2f}–{iv_l2[1]:.2f}")
    glue("depth_l2_by_epoch", verdicts_over_training(g["v_mix_at"], grid))
    glue("depth_lin_by_epoch", verdicts_over_training(g["v_lin_at"], grid))
    glue("depth_l1_lin_phase", 100 * med(g["lin1_ph"]))
    glue("depth_l2_lin_phase", 100 * med(g["lin2_ph"]))
    glue("depth_lin_iv", f"{iv_lin[0]:.2f}–{iv_lin[1]:.2f}")
    glue("depth_v_l2_phase", rb.verdict(ev_l2))
    glue("depth_f2_ratio_phase", med(single_ph) / med(mixed_ph))
    k_next = min(k_end + 1, grid.size - 1)  # the first record after the phase
    glue("depth_after_phase", int(grid[k_next]))
    glue("depth_snap_all_next", 100 * float(g["snap_all"][k_next]))
    glue("depth_snap2_next", 100 * med(g["snap2"][:, k_next]))
    glue(
        "depth_f2_ratio_next",
        med(fshare["single"][:, k_next]) / med(fshare["mixed"][:, k_next]),
    )


def _glue_nested(r, g):
    """Lemma 4.1 in layer 2: weight in non-nested units (layer 1: 0 by
    construction)."""
    nn, grid = g["nn"], g["grid"]
    glue("depth_nn1_max", float(np.nanmax(nn[:, :, 0])))
    glue("depth_nn2_end", med(nn[:, -1, 1]))
    glue("depth_nn2_end_max", float(np.nanmax(nn[:, -1, 1])))
    glue("depth_nn2_max_after", float(np.nanmax(nn[:, grid > r.phase[1], 1])))
    glue("depth_nn2_zero", epoch_ranges(grid, g["zero2"]))
    glue("depth_nn2_zero_med", epoch_ranges(grid, np.median(nn[:, :, 1], axis=0) == 0))
    glue("depth_nn2_init", med(nn[:, 0, 1]))


def _windows(r, g) -> dict:
    """Rule 5 ([rulebook-structure]): the claims are read where context gating exists
    (:func:`.gating.context_gating`); the other windows, rule 3's phase among them,
    are variants.  Per window the readings (:func:`.gating.window_reading`) and the
    evidence of each claim."""
    relu, grid, phase, levels = r.relu, g["grid"], r.phase, r.levels
    exists = np.asarray(r.exists, bool)
    first_plateau = np.zeros_like(exists)
    first_plateau[g["pre"]] = True
    last = np.zeros_like(exists)
    last[:, -1] = True
    primary = f"where context gating exists (loss below {float(r.L_rank[-1]):.0f})"
    masks = {
        primary: exists,
        f"rule 3's phase ({phase[0]}-{phase[1]})": np.broadcast_to(
            g["in_phase"], exists.shape
        ),
        "the context classes' weight above its initial value": context_weight_window(
            relu
        ),
        f"the end of training (epoch {int(grid[-1])})": last,
    }
    if g["ok_pre"].any():
        masks[f"the first plateau (loss {levels[1]:.0f})"] = first_plateau
    chance = gating.chance_ratio(relu)
    read = {w: gating.window_reading(relu, m) for w, m in masks.items()}
    ev_w = {
        w: {
            "layer1_always_on": _share_near(x["strict1"], g["alt1"]),
            "layer1_linear": gating.smaller(x["lin1"], x["lin2"]),
            "layer2_mixed": gating.smaller(x["ratio"], chance),
        }
        for w, x in read.items()
    }
    variants = {
        k: {w: ev_w[w][k] for w in masks if w != primary and ev_w[w][k] is not None}
        for k in ("layer1_always_on", "layer1_linear", "layer2_mixed")
    }
    x = read[primary]
    baseline = {
        "none: single-context against 2-of-3 units' own share (the first pass)": (
            gating.smaller(x["single"], x["mixed"])
        )
    }
    variants["layer2_mixed_baseline"] = {
        k: v for k, v in baseline.items() if v is not None
    }
    t_exists = np.array(
        [grid[np.argmax(row)] if row.any() else np.nan for row in exists], float
    )
    return {
        "exists": exists,
        "masks": masks,
        "read": read,
        "primary": primary,
        "chance": chance,
        "ev_w": ev_w,
        "t_exists": t_exists,
        "windows": variants,
    }


def _glue_windows(r, g):
    """The glue of rule 5's window, of the first plateau, and the review's windows."""
    x, chance = g["read"][g["primary"]], g["chance"]
    t_exists, exists = g["t_exists"], g["exists"]
    glue("depth_rule5", rb.STRUCTURE_RULE)
    glue("depth_L_common", float(r.L_rank[-1]))
    glue("depth_exists_from", med(t_exists))
    glue("depth_exists_range", f"{np.nanmin(t_exists):.0f}–{np.nanmax(t_exists):.0f}")
    glue("depth_n_exists", f"{int(exists.any(axis=1).sum())} of {len(r.SEEDS)}")
    glue("depth_w_strict1", med(x["strict1"]))
    glue("depth_w_lin1", 100 * med(x["lin1"]))
    glue("depth_w_lin2", 100 * med(x["lin2"]))
    glue("depth_w_single", med(x["single"]))
    glue("depth_w_mixed", med(x["mixed"]))
    glue("depth_w_ratio", med(x["ratio"]))
    glue("depth_w_ratio_range", _range(x["ratio"]))
    glue("depth_w_snap_all", 100 * med(x["snap_all"]))
    glue("depth_w_snap2", 100 * med(x["snap2"]))
    glue("depth_chance", med(chance))
    glue("depth_chance_range", _range(chance))
    fp = f"the first plateau (loss {r.levels[1]:.0f})" if g["ok_pre"].any() else None
    y = g["read"][fp] if fp else None
    if fp:
        glue("depth_fp_lin1", 100 * med(y["lin1"]))
        glue("depth_fp_lin2", 100 * med(y["lin2"]))
        glue("depth_fp_lin_ratio", med(y["lin1"] / y["lin2"]))
    else:
        for k in ("depth_fp_lin1", "depth_fp_lin2", "depth_fp_lin_ratio"):
            glue(k, float("nan"))
    grid, lin1, lin2, phase = g["grid"], g["lin1"], g["lin2"], r.phase

    # the review's windows of the first pass, by epochs (median over seeds of the
    # ratio of window means): from the first plateau on, and the phase without its
    # first record
    def epochs_ratio(a, b):
        m = (grid >= a) & (grid <= b)
        return med(window_mean(lin1, m)) / med(window_mean(lin2, m))

    g["rev"] = {
        "phase": epochs_ratio(phase[0], phase[1]),
        "phase_late": epochs_ratio(phase[0] + r.record_every, phase[1]),
        "plateau_on": epochs_ratio(5000, phase[1] + r.record_every),
        "first_plateau": med(y["lin1"] / y["lin2"]) if fp else float("nan"),
    }


def _schedule(r):
    relu, gh, gd, info, derived = r.relu, r.gh, r.gd, r.info, r.derived
    theta = r.appear_threshold
    glue("depth_theta", theta)
    glue("depth_m_init_relu", med(relu.total[:, 0, 1]))
    glue("depth_m_init_gdln", med(gh.total[:, 0, 1]))
    glue("depth_m_end_relu", med(relu.total[:, -1, 1]))
    glue("depth_m_end_gdln", med(gh.total[:, -1, 1]))
    for k in ("relu_appear_common", "relu_appear_mixed", "lag_common", "lag_context"):
        glue(f"depth_{k}", float(info[k]))
    glue("depth_derived_start", derived.start)
    glue("depth_derived_context", derived.context)
    st_all = [s.start for s in r.checks.values()]
    glue("depth_start_range", f"{min(st_all)}–{max(st_all)}")
    # the derived schedule's runs
    gap_same_seed = [time_gap(gh.loss[k], gd.loss[k]) for k in range(len(gd.seeds))]
    glue("depth_gap_stereo_derived", r.gap_stereo_derived)
    glue("depth_gap_runs_derived", r.m_derived.value)
    glue("depth_gap_runs_hand_same", r.m_hand_same.value)
    glue("depth_gap_same_seed", med(gap_same_seed))
    glue("depth_n_derived", len(gd.seeds))
    glue(
        "depth_fit_word",
        "worse" if r.m_derived.value > r.m_hand_same.value else "no worse",
    )

    def appear(runs, cls, th):
        return np.array(
            [appearance_epoch(m, runs.grid, th) for m in runs.class_mass(1, cls)]
        )

    app_d = appear(gd, "mixed", theta)
    lag_d = med(app_d) - derived.context
    glue("depth_lag_derived", lag_d)
    glue("depth_appear_derived", med(app_d))
    glue("depth_appear_gap", info["relu_appear_mixed"] - med(app_d))
    glue("depth_t_fixed", int(100 * round((info["relu_appear_mixed"] - lag_d) / 100)))
    # how long the 2-of-3 class takes to grow tenfold past its appearance
    for key, runs in [("relu", relu), ("hand", gh), ("derived", gd)]:
        rise = appear(runs, "mixed", 10 * theta) - appear(runs, "mixed", theta)
        glue(f"depth_rise_{key}", med(rise))


def _outputs(r) -> dict:
    relu, grid, worst, m_out, rows = r.relu, r.relu.grid, r.worst, r.m_out, r.init_rows
    m_worst = m_out[worst[0]]
    # the same plateau under every initialisation of the GDLN
    Or_w = plateau_outputs(relu.loss, grid, relu.outputs, worst[0])
    for choice in rows:
        Oi = plateau_outputs(r.init_loss[choice], grid, r.init_out[choice], worst[0])
        rows[choice]["plateau_output_gap"] = med(output_gap(Or_w, Oi))
    within_noise = [
        i
        for i, x in rows.items()
        if x["plateau_output_gap"] <= rb.NOISE_MULTIPLE * m_worst.spread
    ]
    glue(
        "depth_out_init_reading",
        (
            "Under "
            + " and ".join(INIT_NAME[i] for i in within_noise)
            + " the outputs at that plateau are within twice the two-sample spread: "
            "there the initialisation explains the difference."
            if within_noise and r.init not in within_noise
            else "No initialisation brings the outputs at that plateau within twice "
            "the two-sample spread."
            if not within_noise
            else ""
        ),
    )
    glue(
        "depth_out_init",
        "; ".join(
            f"{INIT_NAME[i]}: {x['plateau_output_gap']:.2g}" for i, x in rows.items()
        ),
    )
    cand = [g for g in r.gaps_out if g[0] in m_out and m_out[g[0]].spread > 0]
    glue("depth_out_worst_level", worst[0])
    glue("depth_out_worst_gap", worst[2])
    glue("depth_out_worst_spread", worst[3])
    glue("depth_out_worst_gdln", worst[4])
    glue("depth_out_worst_yard", m_worst.spread)
    glue("depth_out_worst_iv", "{:.2g}–{:.2g}".format(*m_worst.spread_interval))
    glue("depth_out_max", max(g[2] for g in cand))
    first = max(r.gaps_out, key=lambda g: g[0])  # the rank-one map's plateau
    glue("depth_out_first_level", first[0])
    glue(
        "depth_out_first",
        f"ReLU-GDLN {first[2]:.2g}, ReLU-ReLU {first[3]:.2g}, GDLN-GDLN {first[4]:.2g}",
    )
    glue("depth_L_rank1_cut", float(r.L_rank[0]))
    glue("depth_verdict_out", rb.verdict(m_worst))
    relu_only = [g for g in r.gaps_out if not g[1]]
    glue(
        "depth_out_relu_only",
        f"The exception is the ReLU network's short plateau (at loss "
        f"{', '.join(f'{g[0]:.0f}' for g in relu_only)}) that the GDLN runs do not "
        f"stop at: there the outputs differ by up to "
        f"{max(g[2] for g in relu_only):.2f}. The GDLN does not rest at that level: "
        "its common pathway alone is linear and would next rest at the rank-two "
        f"linear map's {float(r.L_rank[1]):.0f}, and the GDLN record compared is one "
        "taken while it passes that level on its way down after its context pathways "
        "have switched on."
        if relu_only
        else "Every plateau of the ReLU runs is one the GDLN runs stop at too.",
    )
    # the variants: the other shared plateaus, and the other initialisations at the
    # judged plateau (their gap against the same yardstick)
    others = {
        INIT_NAME[i]: x["plateau_output_gap"] for i, x in rows.items() if i != r.init
    }
    plateaus = {
        f"the plateau at {lv:.1f}": m for lv, m in m_out.items() if lv != worst[0]
    }
    ev = _sorted_variants(m_worst, init=others, window=plateaus)
    return {
        "evidence": ev,
        "m_worst": m_worst,
        "cand": cand,
        "relu_only": relu_only,
        "within_noise": within_noise,
    }


def _coupling(r):
    glue("depth_other_coupling", r.other_coupling)
    glue("depth_gap_oneway", med(r.gap_ow))
    glue("depth_gap_oneway_relu", r.m_ow.value if r.m_ow is not None else float("nan"))
    glue("depth_n_oneway", r.coupling_seeds)
    m_same = compare.match_runs(r.relu.loss, r.gh.loss[: max(r.coupling_seeds, 1)])
    glue("depth_gap_runs_same_ow", m_same.value)
    glue(
        "depth_final_oneway",
        ", ".join(f"{x:.2g}" for x in r.L_ow[:, -1])
        if r.L_ow is not None
        else "not run",
    )
    glue(
        "depth_final_main_same",
        ", ".join(f"{x:.2g}" for x in r.gh.loss[: r.coupling_seeds, -1]),
    )


def _cost(r):
    runs = [r.relu, r.gh, r.gd]
    n_runs = sum(len(x.seeds) for x in runs)
    wall = sum(x.seconds for x in runs)
    cpu = sum(x.cpu_seconds for x in runs)
    per_wall, per_cpu = wall / n_runs, cpu / n_runs
    paper_runs = sum(paper_profile_runs().values())
    P, w = r.ds.P, r.width
    glue("depth_n_runs", n_runs)
    glue("depth_per_seed_wall", per_wall)
    glue("depth_per_seed_cpu", per_cpu)
    glue("depth_paper_runs", paper_runs)
    glue("depth_paper_min_cpu", paper_runs * per_cpu / 2 / 60)
    glue("depth_paper_min_wall", paper_runs * per_wall / 60)
    glue("depth_flop", 2 * 3 * r.epochs * P * (11 * w + w * w + w * 60) / 1e12)


def _records(rec, r, g, var, out) -> dict:
    """The chapter's records, in order, and the glue of the gating verdicts."""
    ref = _section4_reference(rec)
    gating_recs = [
        _rec_layer1_always_on(r, g),
        _rec_layer1_linear(r, g),
        _rec_layer1_over_training(r, g),
        _rec_layer2_mixed(r, g, ref),
    ]
    recs = kit.add_all(rec, gating_recs)
    glue("depth_v_always", recs["layer1_always_on"]["verdict"])
    glue("depth_v_linear", recs["layer1_linear"]["verdict"])
    glue("depth_v_mixed", recs["layer2_mixed"]["verdict"])
    glue("depth_w_lin_iv", _iv(gating_recs[1][1].ratio_interval))
    glue("depth_w_mixed_iv", _iv(gating_recs[3][1].ratio_interval))
    glue(
        "depth_sec4_ratio",
        f"{ref:.2f} ({ref / med(g['chance']):.2f} times this network's chance)"
        if np.isfinite(ref)
        else "(not available: the Section 4 page's records are missing)",
    )
    _review(r, g, ref)
    more = [
        _rec_layer2_single_context(r, g),
        _rec_gap(r),
        _rec_init(r),
        _rec_variance(r, var),
        _rec_outputs(r, out),
        _rec_switch(r),
    ]
    return {**recs, **kit.add_all(rec, more)}


def _window_words(g) -> str:
    return (
        f"{g['primary']}: per seed the records with loss below the common-only level, "
        f"from epoch {med(g['t_exists']):.0f} (median) on"
    )


def _windowed(r, g, key: str, criterion: str, epochs: dict, **windows):
    """The record ``key``'s evidence averaged over the primary window (rule 5), or
    not testable where no run reaches it, with its values at each recorded epoch
    (``epochs``) and rule 3's phase, and as variants its other windows, the other
    settings of ``windows`` and the seeds (:func:`_sorted_variants`)."""
    ev = _or_nan(g["ev_w"][g["primary"]][key], criterion).but(
        epochs=epochs, phase=list(r.phase)
    )
    return _sorted_variants(ev, window=g["windows"][key], **windows)


def _rec_layer1_always_on(r, g) -> tuple:
    S, phase, grid, strict1 = len(r.SEEDS), r.phase, g["grid"], g["strict1"]
    verdict_at = g["verdict_at"]
    ev = _windowed(
        r,
        g,
        "layer1_always_on",
        "near_bound",
        {int(e): med(strict1[:, k]) for k, e in enumerate(grid)},
    )
    note = (
        f"share of layer-1 weight in units on for all 24 datapoints, averaged "
        f"{_window_words(g)} "
        f"(rulebook rule 5), median over {S} seeds (alternative: the share at "
        f"initialisation, {med(strict1[:, 0]):.3f}); in rule 3's phase "
        f"{phase[0]}-{phase[1]} "
        f"{med(g['strict1_ph']):.3f}, at epoch {r.epochs} {med(strict1[:, -1]):.3f}; "
        f"near 1 by the rulebook's 'near' at epochs {verdict_at('reproduced')}, "
        f"partly at {verdict_at('partly reproduced')}; in function (layer 1 made "
        f"linear changes the output by <= {rb.PHASE_SNAP:g}) at epochs "
        f"{epoch_ranges(grid, g['lin1_ok'])}."
    )
    return "layer1_always_on", ev, note


def _rec_layer1_linear(r, g) -> tuple:
    S, phase, grid, lin1, lin2 = len(r.SEEDS), r.phase, g["grid"], g["lin1"], g["lin2"]
    epochs = {
        int(e): {
            "layer1": med(lin1[:, k]),
            "layer2": med(lin2[:, k]),
            "verdict": g["v_lin_at"][int(e)],
        }
        for k, e in enumerate(grid)
    }
    ev = _windowed(r, g, "layer1_linear", "smaller", epochs)
    note = (
        f"relative output change when layer 1 is made linear against the same change "
        f"for layer 2, each averaged {_window_words(g)} (rule 5), median over {S} "
        f"seeds; record "
        f"by record (ratio of medians with its interval over seeds) it "
        f"{verdicts_over_training(g['v_lin_at'], grid)}; in rule 3's phase "
        f"{phase[0]}-{phase[1]} "
        f"{med(g['lin1_ph']):.4f} vs {med(g['lin2_ph']):.4f}; at epoch {r.epochs} "
        f"{med(lin1[:, -1]):.3f} vs {med(lin2[:, -1]):.3f}; at most "
        f"{med(g['before_fall']):.3f} while the always-on share is above 1/2; "
        f"linearised loss {med(r.relu.linear_l1_loss[:, -1]):.3g} (trained "
        f"{med(r.relu.loss[:, -1]):.3g})."
    )
    return "layer1_linear", ev, note


def _rec_layer1_over_training(r, g) -> tuple:
    grid, strict1, lin1 = g["grid"], g["strict1"], g["lin1"]
    story = [int(e) for e in grid if e % 2500 == 0]
    value = {
        f"{e:05d}": {
            "always_on": med(strict1[:, list(grid).index(e)]),
            "linear_change": med(lin1[:, list(grid).index(e)]),
        }
        for e in story
    }
    note = (
        f"median over {len(r.SEEDS)} seeds at every 2500th epoch (keys: epochs); the "
        f"always-on "
        f"share rises above 1/2 at epoch {med(g['t_rise']):.0f} and falls below it at "
        f"epoch {med(g['t_fall']):.0f} (seeds: "
        f"{', '.join(f'{t:.0f}' for t in g['t_fall'])})."
    )
    return "layer1_over_training", value, note


def _rec_layer2_mixed(r, g, ref) -> tuple:
    S, phase, grid, fshare = len(r.SEEDS), r.phase, g["grid"], g["fshare"]
    x, nn = g["read"][g["primary"]], g["nn"]
    epochs = {
        int(e): {
            "single": med(fshare["single"][:, k]),
            "mixed": med(fshare["mixed"][:, k]),
            "snap_change": float(g["snap_all"][k]),
            "verdict": g["v_mix_at"][int(e)],
        }
        for k, e in enumerate(grid)
    }
    ev = _windowed(
        r,
        g,
        "layer2_mixed",
        "smaller",
        epochs,
        baseline=g["windows"]["layer2_mixed_baseline"],
    )
    note = (
        f"functional census of layer 2 (units snapped to context-level gates): the "
        f"ratio of the snapped output's single-context to 2-of-3 share, averaged "
        f"{_window_words(g)} (rule 5), against chance, the same ratio at "
        f"initialisation "
        f"({med(g['chance']):.3f}, seeds {_range(g['chance'])}); median over {S} "
        f"seeds; in the window single {med(x['single']):.3f} vs 2-of-3 "
        f"{med(x['mixed']):.3f} (ratio per seed {_range(x['ratio'])}), where "
        f"snapping both layers changes the output by {med(x['snap_all']):.3f}; "
        f"reference: the Section 4 network's ratio "
        + (f"{ref:.3f}" if np.isfinite(ref) else "(not available)")
        + f"; in rule 3's phase {phase[0]}-{phase[1]} {med(g['single_ph']):.3f} vs "
        f"{med(g['mixed_ph']):.3f}; record by record (single against 2-of-3, ratio "
        f"of medians with its interval) 'clearly less' "
        f"{verdicts_over_training(g['v_mix_at'], grid)}; layer-2 weight in "
        f"non-nested units (beyond Lemma 4.1) at epoch {r.epochs}: "
        f"{med(nn[:, -1, 1]):.4f} (zero at every record of every seed over epochs "
        f"{epoch_ranges(grid, g['zero2'])})."
    )
    return "layer2_mixed", ev, note


def _rec_layer2_single_context(r, g) -> tuple:
    single_late = g["single_late"]
    note = (
        f"single-context share of layer 2's snapped output, mean over the records "
        f"after the loss is below half its initial value (epoch "
        f"{med(g['t_half']):.0f}, median), median over {len(r.SEEDS)} seeds (range "
        f"{single_late.min():.3f}-{single_late.max():.3f})."
    )
    return "layer2_single_context", med(single_late), note


def _rec_gap(r) -> tuple:
    m_runs, m_ow, S = r.m_runs, r.m_ow, len(r.SEEDS)
    others = {
        f"{INIT_NAME[i]} ({r.init_rows[i]['seeds']} seeds)": ev
        for i, ev in r.init_evidence.items()
        if i != r.init
    }
    note = (
        f"time gap between the ReLU and GDLN stereotypes ({S} seeds each; GDLN: "
        f"hand-set schedule, {r.coupling} coupling, {r.init} init); spread: the larger "
        f"of the median gaps between two ReLU runs ({r.spread_relu:.3f}) and two GDLN "
        f"runs ({m_runs.spread_candidate:.3f}); seed s vs seed s {m_runs.value:.3f}, "
        f"mean curves {r.gap_mean:.3f}; other inits: init_sensitivity; "
        f"{r.other_coupling} coupling: seed s vs seed s "
        f"{m_ow.value if m_ow is not None else float('nan'):.3f} "
        f"({r.coupling_seeds} seed(s))."
    )
    ev = _sorted_variants(r.m_stereo, init=others)
    return "gap_relu_gdln_stereotypes", ev, note


def _rec_init(r) -> tuple:
    note = (
        "per initialisation of the GDLN (hand-set schedule): time gaps to the ReLU "
        "runs and the rulebook's verdict on the median gap of seed s against seed s, "
        f"against the larger of the ReLU seed spread ({r.spread_relu:.3f}) and that "
        "initialisation's own."
    )
    return "init_sensitivity", r.init_rows, note


def _rec_variance(r, var) -> tuple:
    k_var, scatter, S = r.k_var, r.scatter, len(r.SEEDS)
    v24, sd24, fl = r.var24, var["sd24"], r.floor
    k24, n24 = v24["k"], len(r.pool["seeds"])
    note = (
        "ln(sd ReLU / sd GDLN) of the drop epoch at the worst drop "
        f"({r.names24[k24]}) over {n24} + {n24} seeds, this execution's pooled with "
        f"a stored run's (book/depth_runs, `{r.big_entry['command']}`; ratio "
        f"{np.exp(v24['scatter'][k24][0]):.2f}; sd {sd24['relu'][k24]:.0f} vs "
        f"{sd24['hand'][k24]:.0f} epochs); spread: its bootstrap standard error; "
        "per drop ratio (verdict): "
        + ", ".join(
            f"{np.exp(v):.2f} ({vd})"
            for (v, _), vd in zip(v24["scatter"], var["verdict24"])
        )
        + "; shape (drops ordered by their scatter): "
        + ("the same" if var["same_order"] else "not the same")
        + " in both networks; this execution's "
        f"{S} + {S} seeds: worst drop {r.names_drop[k_var]}, ratio "
        f"{np.exp(scatter[k_var][0]):.2f}; rounding floor (same initial weights, "
        f"{len(r.rd_entry['seeds'])} seeds of the ReLU network only, float32 and "
        "float64 sums): its last drop moves by up to "
        f"{max(np.nanmax(m[-1:]) for m in fl['max'].values()):.0f} epochs (sd "
        f"{fl['sd'][-1]:.0f}, against the ReLU runs' {sd24['relu'][-1]:.0f}; the "
        "GDLN is not put through it)"
        + "".join(
            f"; {drops.SPREAD_NAMES[s]} in place of the sd: ratio "
            f"{rp['spread_ratio'][k24]:.2f} at {r.names24[k24]}"
            for s, rp in r.robust.items()
        )
        + (
            f"; the authors' {r.authors['n']} + {r.authors['n']} script runs: ratio "
            f"{np.exp(r.authors['scatter'][r.authors['k']][0]):.2f} at "
            f"{r.names24[r.authors['k']]}, above "
            f"{r.authors['percentile']:.1f} % of the engine's subsets of as many seeds"
            if r.authors is not None
            else ""
        )
        + f"; stored run made at commit {r.big_entry.get('commit', 'unknown')}."
    )
    return "variance_profile", var["evidence"], note


def _rec_outputs(r, out) -> tuple:
    worst, cand, relu_only = r.worst, out["cand"], out["relu_only"]
    note = (
        f"relative output gap ReLU vs GDLN (median over pairs of runs) at the shared "
        f"plateau below the rank-one map's loss ({float(r.L_rank[0]):.0f}; rule 5: "
        f"where the outputs carry more than the map every network learns first) where "
        f"it is largest relative to the larger of the ReLU-ReLU and GDLN-GDLN gaps "
        f"(loss {worst[0]:.1f}); "
        "per plateau (ReLU-GDLN / ReLU-ReLU / GDLN-GDLN): "
        + "; ".join(f"{x[0]:.0f}: {x[2]:.4f} / {x[3]:.4f} / {x[4]:.4f}" for x in cand)
        + "; ReLU-only plateau(s): "
        + (", ".join(f"{x[0]:.0f}: {x[2]:.3f}" for x in relu_only) or "none")
        + "."
    )
    return "plateau_outputs", out["evidence"], note


def _rec_switch(r) -> tuple:
    note = (
        "[start, context]: ReLU layer-2 appearance epochs (weight mass "
        f"{r.appear_threshold}) minus the lags of the hand-scheduled GDLN; time gap to "
        f"the ReLU stereotype {r.gap_stereo_derived:.3f} (hand-set "
        f"{r.m_stereo.value:.3f}); threshold "
        + ", ".join(f"{q:g}: {s_.as_list()}" for q, s_ in r.checks.items())
        + "."
    )
    ev = Evidence(r.derived.as_list(), compared=r.hand.as_list())
    return "switch_epochs_derived", ev, note


def _summary(r, recs) -> str:
    where = f"where context gating exists, loss below {float(r.L_rank[-1]):.0f}"
    n24 = len(r.pool["seeds"])
    return claims_table(
        [
            (
                "Layer 1 does not gate: its units are on for every datapoint "
                f"({where})",
                "all neurons are active for all datapoints",
                recs["layer1_always_on"],
            ),
            (
                "Layer 1 works as a linear layer: making it linear changes the output "
                f"clearly less than making layer 2 linear ({where})",
                "does not use the first layer for gating ... used as a linear layer",
                recs["layer1_linear"],
            ),
            (
                "Layer 1 over training (always-on share, output change if linear)",
                "no time given",
                recs["layer1_over_training"],
            ),
            (
                "Layer 2's context gating is 2-of-3: the single-context to 2-of-3 "
                f"ratio of its output is clearly below chance ({where})",
                "contextual pathways are active in two out of the three contexts",
                recs["layer2_mixed"],
            ),
            (
                "Layer 2's single-context share late in training",
                "not in the paper (Fig. 6a has no single-context pathway)",
                recs["layer2_single_context"],
            ),
            (
                "ReLU and GDLN stereotypes agree (time gap against the larger of two "
                "ReLU runs' and two GDLN runs' gaps)",
                "close agreement (Fig. 6b)",
                recs["gap_relu_gdln_stereotypes"],
            ),
            (
                "The agreement under each initialisation of the GDLN",
                "begin with the same hyper-parameters (Appendix H)",
                recs["init_sensitivity"],
            ),
            (
                "The runs of both networks scatter alike (log ratio of standard "
                f"deviations at the worst drop, {n24} + {n24} stored seeds)",
                "the same variance profiles",
                recs["variance_profile"],
            ),
            (
                "Outputs agree on the plateaus below the rank-one map's (against "
                "the larger of two ReLU runs' and two GDLN runs' gaps)",
                "exact agreement between the outputs",
                recs["plateau_outputs"],
            ),
            (
                "Switch-on epochs derived from the ReLU gates [start, context]",
                "hand-set 500, 12000 (authors' code)",
                recs["switch_epochs_derived"],
            ),
        ]
    )


def _in_short(r, g, var, out, inits, recs) -> str:
    strict1, snap2 = g["strict1"], g["snap2"]
    nn, pre = g["nn"], g["pre"]
    x = g["read"][g["primary"]]
    stuck, made, within = inits["stuck"], inits["made"], out["within_noise"]
    v24, names = r.var24, r.names24
    k24, n24 = v24["k"], len(r.pool["seeds"])
    hand, derived = r.hand, r.derived
    far = abs(derived.context - hand.context) > 500
    ctx_word = "differs from" if far else "agrees with"
    return (
        "In short: read where context gating exists (the loss below the common-only "
        f"level {float(r.L_rank[-1]):.0f}, from epoch {med(g['t_exists']):.0f}), "
        "the ReLU network's first layer is not always on "
        f"({med(x['strict1']):.2f} of its weight in units on for every datapoint, "
        f"{recs['layer1_always_on']['verdict']}; {med(strict1[pre]):.3f} on the "
        "first plateau, before any context structure), but it works as a linear "
        f"layer: making it linear moves the output by {med(x['lin1']):.1%} against "
        f"{med(x['lin2']):.0%} for the second layer "
        f"({recs['layer1_linear']['verdict']}). The second layer keeps a common "
        "pathway and 2-of-3 units, but single-context units make "
        f"{med(x['ratio']):.2f} times the 2-of-3 units' part of its snapped output, "
        f"against {med(g['chance']):.2f} at initialisation, where gating is random "
        f"({recs['layer2_mixed']['verdict']} against chance), and a context-level "
        f"description misses {med(snap2[:, -1]):.0%} of its output at the end. Its "
        f"gating stays within Lemma 4.1 (nested) almost everywhere: "
        f"{med(nn[:, -1, 1]):.1%} of its weight is beyond it at the end. The GDLN of "
        f"Fig. 6a, started with {INIT_NAME[r.init]} and trained {r.coupling}: its "
        f"stereotype is {r.m_stereo.value:.3f} from the ReLU stereotype in the time "
        f"gap, against {r.m_runs.spread:.3f} between two runs of one network "
        f"({recs['gap_relu_gdln_stereotypes']['verdict']}); "
        + (
            "started at the ReLU network's own scale (matched or derived) it misses "
            "the last drop, so the agreement rests on the authors' hand-set scales. "
            if stuck and made == ["authors"]
            else "the other initialisations are compared in the init table. "
        )
        + f"Its outputs on the plateaus below the rank-one map's agree to "
        f"{r.worst[2]:.1%} ({recs['plateau_outputs']['verdict']} against the two "
        f"networks' own {out['m_worst'].spread:.1%}"
        + (
            "; started with "
            + " or ".join(INIT_NAME[i] for i in within)
            + " the GDLN's outputs agree within that noise"
            if within and r.init not in within
            else ""
        )
        + f"). Over {n24} + {n24} seeds both networks are consistent in the first "
        f"drop and scatter later; at the drop {names[k24]} the ReLU runs scatter "
        f"{np.exp(v24['scatter'][k24][0]):.1f} times as much "
        f"({recs['variance_profile']['verdict']} as 'the same variance profiles'; "
        f"{sum(v == 'reproduced' for v in var['verdict24'])} of {len(names)} drops "
        f"scatter alike), and rounding alone moves the ReLU network's last drop by "
        "up to "
        f"{max(np.nanmax(m[-1:]) for m in r.floor['max'].values()):.0f} epochs. The "
        f"start epoch read off the ReLU gates ({derived.start}) "
        f"{'matches' if abs(derived.start - hand.start) <= 200 else 'differs from'} "
        f"the authors' {hand.start}; the context epoch ({derived.context}) "
        f"{ctx_word} the authors' {hand.context}."
    )


def _check(r, g, out, recs) -> str:
    """The headline numbers as text (the page prints them; nbval compares them)."""
    names = (
        "layer1_always_on",
        "layer1_linear",
        "layer2_mixed",
        "gap_relu_gdln_stereotypes",
        "variance_profile",
        "plateau_outputs",
    )
    x, v24 = g["read"][g["primary"]], r.var24
    lines = [
        f"layer1_always_on          = {med(x['strict1']):.2f} (context gating exists)",
        f"layer1_linear             = {med(x['lin1']):.3f} vs {med(x['lin2']):.2f}",
        f"layer2_mixed (ratio)      = {med(x['ratio']):.2f} vs chance "
        f"{med(g['chance']):.2f}",
        f"layer2_single_context     = {med(g['single_late']):.2f}",
        f"gap_relu_gdln_stereotypes = {r.m_stereo.value:.2f} (spread "
        f"{r.m_runs.spread:.2f})",
        f"variance_profile          = {np.exp(v24['scatter'][v24['k']][0]):.1f} "
        f"({len(r.pool['seeds'])} + {len(r.pool['seeds'])} seeds)",
        f"plateau_outputs           = {r.worst[2]:.3f} (spread "
        f"{out['m_worst'].spread:.3f})",
        "switch_epochs_derived     = "
        f"{[int(500 * round(t / 500)) for t in r.derived.as_list()]} (to the nearest "
        "500)",
        "verdicts                  = " + ", ".join(recs[n]["verdict"] for n in names),
    ]
    return "\n".join(lines)
