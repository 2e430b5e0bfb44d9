"""Each rule, positive and negative, and how paths and settings steer it."""

from __future__ import annotations

from ferrule.conform import Policy

UNWRAP = "pub(crate) fn f(x: Option<u8>) -> u8 { x.unwrap() }\n"
ENV = 'pub(crate) fn f() -> Option<String> { std::env::var("A").ok() }\n'
UNDOCUMENTED = "/// No example.\npub fn f() {}\n"


def rules_for(project, rel, text, toml=None):
    if toml is not None:
        project.write("conform.toml", toml)
    policy = Policy.load(project.root, announce=False)
    return [(f.rule, f.line) for f in policy.check_file(rel, text)[1]]


def test_unwrap_outside_tests(project):
    assert rules_for(project, "src/a.rs", UNWRAP) == [("unwrap-outside-tests", 1)]
    for test_path in ("tests/a.rs", "benches/b.rs", "examples/c.rs", "src/x/tests.rs", "crates/k/tests/a.rs"):
        assert rules_for(project, test_path, UNWRAP) == [], test_path


def test_custom_test_paths_replace_the_defaults(project):
    toml = 'test_paths = ["spec/**"]\n'
    assert rules_for(project, "spec/a.rs", UNWRAP, toml) == []
    assert rules_for(project, "tests/a.rs", UNWRAP, toml) == [("unwrap-outside-tests", 1)]


def test_seam_doctest_only_in_seam_files(project):
    assert rules_for(project, "src/lib.rs", UNDOCUMENTED) == [("seam-doctest", 2)]
    assert rules_for(project, "src/net/mod.rs", UNDOCUMENTED) == [("seam-doctest", 2)]
    assert rules_for(project, "src/net.rs", UNDOCUMENTED) == []
    assert rules_for(project, "tests/lib.rs", UNDOCUMENTED) == []


def test_seam_doctest_negatives(project):
    text = "/// ```\n/// f();\n/// ```\npub fn f() {}\npub(crate) fn g() {}\nfn h() {}\npub const C: u8 = 1;\n" \
           "#[doc(hidden)]\npub fn i() {}\nmod private { pub fn j() {} }\nimpl S { pub fn k() {} }\n" \
           "pub use inner::thing;\n#[cfg(test)]\npub fn l() {}\n"
    assert rules_for(project, "src/lib.rs", text) == []


def test_configured_seam_files(project):
    assert rules_for(project, "src/api.rs", UNDOCUMENTED, 'seam_files = ["src/api.rs"]\n') == [("seam-doctest", 2)]
    assert rules_for(project, "src/lib.rs", UNDOCUMENTED) == []


def test_env_outside_roots(project):
    assert rules_for(project, "src/a.rs", ENV) == [("env-outside-roots", 1)]
    for root in ("src/main.rs", "src/bin/tool.rs", "build.rs", "crates/x/src/main.rs", "tests/it.rs"):
        assert rules_for(project, root, ENV) == [], root


def test_configured_env_roots(project):
    toml = 'env_roots = ["src/settings.rs"]\n'
    assert rules_for(project, "src/settings.rs", ENV, toml) == []
    assert rules_for(project, "src/main.rs", ENV, toml) == [("env-outside-roots", 1)]


def test_file_too_long(project):
    toml = "max_file_lines = 3\n"
    assert rules_for(project, "src/a.rs", "fn a() {}\n" * 3, toml) == []
    assert rules_for(project, "src/a.rs", "fn a() {}\n" * 4, toml) == [("file-too-long", 1)]
    assert rules_for(project, "tests/a.rs", "fn a() {}\n" * 4, toml) == [("file-too-long", 1)]


def test_off_silences_a_rule(project):
    toml = '[rules]\nunwrap-outside-tests = "off"\nenv-outside-roots = "off"\n'
    assert rules_for(project, "src/a.rs", UNWRAP + ENV, toml) == []


def test_messages_name_the_code(project):
    policy = Policy.load(project.root, announce=False)
    (finding,) = policy.check_file("src/a.rs", UNWRAP)[1]
    assert "`.unwrap()` on `x`" in finding.message
    (finding,) = policy.check_file("src/a.rs", ENV)[1]
    assert 'std::env::var("A")' in finding.message
