"""Helpers shared by the relay shell's tests: run the loop in-process, talk to a serve subprocess."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import orjson

from ferrule.relay.envelope import encode_request
from ferrule.relay.serve import serve_async


def frame(request_id: Any, op: str, params: dict[str, Any] | None = None) -> bytes:
    return encode_request(request_id, op, params)


def run_loop(root: Path, data: bytes, factory, timeout: float = 10.0) -> tuple[int, list[dict[str, Any]]]:
    """Feed `data` to an in-process serve loop over in-memory streams; the exit code and the answers."""
    out = io.BytesIO()

    async def main() -> int:
        return await asyncio.wait_for(
            serve_async(root, io.BytesIO(data), out, session_factory=factory), timeout)

    code = asyncio.run(main())
    return code, [orjson.loads(line) for line in out.getvalue().splitlines()]


def by_id(answers: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    table = {}
    for answer in answers:
        assert answer["id"] not in table, f"two answers for id {answer['id']!r}"
        table[answer["id"]] = answer
    return table
