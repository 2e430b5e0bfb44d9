"""`ferrule demo` as a user runs it: a subprocess on the bundled crate, its output read as text."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys

import pytest

from testkit.tools import DEMO_CRATE

PROJECT = DEMO_CRATE.parents[1]


def run_demo(*args, env=None, timeout=240):
    # from the project folder, as `make demo` runs it (an installed ferrule finds the crate there)
    return subprocess.run([sys.executable, "-m", "ferrule", "demo", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})}, cwd=PROJECT)


def snapshot(root):
    """The crate's files and their hashes; target/ is the analyzer's build-script cache, not the crate."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and p.relative_to(root).parts[0] != "target"}


@pytest.mark.live
def test_the_demo_shows_each_tool_and_leaves_the_crate_alone(analyzer):
    before = snapshot(DEMO_CRATE)
    done = run_demo("--color", "never", env=analyzer.env)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert re.search(r"rust-analyzer \S+ ready in \d+\.\d s", out)
    # Each step: the call, its verdict and timing, then the report the agent reads.
    steps = re.findall(r"^(\d)\. (rust_\w+) \{.*\}  (ok|isError), (\d+\.\d) (ms|s)$", out, re.M)
    assert [(n, tool, verdict) for n, tool, verdict, _, _ in steps] == [
        ("1", "rust_validate", "ok"), ("2", "rust_type", "ok"), ("3", "rust_references", "ok"),
        ("4", "rust_complete", "ok"), ("5", "rust_scope", "ok"), ("6", "rust_validate", "ok"),
        ("7", "rust_check", "isError")]
    assert "| src/orders/pricing.rs: 1 error, 0 warnings; 2 policy findings" in out
    assert "error[E0308] (rustc): mismatched types: expected `Result<u64, UnknownSku>`, found `u64`" in out
    assert "unwrap-outside-tests" in out and "env-outside-roots" in out
    assert "pub fn get(&self) -> u32" in out
    assert "let cents = unit_price(sku).ok_or(UnknownSku)?;" in out  # a use, found by the name alone
    assert re.search(r"\|   unwrap\s+method .*UNSAFE", out)
    assert "OrderId (line" in out and "Quantity (line" in out
    assert "seam-doctest: pub fn `line_total_cents`" in out
    assert "policy gate FAILED: 3 new" in out
    assert re.search(r"7 calls on the warm session: median \d+\.\d ms", out)
    assert "\x1b[" not in out, "--color never means plain text"
    assert snapshot(DEMO_CRATE) == before, "the demo must not write into the crate"


def test_without_rust_analyzer_the_demo_fails_with_the_install_recipe(tmp_path):
    done = run_demo("--rust-analyzer", str(tmp_path / "no-rust-analyzer"), timeout=60)
    assert done.returncode == 3
    assert "rust-analyzer-missing" in done.stderr
    assert "rustup component add rust-analyzer" in done.stderr


def test_a_directory_that_is_not_the_demo_crate_is_a_usage_error(tmp_path):
    done = run_demo("--crate", str(tmp_path), timeout=60)
    assert done.returncode == 2 and "not the demo crate" in done.stderr
