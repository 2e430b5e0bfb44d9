"""`ferrule mcp`: the Rust MCP server on stdio, for agent hosts."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable
from pathlib import Path

EXIT_OK, EXIT_USAGE = 0, 2

_EPILOG = """\
The server speaks newline-delimited JSON-RPC 2.0 (MCP) on stdin/stdout and logs on stderr. It starts
rust-analyzer on the first tool call and stops it when stdin closes.

tools:
{tools}
Paths are relative to the root; line is 1-based, character 0-based in UTF-8 bytes. A place is a
`symbol` (a name or a path, e.g. Order::total, str::len) or `file` with `line` and `character`.

set-up in a host (more in docs/hosts.md):
  Claude Code:  claude mcp add --transport stdio --scope project ferrule -- ferrule mcp
  VS Code:      .vscode/mcp.json   {"servers": {"ferrule": {"type": "stdio", "command": "ferrule",
                                    "args": ["mcp", "--root", "${workspaceFolder}"]}}}
  Cursor:       .cursor/mcp.json   {"mcpServers": {"ferrule": {"command": "ferrule",
                                    "args": ["mcp", "--root", "${workspaceFolder}"]}}}"""


def configure(name: str, parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    parser.description = (
        "Serve rust-analyzer and the project's policy to an agent host as MCP tools, over stdio, "
        "for one Cargo project."
    )
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--root", metavar="DIR", type=Path, default=None,
                        help="the Cargo project to serve (default: the workspace of the package around the current "
                             "directory, else the current directory)")
    parser.add_argument("--rust-analyzer", metavar="PATH", dest="rust_analyzer",
                        help="the rust-analyzer binary (default: $RUST_ANALYZER, rustup, PATH)")
    parser.epilog = _EPILOG.replace("{tools}", _tools_listing())
    return run


def _tools_listing() -> str:
    """Each tool with its title, and its arguments (`?` optional) beneath, as `tools/list` gives them."""
    from ferrule.tools.descriptors import DESCRIPTORS

    lines = []
    for name, descriptor in DESCRIPTORS.items():
        schema = descriptor["inputSchema"]
        required = set(schema.get("required", ()))
        arguments = ", ".join(key if key in required else f"{key}?" for key in schema["properties"])
        lines += [f"  {name:<21} {descriptor['title']}", f"  {'':<21} {{{arguments}}}"]
    return "\n".join(lines)


class Terminated(KeyboardInterrupt):
    """SIGTERM. Not a SystemExit: the server turns an exit inside a running tool into that tool's
    failure and serves on, while a terminated server must stop wherever it is. A KeyboardInterrupt:
    asyncio lets that one out of a callback or a task of the relay's loop (any other BaseException it
    logs or keeps in the task), so a SIGTERM that lands while the loop handles the analyzer's output
    still stops the server."""


def _stop_on_sigterm() -> None:
    # Hosts end a server with SIGTERM after closing stdin; unwinding (rather than dying) lets the
    # analyzer get its shutdown instead of lingering until it notices its pipe is gone.
    def stop(signum: int, frame: object) -> None:
        raise Terminated(signum)

    signal.signal(signal.SIGTERM, stop)


def run(args: argparse.Namespace) -> int:
    from ferrule.project import project_root
    from ferrule.tools.server import build_server

    root = (args.root if args.root is not None else project_root(Path.cwd()) or Path.cwd()).resolve()
    if not root.is_dir():
        print(f"ferrule mcp: --root {str(args.root)!r} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    if not (root / "Cargo.toml").is_file():
        print(f"ferrule mcp: warning: no Cargo.toml in {root}; the analyzer tools will answer "
              "workspace-unloadable until the root names a Cargo project", file=sys.stderr)
    server, relay = build_server(root, analyzer=args.rust_analyzer)
    _stop_on_sigterm()
    try:
        server.run()
    except Terminated as terminated:
        return 128 + int(terminated.args[0])
    finally:
        relay.close()
    return EXIT_OK


__all__ = ["configure", "run"]
