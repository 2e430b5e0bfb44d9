"""The project's policy as the relay's ops use it: conform.toml read once per `init`, validate's
enrichment fields, test-code questions for `complete`, and the names and branded newtypes of `scope`.

Each file the ops ask about keeps one syntax tree (`ParsedFile`): a new text, transient or not, is
re-parsed from the last one's tree, and only the chunks it changed get their facts computed again.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ferrule.conform import Branded, ConfigError, Enrichment, FileFacts, Policy
from ferrule.conform.document import ParsedFile
from ferrule.conform.facts import may_be_test_code
from ferrule.conform.gate import rust_files
from ferrule.fastframe import LineIndex
from ferrule.project import WorkspaceUnloadable

POLICY_RECIPE = "fix conform.toml (or remove it to use the defaults) and init again"
# Parsed files kept at once, the least recently asked forgotten first: a file's tree, facts and chunks
# take some fifty times its size in memory (10 MB for a 200 KB file).
FILES_KEPT = 32
SOURCE_BYTES_KEPT = 4_000_000
T = TypeVar("T")


class ProjectPolicy:
    """The policy of one init, each file's parsed text, and what the ops derive from its facts (its
    enrichment, the names it declares), kept until the text changes: agents re-ask about unchanged
    text."""

    def __init__(self, root: Path, *, announce: bool = True) -> None:
        """With `announce`, where the policy came from is printed on stderr (docs/PROTOCOL.md section 5)."""
        try:
            self._policy = Policy.load(root, announce=announce)
        except ConfigError as error:  # it names the key and the file
            raise WorkspaceUnloadable(f"conform.toml could not be loaded: {error}", POLICY_RECIPE) from error
        self._files: OrderedDict[str, ParsedFile] = OrderedDict()
        self._derived: dict[str, dict[str, tuple[FileFacts, Any]]] = {}  # rel -> what -> (facts, value)

    def rust_files(self) -> list[str]:
        """The project's .rs files, root-relative, as the gate walks them (excluded folders skipped)."""
        return rust_files(self._policy)

    @property
    def compile(self) -> bool:
        """conform.toml's `[relay] compile`: whether validate may run cargo for this project."""
        return self._policy.config.compile

    def parsed(self, rel: str, text: str) -> ParsedFile:
        """`rel`'s parsed file, brought to `text`."""
        files = self._files
        parsed = files.get(rel)
        if parsed is None:
            parsed = files[rel] = ParsedFile()
        else:
            files.move_to_end(rel)
        parsed.update(text)
        while len(files) > 1 and (len(files) > FILES_KEPT or sum(f.size for f in files.values()) > SOURCE_BYTES_KEPT):
            forgotten, _ = files.popitem(last=False)
            self._derived.pop(forgotten, None)
        return parsed

    def facts(self, rel: str, text: str) -> FileFacts:
        return self.parsed(rel, text).facts()

    def derived(self, rel: str, text: str, what: str, derive: Callable[[FileFacts], T]) -> T:
        """`derive` of the file's facts at `text`, computed again only when those facts change; `what`
        names the derivation (one value of each is kept per file)."""
        facts = self.facts(rel, text)
        kept = self._derived.setdefault(rel, {})
        cached = kept.get(what)
        if cached is not None and cached[0] is facts:
            return cached[1]  # type: ignore[no-any-return]
        value = derive(facts)
        kept[what] = (facts, value)
        return value

    def enrich(self, rel: str, text: str) -> Enrichment:
        return self.derived(rel, text, "enrichment", lambda facts: self._policy.enrich(rel, facts))

    def is_test_path(self, rel: str) -> bool:
        return self._policy.is_test_path(rel)

    def in_test_code(self, rel: str, index: LineIndex, line: int, column: int) -> bool:
        """Whether the position (1-based line, UTF-8 column) of the indexed text is inside
        `#[cfg(test)]`/`#[test]` code; the text is parsed only when its attributes leave the question
        open."""
        text = index.text
        return (may_be_test_code(text, index.offset(line, 0))
                and self.parsed(rel, text).in_test_code(line, column))

    def branded(self, rel: str, text: str) -> list[Branded]:
        return self.parsed(rel, text).branded()


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
