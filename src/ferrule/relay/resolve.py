"""Finding a rust-analyzer that works.

Order: an explicit path (the `--rust-analyzer` flag), `RUST_ANALYZER`, `rustup which rust-analyzer`,
every `rust-analyzer` on PATH, then well-known install places. A candidate counts only when it answers
`--version`: a rustup proxy with no component behind it fails that and is skipped.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ferrule.project import AnalyzerMissing

VERSION_TIMEOUT_S = 15.0


@dataclass(frozen=True)
class Analyzer:
    path: str
    version: str  # the first line of `--version`, e.g. "rust-analyzer 1.85.0 (4d91de4e 2025-02-17)"
    source: str  # which rule found it


@dataclass
class Resolution:
    """Every candidate looked at and why it was refused, for the error message."""

    tried: list[tuple[str, str, str]] = field(default_factory=list)  # (source, path, reason)

    def describe(self) -> str:
        if not self.tried:
            return "no candidate found"
        return "; ".join(f"{source} {path}: {reason}" for source, path, reason in self.tried)


_version_cache: dict[tuple[str, float, int], str | None] = {}


def probe_version(path: str, env: Mapping[str, str] | None = None) -> tuple[str | None, str]:
    """(version line, reason): the version when `path --version` answers like rust-analyzer."""
    try:
        stat = os.stat(path)
    except OSError as error:
        return None, error.strerror or "not found"
    if not os.access(path, os.X_OK) or os.path.isdir(path):
        return None, "not an executable file"
    key = (path, stat.st_mtime, stat.st_size)
    if key in _version_cache and _version_cache[key] is not None:
        return _version_cache[key], ""
    try:
        done = subprocess.run(
            [path, "--version"],
            capture_output=True,
            text=True,
            timeout=VERSION_TIMEOUT_S,
            env=None if env is None else dict(env),
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return None, f"`--version` failed: {error}"
    line = done.stdout.strip().splitlines()[0] if done.stdout.strip() else ""
    if done.returncode != 0 or not line.startswith("rust-analyzer"):
        said = (done.stderr.strip() or done.stdout.strip()).splitlines()
        return None, f"`--version` exited {done.returncode}" + (f": {said[0]}" if said else "")
    _version_cache[key] = line
    return line, ""


WELL_KNOWN = ("/usr/local/bin/rust-analyzer", "/usr/bin/rust-analyzer", "/opt/homebrew/bin/rust-analyzer")


def candidates(
    explicit: str | None,
    env: Mapping[str, str],
    home: str | None,
    well_known: Sequence[str] | None = None,
) -> list[tuple[str, str]]:
    """(source, path) in the order they are tried, duplicates removed."""
    found: list[tuple[str, str]] = []
    if explicit:
        found.append(("--rust-analyzer", explicit))
    if env.get("RUST_ANALYZER"):
        found.append(("RUST_ANALYZER", env["RUST_ANALYZER"]))
    search_path = env.get("PATH", os.defpath)
    rustup = shutil.which("rustup", path=search_path)
    if rustup:
        try:
            done = subprocess.run(
                [rustup, "which", "rust-analyzer"],
                capture_output=True,
                text=True,
                timeout=VERSION_TIMEOUT_S,
                env=dict(env),
                stdin=subprocess.DEVNULL,
            )
            if done.returncode == 0 and done.stdout.strip():
                found.append(("rustup which", done.stdout.strip().splitlines()[-1]))
        except (OSError, subprocess.TimeoutExpired):
            pass
    for folder in search_path.split(os.pathsep):
        if folder:
            found.append(("PATH", os.path.join(folder, "rust-analyzer")))
    places = list(WELL_KNOWN if well_known is None else well_known)
    if home:
        places = [
            os.path.join(home, ".cargo", "bin", "rust-analyzer"),
            os.path.join(home, ".local", "bin", "rust-analyzer"),
            *sorted(glob.glob(os.path.join(home, ".vscode*", "extensions", "rust-lang.rust-analyzer-*", "server",
                                           "rust-analyzer")), reverse=True),
            *places,
        ]
    found.extend(("well-known", path) for path in places)
    unique: list[tuple[str, str]] = []
    seen: set[str] = set()
    for source, path in found:
        if path not in seen:
            seen.add(path)
            unique.append((source, path))
    return unique


def resolve_analyzer(
    explicit: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    home: str | None = None,
    well_known: Sequence[str] | None = None,
) -> Analyzer:
    """The first working rust-analyzer, or `AnalyzerMissing` listing what was tried.

    An explicit path is strict: when it does not work, nothing else is tried (the caller asked for it).
    `env`, `home` and `well_known` default to this process's and the usual places; tests pass their own.
    """
    env = os.environ if env is None else env
    home = env.get("HOME") if home is None else home
    resolution = Resolution()
    if explicit:
        version, reason = probe_version(explicit, env)
        if version:
            return Analyzer(explicit, version, "--rust-analyzer")
        raise AnalyzerMissing(
            f"the rust-analyzer given with --rust-analyzer ({explicit}) does not work: {reason}",
        )
    for source, path in candidates(None, env, home, well_known):
        version, reason = probe_version(path, env)
        if version:
            return Analyzer(path, version, source)
        if source in ("PATH", "well-known") and reason == "No such file or directory":
            continue  # absent places are not worth listing
        resolution.tried.append((source, path, reason))
    raise AnalyzerMissing(f"no working rust-analyzer found ({resolution.describe()})")


__all__ = ["Analyzer", "probe_version", "candidates", "resolve_analyzer"]
