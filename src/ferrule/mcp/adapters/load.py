"""Find the server object a `ferrule run TARGET` names: a file or a module, and maybe an object.

A file is imported under a name of its own, never `__main__`, so its `if __name__ == "__main__":
mcp.run()` block does not run; its directory goes first on sys.path, as `python server.py` would put
it. While the target is imported, stdout is claimed (a print at import time reaches stderr, never
the protocol channel) and starting an event loop (`anyio.run`, `asyncio.run`: what an SDK's `run()`
does) is refused, so a `mcp.run()` outside that block cannot start the SDK's own transport; the
import then ends there and ferrule serves the app the module defined.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from ..transport import StdoutClaim
from . import describe, is_server

__all__ = ["LoadError", "load_app"]

PREFERRED = ("mcp", "server", "app")


class LoadError(Exception):
    """A target that names no servable app: the message is the one line to print."""


class _LoopRefused(BaseException):
    """Raised in place of starting an event loop while the target is imported."""


def load_app(target: str) -> tuple[Any, list[str]]:
    """The app `target` names, and the notes to print about how it was found."""
    notes: list[str] = []
    where, attribute = target, ""
    head, colon, tail = target.rpartition(":")
    if colon and head and tail and "/" not in tail and "\\" not in tail:  # not a Windows drive's colon
        where, attribute = head, tail
    elif colon and head and not tail:
        raise LoadError(f"{target}: the object name after ':' is empty")
    module = _import_file(where, notes) if _is_path(where) else _import_module(where, notes)
    if attribute:
        return _named(module, attribute, target, where), notes
    return _found(module, where), notes


def _is_path(text: str) -> bool:
    return text.endswith(".py") or "/" in text or os.sep in text


def _import_file(path_text: str, notes: list[str]) -> ModuleType:
    path = Path(path_text)
    if not path.is_file():
        raise LoadError(f"no such file: {path_text}")
    path = path.resolve()
    sys.path.insert(0, str(path.parent))
    name = f"_ferrule_run_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise LoadError(f"cannot import {path_text} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    with _guarded(path_text, notes):
        spec.loader.exec_module(module)
    return module


def _import_module(name: str, notes: list[str]) -> ModuleType:
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # as `python -m` would
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        raise LoadError(f"no module named {name!r} (tried it as a module: a file path needs its .py)")
    with _guarded(name, notes):
        return importlib.import_module(name)
    raise AssertionError("unreachable")  # pragma: no cover - _guarded re-raises or returns


@contextmanager
def _guarded(what: str, notes: list[str]) -> Iterator[None]:
    refused = _refuse_loops()
    claim = StdoutClaim()
    try:
        yield
    except _LoopRefused:
        notes.append(f"{what} started an event loop while being imported (a run() outside "
                     "`if __name__ == \"__main__\":`); the import stopped there and ferrule serves the app instead")
    finally:
        claim.release()
        refused()


def _refuse_loops() -> Any:
    """Make `asyncio.run` and `anyio.run` refuse while the target imports; the undo."""
    saved: list[tuple[Any, str, Any]] = [(asyncio, "run", asyncio.run)]
    try:
        import anyio

        saved.append((anyio, "run", anyio.run))
    except ImportError:
        pass

    def refuse(*args: Any, **kwargs: Any) -> Any:
        for arg in args:  # a coroutine object made for the call would warn that it was never awaited
            close = getattr(arg, "close", None)
            if asyncio.iscoroutine(arg) and close is not None:
                close()
        raise _LoopRefused

    for owner, name, _ in saved:
        setattr(owner, name, refuse)

    def undo() -> None:
        for owner, name, original in saved:
            setattr(owner, name, original)

    return undo


def _named(module: ModuleType, attribute: str, target: str, where: str) -> Any:
    value: Any = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            found = _servers(module)
            listing = f"its server objects: {_listing(found)}" if found else "it has no server object"
            raise LoadError(f"{target}: {where} has no attribute {attribute!r}; {listing}")
        value = getattr(value, part)
    if not is_server(value):
        raise LoadError(f"{target}: {attribute} is a {type(value).__module__}.{type(value).__qualname__}, "
                        "not a server ferrule can serve (mcp 2.x MCPServer or low-level Server, fastmcp.FastMCP)")
    return value


def _found(module: ModuleType, where: str) -> Any:
    for name in PREFERRED:
        value = getattr(module, name, None)
        if value is not None and is_server(value):
            return value
    servers = _servers(module)
    if len(servers) == 1:
        return next(iter(servers.values()))
    if not servers:
        raise LoadError(f"{where}: no server object found (looked for `mcp`, `server` or `app`, then for any "
                        f"MCPServer, low-level Server or FastMCP at module level); name one: {where}:OBJECT")
    raise LoadError(f"{where}: several server objects ({_listing(servers)}); name one: {where}:OBJECT")


def _servers(module: ModuleType) -> dict[str, Any]:
    """The module's server objects, each under one of its names, by name."""
    distinct = {id(value): name for name, value in vars(module).items()
                if not name.startswith("__") and is_server(value)}
    return {name: vars(module)[name] for name in sorted(distinct.values())}


def _listing(servers: dict[str, Any]) -> str:
    return ", ".join(f"{name} ({describe(value)})" for name, value in servers.items())
