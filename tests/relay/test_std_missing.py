"""An analyzer that could not load the standard library says so, and its resulting false errors are
never passed off as real: on this machine's rust-analyzer and on the older one (`RUST_ANALYZER_OLD`)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from ferrule.project import BadRequest
from ferrule.relay.sync import SyncSession
from testkit.live import copy_crate, live_session

pytestmark = pytest.mark.live

ANALYZERS = ["current", pytest.param("old", marks=pytest.mark.skipif(
    not os.environ.get("RUST_ANALYZER_OLD"), reason="no RUST_ANALYZER_OLD on this machine"))]


@pytest.fixture(scope="module", params=ANALYZERS)
def session(request, tmp_path_factory, analyzer, private_cache) -> Iterator[SyncSession]:
    crate = copy_crate("shadowcrate", tmp_path_factory.mktemp("nostd"))
    no_std = tmp_path_factory.mktemp("empty-rust-src")
    binary = os.environ["RUST_ANALYZER_OLD"] if request.param == "old" else analyzer.path
    with live_session(crate, env={"RUST_SRC_PATH": str(no_std)}, analyzer=binary, quiet_policy=True) as live:
        yield live


def test_init_names_the_missing_standard_library(session):
    std_error = session.init_result["std_error"]  # type: ignore[attr-defined]
    assert std_error["kind"] == "std-unloaded"
    assert "standard library" in std_error["message"] and "rust-src" in std_error["recipe"]


def test_every_validate_is_degraded_with_the_cause_and_the_recipe(session):
    result = session.call("validate", {"file": "src/lib.rs"})
    assert result["degraded"] is True
    assert [w["kind"] for w in result["warnings"]] == ["std-unloaded"]
    assert "RUST_SRC_PATH" in result["warnings"][0]["recipe"]


def test_with_rustc_the_false_errors_are_gone(session):
    result = session.call("validate", {"file": "src/lib.rs", "compile": True, "timeout_ms": 180_000})
    assert result["compiled"] is True, result.get("compile_error")
    assert [d for d in result["diagnostics"] if d["category"] == "error"] == []
    assert result["degraded"] is True


def test_a_real_error_still_comes_through_rustc(session):
    text = "pub fn f() -> usize { let v = vec![1]; let w = v; v.len() + w.len() }\n"
    result = session.call("validate", {"file": "src/orders.rs", "content": text, "compile": True,
                                       "timeout_ms": 180_000})
    assert [(d["code"], d["source"]) for d in result["diagnostics"] if d["category"] == "error"] == [("E0382", "rustc")]


def test_completions_and_scope_say_the_standard_library_is_missing(session):
    text = "pub fn probe(word: &str) -> usize { word.le }\n"
    complete = session.call("complete", {"file": "src/orders.rs", "content": text,
                                         "position": {"line": 1, "character": text.index("word.le") + 7}})
    scope = session.call("scope", {"file": "src/lib.rs"})
    for result in (complete, scope):
        assert result["degraded"] is True
        assert [w["kind"] for w in result["warnings"]] == ["std-unloaded"]


def test_a_std_name_not_found_is_not_called_absent(session):
    """Without the standard library the analyzer knows none of its items: `Vec::push` is not found,
    and the refusal says why and how to mend it rather than that no such item exists."""
    with pytest.raises(BadRequest) as refused:
        session.call("type", {"symbol": "Vec::push"})
    assert "did not load the standard library" in refused.value.message
    assert "RUST_SRC_PATH" in refused.value.recipe
