"""helpers: the library behind the book *Make Haste Slowly*, re-derived and re-run.

Chapters import this package; it holds what two chapters share and what must be tested.
"""
from . import analysis, contexts, datasets, engine, linear, progress, race, records  # noqa: F401
from .datasets import Dataset, contextual_task, context_gate, effective_dataset, hierarchy4, structure, xor
from .engine import GatedNetwork, Pathway, Run, deep_gdln, forward, gdln, init_params, linear_network, relu_network, train
from .linear import closed_form_loss, diagonalizability, initial_mode_strength, learning_time, mode_strength, modes
from .validation import TrainingDiverged

__version__ = "0.1.0"
