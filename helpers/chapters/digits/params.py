"""The parameters of the page book/digits.md (Defined for the page book/digits.md)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Params:
    """The page's parameters; refuses values the data file's rules cannot say."""

    images_per_class: int
    test_fraction: float
    split_seed: int
    seeds: int
    trainings: int
    relu_width: int
    reln_width: int
    init_scale: float
    kappa: float
    epochs: int
    sample_every: int
    k_max: int
    elbow_seeds: int
    kmeans_n_init: int
    gate_tolerance: float
    shuffle_seed: int
    reln_levels: list
    floor_margin: float
    show_ks: list

    #: The ReLU network's init std: the paper's strength at this width.
    relu_std = property(lambda self: self.init_scale / self.relu_width**0.5)

    def __post_init__(self):
        seeds, levels, k_max = self.seeds, self.reln_levels, self.k_max
        fractions = len(levels) >= 3 and all(0 < f < 1 for f in levels)
        every, ks = self.sample_every, self.show_ks
        for name, ok, what in [
            ("trainings", self.trainings <= seeds, f"at most seeds = {seeds}"),
            ("elbow_seeds", 2 <= self.elbow_seeds <= seeds, f"2 .. seeds = {seeds}"),
            ("k_max", k_max >= 3, "at least 3 (the elbow needs a K on each side)"),
            ("kappa", self.kappa < 1, "below 1 (beyond, gradient descent is unstable)"),
            ("test_fraction", self.test_fraction < 1, "below 1"),
            ("gate_tolerance", self.gate_tolerance < 0.5, "below 0.5"),
            ("reln_levels", fractions, "at least three fractions of L0 in (0, 1)"),
            ("floor_margin", self.floor_margin >= 1, "at least 1"),
            ("epochs", self.epochs >= 3 * every, "at least 3 x sample_every"),
            ("show_ks", all(1 <= k <= k_max for k in ks), f"within 1..{k_max}"),
        ]:
            if not ok:
                raise ValueError(f"{name} must be {what}, got {getattr(self, name)!r}")
