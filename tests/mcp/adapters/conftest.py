"""Fixtures for the drop-in tests: the SDKs are optional, so these tests skip without them."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the official MCP SDK 2.x is not installed (ferrule[sdk])")
