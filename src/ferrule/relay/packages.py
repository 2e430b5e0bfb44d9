"""A file's own package, and what it makes of the file: the module path (`cell`) and the module files
that may enclose it (`seam_file`'s candidates, nearest first).

The packages and their targets come from `cargo metadata --offline --no-deps`, which answers for every
member of a workspace at once and knows targets set in a manifest (`[lib] path = ...`) as well as the
ones cargo finds by itself. Its answer is kept until a manifest it named changes (by mtime), or a file
lies in none of its packages. Without cargo's answer, the nearest manifest above the file is its
package and cargo's own layout conventions its targets (`mapping.module_path`).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

import orjson

from ferrule.project import ProjectRoot
from ferrule.project.workspace import MANIFEST
from ferrule.relay import mapping

METADATA_TIMEOUT_S = 10.0
# targets whose modules are not their folder's files: a build script sits beside the manifest
_OWN_FILE_ONLY = {"custom-build"}
# a folder's library is its crate before its binaries (`src/lib.rs` before `src/main.rs`), then the rest
_KIND_ORDER = {"bin": 1, "test": 2, "example": 2, "bench": 2}


@dataclass(frozen=True)
class Target:
    root: str  # root-relative crate root file
    folder: str  # root-relative folder its modules live in; "" for the project root
    modules_below: bool  # its modules are the files below `folder` (not so for a build script)


@dataclass(frozen=True)
class Package:
    name: str
    folder: str  # root-relative folder of its manifest; "" for the project root
    targets: tuple[Target, ...]  # in the order to prefer them for a file below several
    dependencies: frozenset[str] = frozenset()  # the packages its manifest names (any kind)


@dataclass(frozen=True)
class Placement:
    cell: str | None  # `crate::a::b`, `crate` for a crate root, None for a file in no target
    seams: tuple[str, ...]  # root-relative module files that may enclose the file, nearest first


class Packages:
    """The project's packages as cargo describes them, asked once and kept while the manifests stand."""

    def __init__(self, root: ProjectRoot) -> None:
        self.root = root
        self._packages: tuple[Package, ...] | None = None
        self._stamp: tuple[tuple[str, int], ...] = ()

    async def placement(self, rel: str, timeout: float = METADATA_TIMEOUT_S) -> Placement:
        """Where the root-relative `rel` sits in its own package."""
        packages = await self._current(timeout)
        if packages is not None and _owner(packages, rel) is None and self._nearest_manifest(rel) not in {
                "", *(package.folder for package in packages)}:
            packages = await self._current(timeout, again=True)  # a package added since: ask once more
        if packages is not None:
            package = _owner(packages, rel)
            return _placed(package, rel) if package is not None else Placement(None, ())
        return self._by_convention(rel)

    async def crate_name(self, rel: str, timeout: float = METADATA_TIMEOUT_S) -> str | None:
        """The name code uses for the crate of the package holding the root-relative `rel` (`demo_crate`
        of the package `demo-crate`), None when cargo cannot say."""
        packages = await self._current(timeout)
        package = _owner(packages, rel) if packages is not None else None
        return package.name.replace("-", "_") if package is not None else None

    async def crate_root(self, timeout: float = METADATA_TIMEOUT_S) -> str | None:
        """The root-relative root file of one of the project's crates (the first package's library, else
        its first binary; no build script's), for a line of code written to ask the analyzer about a
        path; cargo's layout conventions when cargo cannot say; None when there is none."""
        packages = await self._current(timeout)
        if packages is not None:
            roots = [target.root for package in packages for target in package.targets if target.modules_below]
            return roots[0] if roots else None
        for convention in ("src/lib.rs", "src/main.rs"):
            if (self.root.path / convention).is_file():
                return convention
        return None

    async def dependencies(self, timeout: float = METADATA_TIMEOUT_S) -> frozenset[str] | None:
        """The crates the project's manifests name as dependencies, as code names them (`regex_syntax`);
        None when cargo cannot say."""
        packages = await self._current(timeout)
        if packages is None:
            return None
        return frozenset(name.replace("-", "_") for package in packages for name in package.dependencies)

    async def use_proc_macros(self, timeout: float = METADATA_TIMEOUT_S) -> bool:
        """Whether any crate of the project or its dependencies is a procedural macro (True when cargo
        cannot say: the dependencies are not at hand offline)."""
        return await asyncio.to_thread(self._proc_macro_crates, timeout)

    def _proc_macro_crates(self, timeout: float) -> bool:
        try:
            metadata = self._metadata(timeout, "--offline")
        except subprocess.TimeoutExpired:
            return True
        if metadata is None:
            return True
        return any("proc-macro" in (target.get("kind") or [])
                   for package in metadata.get("packages") or [] for target in package.get("targets") or [])

    def _metadata(self, timeout: float, *flags: str) -> dict[str, Any] | None:
        """`cargo metadata` with `flags`, or None when cargo could not say (none installed, a broken
        manifest, dependencies not at hand offline); TimeoutExpired when it did not answer in time."""
        command = ["cargo", "metadata", *flags, "--format-version", "1",
                   "--manifest-path", str(self.root.path / MANIFEST)]
        try:
            done = subprocess.run(command, cwd=self.root.path, capture_output=True, timeout=timeout, check=False)
            if done.returncode != 0:
                return None
            metadata = orjson.loads(done.stdout)
        except (OSError, orjson.JSONDecodeError):
            return None
        return metadata if isinstance(metadata, dict) else None

    async def _current(self, timeout: float, *, again: bool = False) -> tuple[Package, ...] | None:
        """cargo's answer, asked again only when a manifest it read changed (a failure too is kept
        until the root manifest changes; a cargo that did not answer in time, waiting on a lock, is
        asked again next time)."""
        if not again and self._stamp and self._stamp == self._manifest_stamp(self._packages or ()):
            return self._packages
        try:
            packages = await asyncio.to_thread(self._ask_cargo, timeout)
        except subprocess.TimeoutExpired:
            return None
        self._packages = packages
        self._stamp = self._manifest_stamp(packages or ())
        return packages

    def _manifest_stamp(self, packages: tuple[Package, ...]) -> tuple[tuple[str, int], ...]:
        folders = {"", *(package.folder for package in packages)}
        stamp = []
        for folder in sorted(folders):
            path = self.root.path / folder / MANIFEST
            try:
                stamp.append((str(path), os.stat(path).st_mtime_ns))
            except OSError:
                stamp.append((str(path), -1))
        return tuple(stamp)

    def _ask_cargo(self, timeout: float) -> tuple[Package, ...] | None:
        """cargo's packages of the workspace, or None when cargo could not say: the conventions stand in."""
        metadata = self._metadata(timeout, "--offline", "--no-deps")
        if metadata is None:
            return None
        return tuple(package for raw in metadata.get("packages") or []
                     if (package := self._package(raw)) is not None)

    def _package(self, raw: dict[str, object]) -> Package | None:
        manifest = raw.get("manifest_path")
        if not isinstance(manifest, str):
            return None
        place = os.path.realpath(os.path.dirname(manifest))
        folder = "" if place == str(self.root.path) else self.root.relative(place)
        if folder is None:
            return None  # a package outside the root (a path dependency elsewhere) is none of ours
        targets = []
        for target in raw.get("targets") or []:  # type: ignore[attr-defined]
            root = self.root.relative(target.get("src_path", ""))
            if root is None:
                continue
            kinds = target.get("kind") or []
            targets.append((min(_KIND_ORDER.get(kind, 0) for kind in kinds) if kinds else 0,
                            Target(root, _folder_of(root), not _OWN_FILE_ONLY.intersection(kinds))))
        targets.sort(key=lambda entry: entry[0])
        dependencies = frozenset(str(d.get("name")) for d in raw.get("dependencies") or []  # type: ignore[attr-defined]
                                 if isinstance(d, dict) and d.get("name"))
        return Package(str(raw.get("name") or ""), folder, tuple(target for _, target in targets), dependencies)

    def _nearest_manifest(self, rel: str) -> str | None:
        """The root-relative folder of the nearest Cargo.toml above `rel` ("" for the root's), else None."""
        folder = PurePosixPath(rel).parent
        while not (self.root.path / folder / MANIFEST).is_file():
            if folder == PurePosixPath("."):
                return None
            folder = folder.parent
        return "" if folder == PurePosixPath(".") else folder.as_posix()

    def _by_convention(self, rel: str) -> Placement:
        """The nearest manifest's folder as the package, cargo's layout conventions as its targets."""
        folder = self._nearest_manifest(rel)
        if folder is None:
            return Placement(None, ())
        prefix = folder + "/" if folder else ""
        inner = rel[len(prefix):]
        return Placement(mapping.module_path(inner), tuple(prefix + seam for seam in mapping.seam_candidates(inner)))


def _owner(packages: tuple[Package, ...], rel: str) -> Package | None:
    """The package whose folder holds `rel` most nearly (a member nested in another's folder wins)."""
    best: Package | None = None
    for package in packages:
        if _below(rel, package.folder) and (best is None or len(package.folder) > len(best.folder)):
            best = package
    return best


def _folder_of(rel: str) -> str:
    parent = PurePosixPath(rel).parent.as_posix()
    return "" if parent == "." else parent


def _below(rel: str, folder: str) -> bool:
    return not folder or rel.startswith(folder + "/")


def _placed(package: Package, rel: str) -> Placement:
    """The target whose folder holds `rel` most nearly decides: `crate` for its root, else the path
    below its folder (`a/b.rs` and `a/b/mod.rs` are both `crate::a::b`)."""
    target = next((t for t in package.targets if t.root == rel), None)
    if target is not None:
        return Placement("crate", (rel,))
    holders = [t for t in package.targets if t.modules_below and _below(rel, t.folder)]
    if not holders or not rel.endswith(".rs"):
        return Placement(None, ())
    depth = max(len(t.folder) for t in holders)
    target = next(t for t in holders if len(t.folder) == depth)
    inner = PurePosixPath(rel[len(target.folder) + 1 if target.folder else 0:]).parts
    is_mod = inner[-1] == "mod.rs"
    segments = [*inner[:-1], *([] if is_mod else [inner[-1][:-3]])]
    prefix = target.folder + "/" if target.folder else ""
    seams = [rel] if is_mod else []  # a module file encloses itself
    for level in range(len(inner) - (2 if is_mod else 1), 0, -1):  # mod.rs owns its folder
        parent = prefix + "/".join(inner[:level])
        seams += [f"{parent}/mod.rs", f"{parent}.rs"]
    seams.append(target.root)
    return Placement("::".join(["crate", *segments]), tuple(seams))


__all__ = ["Package", "Packages", "Placement", "Target"]
