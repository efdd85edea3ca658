"""The depth chapter's records, glue and closing tables, from what the page computed
(defined for the page ``book/depth.md``; :func:`report`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ...book import rulebook as rb
from ...book.notebook import glue
from ...book.records import claims_table
from ...core.measures import (
    Evidence,
    level_times,
    output_gap,
    ratio_interval,
    seed_spread,
    seed_spread_interval,
    time_gap,
)
from . import (
    GDLN_STDS,
    appearance_epoch,
    epoch_ranges,
    paper_profile_runs,
    plateau_levels,
    plateau_outputs,
    plateau_record,
    smaller_by_epoch,
    verdicts_over_training,
)
from .tables import INIT_NAME

__all__ = ["Results", "report"]


def med(v) -> float:
    return float(np.nanmedian(v))


@dataclass
class Results:
    """What the page ``book/depth.md`` computed, by the names it has there.

    Parameters: ``SEEDS`` (the seeds), ``init``, ``coupling``,
    ``other_coupling``, ``epochs``, ``record_every``, ``init_seeds``,
    ``coupling_seeds``, ``appear_threshold``, ``width``.  The task ``ds`` and the
    losses of the best linear maps of each rank ``L_rank``.  The runs with records
    (:class:`helpers.chapters.depth.DepthRuns`): ``relu``, ``gh`` (the main GDLN,
    hand-set schedule), ``gd`` (derived schedule); the schedules ``hand``,
    ``derived`` and ``checks`` (``{threshold: schedule}``) with ``info``
    (:func:`helpers.chapters.depth.derive_schedule`).  The stereotypes ``i_r``,
    ``i_g``; ``m_runs`` (seed ``s`` against seed ``s``), ``m_stereo`` (the
    stereotypes), ``spread_relu``, ``gap_mean``.  Per initialisation: ``init_loss``,
    ``init_out``, ``init_rows`` and ``init_evidence``
    (:func:`helpers.chapters.depth.init_comparison`).  The drops: ``levels``,
    ``names_drop``, ``drops``, ``durs``, ``scatter``, ``scatter_bs``, the worst drop
    ``k_var`` and ``sub`` (4 + 4 seed subsets).  The ``phase``.  The derived schedule's
    runs against the ReLU's: ``m_derived``, ``m_hand_same``, ``gap_stereo_derived``.
    The plateaus: ``gaps_out``, ``m_out``, ``worst``.  The other coupling: ``L_ow``,
    ``gap_ow``, ``m_ow``.
    """

    SEEDS: list
    init: str
    coupling: str
    other_coupling: str
    epochs: int
    record_every: int
    init_seeds: int
    coupling_seeds: int
    appear_threshold: float
    width: int
    ds: object
    L_rank: np.ndarray
    relu: object
    gh: object
    gd: object
    hand: object
    derived: object
    checks: dict
    info: dict
    i_r: int
    i_g: int
    m_runs: Evidence
    m_stereo: Evidence
    spread_relu: float
    gap_mean: float
    init_loss: dict
    init_out: dict
    init_rows: dict
    init_evidence: dict
    levels: np.ndarray
    names_drop: list
    drops: dict
    durs: dict
    scatter: list
    scatter_bs: list
    k_var: int
    sub: np.ndarray
    phase: tuple
    m_derived: Evidence
    m_hand_same: Evidence
    gap_stereo_derived: float
    gaps_out: list
    m_out: dict
    worst: tuple
    L_ow: np.ndarray | None
    gap_ow: list
    m_ow: Evidence | None

    @classmethod
    def collect(cls, namespace: dict) -> "Results":
        """The page's variables of these names (``globals()`` of the page)."""
        return cls(**{f.name: namespace[f.name] for f in dataclasses.fields(cls)})


def report(rec, results: Results) -> dict:
    """Write the depth chapter's records, the glue its prose reads and its closing
    tables.  Defined for the page ``book/depth.md``.

    Args:
        rec: the chapter's :class:`helpers.book.records.Records`.
        results: what the page computed (:class:`Results`).

    Returns:
        ``{"summary": closing table, "in_short": closing paragraph, "check": the
        headline numbers as text}`` (Markdown and plain text); the records are saved
        (``rec.save()``).
    """
    r = results
    _setup(r)
    stereo = _stereotypes(r)
    inits = _inits(r)
    var = _drops(r)
    g = _gating(r)
    _schedule(r)
    out = _outputs(r)
    _coupling(r)
    _cost(r)
    recs = _records(rec, r, g, var, out, stereo)
    rec.save()
    return {
        "summary": _summary(r, g, recs),
        "in_short": _in_short(r, g, var, out, inits, recs),
        "check": _check(r, g, var, out, recs),
    }


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
    gh, levels, drops = r.gh, r.levels, r.drops
    scatter, scatter_bs, k_var, L0 = r.scatter, r.scatter_bs, r.k_var, _L0(r)
    names = r.names_drop
    lv_g = plateau_levels(gh.loss)
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
    glue("depth_n_drops", len(names))
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
    seeds = {
        **rb.seed_variants(ev),
        f"4 + 4 seeds, ratio {np.exp(lo4):.2g} (5th percentile of subsets)": ev.but(
            value=float(lo4), spread=se4, spread_interval=None
        ),
        f"4 + 4 seeds, ratio {np.exp(hi4):.2g} (95th percentile)": ev.but(
            value=float(hi4), spread=se4, spread_interval=None
        ),
    }
    return {
        "evidence": ev.varied("seeds", seeds),
        "verdict_drop": verdict_drop,
        "n_same": n_same,
        "sd": sd,
        "fail4": fail4,
    }


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


def _window_smaller(v, c):
    """``smaller`` evidence of per-seed values ``v`` against ``c`` with the ratio's
    interval over seeds, or None where there is nothing to compare."""
    ok = np.isfinite(v) & np.isfinite(c)
    v, c = v[ok], c[ok]
    if ok.sum() < 2 or np.median(c) == 0:
        return None
    try:
        iv = ratio_interval(v, c)
    except ValueError:
        return None
    return Evidence(
        float(np.median(v)),
        compared=float(np.median(c)),
        criterion="smaller",
        ratio_interval=iv,
    )


def _window_near(v, alternative):
    """``near 1`` evidence of per-seed values ``v`` (layer 1 always on)."""
    v = np.asarray(v, float)
    return Evidence(
        med(v),
        compared=1.0,
        spread=seed_spread(v),
        spread_interval=seed_spread_interval(v),
        alternative=alternative,
        criterion="near",
    )


def _gating(r):
    """The gating claims of Section 6: the per-seed readings in the phase and in the
    other windows, and the glue of the section."""
    relu, grid, phase, levels = r.relu, r.relu.grid, r.phase, r.levels
    S = len(r.SEEDS)
    strict1 = relu.always_on[:, :, 0]
    strict2 = relu.always_on[:, :, 1]
    lin1, lin2 = relu.linear_l1_change, relu.linear_l2_change
    snap2 = relu.functional("snap_change")
    fshare = {c: relu.functional(c) for c in ("common", "mixed", "single", "other")}
    snap_all = np.median(relu.snap_all, axis=0)
    in_phase = (grid >= phase[0]) & (grid <= phase[1])
    strict1_ph = strict1[:, in_phase].mean(axis=1)
    single_ph = fshare["single"][:, in_phase].mean(axis=1)
    mixed_ph = fshare["mixed"][:, in_phase].mean(axis=1)
    lin1_ph, lin2_ph = lin1[:, in_phase].mean(axis=1), lin2[:, in_phase].mean(axis=1)
    k_end = int(np.flatnonzero(in_phase)[-1])
    iv_lin = ratio_interval(lin1_ph, lin2_ph)
    iv_l2 = ratio_interval(single_ph, mixed_ph)
    v_lin_at = smaller_by_epoch(lin1, lin2, grid)
    v_mix_at = smaller_by_epoch(fshare["single"], fshare["mixed"], grid)
    alt1 = med(strict1[:, 0])
    v1 = {
        int(e): rb.verdict(
            Evidence(
                med(strict1[:, k]),
                compared=1.0,
                spread=seed_spread(strict1[:, k]),
                alternative=alt1,
                criterion="near",
            )
        )
        for k, e in enumerate(grid)
    }
    lin1_ok = np.median(lin1, axis=0) <= rb.PHASE_SNAP
    nn = relu.non_nested
    # the first plateau (the linear part learned, no context units yet)
    k_pre = plateau_record(relu, levels[1])
    ok_pre = k_pre >= 0
    pre = (np.flatnonzero(ok_pre), k_pre[ok_pre])
    # "late": once a run's loss is below half its initial value
    t_half = np.array([level_times(L, (0.5,))[0] for L in relu.loss])
    late = grid[None, :] >= t_half[:, None]

    def fall_epoch(share, below=0.5):
        out = []
        for row in share:
            k0 = int(np.argmax(row))
            after = np.flatnonzero(row[k0:] < below)
            out.append(grid[k0 + after[0]] if after.size else np.nan)
        return np.array(out, float)

    t_fall = fall_epoch(strict1)
    single_late = np.array([fshare["single"][s, late[s]].mean() for s in range(S)])
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
    glue("depth_l2_strict_end", med(strict2[:, -1]))
    glue("depth_l1_lin_loss", med(relu.linear_l1_loss[:, -1]))
    glue("depth_final_loss", med(relu.loss[:, -1]))
    # the always-on phase of each run: from the first record at which the share is
    # above one half to the record at which it falls below one half again
    t_rise = np.array([grid[np.argmax(row >= 0.5)] for row in strict1], float)
    before_fall = np.array(
        [
            np.nanmax(lin1[s, (grid >= t_rise[s]) & (grid <= t_fall[s])])
            for s in range(S)
        ]
    )
    glue("depth_l1_lin_before_fall", 100 * med(before_fall))
    glue("depth_l1_rise", med(t_rise))
    glue("depth_l1_itemdep", med(relu.item_dependent[:, -1, 0]))
    for c in ("common", "mixed", "single"):
        glue(f"depth_f2_{c}_end", med(fshare[c][:, -1]))
    glue("depth_snap2_end", 100 * med(snap2[:, -1]))
    snap2_late = [snap2[s, late[s]].mean() for s in range(S)]
    glue("depth_snap2_late", 100 * med(snap2_late))
    glue("depth_single_late", med(single_late))
    glue("depth_single_late_range", f"{single_late.min():.2f}–{single_late.max():.2f}")
    glue("depth_t_half", med(t_half))
    glue("depth_w2_single_end", med(relu.share(1, "single")[:, -1]))
    w2_cm = relu.share(1, "common")[:, -1] + relu.share(1, "mixed")[:, -1]
    glue("depth_w2_cm_end", med(w2_cm))
    glue("depth_l2_itemdep", med(relu.item_dependent[:, -1, 1]))
    glue("depth_phase", f"{phase[0]}–{phase[1]}")
    glue("depth_phase_snap", rb.PHASE_SNAP)
    glue("depth_snap_all_end", 100 * med(relu.snap_all[:, -1]))
    glue("depth_l1_strict_phase", med(strict1_ph))
    glue("depth_l1_strict_phase_end", med(strict1[:, k_end]))

    def verdict_at(v):
        return epoch_ranges(grid, [v1[int(e)] == v for e in grid])

    glue("depth_l1_holds", verdict_at("reproduced"))
    glue("depth_l1_partly", verdict_at("partly reproduced"))
    glue("depth_l1_lin_ok", epoch_ranges(grid, lin1_ok))
    glue(
        "depth_l1_lin_max_phase",
        100 * float(np.max(np.median(lin1, axis=0)[in_phase])),
    )
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
    glue("depth_l2_by_epoch", verdicts_over_training(v_mix_at, grid))
    glue("depth_lin_by_epoch", verdicts_over_training(v_lin_at, grid))
    glue("depth_l1_lin_phase", 100 * med(lin1_ph))
    glue("depth_l2_lin_phase", 100 * med(lin2_ph))
    glue("depth_lin_iv", f"{iv_lin[0]:.2f}–{iv_lin[1]:.2f}")
    v_l2_end = rb.verdict(
        Evidence(
            med(fshare["single"][:, -1]),
            compared=med(fshare["mixed"][:, -1]),
            criterion="smaller",
        )
    )
    glue("depth_v_l2_phase", rb.verdict(ev_l2))
    glue("depth_clearly", rb.CLEARLY)
    glue("depth_v_l2_end", v_l2_end)
    glue("depth_f2_ratio_phase", med(single_ph) / med(mixed_ph))
    k_next = min(k_end + 1, grid.size - 1)  # the first record after the phase
    glue("depth_after_phase", int(grid[k_next]))
    glue("depth_snap_all_next", 100 * float(snap_all[k_next]))
    glue("depth_snap2_next", 100 * med(snap2[:, k_next]))
    glue(
        "depth_f2_ratio_next",
        med(fshare["single"][:, k_next]) / med(fshare["mixed"][:, k_next]),
    )
    # Lemma 4.1 in layer 2: weight in non-nested units (layer 1: 0 by construction)
    glue("depth_nn1_max", float(np.nanmax(nn[:, :, 0])))
    glue("depth_nn2_end", med(nn[:, -1, 1]))
    glue("depth_nn2_end_max", float(np.nanmax(nn[:, -1, 1])))
    glue("depth_nn2_max_after", float(np.nanmax(nn[:, grid > phase[1], 1])))
    zero2 = np.all(nn[:, :, 1] == 0, axis=0)
    glue("depth_nn2_zero", epoch_ranges(grid, zero2))
    glue("depth_nn2_zero_med", epoch_ranges(grid, np.median(nn[:, :, 1], axis=0) == 0))
    glue("depth_nn2_init", med(nn[:, 0, 1]))
    # the other windows the page reads the claims in ([rulebook-phase]): the first
    # plateau, the phase's last record, after the phase, the end of training
    after = grid > phase[1]
    windows = {}
    if ok_pre.any():
        windows[f"the first plateau (loss {levels[1]:.0f})"] = (
            lambda M: M[pre[0], pre[1]]  # noqa: E731
        )
    windows[f"the phase's last record (epoch {int(grid[k_end])})"] = (
        lambda M: M[:, k_end]  # noqa: E731
    )
    if after.any():
        windows[f"after the phase (epochs {int(grid[after][0])}–{int(grid[-1])})"] = (
            lambda M: M[:, after].mean(axis=1)  # noqa: E731
        )
    windows[f"the end of training (epoch {int(grid[-1])})"] = lambda M: M[:, -1]  # noqa: E731
    variants = {
        "layer1_always_on": {
            w: _window_near(f(strict1), alt1) for w, f in windows.items()
        },
        "layer1_linear": {
            w: _window_smaller(f(lin1), f(lin2)) for w, f in windows.items()
        },
        "layer2_mixed": {
            w: _window_smaller(f(fshare["single"]), f(fshare["mixed"]))
            for w, f in windows.items()
        },
    }
    variants = {
        k: {w: e for w, e in v.items() if e is not None} for k, v in variants.items()
    }
    return {
        "grid": grid,
        "strict1": strict1,
        "lin1": lin1,
        "lin2": lin2,
        "snap2": snap2,
        "fshare": fshare,
        "snap_all": snap_all,
        "strict1_ph": strict1_ph,
        "single_ph": single_ph,
        "mixed_ph": mixed_ph,
        "lin1_ph": lin1_ph,
        "lin2_ph": lin2_ph,
        "k_end": k_end,
        "iv_lin": iv_lin,
        "iv_l2": iv_l2,
        "v_lin_at": v_lin_at,
        "v_mix_at": v_mix_at,
        "verdict_at": verdict_at,
        "lin1_ok": lin1_ok,
        "nn": nn,
        "zero2": zero2,
        "pre": pre,
        "ok_pre": ok_pre,
        "t_half": t_half,
        "t_rise": t_rise,
        "t_fall": t_fall,
        "before_fall": before_fall,
        "single_late": single_late,
        "windows": variants,
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
    from . import match_runs

    m_same = match_runs(r.relu.loss, r.gh.loss[: max(r.coupling_seeds, 1)])
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


def _records(rec, r, g, var, out, stereo) -> dict:
    S, epochs, phase, grid = len(r.SEEDS), r.epochs, r.phase, g["grid"]
    strict1, lin1, lin2 = g["strict1"], g["lin1"], g["lin2"]
    fshare, nn, k_end = g["fshare"], g["nn"], g["k_end"]
    verdict_at, sd = g["verdict_at"], var["sd"]
    at_ = lambda M: {int(e): med(M[:, k]) for k, e in enumerate(grid)}  # noqa: E731
    story = [int(e) for e in grid if e % 2500 == 0]
    ph = f"the phase {phase[0]}-{phase[1]}"
    strict1_ph = g["strict1_ph"]
    ev_l1 = Evidence(
        med(strict1_ph),
        compared=1.0,
        criterion="near",
        spread=seed_spread(strict1_ph),
        spread_interval=seed_spread_interval(strict1_ph),
        alternative=med(strict1[:, 0]),
        epochs=at_(strict1),
        phase=list(phase),
    )
    ev_l1 = _sorted_variants(ev_l1, window=g["windows"]["layer1_always_on"])
    out_ = {}
    out_["layer1_always_on"] = rec.add(
        "layer1_always_on",
        ev_l1,
        f"share of layer-1 weight in units on for all 24 datapoints, averaged over "
        f"{ph} (both layers snapped to context-level gates change the output by <= "
        f"{rb.PHASE_SNAP:g}), median over {S} seeds (spread: seed spread of the "
        f"per-seed averages; alternative: the share at initialisation, "
        f"{med(strict1[:, 0]):.3f}); at the phase's last record "
        f"{med(strict1[:, k_end]):.3f}, at epoch {epochs} {med(strict1[:, -1]):.3f}; "
        f"near 1 by the rulebook at epochs {verdict_at('reproduced')}, partly at "
        f"{verdict_at('partly reproduced')}; in function (layer 1 made linear changes "
        f"the output by <= {rb.PHASE_SNAP:g}) at epochs "
        f"{epoch_ranges(grid, g['lin1_ok'])}.",
    )
    ev_lin = Evidence(
        med(g["lin1_ph"]),
        compared=med(g["lin2_ph"]),
        criterion="smaller",
        ratio_interval=g["iv_lin"],
        epochs={
            int(e): {
                "layer1": med(lin1[:, k]),
                "layer2": med(lin2[:, k]),
                "verdict": g["v_lin_at"][int(e)],
            }
            for k, e in enumerate(grid)
        },
        phase=list(phase),
    )
    ev_lin = _sorted_variants(ev_lin, window=g["windows"]["layer1_linear"])
    out_["layer1_linear"] = rec.add(
        "layer1_linear",
        ev_lin,
        f"relative output change when layer 1 is made linear against the same change "
        f"for layer 2, each averaged over {ph}, median over {S} seeds; record by "
        f"record (ratio of medians with its interval over seeds) it "
        f"{verdicts_over_training(g['v_lin_at'], grid)}; at epoch {epochs} "
        f"{med(lin1[:, -1]):.3f} vs {med(lin2[:, -1]):.3f}; at most "
        f"{med(g['before_fall']):.3f} while the always-on share is above 1/2; "
        f"linearised loss {med(r.relu.linear_l1_loss[:, -1]):.3g} (trained "
        f"{med(r.relu.loss[:, -1]):.3g}).",
    )
    out_["layer1_over_training"] = rec.add(
        "layer1_over_training",
        {
            f"{e:05d}": {
                "always_on": med(strict1[:, list(grid).index(e)]),
                "linear_change": med(lin1[:, list(grid).index(e)]),
            }
            for e in story
        },
        f"median over {S} seeds at every 2500th epoch (keys: epochs); the always-on "
        f"share rises above 1/2 at epoch {med(g['t_rise']):.0f} and falls below it at "
        f"epoch {med(g['t_fall']):.0f} (seeds: "
        f"{', '.join(f'{t:.0f}' for t in g['t_fall'])}).",
    )
    ev_l2 = Evidence(
        med(g["single_ph"]),
        compared=med(g["mixed_ph"]),
        criterion="smaller",
        ratio_interval=g["iv_l2"],
        epochs={
            int(e): {
                "single": med(fshare["single"][:, k]),
                "mixed": med(fshare["mixed"][:, k]),
                "snap_change": float(g["snap_all"][k]),
                "verdict": g["v_mix_at"][int(e)],
            }
            for k, e in enumerate(grid)
        },
        phase=list(phase),
    )
    ev_l2 = _sorted_variants(ev_l2, window=g["windows"]["layer2_mixed"])
    out_["layer2_mixed"] = rec.add(
        "layer2_mixed",
        ev_l2,
        f"functional census of layer 2 (units snapped to context-level gates), "
        f"shares of the snapped output made by single-context and 2-of-3 units "
        f"averaged over {ph}, median over {S} seeds; record by record (ratio of "
        f"medians with its interval over seeds) 'clearly less' "
        f"{verdicts_over_training(g['v_mix_at'], grid)}; at the phase's "
        f"last record {med(fshare['single'][:, k_end]):.3f} vs "
        f"{med(fshare['mixed'][:, k_end]):.3f}; at epoch {epochs} "
        f"{med(fshare['single'][:, -1]):.3f} vs {med(fshare['mixed'][:, -1]):.3f}, "
        f"where snapping layer 2 changes the output by {med(g['snap2'][:, -1]):.3f}; "
        f"layer-2 weight in non-nested units (beyond Lemma 4.1) at epoch {epochs}: "
        f"{med(nn[:, -1, 1]):.4f} (zero at every record of every seed over epochs "
        f"{epoch_ranges(grid, g['zero2'])}).",
    )
    single_late = g["single_late"]
    out_["layer2_single_context"] = rec.add(
        "layer2_single_context",
        med(single_late),
        f"single-context share of layer 2's snapped output, mean over the records "
        f"after the loss is below half its initial value (epoch "
        f"{med(g['t_half']):.0f}, median), median over {S} seeds (range "
        f"{single_late.min():.3f}-{single_late.max():.3f}).",
    )
    m_runs, m_ow = r.m_runs, r.m_ow
    others = {
        f"{INIT_NAME[i]} ({r.init_rows[i]['seeds']} seeds)": ev
        for i, ev in r.init_evidence.items()
        if i != r.init
    }
    ev_gap = _sorted_variants(r.m_stereo, init=others)
    out_["gap_relu_gdln_stereotypes"] = rec.add(
        "gap_relu_gdln_stereotypes",
        ev_gap,
        f"time gap between the ReLU and GDLN stereotypes ({S} seeds each; GDLN: "
        f"hand-set schedule, {r.coupling} coupling, {r.init} init); spread: the larger "
        f"of the median gaps between two ReLU runs ({r.spread_relu:.3f}) and two GDLN "
        f"runs ({m_runs.spread_candidate:.3f}); seed s vs seed s {m_runs.value:.3f}, "
        f"mean curves {r.gap_mean:.3f}; other inits: init_sensitivity; "
        f"{r.other_coupling} coupling: seed s vs seed s "
        f"{m_ow.value if m_ow is not None else float('nan'):.3f} "
        f"({r.coupling_seeds} seed(s)).",
    )
    out_["init_sensitivity"] = rec.add(
        "init_sensitivity",
        r.init_rows,
        "per initialisation of the GDLN (hand-set schedule): time gaps to the ReLU "
        "runs and the rulebook's verdict on the median gap of seed s against seed s, "
        f"against the larger of the ReLU seed spread ({r.spread_relu:.3f}) and that "
        "initialisation's own.",
    )
    k_var, scatter = r.k_var, r.scatter
    var_log = scatter[k_var][0]
    out_["variance_profile"] = rec.add(
        "variance_profile",
        var["evidence"],
        "ln(sd ReLU / sd GDLN) of the drop epoch at the worst drop "
        f"({r.names_drop[k_var]}) over {S} + {S} seeds (ratio {np.exp(var_log):.2f}; "
        f"sd {sd['relu'][k_var]:.0f} vs {sd['hand'][k_var]:.0f} epochs); spread: its "
        f"bootstrap standard error (normal theory {scatter[k_var][1]:.3f}); ratio per "
        "drop (verdict): "
        + ", ".join(
            f"{np.exp(v):.2f} ({vd})"
            for (v, _), vd in zip(scatter, var["verdict_drop"])
        )
        + f"; 4 + 4 seeds judged by normal theory would fail 'the same' in "
        f"{100 * var['fail4']:.0f} % of subsets.",
    )
    worst, cand, relu_only = r.worst, out["cand"], out["relu_only"]
    out_["plateau_outputs"] = rec.add(
        "plateau_outputs",
        out["evidence"],
        f"relative output gap ReLU vs GDLN (median over pairs of runs) at the shared "
        f"plateau where it is largest relative to the larger of the ReLU-ReLU and "
        f"GDLN-GDLN gaps (loss {worst[0]:.1f}); "
        "per plateau (ReLU-GDLN / ReLU-ReLU / GDLN-GDLN): "
        + "; ".join(f"{x[0]:.0f}: {x[2]:.4f} / {x[3]:.4f} / {x[4]:.4f}" for x in cand)
        + "; ReLU-only plateau(s): "
        + (", ".join(f"{x[0]:.0f}: {x[2]:.3f}" for x in relu_only) or "none")
        + ".",
    )
    out_["switch_epochs_derived"] = rec.add(
        "switch_epochs_derived",
        Evidence(r.derived.as_list(), compared=r.hand.as_list()),
        "[start, context]: ReLU layer-2 appearance epochs (weight mass "
        f"{r.appear_threshold}) minus the lags of the hand-scheduled GDLN; time gap to "
        f"the ReLU stereotype {r.gap_stereo_derived:.3f} (hand-set "
        f"{r.m_stereo.value:.3f}); threshold "
        + ", ".join(f"{q:g}: {s_.as_list()}" for q, s_ in r.checks.items())
        + ".",
    )
    return out_


def _summary(r, g, recs) -> str:
    phase = f"{r.phase[0]}-{r.phase[1]}"
    return claims_table(
        [
            (
                "Layer 1 does not gate: its units are on for every datapoint (in the "
                f"phase {phase}, where the context-level description applies)",
                "all neurons are active for all datapoints",
                recs["layer1_always_on"],
            ),
            (
                "Layer 1 works as a linear layer: making it linear changes the output "
                f"clearly less than making layer 2 linear (phase {phase})",
                "does not use the first layer for gating ... used as a linear layer",
                recs["layer1_linear"],
            ),
            (
                "Layer 1 over training (always-on share, output change if linear)",
                "no time given",
                recs["layer1_over_training"],
            ),
            (
                "Layer 2's context gating is 2-of-3: single-context units make clearly "
                f"less of the output than 2-of-3 units (phase {phase})",
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
                "deviations at the worst drop)",
                "the same variance profiles",
                recs["variance_profile"],
            ),
            (
                "Outputs agree on the plateaus (against the larger of two ReLU runs' "
                "and two GDLN runs' gaps)",
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
    strict1, lin1, lin2, snap2 = g["strict1"], g["lin1"], g["lin2"], g["snap2"]
    nn, phase, pre = g["nn"], r.phase, g["pre"]
    stuck, made, within = inits["stuck"], inits["made"], out["within_noise"]
    k_var, names = r.k_var, r.names_drop
    var_log = r.scatter[k_var][0]
    hand, derived = r.hand, r.derived
    far = abs(derived.context - hand.context) > 500
    ctx_word = "differs from" if far else "agrees with"
    return (
        "In short: the ReLU network's first layer is always on while the network "
        f"learns the linear part of the task ({med(strict1[pre]):.3f} of its weight in "
        f"units on for every datapoint on the first plateau; "
        f"{med(g['strict1_ph']):.2f} on average over the phase {phase[0]}-{phase[1]} "
        "in which the paper's context-level description applies, "
        f"{recs['layer1_always_on']['verdict']}), but not at the end "
        f"({med(strict1[:, -1]):.2f}); in function it stays close to linear (making "
        f"it linear moves the output by {med(lin1[:, -1]):.0%} at the end, against "
        f"{med(lin2[:, -1]):.0%} for the second layer). The second layer keeps a "
        "common pathway and 2-of-3 units, but over the phase single-context units make "
        f"{med(g['single_ph']):.0%} of its snapped output against "
        f"{med(g['mixed_ph']):.0%} for 2-of-3 units "
        f"({recs['layer2_mixed']['verdict']}), and at the end a context-level "
        f"description misses {med(snap2[:, -1]):.0%} of its output. Its gating stays "
        f"within Lemma 4.1 (nested) almost everywhere: {med(nn[:, -1, 1]):.1%} of its "
        f"weight is beyond it at the end. The GDLN of Fig. 6a, started with "
        f"{INIT_NAME[r.init]} and trained {r.coupling}: its stereotype is "
        f"{r.m_stereo.value:.3f} from the ReLU stereotype in the time gap, against "
        f"{r.m_runs.spread:.3f} between two runs of one network "
        f"({recs['gap_relu_gdln_stereotypes']['verdict']}); "
        + (
            "started at the ReLU network's own scale (matched or derived) it misses "
            "the last drop, so the agreement rests on the authors' hand-set scales. "
            if stuck and made == ["authors"]
            else "the other initialisations are compared in the init table. "
        )
        + f"Its outputs on the shared plateaus agree to {r.worst[2]:.1%} "
        f"({recs['plateau_outputs']['verdict']} against the two networks' own "
        f"{out['m_worst'].spread:.1%}"
        + (
            "; started with "
            + " or ".join(INIT_NAME[i] for i in within)
            + " the GDLN's outputs agree within that noise"
            if within and r.init not in within
            else ""
        )
        + "). Both networks are consistent in the first drop and scatter later; at "
        f"the drop {names[k_var]} the ReLU runs scatter {np.exp(var_log):.1f} times as "
        f"much ({recs['variance_profile']['verdict']} as 'the same variance "
        f"profiles'; {var['n_same']} of {len(names)} drops scatter alike). The start "
        f"epoch read off the ReLU gates ({derived.start}) "
        f"{'matches' if abs(derived.start - hand.start) <= 200 else 'differs from'} "
        f"the authors' {hand.start}; the context epoch ({derived.context}) "
        f"{ctx_word} the authors' {hand.context}."
    )


def _check(r, g, var, out, recs) -> str:
    """The headline numbers as text (the page prints them; nbval compares them)."""
    names = (
        "layer1_always_on",
        "layer1_linear",
        "layer2_mixed",
        "gap_relu_gdln_stereotypes",
        "variance_profile",
        "plateau_outputs",
    )
    k_var, phase = r.k_var, r.phase
    lines = [
        f"layer1_always_on          = {med(g['strict1_ph']):.2f} (phase {phase})",
        f"layer1_linear             = {med(g['lin1_ph']):.2f} vs "
        f"{med(g['lin2_ph']):.2f} (phase)",
        f"layer2_mixed (single)     = {med(g['single_ph']):.2f} vs "
        f"{med(g['mixed_ph']):.2f}",
        f"layer2_single_context     = {med(g['single_late']):.2f}",
        f"gap_relu_gdln_stereotypes = {r.m_stereo.value:.2f} (spread "
        f"{r.m_runs.spread:.2f})",
        f"variance_profile          = {np.exp(r.scatter[k_var][0]):.1f}",
        f"plateau_outputs           = {r.worst[2]:.3f} (spread "
        f"{out['m_worst'].spread:.3f})",
        "switch_epochs_derived     = "
        f"{[int(500 * round(t / 500)) for t in r.derived.as_list()]} (to the nearest "
        "500)",
        "verdicts                  = " + ", ".join(recs[n]["verdict"] for n in names),
    ]
    return "\n".join(lines)
