"""OpContext.request over a real client and the scripted server: what it promises about the write."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from types import SimpleNamespace

from ferrule.lsp import LspClient
from ferrule.relay.ops.context import Budget, OpContext

FAKE = str(Path(__file__).resolve().parents[1] / "testkit" / "fake_lsp_server.py")


def test_meanwhile_runs_once_the_request_is_written_though_another_ops_request_is_unanswered():
    async def body():
        client = await LspClient.spawn([sys.executable, FAKE], env=dict(os.environ))
        await client.initialize({"processId": os.getpid(), "rootUri": None, "capabilities": {}}, timeout=10)
        assert await client.wait_quiescent(10)
        await client.request("test/seen", {})
        writes: list[bytes] = []
        write = client._stdin.write

        def counted(data: bytes) -> None:
            writes.append(bytes(data))
            write(data)

        client._stdin.write = counted  # type: ignore[method-assign]
        client.send_request("test/delay", {"ms": 30_000}, timeout=30)  # another op's, unanswered
        await asyncio.sleep(0)  # a later loop turn; the server has written nothing since
        context = OpContext(Budget("type", 5_000), None, SimpleNamespace(client=client),  # type: ignore[arg-type]
                            None, None, None, None)  # type: ignore[arg-type]
        written_when_called = []
        answer = await context.request("test/echo", {"n": 1},
                                       meanwhile=lambda: written_when_called.append(b"test/echo" in b"".join(writes)))
        assert answer == {"n": 1}
        assert written_when_called == [True], "the work meant to overlap the analyzer's ran before the request left"
        await client.shutdown()

    asyncio.run(asyncio.wait_for(body(), 30))
