"""Fixtures for the LSP client and relay unit tests (no real analyzer needed here)."""
