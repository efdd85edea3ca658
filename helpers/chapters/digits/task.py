"""The digits task of book/digits.md: Section 4's contextual task ([conv-contextual])
on scikit-learn's handwritten digits, its split, step-size rule, floor and error
rates.  Each image is shown in C = 3 contexts: inputs are 64 pixels (px0..) over the
context one-hot (ctx1..); outputs the one-hot class, then one block per context (a
coarser label of the class, zero outside its context); columns context-major."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ...core.datasets import Dataset
from ...core.engine import forward
from ...core.relns import common_fit, item_rows

#: The context blocks: name -> (label of a class 0..9, names of the one-hot rows).
BLOCKS = {
    "parity": (lambda c: c % 2, ("even", "odd")),
    "ge5": (lambda c: (c >= 5).astype(int), ("lt5", "ge5")),
    "mod3": (lambda c: c % 3, ("0", "1", "2")),
}
N_CLASSES = 10


@dataclass(frozen=True)
class DigitsTask:
    """The digits task: ``train`` and ``test`` datasets of (image, context) pairs, the
    images' classes and indices into ``load_digits``, the pixel scale, the blocks."""

    train: Dataset
    test: Dataset
    labels_train: np.ndarray
    labels_test: np.ndarray
    images_train: np.ndarray
    images_test: np.ndarray
    scale: float
    blocks: tuple[str, ...]

    n_contexts = property(lambda self: len(self.blocks))

    def rows(self) -> dict[str, slice]:
        """The output rows of each block: ``'class'`` then the context blocks."""
        out, start = {"class": slice(0, N_CLASSES)}, N_CLASSES
        for b in self.blocks:
            out[b] = slice(start, start + len(BLOCKS[b][1]))
            start = out[b].stop
        return out


def split_indices(labels, test_fraction: float, seed: int):
    """A stratified, seeded split of image indices, ``(train, test)``, each sorted."""
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


def _subsample(labels, idx, per_class: int, seed: int):
    """``per_class`` images of each class of ``idx``, seeded."""
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
    """The images stacked over contexts, context-major columns."""
    C, (n, n_px) = len(blocks), pixels.shape
    contexts = np.repeat(np.arange(C), n)
    X = np.vstack([np.tile(pixels.T, (1, C)), np.repeat(np.eye(C), n, axis=1)])
    onehot = np.eye(N_CLASSES)[labels].T  # 10 x n
    Y_blocks = [np.tile(onehot, (1, C))]
    features = [f"class{k}" for k in range(N_CLASSES)]
    for k, b in enumerate(blocks):
        fn, names = BLOCKS[b]
        blk = np.zeros((len(names), C * n))
        blk[:, contexts == k] = np.eye(len(names))[fn(labels)].T
        Y_blocks.append(blk)
        features += [f"c{k + 1}.{b}.{r}" for r in names]
    inputs = [f"px{i}" for i in range(n_px)] + [f"ctx{k + 1}" for k in range(C)]
    Y, items = np.vstack(Y_blocks), np.tile(images, C)
    return Dataset(name, X, Y, tuple(inputs), tuple(features), items, contexts, C)


def digits_task(
    images_per_class: int = 0, test_fraction: float = 0.2, seed: int = 0
) -> DigitsTask:
    """The contextual digits task (module docstring), split and scaled.

    Args:
        images_per_class: training images per class (0: all); the test split is whole.
        test_fraction: the share of every class held out.
        seed: seeds the split and the subsample.

    Returns:
        A :class:`DigitsTask`; pixels / 16 scaled by one factor to a mean squared norm
        of 1 over the training images, not centred.
    """
    from sklearn.datasets import load_digits  # scikit-learn only when it is used

    blocks = tuple(BLOCKS)
    if not isinstance(images_per_class, (int, np.integer)) or images_per_class < 0:
        raise ValueError(
            "images_per_class must be an integer >= 0 (0: all), got "
            f"{images_per_class!r}"
        )
    data = load_digits()
    pixels, labels = np.asarray(data.data, float) / 16.0, np.asarray(data.target, int)
    tr, te = split_indices(labels, test_fraction, seed)
    if images_per_class:
        tr = _subsample(labels, tr, int(images_per_class), seed)
    scale = 1.0 / np.sqrt(np.mean(np.sum(pixels[tr] ** 2, axis=1)))
    train = _dataset("digits(train)", scale * pixels[tr], labels[tr], tr, blocks)
    test = _dataset("digits(test)", scale * pixels[te], labels[te], te, blocks)
    return DigitsTask(
        train, test, labels[tr], labels[te], tr, te, float(scale / 16), blocks
    )


def step_size(ds: Dataset, kappa: float) -> float:
    """The step size ``lr = kappa / s_1``, ``s_1`` the top singular value of ``Y X^T``
    (stable for ``kappa < 1``)."""
    if not kappa > 0:
        raise ValueError(f"kappa must be positive, got {kappa}")
    s1 = float(np.linalg.svd(ds.Y @ ds.X.T, compute_uv=False)[0])
    return float(kappa) / s1


def affine_floor(ds: Dataset) -> float:
    """The lowest summed loss a context-gated ReLN can reach on ``ds``: per context,
    the least-squares residual of an affine map of the pixels, summed."""
    items, total = item_rows(ds), 0.0
    for c in range(ds.n_contexts):
        cols = ds.contexts == c
        A = np.vstack([ds.X[items][:, cols], np.ones(int(cols.sum()))])
        Yc = ds.Y[:, cols]
        W = np.linalg.lstsq(A.T, Yc.T, rcond=None)[0].T
        total += 0.5 * float(np.sum((Yc - W @ A) ** 2))
    return total


def answers(Yhat, task: DigitsTask, split: str = "train") -> dict:
    """Error rates (``error``, ``class_error``, ``context_error``) of outputs ``Yhat``
    (``(..., p, P)``) on the ``split``: a datapoint is right when the argmax of the
    class block and of its context's block are right."""
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


def held_out_columns(task: DigitsTask) -> np.ndarray:
    """For every test datapoint, the training datapoint whose gates it takes: the
    nearest training image in the same context."""
    n_tr, n_te = task.train.P // task.n_contexts, task.test.P // task.n_contexts
    px = item_rows(task.train)
    A, B = task.train.X[px, :n_tr].T, task.test.X[px, :n_te].T
    d2 = (B**2).sum(1)[:, None] - 2 * B @ A.T + (A**2).sum(1)[None, :]
    nn = np.argmin(d2, axis=1)
    return np.concatenate([c * n_tr + nn for c in range(task.n_contexts)])


def on_columns(net, cols):
    """The one-hidden-layer GDLN ``net`` with its fixed gates at the datapoints
    ``cols``."""
    L = net.layers[0]
    if net.depth != 1 or L.mode != "fixed":
        raise ValueError("on_columns takes a one-hidden-layer GDLN with fixed gates")
    cols = np.asarray(cols, int)
    return replace(
        net, layers=(replace(L, gating=L.gating[:, cols]),), P=int(cols.size)
    )


def final_outputs(run, X, cols=None) -> np.ndarray:
    """Outputs ``(seeds, p, P)`` on ``X`` of a run's last recorded weights; for a
    GDLN, ``cols``: the training datapoint whose gates each column takes."""
    net = run.net if cols is None else on_columns(run.net, cols)
    Ws = [W[:, -1] for W in run.records["weights"]]
    return np.stack(
        [forward(net, [W[s] for W in Ws], X)[0] for s in range(len(run.seeds))]
    )


@dataclass(frozen=True)
class Reference:
    """The reference losses: ``L0`` (output ~0), ``linear`` (the best linear map),
    ``linear_class`` (its class block) and ``floor`` (:func:`affine_floor`)."""

    L0: float
    linear: float
    linear_class: float
    floor: float


def reference_losses(task: DigitsTask) -> Reference:
    """The training task's :class:`Reference` (Defined for the page book/digits.md)."""
    ds = task.train
    R = common_fit(ds)[1]
    return Reference(
        L0=0.5 * float(np.sum(ds.Y**2)),
        linear=0.5 * float(np.sum(R**2)),
        linear_class=0.5 * float(np.sum(R[task.rows()["class"]] ** 2)),
        floor=affine_floor(ds),
    )


def relu_errors(relu, task: DigitsTask) -> dict:
    """The ReLU network's :func:`answers` on ``train`` and ``test`` at its end."""
    return {
        "train": answers(relu.records["outputs"][:, -1], task, "train"),
        "test": answers(final_outputs(relu, task.test.X), task, "test"),
    }
