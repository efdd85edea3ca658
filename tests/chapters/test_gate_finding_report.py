"""The page *Finding the gates* writes its records through
``helpers.chapters.gate_finding.report``: run it on a small synthetic results object
(clusterings built from context-level patterns, exponential loss curves) into a
temporary directory, and check the records against the rulebook."""

from types import SimpleNamespace

import numpy as np
import pytest

import helpers as h
from helpers.book import rulebook
from helpers.book.records import Records
from helpers.chapters import gate_finding as ch
from helpers.core.measures import Evidence

ORDER = ["111", "110", "101", "011", "100", "010", "001", "000"]
T = 3200


def _curves(rates, L0=10.0):
    t = np.arange(T + 1)
    return np.array([L0 * np.exp(-r * t) + 1e-3 for r in rates])


def _clustering(ds, K):
    gates = np.array([ch.context_level(p, ds) for p in ORDER[:K]], float)
    shares = np.full(K, 1.0 / K)
    return ch.Clustering(K, 0.9 * gates + 0.05, shares, 10.0 / K)


def _point(ds, K, rate):
    return SimpleNamespace(
        K=K,
        clustering=_clustering(ds, K),
        loss=_curves([rate, 1.02 * rate]),
        output_mse=1e-2 / K,
    )


@pytest.fixture(scope="module")
def results():
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    KS = list(range(1, 7))
    relu_all = _curves([0.0030, 0.0031, 0.0029])
    relu_loss = relu_all[:2]
    patterns = np.array([ch.context_level(p, ds) for p in ORDER])
    run = SimpleNamespace(loss=relu_all)
    samples = ch.GateSamples(
        patterns, np.arange(1, 9), np.arange(0, T + 1, 100), run, 0, 8
    )
    by_k = {K: _point(ds, K, 0.0030 * (1 - 0.5 / K)) for K in KS}
    errors = np.array([1e-2, 6e-3, 3e-3, 1e-3, 8e-4, 7e-4])
    err_seed = np.stack([errors, 1.1 * errors], axis=1)
    gaps = {K: h.measures.match(relu_loss, by_k[K].loss) for K in KS}
    start_pts = {
        i: {3: _point(ds, 3, 0.002), 4: _point(ds, 4, r)}
        for i, r in (("matched", 0.0028), ("authors", 0.0029), ("derived", 0.0025))
    }
    m_k4 = {
        i: h.measures.match(relu_loss, d[4].loss, alternative=d[3].loss)
        for i, d in start_pts.items()
    }
    variant_loss = _curves([0.00298, 0.00301])
    lab = np.random.default_rng(0).integers(0, 4, size=(3, len(samples.epochs), 8))
    sens = [
        ("seeds", "all", 0, ORDER[:4], [0.25] * 4, True),
        ("subsets", "final epoch only", 0, ORDER[1:5], [0.25] * 4, False),
        ("alone", "training 0 alone", 0, ORDER[:4], [0.25] * 4, True),
    ]
    xor_res = {
        0.5: dict(patterns=["1000", "0100", "0010", "0001"], k=4, k_within=4),
        1.1: dict(patterns=["1001", "0110"], k=2, k_within=3),
    }
    return SimpleNamespace(
        ds=ds,
        KS=KS,
        k_max=6,
        samples=samples,
        by_k=by_k,
        k4_patterns=ch.context_strings(by_k[4].clustering, ds),
        expected4=ORDER[:4],
        share_t=np.stack([(lab == k).mean(axis=(0, 2)) for k in range(4)]),
        lab=lab,
        epochs=T,
        err_seed=err_seed,
        errors=errors,
        best_k=ch.elbow_k(KS, errors),
        best_k_seed=[ch.elbow_k(KS, err_seed[:, r]) for r in range(2)],
        best_k_within=ch.elbow_k(KS, errors, rule="within", factor=2.0),
        gaps=gaps,
        relu_loss=relu_loss,
        elbow_seeds=2,
        kmeans_n_init=100,
        kmeans_n_init_check=10,
        kmeans_restarts_check=[1, 10],
        kmeans_single_inits=3,
        by_restarts={
            n: {
                "errors": list(errors * f),
                "best_k": k,
                "retrained": [3],
                "k3": _clustering(ds, 3),
            }
            for n, f, k in ((1, 1.5, 3), (10, 1.2, 4))
        },
        init="matched",
        start_pts=start_pts,
        m_k4=m_k4,
        init_rows=ch.init_rows(m_k4, start_pts),
        variant_gap=[0.2, 0.15, 0.05],
        variant_loss=variant_loss,
        m_paper=h.measures.match(relu_loss, variant_loss, alternative=by_k[3].loss),
        sens=sens,
        xor_res=xor_res,
        clus_d1={K: _clustering(ds, K) for K in (1, 2, 3)},
        clus_d2={K: _clustering(ds, K) for K in (1, 2, 3, 4)},
        ds_d=ds,
        samples_d2=samples,
        depth_k_max=4,
    )


def test_report_writes_every_record_as_the_rulebook_decides(results, tmp_path):
    rec = Records("gate_finding", directory=tmp_path)
    tables = ch.report(rec, results)
    assert (tmp_path / "gate_finding.json").exists()
    claims = rulebook.registry()["gate_finding"]
    assert set(rec.items) == set(claims)
    for name, r in rec.items.items():
        claim = claims[name]
        assert r["verdict"] == rulebook.decide(claim, Evidence.from_record(r)).verdict
        if claim["kind"] == "paper":
            assert set(claim["choices"]) <= set(r["variants"]), name
            assert isinstance(r["depends_on"], list), name
    items = rec.items
    assert items["k4_patterns"]["value"] == ORDER[:4]
    assert items["k4_patterns"]["verdict"] == "reproduced"
    assert items["best_k"]["value"] == results.best_k
    assert set(items["elbow_errors"]["value"]) == {str(K) for K in results.KS}
    restarts = {
        row["setting"]: row["value"] for row in items["best_k"]["variants"]["restarts"]
    }
    assert restarts == {
        "1 k-means restart instead of 100": 3,
        "10 k-means restarts instead of 100": 4,
    }
    seeds = {row["setting"] for row in items["best_k"]["variants"]["seeds"]}
    assert seeds == {"GDLN seed 0 alone", "GDLN seed 1 alone"}
    assert "In short" in tables["closing"] and "best_k" in tables["headline"]


def test_the_pages_tables(results):
    r = results
    assert "k-means objective" in ch.tables.clusterings(r.by_k, r.ds)
    assert "(two trainings)" in ch.tables.elbow(
        r.KS, r.errors, r.gaps, r.by_k, r.samples.run.loss[0]
    )
    assert "*two ReLU trainings*" in ch.tables.init(r.init_rows, 0.02, r.relu_loss)
    assert "XoR ReLN" in ch.tables.xor(r.xor_res)
    assert "item-dependent" in ch.tables.depth(r.clus_d1, r.clus_d2, r.ds)
    assert "Not run" in ch.tables.depth_elbow(None, 0, r.ds, r.samples)
    assert "final epoch only" in ch.tables.sensitivity(r.sens)
    t = ch.tables.restarts(
        r.by_restarts, 100, r.best_k, r.errors, r.KS, r.by_k[3].clustering, r.ds
    )
    assert "(the page's elbow)" in t and t.count("\n") == 4


def test_the_restarts_variant_checks_its_count(results):
    r = results
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match="n_init must be an integer"):
            ch.elbow_restarts(r.samples, r.ds.X, r.ds.Y, r.by_k, bad, 0)


def test_the_page_reads_the_clusterings(results):
    ds = results.ds
    # single-restart k-means: the optima it reaches, each with its lowest objective
    # and how many restarts reach it; with as many clusters as distinct patterns,
    # every restart finds them, at objective 0
    n_patterns = len(results.samples.patterns)
    optima = ch.kmeans_optima(results.samples, n_patterns, range(5), ds)
    assert sum(n for _, n in optima.values()) == 5
    ((objective, n),) = optima.values()
    assert n == 5 and objective == pytest.approx(0.0, abs=1e-9)
    cl = _clustering(ds, 4)
    assert ch.context_strings(cl, ds) == ORDER[:4]
    assert ch.item_dependent(cl, ds) == 0
    assert ch.context_level("101", ds).sum() == 16
    with pytest.raises(ValueError, match="at most trainings"):
        ch.check_seeds(4, 3)
    net = ch.paper_gdln(cl, ds, "context-level", [100] * 4, 2e-5, True, 1e-5)
    assert net.layers[0].width == 400
