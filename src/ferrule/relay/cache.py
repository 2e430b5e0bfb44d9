"""The relay's folder of a project under the user's cache: where its compile mirror lives, and where the
analyzer's build-script runs go, so that nothing ferrule starts writes the project's own `target/`.

Such a folder holds a copy of the project and two cargo target directories, often hundreds of MB.
Each use stamps it (`used`); a folder unused for STALE_AFTER_S is removed when an analyzer starts,
unless a ferrule process holds its lock. Nothing in it is the user's: a project used again gets a
fresh one, at the cost of a first full build.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import time
from pathlib import Path

from ferrule.project import ProjectRoot

STALE_AFTER_S = 30 * 24 * 3600
USED = "used"  # the stamp file: its mtime is the folder's last use
LOCK = "lock"  # held while a process syncs the mirror and runs cargo (compile/lock.py)


def cache_home() -> Path:
    """`$XDG_CACHE_HOME/ferrule`, else `~/.cache/ferrule`."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ferrule"


def project_home(root: ProjectRoot) -> Path:
    """The project's own folder in the cache, keyed by its real path."""
    digest = hashlib.sha256(str(root.path).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return cache_home() / "projects" / f"{root.path.name}-{digest}"


def mark_used(root: ProjectRoot) -> Path:
    """Stamp the project's folder as used now (made if absent); the folder."""
    home = project_home(root)
    home.mkdir(parents=True, exist_ok=True)
    (home / USED).touch()
    return home


def prune_stale(now: float | None = None) -> list[Path]:
    """Remove the project folders no ferrule process has used for STALE_AFTER_S; the ones removed."""
    limit = (time.time() if now is None else now) - STALE_AFTER_S
    removed: list[Path] = []
    try:
        entries = list(os.scandir(cache_home() / "projects"))
    except OSError:
        return removed
    for entry in entries:
        try:
            if not entry.is_dir(follow_symlinks=False):
                continue
            stamp = Path(entry.path, USED)
            used = stamp.stat().st_mtime if stamp.exists() else entry.stat(follow_symlinks=False).st_mtime
        except OSError:
            continue
        if used < limit and _removed_unless_locked(Path(entry.path)):
            removed.append(Path(entry.path))
    return removed


def _removed_unless_locked(home: Path) -> bool:
    """Remove `home` while holding its lock; False when a process holds it (that project is in use)."""
    try:
        fd = os.open(home / LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        shutil.rmtree(home, ignore_errors=True)
        return not home.exists()
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)


__all__ = ["STALE_AFTER_S", "cache_home", "mark_used", "project_home", "prune_stale"]
