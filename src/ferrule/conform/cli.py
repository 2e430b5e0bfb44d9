"""`ferrule check`: the policy gate over a Rust project, with its baseline ratchet.

Exit status: 0 when every deny finding is in the baseline, 1 when there is a new one, 2 when the
configuration or the baseline file cannot be used.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

from ferrule.conform.advice import describe
from ferrule.conform.baseline import BaselineError
from ferrule.conform.config import ConfigError
from ferrule.conform.gate import GateResult, gate_json, run_gate
from ferrule.conform.policy import Policy
from ferrule.conform.rules import RULES

EPILOG = """\
Text output is one line per finding:  path:line: RULE message [GUIDE REQ-id] fix: ...
Findings already in the baseline file are accepted and not printed (see --show-baselined); accepted
findings that have gone from the code are listed so that --update-baseline can drop them.

Rules (levels and paths are set in conform.toml at the project root):
""" + "\n".join(f"  {r.id:<22} {r.req:<8} {r.section}" for r in RULES.values()) + """

The requirements are explained in docs/GUIDE.md."""


def configure(name: str, parser: argparse.ArgumentParser):
    parser.description = ("Check a Rust project against its policy (conform.toml): unwrap/expect outside "
                          "tests, pub seam items without a doctest, std::env reads outside env_roots, "
                          "files over max_file_lines. Fails only on findings not in the baseline.")
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("dir", nargs="?", default=None, type=Path, metavar="DIR",
                        help="the project root, holding conform.toml (default: the workspace of the package "
                             "around the current directory, else the current directory)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.add_argument("--update-baseline", action="store_true",
                        help="write the baseline file to hold exactly the current findings, then exit 0")
    parser.add_argument("--show-baselined", action="store_true",
                        help="also print the findings the baseline accepts (text format)")
    return run


def run(args: argparse.Namespace) -> int:
    if args.dir is None:  # the policy stands alone; the root cargo would pick is asked only here
        from ferrule.project import project_root

        root: Path = project_root(Path.cwd()) or Path(".")
    else:
        root = args.dir
    if not root.is_dir():
        print(f"ferrule check: {root} is not a directory", file=sys.stderr)
        return 2
    try:
        policy = Policy.load(root)
        result = run_gate(policy, update_baseline=args.update_baseline)
    except (ConfigError, BaselineError) as exc:
        print(f"ferrule check: {exc}", file=sys.stderr)
        return 2
    for path, reason in result.unreadable:
        print(f"ferrule check: {path}: skipped, cannot be read: {reason}", file=sys.stderr)
    if args.format == "json":
        sys.stdout.buffer.write(orjson.dumps(gate_json(policy, result), option=orjson.OPT_INDENT_2) + b"\n")
    else:
        _print_text(policy, result, args.show_baselined)
    return 0 if result.passed or args.update_baseline else 1


def _print_text(policy: Policy, result: GateResult, show_baselined: bool) -> None:
    out = sys.stdout
    for r in result.reported:
        if r.baselined and not show_baselined:
            continue
        accepted = " (baselined)" if r.baselined else ""
        out.write(f"{r.path}:{r.finding.line}: {describe(r.finding)}{accepted}\n")
    for (path, rule, scope, snippet), count in result.gone:
        where = f" in {scope}" if scope else ""
        what = f": {snippet}" if snippet else ""
        times = f" (x{count})" if count > 1 else ""
        out.write(f"{path}: gone: {rule}{where}{what}{times} is no longer there; "
                  "run --update-baseline to drop it from the baseline\n")
    c = result.counts()
    summary = (f"ferrule check: {c['files']} files, {c['lines']} lines: {c['new']} new, "
               f"{c['baselined']} baselined, {c['warnings']} warnings, {c['gone']} gone")
    if result.baseline_written is not None:
        added, removed = result.baseline_written
        summary += f"; baseline {policy.config.baseline} written (+{added}, -{removed})"
    out.write(summary + ("" if result.passed or result.baseline_written else " - FAILED") + "\n")

