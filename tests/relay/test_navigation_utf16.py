"""Navigation with only UTF-16 granted: every column in and out goes through the line's text, so a
line with characters outside ASCII shows the protocol's UTF-8 byte columns."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ferrule.relay.sync import SyncSession
from testkit.live import copy_crate, live_session, position_of

pytestmark = pytest.mark.live

REPORT = "src/report.rs"


@pytest.fixture(scope="module")
def session(tmp_path_factory, analyzer) -> Iterator[tuple[SyncSession, Path]]:
    crate = copy_crate("orders", tmp_path_factory.mktemp("nav16"))
    with live_session(crate, env={"FERRULE_POSITION_ENCODING": "utf-16"}) as live:
        assert live.init_result["position_encoding"] == "utf-16"
        yield live, crate


def test_columns_after_wide_characters_are_utf8_bytes_both_ways(session):
    live, crate = session
    text = (crate / REPORT).read_text().replace("|order| order.total()", "|order| /* é𝄞 */ order.total()")
    live.call("update", {"file": REPORT, "content": text})
    try:
        at = position_of(text, "total()")
        line = text.splitlines()[at["line"] - 1]
        found = live.call("references", {"symbol": "Order::total"})
        [use] = [r for g in found["files"] if g["file"] == REPORT for r in g["references"]]
        assert (use["line"], use["character"]) == (at["line"], at["character"])
        assert line.encode()[use["character"]:use["end_character"]] == b"total"
        renamed = live.call("rename", {"file": REPORT, "position": at, "new_name": "sum", "apply": "overlay"})
        [edit] = next(c["edits"] for c in renamed["changes"] if c["file"] == REPORT)
        assert (edit["character"], edit["end_character"]) == (use["character"], use["end_character"])
        after = live.call("references", {"symbol": "Order::sum"})
        [renamed_use] = [r for g in after["files"] if g["file"] == REPORT for r in g["references"]]
        assert "/* é𝄞 */ order.sum()" in renamed_use["text"]
        assert live.call("validate", {"file": REPORT})["diagnostics"] == []
    finally:
        for file in ("src/report.rs", "src/orders/pricing.rs", "src/orders/mod.rs", "src/lib.rs"):
            live.call("update", {"file": file, "content": None})
