"""Shared fixtures. Each area keeps its own fixtures in its own tests/<area>/conftest.py."""

from __future__ import annotations

import os

pytest_plugins = ["testkit.live"]


def pytest_report_header(config) -> list[str]:
    """Which rust-analyzer the live tests drive, so that a failure names the release it met."""
    from ferrule.relay.resolve import resolve_analyzer

    try:
        analyzer = resolve_analyzer()
    except Exception as missing:  # noqa: BLE001 - any failure to resolve is reported, not raised here
        return [f"rust-analyzer: none found ({getattr(missing, 'message', missing)})"]
    return [f"rust-analyzer: {analyzer.version} at {analyzer.path} ({analyzer.source})",
            f"RUST_SRC_PATH: {os.environ.get('RUST_SRC_PATH') or '(unset: the sysroot rust-analyzer finds)'}"]
