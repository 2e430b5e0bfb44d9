"""rust_validate through the official MCP SDK client (which checks each structured result against the
tool's outputSchema), on a crate made as real crates are: a clean 3.5k-line file with a hundred
`#[cfg(feature = "full")]` items answers in under 4 KB, hints counted by kind and facts left out unless
asked for; a file with more errors than their cap gets the first ones and the rest counted by code; an
error only rust-analyzer sees (code under `#[cfg(rust_analyzer)]`, which rustc never builds) is marked
unconfirmed and listed last; a compile check that could not run leaves no clean bill."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession

from ferrule.relay.digest import ERRORS_SHOWN, WARNINGS_SHOWN
from testkit.tools import run_server, text_of

pytestmark = pytest.mark.live

GATED = 110  # items under an unset feature: one `inactive-code` hint each
ACTIVE = 130
ERRORS = ERRORS_SHOWN + 10  # more errors than their cap
UNUSED = WARNINGS_SHOWN + 5

MANIFEST = """[package]
name = "sized"
version = "0.1.0"
edition = "2021"

[features]
full = []

[lints.rust]
unexpected_cfgs = { level = "warn", check-cfg = ['cfg(rust_analyzer)'] }
"""


def _large_module() -> str:
    """A clean module of about 3.5k lines: documented active functions, and gated ones."""
    parts = []
    for n in range(ACTIVE):
        body = "\n".join(f"    total += {k} * x;" for k in range(16))
        parts.append(f"/// Step {n}: sums a few multiples of `x`.\npub fn step_{n}(x: u64) -> u64 {{\n"
                     f"    let mut total = {n};\n{body}\n    total\n}}\n")
    for n in range(GATED):
        parts.append(f'#[cfg(feature = "full")]\npub fn gated_{n}(x: u64) -> u64 {{\n'
                     f"    let y = x + {n};\n    y * 2\n}}\n")
    return "\n".join(parts)


def _broken_module() -> str:
    errors = "\n".join(f'    let e{n}: u32 = "text";' for n in range(ERRORS))
    unused = "\n".join(f"    let unused{n} = {n};" for n in range(UNUSED))
    return (f"pub fn many_errors() {{\n{errors}\n}}\n\npub fn many_warnings() {{\n{unused}\n}}\n\n"
            "#[cfg(rust_analyzer)]\npub fn seen_by_the_analyzer_only() -> u32 {\n    \"text\"\n}\n")


@pytest.fixture(scope="module")
def sized_crate(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("sized") / "sized"
    (root / "src").mkdir(parents=True)
    (root / "Cargo.toml").write_text(MANIFEST)
    (root / "src" / "lib.rs").write_text("//! A crate of real size.\n\npub mod broken;\npub mod large;\n")
    (root / "src" / "large.rs").write_text(_large_module())
    (root / "src" / "broken.rs").write_text("pub fn placeholder() {}\n")  # broken only in `content`
    return root


def _size(result: Any) -> int:
    return len(text_of(result).encode()) + len(json.dumps(result.structured_content).encode())


def test_a_clean_large_file_answers_in_under_4_kb_and_include_facts_brings_the_facts_back(
        sized_crate, analyzer, tmp_path):
    lines = (sized_crate / "src" / "large.rs").read_text().count("\n")
    assert lines >= 3500
    seen: dict[str, Any] = {}

    async def body(session: ClientSession) -> None:  # call_tool checks each result against outputSchema
        seen["short"] = await session.call_tool("rust_validate", {"file": "src/large.rs"})
        seen["facts"] = await session.call_tool("rust_validate", {"file": "src/large.rs", "include_facts": True,
                                                                  "compile": False})

    run_server(sized_crate, analyzer.env, body, errlog=tmp_path / "server.err")
    short, with_facts = seen["short"], seen["facts"]
    assert not short.is_error, text_of(short)
    structured = short.structured_content
    assert structured["compiled"] is True, text_of(short)
    assert _size(short) < 4096, f"{_size(short)} bytes:\n{text_of(short)}"
    assert structured["diagnostic_counts"] == {"hint": GATED}
    assert structured["note_kinds"] == {"inactive-code": GATED}
    assert structured["facts"] == []
    assert structured["fact_counts"]["fn"] == ACTIVE + GATED
    report = text_of(short)
    assert report.splitlines()[0] == f"src/large.rs: 0 errors, 0 warnings, {GATED} notes; 1 policy finding (1 new, 0 baselined)"
    assert f"{GATED} inactive-code; the first 3:" in report

    facts = with_facts.structured_content["facts"]
    assert len(facts) == sum(structured["fact_counts"].values())
    assert sum(1 for f in facts if f["kind"] == "fn") == ACTIVE + GATED
    assert with_facts.structured_content["conform_findings"] == structured["conform_findings"]


def test_errors_are_capped_and_counted_and_an_error_rustc_does_not_report_is_unconfirmed(sized_crate, analyzer,
                                                                                          tmp_path):
    broken = _broken_module()
    only_analyzer_line = broken.splitlines().index('    "text"') + 1
    seen: dict[str, Any] = {}

    async def body(session: ClientSession) -> None:
        seen["broken"] = await session.call_tool("rust_validate", {"file": "src/broken.rs", "content": broken})

    run_server(sized_crate, analyzer.env, body, errlog=tmp_path / "server.err")
    result = seen["broken"]
    assert not result.is_error, text_of(result)
    structured, report = result.structured_content, text_of(result)
    assert structured["compiled"] is True, report
    errors = [d for d in structured["diagnostics"] if d["category"] == "error"]
    assert structured["diagnostic_counts"]["error"] == ERRORS + 1
    assert len(errors) == ERRORS_SHOWN + 1 and structured["error_kinds"] == {"E0308": ERRORS}
    assert structured["diagnostic_counts"]["warning"] > WARNINGS_SHOWN
    assert sum(1 for d in structured["diagnostics"] if d["category"] == "warning") == WARNINGS_SHOWN
    assert structured["diagnostics_omitted"] > 0
    # every rustc error on its own line, confirmed; the analyzer's error rustc never saw, last and marked
    confirmed = [d for d in errors if not d.get("unconfirmed")]
    assert sorted(d["line"] for d in confirmed) == list(range(2, 2 + ERRORS_SHOWN))
    assert all(d["source"] == "rustc" for d in confirmed)
    last = errors[-1]
    assert (last["line"], last["source"], last.get("unconfirmed")) == (only_analyzer_line, "rust-analyzer", True)
    assert structured["diagnostics"].index(last) == len(errors) - 1
    for n in range(ERRORS_SHOWN):
        assert f"  {2 + n}:" in report
    assert f"  {2 + ERRORS_SHOWN}:" not in report
    assert f"errors by kind: {ERRORS} E0308; the first {ERRORS_SHOWN}" in report
    assert f"  ... and {ERRORS - ERRORS_SHOWN} more errors" in report
    lines = report.splitlines()
    assert lines[0].startswith(f"src/broken.rs (text passed in `content`): {ERRORS + 1} errors (1 unconfirmed by rustc), ")
    heading = next(i for i, line in enumerate(lines) if line.startswith("unconfirmed: 1 error"))
    assert "rustc is the judge" in lines[heading]
    assert lines[heading + 1].startswith(f"  {only_analyzer_line}:4 error[E0308]: ")


def test_a_compile_check_that_could_not_run_is_no_clean_bill(sized_crate, analyzer, tmp_path):
    moved = 'pub fn moved() -> usize {\n    let s = String::from("a");\n    let t = s;\n    s.len() + t.len()\n}\n'
    unresolvable = MANIFEST + '\n[dependencies]\nnot-a-real-crate-xyz = "1"\n'
    seen: dict[str, Any] = {}

    async def body(session: ClientSession) -> None:
        await session.call_tool("rust_update", {"file": "Cargo.toml", "content": unresolvable})
        seen["moved"] = await session.call_tool("rust_validate", {"file": "src/broken.rs", "content": moved})

    run_server(sized_crate, analyzer.env, body, errlog=tmp_path / "server.err")
    result = seen["moved"]
    report, structured = text_of(result), result.structured_content
    assert not result.is_error, report
    assert structured["compiled"] is False and structured["compile_error"]["kind"] == "cargo-failed", report
    assert structured["compile_check"] == "failed"
    lines = report.splitlines()
    assert lines[0].startswith("src/broken.rs (text passed in `content`): unverified: no diagnostics by "
                               "rust-analyzer alone; the compile check could not run (cargo check failed: "), report
    assert "not-a-real-crate-xyz" in lines[0] and "clean" not in report
    assert lines[1].startswith("compile check: not run (cargo-failed, ")
    assert lines[2].startswith("  fix: the check saw unsaved text that the disk does not have: fix Cargo.toml")
