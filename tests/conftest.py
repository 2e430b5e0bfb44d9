"""Shared fixtures. Each area keeps its own fixtures in its own tests/<area>/conftest.py."""
