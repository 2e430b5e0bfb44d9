"""The project's policy as the relay's ops use it: conform.toml read once per `init`, validate's
enrichment fields, test-code questions for `complete`, and the branded newtypes of `scope`.
"""

from __future__ import annotations

from pathlib import Path

from ferrule.conform import Branded, ConfigError, Enrichment, Policy, branded_newtypes, in_test_code
from ferrule.project import WorkspaceUnloadable

POLICY_RECIPE = "fix conform.toml (or remove it to use the defaults) and init again"


class ProjectPolicy:
    """The policy of one init, and the last enrichment of each file (agents re-validate unchanged text)."""

    def __init__(self, root: Path, *, announce: bool = True) -> None:
        """With `announce`, where the policy came from is printed on stderr (docs/PROTOCOL.md section 5)."""
        try:
            self._policy = Policy.load(root, announce=announce)
        except ConfigError as error:  # it names the key and the file
            raise WorkspaceUnloadable(f"conform.toml could not be loaded: {error}", POLICY_RECIPE) from error
        self._enriched: dict[str, tuple[str, Enrichment]] = {}

    @property
    def compile(self) -> bool:
        """conform.toml's `[relay] compile`: whether validate may run cargo for this project."""
        return self._policy.config.compile

    def enrich(self, rel: str, text: str) -> Enrichment:
        cached = self._enriched.get(rel)
        if cached is not None and cached[0] == text:
            return cached[1]
        enriched = self._policy.enrich(rel, text)
        self._enriched[rel] = (text, enriched)
        return enriched

    def is_test_path(self, rel: str) -> bool:
        return self._policy.is_test_path(rel)

    @staticmethod
    def in_test_code(text: str, line: int, column: int) -> bool:
        """Whether the position (1-based line, UTF-8 column) is inside `#[cfg(test)]`/`#[test]` code."""
        return in_test_code(text, line, column)

    @staticmethod
    def branded(text: str) -> list[Branded]:
        return branded_newtypes(text)


class PolicySlot:
    """The session's policy: loaded before the analyzer starts, forgotten by `init`."""

    def __init__(self, root: Path, *, announce: bool) -> None:
        self.root = root
        self.announce = announce
        self._current: ProjectPolicy | None = None

    def load(self) -> None:
        if self._current is None:
            self._current = ProjectPolicy(self.root, announce=self.announce)

    def forget(self) -> None:
        self._current = None

    @property
    def current(self) -> ProjectPolicy:
        if self._current is None:
            raise RuntimeError("the policy is loaded when the analyzer starts, before any op runs")
        return self._current


__all__ = ["POLICY_RECIPE", "PolicySlot", "ProjectPolicy"]
