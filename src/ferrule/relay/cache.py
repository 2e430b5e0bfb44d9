"""The relay's folder of a project under the user's cache: where its compile mirror lives, and where the
analyzer's build-script runs go, so that nothing ferrule starts writes the project's own `target/`."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ferrule.project import ProjectRoot


def cache_home() -> Path:
    """`$XDG_CACHE_HOME/ferrule`, else `~/.cache/ferrule`."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ferrule"


def project_home(root: ProjectRoot) -> Path:
    """The project's own folder in the cache, keyed by its real path."""
    digest = hashlib.sha256(str(root.path).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return cache_home() / "projects" / f"{root.path.name}-{digest}"


__all__ = ["cache_home", "project_home"]
