"""The depth chapter's records, glue and closing tables, read from its runs (page
``book/depth.md``; :func:`report`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial
from types import SimpleNamespace

import numpy as np

from ...book import kit
from ...book import rulebook as rb
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
from .gating import appearance_epoch, epoch_ranges, verdicts_over_training
from .networks import GDLN_STDS, Schedule, paper_profile_runs
from .tables import INIT_NAME, same_scatter


@dataclass(frozen=True)
class Runs:
    """The page's runs: ``gh``/``gd`` the GDLN on the hand-set/derived schedule,
    ``init_*`` per initialisation, ``L_ow`` the other coupling (None: not run),
    ``stored``: ``{"scatter", "rounding", "authors" (optional): (runs, manifest)}``."""

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
    """Write (``rec.save()``) the depth chapter's records in ``rec``, glue the numbers
    its prose reads, and return its closing table, paragraph and headline numbers
    (``{"summary", "in_short", "check"}``).  Defined for the page ``book/depth.md``."""
    r = _read(runs, params)
    for section in (_setup, _inits, _drops, _gating, _schedule, _outputs, _costs):
        section(r)  # each glues its numbers and keeps on ``r`` what the records read
    recs = _records(rec, r)
    rec.save()
    return {
        "summary": _summary(r, recs),
        "in_short": _in_short(r, recs),
        "check": _check(r, recs),
    }


class _Glue(dict):
    """Glues values as ``depth_<name>`` and keeps them for the notes."""

    def __call__(self, **values):
        self.update(values)
        kit.glue_many("depth", values)


_say = partial(kit.prose, "depth")  # the [prose] sentence, filled


def _read(runs: Runs, p: Params) -> SimpleNamespace:
    """What the page derives from its runs, by the same science functions."""
    relu, gh, ds = runs.relu, runs.gh, runs.ds
    st, seeds = compare.stereotypes(relu.loss, gh.loss), [int(s) for s in relu.seeds]
    r = SimpleNamespace(**vars(p), **vars(runs), **vars(st), glue=_Glue())
    r.S, r.epochs = len(seeds), int(relu.loss.shape[1] - 1)
    r.hand = Schedule(*p.hand_schedule)
    r.other_coupling = "full" if p.coupling == "one-way" else "one-way"
    r.L_rank, r.L0 = networks.linear_losses(ds), 0.5 * float(np.sum(ds.Y**2))
    init = compare.init_comparison(relu.loss, runs.init_loss, st.i_r)
    r.init_rows, r.init_evidence = init
    r.prof = drops.drop_profile(relu.loss, gh.loss)
    r.levels, r.names_drop = r.prof["levels"], r.prof["names"]
    stored = runs.stored
    (big, r.big_entry), (rd, r.rd_entry) = stored["scatter"], stored["rounding"]
    r.v24 = v24 = drops.stored_profile(seeds, relu.loss, gh.loss, big)
    r.names24, r.n24 = v24["names"], len(v24["pool"]["seeds"])
    D = v24["drops"]["relu"], v24["drops"]["hand"]
    r.robust = {s: drops.spread_profile(*D, s) for s in ("iqr", "mad")}
    r.authors = _authors(stored.get("authors"), relu.loss.shape[1], v24)
    same = drops.same_start(relu.loss, seeds, rd)
    r.floor = drops.rounding_floor(same, v24["levels_all"])
    th = p.appear_threshold, p.appear_threshold_check
    r.derived, r.info, r.checks = gating.derived_schedules(relu, gh, r.hand, *th)
    r.dc = compare.derived_comparison(relu.loss, gh.loss, runs.gd.loss, st.i_r)
    i = st.i_r, st.i_g
    r.po = compare.plateau_comparison(relu, gh, r.levels, r.L_rank, r.L0, *i)
    r.worst = r.po["worst"]
    r.gap_ow, r.m_ow = compare.coupling_comparison(relu.loss, gh.loss, runs.L_ow)
    r.phase, r.in_phase = gating.gating_phase(relu)
    r.exists = np.asarray(gating.context_gating(relu, r.L_rank), bool)
    return r


def _authors(stored, T: int, v24: dict) -> dict | None:
    """The authors' script runs at the verdict's drop; None if missing or short."""
    if stored is None:
        return None
    (curves, entry), k = stored, v24["k"]
    if min(np.shape(curves["relu"])[1], np.shape(curves["gdln"])[1]) < T:
        return None
    relu, gdln = (np.asarray(curves[x])[:, :T] for x in ("relu", "gdln"))
    out = drops.authors_profile(relu, gdln, v24["levels_all"], v24["pairs"][k], k)
    return {**out, "entry": entry}


def _setup(r):
    """The glue of the networks and of the stereotypes."""
    m, s, ctx = r.m_runs, GDLN_STDS, GDLN_STDS["readout_context"]
    t_r, t_g = (np.array([level_times(L) for L in x.loss]) for x in (r.relu, r.gh))
    both = np.r_[t_r, t_g][:, :2]  # the times of the levels 50 % and 10 %
    lo, hi = np.nanmin(both, axis=0), np.nanmax(both, axis=0)
    r.glue(gdln_init_name=INIT_NAME[r.init], readout_ratio=ctx / s["readout_common"])
    r.glue(readout_context=ctx, L0=r.L0, L_rank1=float(r.L_rank[0]))
    r.glue(L_linear=float(r.L_rank[-1]), n_seeds=r.S)
    r.glue(record_every=r.record_every, coupling=r.coupling, epochs=r.epochs)
    r.glue(gap_stereo=r.m_stereo.value, gap_runs=m.value, gap_mean=r.gap_mean)
    r.glue(spread_relu=r.spread_relu, spread_both=m.spread)
    r.glue(spread_2x=rb.NOISE_MULTIPLE * m.spread, spread_gdln=m.spread_candidate)
    r.glue(spread_interval="{:.3f}–{:.3f}".format(*m.spread_interval))
    r.glue(seed_relu=r.relu.seeds[r.i_r], seed_gdln=r.gh.seeds[r.i_g])
    r.glue(verdict_stereo=rb.verdict(r.m_stereo), verdict_runs=rb.verdict(m))
    r.glue(runs_censored=_say("runs_censored") if m.censored else "")
    r.glue(n_reach_1pc_relu=int(np.isfinite(t_r[:, 2]).sum()))
    r.glue(t50_range=f"{lo[0]:.0f} and {hi[0]:.0f}")
    r.glue(t10_range=f"{lo[1]:.0f} and {hi[1]:.0f}")
    r.glue(n_reach_1pc_gdln=int(np.isfinite(t_g[:, 2]).sum()))


def _inits(r):
    """The glue of the GDLN under each initialisation."""
    rows, final, name = r.init_rows, med(r.relu.loss[:, -1]), INIT_NAME
    r.stuck = stuck = [i for i in rows if rows[i]["reach_10pc"].startswith("0 ")]
    r.made = made = [i for i in rows if i not in stuck]
    reading = _say("inits_none" if stuck else "inits_all")
    if stuck and made:
        reach = (f"{rows[i]['reach_10pc']} runs with {name[i]}" for i in made)
        why = _say("inits_why", ratio=r.glue["readout_ratio"])
        said = dict(stuck=" and ".join(name[i] for i in stuck), final=final)
        said.update(ends=", ".join(f"{rows[i]['final_loss']:.1f}" for i in stuck))
        said.update(reach=" and ".join(reach), made=" or ".join(name[i] for i in made))
        reading = _say("inits_some", **said, why=why if made == ["authors"] else "")
    r.glue(n_init=r.init_seeds, init_reading=reading)


def _drops(r):
    """The glue of the drops: these seeds (as ``seeds`` variants, with 4 + 4 subsets),
    the stored ones and the rounding floor."""
    levels, lv_g = r.levels, plateau_levels(r.gh.loss)
    extra = [x for x in levels if not np.any(np.abs(lv_g - x) <= 0.05 * r.L0)]
    text = _say("levels_same")
    if extra:
        text = _say("levels_extra", extra=extra[0], L_rank2=float(r.L_rank[1]))
    r.glue(levels=", ".join(f"{x:.1f}" for x in levels))
    r.glue(levels_gdln=", ".join(f"{x:.1f}" for x in lv_g))
    r.glue(extra_plateau=text, n_drops=len(r.names_drop))
    p, S, names = r.prof, r.S, r.names_drop
    D, k, sub = p["drops"], p["k"], p["sub"]
    sd = {x: np.nanstd(v, axis=0, ddof=1) for x, v in D.items()}
    (var_log, se_normal), (var_se, var_iv) = p["scatter"][k], p["scatter_bs"][k]
    per_drop = same_scatter(p["scatter"], p["scatter_bs"])
    n_same, ev = sum(rb.verdict(e) == "reproduced" for e in per_drop), per_drop[k]
    # how often 4 + 4 of these seeds would fail "the same" here (no interval)
    fail = [rb.holds("near", v, 0.0, e) is not True for v, e in sub if np.isfinite(v)]
    fail4 = np.mean(fail)
    r4 = np.exp(np.nanpercentile(sub[:, 0], [5, 95]))
    offsets = np.nanmedian(D["hand"], axis=0) - np.nanmedian(D["relu"], axis=0)
    chance = "on 4 seeds the verdict was decided by chance"
    if not 0.1 < fail4 < 0.9:
        chance = "4 seeds would mostly have given the same verdict"
    r.glue(sd_first_relu=float(sd["relu"][0]), sd_first_gdln=float(sd["hand"][0]))
    r.glue(var_drop=names[k], var_n_same=f"{n_same} of {len(names)}")
    r.glue(sd_worst_relu=float(sd["relu"][k]), sd_worst_gdln=float(sd["hand"][k]))
    r.glue(var_ratio=float(np.exp(var_log)), var_se=var_se)
    r.glue(var_se_normal=se_normal, var_se_iv=f"{var_iv[0]:.2f}–{var_iv[1]:.2f}")
    r.glue(var_fail4=100 * float(fail4), var_chance=chance)
    r.glue(var_ratio4=f"{r4[0]:.1f}–{r4[1]:.1f}")
    r.glue(offset_max_hand=float(np.nanmax(np.abs(offsets))))
    ok = np.isfinite(sub[:, 0])
    lo, hi = np.nanpercentile(sub[ok, 0], [5, 95])
    four = {"spread": med(sub[ok, 1]), "spread_interval": None}
    lo_, hi_ = (f"4 + 4 seeds, ratio {np.exp(x):.2g}" for x in (lo, hi))
    this = f"this execution's {S} + {S} seeds (ratio {np.exp(var_log):.2g})"
    here = {
        this: ev.but(variants=None),
        f"{lo_} (5th percentile of subsets)": ev.but(value=float(lo), **four),
        f"{hi_} (95th percentile)": ev.but(value=float(hi), **four),
    }
    _drops_stored(r, here)
    _rounding(r)


def _drops_stored(r, here: dict):
    """The verdict on the stored run's seeds with its variants ([rulebook-noise])."""
    v24, names, n24, entry = r.v24, r.names24, r.n24, r.big_entry
    k24, sd24, added = v24["k"], v24["sd"], v24["pool"]["added"]
    per24 = same_scatter(v24["scatter"], v24["scatter_bs"])
    r.verdict24 = verdict24 = [rb.verdict(e) for e in per24]
    ev24 = per24[k24]
    # the profile's shape apart from the last drop's size: every drop but the last
    z_shape, definition, shape = v24["z"][:-1], {}, "not testable (one drop only)"
    if z_shape.size and np.isfinite(z_shape).any():
        k = int(np.nanargmax(z_shape))
        worst = f"worst {names[k]}, ratio {np.exp(v24['scatter'][k][0]):.2g}"
        definition[f"the profile's shape: every drop but the last ({worst})"] = per24[k]
        shape = rb.verdict(per24[k])
    r.glue(v24_shape_verdict=shape)
    definition.update(_robust_variants(r, per24, k24))
    seeds = {**rb.seed_variants(ev24), **here, **_authors_variants(r, ev24)}
    order = {k: list(np.argsort(-np.nan_to_num(sd24[k], nan=-1))) for k in sd24}
    r.same_order = same_order = order["relu"] == order["hand"]
    se = v24["scatter_bs"][k24][0]
    commits = sorted({str(e.get("commit", "unknown")) for e in (entry, r.rd_entry)})
    modified = any("modified" in c for c in commits)
    commit = "commit_modified" if modified else "commit_clean"
    r.glue(v24_n=f"{n24} + {n24}", v24_drop=names[k24])
    r.glue(v24_ratio=float(np.exp(v24["scatter"][k24][0])), v24_se=float(se))
    r.glue(v24_limit=float(np.exp(rb.NOISE_MULTIPLE * se)))
    n_same = f"{sum(v == 'reproduced' for v in verdict24)} of {len(verdict24)}"
    r.glue(v24_verdict=rb.verdict(ev24), v24_n_same=n_same)
    same = "the same in both" if same_order else "not the same in the two"
    r.glue(v24_shape=f"{same} networks")
    r.glue(v24_first_sd=f"{sd24['relu'][0]:.0f} and {sd24['hand'][0]:.0f}")
    none = "none (other epochs: not pooled)"
    r.glue(v24_added=f"{added[0]}–{added[-1]}" if added else none)
    r.glue(v24_command=entry["command"])
    r.glue(v24_commit=_say(commit, commits=" and ".join(commits)))
    r.glue(v24_seconds=float(entry["seconds"]) / 60, v24_machine=entry["machine"])
    r.ev_var = _sorted_variants(ev24, seeds=seeds, definition=definition)


def _robust_variants(r, per24, k24) -> dict:
    """The ``definition`` variants of outlier-resistant spreads, and their glue."""
    out, words, names, r.robust_note = {}, [], r.names24, ""
    for name, rp in r.robust.items():
        k, ratio, what = rp["k"], rp["spread_ratio"], drops.SPREAD_NAMES[name]
        at = f"ratio {ratio[k24]:.2f} at {names[k24]}"
        r.robust_note += f"; {what} in place of the sd: {at}"
        if k is None:
            continue
        e, iv = rp["scatter_bs"][k]
        value = float(rp["value"][k])
        ev = per24[k].but(value=value, spread=float(e), spread_interval=tuple(iv))
        worst = f"worst drop {names[k]}, ratio {ratio[k]:.2g}"
        out[f"the {what} in place of the standard deviation ({worst})"] = ev
        said = dict(what=what, ratio24=ratio[k24], drop24=names[k24], drop=names[k])
        said.update(ratio=ratio[k], verdict=rb.verdict(ev))
        words.append(_say("robust_word", **said))
    text = _say("robust", words="; ".join(words)) if words else _say("robust_none")
    r.glue(v24_robust=text)
    a = r.v24["drops"]["relu"][:, k24]
    a, outlier = a[np.isfinite(a)], ""
    if a.size > 2:  # without the single earliest ReLU run
        sd, sd1 = a.std(ddof=1), np.delete(a, np.argmin(a)).std(ddof=1)
        carries = _say("outlier_one" if sd1 < 0.75 * sd else "outlier_none")
        said = dict(drop=names[k24], first=a.min(), sd=sd, sd1=sd1, carries=carries)
        outlier = _say("outlier", **said)
    r.glue(v24_outlier=outlier)
    return out


def _authors_variants(r, ev24) -> dict:
    """The ``seeds`` variants of the authors' own script runs, and their glue."""
    a, names, m, r.authors_note = r.authors, r.names24, r.n24, ""
    if a is None:
        r.glue(auth_reading=_say("authors_none"))
        return {}
    n, k, kw, pc = a["n"], a["k"], a["k_worst"], a["percentile"]

    def at(j):  # the scripts' evidence at drop j, and the words that read it
        v, e = a["scatter"][j]
        ev = ev24.but(value=float(v), spread=float(e), spread_interval=None)
        ev = ev.but(variants=None)
        sd = dict(sd_relu=a["sd"]["relu"][j], sd_gdln=a["sd"]["gdln"][j])
        return ev, dict(drop=names[j], ratio=np.exp(v), verdict=rb.verdict(ev), **sd)

    ev, said = at(k)
    r.authors_note = (
        f"; the authors' {n} + {n} script runs: ratio {said['ratio']:.2f} at "
        f"{names[k]}, above {pc:.1f} % of the engine's subsets of as many seeds"
    )
    runs = f"the authors' own {n} + {n} script runs (book/authors_runs)"
    above = f"above {pc:.0f} % of the engine's {n} + {n} subsets"
    out = {f"{runs}, drop {names[k]}: ratio {said['ratio']:.2g}, {above}": ev}
    what = "what as many of the engine's seeds give"
    sit = f"in the low tail of {what}, not outside it" if pc < 10 else f"within {what}"
    seeds = ", ".join(str(s) for s in a["entry"].get("seeds", []))
    text = _say("authors_reading", **said, n=n, seeds=seeds, m=m, pc=pc, sit=sit)
    if kw is not None and kw != k:  # at their own worst drop, as every profile is read
        ev, said = at(kw)
        worst = f"the authors' {n} + {n} runs at their own worst drop {names[kw]}"
        out[f"{worst}: ratio {said['ratio']:.2g}"] = ev
        text += _say("authors_worst", **said)
    r.glue(auth_reading=text)
    return out


def _rounding(r):
    """The glue of the rounding floor (same initial weights, other sums)."""
    fl, n_rd, mx, sd24 = r.floor, len(r.rd_entry["seeds"]), r.floor["max"], r.v24["sd"]
    f = float(fl["sd"][-1])
    s_r, s_g = float(sd24["relu"][-1]), float(sd24["hand"][-1])
    limit = float(np.exp(rb.NOISE_MULTIPLE * float(r.v24["scatter_bs"][-1][0])))
    with np.errstate(invalid="ignore"):
        left = np.sqrt(s_r**2 - f**2) / s_g
        need = np.sqrt(s_r**2 - (limit * s_g) ** 2)
    per_seed = float(r.rd_entry.get("seconds", float("nan"))) / 60 / n_rd
    alike = _say("floor_alike")
    if np.isfinite(need):
        alike = _say("floor_alike_needs", limit=limit, need=need, f=f)
    cost = _say("floor_cost", per_seed=per_seed) if np.isfinite(per_seed) else ""
    words = dict(share=(f / s_r) ** 2, left=left, alike=alike, n_rd=n_rd, cost=cost)
    diffs = {k: ", ".join(f"{d:+.0f}" for d in fl["diff"][k][:, -1]) for k in mx}
    last = "; ".join(f"{k}: {d}" for k, d in diffs.items())
    early = float("nan")
    if fl["sd"].size > 1:
        early = float(max(np.nanmax(mx[k][:-1]) for k in mx))
    r.rd_n = n_rd  # for the verdict's note
    r.glue(rd_command=r.rd_entry["command"], rd_last=last)
    r.glue(rd_sd_last=f, rd_max_last=float(max(np.nanmax(mx[k][-1:]) for k in mx)))
    r.glue(rd_max_early=early, rd_sd_gdln_last=s_g)
    r.glue(rd_reading=_say("floor_reading", **words, n2=2 * n_rd), rd_sd_relu_last=s_r)


def _gating(r):
    """The ReLU runs' gating series, verdicts per record and layers over training."""
    relu, grid, S, nan = r.relu, r.relu.grid, r.S, float("nan")
    vars(r).update(gating.gating_series(relu), grid=grid, nn=relu.non_nested)
    strict1, lin1, lin2, single, mixed = r.strict1, r.lin1, r.lin2, r.single, r.mixed
    ph = gating.phase_means(relu, r.in_phase)
    vars(r).update({f"{k}_ph": v for k, v in ph.items()})
    r.v_lin_at = gating.smaller_by_epoch(lin1, lin2, grid)
    r.v_mix_at = gating.smaller_by_epoch(single, mixed, grid)
    r.alt1, r.snap_med = med(strict1[:, 0]), np.median(relu.snap_all, axis=0)
    near = {"compared": 1.0, "alternative": r.alt1, "criterion": "near"}
    v = [rb.verdict(Evidence(med(x), spread=seed_spread(x), **near)) for x in strict1.T]
    k_pre = plateau_record(relu, r.levels[1])  # the first plateau
    r.ok_pre, r.pre = k_pre >= 0, (np.flatnonzero(k_pre >= 0), k_pre[k_pre >= 0])
    pre, has_pre = r.pre, r.ok_pre.any()
    # "late": once a run's loss is below half its initial value
    r.t_half = np.array([level_times(L, (0.5,))[0] for L in relu.loss])
    late = grid[None, :] >= r.t_half[:, None]
    r.single_late = np.array([single[k, late[k]].mean() for k in range(S)])
    # each run's always-on phase: from the first record with layer 1's always-on
    # share above 1/2 to the first after its maximum where it is below 1/2 again
    t_fall = []
    for row in strict1:
        k0 = int(np.argmax(row))
        after = np.flatnonzero(row[k0:] < 0.5)
        t_fall.append(grid[k0 + after[0]] if after.size else np.nan)
    r.t_fall = t_fall = np.array(t_fall, float)
    t_rise = np.array([grid[np.argmax(x >= 0.5)] for x in strict1], float)
    on = [(grid >= t_rise[k]) & (grid <= t_fall[k]) for k in range(S)]
    r.before_fall = np.array([np.nanmax(lin1[k, on[k]]) for k in range(S)])
    r.glue(l1_strict_end=med(strict1[:, -1]), l1_strict_init=med(strict1[:, 0]))
    r.glue(l1_strict_pre=med(strict1[pre]) if has_pre else nan)
    r.glue(l1_lin_pre=100 * med(lin1[pre]) if has_pre else nan)
    r.glue(pre_level=float(r.levels[1]) if r.levels.size > 1 else nan)
    r.glue(l1_fall=med(t_fall))
    r.glue(l1_fall_range=f"{np.nanmin(t_fall):.0f}–{np.nanmax(t_fall):.0f}")
    r.lin1_end, r.lin2_end = e1, e2 = med(lin1[:, -1]), med(lin2[:, -1])
    r.glue(l1_lin_end=100 * e1, l2_lin_end=100 * e2, l12_ratio=e2 / e1)
    r.glue(l1_lin_loss=med(relu.linear_l1_loss[:, -1]))
    r.glue(final_loss=med(relu.loss[:, -1]))
    r.glue(l1_lin_before_fall=100 * med(r.before_fall), l1_rise=med(t_rise))
    r.glue(l1_itemdep=med(relu.item_dependent[:, -1, 0]))
    r.glue(l1_holds=epoch_ranges(grid, np.array(v) == "reproduced"))
    r.glue(l1_partly=epoch_ranges(grid, np.array(v) == "partly reproduced"))
    r.glue(l1_lin_ok=epoch_ranges(grid, np.median(lin1, axis=0) <= rb.PHASE_SNAP))
    r.glue(f2_common_end=med(relu.functional("common")[:, -1]))
    r.glue(f2_mixed_end=med(mixed[:, -1]), f2_single_end=med(single[:, -1]))
    r.glue(snap2_end=100 * med(r.snap2[:, -1]))
    r.glue(snap2_late=100 * med([r.snap2[s, late[s]].mean() for s in range(S)]))
    lo, hi = r.single_late.min(), r.single_late.max()
    r.glue(single_late=med(r.single_late), single_late_range=f"{lo:.2f}–{hi:.2f}")
    r.glue(t_half=med(r.t_half), w2_single_end=med(relu.share(1, "single")[:, -1]))
    w2_cm = relu.share(1, "common")[:, -1] + relu.share(1, "mixed")[:, -1]
    r.glue(w2_cm_end=med(w2_cm), l2_itemdep=med(relu.item_dependent[:, -1, 1]))
    end = Evidence(med(single[:, -1]), compared=med(mixed[:, -1]), criterion="smaller")
    r.glue(clearly=rb.CLEARLY, v_l2_end=rb.verdict(end))
    _phase(r)
    _windows(r)


def _phase(r):
    """Rule 3's phase and Lemma 4.1 in layer 2 within it, glued."""
    grid, phase, single, mixed = r.grid, r.phase, r.single, r.mixed
    s_ph, m_ph = r.single_ph, r.mixed_ph
    k_end = int(np.flatnonzero(r.in_phase)[-1])
    r.glue(phase=f"{phase[0]}–{phase[1]}", phase_snap=rb.PHASE_SNAP)
    r.glue(snap_all_end=100 * med(r.relu.snap_all[:, -1]))
    r.glue(l1_strict_phase=med(r.strict1_ph))
    r.glue(l1_strict_phase_end=med(r.strict1[:, k_end]))
    r.glue(f2_single_phase=med(s_ph), f2_mixed_phase=med(m_ph))
    r.glue(f2_single_phase_end=med(single[:, k_end]))
    r.glue(f2_mixed_phase_end=med(mixed[:, k_end]))
    by_epoch = [verdicts_over_training(v, grid) for v in (r.v_mix_at, r.v_lin_at)]
    r.glue(l2_by_epoch=by_epoch[0], lin_by_epoch=by_epoch[1])
    r.glue(l1_lin_phase=100 * med(r.lin1_ph), l2_lin_phase=100 * med(r.lin2_ph))
    r.glue(lin_iv=_iv(ratio_interval(r.lin1_ph, r.lin2_ph)))
    nn = r.nn  # the weight in non-nested units (layer 1: 0 by construction)
    r.glue(nn1_max=float(np.nanmax(nn[:, :, 0])), nn2_end=med(nn[:, -1, 1]))
    r.glue(nn2_end_max=float(np.nanmax(nn[:, -1, 1])))
    r.glue(nn2_max_after=float(np.nanmax(nn[:, grid > phase[1], 1])))
    r.glue(nn2_zero=epoch_ranges(grid, np.all(nn[:, :, 1] == 0, axis=0)))
    r.glue(nn2_zero_med=epoch_ranges(grid, np.median(nn[:, :, 1], axis=0) == 0))
    r.glue(nn2_init=med(nn[:, 0, 1]))


def _windows(r):
    """Per window the readings and the claims' evidence: the primary window is where
    context gating exists (rule 5, [rulebook-structure]), the others are variants."""
    relu, grid, phase, exists, nan = r.relu, r.grid, r.phase, r.exists, float("nan")
    weight = gating.context_weight_window(relu)
    first_plateau, last = np.zeros_like(exists), np.zeros_like(exists)
    first_plateau[r.pre], last[:, -1] = True, True
    r.primary = f"where context gating exists (loss below {float(r.L_rank[-1]):.0f})"
    in_phase = np.broadcast_to(r.in_phase, exists.shape)
    masks = {
        r.primary: exists,
        f"rule 3's phase ({phase[0]}-{phase[1]})": in_phase,
        "the context classes' weight above its initial value": weight,
        f"the end of training (epoch {int(grid[-1])})": last,
    }
    fp = f"the first plateau (loss {r.levels[1]:.0f})" if r.ok_pre.any() else None
    if fp:
        masks[fp] = first_plateau
    r.chance = chance = gating.chance_ratio(relu)
    r.read = {w: gating.window_reading(relu, m) for w, m in masks.items()}
    ev = {
        w: {
            "layer1_always_on": _share_near(x["strict1"], r.alt1),
            "layer1_linear": gating.smaller(x["lin1"], x["lin2"]),
            "layer2_mixed": gating.smaller(x["ratio"], chance),
        }
        for w, x in r.read.items()
    }
    r.ev, x = ev[r.primary], r.read[r.primary]
    r.windows = {
        k: {w: ev[w][k] for w in masks if w != r.primary and ev[w][k] is not None}
        for k in r.ev
    }
    first_pass = "none: single-context against 2-of-3 units' own share (the first pass)"
    fp1 = gating.smaller(x["single"], x["mixed"])
    r.windows["layer2_mixed_baseline"] = {first_pass: fp1} if fp1 is not None else {}
    t_exists = [grid[np.argmax(row)] if row.any() else np.nan for row in exists]
    r.t_exists = t_exists = np.array(t_exists, float)
    y = r.read.get(fp)
    r.fp_ratio = med(y["lin1"] / y["lin2"]) if fp else nan
    r.glue(rule5=rb.STRUCTURE_RULE, L_common=float(r.L_rank[-1]))
    r.glue(exists_from=med(t_exists))
    r.glue(exists_range=f"{np.nanmin(t_exists):.0f}–{np.nanmax(t_exists):.0f}")
    r.glue(n_exists=f"{int(exists.any(axis=1).sum())} of {r.S}")
    r.wm = m = {k: med(v) for k, v in x.items()}  # medians in the primary window
    r.glue(w_strict1=m["strict1"], w_lin1=100 * m["lin1"], w_lin2=100 * m["lin2"])
    r.glue(w_single=m["single"], w_mixed=m["mixed"], w_ratio=m["ratio"])
    r.glue(w_ratio_range=_range(x["ratio"]), w_snap_all=100 * m["snap_all"])
    r.glue(w_snap2=100 * m["snap2"], chance=med(chance))
    r.glue(chance_range=_range(chance), fp_lin1=100 * med(y["lin1"]) if fp else nan)
    r.glue(fp_lin2=100 * med(y["lin2"]) if fp else nan, fp_lin_ratio=r.fp_ratio)


def _share_near(v, alternative):
    """Per-seed shares ``v`` against the bound 1 (None for fewer than 2 seeds)."""
    v = np.asarray(v, float)[np.isfinite(v)]
    return share_at_bound(v, alternative) if v.size >= 2 else None


def _range(v) -> str:
    v = np.asarray(v, float)[np.isfinite(v)]
    return f"{v.min():.2f}–{v.max():.2f}" if v.size else "none"


def _iv(iv) -> str:
    return "none" if iv is None else f"{iv[0]:.2f}–{iv[1]:.2f}"


def _schedule(r):
    """The glue of the derived schedule and of its runs."""
    relu, gh, gd, info, derived = r.relu, r.gh, r.gd, r.info, r.derived
    theta, dc, mixed = r.appear_threshold, r.dc, info["relu_appear_mixed"]

    def appear(runs, th):
        masses = runs.class_mass(1, "mixed")
        return np.array([appearance_epoch(m, runs.grid, th) for m in masses])

    gap_same_seed = [time_gap(gh.loss[k], gd.loss[k]) for k in range(len(gd.seeds))]
    app_d = appear(gd, theta)
    lag_d = med(app_d) - derived.context
    st_all = [s.start for s in r.checks.values()]
    worse = dc["m_derived"].value > dc["m_hand_same"].value
    r.glue(theta=theta, m_init_relu=med(relu.total[:, 0, 1]))
    r.glue(m_init_gdln=med(gh.total[:, 0, 1]), m_end_relu=med(relu.total[:, -1, 1]))
    r.glue(m_end_gdln=med(gh.total[:, -1, 1]))
    keys = ("relu_appear_common", "relu_appear_mixed", "lag_common", "lag_context")
    r.glue(**{k: float(info[k]) for k in keys})
    r.glue(derived_start=derived.start, derived_context=derived.context)
    r.glue(start_range=f"{min(st_all)}–{max(st_all)}")
    r.glue(gap_stereo_derived=dc["gap_stereo"], gap_runs_derived=dc["m_derived"].value)
    r.glue(gap_runs_hand_same=dc["m_hand_same"].value, gap_same_seed=med(gap_same_seed))
    r.glue(n_derived=len(gd.seeds), fit_word="worse" if worse else "no worse")
    r.glue(lag_derived=lag_d, appear_derived=med(app_d), appear_gap=mixed - med(app_d))
    r.glue(t_fixed=int(100 * round((mixed - lag_d) / 100)))
    # how long the 2-of-3 class takes to grow tenfold past its appearance
    for key, runs in [("relu", relu), ("hand", gh), ("derived", gd)]:
        r.glue(**{f"rise_{key}": med(appear(runs, 10 * theta) - appear(runs, theta))})


def _outputs(r):
    """The glue of the outputs at the plateaus, and ``plateau_outputs``' evidence."""
    worst, rows, po, name, relu = r.worst, r.init_rows, r.po, INIT_NAME, r.relu
    lv, m_out = worst[0], po["matches"]
    m_worst = m_out[lv]
    # each initialisation's output gap to the ReLU runs at the judged plateau
    Or_w = plateau_outputs(relu.loss, relu.grid, relu.outputs, lv)
    for c in rows:
        Oi = plateau_outputs(r.init_loss[c], relu.grid, r.init_out[c], lv)
        rows[c]["plateau_output_gap"] = med(output_gap(Or_w, Oi))
    limit = rb.NOISE_MULTIPLE * m_worst.spread
    r.within = [i for i, x in rows.items() if x["plateau_output_gap"] <= limit]
    r.cand = [g for g in po["gaps"] if g[0] in m_out and m_out[g[0]].spread > 0]
    first = max(po["gaps"], key=lambda g: g[0])  # the rank-one map's plateau
    r.relu_only = relu_only = [g for g in po["gaps"] if not g[1]]
    reading = _say("init_within_none")
    if r.within:
        inits = " and ".join(INIT_NAME[i] for i in r.within)
        reading = "" if r.init in r.within else _say("init_within", inits=inits)
    only = _say("relu_only_none")
    if relu_only:
        levels = ", ".join(f"{g[0]:.0f}" for g in relu_only)
        gap, L_rank2 = max(g[2] for g in relu_only), float(r.L_rank[1])
        only = _say("relu_only", levels=levels, gap=gap, L_rank2=L_rank2)
    gaps = [f"{name[i]}: {x['plateau_output_gap']:.2g}" for i, x in rows.items()]
    r.glue(out_init_reading=reading, out_init="; ".join(gaps))
    r.glue(out_worst_level=lv, out_worst_gap=worst[2])
    r.glue(out_worst_spread=worst[3], out_worst_gdln=worst[4])
    r.glue(out_worst_yard=m_worst.spread)
    r.glue(out_worst_iv="{:.2g}–{:.2g}".format(*m_worst.spread_interval))
    r.glue(out_max=max(g[2] for g in r.cand), out_first_level=first[0])
    f_ = f"ReLU-GDLN {first[2]:.2g}, ReLU-ReLU {first[3]:.2g}, GDLN-GDLN {first[4]:.2g}"
    r.glue(out_first=f_, L_rank1_cut=float(r.L_rank[0]))
    r.glue(verdict_out=rb.verdict(m_worst), out_relu_only=only)
    # the variants: the other shared plateaus, and the other initialisations at the
    # judged plateau (their gap against the same yardstick)
    others = {name[i]: x["plateau_output_gap"] for i, x in rows.items() if i != r.init}
    plateaus = {f"the plateau at {x:.1f}": m for x, m in m_out.items() if x != lv}
    r.ev_out = _sorted_variants(m_worst, init=others, window=plateaus)


def _costs(r):
    """The glue of the other coupling, and of the runs' cost."""
    runs, n, L_ow = [r.relu, r.gh, r.gd], r.coupling_seeds, r.L_ow
    n_runs = sum(len(x.seeds) for x in runs)
    per_wall = sum(x.seconds for x in runs) / n_runs
    per_cpu = sum(x.cpu_seconds for x in runs) / n_runs
    paper_runs = sum(paper_profile_runs().values())
    P, w = r.ds.P, int(r.relu.net.sizes[1])
    m_same = compare.match_runs(r.relu.loss, r.gh.loss[: max(n, 1)])
    final = "not run"
    if L_ow is not None:
        final = ", ".join(f"{x:.2g}" for x in L_ow[:, -1])
    r.glue(other_coupling=r.other_coupling, gap_oneway=med(r.gap_ow))
    r.glue(gap_oneway_relu=r.m_ow.value if r.m_ow is not None else float("nan"))
    r.glue(n_oneway=n, gap_runs_same_ow=m_same.value, final_oneway=final)
    r.glue(final_main_same=", ".join(f"{x:.2g}" for x in r.gh.loss[:n, -1]))
    r.glue(n_runs=n_runs, per_seed_wall=per_wall, per_seed_cpu=per_cpu)
    r.glue(paper_runs=paper_runs, paper_min_cpu=paper_runs * per_cpu / 2 / 60)
    r.glue(paper_min_wall=paper_runs * per_wall / 60)
    r.glue(flop=2 * 3 * r.epochs * P * (11 * w + w * w + w * 60) / 1e12)


def _sorted_variants(ev, **settings):
    """``ev`` varied by each choice in ``settings`` and ``seeds``, in name order."""
    settings["seeds"] = settings.get("seeds") or rb.seed_variants(ev)
    for choice in sorted(c for c, x in settings.items() if x):
        ev = ev.varied(choice, settings[choice])
    return ev


def _windowed(r, key: str, criterion: str, epochs: dict, **windows):
    """``key``'s evidence in the primary window (NaN: no run reaches it), with
    ``epochs``, rule 3's phase and the variants."""
    ev = r.ev[key] or Evidence(float("nan"), compared=1.0, criterion=criterion)
    ev = ev.but(epochs=epochs, phase=list(r.phase))
    return _sorted_variants(ev, window=r.windows[key], **windows)


def _section4_reference(rec) -> float:
    """The Section 4 network's single-context to 2-of-3 ratio; NaN if missing."""
    try:  # no directory: None / "contexts.json", a TypeError
        path = getattr(rec, "directory", None) / "contexts.json"
        at = json.loads(path.read_text())["census_over_training"]["value"]
        at = at[max(at, key=int)]
        return float(at["single"]) / float(at["mixed"])
    except (OSError, LookupError, TypeError, ValueError, ArithmeticError):
        return float("nan")


def _records(rec, r) -> dict:
    """Add the chapter's records; glue the gating verdicts."""
    ref = _section4_reference(rec)
    shares, story, epochs_lin, epochs_mix = {}, {}, {}, {}
    for k, e in enumerate(int(e) for e in r.grid):
        shares[e], m1, m2 = (med(a[:, k]) for a in (r.strict1, r.lin1, r.lin2))
        epochs_lin[e] = {"layer1": m1, "layer2": m2, "verdict": r.v_lin_at[e]}
        single, mixed, snap = med(r.single[:, k]), med(r.mixed[:, k]), r.snap_med[k]
        epochs_mix[e] = dict(single=single, mixed=mixed, snap_change=float(snap))
        epochs_mix[e]["verdict"] = r.v_mix_at[e]
        if e % 2500 == 0:
            story[f"{e:05d}"] = {"always_on": shares[e], "linear_change": m1}
    ev_lin = _windowed(r, "layer1_linear", "smaller", epochs_lin)
    base = {"baseline": r.windows["layer2_mixed_baseline"]}
    ev_mix = _windowed(r, "layer2_mixed", "smaller", epochs_mix, **base)
    others = {
        f"{INIT_NAME[i]} ({r.init_rows[i]['seeds']} seeds)": ev
        for i, ev in r.init_evidence.items()
        if i != r.init
    }
    switch = Evidence(r.derived.as_list(), compared=r.hand.as_list())
    evidence = [
        ("layer1_always_on", _windowed(r, "layer1_always_on", "near_bound", shares)),
        ("layer1_linear", ev_lin),
        ("layer1_over_training", story),
        ("layer2_mixed", ev_mix),
        ("layer2_single_context", med(r.single_late)),
        ("gap_relu_gdln_stereotypes", _sorted_variants(r.m_stereo, init=others)),
        ("init_sensitivity", r.init_rows),
        ("variance_profile", r.ev_var),
        ("plateau_outputs", r.ev_out),
        ("switch_epochs_derived", switch),
    ]
    v = _note_values(r, ref)
    recs = kit.add_all(rec, [(n, e, v) for n, e in evidence])
    chance = f"{ref:.2f} ({ref / med(r.chance):.2f} times this network's chance)"
    if not np.isfinite(ref):
        chance = "(not available: the Section 4 page's records are missing)"
    verdict = {k: x["verdict"] for k, x in recs.items()}
    r.glue(v_always=verdict["layer1_always_on"], v_linear=verdict["layer1_linear"])
    r.glue(v_mixed=verdict["layer2_mixed"], w_lin_iv=_iv(ev_lin.ratio_interval))
    r.glue(w_mixed_iv=_iv(ev_mix.ratio_interval), sec4_ratio=chance)
    _review(r, ref)
    return recs


def _note_values(r, ref: float) -> dict:
    """The values the records' notes are filled from (``ref``: the Section 4 ratio)."""
    sd24, k24 = r.v24["sd"], r.v24["k"]
    v = {**vars(r), **r.glue, **r.wm, "p0": r.phase[0], "p1": r.phase[1]}
    v["w"] = (
        f"{r.primary}: per seed the records with loss below the common-only level, "
        f"from epoch {med(r.t_exists):.0f} (median) on"
    )
    v.update(lin1_ph=med(r.lin1_ph), lin2_ph=med(r.lin2_ph))
    falls = ", ".join(f"{t:.0f}" for t in r.t_fall)
    v.update(before_fall=med(r.before_fall), falls=falls)
    v.update(ref=f"{ref:.3f}" if np.isfinite(ref) else "(not available)")
    v.update(lo=r.single_late.min(), hi=r.single_late.max())
    v.update(sd_relu=sd24["relu"][k24], sd_gdln=sd24["hand"][k24])
    per_drop = zip(r.v24["scatter"], r.verdict24)  # ((log ratio, se), verdict)
    v["per_drop"] = ", ".join(f"{np.exp(q):.2f} ({vd})" for (q, _), vd in per_drop)
    v["shape"] = "the same" if r.same_order else "not the same"
    v["commit"] = r.big_entry.get("commit", "unknown")
    plateaus = [f"{x[0]:.0f}: {x[2]:.4f} / {x[3]:.4f} / {x[4]:.4f}" for x in r.cand]
    only = ", ".join(f"{x[0]:.0f}: {x[2]:.3f}" for x in r.relu_only)
    v.update(per_plateau="; ".join(plateaus), relu_only=only or "none")
    v["thresholds"] = ", ".join(f"{q:g}: {s.as_list()}" for q, s in r.checks.items())
    return v


def _review(r, ref):
    """Where the external review of the first pass (2026-11-26) was right and not."""
    x, phase, every, fp = r.read[r.primary], r.phase, r.record_every, r.fp_ratio
    others = _range([med(v["ratio"]) for w, v in r.read.items() if w != r.primary])

    def ratio(a, b):  # the two layers' window means over epochs a to b
        m = (r.grid >= a) & (r.grid <= b)
        return med(gating.window_mean(r.lin1, m)) / med(gating.window_mean(r.lin2, m))

    ph, ph_late = ratio(phase[0], phase[1]), ratio(phase[0] + every, phase[1])
    plateau_on = ratio(5000, phase[1] + every)
    moved = abs(ph - ph_late) > 0.2 * max(ph, 1e-12)
    plateau = "review_plateau_linear" if fp > rb.CLEARLY else "review_plateau_small"
    window = dict(ph=ph, ph_late=ph_late, plateau_on=plateau_on, fp=fp)
    window.update(edge=_say("review_edge") if moved else "", plateau=_say(plateau))
    s4 = f"{ref:.2f}." if np.isfinite(ref) else "not available."
    window["ratio"] = med(x["lin1"] / x["lin2"])
    base = dict(chance=med(r.chance), network=r.wm["ratio"], s4=s4, others=others)
    r.glue(review_window=_say("review_window", **window))
    r.glue(review_baseline=_say("review_baseline", **base))


def _summary(r, recs) -> str:
    """The closing table (the TOML's ``summary`` and ``summary_quote``)."""
    where = f"where context gating exists, loss below {float(r.L_rank[-1]):.0f}"
    return kit.summary("depth", recs, where=where, n=r.n24)


def _in_short(r, recs) -> str:
    """The page's closing paragraph: the ReLU network's gating, then the GDLN."""
    verdict = {k: v["verdict"] for k, v in recs.items()}
    hand, derived = r.hand, r.derived
    values = {**r.wm, "strict1_pre": med(r.strict1[r.pre])}
    values["snap2"] = med(r.snap2[:, -1])
    gating_ = _say("in_short_gating", **r.glue, **verdict, **values)
    authors = r.stuck and r.made == ["authors"]
    words = dict(
        scales=_say("in_short_scales_authors" if authors else "in_short_scales")
    )
    words["noise"] = ""
    if r.within and r.init not in r.within:
        inits = " or ".join(INIT_NAME[i] for i in r.within)
        words["noise"] = _say("in_short_noise", inits=inits)
    near = abs(derived.start - hand.start) <= 200
    far = abs(derived.context - hand.context) > 500
    words.update(start="matches" if near else "differs from", hand=hand)
    words.update(ctx="differs from" if far else "agrees with")
    return gating_ + _say("in_short_gdln", **r.glue, **verdict, **words)


def _check(r, recs) -> str:
    """The headline numbers as text (the page prints them; nbval compares them)."""
    lines = [
        "layer1_always_on          = {w_strict1:.2f} (context gating exists)",
        "layer1_linear             = {lin1:.3f} vs {lin2:.2f}",
        "layer2_mixed (ratio)      = {w_ratio:.2f} vs chance {chance:.2f}",
        "layer2_single_context     = {single_late:.2f}",
        "gap_relu_gdln_stereotypes = {gap_stereo:.2f} (spread {spread_both:.2f})",
        "variance_profile          = {v24_ratio:.1f} ({v24_n} seeds)",
        "plateau_outputs           = {out_worst_gap:.3f} (spread {out_worst_yard:.3f})",
        "switch_epochs_derived     = {switch} (to the nearest 500)",
        "verdicts                  = ",
    ]
    switch = [int(500 * round(t / 500)) for t in r.derived.as_list()]
    text = "\n".join(lines).format(**r.glue, **r.wm, switch=switch)
    names = ("layer1_always_on", "layer1_linear", "layer2_mixed")
    names += ("gap_relu_gdln_stereotypes", "variance_profile", "plateau_outputs")
    return text + ", ".join(recs[n]["verdict"] for n in names)
