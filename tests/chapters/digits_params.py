"""The parameters of the chapter *Real data* (``helpers.chapters.digits.params``) at a
tiny scale, for its tests: 30 images, 8 hidden units, 1500 epochs, 2 seeds (grouped as
the page's parameters cell groups them)."""

TINY = dict(
    images_per_class=3, test_fraction=0.2, split_seed=0,
    seeds=2, trainings=2, relu_width=8, reln_width=2,
    init_scale=0.2 * 8**0.5, kappa=0.2, epochs=1500, sample_every=100,
    k_max=3, elbow_seeds=2, kmeans_n_init=2, gate_tolerance=0.05,
    shuffle_seed=0, reln_levels=[0.7, 0.5, 0.3], floor_margin=2.0, show_ks=[2, 3],
)  # fmt: skip
