"""`ferrule mcp`'s tools over a real rust-analyzer that dies on demand: an agent cannot send `init`,
so after deaths in a row the tools start a fresh analyzer on their own once a cool-down has passed,
with every overlay re-applied, and each report says what happened on its call.

The analyzer runs behind testkit/ra_proxy.py, which kills it when it answers a hover.
"""

from __future__ import annotations

import time

import pytest

from ferrule.tools.relay_link import SharedRelay
from ferrule.tools.relay_tools import relay_tools
from testkit.serve_process import copy_crate, launches, proxy_wrapper

pytestmark = pytest.mark.live

AT_ADD = {"file": "src/lib.rs", "line": 10, "character": 4}  # `left` in add's body
ALPHA = "pub fn alpha_value() -> u32 {\n    missing_alpha\n}\n"  # an unresolved name on line 2
COOL_DOWN = (1.5, 20.0)  # after 2 deaths in a row, after 3 or more
RESTARTED = "a fresh one was started for this call with every overlay re-applied"


@pytest.fixture
def tools(tmp_path, analyzer, monkeypatch):
    for name, value in analyzer.env.items():
        monkeypatch.setenv(name, value)
    root = copy_crate("faultcrate", tmp_path)
    wrapper, log, control = proxy_wrapper(tmp_path, analyzer.path)
    relay = SharedRelay(root, analyzer=str(wrapper), cool_down=COOL_DOWN)
    named = {tool.name: tool for tool in relay_tools(relay)}
    named["launches"], named["control"] = log, control
    yield named
    relay.close()


def test_two_deaths_in_a_row_then_a_fresh_analyzer_after_the_cool_down(tools):
    run = {name: tool.run for name, tool in tools.items() if name.startswith("rust_")}
    assert not run["rust_update"]({"file": "src/alpha.rs", "content": ALPHA}).is_error
    assert run["rust_type"](AT_ADD).report.startswith("src/lib.rs 10:4:\n  left: u32")
    assert len(launches(tools["launches"])) == 1

    tools["control"].write_text("truncate-exit textDocument/hover 2")  # this call's try and its retry
    died = run["rust_type"](AT_ADD)
    assert died.is_error and died.structured["error"]["kind"] == "oracle-crashed"
    assert "died 2 times in a row" in died.report
    assert f"{RESTARTED}, and the call retried; it failed again" in died.report
    assert died.structured["restarted"] == 1
    assert len(launches(tools["launches"])) == 2

    refused = run["rust_type"](AT_ADD)  # within the cool-down: answered at once, nothing started
    assert refused.is_error and refused.structured["error"]["kind"] == "oracle-crashed"
    assert "no analyzer was started for this request" in refused.report
    assert "started for this call" not in refused.report and "restarted" not in refused.structured
    assert "init" not in refused.report
    assert len(launches(tools["launches"])) == 2

    time.sleep(COOL_DOWN[0])  # the cool-down itself is the event waited for
    back = run["rust_validate"]({"file": "src/alpha.rs"})
    assert not back.is_error
    assert [(d["code"], d["line"]) for d in back.structured["diagnostics"]] == [("E0425", 2)], "the overlay is back"
    assert back.report.endswith(f"note: rust-analyzer had died; {RESTARTED}")
    assert len(launches(tools["launches"])) == 3

    healthy = run["rust_type"](AT_ADD)
    assert healthy.report == "src/lib.rs 10:4:\n  left: u32"

    # a call that succeeded ended the run of deaths: the next run starts from the first cool-down
    tools["control"].write_text("truncate-exit textDocument/hover 3")
    again = run["rust_type"](AT_ADD)
    assert "died 2 times in a row" in again.report and f"cool-down of {COOL_DOWN[0]:g} s" in again.report
    assert len(launches(tools["launches"])) == 4
    time.sleep(COOL_DOWN[0])
    longer = run["rust_type"](AT_ADD)  # the fresh analyzer dies too: the next wait is longer
    assert longer.is_error and "died 3 times in a row" in longer.report
    assert f"cool-down of {COOL_DOWN[1]:g} s" in longer.report
    assert len(launches(tools["launches"])) == 5
