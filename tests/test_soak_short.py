"""The soak (bench/soak.py, `make soak`: 1,000,000 MCP requests, 100,000 relay ops) in a short form:
every request answered exactly once, no descriptor or process growth, RSS growth under 5 MB."""

from __future__ import annotations

import pytest

from testkit.lines import load_soak

SOAK = load_soak()


def test_mcp_server_soak_short():
    # the interpreter and allocator settle in the first ~50k requests; growth is measured after that
    result = SOAK.soak_mcp(40_000, warmup=60_000)
    SOAK.report([result])
    assert result.failures() == []
    assert result.null_expected > 0 and result.unanswered == 0


@pytest.mark.live
def test_relay_soak_short(analyzer):
    result = SOAK.soak_relay(3_000, analyzer.path, warmup=1_000, window=300, env=analyzer.env)
    SOAK.report([result])
    assert result.failures() == []
    assert result.end.children >= 1, "the analyzer was running throughout"
