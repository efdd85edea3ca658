"""The networks of Section 6 ([conv-depth]): the task, the ReLU network 11-420-420-60
and its GDLN (Fig. 6a) with the switch-on :class:`Schedule`."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ...book.chapter_data import profile
from ...core.checks import check_positive
from ...core.datasets import Dataset, context_gate, contextual_task
from ...core.engine import GatedNetwork, Pathway, deep_gdln, relu_network
from ...core.paper import DEPTH

# The authors' depth networks (facts of their code; :data:`helpers.core.paper.DEPTH`).
WIDTH = DEPTH.width
COMMON_WIDTH = DEPTH.common_width
GROUP_WIDTH = DEPTH.group_width
RELU_STD = DEPTH.relu_std
GDLN_STDS = {
    "layer1": DEPTH.gdln_std_layer1,
    "layer2": DEPTH.gdln_std_layer2,
    "readout_common": DEPTH.gdln_std_readout_common,
    "readout_context": DEPTH.gdln_std_readout_context,
}
LR = DEPTH.lr
EPOCHS = (
    DEPTH.epochs
)  # updates; the loss is kept at epochs 0..30000 (the authors' 30001)


@dataclass(frozen=True)
class Schedule:
    """Switch-on epochs of the depth GDLN ([conv-depth]): every gate is 0 before
    ``start``, the context (2-of-3) pathways until ``context``."""

    start: int
    context: int

    def __post_init__(self):
        for name in ("start", "context"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                raise ValueError(
                    f"Schedule.{name} must be an integer epoch >= 0, got {v!r}"
                )
        if self.context < self.start:
            raise ValueError(
                f"Schedule: the context pathways cannot switch on (epoch "
                f"{self.context}) before "
                f"the network does (start = {self.start})"
            )

    def as_list(self) -> list[int]:
        return [int(self.start), int(self.context)]


# The authors' hand-set schedule ([conv-depth]): nothing before 500, the common pathway
# alone until 12000.
HAND_SCHEDULE = Schedule(*DEPTH.hand_schedule)


def paper_profile_runs() -> dict[str, int]:
    """The depth chapter's training runs under the ``paper`` profile: ``"paper"``
    (Fig. 6b's) and ``"ours"`` (this book's additions)."""
    p = profile("paper", "depth")  # the chapter's data file: read, not copied
    return {
        "paper": 2 * p["seeds"],
        "ours": 2 * p["init_seeds"] + p["derived_seeds"] + p["coupling_seeds"],
    }


def depth_task() -> Dataset:
    """The Section 6 task ([conv-depth]): C = 3, hierarchy in every block; X 11 x 24."""
    return contextual_task(3)


def relu_depth(
    ds: Dataset | None = None, width: int = WIDTH, std: float = RELU_STD
) -> GatedNetwork:
    """The bias-free ReLU network ``d-width-width-p`` of Section 6 ([conv-depth]:
    11-420-420-60, std 0.0006)."""
    ds = depth_task() if ds is None else ds
    if int(width) <= 0:
        raise ValueError(f"width must be a positive number of units, got {width}")
    return relu_network(
        (ds.X.shape[0], int(width), int(width), ds.Y.shape[0]),
        check_positive(std, "std"),
    )


def depth_gdln(
    ds: Dataset | None = None,
    schedule: Schedule = HAND_SCHEDULE,
    coupling: str = DEPTH.coupling,
    common_width: int = COMMON_WIDTH,
    group_width: int = GROUP_WIDTH,
    stds: dict | None = None,
) -> GatedNetwork:
    """The GDLN of Section 6 ([conv-depth], Fig. 6a).

    Layer 1: one always-on linear pathway ``'shared'``; layer 2: ``'common'`` and one
    group per pair of contexts (``'ctx12'``, ...), each on in its two contexts.  Init
    stds: [conv-constants].  ``coupling``: 'one-way' (the authors', as for the ReLNs
    [conv-context-reln]) or 'full'.
    """
    ds = depth_task() if ds is None else ds
    if not isinstance(schedule, Schedule):
        raise ValueError(
            f"schedule must be a helpers.chapters.depth.Schedule, got {schedule!r}"
        )
    C = ds.n_contexts
    if C < 2:
        raise ValueError(f"the depth GDLN needs a task with >= 2 contexts, got {C}")
    s = dict(GDLN_STDS)
    if stds is not None:
        unknown = set(stds) - set(GDLN_STDS)
        if unknown:
            raise ValueError(
                f"unknown init stds {sorted(unknown)}; choose from {sorted(GDLN_STDS)}"
            )
        s.update(stds)
    width1 = int(common_width) + C * int(group_width)
    layer1 = [
        Pathway(
            "shared",
            width1,
            None,
            None,
            (s["layer1"], s["layer1"]),
            on_epoch=schedule.start,
        )
    ]
    layer2 = [
        Pathway(
            "common",
            int(common_width),
            None,
            None,
            (s["layer2"], s["readout_common"]),
            on_epoch=schedule.start,
            common=True,
        )
    ]
    for pair in combinations(range(C), C - 1):
        name = "ctx" + "".join(str(c + 1) for c in pair)
        layer2.append(
            Pathway(
                name,
                int(group_width),
                context_gate(ds, pair),
                None,
                (s["layer2"], s["readout_context"]),
                on_epoch=schedule.context,
            )
        )
    return deep_gdln(
        ds.X.shape[0], ds.Y.shape[0], ds.P, [layer1, layer2], coupling=coupling
    )


def linear_losses(ds: Dataset) -> np.ndarray:
    """The loss of the best linear map of ``X`` of each rank (reduced-rank
    regression).  Defined for the page book/depth.md."""
    U, S_x, _ = np.linalg.svd(ds.X, full_matrices=False)
    r_x = int((S_x > 1e-9 * S_x[0]).sum())
    Z = (U[:, :r_x] / S_x[:r_x]).T @ ds.X
    sv = np.linalg.svd(ds.Y @ Z.T, compute_uv=False)
    L0 = 0.5 * float(np.sum(ds.Y**2))
    return L0 - 0.5 * np.cumsum(sv**2)
