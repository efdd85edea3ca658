"""Unit tests of helpers.chapters.depth (Section 6: the depth networks and their
measurements)."""

import numpy as np
import pytest

import helpers as h
from helpers.chapters import depth
from helpers.core.engine import init_params, train


@pytest.fixture(scope="module")
def ds():
    return depth.depth_task()


def test_task_is_all_hierarchy(ds):
    assert ds.X.shape == (11, 24) and ds.Y.shape == (60, 24)
    # every context block equals the common block on its own columns
    for k in range(3):
        blk = ds.Y[15 * (k + 1) : 15 * (k + 2)]
        assert np.array_equal(blk[:, ds.contexts == k], ds.Y[:15, ds.contexts == k])
        assert not blk[:, ds.contexts != k].any()
    assert 0.5 * np.sum(ds.Y**2) == 96.0


def test_relu_depth_sizes(ds):
    net = depth.relu_depth(ds)
    assert net.sizes == (11, 420, 420, 60) and net.kind == "relu"
    W = init_params(net, 0)
    assert [w.shape for w in W] == [(420, 11), (420, 420), (60, 420)]
    assert abs(W[1].std() / depth.networks.RELU_STD - 1) < 0.01
    with pytest.raises(ValueError, match="width"):
        depth.relu_depth(ds, width=0)


def test_depth_gdln_structure(ds):
    net = depth.depth_gdln(ds)
    assert net.sizes == (11, 420, 420, 60)
    assert net.pathway_names(0) == ["shared"]
    assert net.pathway_names(1) == ["common", "ctx12", "ctx13", "ctx23"]
    l1, l2 = net.layers
    assert (
        np.all(l1.gating == 1) and l1.in_mask is None
    )  # linear layer seeing items and contexts
    assert np.all(l1.on_epoch == 500)
    sl = net.pathway_slice("ctx13")
    g = l2.gating[sl][0]
    assert g.sum() == 16 and np.all(g[ds.contexts == 1] == 0)  # off in context 2 only
    assert np.all(l2.on_epoch[net.pathway_slice("common")] == 500)
    assert np.all(l2.on_epoch[sl] == 12000)
    assert np.allclose(l2.out_std[:240], 5.5e-4) and np.allclose(l2.out_std[240:], 4e-3)
    assert np.allclose(l1.in_std, 5.75e-4) and np.allclose(l2.in_std, 5.5e-4)
    W = init_params(net, 3)
    assert abs(W[2][:, 240:].std() / 4e-3 - 1) < 0.03
    assert abs(W[2][:, :240].std() / 5.5e-4 - 1) < 0.03


def test_schedule_validation(ds):
    assert depth.networks.HAND_SCHEDULE.as_list() == [500, 12000]
    with pytest.raises(ValueError, match="before"):
        depth.Schedule(1000, 500)
    with pytest.raises(ValueError, match=">= 0"):
        depth.Schedule(-1, 5)
    with pytest.raises(ValueError, match="Schedule"):
        depth.depth_gdln(ds, schedule=(500, 12000))
    with pytest.raises(ValueError, match="unknown init stds"):
        depth.depth_gdln(ds, stds={"layer3": 1.0})


def _small_gdln(ds, schedule, common_width, group_width, std):
    """A small depth GDLN with every weight group started at the one ``std``."""
    groups = ("layer1", "layer2", "readout_common", "readout_context")
    return depth.depth_gdln(
        ds,
        schedule,
        common_width=common_width,
        group_width=group_width,
        stds=dict.fromkeys(groups, std),
    )


def test_switch_on_schedule_freezes_learning(ds):
    """Nothing changes before ``start``; the context readout stays put until
    ``context``."""
    net = _small_gdln(ds, depth.Schedule(5, 12), 8, 4, 0.3)
    run = train(
        net,
        ds.X,
        ds.Y,
        lr=1e-3,
        epochs=20,
        seeds=[0],
        record_epochs=[0, 5, 6, 12, 13, 20],
        record=("weights",),
    )
    L = run.loss[0]
    assert np.all(L[:5] == 96.0)  # all gates 0 before epoch 5: output 0, loss = 96
    assert L[5] != 96.0 and L[7] < L[5]  # on from epoch 5: an output, and it learns
    ro = run.records["weights"][2][0]  # readout (R, 60, 20)
    assert np.array_equal(ro[0], ro[1])  # epoch 0 == epoch 5
    assert not np.array_equal(
        ro[1][:, :8], ro[2][:, :8]
    )  # common readout moves at epoch 5
    assert np.array_equal(
        ro[1][:, 8:], ro[3][:, 8:]
    )  # context readout fixed through epoch 12
    assert not np.array_equal(ro[3][:, 8:], ro[4][:, 8:])  # and moves from epoch 12


def test_layer_census_strict_and_patterns(ds):
    C = 3
    on_all = np.ones(24)
    on_12 = (ds.contexts != 2).astype(float)
    one_off = on_all.copy()
    one_off[5] = 0  # off for one item of context 1: still "111" at the context level
    G = np.stack([on_all, on_12, one_off])
    W_in = np.ones((3, 11))
    W_out = np.ones((60, 3)) * np.array([1.0, 2.0, 1.0])
    c = depth.census.layer_census(G, W_in, W_out, ds.contexts, C)
    assert c["total"] == pytest.approx(4 * np.sqrt(11) * np.sqrt(60))
    assert c["common"] == pytest.approx(0.5)
    assert c["mixed"] == pytest.approx(0.5)
    assert c["always_on"] == pytest.approx(0.25)  # only the first unit is on everywhere
    assert c["mass"]["110"] == pytest.approx(0.5 * c["total"])
    assert sum(c["mass"].values()) == pytest.approx(c["total"])
    with pytest.raises(ValueError, match="units"):
        depth.census.layer_census(G, W_in[:2], W_out[:, :2], ds.contexts, C)


def test_linearised_first_layer():
    rng = np.random.default_rng(0)
    X = np.abs(rng.standard_normal((4, 6)))
    pos = [
        np.abs(rng.standard_normal((5, 4))),
        rng.standard_normal((3, 5)),
        rng.standard_normal((2, 3)),
    ]
    out, lin = depth.census.linearised_first_layer(pos, X)
    assert np.allclose(
        out, lin
    )  # a first layer that is on everywhere is already linear
    neg = [-pos[0], pos[1], pos[2]]
    out, lin = depth.census.linearised_first_layer(neg, X)
    assert np.allclose(out, 0) and not np.allclose(lin, 0)
    with pytest.raises(ValueError, match="two hidden"):
        depth.census.linearised_first_layer(pos[1:], X[:5])


def _staircase():
    t = np.arange(4001)
    L = (
        96
        - 30 / (1 + np.exp(-(t - 1000) / 20.0))
        - 36 / (1 + np.exp(-(t - 2500) / 20.0))
    )
    return L


def test_plateaus_and_drops():
    L = _staircase()
    p = depth.drops.plateaus(L, window=100, tol=1e-3, min_len=300)
    assert [round(x[2]) for x in p] == [96, 66, 30]
    levels = depth.drops.plateau_levels([L, L], window=100, tol=1e-3, min_len=300)
    assert np.allclose(levels, [96, 66, 30], atol=0.01)
    d = depth.drops.drop_epochs([L], levels)
    assert (
        np.abs(d - [[1000, 2500]]).max() <= 1
    )  # midpoints 81 and 48 are crossed at the sigmoid centres
    dur = depth.drops.drop_durations([L], levels)
    assert np.allclose(
        dur, 2 * 20 * np.log(9), atol=1.5
    )  # 90 % -> 10 % of a logistic step
    assert np.isnan(depth.drops.drop_epochs([L], [96, 66, 30, 0])[0, 2])
    with pytest.raises(ValueError, match="decreasing"):
        depth.drops.drop_epochs([L], [30, 66])
    with pytest.raises(ValueError, match="longer"):
        depth.drops.plateaus(L[:50], window=100)


def test_appearance_epoch():
    grid = np.array([0, 100, 200, 300])
    assert (
        depth.gating.appearance_epoch([0.0, 0.0, 1.0, 10.0], grid, threshold=1.0)
        == 200.0
    )
    assert (
        depth.gating.appearance_epoch([0.0, 0.0, 2.0, 10.0], grid, threshold=1.0)
        == 150.0
    )
    assert (
        depth.gating.appearance_epoch([5.0, 0.0, 2.0, 10.0], grid, threshold=1.0) == 0.0
    )
    assert np.isnan(depth.gating.appearance_epoch([0.0, 0.0, 0.0, 0.2], grid))
    with pytest.raises(ValueError, match="equal length"):
        depth.gating.appearance_epoch([1, 2], grid)
    with pytest.raises(ValueError, match="threshold"):
        depth.gating.appearance_epoch([0, 1, 2, 3], grid, threshold=0)


def _fake_runs(ds, t_common, t_mixed, grid):
    """DepthRuns whose layer-2 common / 2-of-3 masses jump from 0 to 1 at the given
    epochs."""
    pats = depth.census._patterns(3)
    S, R = len(t_common), grid.size
    mass = np.zeros((S, R, 8))
    for s in range(S):
        mass[s, grid >= t_common[s], pats.index("111")] = 1.0
        mass[s, grid >= t_mixed[s], pats.index("110")] = 1.0
    classes = np.stack(
        [
            mass[:, :, pats.index("111")],
            mass[:, :, pats.index("110")],
            0 * mass[:, :, 0],
            0 * mass[:, :, 0],
        ],
        axis=2,
    )
    z = np.zeros((S, R, 2))
    return depth.DepthRuns(
        name="fake",
        net=None,
        seeds=tuple(range(S)),
        loss=np.zeros((S, 2)),
        grid=grid,
        outputs=np.zeros((S, R, 1, 1)),
        patterns=pats,
        mass=[mass * 0, mass],
        classes=[classes * 0, classes],
        total=z + 1,
        always_on=z,
        item_dependent=z,
        final_shares={},
        linear_l1_change=z[..., 0],
        linear_l1_loss=z[..., 0],
    )


def test_derive_schedule(ds):
    grid = np.arange(0, 20001, 100)
    relu = _fake_runs(ds, [5000, 5200, 5100], [11000, 13000, 12000], grid)
    gdln = _fake_runs(
        ds, [4900, 4900], [13500, 13500], grid
    )  # hand schedule 500 / 12000
    sched, info = depth.gating.derive_schedule(
        relu, gdln, depth.networks.HAND_SCHEDULE, threshold=0.5
    )
    # steps at grid epochs are crossed half-way from the previous record (linear
    # interpolation)
    assert info["relu_appear_common"] == 5050 and info["relu_appear_mixed"] == 11950
    assert info["lag_common"] == 4350 and info["lag_context"] == 1450
    assert sched == depth.Schedule(700, 10500)
    assert (
        relu.share(1, "mixed")[0, -1] == 1.0
        and relu.class_mass(1, "common")[1, 51] == 0.0
    )
    with pytest.raises(ValueError, match="class"):
        relu.class_mass(1, "double")


def test_simulate_small(ds):
    net = _small_gdln(ds, depth.Schedule(0, 10), 6, 3, 0.2)
    a = depth.simulate(net, ds, [0, 1, 2], epochs=40, every=20, batch=2, lr=1e-2)
    b = depth.simulate(net, ds, [2], epochs=40, every=20, batch=1, lr=1e-2)
    assert a.loss.shape == (3, 41) and a.grid.tolist() == [0, 20, 40]
    assert np.allclose(
        a.loss[2], b.loss[0], rtol=1e-5
    )  # batching does not change a run
    assert a.outputs.shape == (3, 3, 60, 24)
    # every unit is counted once: pattern masses add up to the layer's weight
    assert np.allclose(a.mass[1].sum(axis=2), a.total[:, :, 1])
    assert np.allclose(a.classes[1].sum(axis=2), a.total[:, :, 1])
    pats = (
        a.patterns
    )  # the class masses are the pattern masses grouped: 2-of-3 = '011' + '101' + '110'
    two = [pats.index(p) for p in ("011", "101", "110")]
    assert np.allclose(a.class_mass(1, "mixed"), a.mass[1][:, :, two].sum(axis=2))
    # layer 1 of the GDLN is always on; before epoch 10 the context groups are off
    # ("000")
    assert np.allclose(a.always_on[:, :, 0], 1.0)
    assert np.all(a.class_mass(1, "mixed")[:, 0] == 0) and np.all(
        a.class_mass(1, "mixed")[:, 1] > 0
    )
    assert np.isnan(a.linear_l1_change).all()  # only measured for ReLU networks
    assert set(a.final_shares) == {0.25, 0.5, 0.75}
    with pytest.raises(ValueError, match="seed"):
        depth.simulate(net, ds, [], epochs=10)


def test_simulate_relu_linearisation(ds):
    net = depth.relu_depth(ds, width=12, std=0.3)
    r = depth.simulate(net, ds, [0], epochs=10, every=5)
    assert np.all(np.isfinite(r.linear_l1_change)) and np.all(r.linear_l1_change >= 0)
    assert np.all(r.linear_l1_loss > 0)


def test_plateau_record():
    grid = np.arange(0, 4001, 100)
    L = _staircase()

    class R:  # the two attributes plateau_record reads
        loss = np.stack([L, L])

    R.grid = grid
    idx = depth.compare.plateau_record(R, 66.0)
    assert np.all(grid[idx] > 1000) and np.all(grid[idx] < 2500)
    assert np.all(depth.compare.plateau_record(R, 10.0) == -1)


def test_the_depth_gdln_starts_three_ways(ds):
    relu = depth.relu_depth(ds)
    g = depth.depth_gdln(ds)
    kw = dict(experiment="depth", relu_net=relu, X=ds.X, contexts=ds.contexts)
    a, p0 = h.relns.start(g, "authors", [0, 1], **kw)
    assert p0 is None  # the authors' scales are those depth_gdln builds
    for La, Lg in zip(a.layers, g.layers):
        assert np.array_equal(La.in_std, Lg.in_std)
    assert np.array_equal(a.layers[1].out_std, g.layers[1].out_std)
    m, p0 = h.relns.start(g, "matched", [0, 1], **kw)
    assert p0 is None
    for L in m.layers:
        assert np.all(L.in_std == depth.networks.RELU_STD)
    assert np.all(m.layers[1].out_std == depth.networks.RELU_STD)  # the readout too
    st = h.relns.start(g, "derived", [0, 1], **kw)
    p0 = st.params0
    assert [W.shape for W in p0] == [(2, 420, 11), (2, 420, 420), (2, 60, 420)]
    assert set(st.stds(0)[0]) == {"shared"}
    assert set(st.stds(1)[0]) == {"common", "ctx12", "ctx13", "ctx23"}
    # every std is a ReLU unit's worth or more, and at most sqrt(H / H_p) of the ReLU
    # std
    for layer in (0, 1):
        for name, v in st.stds(layer)[1].items():
            sl = g.pathway_slice(name, layer)
            H_p = sl.stop - sl.start
            assert (
                depth.networks.RELU_STD * np.sqrt(1 / H_p) - 1e-12
                <= v
                <= depth.networks.RELU_STD * np.sqrt(420 / H_p)
            )
    sl = g.pathway_slice("ctx23")
    assert p0[1][1][sl].std() == pytest.approx(st.stds(1)[1]["ctx23"], rel=0.05)
    assert p0[2][0][:, sl].std() == pytest.approx(st.stds(1)[0]["ctx23"], rel=0.1)
    with pytest.raises(ValueError, match="init must be one of"):
        h.relns.start(g, "lazy", [0], **kw)


def test_layer2_functional_on_context_gated_units(ds):
    rows = {n: i for i, n in enumerate(ds.inputs)}
    W1 = np.eye(11)  # layer 1 passes X through (non-negative): always on
    W2 = np.zeros((3, 11))
    W2[0, [rows["ctx1"], rows["ctx2"], rows["ctx3"]]] = 1.0  # on everywhere: common
    W2[1, [rows["ctx1"], rows["ctx2"]]] = 1.0  # on in contexts 1, 2
    W2[2, rows["ctx1"]] = -1.0  # never on
    W3 = np.array([[1.0, 3.0, 5.0]])
    f = depth.census.layer2_functional([W1, W2, W3], ds.X, ds.contexts, 3)
    assert f["snap_change"] == pytest.approx(
        0.0, abs=1e-12
    )  # the gates are context-level already
    assert f["common"] == pytest.approx(np.sqrt(24) / (np.sqrt(24) + 3 * np.sqrt(16)))
    assert f["mixed"] == pytest.approx(1 - f["common"]) and f["single"] == 0
    # making the layer linear lets the third unit through: -5 on the 8 items of context
    # 1
    yhat = np.ones(24) + 3 * (ds.contexts != 2)
    assert f["linear_change"] == pytest.approx(5 * np.sqrt(8) / np.linalg.norm(yhat))
    with pytest.raises(ValueError, match="three"):
        depth.census.layer2_functional([W1, W3], ds.X, ds.contexts, 3)


def test_scatter_ratio_gaps_and_matching():
    v, se = depth.drops.log_scatter_ratio([0, 2, 4, np.nan], [0, 1, 2])
    assert v == pytest.approx(np.log(2)) and se == pytest.approx(
        np.sqrt(0.5 / 2 + 0.5 / 2)
    )
    assert np.isnan(depth.drops.log_scatter_ratio([1, 2], [3])[0])
    t = np.arange(2001)
    ref = np.stack([100 * np.exp(-t / s) for s in (100.0, 110.0, 121.0)])
    m = depth.compare.match_runs(ref, ref[:1] * 1.0)
    assert m.value == 0 and m.spread == pytest.approx(np.log(1.1), rel=1e-3)
    with pytest.raises(ValueError, match="candidate"):
        depth.compare.match_runs(ref[:1], ref)


def test_plateau_outputs():
    grid = np.arange(0, 4001, 100)
    L = _staircase()
    out = np.arange(2 * grid.size, dtype=float).reshape(2, grid.size, 1, 1)
    got = depth.compare.plateau_outputs(np.stack([L, L]), grid, out, 66.0)
    assert got[0].shape == (1, 1) and 1000 < grid[int(got[0][0, 0])] < 2500
    assert depth.compare.plateau_outputs([L], grid, out[:1], 10.0) == [None]
    with pytest.raises(ValueError, match="outputs"):
        depth.compare.plateau_outputs([L], grid, out, 66.0)


def test_simulate_params0_and_functional_census(ds):
    net = depth.relu_depth(ds, width=12, std=0.3)
    from helpers.core.relns import initial_weights

    p0 = initial_weights([net, net], [5, 6])
    a = depth.simulate(net, ds, [0, 1], epochs=10, every=5, params0=p0)
    b = depth.simulate(net, ds, [5, 6], epochs=10, every=5)
    assert np.allclose(a.loss, b.loss)  # params0 = the seeds' own draws
    assert a.functional2.shape == (2, 3, 5) and np.all(
        np.isfinite(a.functional("snap_change"))
    )
    assert np.all(a.linear_l2_change >= 0)
    with pytest.raises(ValueError, match="key"):
        a.functional("double")
    with pytest.raises(ValueError, match="stacked"):
        depth.simulate(net, ds, [0, 1, 2], epochs=10, every=5, params0=p0)


def test_the_depth_gdln_is_trained_as_the_authors_train_it(ds):
    # depth/gdln_off.py: the common pathway on its own loss, the context pathways on
    # its residual (one-way); the full coupling is the chapter's sensitivity
    assert depth.depth_gdln(ds).coupling == "one-way"
    assert depth.depth_gdln(ds, coupling="full").coupling == "full"
    runs = depth.paper_profile_runs()
    assert runs["paper"] == 198 and runs["ours"] > 0


def test_non_nested_share_is_lemma_41s_pattern(ds):
    P = ds.P
    G = np.zeros((3, P), bool)
    it, cx = ds.items, ds.contexts
    G[0] = (it < 4) | ((cx == 1) & (it < 6))  # nested: items 0-3 in every context
    G[1] = ((cx == 0) & (it == 0)) | ((cx == 1) & (it == 1))  # the 2 x 2 pattern
    G[2] = cx == 2  # context-level
    W_in, W_out = np.eye(3), np.diag([1.0, 3.0, 1.0])
    share = depth.census.non_nested_share(G, W_in, W_out, it, cx, 3)
    assert share == pytest.approx(3.0 / 5.0)
    assert (
        depth.census.non_nested_share(G[[0, 2]], W_in[:2], W_out[:, :2], it, cx, 3) == 0
    )
    # a unit with an additive pre-activation a_item + b_ctx can only gate nested
    rng = np.random.default_rng(0)
    pre = rng.normal(size=(50, 8))[:, it] + rng.normal(size=(50, 3))[:, cx]
    w = np.ones((50, 1))
    assert depth.census.non_nested_share(pre > 0, w, w.T, it, cx, 3) == 0


def test_network_snap_change_and_the_phase(ds):
    rng = np.random.default_rng(1)
    # positive weights on non-negative inputs: every unit always on, nothing to snap
    Ws = [np.abs(rng.normal(size=s)) for s in [(6, 11), (5, 6), (4, 5)]]
    assert depth.census.network_snap_change(Ws, ds.X, ds.contexts, 3) == pytest.approx(
        0
    )
    Ws = [rng.normal(size=s) for s in [(30, 11), (30, 30), (4, 30)]]
    assert depth.census.network_snap_change(Ws, ds.X, ds.contexts, 3) > 0
    grid = np.arange(0, 3500, 500)
    snap = [0.5, 0.05, 0.02, 0.3, 0.01, 0.02, 0.03]
    assert depth.gating.training_phase(snap, grid, 0.1) == (2000, 3000)
    assert depth.gating.training_phase([0.5, 0.2], grid[:2], 0.1) is None
    assert (
        depth.gating.epoch_ranges(grid, np.array(snap) <= 0.1) == "500–1000, 2000–3000"
    )
    assert depth.gating.epoch_ranges(grid[:2], [False, False]) == "none"


def test_noise_on_both_sides():
    t = np.arange(2001)
    ref = np.stack([100 * np.exp(-t / s) for s in (100.0, 110.0, 121.0)])
    cand = np.stack([100 * np.exp(-t / s) for s in (100.0, 150.0, 225.0)])
    m = depth.compare.match_runs(
        ref, cand
    )  # the candidate scatters more than the reference
    assert m.spread_candidate == pytest.approx(np.log(1.5), rel=1e-3)
    assert (
        m.spread == m.spread_candidate and m.spread_interval[0] <= m.spread_interval[1]
    )
    assert depth.compare.match_runs(ref, ref[:1]).spread_candidate is None
    rng = np.random.default_rng(2)
    A = [np.ones((2, 3)) + 0.01 * rng.normal(size=(2, 3)) for _ in range(4)]
    B = [np.ones((2, 3)) + 0.1 * rng.normal(size=(2, 3)) for _ in range(4)]
    o = depth.compare.output_match(A, B + [None])
    assert o.spread == o.spread_candidate > 0.05  # the noisier side sets the yardstick
    assert o.spread_interval[0] <= o.spread_interval[1]
    with pytest.raises(ValueError, match="2 runs"):
        depth.compare.output_match(A[:1], B)


def test_scatter_bootstrap_and_subsets():
    rng = np.random.default_rng(3)
    a, b = rng.normal(0, 4, 12), rng.normal(0, 1, 12)
    se, (lo, hi) = depth.drops.scatter_bootstrap(a, b)
    assert 0.15 < se < 0.6 and lo <= hi
    assert depth.drops.scatter_bootstrap(a, b) == (se, (lo, hi))  # deterministic
    assert np.isnan(depth.drops.scatter_bootstrap([1.0], b)[0])
    sub = depth.drops.subset_scatter_ratios(a, b, 4, draws=50)
    assert sub.shape == (50, 2) and np.allclose(sub[:, 1], np.sqrt(1 / 3))
    with pytest.raises(ValueError, match="k = 13"):
        depth.drops.subset_scatter_ratios(a, b, 13)


def test_outlier_resistant_spreads_and_their_profile(monkeypatch):
    monkeypatch.setattr(depth.drops, "INNER_RESAMPLES", 10)
    # one far run carries the standard deviation, not the IQR or the MAD
    a, b = np.array([0.0, 1, 2, 3, 4, 100]), np.array([0.0, 1, 2, 3, 4, 5])
    lsr = depth.drops.log_spread_ratio
    assert lsr(a, b, "sd") == pytest.approx(np.log(a.std(ddof=1) / b.std(ddof=1)))
    assert lsr(a, b, "iqr") == pytest.approx(0.0, abs=1e-12)  # 3.75 - 1.25 both
    assert lsr(a, b, "mad") == pytest.approx(0.0, abs=1e-12)  # 1.5 both
    assert lsr(a, b, "sd") > 2.5 > lsr(a, b, "iqr")
    assert np.isnan(lsr([1.0, 1, 1], b, "mad")) and np.isnan(lsr([1.0], b))
    with pytest.raises(ValueError, match="spread must be one of"):
        lsr(a, b, "range")
    # the SD profile is the default one, draw for draw (the same bootstrap)
    rng = np.random.default_rng(5)
    A = rng.normal(0, [50, 300, 900], (14, 3))
    B = rng.normal(0, [50, 100, 100], (14, 3))
    sd = depth.drops.spread_profile(A, B, "sd")
    for k in range(3):
        assert sd["value"][k] == pytest.approx(
            depth.drops.log_scatter_ratio(A[:, k], B[:, k])[0]
        )
        assert sd["scatter_bs"][k] == depth.drops.scatter_bootstrap(A[:, k], B[:, k])
    assert sd["k"] == int(np.nanargmax(sd["z"])) == 2  # the widest apart
    iqr = depth.drops.spread_profile(A, B, "iqr")
    q = lambda x: np.subtract(*np.percentile(x, [75, 25]))  # noqa: E731
    assert iqr["spread_ratio"][1] == pytest.approx(q(A[:, 1]) / q(B[:, 1]))
    assert iqr["scatter_bs"][1][0] > sd["scatter_bs"][1][0]  # noisier than the SD
    with pytest.raises(ValueError, match="drops differ"):
        depth.drops.spread_profile(A, B[:, :2], "mad")


def test_the_authors_runs_among_the_engines_subsets():
    # staircases whose last drop comes at the given epochs
    T, levels = 2000, np.array([96.0, 40.0, 0.0])

    def curves(t1, t2):
        t = np.arange(T + 1)
        return np.stack(
            [96 - 56 * (t >= a) - 40 * (t >= b) for a, b in zip(t1, t2)]
        ).astype(float)

    rng = np.random.default_rng(0)
    eng = (rng.normal(1500, 100, 20), rng.normal(1500, 25, 20))
    relu = curves([500, 510, 520, 530], [1400, 1450, 1500, 1550])
    gdln = curves([500, 600, 700, 800], [1400, 1450, 1500, 1550])
    ap = depth.drops.authors_profile(relu, gdln, levels, eng, 1)
    assert ap["n"] == 4 and ap["k"] == 1
    assert ap["scatter"][1][0] == pytest.approx(0.0)  # the same last drops
    assert ap["scatter"][1][1] == pytest.approx(np.sqrt(1 / 3))  # normal theory
    assert ap["k_worst"] == 0  # 10 against 100 epochs apart at the first drop
    sub = depth.drops.subset_scatter_ratios(*eng, 4)
    assert ap["percentile"] == pytest.approx(100 * np.mean(sub[:, 0] < 0.0))
    assert 0 <= ap["percentile"] < 25  # the engine's ReLU scatters 4x: 0 is low
    with pytest.raises(ValueError, match="out of range"):
        depth.drops.authors_profile(relu, gdln, levels, eng, 2)
    with pytest.raises(ValueError, match="at least 2 runs"):
        depth.drops.authors_profile(relu[:1], gdln, levels, eng, 1)


def test_simulate_relu_records_the_phase_measures(ds):
    net = depth.relu_depth(ds, width=12, std=0.3)
    r = depth.simulate(net, ds, [0], epochs=10, every=5)
    assert r.snap_all.shape == (1, 3) and np.all(r.snap_all >= 0)
    assert r.non_nested.shape == (1, 3, 2)
    assert np.all(r.non_nested[:, :, 0] == 0)  # layer 1 sees additive inputs


def test_smaller_by_epoch_reads_a_gating_claim_record_by_record():
    rng = np.random.default_rng(0)
    grid = [0, 500, 1000, 1500]
    values = np.c_[
        np.zeros(8),
        rng.normal(0.1, 0.01, 8),
        rng.normal(0.9, 0.01, 8),
        rng.normal(0.5, 0.3, 8),
    ]
    compared = np.c_[np.zeros(8), np.ones((8, 3))]
    v = depth.gating.smaller_by_epoch(values, compared, grid)
    assert v == {
        0: "nothing to compare",
        500: "reproduced",
        1000: "not reproduced",
        1500: "undecided",
    }
    text = depth.gating.verdicts_over_training(v, grid)
    assert text.startswith("holds at epochs 500, fails at 1000")
    assert "cannot decide it at 1500" in text and "at 0 there is nothing" in text


def test_the_reduction_stands_on_its_own(ds):
    # simulate = train_seeds (training) + reduce_run (reduction), batch by batch
    net = depth.relu_depth(ds, width=12, std=0.3)
    grid = depth.census.record_grid(10, 5)
    assert grid.tolist() == [0, 5, 10] and depth.census.record_grid(12, 5)[-1] == 12
    run = depth.census.train_seeds(net, ds, [0, 1], grid, epochs=10, lr=1e-3)
    red = depth.census.reduce_run(net, ds, run, thresholds=(0.5,))
    assert red["mass"].shape == (2, 3, 2, 8) and red["outputs"].dtype == np.float32
    assert red["final_shares"][0.5].shape == (2, 2, 4)
    one = depth.census.reduce_record(
        net,
        ds,
        [G[1, 2] for G in run.records["gates"]],
        [W[1, 2] for W in run.records["weights"]],
    )
    for k in depth.census.REDUCED:
        assert np.array_equal(red[k][1, 2], one[k], equal_nan=True), k
    sim = depth.simulate(
        net, ds, [0, 1], epochs=10, every=5, lr=1e-3, batch=1, thresholds=(0.5,)
    )
    assert np.array_equal(sim.loss, red["loss"])
    assert np.array_equal(sim.mass[1], red["mass"][:, :, 1])
    assert np.array_equal(sim.functional2, red["functional2"])
    # positive weights on one-hot inputs: every unit on for every datapoint, so both
    # layers are linear and already context-level, and nothing is non-nested
    rng = np.random.default_rng(0)
    Ws = [np.abs(rng.normal(0, 0.3, W.shape[2:])) for W in run.records["weights"]]
    gates = [Ws[0] @ ds.X > 0, Ws[1] @ np.maximum(Ws[0] @ ds.X, 0) > 0]
    r = depth.census.reduce_record(net, ds, gates, Ws)
    assert np.allclose(r["always_on"], 1.0) and r["linear_l1_change"] == 0.0
    assert r["linear_l2_change"] == 0.0 and r["snap_all"] == 0.0
    assert np.all(r["non_nested"] == 0)
    g_net, g_gates, g_weights = _gdln_state(ds)
    gdln = depth.census.reduce_record(g_net, ds, g_gates, g_weights)
    assert np.isnan(gdln["linear_l1_change"]) and np.isnan(gdln["functional2"]).all()


def _gdln_state(ds):
    net = depth.depth_gdln(ds, common_width=6, group_width=3)
    run = depth.census.train_seeds(
        net, ds, [0], depth.census.record_grid(2, 1), epochs=2, lr=1e-3
    )
    gates = [G[0, -1] for G in run.records["gates"]]
    return net, gates, [W[0, -1] for W in run.records["weights"]]


def test_rule5_reads_a_claim_where_its_structure_exists():
    from helpers.book import rulebook

    loss = np.array([[96.0, 66.0, 20.0, 10.0], [96.0, 66.0, 66.0, np.nan]])
    w = rulebook.structure_window(loss, 17.0)
    assert w.tolist() == [[False, False, False, True], [False] * 4]
    with pytest.raises(ValueError, match="level"):
        rulebook.structure_window(loss, float("nan"))
    v = np.array([[1.0, 2.0, 3.0, 4.0], [1.0, 1.0, 1.0, 1.0]])
    m = depth.gating.window_mean(v, w)
    assert m[0] == 4.0 and np.isnan(m[1])
    assert depth.gating.window_mean(v, np.ones(4, bool)).tolist() == [2.5, 1.0]


def test_pooling_with_a_stored_run_and_the_rounding_floor():
    a, b = np.zeros((2, 5)), np.ones((3, 5))
    pool = depth.drops.pool_seeds([0, 1], {"relu": a}, [1, 2, 3], {"relu": b})
    assert pool["seeds"] == [0, 1, 2, 3] and pool["relu"].shape == (4, 5)
    short = depth.drops.pool_seeds([0, 1], {"relu": a}, [2], {"relu": np.ones((1, 9))})
    assert short["seeds"] == [0, 1] and short["added"] == []
    with pytest.raises(ValueError, match="differ"):
        depth.drops.pool_seeds([0], {"relu": a}, [2], {"gdln": b})
    t = np.arange(3001.0)
    curve = lambda t0: 96 - 96 / (1 + np.exp(-(t - t0) / 30))  # noqa: E731
    L = np.stack([curve(1000), curve(2000)])
    stored = {"seeds": np.array([1]), "float32": L[1:], "float64": L[1:, ::1] * 0}
    stored["float64"] = np.stack([curve(2100)])
    runs = depth.drops.same_start(L, [0, 1], stored)
    assert list(runs) == ["engine, float32", "plain, float32", "plain, float64"]
    fl = depth.drops.rounding_floor(runs, np.array([96.0, 0.0]))
    assert fl["diff"]["plain, float32"][0, 0] == 0
    assert fl["diff"]["plain, float64"][0, 0] == pytest.approx(100, abs=2)
    with pytest.raises(ValueError, match="no seed"):
        depth.drops.same_start(L, [5], stored)


def test_stored_runs_are_checked_against_their_manifest(tmp_path):
    import json

    from helpers.chapters.depth import stored

    np.savez_compressed(tmp_path / "scatter.npz", seeds=np.arange(2))
    import hashlib

    digest = hashlib.sha256((tmp_path / "scatter.npz").read_bytes()).hexdigest()
    entry = {"file": "scatter.npz", "sha256": digest, "command": "c", "seeds": [0, 1]}
    (tmp_path / "manifest.json").write_text(json.dumps({"scatter": entry}))
    arrays, got = stored.load("scatter", tmp_path)
    assert arrays["seeds"].tolist() == [0, 1] and got["command"] == "c"
    (tmp_path / "scatter.npz").write_bytes(b"changed")
    with pytest.raises(ValueError, match="sha256"):
        stored.load("scatter", tmp_path)
    with pytest.raises(ValueError, match="kind"):
        stored.load("other", tmp_path)
    with pytest.raises(ValueError, match="seeds"):
        stored.scatter(1)


def test_plain_descent_follows_the_engine_in_float32(ds):
    from helpers.chapters.depth import stored

    net = depth.relu_depth(ds)
    W = [np.asarray(w, np.float32) for w in init_params(net, 0)]
    ours = stored.plain_descent(W, ds.X, ds.Y, depth.networks.LR, 20, np.float32)
    engine = train(
        net, ds.X, ds.Y, lr=depth.networks.LR, epochs=20, seeds=[0], record=()
    )
    assert ours.shape == (21,)
    np.testing.assert_allclose(ours, engine.loss[0], rtol=1e-5)
    with pytest.raises(ValueError, match="dtype"):
        stored.plain_descent(W, ds.X, ds.Y, depth.networks.LR, 20, np.int32)
