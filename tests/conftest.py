import os

# Tests run on the CPU with deterministic settings, whatever the machine has.
os.environ.setdefault("JAX_PLATFORMS", "cpu")
