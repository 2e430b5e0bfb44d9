"""The policy layer as the relay sees it: `ferrule.conform` when it is installed, else nothing.

Absent, validate's enrichment fields are empty lists (TCG-PROTOCOL-RUST section 3: their absence
means "no policy layer", not an error) and scope's `branded` is empty.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ferrule.relay.errors import WorkspaceUnloadable

_EMPTY: dict[str, list[Any]] = {"facts": [], "conform_findings": [], "advice": []}
_TEST_DIRS = ("tests", "benches")


class RelayPolicy:
    """Loads `conform.toml` once per init; answers enrich / is_test_path / in_test_code / branded.

    With `announce`, where the policy came from is printed on stderr (TCG-PROTOCOL-RUST section 3).
    """

    def __init__(self, root: Path, *, announce: bool = True) -> None:
        self._policy: Any = None
        self._branded: Any = None
        self._in_test_code: Any = None
        try:
            from ferrule.conform import Policy, branded_newtypes, in_test_code
        except ImportError:
            return
        self._branded = branded_newtypes
        self._in_test_code = in_test_code
        try:
            self._policy = Policy.load(root, announce=announce)
        except ValueError as error:  # ConfigError names the key and the file
            raise WorkspaceUnloadable(f"conform.toml could not be loaded: {error}",
                                      "fix conform.toml (or remove it to use the defaults) and init again") from error

    @property
    def present(self) -> bool:
        return self._policy is not None

    def enrich(self, rel: str, text: str) -> dict[str, list[Any]]:
        if self._policy is None:
            return {key: [] for key in _EMPTY}
        enriched = self._policy.enrich(rel, text)
        return {key: list(enriched.get(key) or []) for key in _EMPTY}

    def is_test_path(self, rel: str) -> bool:
        if self._policy is not None:
            return bool(self._policy.is_test_path(rel))
        name = rel.rsplit("/", 1)[-1]
        return rel.split("/", 1)[0] in _TEST_DIRS or name in ("tests.rs", "test.rs") or name.endswith(
            ("_test.rs", "_tests.rs")
        )

    def in_test_code(self, text: str, line: int, column: int) -> bool:
        """Whether the position (1-based line, UTF-8 column) is inside `#[cfg(test)]`/`#[test]` code."""
        if self._in_test_code is None:
            return False
        return bool(self._in_test_code(text, line, column))

    def branded(self, text: str) -> list[dict[str, Any]]:
        if self._branded is None:
            return []
        return list(self._branded(text))
