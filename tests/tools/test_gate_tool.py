"""rust_check: the policy gate as a tool, on a copy of the demo crate (no analyzer needed)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ferrule.tools.gate_tool import GateTool

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo-crate"


@pytest.fixture
def crate(tmp_path):
    copy = tmp_path / "demo-crate"
    shutil.copytree(DEMO, copy, ignore=shutil.ignore_patterns("target"))
    return copy


def ferrule_check(crate, *extra):
    return subprocess.run([sys.executable, "-m", "ferrule", "check", str(crate), *extra],
                          capture_output=True, text=True, timeout=120)


def test_new_findings_fail_the_gate_with_advice(crate):
    output = GateTool(crate).run({})
    assert output.is_error
    answer = output.structured
    assert answer["passed"] is False and answer["counts"]["new"] == 3
    found = {(f["path"], f["rule"]) for f in answer["findings"]}
    assert found == {("src/lib.rs", "seam-doctest"), ("src/orders/pricing.rs", "env-outside-roots"),
                     ("src/orders/pricing.rs", "unwrap-outside-tests")}
    report = output.report
    assert report.startswith("policy gate FAILED: 3 new, 0 baselined")
    assert "src/orders/pricing.rs:25: unwrap-outside-tests" in report and "[GUIDE REQ-6.1]" in report
    assert "fix:" in report


def test_the_tool_and_ferrule_check_agree(crate):
    checked = ferrule_check(crate, "--format", "json")
    assert checked.returncode == 1, checked.stderr
    cli = json.loads(checked.stdout)
    tool = GateTool(crate).run({}).structured
    assert tool["findings"] == cli["findings"]
    assert tool["counts"] == cli["counts"] and tool["passed"] == cli["passed"]


def test_paths_narrow_the_findings(crate):
    seam = GateTool(crate).run({"paths": ["src/lib.rs"]})
    assert [f["rule"] for f in seam.structured["findings"]] == ["seam-doctest"]
    assert seam.report.startswith("policy gate FAILED over src/lib.rs: 1 new")
    orders = GateTool(crate).run({"paths": ["src/orders"]}).structured
    assert {f["path"] for f in orders["findings"]} == {"src/orders/pricing.rs"}
    config = GateTool(crate).run({"paths": ["src/config.rs"]})
    assert not config.is_error and config.structured["passed"] and config.structured["findings"] == []


@pytest.mark.parametrize("path", ["../outside.rs", "/etc/passwd", "src/missing.rs"])
def test_paths_outside_the_project_or_absent_are_refused(crate, path):
    output = GateTool(crate).run({"paths": [path]})
    assert output.is_error and output.structured["error"]["kind"] == "protocol"
    assert output.structured["error"]["recipe"]


def test_a_file_that_is_not_rust_source_is_refused_not_passed_over_nothing(crate):
    output = GateTool(crate).run({"paths": ["Cargo.toml"]})
    assert output.is_error and output.structured["error"]["kind"] == "protocol"
    assert "'Cargo.toml' is not a Rust source file" in output.report and "leave `paths` out" in output.report


def test_the_baseline_accepts_findings_and_the_gate_passes(crate):
    assert ferrule_check(crate, "--update-baseline").returncode == 0
    output = GateTool(crate).run({})
    assert not output.is_error
    assert output.structured["counts"]["baselined"] == 3 and output.structured["counts"]["new"] == 0
    assert output.report.startswith("policy gate passed: 0 new, 3 baselined")
    assert "accepted by the baseline:" in output.report
    # Paying a debt shows up as gone, with the way to shrink the baseline.
    pricing = crate / "src/orders/pricing.rs"
    pricing.write_text(pricing.read_text().replace("text.parse().unwrap()", "text.parse().unwrap_or(0)"))
    after = GateTool(crate).run({})
    assert not after.is_error and after.structured["counts"]["gone"] == 1
    assert "--update-baseline" in after.report


def test_a_bad_conform_toml_is_an_error_naming_the_key(crate):
    (crate / "conform.toml").write_text("max_file_lines = 'many'\n")
    output = GateTool(crate).run({})
    assert output.is_error and output.structured["error"]["kind"] == "workspace-unloadable"
    assert "max_file_lines" in output.report


def test_many_findings_are_listed_up_to_max_with_the_rest_counted_by_rule_and_each_fix_said_once(crate):
    # a project adopting the policy: 45 more unwraps in one file
    lines = [f"pub(crate) fn parse_{n}(text: &str) -> u32 {{\n    text.parse().unwrap()\n}}\n" for n in range(45)]
    (crate / "src/orders/legacy.rs").write_text("".join(lines))
    mod = crate / "src/orders/mod.rs"
    mod.write_text("mod legacy;\n" + mod.read_text())
    output = GateTool(crate).run({})
    counts, structured = output.structured["counts"], output.structured
    assert output.is_error and counts["new"] == 48
    listed = [line for line in output.report.splitlines() if line.startswith("  src/")]
    assert len(listed) == 30 and len(structured["findings"]) == 30 and structured["findings_omitted"] == 18
    assert ("  ... and 18 more: unwrap-outside-tests 17, env-outside-roots 1 (pass a larger `max`, or `paths` "
            "to narrow)") in output.report
    assert output.report.count("[GUIDE REQ-6.1] fix:") == 1, "each rule's fix once, not once per finding"
    assert len(output.report) < 5_000, len(output.report)
    two = GateTool(crate).run({"max": 2})
    assert len(two.structured["findings"]) == 2 and two.structured["findings_omitted"] == 46
    assert all(f["level"] == "deny" and not f["baselined"] for f in two.structured["findings"]), "new ones first"


def test_a_narrowed_check_counts_the_files_and_lines_it_checked(crate):
    whole = GateTool(crate).run({}).structured["counts"]
    config = GateTool(crate).run({"paths": ["src/config.rs"]}).structured["counts"]
    assert config["files"] == 1 and config["lines"] == len((crate / "src/config.rs").read_text().splitlines())
    report = GateTool(crate).run({"paths": ["src/config.rs"]}).report
    assert f"(1 file, {config['lines']:,} lines checked)" in report.splitlines()[0]
    assert whole["files"] > 1 and whole["lines"] > config["lines"]
