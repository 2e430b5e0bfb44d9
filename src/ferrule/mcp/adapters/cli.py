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
    except SystemExit as exc:  # the target's own exit (a config check): as `python server.py` ends
        code = exc.code
        status = 0 if code is None else code if type(code) is int else 1
        said = f"exited with status {status} while being imported" if status == code or code is None else code
        print(f"ferrule run: {args.target}: {said}", file=sys.stderr)
        return status
    except BaseException as exc:  # the target's own import failed: its traceback is what to read
        _print_import_failure(exc)
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


def _print_import_failure(exc: BaseException) -> None:
    """The traceback from the target's first frame on, as `python server.py` shows it: the frames
    of ferrule and of the import machinery before it say nothing to the app's author. A failure
    that never reached the target's code keeps them all, save a SyntaxError, which names its place."""
    import importlib
    import os
    import traceback

    import ferrule

    skipped = (os.path.dirname(ferrule.__file__) + os.sep, os.path.dirname(importlib.__file__) + os.sep,
               "<frozen importlib")
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith(skipped):
        tb = tb.tb_next
    if tb is None and not isinstance(exc, SyntaxError):
        tb = exc.__traceback__
    traceback.print_exception(type(exc), exc, tb)
