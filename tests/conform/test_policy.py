"""The relay's seam: Policy.load, enrich, is_test_path and branded_newtypes."""

from __future__ import annotations

from ferrule.conform import ConfigError, Policy, branded_newtypes

LIB = """\
/// Adds.
///
/// ```
/// assert_eq!(p::add(1, 2), 3);
/// ```
pub fn add(a: u32, b: u32) -> u32 { a + b }

pub fn first(v: &[u32]) -> u32 { *v.first().unwrap() }

pub struct Meters(f64);
pub struct Open(pub f64);
pub(crate) struct Internal(u8);
pub struct Pair(u8, u8);
"""


def test_enrich_returns_facts_findings_and_advice(project, capsys):
    policy = Policy.load(project.root)
    assert "conform.toml" in capsys.readouterr().err  # the origin is said
    out = policy.enrich("src/lib.rs", LIB)
    assert set(out) == {"facts", "conform_findings", "advice"}
    kinds = {(f["kind"], f.get("name")) for f in out["facts"]}
    assert ("fn", "add") in kinds and ("struct", "Meters") in kinds
    found = {(f["rule"], f["line"]) for f in out["conform_findings"]}
    assert ("unwrap-outside-tests", 8) in found
    assert ("seam-doctest", 8) in found      # `first` has no doctest
    assert ("seam-doctest", 6) not in found  # `add` has one
    assert all(set(f) == {"rule", "message", "line", "baselined"} for f in out["conform_findings"])
    assert all(f["baselined"] is False for f in out["conform_findings"])
    assert len(out["advice"]) == len(out["conform_findings"])
    assert all("[GUIDE REQ-" in a and "fix:" in a for a in out["advice"])


def test_enrich_outside_a_seam_file_has_no_doctest_findings(project):
    policy = Policy.load(project.root, announce=False)
    rules = {f["rule"] for f in policy.enrich("src/util.rs", LIB)["conform_findings"]}
    assert rules == {"unwrap-outside-tests"}


def test_is_test_path(project):
    policy = Policy.load(project.root, announce=False)
    for rel in ("tests/it.rs", "benches/b.rs", "examples/demo.rs", "src/parser/tests.rs",
                "crates/x/tests/a.rs", "./tests/it.rs"):
        assert policy.is_test_path(rel), rel
    for rel in ("src/lib.rs", "src/testsuite.rs", "src/contests/a.rs"):
        assert not policy.is_test_path(rel), rel


def test_branded_newtypes():
    assert branded_newtypes(LIB) == [{"name": "Meters", "line": 10}]


def test_load_bad_config_names_key_and_file(project):
    project.write("conform.toml", "max_file_lines = 'many'\n")
    try:
        Policy.load(project.root)
    except ConfigError as exc:
        assert "max_file_lines" in str(exc) and "conform.toml" in str(exc)
    else:
        raise AssertionError("a string max_file_lines was accepted")
