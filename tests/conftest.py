import os

# Tests run on the CPU with deterministic settings, whatever the machine has.
os.environ.setdefault("JAX_PLATFORMS", "cpu")


def run_on_two_cpu_devices(script: str) -> dict:
    """Run ``script`` in a fresh process that sees two CPU devices (the engine's
    device count is fixed when JAX starts) and return the JSON of its last line."""
    import json
    import subprocess
    import sys

    from helpers.core import devices

    env = {**os.environ, devices.DEVICES_VARIABLE: "2", "JAX_PLATFORMS": "cpu"}
    out = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])
