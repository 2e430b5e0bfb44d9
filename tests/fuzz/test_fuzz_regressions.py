"""Every fuzz seed and every input a fuzzing run ever crashed on, replayed through its check.

`make fuzz` (fuzz/run.py) copies each crashing input into fuzz/regressions/<target>/; from then on it
runs here on every test run. Inputs that expose a reported defect whose fix is pending are expected
to fail (strictly: once fixed, the expectation must go).
"""

from __future__ import annotations

import pytest

from testkit.lines import FUZZ, load_fuzz_targets

TARGETS = load_fuzz_targets()

# Reported defects, by regression file, until their fix lands (see the reliability report).
PENDING_FIXES: dict[str, str] = {}


def cases() -> list:
    found = []
    for target, seeds in TARGETS.SEEDS.items():
        found += [pytest.param(target, seed, id=f"{target}-seed{i}") for i, seed in enumerate(seeds)]
    for path in sorted((FUZZ / "regressions").glob("*/*")):
        name = f"{path.parent.name}/{path.name}"
        marks = [pytest.mark.xfail(strict=True, reason=PENDING_FIXES[name])] if name in PENDING_FIXES else []
        found.append(pytest.param(path.parent.name, path.read_bytes(), id=name, marks=marks))
    return found


@pytest.mark.parametrize("target, data", cases())
def test_input_is_handled_as_specified(target, data):
    TARGETS.TARGETS[target](data)


def test_every_regression_names_a_target():
    for path in (FUZZ / "regressions").glob("*/*"):
        assert path.parent.name in TARGETS.TARGETS, path
