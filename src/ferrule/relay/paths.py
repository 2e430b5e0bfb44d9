"""Path safety: every file a request names is project-root-relative and stays inside the root.

An absolute path, a `..` component, a backslash, or a symlink whose target leaves the root is refused
with a `protocol` error before anything is read, so no request can reach outside the project.
"""

from __future__ import annotations

import os
import re
import stat
import time
from pathlib import Path

from ferrule.relay.errors import ProtocolError

_DRIVE = re.compile(r"^[A-Za-z]:")
_RECIPE = "name files relative to the project root with forward slashes, e.g. `src/lib.rs`"

# A path that checks clean (plain directories down to a regular file, no symlink on the way) is
# trusted again for this long without touching the disk, so a host asking in a tight loop pays no
# syscalls for it. Paths through a symlink, and paths to nothing, are checked every time.
CLEAN_REUSE_S = 1.0
_CLEAN_CAP = 4096  # distinct clean paths remembered at once


class ProjectFile:
    """A checked file: `rel` is its canonical root-relative name, `real` (and `path`) its real absolute path.

    `regular` is what the check saw: True for a regular file reached without a symlink, False for
    nothing (or not a file) there, None when a symlink was followed (then nobody looked).
    """

    __slots__ = ("rel", "real", "regular")

    def __init__(self, rel: str, real: str, regular: bool | None = None) -> None:
        self.rel = rel
        self.real = real
        self.regular = regular

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
        self._clean: dict[str, tuple[ProjectFile, float]] = {}  # rel -> (file, checked until)

    def file(self, rel: object) -> ProjectFile:
        """Check `rel` and return the file it names; raise ProtocolError when it is unsafe."""
        if type(rel) is str:
            known = self._clean.get(rel)
            if known is not None and time.monotonic() < known[1]:
                return known[0]
        parts = _relative_parts(rel)
        # The root is canonical already: only the components below it can be symlinks, so lstat
        # those (cheap) and hand the whole path to realpath only when one of them is a link.
        current = self._prefix
        mode = 0
        for depth, part in enumerate(parts):
            candidate = current + part
            try:
                mode = os.lstat(candidate).st_mode
            except OSError:  # absent from here on: nothing below can be a link
                return self._checked(rel, self._prefix + os.sep.join(parts), False)
            if stat.S_ISLNK(mode):
                return self._checked(rel, os.path.realpath(os.path.join(candidate, *parts[depth + 1:])), None)
            current = candidate + os.sep
        file = self._checked(rel, self._prefix + os.sep.join(parts), stat.S_ISREG(mode))
        if file.regular and isinstance(rel, str):
            if len(self._clean) >= _CLEAN_CAP:
                self._clean.clear()
            self._clean[rel] = (file, time.monotonic() + CLEAN_REUSE_S)
        return file

    def _checked(self, rel: object, real: str, regular: bool | None) -> ProjectFile:
        if not real.startswith(self._prefix):
            if real == str(self.path):
                raise ProtocolError(f"path {rel!r} names the project root, not a file", _RECIPE)
            raise ProtocolError(f"path {rel!r} resolves outside the project root (through a symlink)", _RECIPE)
        return ProjectFile(real[len(self._prefix):].replace(os.sep, "/"), real, regular)

    def contains(self, absolute: str | os.PathLike[str]) -> bool:
        text = os.fspath(absolute)
        return text == str(self.path) or text.startswith(self._prefix)

    def relative(self, absolute: str | os.PathLike[str]) -> str | None:
        """The root-relative name of an absolute path inside the root, else None."""
        text = os.path.realpath(os.fspath(absolute))
        if not self.contains(text) or text == str(self.path):
            return None
        return os.path.relpath(text, self.path).replace(os.sep, "/")


# Longer paths and names cannot exist; refusing them keeps the OS's ENAMETOOLONG out of every op.
_PATH_MAX = 4096
_NAME_MAX = 255


def _relative_parts(rel: object) -> list[str]:
    if not isinstance(rel, str) or not rel:
        raise ProtocolError(f"`file` must be a non-empty string, got {rel!r}", _RECIPE)
    if "\x00" in rel:
        raise ProtocolError("path contains a NUL byte", _RECIPE)
    if "\\" in rel:
        raise ProtocolError(f"path {rel!r} uses a backslash; paths use forward slashes", _RECIPE)
    if rel.startswith("/") or _DRIVE.match(rel):
        raise ProtocolError(f"absolute path {rel!r} refused: paths are relative to the project root", _RECIPE)
    if len(rel.encode("utf-8", "surrogatepass")) > _PATH_MAX:
        raise ProtocolError(f"path of {len(rel)} characters refused: longer than any file system path", _RECIPE)
    parts = [part for part in rel.split("/") if part not in ("", ".")]
    if any(len(part.encode("utf-8", "surrogatepass")) > _NAME_MAX for part in parts):
        raise ProtocolError("path refused: a name in it is longer than 255 bytes, which no file can have", _RECIPE)
    if ".." in parts:
        raise ProtocolError(f"path {rel!r} refused: `..` may not leave the project root", _RECIPE)
    if not parts:
        raise ProtocolError(f"path {rel!r} names the project root, not a file", _RECIPE)
    return parts


__all__ = ["ProjectFile", "ProjectRoot"]
