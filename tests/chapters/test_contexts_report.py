"""The records, glue and tables of the contexts chapter
(helpers.chapters.contexts.report), from the chapter's own science run on a shrunk
config (two seeds, 1200 epochs, a narrower ReLU network): every registered record, the
rulebook's verdicts, the variants of every paper claim, every glue name the page
cites."""

import importlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

import helpers as h
from helpers.book import kit
from helpers.book.records import Records
from helpers.chapters import contexts as ch
from helpers.core import measures
from helpers.core.paper import CONTEXTS as PAPER
from helpers.core.relns import INITS
from tests.chapters.records_check import check_records

#: The page's science on a shrunk setting still compiles many networks (20-70 s
#: on 2 cores): the full test command runs it, the quick unit subset does not.
pytestmark = pytest.mark.slow

report_module = importlib.import_module("helpers.chapters.contexts.report")
PAGE = Path(__file__).resolve().parents[2] / "book" / "contexts.md"
SMALL = dict(
    seeds=2, epochs=1200, lr=PAPER.lr, relu_width=200, relu_std=PAPER.relu_std,
    record_every=200, show_epochs=[400, 800, 1200], head_start_epoch=600,
    authors_overlap=PAPER.authors_overlap, authors_a0_common=PAPER.authors_a0_common,
    authors_a0_context=list(PAPER.authors_a0_context), census_thresholds=[0.25, 0.5],
    control_draws=3, init="authors",
)  # fmt: skip


def _train(p, task):
    """The page's runs at the shrunk scale: the ReLU network, the ReLNs of Fig. 4a
    and their predictions, the family under every init, the residual races."""
    ds, fit = task.ds, dict(lr=p.lr, epochs=p.epochs, seeds=p.seed_list)
    sizes = (ds.X.shape[0], p.relu_width, ds.Y.shape[0])
    relu_net = h.relu_network(sizes, p.relu_std)
    what = ("weights", "gates", "hidden", "outputs")
    relu = h.train(relu_net, ds.X, ds.Y, record_epochs=p.t_rec, record=what, **fit)

    def start(kind, coupling, choice):
        return h.relns.start(
            h.context_reln(ds, kind, coupling), choice, p.seed_list,
            experiment="contexts", relu_net=relu_net, relu_std=p.relu_std, X=ds.X,
            contexts=ds.contexts,
        )  # fmt: skip

    relns, preds = ch.comparisons.train_relns(
        start, p.init, ds.X, ds.Y, record_epochs=p.t_rec, **fit
    )

    def family(choice):
        net = {k: start(k, "one-way", choice) for k in ch.comparisons.STRATEGIES}
        return {k: h.train(n, ds.X, ds.Y, params0=p0, **fit).loss
                for k, (n, p0) in net.items()}  # fmt: skip

    curves = {c: family(c) for c in INITS}
    resid = {}
    for on, label in [(task.C - 1, "2-of-3"), (1, "single")]:
        net = h.gdln(ds.X.shape[0], ds.Y.shape[0], ds.P, h.context_pathways(ds, on))
        resid[label] = h.train(net, ds.X, task.R_star, **fit).loss
    return relu, relns, preds, curves, resid


def _measure(p, task, relu, relns, preds, curves, resid):
    """What the page measures of the runs, by the chapter's named functions."""
    reln, single = relns["both/one-way"], relns["single/one-way"]
    run_m, pred_m = relns["mixed/one-way"], preds["mixed/one-way"]
    svs = ch.comparisons.pathway_values(reln, preds["both/one-way"], p.t_rec, task.C)
    consts = ch.predictions.race_constants(
        task, run_m, pred_m, p.t_rec, lr=p.lr, head_start_epoch=p.head_start_epoch
    )
    variants = ch.predictions.variants(
        task, consts, overlap=p.authors_overlap, epoch=p.head_start_epoch,
        a0_common_authors=p.authors_a0_common, a0_authors=p.authors_a0_context,
    )  # fmt: skip
    race_py = ch.predictions.authors_race(task, lr=p.lr, epochs=p.epochs)
    return dict(
        losses=ch.comparisons.compare_losses(relu, relns, preds, curves, p.init),
        outputs=ch.comparisons.compare_outputs(relu, reln, single, p.show_epochs),
        svs=svs,
        reps=ch.representations.compare_representations(
            relu, reln, single, p.show_epochs, p.t_rec
        ),
        gating=ch.gating.gating_summary(
            relu,
            reln,
            single,
            task.net_single,
            task.ds,
            t_rec=p.t_rec,
            thresholds=p.census_thresholds,
            draws=p.control_draws,
        ),  # fmt: skip
        race=ch.comparisons.race_norms(reln, preds["both/one-way"], svs, resid),
        consts=consts,
        ladder=ch.predictions.prediction_ladder(
            task,
            variants,
            race_py,
            relu,
            reln,
            run_m,
            pred_m,
            lr=p.lr,
            epochs=p.epochs,
            overlap=p.authors_overlap,
        ),  # fmt: skip
    )


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    glued = {}
    mp = pytest.MonkeyPatch()
    # a short bootstrap: the intervals' numbers do not matter here, only their use
    mp.setitem(measures.BOOTSTRAP, "resamples", 40)
    record = lambda name, value, **kw: glued.setdefault(name, value)  # noqa: E731
    mp.setattr(kit, "glue", record)
    try:
        p = ch.task.Params(**SMALL)
        task = ch.task.facts(h.contextual_task(3, ["hierarchy", "ring", "cross"]))
        relu, relns, *rest = _train(p, task)
        m = _measure(p, task, relu, relns, *rest)
        d = tmp_path_factory.mktemp("records")
        tables = ch.report(Records("contexts", directory=d), p, task, relu, relns, **m)
    finally:
        mp.undo()
    saved = json.loads((d / "contexts.json").read_text())
    return m, tables, saved, glued


def test_every_registered_record_is_written_with_the_rulebooks_verdict(written):
    _, _, saved, _ = written
    for name, claim in check_records("contexts", saved).items():
        if claim["kind"] == "paper":
            assert set(saved[name]["depends_on"]) <= set(claim["choices"]), name


def test_the_numbers_are_the_measures(written):
    m, tables, saved, glued = written
    L = m["losses"]
    assert saved["gap_relu_reln"]["value"] == pytest.approx(L.m_reln.value, rel=1e-5)
    assert L.m_reln.value > 0
    assert saved["gap_relu_singles"]["criterion"] == "beyond_noise"
    assert saved["single_context_share"]["paper"] == 0.0
    fc = m["gating"].fc["single"]
    assert saved["single_context_share"]["value"] == pytest.approx(
        np.median(fc[:, m["gating"].r_last]), rel=1e-5
    )
    assert saved["output_gap"]["value"] == pytest.approx(
        m["outputs"].match.value, rel=1e-5
    )
    assert saved["gap_oneway_coupled"]["value"] == pytest.approx(
        L.gaps["ow_full"], rel=1e-5
    )
    inits = {v["setting"] for v in saved["gap_relu_reln"]["variants"]["init"]}
    assert inits == set(INITS) - {"authors"}
    assert glued["contexts_seeds"] == 2 and glued["contexts_epochs"] == 1200
    assert glued["contexts_race_gap"] == pytest.approx(m["ladder"].m_race.value)
    assert "ReLU loss follows the 7-pathway ReLN" in tables["summary"]
    assert tables["headline"].startswith("gap_relu_reln")


def test_both_readings_and_the_ablation_control_are_recorded(written):
    m, _, saved, glued = written
    g = m["gating"]
    share = saved["single_context_share"]
    (literal,) = share["variants"]["definition"]
    one = np.median([d["one_context_only"] for d in g.strict])
    assert literal["value"] == pytest.approx(one, rel=1e-5)
    assert f"{one:.3g}" in literal["setting"] and f"{one:.3g}" in share["note"]
    ab = saved["single_context_ablation"]["value"]
    ctl = [d["ablated"] for d in g.control]
    assert ab["control_median"] == pytest.approx(np.median(ctl), rel=1e-3)
    assert ab["seeds"] == 2 and ab["draws"] == 3
    assert glued["contexts_ctl_reading"].startswith("Removing the single-context")


def test_ablation_reading_follows_the_numbers():
    base = dict(draws=5, seeds=4, ratio_min=0.5, ratio_max=0.9, ratio_median=0.7)
    low = report_module.ablation_reading(
        {**base, "seeds_above_median": 0, "seeds_above_every_draw": 0}
    )
    assert "less than the median random set in each of the 4 seeds" in low
    assert "matter less" in low
    mixed = report_module.ablation_reading(
        {
            **base,
            "ratio_median": 1.2,
            "seeds_above_median": 2,
            "seeds_above_every_draw": 0,
        }
    )
    assert "in 2 of the 4 seeds" in mixed and "matter more" in mixed
    ab = {"loss": 1, "ablated": 1, "share_units": 0.1}
    with pytest.raises(ValueError, match="one entry per seed"):
        ch.gating.ablation_summary([ab], [])
    ctl = {"ablated": 0.5, "ablated_draws": np.array([0.4, 0.6]), "weight_ratio": 1}
    s = ch.gating.ablation_summary([ab, ab], [{**ctl, "share_units": 0.2}] * 2)
    assert s["ratio_median"] == pytest.approx(2.0)
    assert s["seeds_above_every_draw"] == 2 and s["draws"] == 2


def test_every_glue_name_the_page_cites_is_glued(written):
    *_, glued = written
    cited = set(re.findall(r"\{glue:text\}`(\w+)", PAGE.read_text()))
    assert cited <= set(glued), sorted(cited - set(glued))


def test_tables_of_the_page(written):
    m, *_ = written
    po = {
        "top": {("a", "b"): -0.4, ("b", "a"): -0.4},
        "pairs": {("a", "b"): np.array([-0.4, -0.2]), ("b", "a"): np.array([-0.4])},
    }
    assert "| a, b" in ch.tables.overlap_table(po)
    assert "-0.40 / -0.30 / -0.20" in ch.tables.overlap_table(po)
    text = ch.tables.loss_table({"x": np.ones((2, 10))}, [0, 9])
    assert text.splitlines()[0].count("|") == 4
    assert "0.25" in ch.tables.threshold_table({0.25: (0.9, 0.1)})
    lad = m["ladder"]
    rows = ch.tables.ladder_table(lad).splitlines()
    assert len(rows) == 2 + len(lad.rows) + 1
    assert f"{lad.rows[0].gap:.3f}" in rows[2]
