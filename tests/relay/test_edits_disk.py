"""Writing edits to disk: every file or none, line ends kept, the analyzer shown the new text."""

from __future__ import annotations

import pytest

from ferrule.project import BadRequest, ProjectRoot
from ferrule.relay.documents import Documents
from ferrule.relay.edits import PlannedFile, write_to_disk


class Notes:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict]] = []

    def notify(self, method: str, params: dict) -> None:
        self.sent.append((method, params))


@pytest.fixture
def project(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.rs").write_bytes(b"fn total() {}\r\nfn b() { total() }\r\n")
    (tmp_path / "src" / "b.rs").write_text("use crate::total;\n")
    root = ProjectRoot(tmp_path)
    return root, Documents(root)


def _plan(root, rel, before, after):
    return PlannedFile(root.file(rel), before, after)


def test_every_file_is_written_with_its_own_line_ends_and_shown_to_the_analyzer(project):
    root, documents = project
    client = Notes()
    write_to_disk(client, documents, [
        _plan(root, "src/a.rs", "fn total() {}\nfn b() { total() }\n", "fn sum() {}\nfn b() { sum() }\n"),
        _plan(root, "src/b.rs", "use crate::total;\n", "use crate::sum;\n")])
    assert (root.path / "src/a.rs").read_bytes() == b"fn sum() {}\r\nfn b() { sum() }\r\n"
    assert (root.path / "src/b.rs").read_bytes() == b"use crate::sum;\n"
    assert [m for m, _ in client.sent] == ["textDocument/didOpen"] * 2  # held open: not left to the analyzer's loader
    assert {rel: held.text for rel, held in documents.held.items()} == {
        "src/a.rs": "fn sum() {}\nfn b() { sum() }\n", "src/b.rs": "use crate::sum;\n"}
    assert sorted(p.name for p in (root.path / "src").iterdir()) == ["a.rs", "b.rs"]  # no temporaries left


def test_nothing_is_written_when_one_file_changed_since_the_analyzer_read_it(project):
    root, documents = project
    stale = _plan(root, "src/b.rs", "use crate::old;\n", "use crate::sum;\n")
    fresh = _plan(root, "src/a.rs", "fn total() {}\nfn b() { total() }\n", "fn sum() {}\n")
    with pytest.raises(BadRequest, match="changed on disk since the analyzer read it: src/b.rs"):
        write_to_disk(Notes(), documents, [fresh, stale])
    assert (root.path / "src/a.rs").read_bytes() == b"fn total() {}\r\nfn b() { total() }\r\n"
