"""`ferrule check` as a user runs it: output formats, exit codes, and the baseline ratchet."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

LINE = re.compile(r"^(?P<path>[\w./-]+\.rs):(?P<line>\d+): (?P<rule>[a-z-]+) (?P<message>.+) "
                  r"\[GUIDE (?P<req>REQ-\d+\.\d+)\] fix: (?P<fix>.+)$")


def check(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ferrule", "check", str(root), *args],
                          capture_output=True, text=True, timeout=120)


def finding_lines(out: str) -> list[re.Match]:
    return [m for m in map(LINE.match, out.splitlines()) if m]


def test_text_format_is_one_line_per_finding(crate):
    root = crate("ledger")
    proc = check(root)
    assert proc.returncode == 1
    found = finding_lines(proc.stdout)
    assert len(found) == 17
    assert {m["req"] for m in found} == {"REQ-2.1", "REQ-3.1", "REQ-4.1", "REQ-6.1"}
    assert "src/engine.rs:16: unwrap-outside-tests `.unwrap()` on `self.balances.get(account)`" in proc.stdout
    assert proc.stdout.splitlines()[-1].startswith("ferrule check: 8 files")
    assert "policy from" in proc.stderr and "conform.toml" in proc.stderr


def test_json_format(crate):
    root = crate("ledger")
    proc = check(root, "--format", "json")
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert data["passed"] is False and data["counts"]["new"] == 17 and data["counts"]["files"] == 8
    first = data["findings"][0]
    assert set(first) >= {"path", "line", "rule", "level", "message", "req", "fix", "baselined"}
    assert data["by_rule"]["unwrap-outside-tests"] == 8


def test_clean_crate_passes_and_writes_nothing(crate):
    root = crate("tidy")
    proc = check(root)
    assert proc.returncode == 0, proc.stdout
    assert finding_lines(proc.stdout) == []
    assert not (root / "conform-baseline.json").exists()


def test_warn_level_findings_are_shown_but_do_not_fail(crate):
    root = crate("ledger")
    rules = "\n".join(f'{r} = "warn"' for r in ("unwrap-outside-tests", "seam-doctest", "env-outside-roots",
                                                  "file-too-long"))
    (root / "conform.toml").write_text((root / "conform.toml").read_text() + f"\n[rules]\n{rules}\n")
    proc = check(root)
    assert proc.returncode == 0
    found = finding_lines(proc.stdout)
    assert len(found) == 17 and all(m["fix"].endswith("(warning)") for m in found)
    assert "0 new, 0 baselined, 17 warnings" in proc.stdout
    check(root, "--update-baseline")
    assert json.loads(baseline_of(root))["findings"] == []  # warnings are never baselined


def test_bad_config_exits_2_naming_key_and_file(crate):
    root = crate("tidy")
    (root / "conform.toml").write_text('max_file_lines = "long"\n')
    proc = check(root)
    assert proc.returncode == 2
    assert "max_file_lines" in proc.stderr and str(root / "conform.toml") in proc.stderr
    (root / "conform.toml").write_text('colour = "red"\n')
    proc = check(root)
    assert proc.returncode == 2 and "'colour'" in proc.stderr and "unknown key" in proc.stderr


def test_not_a_directory(tmp_path):
    proc = check(tmp_path / "missing")
    assert proc.returncode == 2 and "not a directory" in proc.stderr


# ---- the baseline ratchet -----------------------------------------------------------------------

def baseline_of(root: Path) -> str:
    return (root / "conform-baseline.json").read_text()


def insert_line(path: Path, at: int, text: str) -> None:
    lines = path.read_text().splitlines(keepends=True)
    lines.insert(at - 1, text)
    path.write_text("".join(lines))


def test_update_baseline_accepts_everything_in_a_stable_order(crate):
    root = crate("ledger")
    proc = check(root, "--update-baseline")
    assert proc.returncode == 0 and "baseline conform-baseline.json written (+17, -0)" in proc.stdout
    written = baseline_of(root)
    data = json.loads(written)
    entries = [(e["path"], e["rule"], e["scope"], e["snippet"]) for e in data["findings"]]
    assert entries == sorted(entries) and sum(e["count"] for e in data["findings"]) == 17
    assert all("line" not in e for e in data["findings"])
    proc = check(root)
    assert proc.returncode == 0 and finding_lines(proc.stdout) == []
    assert "0 new, 17 baselined" in proc.stdout
    check(root, "--update-baseline")
    assert baseline_of(root) == written  # rewriting is byte-for-byte stable


def test_edit_above_a_finding_does_not_churn(crate):
    root = crate("ledger")
    check(root, "--update-baseline")
    before = baseline_of(root)
    insert_line(root / "src" / "engine.rs", 4, "// a new comment above every finding\n\n")
    insert_line(root / "src" / "lib.rs", 9, "/// A new helper.\n///\n/// ```\n/// ledger::noop();\n/// ```\n"
                                            "pub fn noop() {}\n\n")
    proc = check(root)
    assert proc.returncode == 0, proc.stdout
    assert "0 new, 17 baselined" in proc.stdout and "0 gone" in proc.stdout
    check(root, "--update-baseline")
    assert baseline_of(root) == before


def test_fixed_finding_is_listed_as_gone_and_the_file_shrinks_only_on_request(crate):
    root = crate("ledger")
    check(root, "--update-baseline")
    before = baseline_of(root)
    engine = root / "src" / "engine.rs"
    engine.write_text(engine.read_text().replace("text.trim().parse::<i64>().unwrap()",
                                                 "text.trim().parse::<i64>().unwrap_or(0)"))
    proc = check(root)
    assert proc.returncode == 0
    gone = [line for line in proc.stdout.splitlines() if ": gone: " in line]
    assert gone == ["src/engine.rs: gone: unwrap-outside-tests in parse_number: text.trim().parse::<i64>().unwrap() "
                    "is no longer there; run --update-baseline to drop it from the baseline"]
    assert baseline_of(root) == before  # not shrunk without the flag
    proc = check(root, "--update-baseline")
    assert "(+0, -1)" in proc.stdout
    assert "parse_number" not in baseline_of(root)
    assert check(root).returncode == 0


def test_new_finding_fails_and_never_grows_the_baseline(crate):
    root = crate("ledger")
    check(root, "--update-baseline")
    before = baseline_of(root)
    engine = root / "src" / "engine.rs"
    engine.write_text(engine.read_text() + "\npub fn fresh(v: Option<u8>) -> u8 {\n    v.unwrap()\n}\n")
    proc = check(root)
    assert proc.returncode == 1
    (new,) = finding_lines(proc.stdout)
    assert new["path"] == "src/engine.rs" and new["rule"] == "unwrap-outside-tests" and "`v`" in new["message"]
    assert "1 new, 17 baselined" in proc.stdout and proc.stdout.rstrip().endswith("FAILED")
    assert baseline_of(root) == before
    assert check(root).returncode == 1  # still failing: nothing was accepted silently
    assert check(root, "--update-baseline").returncode == 0
    assert check(root).returncode == 0


def test_a_second_identical_finding_in_the_same_item_is_new(crate):
    root = crate("ledger")
    check(root, "--update-baseline")
    engine = root / "src" / "engine.rs"
    engine.write_text(engine.read_text().replace(
        "    value.unwrap() // expect: unwrap-outside-tests",
        "    value.unwrap() // expect: unwrap-outside-tests\n        + value.unwrap()", 1))
    proc = check(root)
    assert proc.returncode == 1
    (new,) = finding_lines(proc.stdout)
    assert new["line"] == "71"  # the second one in line order is the new one


def test_show_baselined(crate):
    root = crate("ledger")
    check(root, "--update-baseline")
    proc = check(root, "--show-baselined")
    assert len(finding_lines(proc.stdout.replace(" (baselined)", ""))) == 17


def test_relay_enrich_reads_the_same_baseline(crate):
    from ferrule.conform import Policy

    root = crate("ledger")
    policy = Policy.load(root, announce=False)
    engine = root / "src" / "engine.rs"
    before = policy.enrich("src/engine.rs", engine.read_text())
    assert before["conform_findings"] and not any(f["baselined"] for f in before["conform_findings"])
    check(root, "--update-baseline")
    text = engine.read_text() + "\npub fn fresh(v: Option<u8>) -> u8 {\n    v.unwrap()\n}\n"
    after = policy.enrich("src/engine.rs", text)  # the baseline changed on disk: re-read
    flags = [(f["line"], f["baselined"]) for f in after["conform_findings"]]
    assert flags[:-1] == [(line, True) for line, _ in flags[:-1]]
    assert flags[-1][1] is False
    assert len(after["advice"]) == 1 and "REQ-6.1" in after["advice"][0]


def test_unreadable_baseline_is_a_clear_error(crate):
    root = crate("ledger")
    (root / "conform-baseline.json").write_text("{not json")
    proc = check(root)
    assert proc.returncode == 2 and "conform-baseline.json" in proc.stderr and "--update-baseline" in proc.stderr


@pytest.mark.parametrize("flag", ["--help"])
def test_help_lists_rules_and_guide(flag):
    proc = subprocess.run([sys.executable, "-m", "ferrule", "check", flag], capture_output=True, text=True)
    assert proc.returncode == 0
    for word in ("--update-baseline", "--format", "REQ-6.1", "docs/GUIDE.md", "conform.toml"):
        assert word in proc.stdout


def test_configured_baseline_name_in_a_new_directory(crate):
    root = crate("ledger")
    (root / "conform.toml").write_text((root / "conform.toml").read_text() + 'baseline = "ci/policy-debt.json"\n')
    assert check(root, "--update-baseline").returncode == 0
    assert (root / "ci" / "policy-debt.json").is_file() and not (root / "conform-baseline.json").exists()
    assert check(root).returncode == 0


def test_the_policy_layer_imports_nothing_above_it():
    code = ("import sys, ferrule.conform, ferrule.conform.cli, ferrule.conform.gate; "
            "print(sorted(m for m in sys.modules if m.startswith('ferrule.') and not m.startswith('ferrule.conform')"
            " and m not in ('ferrule.textspan', 'ferrule._toml')))")  # leaves of no imports, shared with the relay
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"
