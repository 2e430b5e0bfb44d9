"""The library roots: where the analyzer's answers may point outside the project, and the only places
outside it whose files the relay reads (read-only, to show a location's line).

The standard library's sources (RUST_SRC_PATH, else the rustc sysroot's `lib/rustlib/src/rust/library`);
where cargo unpacks dependencies: the registry's crates (`$CARGO_HOME/registry/src/<index>/`), git
checkouts (`$CARGO_HOME/git/checkouts/`), and the folders cargo's configuration (the project's, and
the standard library's own workspace's) puts in place of a source (`[source.vendored] directory =
"..."`: `cargo vendor`, distributions' packaged crates, a toolchain's vendored std dependencies). A
library file is shown by its path under its root: `alloc/src/vec/mod.rs`, `serde-1.0.152/src/de/mod.rs`,
`either-3f1a2b4c/9c8d7e6/src/lib.rs`.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from ferrule._toml import tomllib

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


def _cargo_configs(start: Path | None, cargo_home: str) -> Iterator[Path]:
    """Cargo's configuration files as cargo reads them: from the project's folder up, then CARGO_HOME's."""
    folders = [*([start, *start.parents] if start is not None else []), Path(cargo_home)]
    for folder in dict.fromkeys(folders):
        config = _config_in(folder if folder == Path(cargo_home) else folder / ".cargo")
        if config is not None:
            yield config


def _config_in(folder: Path) -> Path | None:
    for name in ("config", "config.toml"):  # both there: cargo reads the one without an extension
        if (folder / name).is_file():
            return folder / name
    return None


def _directory_sources(configs: Iterable[Path], guarded: Iterable[Path | None]) -> list[str]:
    """The folders the configurations put in place of a source (`directory = ...`), relative ones
    taken from the folder that holds the configuration's `.cargo`. A file that does not parse adds none.

    Each must look like what cargo reads there: crate folders, each with its `.cargo-checksum.json`.
    A folder holding a guarded one (the project, the home folder; `/`, `..`, `~`) is never one: the
    relay reads nothing more than the project and its libraries."""
    held = [os.path.realpath(folder) for folder in guarded if folder is not None]
    folders: list[str] = []
    for config in configs:
        try:
            sources = tomllib.loads(config.read_text(encoding="utf-8")).get("source")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        for source in sources.values() if isinstance(sources, Mapping) else ():
            folder = source.get("directory") if isinstance(source, Mapping) else None
            if not isinstance(folder, str) or not folder:
                continue
            real = os.path.realpath(config.parent.parent / folder)
            if any(_holds(real, other) for other in held) or not _holds_crates(real):
                continue
            folders.append(str(config.parent.parent / folder))
    return folders


def _holds(folder: str, other: str) -> bool:
    return other == folder or other.startswith(folder.rstrip(os.sep) + os.sep)


def _holds_crates(folder: str) -> bool:
    try:
        with os.scandir(folder) as entries:
            return any(entry.is_dir() and os.path.isfile(os.path.join(entry.path, ".cargo-checksum.json"))
                       for entry in entries)
    except OSError:
        return False


class LibraryRoots:
    """`(prefix, depth)` pairs: a file below `prefix` is shown from the path component `depth` on (the
    registry's index directory is one level that names no crate)."""

    def __init__(self, roots: list[tuple[str, int]]) -> None:
        self.roots = roots

    @classmethod
    def from_environment(cls, environ: os._Environ[str] | dict[str, str] = os.environ,
                         project: Path | None = None) -> LibraryRoots:
        """The roots for a project at `project` (its cargo configuration may name vendored sources)."""
        roots: list[tuple[str, int]] = []
        sources = [environ.get("RUST_SRC_PATH")] if environ.get("RUST_SRC_PATH") else []
        sources.append(_rustc_sysroot_library())
        for source in sources:
            for prefix in _prefixes(source) if source else []:
                if (prefix, 0) not in roots:
                    roots.append((prefix, 0))
        cargo_home = environ.get("CARGO_HOME") or os.path.join(os.path.expanduser("~"), ".cargo")
        roots += [(prefix, 1) for prefix in _prefixes(os.path.join(cargo_home, "registry", "src"))]
        guarded = (project, Path.home())
        # the standard library's own dependencies (`getopts`, for `test`) come from where the library
        # workspace's own configuration puts them: a toolchain that vendors them names them there
        std_configs = [config for source in sources if source and os.path.isdir(source)
                       if (config := _config_in(Path(source) / ".cargo")) is not None]
        std_sources = _directory_sources(std_configs, (*guarded, *(Path(s) for s in sources if s)))
        for folder in [os.path.join(cargo_home, "git", "checkouts"),
                       *_directory_sources(_cargo_configs(project, cargo_home), guarded), *std_sources]:
            roots += [(prefix, 0) for prefix in _prefixes(folder) if (prefix, 0) not in roots]
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
def library_roots(project: Path | None = None) -> LibraryRoots:
    """The library roots of a project, found once per process."""
    return LibraryRoots.from_environment(project=project)


__all__ = ["LibraryRoots", "library_roots"]
