"""What the analyzer says about its own health that changes how far its answers can be trusted.

rust-analyzer (1.85 and 1.96 alike) reports a standard library it could not load in its
`experimental/serverStatus` message ("... has sysroot errors: can't load standard library ...") with
health `warning`, and then goes on answering: every `derive`, `assert!` and method of std is then an
"unresolved" error that is not real.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ferrule.project import ErrorRecord

STD_KIND = "std-unloaded"
STD_RECIPE = ("install the standard library's source with `rustup component add rust-src`, or set "
              "RUST_SRC_PATH to its `library` folder in the environment that starts the analyzer")
_STD_TROUBLE = re.compile(r"sysroot errors?|can't load standard library|failed to (?:find|load) sysroot", re.I)


def std_unloaded(status: Mapping[str, Any]) -> ErrorRecord | None:
    """The warning for a standard library the analyzer could not load, or None when it loaded."""
    message = status.get("message") or ""
    if status.get("health") not in ("warning", "error") or not _STD_TROUBLE.search(message):
        return None
    # the status may also carry unrelated lines (a proc-macro server): keep the sysroot's paragraph
    paragraph = next(part for part in message.split("\n\n") if _STD_TROUBLE.search(part))
    cause = " ".join(line.strip() for line in paragraph.splitlines() if line.strip())
    return {"kind": STD_KIND,
            "message": f"rust-analyzer did not load the standard library, so its errors about std items "
                       f"(derive, assert!, methods of std types) are not real: {cause}",
            "recipe": STD_RECIPE}


__all__ = ["STD_KIND", "STD_RECIPE", "std_unloaded"]
