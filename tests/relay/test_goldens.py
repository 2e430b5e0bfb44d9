"""Outer-frame goldens: recorded `ferrule serve` conversations replayed against the relay.

Each golden (tests/relay/goldens/*.ndjson, written by double/record.py) is played through a real
`ferrule serve` subprocess over pipes, once with the analyzer double replaying the inner hop recorded
with it, and once (`live`) with the real rust-analyzer. The answers, normalised ($ROOT, ra_version,
timings), must equal the recorded ones batch by batch, in any order within a batch.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from testkit import golden
from testkit.scenarios import FIXTURE, SCENARIOS

HERE = Path(__file__).resolve().parent
GOLDENS = sorted(p for p in (HERE / "goldens").glob("*.ndjson") if p.stem != "cli")  # cli: test_cli.py


def test_every_scenario_has_a_golden_and_a_transcript():
    assert {p.stem for p in GOLDENS} == set(SCENARIOS)
    for name in SCENARIOS:
        assert (HERE / "double" / "transcripts" / f"{name}.ndjson").is_file()


def test_the_goldens_send_what_the_scenarios_say():
    for path in GOLDENS:
        sends = [step.sends for step in golden.load(path)]
        assert sends == SCENARIOS[path.stem], f"{path.name} is stale: re-run double/record.py {path.stem}"


def replay(path: Path, root: Path, analyzer: str, *, live: bool = False) -> None:
    steps = golden.load(path)
    serve = golden.ServeProcess(root, analyzer)
    try:
        seen = golden.run_steps(serve, steps, str(root))
        code = serve.close_input()
    finally:
        serve.kill()
    names = golden.project_names(root)
    for number, (want, got) in enumerate(zip(steps, seen, strict=True), 1):
        wanted, answered = want.recvs, got.recvs
        if live:  # any release: what the analyzer words, spells and ranks its own way is normalised
            wanted, answered = golden.release_neutral(wanted, names), golden.release_neutral(answered, names)
        assert golden.canonical(answered) == golden.canonical(wanted), (
            f"{path.name} batch {number} differs; stderr:\n{serve.stderr()[-3000:]}")
    assert code == 0


@pytest.mark.parametrize("path", GOLDENS, ids=lambda p: p.stem)
def test_golden_over_the_double(path, tmp_path):
    root = golden.copy_fixture(FIXTURE, tmp_path / "crate")
    transcript = HERE / "double" / "transcripts" / path.name
    replay(path, root, golden.fake_analyzer_wrapper(tmp_path, transcript))


@pytest.mark.live
@pytest.mark.parametrize("path", GOLDENS, ids=lambda p: p.stem)
def test_golden_live(path, tmp_path, analyzer):
    root = golden.copy_fixture(FIXTURE, tmp_path / "crate")
    replay(path, root, analyzer.path, live=True)
