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


MIXED = r"""
import os, sys
from ferrule.capture import private_stdout
from ferrule.mcp import StdioTransport

transport = StdioTransport()
try:
    private_stdout()
except RuntimeError as exc:
    os.write(transport._out, b"private_stdout refused while a transport holds fd 1\n")
transport.close()
fd = private_stdout()  # fd 1 for good: the next transport would only find stderr there
try:
    StdioTransport()
except RuntimeError as exc:
    os.write(fd, b"transport refused after private_stdout: " + str(exc).encode() + b"\n")
print("on stderr", flush=True)
"""


def test_private_stdout_and_a_transport_share_the_one_claim_on_fd_1():
    done = subprocess.run([sys.executable, "-c", MIXED], input=b"", capture_output=True, timeout=60, check=True)
    assert done.stdout.decode().splitlines() == [
        "private_stdout refused while a transport holds fd 1",
        "transport refused after private_stdout: fd 1 is already claimed for protocol frames in this process: "
        "a stdio transport gives it back when closed, private_stdout() never does"]
    assert done.stderr.decode() == "on stderr\n"
