"""Fixtures for the drop-in tests: the SDKs are optional, so these tests skip without them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # helper modules beside the tests (prefixed dropin_ to stay unique)
    sys.path.insert(0, str(HERE))

pytest.importorskip("mcp.server.mcpserver", reason="the official MCP SDK 2.x is not installed (ferrule[sdk])")
