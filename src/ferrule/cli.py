"""The `ferrule` console script.

Each subcommand lives in the module that owns its work; this file only routes, and imports nothing
but the module of the command asked for, so `ferrule mcp` starts without loading the policy parser.

A command module exposes `configure(name, parser) -> run`, where `run(args) -> int` is the exit code.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence

from ferrule import __version__

# name -> (module, one-line summary); a command whose module is not shipped is not offered.
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("ferrule.relay.cli", "serve the NDJSON oracle protocol on stdin/stdout for one Rust project"),
    "validate": ("ferrule.relay.cli", "diagnostics (and policy findings) for one file"),
    "type": ("ferrule.relay.cli", "the type under a position (hover)"),
    "complete": ("ferrule.relay.cli", "completions at a position"),
    "scope": ("ferrule.relay.cli", "symbols in scope, module path, seam file, newtypes"),
    "check": ("ferrule.conform.cli", "the policy gate over a crate, with its baseline ratchet"),
    "mcp": ("ferrule.tools.cli", "the Rust MCP server for agent hosts (stdio)"),
    "run": ("ferrule.mcp.adapters.cli", "serve an existing Python MCP server (official SDK, fastmcp) on ferrule's stdio"),
    "demo": ("ferrule.demo", "run the relay on the bundled demo crate and show what an agent sees"),
}


def available_commands() -> dict[str, tuple[str, str]]:
    found = {}
    for name, (module, summary) in COMMANDS.items():
        try:
            present = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            present = False
        if present:
            found[name] = (module, summary)
    return found


def _top_parser(commands: dict[str, tuple[str, str]]) -> argparse.ArgumentParser:
    listing = "\n".join(f"  {name:<10} {summary}" for name, (_, summary) in commands.items())
    parser = argparse.ArgumentParser(
        prog="ferrule",
        description="Join AI coding agents to rust-analyzer: an MCP stdio transport and an analyzer relay.",
        epilog=f"commands:\n{listing}\n\nRun 'ferrule COMMAND --help' for a command's options."
        if listing
        else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"ferrule {__version__}")
    parser.add_argument("command", nargs="?", help=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    commands = available_commands()
    top = _top_parser(commands)
    if not args or args[0].startswith("-"):
        top.parse_args(args)
        top.print_help()
        return 0 if not args else 2
    name, rest = args[0], args[1:]
    if name not in commands:
        top.error(f"unknown command {name!r}; choose from: {', '.join(commands) or '(none)'}")
    module = importlib.import_module(commands[name][0])
    parser = argparse.ArgumentParser(prog=f"ferrule {name}", description=commands[name][1])
    run = module.configure(name, parser)
    return int(run(parser.parse_args(rest)) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
