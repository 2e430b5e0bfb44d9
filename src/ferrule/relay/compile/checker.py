"""The shadow check: rustc's diagnostics for the effective state (overlays, this op's content, the disk
for the rest), from cargo run in the project's mirror.

One cargo at a time per project, across processes too (the mirror's file lock). A request that waited while another ran for the same effective state
(the same overlay texts, disk generation and package) gets that run's answer instead of running cargo
again.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ferrule._deadlines import timer_for
from ferrule._toml import tomllib
from ferrule.project import ErrorRecord, ProjectRoot
from ferrule.relay.cache import mark_used
from ferrule.relay.compile import spans
from ferrule.relay.compile.cargo import CargoMissing, CargoRun, CargoTimedOut, check_command, run_cargo
from ferrule.relay.compile.lock import LockTimeout, held
from ferrule.relay.compile.mirror import Mirror
from ferrule.relay.results import ElsewhereDiagnostic

TIMEOUT_RECIPE = ("pass a larger `timeout_ms`: the first check of a project builds its dependencies and "
                  "takes longest, later ones are incremental; the next call runs a fresh check")
CARGO_MISSING_RECIPE = "install Rust with rustup (https://rustup.rs) or put `cargo` on PATH, then validate again"
CARGO_FAILED_RECIPE = ("run `cargo check --all-targets` in the project root and fix what it reports "
                       "(the manifest, a dependency that cannot be fetched)")
# files cargo reads before it compiles anything: unsaved text in one of them can fail the whole check
CARGO_INPUTS = frozenset({"Cargo.toml", "Cargo.lock", "build.rs"})


@dataclass(frozen=True)
class CompileAnswer:
    """rustc's located diagnostics for every file of the checked package (or why there are none)."""

    diagnostics: list[ElsewhereDiagnostic] = field(default_factory=list)
    ms: int = 0
    suggestions: list[spans.Suggestion] = field(default_factory=list)  # the fixes rustc suggests
    error: ErrorRecord | None = None
    failed_prerequisites: tuple[str, ...] = ()  # build scripts and libraries that failed (spans.failed_prerequisites)

    @property
    def compiled(self) -> bool:
        return self.error is None


def _error(kind: str, message: str, recipe: str) -> ErrorRecord:
    return {"kind": kind, "message": message, "recipe": recipe}


class CompileChecker:
    """The shadow checks of one project; `runs` counts the cargo processes started."""

    def __init__(self, root: ProjectRoot) -> None:
        self.root = root
        self.runs = 0
        self._mirror: Mirror | None = None
        self._lock = asyncio.Lock()
        self._last: tuple[str, CompileAnswer] | None = None
        self._token = f"{os.getpid()}-{id(self)}"  # who wrote the mirror last

    async def check(self, overlays: Mapping[str, str], rel: str, deadline: float) -> CompileAnswer:
        """rustc's answer for the state `overlays` describe, for the package of `rel`, by `deadline`."""
        began = time.monotonic()
        try:
            await asyncio.wait_for(self._lock.acquire(), timer_for(deadline - began))
        except asyncio.TimeoutError:
            return self._timed_out(began)
        try:
            async with held(mark_used(self.root), self._token, deadline) as others_wrote:
                return await self._check_held(overlays, rel, deadline, began, others_wrote)
        except LockTimeout:
            return self._timed_out(began)
        finally:
            self._lock.release()

    async def _check_held(self, overlays: Mapping[str, str], rel: str, deadline: float, began: float,
                          others_wrote: bool) -> CompileAnswer:
        if self._mirror is None:
            self._mirror = await asyncio.to_thread(Mirror, self.root)
        elif others_wrote:
            await asyncio.to_thread(self._mirror.forget)
            self._last = None
        mirror = self._mirror
        await asyncio.to_thread(mirror.sync, overlays)
        package = package_of(mirror.tree, rel)
        key = _state_key(overlays, mirror.generation, package)
        if self._last is not None and self._last[0] == key and not mirror.outside:
            return self._last[1]  # (with path dependencies outside the project, cargo judges what changed)
        self._last = None
        try:
            command = check_command(package)
            self.runs += 1
            run = await run_cargo(command, mirror.tree, mirror.target, deadline)
        except CargoMissing as missing:
            return CompileAnswer(error=_error("cargo-missing", str(missing), CARGO_MISSING_RECIPE))
        except CargoTimedOut:
            return self._timed_out(began)
        answer = _answer(run, mirror.tree, overlays, int((time.monotonic() - began) * 1000))
        self._last = (key, answer)
        return answer

    def _timed_out(self, began: float) -> CompileAnswer:
        ms = int((time.monotonic() - began) * 1000)
        return CompileAnswer(ms=ms, error=_error(
            "timeout", f"cargo check did not finish within the op's budget (stopped after {ms} ms)", TIMEOUT_RECIPE))


def _state_key(overlays: Mapping[str, str], generation: int, package: str | None) -> str:
    digest = hashlib.sha256(f"{generation}\0{package}\0".encode())
    for rel in sorted(overlays):
        digest.update(rel.encode("utf-8", "surrogatepass") + b"\0")
        digest.update(hashlib.sha256(overlays[rel].encode("utf-8", "surrogatepass")).digest())
    return digest.hexdigest()


def package_of(tree: Path, rel: str) -> str | None:
    """The package whose manifest is nearest above `rel`; None (the whole workspace) when that manifest
    has no `[package]` or cannot be read."""
    folder = Path(rel).parent
    while True:
        manifest = tree / folder / "Cargo.toml"
        if manifest.is_file():
            try:
                data = tomllib.loads(manifest.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                return None
            name = (data.get("package") or {}).get("name")
            return name if isinstance(name, str) else None
        if folder == folder.parent:
            return None
        folder = folder.parent


def _answer(run: CargoRun, tree: Path, overlays: Collection[str], ms: int) -> CompileAnswer:
    lines: dict[str, list[str]] = {}

    def line_of(rel: str, line: int) -> str:
        text = lines.get(rel)
        if text is None:
            try:
                text = lines[rel] = (tree / rel).read_text(encoding="utf-8", errors="replace").split("\n")
            except OSError:
                text = lines[rel] = []
        return text[line - 1] if 0 < line <= len(text) else ""

    found = spans.diagnostics(run.messages, os.fspath(tree), line_of)
    if run.returncode != 0 and not any(d["category"] == "error" for d in found):
        # cargo's errors, and the indented lines under them (the cause under `Caused by:`), not its
        # status lines (`    Blocking waiting for file lock on package cache`: another cargo at work)
        complaint = [line for line in run.stderr.splitlines()
                     if line.startswith(("error", "Caused by", "  ")) and not _is_cargo_status(line)]
        message = "\n".join(complaint[:12]).strip() or run.stderr.strip() or f"cargo exited with {run.returncode}"
        message = _in_project_terms(message, tree)
        return CompileAnswer(ms=ms, error=_error("cargo-failed", f"cargo check failed: {message}",
                                                 _cargo_failed_recipe(message, overlays)))
    return CompileAnswer(found, ms, spans.suggestions(run.messages, os.fspath(tree), line_of),
                         failed_prerequisites=spans.failed_prerequisites(run.messages, os.fspath(tree)))


def _is_cargo_status(line: str) -> bool:
    """cargo's progress line: a capitalised verb right-aligned to column 12, then the message
    (`   Compiling x`, `    Blocking waiting for file lock`); its causes are indented by two."""
    verb = line[:12].lstrip()
    return len(line) > 12 and line[12] == " " and line[0] == " " and verb.isalpha() and verb[0].isupper()


def _in_project_terms(text: str, tree: Path) -> str:
    """`text` with the mirror's paths made relative to the project's root: the mirror is a private copy
    the user never sees."""
    return text.replace(os.fspath(tree) + os.sep, "").replace(os.fspath(tree), ".")


def _cargo_failed_recipe(message: str, overlays: Collection[str]) -> str:
    """The project root's own `cargo check` does not see unsaved text: when some of it is what cargo
    refused (a file the message names, or a manifest, lock file or build script), that text is the fix."""
    involved = sorted(rel for rel in overlays if rel in message or PurePosixPath(rel).name in CARGO_INPUTS)
    if involved:
        return (f"the check saw unsaved text that the disk does not have: fix {', '.join(involved)} in that text, "
                "or drop its overlay (`update` with null content) to check the disk's, then validate again")
    if overlays:
        return (f"{CARGO_FAILED_RECIPE}; this check also saw the unsaved text of {', '.join(sorted(overlays))}: "
                "when the disk passes, the cause is there")
    return CARGO_FAILED_RECIPE


__all__ = ["CompileAnswer", "CompileChecker", "package_of"]
