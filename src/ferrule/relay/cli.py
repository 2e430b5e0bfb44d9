"""The relay's commands: `ferrule serve` for hosts, and one-shot `type`, `complete`, `validate`, `scope`
for a person at a terminal.

Exit codes of the one-shot commands: 0 answered; 1 `validate` found error diagnostics; 2 usage or
protocol error (bad position, a file outside the project); 3 the analyzer could not serve (missing,
the workspace would not load, it crashed or timed out): the recipe is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from ferrule.capture import private_stdout
from ferrule.project import BadRequest, FerruleError, ProjectRoot, WorkspaceUnloadable, project_root
from ferrule.relay import terminal
from ferrule.relay.blind import unlinked
from ferrule.relay.digest import compile_check
from ferrule.relay.envelope import ORACLE_PROTOCOL
from ferrule.relay.ops import OPS
from ferrule.relay.params import COMPLETE_MAX_DEFAULT, SCOPE_MAX_DEFAULT
from ferrule.relay.results import OpResult

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_ENVIRONMENT = 0, 1, 2, 3

_EXIT_CODES = f"""exit codes:
  {EXIT_OK}  answered
  {EXIT_FINDINGS}  (validate) the file has error diagnostics
  {EXIT_USAGE}  usage or protocol error (bad position, a file outside the project)
  {EXIT_ENVIRONMENT}  rust-analyzer could not serve: missing, workspace unloadable, crashed, timed out
     (the recipe to fix it is printed); or (validate) the file without errors is unverified, not
     clean: no crate includes it, or the compile check could not run (not with --no-compile)"""

_POSITION_HELP = "LINE and COL are 1-based, COL counted in characters, as rustc and editors show them."


def configure(name: str, parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    if name == "serve":
        return _configure_serve(parser)
    if name == "type":  # a place, or a name: what agents know
        parser.add_argument("file", metavar="FILE", nargs="?", help="a Rust source file of the project")
        parser.add_argument("line", metavar="LINE", type=_positive_int, nargs="?", help="line, 1-based")
        parser.add_argument("col", metavar="COL", type=_positive_int, nargs="?", help="column, 1-based, in characters")
        parser.add_argument("--symbol", metavar="NAME",
                            help="a name or path instead of FILE LINE COL, e.g. Order::total, str::len")
    else:
        parser.add_argument("file", metavar="FILE", help="a Rust source file of the project")
    if name == "complete":
        parser.add_argument("line", metavar="LINE", type=_positive_int, help="line, 1-based")
        parser.add_argument("col", metavar="COL", type=_positive_int, help="column, 1-based, in characters")
    elif name == "scope":
        parser.add_argument("line", metavar="LINE", type=_positive_int, nargs="?", help="line, 1-based")
        parser.add_argument("col", metavar="COL", type=_positive_int, nargs="?",
                            help="column, 1-based (default: a neutral top-level position)")
    if name == "complete":
        parser.add_argument("--prefix", metavar="P", help="keep only completions whose name starts with P")
        parser.add_argument("--max", metavar="N", type=_positive_int,
                            help=f"at most N completions (default {COMPLETE_MAX_DEFAULT})")
    elif name == "scope":
        parser.add_argument("--max", metavar="N", type=_positive_int,
                            help=f"at most N symbols, the file's own first (default {SCOPE_MAX_DEFAULT})")
    elif name == "validate":
        parser.add_argument("--compile", action=argparse.BooleanOptionalAction, default=True,
                            help="run rustc too, as rust_validate does: cargo check of the file's text in a mirror of "
                                 "the project under the user's cache (the default); --no-compile: rust-analyzer alone, "
                                 "in milliseconds, which misses the borrow checker's errors and many trait and "
                                 "lifetime errors")
    _add_common(parser)
    by_name = "; with --symbol, the workspace around the current directory" if name == "type" else ""
    parser.add_argument("--root", metavar="DIR", type=Path,
                        help=f"the project root (default: the workspace of FILE's package, else that package{by_name})")
    parser.add_argument("--json", action="store_true", help="print the raw result as one JSON object")
    parser.add_argument("-q", "--quiet", action="store_true", help="no indexing progress on stderr")
    parser.add_argument("--timeout-ms", metavar="MS", type=_positive_int,
                        help="the op's time budget once the analyzer is ready")
    parser.epilog = (_POSITION_HELP + "\n\n" if name in ("type", "complete", "scope") else "") + _EXIT_CODES
    return lambda args: run_one_shot(name, args)


def _configure_serve(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    parser.description = (
        f"Serve the NDJSON oracle protocol (docs/PROTOCOL.md, proto {ORACLE_PROTOCOL}) on stdin/stdout for "
        "one Rust project: one JSON frame per line in, one answer per line out, correlated by id.")
    parser.add_argument("--root", metavar="DIR", type=Path, default=None,
                        help="the project to serve (default: the workspace of the package around the current directory, "
                             "else the current directory)")
    _add_common(parser)
    parser.epilog = (
        'request:  {"proto":1,"id":1,"op":"type","params":{"file":"src/lib.rs","position":'
        '{"line":3,"character":4}}}\n'
        'answer:   {"proto":1,"id":1,"ok":true,"result":{...}}  or  '
        '{"proto":1,"id":1,"ok":false,"error":{"kind":...,"message":...,"recipe":...}}\n'
        "ops:\n" + "".join(f"  {op.name:<9} {op.summary}\n" for op in OPS.values())
        + "Exits 0 at end of input or after shutdown.")
    return run_serve


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rust-analyzer", metavar="PATH", dest="rust_analyzer",
                        help="the rust-analyzer binary (default: $RUST_ANALYZER, rustup, PATH)")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer (1-based), got {value}")
    return value


# ---------------------------------------------------------------------------------------------------
# serve


def run_serve(args: argparse.Namespace) -> int:
    from ferrule.relay.serve import serve

    root = (project_root(Path.cwd()) or Path.cwd()) if args.root is None else args.root
    if not root.is_dir():
        print(f"ferrule serve: --root {str(root)!r} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    # the protocol channel: a private duplicate of fd 1, fd 1 itself pointed at stderr, so a stray
    # print or a child's output cannot corrupt the frames
    frames = os.fdopen(private_stdout(), "wb", buffering=0)
    return serve(root, sys.stdin.buffer, frames, analyzer=args.rust_analyzer)


# ---------------------------------------------------------------------------------------------------
# one-shot commands


class UsageError(Exception):
    pass


def utf8_character(line_text: str, col: int) -> int:
    """A 1-based character column as the protocol's 0-based UTF-8 byte offset (clamped to the line)."""
    return len(line_text[: col - 1].encode("utf-8"))


def build_request(name: str, args: argparse.Namespace) -> tuple[Path, str, dict[str, Any]]:
    """The project root, the root-relative file ("" for none), and the op's params; UsageError or
    FerruleError."""
    if name == "type" and (args.symbol is not None or None in (args.file, args.line, args.col)):
        if args.symbol is None or args.file is not None:
            raise UsageError("give FILE LINE COL, or --symbol NAME")
        params: dict[str, Any] = {"symbol": args.symbol}
        if args.timeout_ms is not None:
            params["timeout_ms"] = args.timeout_ms
        return root_without_file(args.root), "", params
    file = Path(os.path.abspath(args.file))
    if not file.is_file():
        raise UsageError(f"no such file: {args.file}")
    if args.root is not None:
        root = args.root
        if not root.is_dir():
            raise UsageError(f"--root {str(root)!r} is not a directory")
    else:
        found = project_root(file)
        if found is None:
            raise WorkspaceUnloadable(
                f"no Cargo.toml in any directory above {args.file}",
                "run inside a Cargo project, or pass --root DIR")
        root = found
    project = ProjectRoot(root)
    rel = project.relative(file)
    if rel is None:
        raise BadRequest(f"{args.file} is outside the project root {project.path}",
                            "pass a file inside the project, or the right --root")
    params = {"file": rel}
    if getattr(args, "line", None) is not None:
        if getattr(args, "col", None) is None:
            raise UsageError("give both LINE and COL, or neither")
        params["position"] = _position(file, args.line, args.col)
    if name == "complete" and args.prefix is not None:
        params["prefix"] = args.prefix
    if getattr(args, "max", None) is not None:
        params["max"] = args.max
    if name == "validate":
        params["compile"] = args.compile
    if args.timeout_ms is not None:
        params["timeout_ms"] = args.timeout_ms
    return project.path, rel, params


def root_without_file(given: Path | None) -> Path:
    """The project root of an op that names no file: --root, else the workspace around the current directory."""
    if given is not None:
        if not given.is_dir():
            raise UsageError(f"--root {str(given)!r} is not a directory")
        return ProjectRoot(given).path
    found = project_root(Path.cwd())
    if found is None:
        raise WorkspaceUnloadable("no Cargo.toml in the current directory or above", "run inside a Cargo project, or pass --root DIR")
    return found


def _position(file: Path, line: int, col: int) -> dict[str, int]:
    lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
    if line > max(len(lines), 1):
        raise UsageError(f"line {line} is past the end of {file.name} ({len(lines)} lines)")
    text = lines[line - 1] if lines else ""
    return {"line": line, "character": utf8_character(text, col)}


class TerminalProgress:
    """Indexing progress on stderr: one rewritten line on a terminal, a line a second otherwise."""

    def __init__(self, stream=None) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self._last = 0.0
        self._shown = False

    def __call__(self, message: str, percentage: int | None) -> None:
        now = time.monotonic()
        if not self.tty and now - self._last < 1.0 and percentage not in (None, 100):
            return
        self._last = now
        pct = f"{percentage:3d}% " if percentage is not None else ""
        text = f"rust-analyzer: {pct}{message}"
        if self.tty:
            self.stream.write("\r\x1b[K" + text[: _columns() - 1])
            self._shown = True
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def done(self) -> None:
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False


def _columns() -> int:
    try:
        columns = os.get_terminal_size(2).columns
    except OSError:
        return 100
    return columns if columns >= 20 else 100  # a pseudo-terminal may report no size at all


async def _ask(root: Path, analyzer: str | None, op: str, params: dict[str, Any],
               progress: TerminalProgress | None) -> OpResult:
    from ferrule.relay.session import Session

    session = Session(root, analyzer=analyzer, on_progress=progress)
    try:
        await session.call("init", {})
        if progress is not None:
            progress.done()
        return await session.call(op, params)
    finally:
        try:
            await session.call("shutdown", {})
        except FerruleError:
            pass


def exit_code_for(error: FerruleError) -> int:
    return EXIT_USAGE if error.kind == "protocol" else EXIT_ENVIRONMENT


def run_one_shot(name: str, args: argparse.Namespace) -> int:
    def show(root: Path, rel: str, result: OpResult) -> str:
        source = Path(root, rel).read_text(encoding="utf-8", errors="replace") if rel else None
        return terminal.result(name, rel, result, source)

    return answer(name, args, build_request, show)


Build = Callable[[str, argparse.Namespace], tuple[Path, str, dict[str, Any]]]  # root, file shown, params


def answer(name: str, args: argparse.Namespace, build: Build, show: Callable[[Path, str, OpResult], str]) -> int:
    """Run one op for a person at a terminal: the request from `build`, the answer as `show` renders it
    (or JSON with --json), errors with their recipe on stderr; the exit code."""
    progress = None if args.quiet else TerminalProgress()
    try:
        root, rel, params = build(name, args)
        result = asyncio.run(_ask(root, args.rust_analyzer, name, params, progress))
    except UsageError as exc:
        print(f"ferrule {name}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except FerruleError as error:
        if progress is not None:
            progress.done()
        if args.json:
            sys.stdout.buffer.write(orjson.dumps({"error": error.to_json()}) + b"\n")
            sys.stdout.buffer.flush()
        print(terminal.error(name, error), file=sys.stderr)
        return exit_code_for(error)
    except KeyboardInterrupt:
        return 130
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(result) + b"\n")
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(show(root, rel, result))
    if name == "validate" and terminal.error_count(result):
        return EXIT_FINDINGS
    if name == "validate" and (compile_check(result) == "failed" or unlinked(result)):
        return EXIT_ENVIRONMENT  # nothing verified the file (rustc's word asked for and not had, or no
        # crate includes it): exit 0 would read as clean
    return EXIT_OK


__all__ = ["answer", "configure", "run_one_shot", "run_serve", "utf8_character"]
