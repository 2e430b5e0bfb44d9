"""The `ferrule` console script.

Each subcommand lives in the module that owns its work; this file only routes, and imports nothing
but the module of the command asked for, so `ferrule mcp` starts without loading the policy parser.

A command module exposes `configure(name, parser) -> run`, where `run(args) -> int` is the exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from ferrule import __version__

# name -> (module, one-line summary); None: the command is a relay op, summarised by the op table
# (read only when a summary is shown, so that routing to another command never loads the relay).
COMMANDS: dict[str, tuple[str, str | None]] = {
    "serve": ("ferrule.relay.cli", "serve the NDJSON oracle protocol on stdin/stdout for one Rust project"),
    "validate": ("ferrule.relay.cli", None),
    "type": ("ferrule.relay.cli", None),
    "complete": ("ferrule.relay.cli", None),
    "scope": ("ferrule.relay.cli", None),
    # navigation by name
    "symbols": ("ferrule.relay.navigation_cli", None),
    "definition": ("ferrule.relay.navigation_cli", None),
    "references": ("ferrule.relay.navigation_cli", None),
    "implementations": ("ferrule.relay.navigation_cli", None),
    "rename": ("ferrule.relay.navigation_cli", None),
    "fixes": ("ferrule.relay.navigation_cli", None),
    "apply_fix": ("ferrule.relay.navigation_cli", None),
    "check": ("ferrule.conform.cli", "the policy gate over a crate, with its baseline ratchet"),
    "mcp": ("ferrule.tools.cli", "the Rust MCP server for agent hosts (stdio)"),
    "run": ("ferrule.mcp.adapters.cli", "serve an existing Python MCP server (official SDK, fastmcp) on ferrule's stdio"),
    "demo": ("ferrule.demo", "run the relay on the bundled demo crate and show what an agent sees"),
}


def summary(name: str) -> str:
    text = COMMANDS[name][1]
    if text is None:
        from ferrule.relay.ops import OPS

        text = OPS[name].summary
    return text


def _top_parser() -> argparse.ArgumentParser:
    listing = "\n".join(f"  {name:<16} {summary(name)}" for name in COMMANDS)
    parser = argparse.ArgumentParser(
        prog="ferrule",
        description="Join AI coding agents to rust-analyzer: an MCP stdio transport and an analyzer relay.",
        epilog=f"commands:\n{listing}\n\nRun 'ferrule COMMAND --help' for a command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"ferrule {__version__}")
    parser.add_argument("command", nargs="?", help=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0].startswith("-"):
        top = _top_parser()
        top.parse_args(args)
        top.print_help()
        return 0 if not args else 2
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        _top_parser().error(f"unknown command {name!r}; choose from: {', '.join(COMMANDS)}")
    module = importlib.import_module(COMMANDS[name][0])
    parser = argparse.ArgumentParser(prog=f"ferrule {name}", description=summary(name))
    run = module.configure(name, parser)
    return int(run(parser.parse_args(rest)) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
