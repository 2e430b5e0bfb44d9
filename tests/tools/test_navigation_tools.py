"""The navigation tools through `ferrule mcp`, as an agent host calls them (the official SDK client),
over the `orders` fixture: a readable report with path:line and the line's text, and the relay's
result in structuredContent."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.client.session import ClientSession

from testkit.tools import REPO, copy_crate, locate, run_server, text_of

pytestmark = pytest.mark.live

ORDERS = REPO / "tests" / "fixtures" / "orders"
STATUS = "src/orders/status.rs"


def test_find_and_change_code_by_name(tmp_path, analyzer):
    crate = copy_crate(ORDERS, tmp_path)
    report_text = (crate / "src/report.rs").read_text()
    broken = (crate / STATUS).read_text().replace('        Status::Shipped => "shipped",\n', "")
    seen: dict[str, Any] = {}

    async def body(session: ClientSession) -> None:
        call = session.call_tool
        seen["search"] = await call("rust_symbols", {"query": "total"})
        seen["outline"] = await call("rust_symbols", {"file": "src/orders/pricing.rs"})
        seen["definition"] = await call("rust_definition", {"symbol": "Order::total"})
        seen["type_of_name"] = await call("rust_type", {"symbol": "Order::total"})
        seen["type_of_std"] = await call("rust_type", {"symbol": "str::split_once"})
        seen["type_content_and_name"] = await call("rust_type", {"symbol": "Order::total", "content": ""})
        line, character = locate(report_text, "total()")
        seen["by_position"] = await call("rust_definition", {"file": "src/report.rs", "line": line,
                                                             "character": character})
        seen["ambiguous"] = await call("rust_definition", {"symbol": "total"})
        seen["both"] = await call("rust_definition", {"symbol": "total", "file": "src/lib.rs"})
        seen["references"] = await call("rust_references", {"symbol": "Order::total"})
        seen["implementations"] = await call("rust_implementations", {"symbol": "Pricing"})
        seen["rename"] = await call("rust_rename", {"symbol": "Flat", "new_name": "Fixed"})
        await call("rust_update", {"file": STATUS, "content": broken})
        seen["fixes"] = await call("rust_fixes", {"file": STATUS, "line": 12, "code": "E0004"})
        fix_id = seen["fixes"].structured_content["fixes"][0]["id"]
        seen["apply"] = await call("rust_apply_fix", {"file": STATUS, "id": fix_id, "apply": "overlay"})
        seen["validate"] = await call("rust_validate", {"file": STATUS})

    run_server(crate, analyzer.env, body, errlog=tmp_path / "server.err")

    search = text_of(seen["search"])
    assert search.startswith("3 symbols matching 'total':")
    assert "method Order::total\n    src/orders/pricing.rs:22:11\n        pub fn total(&self) -> u64 {" in search
    assert "  3-7 trait Pricing\n    5-6 method price  fn(&self) -> u64" in text_of(seen["outline"])
    assert "\n  36-40 impl Pricing for Flat\n" in text_of(seen["outline"]) and "impl impl" not in text_of(seen["outline"])

    definition = seen["definition"]
    assert not definition.is_error
    assert text_of(definition) == ("`Order::total`: 1 location\n  src/orders/pricing.rs:22:11\n"
                                   "      pub fn total(&self) -> u64 {")
    assert definition.structured_content["locations"][0]["line"] == 22
    assert seen["by_position"].structured_content == definition.structured_content

    type_of_name = text_of(seen["type_of_name"])
    assert type_of_name.startswith("Order::total:\n") and "pub fn total(&self) -> u64" in type_of_name
    assert "fn split_once<" in text_of(seen["type_of_std"])  # the standard library's, by name
    assert seen["type_content_and_name"].is_error and "not `symbol`" in text_of(seen["type_content_and_name"])

    ambiguous = seen["ambiguous"]
    assert ambiguous.is_error and "src/report.rs:12" in text_of(ambiguous) and "src/orders/pricing.rs:22" in text_of(ambiguous)
    assert seen["both"].is_error and "not both" in text_of(seen["both"])

    references = text_of(seen["references"])
    assert references.splitlines()[0] == "`Order::total`: 5 references in 4 files"
    assert "  src/orders/mod.rs\n    10:10  order.total() >= 5_000" in references

    implementations = text_of(seen["implementations"])
    assert "impl Pricing for Order {" in implementations and "impl Pricing for Flat {" in implementations

    rename = seen["rename"]
    assert "not applied" in text_of(rename).splitlines()[0]
    assert rename.structured_content["applied"] is None
    assert (crate / "src/orders/pricing.rs").read_text().count("Flat") == 2  # only answered

    fixes = text_of(seen["fixes"])
    assert "quickfix" in fixes and "match arm" in fixes
    assert "applied as overlays" in text_of(seen["apply"])
    assert "clean" in text_of(seen["validate"])
    assert "Status::Shipped => \"shipped\"" in (crate / STATUS).read_text()  # the disk is untouched
