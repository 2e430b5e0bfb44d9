"""A copy of the project under the user's cache in which overlaid files hold their overlay text: cargo
checks the effective state there, and the user's tree, `target/` and `Cargo.lock` are never written.

Each sync follows the disk (files added, changed or deleted since the last one, by mtime and size) and
writes an overlay only when its text changed. Unchanged mirror files keep their mtimes, so cargo's
incremental fingerprints hold; a file that does change is written with the current time, never the
source's older mtime, which cargo could take for "not changed since the last check".

A manifest's `path = "../common"` that leaves the project names a folder the copy does not have: in
the copy it is written as that folder's absolute path, so cargo builds the same dependency.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path

from ferrule.project import BadRequest, ProjectRoot
from ferrule.relay.cache import project_home

SKIPPED_DIRS = frozenset({".git", "target"})
MANIFEST = "Cargo.toml"
# `path = "..."` or `path = '...'`, in a dependency's inline table, its own table, or a dotted key
# (`common.path = "../common"`)
_PATH_VALUE = re.compile(r"""(?m)(^|[{,.\s])(path\s*=\s*)(["'])([^"'\n]+)\3""")


Signature = tuple[int, int]  # (mtime_ns, size) of a file on disk


class Mirror:
    """`tree` holds the copy, `target` cargo's warm target directory; `generation` grows whenever a sync
    found the disk changed."""

    def __init__(self, root: ProjectRoot, home: Path | None = None) -> None:
        self.root = root
        self.home = home or project_home(root) / "mirror"
        self.tree = self.home / "tree"
        self.target = self.home / "target"
        self.generation = 0
        # folders outside the project that the copy's manifests name (path dependencies): the mirror
        # does not follow their files, so a check that builds them is never taken as still current
        self.outside: set[str] = set()
        self._disk: dict[str, Signature] = {}  # what the mirror holds from disk, per file
        self._overlaid: dict[str, str] = {}  # files whose mirror copy holds other text than the disk's
        self.forget()

    def forget(self) -> None:
        """Start from an empty tree: another process wrote it, so what it holds is unknown here. The
        target directory stays (what is unchanged is still fresh for cargo)."""
        self._disk.clear()
        self._overlaid.clear()
        if self.tree.exists():
            shutil.rmtree(self.tree)
        self.tree.mkdir(parents=True)

    def sync(self, overlays: Mapping[str, str]) -> None:
        """Make the tree hold the disk with `overlays` (root-relative name -> text) written in."""
        seen = self._scan()
        changed = False
        for rel, signature in seen.items():
            if rel in overlays:
                continue
            if rel in self._overlaid or self._disk.get(rel) != signature:
                self._copy(rel)
                changed = True
            self._disk[rel] = signature
        for rel in [rel for rel in self._disk if rel not in seen]:
            del self._disk[rel]
            if rel not in overlays:
                self._remove(rel)
                changed = True
        for rel in [rel for rel in self._overlaid if rel not in overlays and rel not in seen]:
            self._remove(rel)  # an overlay dropped for a file the disk does not have
        for rel, text in overlays.items():
            if self._overlaid.get(rel) != text:
                self._write(rel, text)
            if rel in seen:
                self._disk[rel] = seen[rel]
        if changed:
            self.generation += 1

    def _scan(self) -> dict[str, Signature]:
        """Every file of the project as (mtime_ns, size), skipping the root's `target/` and any `.git`;
        a symlink is followed only when the sandbox lets it stay inside the root."""
        found: dict[str, Signature] = {}
        stack = [""]
        while stack:
            folder = stack.pop()
            try:
                entries = list(os.scandir(self.root.path / folder if folder else self.root.path))
            except OSError:
                continue
            for entry in entries:
                rel = f"{folder}/{entry.name}" if folder else entry.name
                try:
                    if entry.is_symlink():
                        try:
                            self.root.file(rel)
                        except BadRequest:
                            continue  # it leaves the root
                    if entry.is_dir():
                        if entry.name == ".git" or (not folder and entry.name in SKIPPED_DIRS):
                            continue
                        stack.append(rel)
                    elif entry.is_file():
                        info = entry.stat()
                        found[rel] = (info.st_mtime_ns, info.st_size)
                except OSError:
                    continue
        return found

    def _copy(self, rel: str) -> None:
        self._overlaid.pop(rel, None)
        destination = self.tree / rel
        destination.parent.mkdir(parents=True, exist_ok=True)
        try:
            if _is_manifest(rel):
                text = (self.root.path / rel).read_text(encoding="utf-8", errors="surrogateescape")
                destination.write_bytes(self._for_the_copy(rel, text).encode("utf-8", "surrogateescape"))
            else:
                shutil.copyfile(self.root.path / rel, destination)  # content only: the mtime is now
        except OSError:
            destination.unlink(missing_ok=True)

    def _write(self, rel: str, text: str) -> None:
        destination = self.tree / rel
        destination.parent.mkdir(parents=True, exist_ok=True)
        written = self._for_the_copy(rel, text) if _is_manifest(rel) else text
        destination.write_bytes(written.encode("utf-8", "surrogatepass"))
        self._overlaid[rel] = text

    def _for_the_copy(self, rel: str, manifest: str) -> str:
        """A manifest's text with each relative `path` that leaves the project made absolute, and one that
        leaves and comes back in through the project's own folder made relative from inside."""
        root = str(self.root.path)
        folder = os.path.dirname(os.path.join(root, rel))

        def absolute(match: re.Match[str]) -> str:
            value = match.group(4)
            if os.path.isabs(value):
                return match.group(0)
            target = os.path.normpath(os.path.join(folder, value))
            if target == root or target.startswith(root + os.sep):
                # inside the project: the copy has it at the same place, named without the project's
                # own folder (`../proj/crates/c` would leave the copy)
                inside = os.path.relpath(target, folder).replace(os.sep, "/")
                if inside == value:
                    return match.group(0)
                target = inside
            else:
                self.outside.add(target)
            quote = "'" if "'" not in target else '"'
            spelled = target if quote == "'" else target.replace("\\", "\\\\").replace('"', '\\"')
            return f"{match.group(1)}{match.group(2)}{quote}{spelled}{quote}"

        return _PATH_VALUE.sub(absolute, manifest)

    def _remove(self, rel: str) -> None:
        self._overlaid.pop(rel, None)
        (self.tree / rel).unlink(missing_ok=True)


def _is_manifest(rel: str) -> bool:
    return rel == MANIFEST or rel.endswith("/" + MANIFEST)


__all__ = ["Mirror"]
