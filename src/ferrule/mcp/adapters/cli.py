"""`ferrule run TARGET`: serve an existing Python MCP server over ferrule's stdio transport.

TARGET is `path/to/server.py`, `package.module`, either with `:object`. A host's
`"command": "python", "args": ["server.py"]` becomes `"command": "ferrule", "args": ["run", "server.py"]`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

__all__ = ["configure"]


def configure(name: str, parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    parser.description = __doc__.splitlines()[0] if __doc__ else None
    parser.add_argument("target", help="path/to/server.py, or package.module, optionally :object")
    return run


def run(args: argparse.Namespace) -> int:
    from . import UnknownApp, adapt, run_notes
    from .load import LoadError, load_app

    label = f"ferrule run {args.target}"
    try:
        app, notes = load_app(args.target)
    except LoadError as exc:
        print(f"ferrule run: {exc}", file=sys.stderr)
        return 2
    except BaseException:  # the target's own import failed: its traceback is what to read
        import traceback

        traceback.print_exc()
        print(f"ferrule run: importing {args.target} failed (traceback above)", file=sys.stderr)
        return 1
    for note in [*notes, *run_notes(app)]:
        print(f"{label}: {note}", file=sys.stderr)
    try:
        server = adapt(app, label=label)
    except UnknownApp as exc:
        print(f"ferrule run: {args.target}: {exc}", file=sys.stderr)
        return 2
    server.run()
    return 0
