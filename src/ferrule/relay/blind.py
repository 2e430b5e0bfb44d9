"""Where the analyzer sees nothing, said as such: code switched off by `#[cfg]`, and a file no crate
includes. rust-analyzer answers both with silence (an empty hover, no diagnostics but a hint), which
an agent would otherwise read as "nothing there" or "all fine".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath
from typing import Any

from ferrule.lsp.positions import range_contains
from ferrule.project import ErrorRecord

INACTIVE_KIND = "inactive-code"
UNLINKED_KIND = "unlinked-file"
_FEATURE = re.compile(r'feature = "([^"]+)"')


def unlinked_file(rel: str, diagnostics: Iterable[Mapping[str, Any]]) -> ErrorRecord | None:
    """The warning for a file no crate includes (its `unlinked-file` hint), else None."""
    if not any(diagnostic.get("code") == UNLINKED_KIND for diagnostic in diagnostics):
        return None
    module = PurePosixPath(rel).stem
    return {"kind": UNLINKED_KIND,
            "message": f"{rel} is not part of any crate: no module declares it, so the analyzer checks nothing in "
                       "it (no errors, no types, no completions are a verdict on it)",
            "recipe": f"declare it in its parent module (`mod {module};`), or name it as a target in Cargo.toml; "
                      "if it is left over, delete it"}


def unlinked(result: Mapping[str, Any]) -> bool:
    """An answer carries the warning for a file no crate includes: neither the analyzer nor rustc
    checks its code, so its silence is no verdict."""
    return any(warning.get("kind") == UNLINKED_KIND for warning in result.get("warnings") or [])


def inactive_at(diagnostics: Iterable[Mapping[str, Any]], line: int, character: int) -> ErrorRecord | None:
    """The warning for a position (0-based, the analyzer's columns) inside code `#[cfg]` switches off,
    from the analyzer's `inactive-code` diagnostics (LSP shape), else None."""
    for diagnostic in diagnostics:
        if diagnostic.get("code") != INACTIVE_KIND:
            continue
        if range_contains(diagnostic.get("range"), line, character):
            return inactive(str(diagnostic.get("message") or ""))
    return None


def inactive(message: str) -> ErrorRecord:
    """The warning for code switched off, from the analyzer's message ("code is inactive due to
    #[cfg] directives: feature = "full" is disabled")."""
    reason = message.split(":", 1)[1].strip() if ":" in message else "its #[cfg] is not met"
    feature = _FEATURE.search(reason)
    if feature is not None:
        name = feature.group(1)
        recipe = (f"the analyzer sees the package with its default features only: to have this code checked, make "
                  f"`{name}` a default feature (`default = [\"{name}\"]` under [features] in Cargo.toml), or check "
                  f"it with `cargo check --features {name}`")
    else:
        recipe = ("the analyzer sees only the code active for this machine and the default features: check this "
                  "code with cargo for the configuration that switches it on")
    return {"kind": INACTIVE_KIND,
            "message": f"inactive: {reason}; the analyzer does not look inside code `#[cfg]` switches off, so "
                       "nothing here has a type or an error",
            "recipe": recipe}


__all__ = ["INACTIVE_KIND", "UNLINKED_KIND", "inactive", "inactive_at", "unlinked", "unlinked_file"]
