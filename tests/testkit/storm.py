"""The SIGINT storm (tests/capture/sigint_storm.py) run in a child, seeded, its faults checked."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from testkit.twins import Twin

SCRIPT = Path(__file__).resolve().parents[1] / "capture" / "sigint_storm.py"
FAULTS = ("wrong_text", "fd2_lost", "guard_held", "busy", "other")


def assert_storm_is_harmless(twin: Twin, mode: str, seconds: float) -> None:
    """Real SIGINTs at random moments for `seconds`: fd 2 and the guard always come back.

    FERRULE_STORM_SEED replays a storm's gaps between signals; the seed is printed either way (pytest
    shows it with a failure)."""
    seed = os.environ.get("FERRULE_STORM_SEED") or str(random.randrange(1 << 32))
    print(f"sigint storm seed: {seed} (FERRULE_STORM_SEED={seed} replays it)")
    done = subprocess.run([sys.executable, str(SCRIPT), str(twin), str(seconds), mode, seed],
                          capture_output=True, timeout=60 + seconds)
    assert done.returncode == 0, done.stderr[-2000:]
    counts = json.loads(done.stdout.splitlines()[-1])
    assert counts["interrupted"] > 100, counts  # the storm did land inside captures
    assert {k: counts[k] for k in FAULTS} == dict.fromkeys(FAULTS, 0), counts
