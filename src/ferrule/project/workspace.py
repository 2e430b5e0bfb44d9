"""The project root of a file, as cargo finds it: the nearest package manifest above the file, and
above that the workspace whose members include it.

Every command that is not told its root (`ferrule validate FILE`, `ferrule serve`, `ferrule check`,
`ferrule mcp`) asks this, so the same file is answered under the same root and the same policy
(`conform.toml` at the workspace root) whichever folder a command starts in.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path, PurePosixPath
from typing import Any

from ferrule._toml import tomllib

MANIFEST = "Cargo.toml"


def project_root(start: str | os.PathLike[str]) -> Path | None:
    """The root for `start` (a file, or a folder to start in): the workspace root when the nearest
    package above it is a member of a workspace, else that package's folder; None outside any."""
    start = Path(os.path.abspath(start))
    folders = [start, *start.parents] if start.is_dir() else list(start.parents)
    nearest = next((folder for folder in folders if (folder / MANIFEST).is_file()), None)
    if nearest is None:
        return None
    manifest = _manifest(nearest)
    if "workspace" in manifest:  # a workspace root itself, virtual or not
        return nearest
    package = manifest.get("package")
    declared = package.get("workspace") if isinstance(package, dict) else None
    if isinstance(declared, str):  # `package.workspace` names the root outright
        root = Path(os.path.normpath(nearest / declared))
        return root if (root / MANIFEST).is_file() else nearest
    for folder in nearest.parents:  # cargo's search: the first workspace manifest above
        if (folder / MANIFEST).is_file():
            workspace = _manifest(folder).get("workspace")
            if isinstance(workspace, dict):
                return folder if _is_member(workspace, folder, nearest) else nearest
    return nearest


def _manifest(folder: Path) -> dict[str, Any]:
    """The folder's Cargo.toml as a table; an unreadable one as empty (cargo will say what is wrong)."""
    try:
        with open(folder / MANIFEST, "rb") as file:
            return tomllib.load(file)
    except (OSError, tomllib.TOMLDecodeError):
        return {}


def _is_member(workspace: dict[str, Any], root: Path, package: Path) -> bool:
    """Whether the package folder is listed by the workspace's `members` (globs) and not `exclude`d."""
    rel = PurePosixPath(package.relative_to(root).as_posix())

    def listed(key: str, below: bool) -> bool:
        patterns = workspace.get(key)
        return isinstance(patterns, list) and any(
            isinstance(pattern, str) and _matches(rel, pattern, below) for pattern in patterns)

    return not listed("exclude", True) and listed("members", False)


def _matches(rel: PurePosixPath, pattern: str, below: bool) -> bool:
    """`crates/*` matches `crates/a`: one glob per path component, as cargo's members are written;
    `below`: a folder under the pattern's matches too (cargo's `exclude`)."""
    parts = PurePosixPath(pattern.rstrip("/")).parts
    if below and rel.parts[:len(parts)] == parts:
        return True
    return len(parts) == len(rel.parts) and all(
        fnmatch.fnmatchcase(name, glob) for name, glob in zip(rel.parts, parts, strict=True))


__all__ = ["MANIFEST", "project_root"]
