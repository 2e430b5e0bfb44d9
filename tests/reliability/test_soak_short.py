"""The soak (bench/soak.py, `make soak`: 1,000,000 MCP requests, 100,000 relay ops) in a short form:
every request answered exactly once, no descriptor or process growth, RSS growth under 5 MB."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from rel_support import REPO


def load_soak():
    module = sys.modules.get("ferrule_bench_soak")
    if module is None:
        spec = importlib.util.spec_from_file_location("ferrule_bench_soak", REPO / "bench" / "soak.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return module


SOAK = load_soak()


def test_mcp_server_soak_short():
    # the interpreter and allocator settle in the first ~50k requests; growth is measured after that
    result = SOAK.soak_mcp(40_000, warmup=60_000)
    SOAK.report([result])
    assert result.failures() == []
    assert result.null_expected > 0 and result.unanswered == 0


@pytest.mark.live
def test_relay_soak_short(analyzer_env):
    result = SOAK.soak_relay(3_000, analyzer_env["RUST_ANALYZER"], warmup=1_000, window=300, env=analyzer_env)
    SOAK.report([result])
    assert result.failures() == []
    assert result.end.children >= 1, "the analyzer was running throughout"
