"""The capture guard under stress, both twins: floods, tools that raise or are interrupted, real
SIGINTs landing at random moments, and a host (pytest's capfd) that holds fd 2 itself."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ferrule._capture_shared import ACTIVE
from ferrule.mcp import ReplayTransport, Server
from testkit.storm import assert_storm_is_harmless


def identity(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def flood(megabytes: int) -> list[str]:
    """A child that writes `megabytes` MiB to its stderr, then a marker, and exits."""
    code = (f"import os\nchunk = b'x' * (1 << 20)\nfor _ in range({megabytes}): os.write(2, chunk)\n"
            "os.write(2, b'END-OF-FLOOD')\n")
    return [sys.executable, "-c", code]


def run_flood(twin, megabytes: int) -> None:
    before = identity(2)
    with twin.capture.capture_stderr(64 * 1024) as captured:
        done = subprocess.run(flood(megabytes), timeout=120)
    assert done.returncode == 0
    assert identity(2) == before
    assert captured.size == (megabytes << 20) + len("END-OF-FLOOD")
    assert captured.truncated and captured.text.endswith("END-OF-FLOOD")
    assert f"the first {captured.size - 64 * 1024} bytes were cut" in captured.text
    with twin.capture.capture_stderr() as after:
        os.write(2, b"next")
    assert after.text == "next", "the next capture starts empty"


def test_a_child_writing_100_mib_to_stderr_never_blocks(twin):
    run_flood(twin, 100)


def test_real_sigints_for_longer_never_lose_fd2_or_the_guard(twin):
    # the quick storm of test_capture_session.py, three times as long: rarer landings get their chance
    assert_storm_is_harmless(twin, "capture", seconds=6)


def boom() -> str:
    """Raises."""
    os.write(2, b"boom is about to fail\n")
    raise RuntimeError("boom")


def interrupted() -> str:
    """Interrupted mid-run, as by Ctrl-C."""
    os.write(2, b"half done\n")
    raise KeyboardInterrupt


def echo(text: str) -> str:
    """Echo the text back."""
    return text


def call(msg_id, name, arguments=None):
    return {"jsonrpc": "2.0", "id": msg_id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments or {}}}


def test_a_tool_that_raises_leaves_fd2_and_fd0_restored(use_twin):
    before = identity(2), identity(0)
    transport = ReplayTransport([call(1, "boom"), call(2, "echo", {"text": "still here"})])
    Server("t", "0", [boom, echo]).run(transport)
    first, second = transport.messages()
    assert first["result"]["isError"] is True and "boom" in first["result"]["content"][0]["text"]
    assert "boom is about to fail" in first["result"]["content"][0]["text"]
    assert second["result"]["content"][0]["text"] == "still here"
    assert (identity(2), identity(0)) == before
    assert not ACTIVE.locked()


def test_a_tool_interrupted_by_keyboardinterrupt_leaves_fd2_restored(use_twin):
    before = identity(2), identity(0)
    transport = ReplayTransport([call(1, "interrupted"), call(2, "echo", {"text": "never"})])
    with pytest.raises(KeyboardInterrupt):  # Ctrl-C ends the server, as it should
        Server("t", "0", [interrupted, echo]).run(transport)
    assert transport.messages() == []
    assert (identity(2), identity(0)) == before
    assert not ACTIVE.locked()
    with use_twin.capture.capture_stderr() as captured:  # the guard is free and the file empty
        os.write(2, b"after")
    assert captured.text == "after"
    again = ReplayTransport([call(3, "echo", {"text": "served"})])
    Server("t", "0", [interrupted, echo]).run(again)
    assert again.messages()[0]["result"]["content"][0]["text"] == "served"


def test_a_capture_inside_pytest_capfd_gives_fd2_back_after_an_interrupt(twin, capfd):
    held = identity(2)
    with pytest.raises(KeyboardInterrupt):
        with twin.capture.capture_stderr() as captured:
            subprocess.run(flood(1), timeout=60)
            os.write(2, b"ours")
            raise KeyboardInterrupt
    assert identity(2) == held
    assert captured.text.endswith("END-OF-FLOODours") and captured.size == (1 << 20) + 16
    os.write(2, b"back to pytest\n")
    assert capfd.readouterr().err == "back to pytest\n"
    assert not ACTIVE.locked()
