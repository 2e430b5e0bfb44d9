"""What the analyzer says about its own health that changes how far its answers can be trusted.

rust-analyzer (1.85 and 1.96 alike) reports a standard library it could not load in its
`experimental/serverStatus` message ("... has sysroot errors: can't load standard library ...") with
health `warning`, and then goes on answering: every `derive`, `assert!` and method of std is then an
"unresolved" error that is not real. Likewise a proc-macro server it could not run ("Failed to run
proc-macro server from path ...", a server of another release than the toolchain's): nothing a
`#[derive(...)]` or an attribute macro generates exists for it, so every use of it is a false error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ferrule.project import ErrorRecord

STD_KIND = "std-unloaded"
STD_RECIPE = ("install the standard library's source with `rustup component add rust-src`, or set "
              "RUST_SRC_PATH to its `library` folder in the environment that starts the analyzer")
_STD_TROUBLE = re.compile(r"sysroot errors?|can't load standard library|failed to (?:find|load) sysroot", re.I)


PROC_MACRO_KIND = "proc-macros-unexpanded"
PROC_MACRO_RECIPE = ("run a rust-analyzer of the toolchain's own release: `rustup component add rust-analyzer`, then "
                     "point RUST_ANALYZER at `rustup which rust-analyzer`; or set FERRULE_PROC_MACRO_SERVER to the "
                     "toolchain's `$(rustc --print sysroot)/libexec/rust-analyzer-proc-macro-srv`")
_UNWELL = ("warning", "error")  # the status's `health` when its message may name a trouble
_PROC_MACRO_TROUBLE = re.compile(r"proc[- ]macro server|proc-macro-srv", re.I)


def std_unloaded(status: Mapping[str, Any]) -> ErrorRecord | None:
    """The warning for a standard library the analyzer could not load, or None when it loaded."""
    cause = _trouble(status, _STD_TROUBLE)
    if cause is None:
        return None
    return {"kind": STD_KIND,
            "message": f"rust-analyzer did not load the standard library, so its errors about std items "
                       f"(derive, assert!, methods of std types) are not real: {cause}",
            "recipe": STD_RECIPE}


def proc_macros_unexpanded(status: Mapping[str, Any]) -> ErrorRecord | None:
    """The warning for procedural macros the analyzer cannot expand, or None when it can."""
    cause = _trouble(status, _PROC_MACRO_TROUBLE)
    return None if cause is None else _unexpanded(cause)


def _unexpanded(cause: str) -> ErrorRecord:
    return {"kind": PROC_MACRO_KIND,
            "message": "rust-analyzer cannot expand procedural macros, so its errors about what a "
                       "`#[derive(...)]` or an attribute macro generates (a method or trait impl \"not found\") "
                       f"are not real: {cause}",
            "recipe": PROC_MACRO_RECIPE}


def analyzer_warnings(status: Mapping[str, Any], diagnostics: Iterable[Mapping[str, Any]] = ()) -> list[ErrorRecord]:
    """Every reason not to take the analyzer's errors about a file at their word: a standard library it
    did not load, and proc-macros it could not expand when the file uses one (a `macro-error` of the
    proc-macro server among `diagnostics`; a server failing for a project with none changes nothing).
    The macro error alone is enough: an older analyzer may start a server of a newer toolchain without
    a word in its status, and only learn at the first expansion that it does not answer."""
    if not diagnostics and status.get("health") not in _UNWELL:  # the answer to every op while all is well
        return []
    unloaded = std_unloaded(status)
    warnings = [] if unloaded is None else [unloaded]
    if not diagnostics:
        return warnings
    failed = next((message for message in (str(d.get("message")) for d in diagnostics
                                           if d.get("code") == "macro-error")
                   if _PROC_MACRO_TROUBLE.search(message)), None)
    if failed is not None:
        warnings.append(proc_macros_unexpanded(status) or _unexpanded(failed))
    return warnings


def _trouble(status: Mapping[str, Any], trouble: re.Pattern[str]) -> str | None:
    """The status's paragraph about `trouble` on one line, when its health is not ok."""
    message = status.get("message") or ""
    if status.get("health") not in _UNWELL or not trouble.search(message):
        return None
    # the status may also carry unrelated paragraphs (the other trouble): keep this one's
    paragraph = next(part for part in message.split("\n\n") if trouble.search(part))
    return " ".join(line.strip() for line in paragraph.splitlines() if line.strip())


__all__ = ["PROC_MACRO_KIND", "PROC_MACRO_RECIPE", "STD_KIND", "STD_RECIPE", "analyzer_warnings",
           "proc_macros_unexpanded", "std_unloaded"]
