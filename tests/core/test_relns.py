"""The ReLNs of the contextual task and the three initialisations ([conv-init])."""

import numpy as np
import pytest

import helpers as h
from helpers.core import paper, relns
from helpers.core.engine import init_params


def test_derived_stds_give_each_pathway_the_strength_of_its_relu_units():
    gates = {"a": np.array([1, 1, 1, 1]), "b": np.array([1, 1, 0, 0])}
    relu = np.array([[1, 1, 1, 1]] * 8 + [[1, 1, 0, 0]] * 2 + [[0, 0, 0, 0]] * 5)
    stds = relns.derived_stds(relu, gates, {"a": 4, "b": 2}, relu_std=0.1)
    assert stds["a"] == pytest.approx(0.1 * np.sqrt(8 / 4))
    assert stds["b"] == pytest.approx(0.1 * np.sqrt(2 / 2))
    # a unit equally near two pathways is split between them; an empty pathway keeps one
    # unit
    stds = relns.derived_stds(np.array([[1, 1, 1, 0]]), gates, {"a": 1, "b": 1}, 1.0)
    assert stds == {"a": pytest.approx(1.0), "b": pytest.approx(1.0)}


@pytest.fixture(scope="module")
def s4():
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    relu = h.relu_network((11, 700, 60), 0.005 / 700)
    return ds, relu, h.context_reln(ds, "mixed")


def _start(net, init, ds, relu, **kw):
    kw = {"experiment": "contexts", "X": ds.X, "contexts": ds.contexts, **kw}
    return relns.start(net, init, [0, 1], relu_net=relu, **kw)


def test_inits_are_defined_once_in_paper():
    assert relns.INITS is paper.INITS == ("authors", "matched", "derived")
    assert callable(paper.authors_init)


def test_start_authors_reads_the_experiments_table(s4):
    ds, relu, reln = s4
    st = _start(reln, "authors", ds, relu)
    net, p0 = st  # unpacks as (net, params0)
    assert p0 is None and len(st.nets) == 2 and st.nets[1] is net
    # Section 4: common at the ReLU network's std, context pathways at twice it; the
    # same stds (bit for bit) as the ReLN the authors' constants build
    assert (
        st.stds()
        == [
            {"common": relns.STD_COMMON, "ctx12": relns.STD_CONTEXT}
            | {n: relns.STD_CONTEXT for n in ("ctx13", "ctx23")}
        ]
        * 2
    )
    assert np.array_equal(net.layers[0].out_std, reln.layers[0].out_std)
    # factors scale with the ReLU network's std
    relu2 = h.relu_network((11, 700, 60), 1e-3)
    assert _start(reln, "authors", ds, relu2).stds()[0]["ctx23"] == 2e-3
    # C = 4 of Section 5: every pathway at the ReLU network's own std (gdln4.py)
    ds4 = h.contextual_task(4)
    relu4 = h.relu_network((ds4.X.shape[0], 500, ds4.Y.shape[0]), 0.005 / 500)
    st4 = _start(
        h.context_reln(ds4, "mixed"),
        "authors",
        ds4,
        relu4,
        experiment="extra_contexts_C4",
        X=ds4.X,
        contexts=ds4.contexts,
    )
    assert np.allclose(list(st4.stds()[0].values()), 0.005 / 500, rtol=1e-12)


def test_start_authors_depth_sets_each_layer_and_the_readout():
    from helpers.chapters import depth

    ds = depth.depth_task()
    g = depth.depth_gdln(ds, stds={"layer1": 1.0, "readout_context": 1.0})
    st = relns.start(g, "authors", [0], experiment="depth")  # no ReLU std needed
    built = depth.depth_gdln(ds)  # the [depth] constants
    for a, b in zip(st.net.layers, built.layers):
        assert np.array_equal(a.in_std, b.in_std)
    assert np.array_equal(st.net.layers[1].out_std, built.layers[1].out_std)
    sl = g.pathway_slice("ctx12")
    assert st.net.layers[1].out_std[sl][0] == paper.DEPTH.gdln_std_readout_context
    # a table that does not cover a layer of the network is refused, naming it
    with pytest.raises(ValueError, match="no rule for hidden layer 1"):
        relns.start(g, "authors", [0], experiment="contexts", relu_std=1e-3)


def test_start_authors_common_at_the_level_of_contexts():
    contexts = np.array([0, 0, 1, 1])
    almost = h.Pathway("c1", 6, np.array([1.0, 0, 1, 1]), None, (0.1, 0.1))
    one = h.Pathway("c2", 10, np.array([0.0, 0, 1, 1]), None, (0.1, 0.1))
    net = h.gdln(3, 1, 4, [almost, one])
    kw = dict(experiment="gate_finding", relu_std=0.02)
    by_point = relns.start(net, "authors", [0], **kw).net
    by_context = relns.start(net, "authors", [0], contexts=contexts, **kw).net
    assert np.all(by_point.layers[0].in_std[:6] == 0.04)  # one datapoint off
    assert np.all(by_context.layers[0].in_std[:6] == 0.02)  # on in every context
    assert np.all(by_context.layers[0].out_std[6:] == 0.04)
    Wa, Wm = (
        init_params(by_context, 3),
        init_params(relns.start(net, "matched", [0], relu_std=0.02).net, 3),
    )
    assert np.allclose(Wa[0][6:], 2 * Wm[0][6:])  # the same draw, another scale


def test_start_matched(s4):
    ds, relu, reln = s4
    net, p0 = _start(reln, "matched", ds, relu, experiment=None)
    assert p0 is None and np.all(net.layers[0].in_std == 0.005 / 700)
    assert np.all(net.layers[0].out_std == 0.005 / 700)
    # the ReLU std comes off the ReLU network, or is given
    assert relns.start(reln, "matched", [0], relu_std=0.3).stds()[0]["common"] == 0.3
    with pytest.raises(ValueError, match="relu_net"):
        relns.start(reln, "matched", [0])
    with pytest.raises(ValueError, match="several stds"):
        relns.start(reln, "matched", [0], relu_net=h.relu_network((11, 7, 60), [1, 2]))


def test_start_derived_at_each_level(s4):
    ds, relu, reln = s4
    st = _start(reln, "derived", ds, relu)
    assert [W.shape for W in st.params0] == [(2, 400, 11), (2, 60, 400)]
    assert st.stds()[0] != st.stds()[1]  # each seed from its own ReLU network
    # seed 1's stds are derived_stds on ReLU seed 1's gates at epoch 0, snapped
    _, _, g0 = h.forward(relu, init_params(relu, 1), ds.X)
    gates = {n: reln.layers[0].gating[sl][0] for n, sl in reln.layers[0].pathways}
    widths = {n: 100 for n in gates}
    snapped = h.measures.snap_to_contexts(g0[0], ds.contexts, 3)
    want = relns.derived_stds(snapped, gates, widths, 0.005 / 700)
    assert st.stds()[1] == want
    assert np.array_equal(st.params0[0][1], init_params(st.nets[1], 1)[0])
    raw = _start(reln, "derived", ds, relu, level="datapoints").stds()[1]
    assert raw == relns.derived_stds(g0[0], gates, widths, 0.005 / 700)
    # with every context pathway present, more ReLU units gate like the common pathway
    # at epoch 0 than like any one 2-of-3 pathway
    d = relns.start(
        h.context_reln(ds, "both"),
        "derived",
        [0],
        relu_net=relu,
        X=ds.X,
        contexts=ds.contexts,
    ).stds()[0]
    assert d["common"] > d["ctx12"]
    with pytest.raises(ValueError, match="needs relu_net and X"):
        relns.start(reln, "derived", [0], relu_net=relu)
    with pytest.raises(ValueError, match="needs contexts"):
        relns.start(reln, "derived", [0], relu_net=relu, X=ds.X)


def test_start_refuses_bad_choices_before_any_work():
    for kw, what in [
        (dict(init="random"), "init must be one of"),
        (dict(init="authors"), "needs experiment"),
        (dict(init="matched", experiment="section9"), "experiment must be one of"),
        (dict(init="matched", level="pixels"), "level must be one of"),
    ]:
        with pytest.raises(ValueError, match=what):
            relns.start(object(), seeds=[0], **kw)  # no network is looked at
    assert relns.start(None, "derived", [0]).net is None  # no pathway: passes through


def test_authors_init_tables():
    extra = {f"extra_contexts_C{c}" for c in (3, 4, 5)}
    assert set(paper.INIT_EXPERIMENTS) >= {"contexts", "depth", "gate_finding"} | extra
    for e in paper.INIT_EXPERIMENTS:
        t = paper.authors_init(e)
        assert t["source"] in paper.SOURCES and t["script"] and t["why"] and t["rules"]
    t = paper.authors_init("depth")
    assert t["script"] == "depth/gdln_off.py"
    assert t["rules"][2]["readout"] == paper.DEPTH.gdln_std_readout_context
    assert paper.authors_init("gate_finding")["source"] == "reconstruction"
    with pytest.raises(ValueError, match="experiment must be one of .*'depth'"):
        paper.authors_init("xor")
    with pytest.raises(TypeError):
        t["rules"] = ()  # read-only
    # the tables are not sections of constants
    assert not any(s.startswith("authors_init") for s, *_ in paper.TABLE)


def test_pathway_pattern():
    assert relns.pathway_pattern("common", 3) == "111"
    assert relns.pathway_pattern("ctx13", 3) == "101"
    assert relns.pathway_pattern("ctx2", 4) == "0100"
    for bad in ["ctx", "foo", "ctx5"]:
        with pytest.raises(ValueError):
            relns.pathway_pattern(bad, 3)
