"""The text an op sees of a project file, with its line index: the overlay, else the disk.

Navigation answers show the lines of many files on every call; the disk texts are kept, keyed by the
file's identity and modification (inode, size, mtime in ns), so that an unchanged file costs one stat
instead of a read and an index. A changed file is read again.
"""

from __future__ import annotations

import os
from collections import OrderedDict

from ferrule.fastframe import LineIndex
from ferrule.project import BadRequest, ProjectFile, ProjectRoot
from ferrule.relay.documents import Documents

_KEPT = 256  # files

_disk: OrderedDict[str, tuple[tuple[int, int, int], str, LineIndex]] = OrderedDict()


def project_file(root: ProjectRoot, absolute: str) -> ProjectFile | None:
    """The project file an analyzer path names, through the sandbox; None outside the project."""
    prefix = str(root.path) + os.sep
    rel = absolute[len(prefix):] if absolute.startswith(prefix) else root.relative(absolute)
    if rel is None:
        return None
    try:
        return root.file(rel.replace(os.sep, "/"))
    except BadRequest:  # a link out of the root, `..`: not the project's
        return None


def seen(documents: Documents, file: ProjectFile) -> tuple[str, LineIndex] | None:
    """(text, index) as the analyzer sees the file through the relay; None when it cannot be read."""
    overlay = documents.overlays.get(file.rel)
    if overlay is not None:
        return overlay.text, overlay.index
    return disk(file.real)


def disk(real: str) -> tuple[str, LineIndex] | None:
    try:
        status = os.stat(real)
    except OSError:
        return None
    key = (status.st_ino, status.st_size, status.st_mtime_ns)
    kept = _disk.get(real)
    if kept is not None and kept[0] == key:
        _disk.move_to_end(real)
        return kept[1], kept[2]
    try:
        with open(real, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return None
    _disk[real] = (key, text, LineIndex(text))
    if len(_disk) > _KEPT:
        _disk.popitem(last=False)
    return text, _disk[real][2]


__all__ = ["disk", "project_file", "seen"]
