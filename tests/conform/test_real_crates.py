"""`ferrule check` over every real crate of the offline registry: no crash, sane counts, printed.

The crates come from $RUST_OFFLINE_CRATES (set by `. /opt/rust-offline/env.sh`), falling back to
/opt/rust-offline/crates; their absence is a failure, not a skip.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CRATES_DIR = Path(os.environ.get("RUST_OFFLINE_CRATES", "/opt/rust-offline/crates"))


def real_crates() -> list[Path]:
    return sorted(p for p in CRATES_DIR.iterdir() if (p / "Cargo.toml").is_file()) if CRATES_DIR.is_dir() else []


def test_the_real_crates_are_there():
    assert real_crates(), f"no crates under {CRATES_DIR}: source /opt/rust-offline/env.sh"


@pytest.mark.slow
def test_check_every_real_crate(tmp_path):
    rows = []
    for crate in real_crates():
        proc = subprocess.run([sys.executable, "-m", "ferrule", "check", str(crate), "--format", "json"],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode in (0, 1), f"{crate.name}: exit {proc.returncode}\n{proc.stderr}"
        assert "Traceback" not in proc.stderr
        data = json.loads(proc.stdout)
        counts = data["counts"]
        sources = [p for p in crate.rglob("*.rs") if "target" not in p.relative_to(crate).parts]
        assert counts["files"] == len(sources), crate.name
        assert counts["lines"] == sum(len(p.read_bytes().splitlines()) for p in sources), crate.name
        assert proc.returncode == (1 if counts["new"] else 0)
        assert not (crate / "conform-baseline.json").exists()  # a plain check writes nothing
        rows.append((crate.name, counts["files"], counts["lines"], counts["new"], data["by_rule"]))
    print("\n" + "\n".join(f"{name:<24} {files:>3} files {lines:>6} lines {new:>4} findings {rules}"
                            for name, files, lines, new, rules in rows))
    assert len(rows) == len(real_crates())
