"""Fixtures of the Rust MCP server's tests."""
