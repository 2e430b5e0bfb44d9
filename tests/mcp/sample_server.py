"""The server the subprocess and SDK-client tests drive: one tool per behaviour under test.

Run as a script; `SAMPLE_MAX_LINE` and `SAMPLE_STDERR_LIMIT` set the server's bounds.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from typing import Optional

from ferrule.mcp import Server, ToolOutput, ToolSet, progress

tools = ToolSet()


@tools.tool
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@tools.tool
def refuse(reason: str = "no luck") -> ToolOutput:
    """A tool-level failure: an isError result."""
    return ToolOutput(f"refused: {reason}", is_error=True)


@tools.tool
def explode() -> str:
    """Raises."""
    print("about to fail", file=sys.stderr)
    raise RuntimeError("the tool blew up")


@tools.tool
def child_output(marker: str) -> str:
    """Runs a child process that writes to both stdout and stderr, and prints stray text itself."""
    code = f"import sys; print('child-out {marker}'); print('child-err {marker}', file=sys.stderr)"
    subprocess.run([sys.executable, "-c", code], check=True)
    print(f"stray print {marker}", flush=True)
    os.write(1, f"raw fd1 write {marker}\n".encode())
    return f"ran {marker}"


@tools.tool
def chatty(size: int) -> str:
    """Writes `size` bytes to stderr, ending with a marker."""
    os.write(2, b"x" * (size - 4) + b"END\n")
    return "spoke"


@tools.tool
def steps(count: int) -> str:
    """Reports progress `count` times, then once more out of order (dropped)."""
    for i in range(1, count + 1):
        progress(i, count, f"step {i}")
    progress(1, count, "not increasing")
    return "done"


@tools.tool
def weather(city: str) -> dict:
    """Structured output."""
    return {"city": city, "tempC": 21.5}


@tools.tool
async def hold(marker: str = "") -> str:
    """Reports progress once, then waits to be cancelled; a cancelled call leaves `<marker>.cancelled`."""
    progress(1, None, "holding")
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        if marker:
            open(marker + ".cancelled", "w").close()
        raise
    return "never cancelled"


@tools.tool
def ask() -> str:
    """Tries to read stdin, itself and through a child."""
    own = sys.stdin.read()
    child = subprocess.run(["cat"], capture_output=True, timeout=10).stdout
    return f"own={own!r} child={child!r}"


@tools.tool
def nap(seconds: float) -> str:
    """Sleeps."""
    time.sleep(seconds)
    return f"slept {seconds}"


@tools.tool
def later(marker: str, seconds: float = 0.05) -> str:
    """Leaves a thread and a child behind that write to stderr once the call is over."""
    # each then creates <marker>.child / <marker>.thread in $SAMPLE_SPOKEN, if set: the test's event
    spoken = os.path.join(os.environ.get("SAMPLE_SPOKEN", ""), marker)
    told = f"open({spoken + '.child'!r}, 'w').close()" if os.environ.get("SAMPLE_SPOKEN") else "pass"
    subprocess.Popen([sys.executable, "-c", f"import sys, time; time.sleep({seconds}); "
                      f"print('child {marker}', file=sys.stderr, flush=True); {told}"])

    def speak() -> None:
        time.sleep(seconds)
        os.write(2, f"thread {marker}\n".encode())
        if os.environ.get("SAMPLE_SPOKEN"):
            open(spoken + ".thread", "w").close()

    threading.Thread(target=speak).start()
    return f"left {marker} behind"


@tools.tool
def greet(name: str | None = None, times: Optional[int] = None) -> str:  # noqa: UP045 - both spellings
    """Optional arguments, in both spellings."""
    return f"hello {name or 'you'}" * (times or 1)


class Locate:
    """A tool written against the protocol (descriptor + run) whose arguments are integers."""

    def descriptor(self) -> dict:
        return {"name": "locate", "description": "Shows the position it was given, with the Python types.",
                "inputSchema": {"type": "object", "required": ["line"], "properties": {
                    "line": {"type": "integer", "minimum": 1}, "character": {"type": "integer"}}}}

    def run(self, args: dict) -> ToolOutput:
        return ToolOutput(repr(args))


tools.add(Locate())


@tools.tool
def implementations() -> dict:
    """Which twins this process loaded."""
    from ferrule import capture, fastframe
    from ferrule.mcp import server

    return {"fastframe": fastframe.IMPLEMENTATION, "capture": capture.IMPLEMENTATION, "server": server.IMPLEMENTATION}


if __name__ == "__main__":
    Server(
        "sample",
        "0.1",
        tools,
        instructions="A server for tests.",
        max_line=int(os.environ.get("SAMPLE_MAX_LINE", 64 * 1024 * 1024)),
        stderr_limit=int(os.environ.get("SAMPLE_STDERR_LIMIT", 64 * 1024)),
    ).run()
