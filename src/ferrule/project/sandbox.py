"""The project root and its path sandbox: every file a request names stays inside the root.

An absolute path, a `..` component, a backslash, or a symlink whose target leaves the root is refused
with a `protocol` error before anything is read. Nothing is trusted from an earlier look: a link
swapped in between two requests is refused by the next one.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from ferrule.project.errors import BadRequest

_DRIVE = re.compile(r"^[A-Za-z]:")
_RECIPE = "name files relative to the project root with forward slashes, e.g. `src/lib.rs`"

# Longer paths and names cannot exist; refusing them keeps the OS's ENAMETOOLONG out of every op.
_PATH_MAX = 4096
_NAME_MAX = 255
_WALKS_CAP = 1024  # names whose walk is kept


class ProjectFile:
    """A checked file: `rel` is its canonical root-relative name, `real` (and `path`) its real absolute path.

    `regular` is what the check saw: True for a regular file reached without a symlink, False for
    nothing (or not a file) there, None when a symlink was followed (then nobody looked). `seen` is
    the regular file's `lstat` as the check made it, for the first look at the file's state by the op
    that checked it (which then clears it), instead of another `stat`.
    """

    __slots__ = ("rel", "real", "regular", "seen")

    def __init__(self, rel: str, real: str, regular: bool | None = None, seen: os.stat_result | None = None) -> None:
        self.rel = rel
        self.real = real
        self.regular = regular
        self.seen = seen

    @property
    def path(self) -> Path:
        return Path(self.real)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ProjectFile) and (self.rel, self.real) == (other.rel, other.real)

    def __hash__(self) -> int:
        return hash((self.rel, self.real))

    def __repr__(self) -> str:
        return f"ProjectFile(rel={self.rel!r}, path={self.real!r})"


class ProjectRoot:
    """The canonical (symlink-free) project root, and the gate every request path goes through."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.path = Path(os.path.realpath(os.fspath(root)))
        self._prefix = str(self.path).rstrip(os.sep) + os.sep
        self._walks: dict[str, _Walk] = {}

    def file(self, rel: object) -> ProjectFile:
        """Check `rel` on disk, now, and return the file it names; raise BadRequest when it is unsafe."""
        # What the name alone decides (its form, its components' absolute paths) is worked out once
        # per name; the disk is looked at every time.
        walk = self._walks.get(rel) if isinstance(rel, str) else None
        if walk is None:
            walk = self._walk_of(rel)
        # The root is canonical already: only the components below it can be symlinks, so lstat
        # those (cheap) and hand the whole path to realpath only when one of them is a link.
        seen = None
        for depth, candidate in enumerate(walk.steps):
            try:
                seen = os.lstat(candidate)
            except OSError:  # absent from here on: nothing below can be a link
                return self._checked(rel, walk.real, False)
            if stat.S_ISLNK(seen.st_mode):
                return self._checked(rel, os.path.realpath(os.path.join(candidate, *walk.parts[depth + 1:])), None)
        assert seen is not None  # a name has at least one component
        regular = stat.S_ISREG(seen.st_mode)
        return ProjectFile(walk.rel, walk.real, regular, seen if regular else None)

    def _walk_of(self, rel: object) -> _Walk:
        parts = _relative_parts(rel)
        steps = [self._prefix + os.sep.join(parts[:depth + 1]) for depth in range(len(parts))]
        walk = _Walk(parts, steps, "/".join(parts))
        if len(self._walks) >= _WALKS_CAP:
            self._walks.clear()
        self._walks[rel] = walk  # type: ignore[index]  # _relative_parts refused anything but a str
        return walk

    def _checked(self, rel: object, real: str, regular: bool | None) -> ProjectFile:
        if not real.startswith(self._prefix):
            if real == str(self.path):
                raise BadRequest(f"path {rel!r} names the project root, not a file", _RECIPE)
            raise BadRequest(f"path {rel!r} resolves outside the project root (through a symlink)", _RECIPE)
        return ProjectFile(real[len(self._prefix):].replace(os.sep, "/"), real, regular)

    def contains(self, absolute: str | os.PathLike[str]) -> bool:
        text = os.fspath(absolute)
        return text == str(self.path) or text.startswith(self._prefix)

    def name_of(self, given: str) -> str:
        """A name an agent gave, as the root-relative name the checks take: an absolute path inside the
        root made relative (agents' own tools name files absolutely); a relative one as it is. An
        absolute path outside the root is a BadRequest naming the root."""
        if not isinstance(given, str) or not os.path.isabs(given) or "\x00" in given:
            return given  # for `file` to refuse with its own reason
        _check_text(given)
        # By name first, when no `..` could mean another folder through a link: a path under the root
        # needs no look at the disk (`file` checks its links); the disk's answer otherwise (a root
        # reached through a link).
        named = None if ".." in given.split(os.sep) else os.path.normpath(given)
        real = named if named is not None and named.startswith(self._prefix) else os.path.realpath(given)
        if real.startswith(self._prefix):
            return real[len(self._prefix):].replace(os.sep, "/")
        if real == str(self.path):
            raise BadRequest(f"path {given!r} names the project root, not a file", _RECIPE)
        raise BadRequest(f"path {given!r} is outside the project root {str(self.path)!r}",
                         "name a file of the project, relative to its root (e.g. `src/lib.rs`) or absolute")

    def relative(self, absolute: str | os.PathLike[str]) -> str | None:
        """The root-relative name of an absolute path inside the root, else None."""
        text = os.path.realpath(os.fspath(absolute))
        if not self.contains(text) or text == str(self.path):
            return None
        return os.path.relpath(text, self.path).replace(os.sep, "/")


class _Walk:
    """A checked name: its components, the absolute path of each in turn, its canonical form."""

    __slots__ = ("parts", "steps", "rel", "real")

    def __init__(self, parts: list[str], steps: list[str], rel: str) -> None:
        self.parts, self.steps, self.rel, self.real = parts, steps, rel, steps[-1]


def _check_text(path: str) -> None:
    """What no file system path can be: longer than any, or text that is not Unicode (a lone surrogate
    a JSON string may carry), which the OS cannot be asked about."""
    try:
        size = len(path.encode("utf-8"))
    except UnicodeEncodeError:
        raise BadRequest(f"path {path[:80]!r} is not valid Unicode text", _RECIPE) from None
    if size > _PATH_MAX:
        raise BadRequest(f"path of {len(path)} characters refused: longer than any file system path", _RECIPE)


def _relative_parts(rel: object) -> list[str]:
    if not isinstance(rel, str) or not rel:
        raise BadRequest(f"`file` must be a non-empty string, got {rel!r}", _RECIPE)
    _check_text(rel)
    if "\x00" in rel:
        raise BadRequest("path contains a NUL byte", _RECIPE)
    if "\\" in rel:
        raise BadRequest(f"path {rel!r} uses a backslash; paths use forward slashes", _RECIPE)
    if rel.startswith("/") or _DRIVE.match(rel):
        raise BadRequest(f"absolute path {rel!r} refused: paths are relative to the project root", _RECIPE)
    parts = [part for part in rel.split("/") if part not in ("", ".")]
    if any(len(part.encode("utf-8")) > _NAME_MAX for part in parts):
        raise BadRequest("path refused: a name in it is longer than 255 bytes, which no file can have", _RECIPE)
    if ".." in parts:
        raise BadRequest(f"path {rel!r} refused: `..` may not leave the project root", _RECIPE)
    if not parts:
        raise BadRequest(f"path {rel!r} names the project root, not a file", _RECIPE)
    return parts


__all__ = ["ProjectFile", "ProjectRoot"]
