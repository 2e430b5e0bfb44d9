"""validate with `compile: true` on a project whose dependency lives beside it (`path = "../common"`):
the mirror under the cache must build the same dependency, so rustc's answer still comes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ferrule.relay.sync import SyncSession
from testkit.live import live_session

pytestmark = pytest.mark.live

APP_LIB = "pub fn greeting() -> String {\n    common::greet()\n}\n"
MOVED = ("pub fn greeting() -> String {\n    let s = common::greet();\n    let t = s;\n"
         "    format!(\"{s}{t}\")\n}\n")


@pytest.fixture(scope="module")
def app(tmp_path_factory, analyzer, private_cache) -> Path:
    base = tmp_path_factory.mktemp("pathdeps")
    for name, manifest_tail, lib in (
            ("common", "", 'pub fn greet() -> String {\n    String::from("hello")\n}\n'),
            ("app", '\n[dependencies]\ncommon = { path = "../common" }\n', APP_LIB)):
        (base / name / "src").mkdir(parents=True)
        (base / name / "Cargo.toml").write_text(
            f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n{manifest_tail}')
        (base / name / "src" / "lib.rs").write_text(lib)
    return base / "app"


@pytest.fixture(scope="module")
def session(app) -> Iterator[SyncSession]:
    with live_session(app) as live:
        yield live


def test_rustc_checks_a_project_whose_dependency_is_outside_it(session):
    result = session.call("validate", {"file": "src/lib.rs", "content": MOVED, "compile": True, "timeout_ms": 180_000})
    assert result.get("compiled") is True, result.get("compile_error")
    codes = [(d["code"], d["source"]) for d in result["diagnostics"]]
    assert ("E0382", "rustc") in codes, result["diagnostics"]


def test_and_finds_the_project_clean_when_it_is(session):
    result = session.call("validate", {"file": "src/lib.rs", "compile": True, "timeout_ms": 180_000})
    assert result.get("compiled") is True, result.get("compile_error")
    assert [d for d in result["diagnostics"] if d["category"] == "error"] == []


def test_a_change_in_the_dependency_outside_is_seen_by_the_next_check(session, app):
    calls_new = APP_LIB.replace("common::greet()", "common::greet_twice()")
    first = session.call("validate", {"file": "src/lib.rs", "content": calls_new, "compile": True,
                                      "timeout_ms": 180_000})
    assert ("E0425", "rustc") in [(d["code"], d["source"]) for d in first["diagnostics"]], first["diagnostics"]
    common = app.parent / "common" / "src" / "lib.rs"
    before = common.read_text()
    try:
        common.write_text(before + "pub fn greet_twice() -> String {\n    greet() + &greet()\n}\n")
        again = session.call("validate", {"file": "src/lib.rs", "content": calls_new, "compile": True,
                                          "timeout_ms": 180_000})
        assert [d for d in again["diagnostics"] if d["source"] == "rustc"] == [], again["diagnostics"]
    finally:
        common.write_text(before)
