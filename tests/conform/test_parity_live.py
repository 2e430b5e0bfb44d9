"""Finding parity: `ferrule check` over a fixture crate and the relay's `validate` of each of its files
report the same findings (rule, line, message, baselined), against the real rust-analyzer.

The ledger copy gets a baseline first and then one new finding, so both sides must agree on which
findings are accepted, too. Needs rust-analyzer (`. /opt/rust-offline/env.sh`); fails without it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from ferrule.project import AnalyzerMissing
from ferrule.relay.resolve import resolve_analyzer
from ferrule.relay.sync import SyncSession
from testkit.conform import CRATES

pytestmark = pytest.mark.live


def check_json(root: Path, *args: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "ferrule", "check", str(root), "--format", "json", *args],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("name", ["ledger", "tidy"])
def test_check_and_validate_report_the_same_findings(name, tmp_path):
    try:
        resolve_analyzer()
    except AnalyzerMissing as missing:
        pytest.fail(f"the parity test needs rust-analyzer: {missing.message}\n{missing.recipe}")
    root = tmp_path / name
    shutil.copytree(CRATES / name, root)
    if name == "ledger":
        check_json(root, "--update-baseline")
        engine = root / "src" / "engine.rs"
        engine.write_text(engine.read_text() + "\npub fn fresh(v: Option<u8>) -> u8 {\n    v.unwrap()\n}\n")

    gate = check_json(root)
    by_file: dict[str, set] = defaultdict(set)
    for f in gate["findings"]:
        by_file[f["path"]].add((f["rule"], f["line"], f["message"], f["baselined"]))
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.rs"))
    assert gate["counts"]["files"] == len(files)

    with SyncSession(root) as session:
        session.call("init", {})
        relay: dict[str, set] = {}
        for rel in files:
            result = session.call("validate", {"file": rel})
            relay[rel] = {(f["rule"], f["line"], f["message"], f["baselined"]) for f in result["conform_findings"]}
            assert isinstance(result["diagnostics"], list) and result["facts"][0]["kind"] == "file"
            new = [f for f in result["conform_findings"] if not f["baselined"]]
            assert len(result["advice"]) == len(new)

    for rel in files:
        assert relay[rel] == by_file.get(rel, set()), rel
    total = sum(len(v) for v in relay.values())
    assert total == len(gate["findings"])
    if name == "ledger":
        assert total == 18 and gate["counts"]["new"] == 1 and gate["counts"]["baselined"] == 17
    else:
        assert total == 0
