"""The library roots: where the analyzer's answers may point outside the project, and the only places
outside it whose files the relay reads (read-only, to show a location's line).

The standard library's sources (RUST_SRC_PATH, else the rustc sysroot's `lib/rustlib/src/rust/library`)
and the cargo registry's unpacked crates (`$CARGO_HOME/registry/src/<index>/`). A library file is shown
by its path under its root: `alloc/src/vec/mod.rs`, `serde-1.0.152/src/de/mod.rs`.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

_SYSROOT_TIMEOUT_S = 5.0


def _prefixes(path: str | os.PathLike[str]) -> list[str]:
    """The root as named and as resolved: the sysroot's `library` links its crates in from elsewhere,
    and the analyzer names their files through the link."""
    if not os.path.isdir(path):
        return []
    named, real = os.path.normpath(os.path.abspath(path)), os.path.realpath(path)
    return [p.rstrip(os.sep) + os.sep for p in dict.fromkeys((named, real))]


@functools.cache
def _rustc_sysroot_library() -> str | None:
    rustc = shutil.which("rustc")
    if rustc is None:
        return None
    try:
        done = subprocess.run([rustc, "--print", "sysroot"], capture_output=True, text=True,
                              timeout=_SYSROOT_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    sysroot = done.stdout.strip()
    return str(Path(sysroot, "lib", "rustlib", "src", "rust", "library")) if done.returncode == 0 and sysroot else None


class LibraryRoots:
    """`(prefix, depth)` pairs: a file below `prefix` is shown from the path component `depth` on (the
    registry's index directory is one level that names no crate)."""

    def __init__(self, roots: list[tuple[str, int]]) -> None:
        self.roots = roots

    @classmethod
    def from_environment(cls, environ: os._Environ[str] | dict[str, str] = os.environ) -> LibraryRoots:
        roots: list[tuple[str, int]] = []
        sources = [environ.get("RUST_SRC_PATH")] if environ.get("RUST_SRC_PATH") else []
        sources.append(_rustc_sysroot_library())
        for source in sources:
            for prefix in _prefixes(source) if source else []:
                if (prefix, 0) not in roots:
                    roots.append((prefix, 0))
        cargo_home = environ.get("CARGO_HOME") or os.path.join(os.path.expanduser("~"), ".cargo")
        roots += [(prefix, 1) for prefix in _prefixes(os.path.join(cargo_home, "registry", "src"))]
        return cls(roots)

    def shown(self, absolute: str) -> tuple[str, str] | None:
        """(the path shown, the path to read) of a file in a library root, else None. The path is taken
        as named, `..` folded first: what the library root links in is part of the library."""
        named = os.path.normpath(absolute)
        for prefix, depth in self.roots:
            if named.startswith(prefix):
                parts = named[len(prefix):].split(os.sep)[depth:]
                if parts and all(parts):
                    return "/".join(parts), named
        return None


@functools.cache
def library_roots() -> LibraryRoots:
    """The process's library roots, found once."""
    return LibraryRoots.from_environment()


__all__ = ["LibraryRoots", "library_roots"]
