"""What only the chapter *Real data* (``book/digits.md``) needs: the contextual task of
Section 4 ([conv-contextual]) rebuilt on scikit-learn's handwritten digits, and the
measurements of that chapter.

The task.  Each image of ``sklearn.datasets.load_digits`` (1,797 images of 8 x 8 pixels,
values 0..16, shipped inside scikit-learn) is shown in ``C = 3`` contexts.  The input
stacks the 64 pixels over the context one-hot (rows named ``px0`` .. ``px63`` and
``ctx1`` .. ``ctx3``, so that :func:`helpers.core.relns.item_rows` gives the pixels);
the output stacks a **common block**, the one-hot class, needed in every context, and
one **block per context**, a one-hot coarser label of the class (parity, "at least 5",
the class modulo 3), equal to that label in its own context and zero elsewhere.
Datapoints are columns, context-major, as in
:func:`helpers.core.datasets.contextual_task`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ...core.algorithm1 import (
    centroid_gdln,
    cluster_gates,
    elbow_k,
    pattern_strings,
    sample_epochs,
    samples_from_run,
)
from ...core.datasets import Dataset
from ...core.engine import Pathway, forward, gdln, train
from ...core.linear import diagonalizability
from ...core.measures import (
    functional_census,
    gating_census,
    seed_spread_interval,
    unit_weight,
)

__all__ = [
    "BLOCKS",
    "GATE_KINDS",
    "DigitsTask",
    "split_indices",
    "digits_task",
    "block_rows",
    "step_size",
    "affine_floor",
    "answers",
    "gate_sources",
    "weight_by_kind",
    "nearest_training_image",
    "held_out_columns",
    "on_columns",
    "CentroidFit",
    "centroid_fit",
    "live_samples",
    "k_rule",
    "affine_targets",
    "whitened_pixels",
    "random_attributes",
    "control_run",
    "control_summary",
    "controls_table",
    "relu_ahead",
    "relu_ends_lower",
    "CAUSES",
    "explain_controls",
    "controls_record",
    "census_over_training",
    "census_shuffled",
    "cluster_classes",
    "timing_levels",
    "compare_to_chance",
    "pathway_diagonalizability",
    "final_outputs",
    # Algorithm 1 from the core, re-exported so that the chapter reads ch.sample_epochs
    "sample_epochs",
    "samples_from_run",
    "elbow_k",
    "pattern_strings",
    "check_parameters",
    "step_size_check",
    "GRID",
    "gaps_by_level",
    "Results",
    "report",
    "errors_table",
    "k_table",
    "gap_table",
    "plot_task",
    "plot_relu",
    "plot_centroids",
    "plot_elbow",
    "plot_census",
    "plot_relns",
]

#: The context blocks: name -> (label of a class 0..9, names of the one-hot rows).
BLOCKS = {
    "parity": (lambda c: c % 2, ("even", "odd")),
    "ge5": (lambda c: (c >= 5).astype(int), ("lt5", "ge5")),
    "mod3": (lambda c: c % 3, ("0", "1", "2")),
}
N_CLASSES = 10


@dataclass(frozen=True)
class DigitsTask:
    """The digits task: ``train`` and ``test`` :class:`Dataset` s (datapoints are
    (image, context) pairs, columns context-major), the class of each image, the
    images' indices into ``load_digits``, the pixel scale and the output blocks."""

    train: Dataset
    test: Dataset
    labels_train: np.ndarray
    labels_test: np.ndarray
    images_train: np.ndarray
    images_test: np.ndarray
    scale: float
    blocks: tuple[str, ...]

    @property
    def n_contexts(self) -> int:
        return len(self.blocks)

    def rows(self) -> dict[str, slice]:
        """The output rows of each block: ``'class'`` then the context blocks."""
        return block_rows(self.blocks)


def block_rows(blocks) -> dict[str, slice]:
    """Output rows of the common block (``'class'``) and of each context block."""
    out = {"class": slice(0, N_CLASSES)}
    start = N_CLASSES
    for b in blocks:
        n = len(BLOCKS[b][1])
        out[b] = slice(start, start + n)
        start += n
    return out


def split_indices(labels, test_fraction: float, seed: int):
    """A stratified, seeded split of image indices: ``(train, test)``, each sorted.

    In every class the images are permuted by ``default_rng(seed)`` and the first
    ``round(test_fraction * n_class)`` go to the test split.
    """
    labels = np.asarray(labels)
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must lie in (0, 1), got {test_fraction}")
    rng = np.random.default_rng(int(seed))
    train, test = [], []
    for c in np.unique(labels):
        idx = np.flatnonzero(labels == c)
        idx = idx[rng.permutation(idx.size)]
        k = int(round(test_fraction * idx.size))
        test.append(idx[:k])
        train.append(idx[k:])
    return np.sort(np.concatenate(train)), np.sort(np.concatenate(test))


def _subsample(labels, idx, per_class: int | None, seed: int):
    """The first ``per_class`` images of each class of ``idx`` in a seeded order (all
    when ``per_class`` is None)."""
    if per_class is None:
        return idx
    rng = np.random.default_rng(int(seed) + 1)
    keep = []
    for c in np.unique(labels[idx]):
        mine = idx[labels[idx] == c]
        if per_class > mine.size:
            raise ValueError(
                f"images_per_class={per_class} but class {c} has only {mine.size} "
                "training images"
            )
        keep.append(mine[rng.permutation(mine.size)[:per_class]])
    return np.sort(np.concatenate(keep))


def _dataset(name, pixels, labels, images, blocks):
    """Stack images over contexts: ``X`` (64 + C) x (C n), ``Y`` (10 + sum of block
    sizes) x (C n), context-major columns."""
    C = len(blocks)
    n = pixels.shape[0]
    contexts = np.repeat(np.arange(C), n)
    X = np.vstack([np.tile(pixels.T, (1, C)), np.repeat(np.eye(C), n, axis=1)])
    onehot = np.eye(N_CLASSES)[labels].T  # 10 x n
    Y_blocks = [np.tile(onehot, (1, C))]
    features = [f"class{k}" for k in range(N_CLASSES)]
    for k, b in enumerate(blocks):
        fn, names = BLOCKS[b]
        lab = np.eye(len(names))[fn(labels)].T
        blk = np.zeros((len(names), C * n))
        blk[:, contexts == k] = lab
        Y_blocks.append(blk)
        features += [f"c{k + 1}.{b}.{r}" for r in names]
    return Dataset(
        name=name,
        X=X,
        Y=np.vstack(Y_blocks),
        inputs=tuple(
            [f"px{i}" for i in range(pixels.shape[1])]
            + [f"ctx{k + 1}" for k in range(C)]
        ),
        features=tuple(features),
        items=np.tile(images, C),
        contexts=contexts,
        n_contexts=C,
    )


def digits_task(
    images_per_class: int = 0,
    test_fraction: float = 0.2,
    seed: int = 0,
    blocks=("parity", "ge5", "mod3"),
) -> DigitsTask:
    """The contextual digits task (module docstring), split and scaled.

    ``seed`` fixes the stratified train/test split (:func:`split_indices`) and the
    subsample of ``images_per_class`` training images per class (0: all of them); the
    test split is always whole.  Pixels: divided by 16 and then by one factor, so that
    the training images' mean squared norm is 1, the norm of the context one-hot (and of
    Section 4's one-hot items); they stay non-negative (no centring).
    """
    from sklearn.datasets import load_digits

    blocks = tuple(blocks)
    unknown = [b for b in blocks if b not in BLOCKS]
    if unknown or not blocks:
        raise ValueError(
            f"blocks must be a non-empty list among {sorted(BLOCKS)}, got "
            f"{list(blocks)}"
        )
    if len(set(blocks)) != len(blocks):
        raise ValueError(f"blocks must not repeat, got {list(blocks)}")
    if (
        isinstance(images_per_class, bool)
        or not isinstance(images_per_class, (int, np.integer))
        or images_per_class < 0
    ):
        raise ValueError(
            f"images_per_class must be an integer >= 0 (0: all), got "
            f"{images_per_class!r}"
        )
    data = load_digits()
    pixels = np.asarray(data.data, float) / 16.0
    labels = np.asarray(data.target, int)
    tr, te = split_indices(labels, test_fraction, seed)
    tr = _subsample(labels, tr, int(images_per_class) or None, seed)
    scale = 1.0 / np.sqrt(np.mean(np.sum(pixels[tr] ** 2, axis=1)))
    train = _dataset("digits(train)", scale * pixels[tr], labels[tr], tr, blocks)
    test = _dataset("digits(test)", scale * pixels[te], labels[te], te, blocks)
    return DigitsTask(
        train=train,
        test=test,
        labels_train=labels[tr],
        labels_test=labels[te],
        images_train=tr,
        images_test=te,
        scale=float(scale / 16.0),
        blocks=blocks,
    )


# ----------------------------------------------------------------------------- training


def step_size(ds: Dataset, kappa: float) -> float:
    """The step size ``lr = kappa / s_1``, ``s_1`` the top singular value of
    ``Sigma_yx = Y X^T`` (summed over datapoints, [conv-data]).

    A mode of a two-layer network with singular value ``s`` sits at its fixed point with
    a Hessian whose top eigenvalue is ``2 s`` (balanced weights, [conv-linear]), so
    gradient descent is stable for ``lr s < 1``; and the Euler steps lag gradient flow
    by about ``lr s / 2``.  On the summed loss ``s_1`` grows with the number of
    datapoints, so a fixed ``kappa = lr s_1`` keeps both the same whatever the
    subsample.
    """
    if not kappa > 0:
        raise ValueError(f"kappa must be positive, got {kappa}")
    s1 = float(np.linalg.svd(ds.Y @ ds.X.T, compute_uv=False)[0])
    return float(kappa) / s1


def affine_floor(ds: Dataset) -> float:
    """The lowest summed loss a context-gated ReLN can reach on ``ds``.

    In context ``c`` the pathways that are on add up to one linear map of the item rows,
    and the common pathway adds a bias through the context one-hot; with C - 1-of-C (or
    single-context) pathways these maps are free per context.  So the floor is the sum
    over contexts of the least-squares residual of an affine map of the pixels.
    """
    items = [i for i, n in enumerate(ds.inputs) if not n.startswith("ctx")]
    total = 0.0
    for c in range(ds.n_contexts):
        cols = ds.contexts == c
        A = np.vstack([ds.X[items][:, cols], np.ones(int(cols.sum()))])
        Yc = ds.Y[:, cols]
        W = np.linalg.lstsq(A.T, Yc.T, rcond=None)[0].T
        total += 0.5 * float(np.sum((Yc - W @ A) ** 2))
    return total


def answers(Yhat, task: DigitsTask, split: str = "train") -> dict:
    """Error rates of outputs ``Yhat`` (``p x P``, or stacked with leading axes) on the
    ``split``: a datapoint (image, context) is answered correctly when the largest entry
    of the class block is its class *and* the largest entry of its context's block is
    its label there.  Returns ``error`` and its two parts ``class_error`` and
    ``context_error`` (fractions of datapoints), each with the leading axes of ``Yhat``.
    """
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    ds = task.train if split == "train" else task.test
    Yhat = np.asarray(Yhat, float)
    rows = task.rows()
    truth_class = np.argmax(ds.Y[rows["class"]], axis=0)
    pred_class = np.argmax(Yhat[..., rows["class"], :], axis=-2)
    ok_class = pred_class == truth_class
    ok_ctx = np.zeros(Yhat.shape[:-2] + (ds.P,), bool)
    for k, b in enumerate(task.blocks):
        cols = ds.contexts == k
        truth = np.argmax(ds.Y[rows[b]][:, cols], axis=0)
        pred = np.argmax(Yhat[..., rows[b], :][..., cols], axis=-2)
        ok_ctx[..., cols] = pred == truth
    return {
        "error": 1 - np.mean(ok_class & ok_ctx, axis=-1),
        "class_error": 1 - np.mean(ok_class, axis=-1),
        "context_error": 1 - np.mean(ok_ctx, axis=-1),
    }


# ----------------------------------------------------------------------------- gates


GATE_KINDS = ("off", "context", "item", "both")


def _by_context(G, ds: Dataset):
    """``G`` (``R x P``) as ``R x C x n``, checking the columns are context-major with
    the same images in every context."""
    G = np.atleast_2d(np.asarray(G, float))
    C = ds.n_contexts
    n = ds.P // C
    if n * C != ds.P or not np.all(ds.contexts == np.repeat(np.arange(C), n)):
        raise ValueError(
            f"{ds.name}: columns must be context-major with C = {C} equal blocks"
        )
    items = ds.items.reshape(C, n)
    if not np.all(items == items[0]):
        raise ValueError(
            f"{ds.name}: every context must show the same images in the same order"
        )
    if G.shape[1] != ds.P:
        raise ValueError(f"gates cover {G.shape[1]} datapoints, the dataset {ds.P}")
    return G.reshape(G.shape[0], C, n)


def gate_sources(G, ds: Dataset, labels=None, tol: float = 0.05) -> dict:
    """What each gate (a row of ``G`` over the datapoints) is a function of.

    ``dev_context``: the fraction of datapoints where the gate differs from its nearest
    context-level gate (per context, on where it is on for at least half the images);
    ``dev_item``: from its nearest image-level gate (per image, on where it is on in at
    least half the contexts); ``dev_class`` (with the class ``labels`` of the images):
    from its nearest gate by class and context.  ``kind``: ``'off'`` when on for at most
    ``tol`` of the datapoints, ``'context'`` when ``dev_context <= tol`` (this includes
    always on), ``'item'`` when ``dev_item <= tol``, else ``'both'``.
    """
    if not 0 <= tol < 0.5:
        raise ValueError(f"tol must lie in [0, 0.5), got {tol}")
    B = _by_context(G, ds) >= 0.5  # R x C x n
    ctx = B.mean(axis=2, keepdims=True) >= 0.5
    item = B.mean(axis=1, keepdims=True) >= 0.5
    out = {
        "dev_context": np.mean(B != ctx, axis=(1, 2)),
        "dev_item": np.mean(B != item, axis=(1, 2)),
    }
    if labels is not None:
        labels = np.asarray(labels)
        snap = np.zeros_like(B)
        for c in np.unique(labels):
            m = labels == c
            snap[:, :, m] = B[:, :, m].mean(axis=2, keepdims=True) >= 0.5
        out["dev_class"] = np.mean(B != snap, axis=(1, 2))
    on = B.mean(axis=(1, 2))
    kind = np.where(
        on <= tol,
        "off",
        np.where(
            out["dev_context"] <= tol,
            "context",
            np.where(out["dev_item"] <= tol, "item", "both"),
        ),
    )
    out["kind"] = kind
    return out


def weight_by_kind(kind, weight) -> dict:
    """Share of ``weight`` (e.g. :func:`helpers.core.measures.unit_weight`) per gate
    kind."""
    kind = np.asarray(kind)
    w = np.asarray(weight, float)
    return {k: float(w[kind == k].sum() / w.sum()) for k in GATE_KINDS}


def nearest_training_image(task: DigitsTask) -> np.ndarray:
    """For every test image, the index (among the training images) of the nearest
    training image in scaled pixel space (Euclidean)."""
    n_tr = task.train.P // task.n_contexts
    n_te = task.test.P // task.n_contexts
    px = [i for i, name in enumerate(task.train.inputs) if not name.startswith("ctx")]
    A = task.train.X[px, :n_tr].T
    B = task.test.X[px, :n_te].T
    d2 = (B**2).sum(1)[:, None] - 2 * B @ A.T + (A**2).sum(1)[None, :]
    return np.argmin(d2, axis=1)


def held_out_columns(task: DigitsTask) -> np.ndarray:
    """For every test datapoint (image, context), the training datapoint whose gates it
    takes: the nearest training image in the same context.  A gate that depends on the
    context only is then extended exactly; one that depends on the image is extended
    by nearest neighbour."""
    nn = nearest_training_image(task)
    n_tr = task.train.P // task.n_contexts
    return np.concatenate([c * n_tr + nn for c in range(task.n_contexts)])


def on_columns(net, cols):
    """A one-hidden-layer GDLN whose fixed gates are those of ``net`` at the datapoints
    ``cols`` (so that trained weights can be evaluated on other datapoints)."""
    L = net.layers[0]
    if net.depth != 1 or L.mode != "fixed":
        raise ValueError("on_columns takes a one-hidden-layer GDLN with fixed gates")
    cols = np.asarray(cols, int)
    return replace(
        net, layers=(replace(L, gating=L.gating[:, cols]),), P=int(cols.size)
    )


def final_outputs(run, X, cols=None) -> np.ndarray:
    """Outputs ``(seeds, p, P)`` on inputs ``X`` of a trained network with the weights
    of its last recorded epoch (record the final epoch); for a GDLN, ``cols`` names the
    training datapoints whose gates each column of ``X`` takes
    (:func:`held_out_columns`).
    """

    net = run.net if cols is None else on_columns(run.net, cols)
    Ws = [W[:, -1] for W in run.records["weights"]]
    return np.stack(
        [forward(net, [W[s] for W in Ws], X)[0] for s in range(len(run.seeds))]
    )


# -----------------------------------------------------------------------------
# Algorithm 1


@dataclass
class CentroidFit:
    """One ``K`` of the elbow: the clustering, the GDLN built from its binarised
    centroids (None when every centroid is off everywhere), its training (loss every
    epoch; outputs and weights at the ReLU run's record epochs) and the output MSE
    against the ReLU network at the sampled epochs ([conv-gate-finding])."""

    K: int
    clustering: object
    net: object
    run: object
    output_mse: float
    output_mse_per_seed: tuple = ()


def centroid_fit(
    samples,
    ds: Dataset,
    K: int,
    *,
    lr: float,
    epochs: int,
    init_std: float,
    random_state: int = 0,
    n_init: int = 10,
    n_seeds: int = 1,
    gdln_width: int | None = None,
) -> CentroidFit:
    """Algorithm 1 for one ``K`` (:mod:`helpers.core.algorithm1`): k-means of the
    sampled gates, the GDLN of the binarised centroids (widths by share, the ReLU
    network's init std, fully coupled), trained from the ReLU run's first ``n_seeds``
    seeds, and the mean squared difference of its outputs from the ReLU network's over
    the sampled epochs, outputs and datapoints (the core's
    :func:`~helpers.core.algorithm1.gdln_error`, keeping the trained weights too).

    The core's GDLN drops the centroids that are off everywhere; here their units stay,
    as one last pathway whose weights start (and so stay) at zero, so that every ``K``
    has the same shapes and the engine compiles once.  The function the GDLN computes
    and
    learns is the core's; only the random draws of the readout weights differ.

    ``gdln_width``: the GDLN's units shared out by the clusters (default: the ReLU
    network's width; with :func:`live_samples`, the live units' share of it); the
    rest are inert.  ``output_mse_per_seed``: the error of each GDLN seed against the
    ReLU seed it starts from."""

    relu = samples.run
    n = int(n_seeds)
    if not 1 <= n <= len(relu.seeds):
        raise ValueError(f"n_seeds must lie in 1..{len(relu.seeds)}, got {n_seeds!r}")
    idx = [relu.index(int(e)) for e in samples.epochs]
    O_relu = relu.records["outputs"][:n][:, idx]
    cl = cluster_gates(samples, K, random_state=random_state, n_init=n_init)
    width = samples.width if gdln_width is None else int(gdln_width)
    if not 1 <= width <= samples.width:
        raise ValueError(f"gdln_width must lie in 1..{samples.width}, got {width}")
    net = centroid_gdln(
        cl, ds.X.shape[0], ds.Y.shape[0], width=width, init_std=init_std
    )
    if net is None:
        per = tuple(float(np.mean(o**2)) for o in O_relu)
        return CentroidFit(int(K), cl, None, None, float(np.mean(O_relu**2)), per)
    spare = samples.width - net.sizes[1]
    if spare:
        # the units of centroids that are off everywhere, kept as one pathway whose
        # weights start at 0: a two-layer block at zero gets no gradient, so it adds and
        # learns nothing, and every K then has the ReLU network's width (one
        # compilation)
        L = net.layers[0]
        pws = [
            Pathway(
                name, sl.stop - sl.start, L.gating[sl][0], None, (init_std, init_std)
            )
            for name, sl in L.pathways
        ]
        pws.append(Pathway("inert", spare, None, None, (0.0, 0.0)))
        net = gdln(ds.X.shape[0], ds.Y.shape[0], ds.P, pws)
    run = train(
        net,
        ds.X,
        ds.Y,
        lr=lr,
        epochs=epochs,
        seeds=relu.seeds[:n],
        record_epochs=relu.record_epochs,
        record=("outputs", "weights"),
    )
    diff2 = (O_relu - run.records["outputs"][:, idx]) ** 2
    per = tuple(float(np.mean(d)) for d in diff2)
    return CentroidFit(int(K), cl, net, run, float(np.mean(diff2)), per)


def live_samples(samples, tol: float = 0.0):
    """Algorithm 1's samples without the dead rows (``book/digits.md``): the activity
    rows of units on for at most a share ``tol`` of the datapoints (the tolerance at
    which :func:`gate_sources` calls a gate "off"; ``tol = 0``: off for every
    datapoint) are dropped before k-means, so no cluster is spent on them.  Returns
    the samples and the live share of all stacked rows."""
    from dataclasses import replace as _replace

    if not 0 <= tol < 1:
        raise ValueError(f"tol must lie in [0, 1), got {tol}")
    live = samples.patterns.mean(axis=1) > tol
    share = float(samples.counts[live].sum() / samples.counts.sum())
    out = _replace(
        samples,
        patterns=samples.patterns[live],
        counts=samples.counts[live],
        index=None,
    )
    return out, share


def k_rule(ks, errors_per_seed, rule: str = "bend") -> dict:
    """The elbow of Algorithm 1's error with its spread over GDLN seeds
    (``book/digits.md``): ``errors_per_seed`` ``(K, seeds)``; ``k``: the rule
    (:func:`~helpers.core.algorithm1.elbow_k`) on the median error over seeds;
    ``per_seed``: the rule on each seed's own curve; ``interval``: their smallest and
    largest (the K the rule can give from one seed to the next)."""
    E = np.asarray(errors_per_seed, float)
    ks = list(ks)
    k = elbow_k(ks, np.median(E, axis=1), rule)
    per = [int(elbow_k(ks, E[:, j], rule)) for j in range(E.shape[1])]
    return {"k": int(k), "per_seed": per, "interval": (min(per), max(per))}


def census_over_training(run, ds: Dataset, labels=None, tol: float = 0.05) -> dict:
    """The ReLU network's gating at every recorded epoch, per seed ([conv-census]).

    Returns arrays ``(seeds, R)``: the census by weight (``common``, ``mixed``,
    ``single``, ``other``, ``item_dependent``,
    :func:`helpers.core.measures.gating_census`), the functional census's
    ``snap_change`` and, by weight, the share of units whose gate is a function of the
    context only, the image only, or both (:func:`gate_sources`;
    ``by_class``: the share whose gate follows class and context)."""

    G = run.records["gates"][0]
    W1, W2 = run.records["weights"]
    S, R = G.shape[:2]
    keys = [
        "common",
        "mixed",
        "single",
        "other",
        "item_dependent",
        "snap_change",
        *GATE_KINDS,
        "by_class",
    ]
    out = {k: np.zeros((S, R)) for k in keys}
    C = ds.n_contexts
    for s in range(S):
        for r in range(R):
            cen = gating_census(G[s, r], W1[s, r], W2[s, r], ds.contexts, C)
            for k in ("common", "mixed", "single", "other", "item_dependent"):
                out[k][s, r] = cen[k]
            out["snap_change"][s, r] = functional_census(
                W1[s, r], W2[s, r], ds.X, ds.contexts, C
            )["snap_change"]
            w = unit_weight(W1[s, r], W2[s, r])
            src = gate_sources(G[s, r], ds, labels, tol)
            for k, v in weight_by_kind(src["kind"], w).items():
                out[k][s, r] = v
            if labels is not None:
                out["by_class"][s, r] = float(
                    w[src["dev_class"] <= tol].sum() / w.sum()
                )
    return out


def census_shuffled(run, ds: Dataset, epochs, contexts) -> dict:
    """The census of the trained ReLU network read with the contexts shuffled over the
    datapoints: the chance control of the census (Defined for the page
    book/digits.md).

    Args:
        run: the ReLU run, with ``gates`` and ``weights`` recorded at ``epochs``.
        ds: the training task (its input, for the snap change).
        epochs: the record epochs to read.
        contexts: the shuffled context of each datapoint (a permutation of
            ``ds.contexts``: as many datapoints per context); the gates and weights
            are the network's.

    Returns:
        ``{epoch: {common, mixed, single, other, item_dependent, snap_change}}``,
        medians over the run's seeds.
    """
    shuffled = np.asarray(contexts)
    if sorted(shuffled.tolist()) != sorted(np.asarray(ds.contexts).tolist()):
        raise ValueError("contexts must be a permutation of ds.contexts")
    G = run.records["gates"][0]
    W1, W2 = run.records["weights"]
    C = ds.n_contexts
    out = {}
    for e in epochs:
        i = run.index(int(e))
        rows = []
        for s in range(G.shape[0]):
            cen = gating_census(G[s, i], W1[s, i], W2[s, i], shuffled, C)
            cen["snap_change"] = functional_census(
                W1[s, i], W2[s, i], ds.X, shuffled, C
            )["snap_change"]
            rows.append(cen)
        keys = ("common", "mixed", "single", "other", "item_dependent", "snap_change")
        out[int(e)] = {k: float(np.median([c[k] for c in rows])) for k in keys}
    return out


def cluster_classes(clustering, contexts, n_contexts: int) -> dict:
    """Algorithm 1's clusters by census class (Defined for the page book/digits.md).

    Args:
        clustering: a :class:`helpers.core.algorithm1.Clustering`.
        contexts: the context of each datapoint (shuffle them for the chance
            reading).
        n_contexts: C.

    Returns:
        ``{common, mixed, single, other}``: the share of the sampled rows in clusters
        whose binarised centroid, read at the level of contexts, is on in every
        context, in C - 1, in one, or otherwise.
    """
    C = int(n_contexts)
    pats = pattern_strings(clustering.binary, np.asarray(contexts), C)
    out = {"common": 0.0, "mixed": 0.0, "single": 0.0, "other": 0.0}
    for p, w in zip(pats, clustering.shares):
        k = p.count("1")
        cls = (
            "common"
            if k == C
            else "mixed"
            if k == C - 1 and C > 2
            else "single"
            if k == 1
            else "other"
        )
        out[cls] += float(w)
    return out


def timing_levels(levels, floor_frac: float, margin: float) -> tuple:
    """The loss levels the ReLNs are timed at (Defined for the page book/digits.md).

    Args:
        levels: candidate fractions of L0, each in (0, 1).
        floor_frac: the floor of any context-gated ReLN over L0.
        margin: a level is kept when it is at least ``margin`` times the floor (a
            ReLN nears its floor only slowly, so a level just above it times the
            floor, not the race), ``margin >= 1``.

    Returns:
        The kept levels, highest first (at least the highest level, so that a time
        gap exists).
    """
    lv = sorted({float(f) for f in levels}, reverse=True)
    if not lv or not all(0 < f < 1 for f in lv):
        raise ValueError(f"levels must be fractions in (0, 1), got {levels!r}")
    if not margin >= 1:
        raise ValueError(f"margin must be >= 1, got {margin!r}")
    return tuple(f for f in lv if f >= margin * floor_frac) or (lv[0],)


def compare_to_chance(value: float, baselines: dict) -> str:
    """``'below'``, ``'above'`` or ``'within'`` the range of chance ``baselines``
    (``{name: value}``) (Defined for the page book/digits.md): a ratio the network
    has is read against what chance gives, not a constant."""
    lo, hi = min(baselines.values()), max(baselines.values())
    return "below" if value < lo else "above" if value > hi else "within"


def pathway_diagonalizability(net, ds: Dataset) -> dict:
    """Assumption 2.1.1 for every pathway of a one-hidden-layer GDLN: the core's
    :func:`helpers.core.linear.diagonalizability` of the pathway's effective dataset
    (the
    inputs it sees, on the datapoints where it is on, against the targets there)."""

    L = net.layers[0]
    out = {}
    for name, sl in L.pathways:
        gate = L.gating[sl][0] > 0
        rows = (
            np.arange(ds.X.shape[0])
            if L.in_mask is None
            else np.flatnonzero(L.in_mask[sl][0])
        )
        out[name] = diagonalizability(ds.X[rows][:, gate], ds.Y[:, gate])
    return out


# -----------------------------------------------------------------------------
# Controls that separate the causes (book/digits.md, "Where the description breaks")


def _context_of_rows(ds: Dataset) -> np.ndarray:
    """For each output row: the context its block lives in, or -1 for the common
    block (rows named ``c<k>.<block>.<label>`` belong to context ``k - 1``)."""
    return np.array(
        [
            int(f[1 : f.index(".")]) - 1 if f.startswith("c") and "." in f else -1
            for f in ds.features
        ]
    )


def affine_targets(ds: Dataset) -> Dataset:
    """The task with every output block replaced by its least-squares affine fit from
    the pixels: the common block by one fit over the images (the same function of the
    image in every context), block ``k`` by a fit over context ``k``'s columns, zero
    elsewhere.  A context-gated ReLN can then reach zero loss (:func:`affine_floor`
    is 0 up to rounding): what is left between it and a ReLU network is not the
    nonlinearity of the targets."""
    items = [i for i, n in enumerate(ds.inputs) if not n.startswith("ctx")]
    A = np.vstack([ds.X[items], np.ones(ds.P)])
    rows = _context_of_rows(ds)
    Y = np.zeros_like(ds.Y)
    for c in sorted(set(rows)):
        r = rows == c
        cols = np.ones(ds.P, bool) if c < 0 else ds.contexts == c
        W = np.linalg.lstsq(A[:, cols].T, ds.Y[r][:, cols].T, rcond=None)[0].T
        Y[r] = (W @ A) * cols
    return replace(ds, name=f"{ds.name}, affine targets", Y=Y)


def whitened_pixels(ds: Dataset, tol: float = 1e-9) -> Dataset:
    """The task with the pixels replaced by their PCA-whitened coordinates over the
    images (centred, every principal direction with variance above ``tol`` times the
    largest at the same variance, scaled so that the images' mean squared norm is 1, as
    for the raw pixels): the inputs' covariance over images is a multiple of the
    identity.  Context rows and targets are kept."""
    items = [i for i, n in enumerate(ds.inputs) if not n.startswith("ctx")]
    n = ds.P // ds.n_contexts
    Xi = ds.X[items][:, :n]  # the images once (context-major columns)
    mu = Xi.mean(axis=1, keepdims=True)
    U, s, _ = np.linalg.svd(Xi - mu, full_matrices=False)
    keep = s > tol * s[0]
    Z = (U[:, keep].T @ (Xi - mu)) / s[keep][:, None]
    Z *= 1.0 / np.sqrt(np.mean(np.sum(Z**2, axis=0)))
    ctx = [i for i, nm in enumerate(ds.inputs) if nm.startswith("ctx")]
    X = np.vstack([np.tile(Z, (1, ds.n_contexts)), ds.X[ctx]])
    names = tuple([f"px{i}" for i in range(Z.shape[0])] + [ds.inputs[i] for i in ctx])
    return replace(ds, name=f"{ds.name}, whitened pixels", X=X, inputs=names)


def random_attributes(ds: Dataset, seed: int) -> Dataset:
    """The task with each context's block replaced by a random binary attribute of the
    image (one bit per image and context, ``np.random.default_rng(seed)``, as a
    one-hot pair), so the context labels are independent of the class; the common
    block (the class) is kept."""
    C = ds.n_contexts
    n = ds.P // C
    rng = np.random.default_rng(int(seed))
    bits = rng.integers(0, 2, size=(C, n))
    common = ds.Y[_context_of_rows(ds) < 0]
    blocks, features = (
        [],
        [f for f, c in zip(ds.features, _context_of_rows(ds)) if c < 0],
    )
    for k in range(C):
        blk = np.zeros((2, ds.P))
        blk[:, ds.contexts == k] = np.eye(2)[bits[k]].T
        blocks.append(blk)
        features += [f"c{k + 1}.random.{v}" for v in ("0", "1")]
    return replace(
        ds,
        name=f"{ds.name}, random attributes",
        Y=np.vstack([common, *blocks]),
        features=tuple(features),
    )


def control_run(
    ds: Dataset,
    seeds,
    *,
    relu_width: int,
    reln_width: int,
    relu_std: float,
    lr: float,
    epochs: int,
    levels=None,
    margin: float = 1.0,
) -> dict:
    """One control of ``book/digits.md``: the ReLU network (``relu_width`` units, std
    ``relu_std``) and the common + 2-of-3 and common + single-context ReLNs
    (``reln_width`` units per pathway, matched initialisation, one-way coupled,
    [conv-context-reln]) trained on ``ds`` from ``seeds``.

    Returns the time gaps of both ReLNs to the ReLU network (Matches, each with the
    other as its alternative: noise on both sides and the spread's bootstrap interval,
    [rulebook-noise]), the epochs at which each halves its loss (medians), the final
    losses and the floor of any context-gated ReLN (:func:`affine_floor`) as fractions
    of ``L0``, and the ReLU network's snap change at the end
    (:func:`helpers.core.measures.functional_census`)."""
    from ...core import relns
    from ...core.engine import relu_network

    seeds = list(seeds)
    relu_net = relu_network((ds.X.shape[0], relu_width, ds.Y.shape[0]), relu_std)
    relu = train(
        relu_net,
        ds.X,
        ds.Y,
        lr=lr,
        epochs=epochs,
        seeds=seeds,
        record_epochs=[epochs],
        record=("weights",),
    )
    L = {"relu": relu.loss}
    for kind in ("mixed", "single"):
        reln = relns.context_reln(ds, kind, "one-way", width=reln_width)
        net, p0 = relns.start(
            reln, "matched", seeds, relu_net=relu_net, relu_std=relu_std
        )
        L[kind] = train(
            net, ds.X, ds.Y, lr=lr, epochs=epochs, seeds=seeds, params0=p0
        ).loss
    W1, W2 = relu.records["weights"]
    snap = [
        functional_census(W1[s, -1], W2[s, -1], ds.X, ds.contexts, ds.n_contexts)[
            "snap_change"
        ]
        for s in range(len(seeds))
    ]
    return control_summary(L, ds, float(np.median(snap)), levels, margin)


def control_summary(
    L: dict, ds: Dataset, snap_change: float, levels=None, margin: float = 1.0
) -> dict:
    """The numbers :func:`control_run` returns, from the loss curves ``L`` (``relu``,
    ``mixed``, ``single``: ``(seeds, T)`` each) on ``ds`` and the ReLU network's final
    snap change: also used for the original task, whose runs the chapter has.  The
    time gaps are taken over the loss ``levels`` (default: the book's) that lie at
    least ``margin`` times above the floor (:func:`timing_levels`): below it no
    context-gated ReLN can follow, and a gap there measures the floor, not the
    race."""
    from ...core.measures import LEVELS, level_times, match

    L0 = 0.5 * float(np.sum(ds.Y**2))
    med = lambda v: float(np.median(v))  # noqa: E731
    floor = affine_floor(ds) / L0
    above = timing_levels(LEVELS if levels is None else levels, floor, margin)
    return {
        "mixed": match(L["relu"], L["mixed"], L["single"], levels=above),
        "single": match(L["relu"], L["single"], L["mixed"], levels=above),
        "levels": above,
        "t50": {k: med([level_times(c, (0.5,))[0] for c in v]) for k, v in L.items()},
        "final": {k: med(v[:, -1]) / L0 for k, v in L.items()},
        "final_per_seed": {k: [float(x) / L0 for x in v[:, -1]] for k, v in L.items()},
        "floor": floor,
        "snap_change": float(snap_change),
    }


def controls_table(rows: dict) -> str:
    """The controls of ``book/digits.md`` as a Markdown table: ``rows`` of
    :func:`control_summary` by name."""
    lines = [
        "| task | floor / L0 | final loss / L0: ReLU, 2-of-3, single "
        "| epoch of L0/2: ReLU, 2-of-3, single | levels | gap 2-of-3 | gap single "
        "| seed spread [90 %] | snap change (ReLU, end) |",
        "|" + "---|" * 9,
    ]
    for name, r in rows.items():
        m, s = r["mixed"], r["single"]
        lo, hi = m.spread_interval
        fin = ", ".join(f"{r['final'][k]:.3f}" for k in ("relu", "mixed", "single"))
        t50 = ", ".join(f"{r['t50'][k]:.0f}" for k in ("relu", "mixed", "single"))
        lines.append(
            f"| {name} | {r['floor']:.3f} | {fin} | {t50} "
            f"| {', '.join(f'{f:g}' for f in r['levels'])} | {m.value:.3f} "
            f"| {s.value:.3f} | {m.spread:.3f} [{lo:.3f}, {hi:.3f}] "
            f"| {r['snap_change']:.2f} |"
        )
    return "\n".join(lines)


def relu_ahead(row: dict, multiple: float) -> bool:
    """Whether the ReLU network is ahead in one row of :func:`control_summary`: its
    loss halves before both ReLNs', and its gap to the 2-of-3 ReLN exceeds ``multiple``
    times the top of the spread's 90 % bootstrap interval (the answer cannot flip
    within the interval, [rulebook-noise]); only the 2-of-3 gap is held against the
    noise."""
    t = row["t50"]
    first = t["relu"] < min(t["mixed"], t["single"])
    return bool(
        first and row["mixed"].value > multiple * row["mixed"].spread_interval[1]
    )


def relu_ends_lower(row: dict, multiple: float) -> bool:
    """The late lead in one row of :func:`control_summary`: the ReLU network's final
    loss is below both ReLNs', and below the lower of the two by more than
    ``multiple`` times the top of the 90 % bootstrap interval of the final losses'
    seed spread (the ReLU network's and that ReLN's, noise on both sides,
    [rulebook-noise])."""
    f = row["final"]
    nearer = min(("mixed", "single"), key=lambda k: f[k])
    per = row["final_per_seed"]
    hi = seed_spread_interval(per["relu"], per[nearer])[1]
    return bool(f[nearer] - f["relu"] > multiple * hi)


CAUSES = {
    "affine targets": "targets that are not affine in the pixels",
    "whitened pixels": "correlated pixels with a common mean (whitening removes both; "
    "the controls do not separate them)",
    "random context labels": "context labels that are functions of the class",
}


def explain_controls(leads: dict, finals: dict | None = None) -> str:
    """What the controls of ``book/digits.md`` show, in words, per control and per
    lead: ``leads[name] = {"early": bool, "late": bool}`` for ``'the task'``,
    ``'affine targets'``, ``'whitened pixels'``, ``'random context labels'``
    (:func:`relu_ahead`: the ReLU network halves its loss first beyond the noise;
    :func:`relu_ends_lower`: it ends lower beyond the noise), ``finals[name]``: the
    final losses (fractions of L0) of ``relu``, ``mixed`` and ``single``.  Each
    control removes one candidate cause; each sentence says only which of the two
    leads stays without it."""
    task = leads.get("the task", {"early": True, "late": True})
    if not (task["early"] or task["late"]):
        return (
            "on the task itself the ReLU network is not ahead of the ReLNs beyond the "
            "seed noise, at L0/2 or at the end, so the controls have no lead to "
            "explain."
        )
    parts = []
    for k, cause in CAUSES.items():
        if k not in leads:
            continue
        e, late = leads[k]["early"], leads[k]["late"]
        early_txt = (
            "still halves its loss first beyond the noise"
            if e
            else "no longer halves its loss first beyond the noise (the early lead, "
            "at L0/2, goes)"
        )
        late_txt = (
            "ends lower than both ReLNs beyond the noise"
            if late
            else ("no longer ends lower than both ReLNs beyond the noise")
        )
        if finals and k in finals:
            f = finals[k]
            late_txt += (
                f" ({f['relu']:.3f} L0 against {f['mixed']:.3f} for the 2-of-3 and "
                f"{f['single']:.3f} for the single-context ReLN)"
            )
        parts.append(f"without {cause}, the ReLU network {early_txt} and {late_txt}")
    text = "; ".join(parts) + ". "
    early_kept = [CAUSES[k] for k in CAUSES if k in leads and leads[k]["early"]]
    late_kept = [CAUSES[k] for k in CAUSES if k in leads and leads[k]["late"]]
    early_gone = [k for k in CAUSES if k in leads and not leads[k]["early"]]
    late_gone = [k for k in CAUSES if k in leads and not leads[k]["late"]]
    if early_gone:
        text += "So the early lead is lost with " + " and with ".join(early_gone)
    else:
        text += "So no one control takes the early lead away"
    if late_gone:
        text += "; the late lead is lost with " + " and with ".join(late_gone) + "."
    else:
        text += (
            "; the late lead survives every control, so none of the features the "
            "controls remove is needed for it."
        )
    if early_kept and late_kept and not (early_gone or late_gone):
        text += (
            " Each control leaves in place one thing the paper's tasks lack: the "
            "inputs are points in a continuous space, where a unit's half-space can "
            "pick out a group of images, so gates that depend on the image as well as "
            "on the context are available. That these gates are what speed the ReLU "
            "network up is a hypothesis the controls leave standing, not one they test."
        )
    return text


def controls_record(controls: dict, ahead: dict, late: dict | None = None) -> dict:
    """The controls of ``book/digits.md`` as one record's value: per task, the two
    ReLNs' time gaps over the levels above the floor, the seed spread with its 90 %
    bootstrap interval, the halving epochs, final losses (with the 90 % interval of
    their seed spread, ReLU against the nearer ReLN) and floor (fractions of L0), the
    snap change, :func:`relu_ahead` (the early lead) and :func:`relu_ends_lower` (the
    late lead)."""
    out = {}
    for k, r in controls.items():
        m = r["mixed"]
        out[k] = {
            "gap_mixed": m.value,
            "gap_single": r["single"].value,
            "spread": m.spread,
            "spread_interval": [float(v) for v in m.spread_interval],
            "levels": [float(f) for f in r["levels"]],
            "t50": dict(r["t50"]),
            "final": dict(r["final"]),
            "floor": r["floor"],
            "snap_change": r["snap_change"],
            "relu_ahead": bool(ahead[k]),
        }
        if late is not None:
            out[k]["relu_ends_lower"] = bool(late[k])
        per = r.get("final_per_seed")
        if per:
            f = r["final"]
            nearer = min(("mixed", "single"), key=lambda q: f[q])
            out[k]["final_spread_interval"] = [
                float(v) for v in seed_spread_interval(per["relu"], per[nearer])
            ]
    return out


# ------------------------------------------------------------------------ the page's


def check_parameters(p: dict) -> None:
    """Refuse parameter values of ``book/digits.md`` (``p``: the page's namespace) that
    its data file's rules cannot say, naming each (ValueError)."""
    seeds = p["seeds"]
    for name, ok, what in [
        ("trainings", p["trainings"] <= seeds, f"at most seeds = {seeds}"),
        ("elbow_seeds", 2 <= p["elbow_seeds"] <= seeds, f"2 .. seeds = {seeds}"),
        ("k_max", p["k_max"] >= 3, "at least 3 (the elbow needs a K on each side)"),
        ("kappa", p["kappa"] < 1, "below 1 (beyond, gradient descent is unstable)"),
        ("test_fraction", p["test_fraction"] < 1, "below 1"),
        ("gate_tolerance", p["gate_tolerance"] < 0.5, "below 0.5"),
        (
            "reln_levels",
            len(p["reln_levels"]) >= 3 and all(0 < f < 1 for f in p["reln_levels"]),
            "at least three fractions of L0 in (0, 1)",
        ),
        ("floor_margin", p["floor_margin"] >= 1, "at least 1"),
        (
            "epochs",
            p["epochs"] >= 3 * p["sample_every"],
            "at least 3 x sample_every",
        ),
        (
            "show_ks",
            all(1 <= k <= p["k_max"] for k in p["show_ks"]),
            f"within 1..{p['k_max']}",
        ),
    ]:
        if not ok:
            raise ValueError(f"{name} must be {what}, got {p[name]!r}")


def step_size_check(net, X, Y, lr: float, epochs: int, loss, seed: int = 0) -> dict:
    """How much the step size moves the learning times: ``net`` trained from ``seed``
    at half the step for twice the epochs and at twice the step for half the epochs;
    per factor (0.5, 2.0), the largest ``|ln|`` ratio of its level times (in units of
    the chosen step) to those of ``loss``, the same seed's curve at ``lr``."""
    from ...core.measures import level_times

    t_main = np.array([level_times(loss)])
    out = {}
    for f in (0.5, 2.0):
        other = train(net, X, Y, lr=lr * f, epochs=int(epochs / f), seeds=[seed])
        t_f = np.array([level_times(L) for L in other.loss]) * f
        out[f] = float(np.nanmax(np.abs(np.log(t_f / t_main))))
    return out


#: The loss levels (fractions of L0) at which the chapter reads the gaps one at a time.
GRID = (0.9, 0.8, 0.7, 0.6, 0.5, 0.3, 0.2, 0.1)


def gaps_by_level(relu_loss, losses: dict, L0: float, floor: float, grid=GRID):
    """The time gap of the ReLU network's curves ``relu_loss`` to each ReLN's
    (``losses``: ``mixed``, ``single``, ``derived``) at one level at a time, on the
    levels of ``grid`` above the ``floor`` that every seed of every ReLN reaches:
    ``{level: {"mixed", "single", "derived", "spread"}}`` (medians over seeds; the
    spread is the ReLU network's own)."""
    from ...core.measures import match

    out = {}
    for f in grid:
        reach = all(np.all(L.min(axis=1) <= f * L0) for L in losses.values())
        if f * L0 > floor and reach:
            m = {k: match(relu_loss, L, levels=(f,)) for k, L in losses.items()}
            out[f] = {k: m[k].value for k in ("mixed", "single", "derived")}
            out[f]["spread"] = m["mixed"].spread
    return out


from .plots import (  # noqa: E402
    plot_census,
    plot_centroids,
    plot_elbow,
    plot_relns,
    plot_relu,
    plot_task,
)
from .report import Results, errors_table, gap_table, k_table, report  # noqa: E402
