"""The one-shot navigation commands: `symbols`, `definition`, `references`, `implementations`,
`rename`, `fixes`, `apply_fix`, for a person at a terminal.

A place is `FILE LINE COL` (1-based, COL in characters, as editors show them) or `--symbol NAME`.
Without a FILE the project is the one around the current directory (or `--root`). The edit commands
show the edits; `--write` writes them to disk (atomically; refused when a file changed meanwhile).
Exit codes as the other one-shot commands.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ferrule.relay import cli, terminal
from ferrule.relay.params import NAVIGATION_MAX_DEFAULT, SYMBOL_KINDS

COMMANDS = ("symbols", "definition", "references", "implementations", "rename", "fixes", "apply_fix")
_PLACED = ("definition", "references", "implementations", "rename")


def configure(name: str, parser: argparse.ArgumentParser) -> Any:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    if name == "symbols":
        parser.add_argument("file", metavar="FILE", nargs="?", help="outline this file")
        parser.add_argument("--query", metavar="NAME", help="search the project for items by name")
        parser.add_argument("--kinds", metavar="KIND", nargs="+", choices=SYMBOL_KINDS, help="keep only these kinds")
    elif name in _PLACED:
        parser.add_argument("file", metavar="FILE", nargs="?", help="a Rust source file of the project")
        parser.add_argument("line", metavar="LINE", type=cli._positive_int, nargs="?", help="line, 1-based")
        parser.add_argument("col", metavar="COL", type=cli._positive_int, nargs="?", help="column, 1-based")
        parser.add_argument("--symbol", metavar="NAME", help="a name or path instead of a place, e.g. Order::total")
    elif name == "fixes":
        parser.add_argument("file", metavar="FILE", help="a Rust source file of the project")
        parser.add_argument("line", metavar="LINE", type=cli._positive_int, help="line, 1-based")
        parser.add_argument("col", metavar="COL", type=cli._positive_int, nargs="?",
                            help="column, 1-based (default: the whole line)")
        parser.add_argument("--end-line", metavar="N", type=cli._positive_int, help="the range's last line")
        parser.add_argument("--code", metavar="CODE", help="only the quick fixes for this diagnostic, e.g. E0004")
        parser.add_argument("--compile", action=argparse.BooleanOptionalAction, default=True,
                            help="rustc's suggested fixes too, first (the compile check `validate` runs; the default); "
                                 "--no-compile: the analyzer's alone")
    else:
        parser.add_argument("file", metavar="FILE", help="the file `fixes` was asked about")
        parser.add_argument("id", metavar="ID", help="a fix's id as `ferrule fixes` printed it")
    if name == "references":
        parser.add_argument("--no-declaration", action="store_true", help="leave the declaration out")
    if name == "rename":
        parser.add_argument("--to", metavar="NEW_NAME", required=True, help="the new name")
    if name in ("rename", "apply_fix"):
        parser.add_argument("--write", action="store_true", help="write the edits to disk (default: show them)")
    if name in ("symbols", "references", "implementations", "fixes"):
        parser.add_argument("--max", metavar="N", type=cli._positive_int,
                            help=f"at most N items (default {NAVIGATION_MAX_DEFAULT})")
    cli._add_common(parser)
    parser.add_argument("--root", metavar="DIR", type=Path,
                        help="the project root (default: the workspace of the package around the current directory)")
    parser.add_argument("--json", action="store_true", help="print the raw result as one JSON object")
    parser.add_argument("-q", "--quiet", action="store_true", help="no indexing progress on stderr")
    parser.add_argument("--timeout-ms", metavar="MS", type=cli._positive_int,
                        help="the op's time budget once the analyzer is ready")
    parser.epilog = __doc__.split("\n\n", 1)[1] + "\n" + cli._EXIT_CODES
    return lambda args: run(name, args)


def build_request(name: str, args: argparse.Namespace) -> tuple[Path, dict[str, Any]]:
    """The project root and the op's params; cli.UsageError or FerruleError."""
    params: dict[str, Any] = {}
    if getattr(args, "file", None) is not None:
        line, col = getattr(args, "line", None), getattr(args, "col", None)
        if name == "fixes" and col is None:  # a whole line: no position
            line = None
        root, rel, params = cli.build_request(name, argparse.Namespace(
            file=args.file, root=args.root, line=line, col=col, timeout_ms=args.timeout_ms))
    else:
        root = cli.root_without_file(args.root)
    if name in _PLACED:
        if (args.symbol is None) == (args.file is None):
            raise cli.UsageError("give FILE LINE COL, or --symbol NAME")
        if args.symbol is not None:
            params["symbol"] = args.symbol
        elif "position" not in params:
            raise cli.UsageError("give LINE and COL after FILE")
    if name == "symbols":
        if (args.query is None) == (args.file is None):
            raise cli.UsageError("give FILE (its outline) or --query NAME (a search)")
        params.update({k: v for k, v in (("query", args.query), ("kinds", args.kinds)) if v is not None})
    if name == "fixes":
        if "position" in params and args.end_line is not None:
            raise cli.UsageError("give COL for a position, or --end-line for lines, not both")
        if "position" not in params:
            params["line"] = args.line
            if args.end_line is not None:
                params["end_line"] = args.end_line
        if args.code is not None:
            params["code"] = args.code
        params["compile"] = args.compile
    if name == "apply_fix":
        params["id"] = args.id
    if name == "references" and args.no_declaration:
        params["include_declaration"] = False
    if name == "rename":
        params["new_name"] = args.to
    if name in ("rename", "apply_fix") and args.write:
        params["apply"] = "disk"
    if getattr(args, "max", None) is not None:
        params["max"] = args.max
    if args.timeout_ms is not None:
        params["timeout_ms"] = args.timeout_ms
    return root, params


def run(name: str, args: argparse.Namespace) -> int:
    def build(name: str, args: argparse.Namespace) -> tuple[Path, str, dict[str, Any]]:
        root, params = build_request(name, args)
        return root, "", params

    return cli.answer(name, args, build, lambda root, rel, result: text(name, result))


def text(op: str, value: Any) -> str:
    """A navigation result as `file:line:col: text` lines, columns 1-based in characters."""
    lines: list[str] = []
    if op == "symbols":
        _symbol_lines(value["symbols"], lines, 0)
    elif op in ("definition", "implementations"):
        lines += [_at(location) for location in value["locations"]]
    elif op == "references":
        lines += [_at(ref) for group in value["files"] for ref in group["references"]]
    elif op == "fixes":
        lines += [f"{fix['id']}  {fix['kind']}  {fix['title']}" for fix in value["fixes"]]
        if value.get("compile_error"):  # rustc's fixes are missing
            lines.append(terminal.compile_not_run(value["compile_error"]))
    else:
        if value.get("title"):
            lines.append(value["title"])
        for change in value["changes"]:
            for edit in change["edits"]:
                lines.append(f"{change['file']}:{edit['line']}:{edit['character'] + 1}: -> {edit['new_text']!r}")
        lines.append("written to disk" if value.get("applied") == "disk" else "not written (pass --write)")
    if value.get("more"):
        lines.append(f"... and {value['more']} more (raise --max)")
    if not lines:
        lines.append("(nothing found)")
    return "\n".join(lines) + "\n" + (terminal.INDEXING_NOTE if value.get("indexing") else "")


def _at(location: dict[str, Any]) -> str:
    # the line's text turns the byte column into characters; a file not read has none to count
    col = terminal.column([location["text"]] if location["text"] else None, 1, location["character"])
    library = "  [read-only]" if location["read_only"] else ""
    return f"{location['file']}:{location['line']}:{col}:{library} {location['text'].strip()}"


def _symbol_lines(symbols: list[dict[str, Any]], lines: list[str], depth: int) -> None:
    for symbol in symbols:
        if "file" in symbol:  # a search hit
            container = f"{symbol['container']}::" if symbol.get("container") else ""
            lines.append(f"{_at(symbol)}  ({symbol['kind']} {container}{symbol['name']})")
            continue
        detail = f"  {symbol['detail']}" if symbol.get("detail") else ""
        lines.append(f"{'  ' * depth}{symbol['line']}-{symbol['end_line']} {symbol['kind']} {symbol['name']}{detail}")
        _symbol_lines(symbol.get("children") or [], lines, depth + 1)


__all__ = ["COMMANDS", "build_request", "configure", "run", "text"]
