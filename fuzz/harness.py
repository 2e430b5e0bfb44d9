"""Coverage-guided fuzzing of one target with atheris: `python fuzz/harness.py TARGET [libFuzzer args]`.

The Python side of ferrule (and the checks) is instrumented for coverage; the compiled twins run
uninstrumented (no clang here) and are held to the instrumented Python twin and the model instead.
`fuzz/run.py` runs every target for a bounded time and keeps what crashes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent))

with atheris.instrument_imports(include=["ferrule", "targets"]):
    import targets


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in targets.TARGETS:
        sys.exit(f"usage: harness.py TARGET [libFuzzer options]; targets: {', '.join(targets.TARGETS)}")
    check = targets.TARGETS[sys.argv[1]]
    atheris.Setup([sys.argv[0], *sys.argv[2:]], check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
