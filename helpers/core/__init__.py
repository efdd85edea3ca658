"""The core: what two or more chapters use, each module tested on its own; device and
JAX code lives here whatever its use count (``minibatch``), so where training runs is
decided in one place.

==============  ========================================================================
``paper``       the paper's networks and constants, with their sources (stated once)
``datasets``    the datasets, datapoints as columns
``engine``      one training engine for ReLU networks, ReLNs and GDLNs (gates are data)
``minibatch``   mini-batch SGD and Adam for a bias-free ReLU network (reviewers' page)
``devices``     where training runs: every device JAX sees, seeds shared among them
``store``       train once: each run stored under the key of what makes its bits
``linear``      closed-form theory of deep linear networks (Eq. 7)
``race``        the neural race reduction, integrated for a one-layer GDLN (Eqs. 5-6)
``relns``       the ReLNs of the contextual task (Sections 4-5) and how they start
``modes``       their effective datasets, overlaps and the mode-by-mode race (Eqs. 4, 6)
``xor_reln``    the two ReLNs of the XoR task and their closed forms (Section 3)
``measures``    curve and learning-time comparisons, gating censuses
``families``    Section 5's families of ReLNs and censuses by contexts served
``algorithm1``  Algorithm 1: the gates of a ReLU network found by k-means (Appendix B)
``checks``      input checks: every bad input is named before any work starts
``ledger``      the setup ledger: the authors', the paper's and the book's settings
==============  ========================================================================
"""

from . import devices as _devices

_devices.configure()  # one CPU device per core, before JAX starts
