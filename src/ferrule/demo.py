"""`ferrule demo`: the Rust tools on the bundled demo crate, showing what an agent reads.

The demo runs the very tools `ferrule mcp` serves, in process, on examples/demo-crate: a small shop
crate with a deliberate type error, an unwrap in domain code, an environment read outside the allowed
files, a public seam function without a doctest, and branded newtypes. Each step prints the call as an
agent would make it, the report the agent would read, and how long it took. Nothing is written to the
crate: the edits the demo asks about go through the tools' `content` argument.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

EXIT_OK, EXIT_USAGE, EXIT_ENVIRONMENT = 0, 2, 3
PRICING = "src/orders/pricing.rs"
REPORT_LINES = 30  # a terminal screen; longer reports (scope lists the whole prelude) are cut


@dataclass(frozen=True)
class Step:
    tool: str
    args: dict[str, Any]
    caption: str


def default_crate() -> Path:
    """examples/demo-crate of the source tree this module was loaded from, else of the current folder
    (an installed ferrule run from a checkout)."""
    source = Path(__file__).resolve().parents[2] / "examples" / "demo-crate"
    here = Path.cwd() / "examples" / "demo-crate"
    return source if source.is_dir() or not here.is_dir() else here


def _locate(text: str, needle: str, offset: int = 0) -> tuple[int, int]:
    """(1-based line, 0-based UTF-8 character) of `needle` plus `offset` characters into it."""
    index = text.index(needle) + offset
    line = text.count("\n", 0, index) + 1
    line_start = text.rfind("\n", 0, index) + 1
    return line, len(text[line_start:index].encode("utf-8"))


def plan(crate: Path) -> list[Step]:
    """The calls, placed by the crate's own text so that editing the crate does not break the demo."""
    pricing = (crate / PRICING).read_text(encoding="utf-8")
    get_line, get_char = _locate(pricing, "qty.get()", len("qty."))
    # The agent rewrites the line that looks up the price, and asks what an Option<u32> offers.
    typing, written = "let cents = unit_price(sku).", "let cents = unit_price(sku).ok_or(UnknownSku)?;"
    pricing.index(written)  # ValueError when the crate is not the demo crate
    draft = pricing.replace(written, typing, 1)
    dot_line, dot_char = _locate(draft, typing, len(typing))
    return [
        Step("rust_validate", {"file": PRICING},
             "a type error from rust-analyzer, and the policy's findings with their advice"),
        Step("rust_type", {"file": PRICING, "line": get_line, "character": get_char},
             "a signature, instead of a guess: what `qty.get()` returns"),
        Step("rust_references", {"symbol": "unit_price"},
             "who uses `unit_price`, asked by name: an agent knows names, not positions"),
        Step("rust_complete", {"file": PRICING, "line": dot_line, "character": dot_char, "prefix": "unwrap",
                               "content": draft},
             "what an Option<u32> offers, asked on unsaved text; the panicking entries are marked"),
        Step("rust_scope", {"file": "src/orders/mod.rs"},
             "the orders module's seam: its branded newtypes (use them, not raw integers), and its scope"),
        Step("rust_validate", {"file": "src/lib.rs"},
             "the crate's seam: a pub function without a doctest"),
        Step("rust_check", {}, "the policy gate over the whole crate, as CI runs it: new findings fail it"),
    ]


class Style:
    """ANSI emphasis on a terminal that wants it (NO_COLOR honoured), plain text otherwise."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def red(self, text: str) -> str:
        return self._wrap("31", text)

    def green(self, text: str) -> str:
        return self._wrap("32", text)


class StartProgress:
    """The analyzer's indexing progress as one rewritten line on a terminal; silent otherwise."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.live = stream.isatty()
        self.shown = False

    def __call__(self, done: float, total: float | None, message: str | None) -> None:
        if self.live and message:
            self.stream.write("\r\x1b[K  " + message[:100])
            self.stream.flush()
            self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


def _call_text(step: Step) -> str:
    shown = {k: (f"<{len(v.splitlines())} lines>" if k == "content" else v) for k, v in step.args.items()}
    return f"{step.tool} {json.dumps(shown, ensure_ascii=False)}"


def _shown_path(path: Path) -> str:
    try:
        return os.path.relpath(path) if path.is_relative_to(Path.cwd()) else str(path)
    except (OSError, ValueError):
        return str(path)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.1f} s"


def _shown(report: str, limit: int) -> list[str]:
    """The report's lines, cut at `limit` with a note of what was left out (the agent gets them all)."""
    lines = report.splitlines()
    if len(lines) <= limit:
        return lines
    return [*lines[:limit], f"... {len(lines) - limit} more lines (the agent reads the whole report)"]


def run_demo(
    crate: Path,
    *,
    analyzer: str | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    color: bool | None = None,
    build_tools: Callable[..., Any] | None = None,
) -> int:
    from ferrule.tools.server import build_tools as default_build

    out = out or sys.stdout
    err = err or sys.stderr
    style = Style(color if color is not None else (out.isatty() and not os.environ.get("NO_COLOR")))
    try:
        steps = plan(crate)
    except (OSError, ValueError) as exc:
        print(f"ferrule demo: {crate} is not the demo crate ({exc}); pass --crate examples/demo-crate",
              file=err)
        return EXIT_USAGE
    tools, relay = (build_tools or default_build)(crate, analyzer=analyzer)
    by_name = {tool.descriptor()["name"]: tool for tool in tools}
    try:
        print(style.bold(f"ferrule demo: what an agent reads from `ferrule mcp --root {_shown_path(crate)}`"),
              file=out)
        out.flush()
        progress = StartProgress(err)
        started = relay.start(progress=progress)
        progress.clear()
        if started.error is not None:
            error = started.error
            print(f"ferrule demo: {error.kind}: {error.message}", file=err)
            if error.recipe:
                print(f"fix: {error.recipe}", file=err)
            return EXIT_ENVIRONMENT
        info = started.result or {}
        state = "ready" if info.get("quiescent", True) else "started (still indexing when its deadline passed)"
        print(f"{info.get('ra_version', 'rust-analyzer')} {state} in {_ms(started.seconds)}: the one-time "
              "start of a session; every call below reuses it", file=out)
        timings = []
        for number, step in enumerate(steps, 1):
            begin = time.perf_counter()
            output = by_name[step.tool].run(dict(step.args))
            if inspect.iscoroutine(output):  # the analyzer tools are async (the MCP server awaits them)
                output = asyncio.run(output)
            elapsed = time.perf_counter() - begin
            timings.append(elapsed)
            verdict = style.red("isError") if output.is_error else style.green("ok")
            print("", file=out)
            print(f"{style.bold(f'{number}. {_call_text(step)}')}  {verdict}, {_ms(elapsed)}", file=out)
            print(style.dim(f"   {step.caption}"), file=out)
            for line in _shown(output.report, REPORT_LINES):
                print(f"   | {line}" if line else "   |", file=out)
        print("", file=out)
        print(f"{len(timings)} calls on the warm session: median {_ms(statistics.median(timings))}, "
              f"slowest {_ms(max(timings))}; the analyzer started once, in {_ms(started.seconds)}.", file=out)
        print("Serve these tools to an agent host with `ferrule mcp --root DIR` (set-up: docs/hosts.md).",
              file=out)
        return EXIT_OK
    finally:
        relay.close()


def configure(name: str, parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    parser.description = (
        "Run the Rust MCP tools on the bundled demo crate (a deliberate type error, an unwrap in domain "
        "code, an environment read outside the allowed files, a pub seam function without a doctest, "
        "branded newtypes) and print each call, the report an agent reads, and its timing. The crate "
        "is not modified."
    )
    parser.add_argument("--crate", metavar="DIR", type=Path, default=None,
                        help="the demo crate (default: examples/demo-crate of this source tree, else of the current folder)")
    parser.add_argument("--rust-analyzer", metavar="PATH", dest="rust_analyzer",
                        help="the rust-analyzer binary (default: $RUST_ANALYZER, rustup, PATH)")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="emphasis with ANSI colours (default: auto, on a terminal without NO_COLOR)")
    parser.epilog = ("exit codes: 0 shown; 2 no demo crate at --crate; 3 rust-analyzer could not start "
                     "(missing, or the crate would not load): the fix is printed")
    return run


def run(args: argparse.Namespace) -> int:
    crate = args.crate if args.crate is not None else default_crate()
    color = {"always": True, "never": False}.get(args.color)
    return run_demo(crate.resolve(), analyzer=args.rust_analyzer, color=color)


__all__ = ["configure", "default_crate", "plan", "run", "run_demo"]
