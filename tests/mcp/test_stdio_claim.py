"""The stdio transport's hold on fd 1 is a claim: one at a time, and given back when the run ends."""

from __future__ import annotations

import subprocess
import sys

EMBEDDER = r"""
import os, sys
from ferrule.mcp import Server, StdioTransport, tool

print("before", flush=True)
transport = StdioTransport()
print("during: on stderr", flush=True)
try:
    StdioTransport()
except RuntimeError as exc:
    os.write(transport._out, b"second claim refused\n")
transport.close()
transport.close()
print("after the transport", flush=True)
Server("s", "1", [tool(lambda: "x", name="x")]).run()
print("after a run", flush=True)
"""


def test_an_embedder_gets_fd_1_back_after_the_transport_and_after_a_run():
    ping = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    done = subprocess.run([sys.executable, "-c", EMBEDDER], input=ping, capture_output=True, timeout=60, check=True)
    assert done.stdout.decode().splitlines() == [
        "before", "second claim refused", "after the transport", '{"jsonrpc":"2.0","id":1,"result":{}}', "after a run"]
    assert "during: on stderr" in done.stderr.decode()
