"""The rules of holding a file open, without an analyzer: a show that fails leaves nothing behind, a
held file changed on disk stays open with its new text, and a file changed a moment ago is held with
its text compared at every op until its key settles."""

from __future__ import annotations

import os

import pytest

from ferrule.fastframe import LineIndex
from ferrule.project import ProjectRoot
from ferrule.relay import documents as documents_module
from ferrule.relay.documents import Documents


class Analyzer:
    """The LSP client's face that Documents uses; `refuse` makes every notification fail."""

    capabilities = {"textDocumentSync": {"openClose": True, "change": 2}}
    position_encoding = "utf-8"
    alive = True

    def __init__(self, refuse: bool = False) -> None:
        self.refuse = refuse
        self.sent: list[tuple[str, dict]] = []

    def notify(self, method: str, params: dict) -> None:
        if self.refuse:
            raise TypeError("not encodable")
        self.sent.append((method, params))

    def flush(self) -> None:
        pass


@pytest.fixture
def a_moment_ago(monkeypatch):
    """Every write so far counts as a moment ago, however slow the machine ran since."""
    monkeypatch.setattr(documents_module, "RACY_NS", 1 << 62)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "p"\nversion = "0.1.0"\n')
    (tmp_path / "src").mkdir()
    lib = tmp_path / "src" / "lib.rs"
    lib.write_text("pub fn f() -> u8 { 1 }\n")
    root = ProjectRoot(tmp_path)
    return root, root.file("src/lib.rs")


def test_a_show_that_fails_leaves_the_file_to_the_disk_check(project, monkeypatch):
    monkeypatch.setattr(documents_module, "RACY_NS", 0)  # the file was written a moment ago
    root, lib = project
    documents = Documents(root)
    with pytest.raises(TypeError), documents.showing(Analyzer(refuse=True), lib, "pub fn f() -> u8 { 2 }\n"):
        pass
    analyzer = Analyzer()
    with documents.showing(analyzer, lib, "pub fn f() -> u8 { 3 }\n") as shown:
        shown.prepare()
    assert "src/lib.rs" in documents.held
    with open(lib.real, "a", encoding="utf-8") as out:
        out.write("// edited on disk\n")
    sent = len(analyzer.sent)
    documents.before_op(analyzer, holding=True)
    assert documents.held["src/lib.rs"].text.endswith("// edited on disk\n")
    assert [method for method, _ in analyzer.sent[sent:]] == ["textDocument/didChange"]
    assert analyzer.sent[-1][1]["contentChanges"][0]["text"] == "// edited on disk\n"


def test_a_held_file_gone_from_disk_is_closed(project, monkeypatch):
    monkeypatch.setattr(documents_module, "RACY_NS", 0)
    root, lib = project
    documents, analyzer = Documents(root), Analyzer()
    documents.show_disk(analyzer, lib)
    os.unlink(lib.real)
    documents.before_op(analyzer, holding=True)
    assert "src/lib.rs" not in documents.held
    assert analyzer.sent[-1][0] == "textDocument/didClose"


def test_a_file_changed_a_moment_ago_is_held_and_its_text_compared_at_each_op(project, a_moment_ago, monkeypatch):
    root, lib = project
    documents = Documents(root)
    analyzer = Analyzer()
    with open(lib.real, "a", encoding="utf-8") as out:
        out.write("// now\n")
    with documents.showing(analyzer, lib, "pub fn f() -> u8 { 4 }\n") as shown:
        shown.prepare()
    held = documents.held["src/lib.rs"]
    assert held.key is None, "a key taken a moment after a change cannot show the next change"
    sent = len(analyzer.sent)
    documents.before_op(analyzer, holding=True)
    assert analyzer.sent[sent:] == [], "the text compared equal: nothing to send"
    # a change the key could miss (same size, same tick): the text shows it
    before = os.stat(lib.real)
    with open(lib.real, "r+", encoding="utf-8") as out:
        out.write("pub fn g")
    os.utime(lib.real, ns=(before.st_atime_ns, before.st_mtime_ns))
    documents.before_op(analyzer, holding=True)
    assert [method for method, _ in analyzer.sent[sent:]] == ["textDocument/didChange"]
    assert documents.held["src/lib.rs"].text.startswith("pub fn g() -> u8")
    monkeypatch.setattr(documents_module, "RACY_NS", 0)  # the change has settled
    documents.before_op(analyzer, holding=True)
    assert documents.held["src/lib.rs"].key == documents_module.disk_key(lib.real)


def _same_tick_rewrite(path: str, text: str) -> None:
    """Rewrite the file with the same size and mtime, as a second write within one tick of a coarse
    filesystem clock leaves them."""
    before = os.stat(path)
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


@pytest.fixture
def coarse_clock(monkeypatch):
    """Keys without the ctime, which a same-tick rewrite leaves unchanged on such a filesystem too."""
    monkeypatch.setattr(documents_module, "key_of", lambda seen: (seen.st_mtime_ns, 0, seen.st_size, seen.st_ino))


def test_a_text_read_a_moment_after_a_change_is_not_kept_under_its_key(project, coarse_clock, a_moment_ago):
    root, lib = project
    documents, analyzer = Documents(root), Analyzer()
    documents.show_disk(analyzer, lib)
    assert documents.held["src/lib.rs"].key is None
    _same_tick_rewrite(lib.real, "pub fn g() -> u8 { 1 }\n")
    checked = root.file("src/lib.rs")
    documents.before_op(analyzer, holding=True, file=checked)
    assert documents.held["src/lib.rs"].text == "pub fn g() -> u8 { 1 }\n"
    assert documents.index(checked, None).text == "pub fn g() -> u8 { 1 }\n", \
        "the op's positions are read from the text the analyzer holds"


def test_a_key_is_judged_settled_when_its_text_is_read_not_when_the_op_ends(project, coarse_clock, a_moment_ago,
                                                                           monkeypatch):
    root, lib = project
    documents, analyzer = Documents(root), Analyzer()
    with documents.showing(analyzer, lib, "pub fn f() -> u8 { 9 }\n") as shown:
        shown.prepare()  # the disk text read a moment after its write
        _same_tick_rewrite(lib.real, "pub fn g() -> u8 { 1 }\n")
        monkeypatch.setattr(documents_module, "RACY_NS", 0)  # the op outlasted the racy window
    assert documents.held["src/lib.rs"].key is None
    documents.before_op(analyzer, holding=True)
    assert documents.held["src/lib.rs"].text == "pub fn g() -> u8 { 1 }\n"


@pytest.mark.parametrize("racy", [False, True], ids=["held after", "written a moment ago"])
def test_two_reads_of_a_file_at_once_open_it_once(project, monkeypatch, racy):
    """Two ops without content on the same file run side by side (reads): the second finds the disk
    text shown by the first and sends nothing, so the analyzer never gets a second didOpen, and the
    document is neither closed nor changed under the op still running."""
    monkeypatch.setattr(documents_module, "RACY_NS", 1 << 62 if racy else 0)
    root, lib = project
    documents = Documents(root)
    analyzer = Analyzer()
    first = documents.showing(analyzer, lib, None)
    first.__enter__()
    with documents.showing(analyzer, lib, None):
        assert [method for method, _ in analyzer.sent] == ["textDocument/didOpen"]
    assert [method for method, _ in analyzer.sent] == ["textDocument/didOpen"]  # nothing under the first
    first.__exit__(None, None, None)
    assert "src/lib.rs" in documents.held
    assert (documents.held["src/lib.rs"].key is None) is racy


class _CountedStat:
    def __init__(self, monkeypatch) -> None:
        self.calls = 0
        real = documents_module.os.stat

        def stat(path, *args, **kwargs):
            self.calls += 1
            return real(path, *args, **kwargs)

        monkeypatch.setattr(documents_module.os, "stat", stat)


def test_an_op_on_a_held_file_takes_the_sandboxs_look_instead_of_looking_again(project, monkeypatch):
    monkeypatch.setattr(documents_module, "RACY_NS", 0)
    root, lib = project
    documents, analyzer = Documents(root), Analyzer()
    documents.show_disk(analyzer, lib)
    assert "src/lib.rs" in documents.held
    stat = _CountedStat(monkeypatch)
    checked = root.file("src/lib.rs")  # the op's own file, as the envelope checks it
    documents.before_op(analyzer, holding=True, file=checked)
    documents.index(checked, None)
    assert stat.calls == 0, "the held file's check and the op's first read both use the sandbox's lstat"
    assert "src/lib.rs" in documents.held
    documents.index(checked, None)
    assert stat.calls == 1, "a second read of the same checked file looks at the disk again"


def test_the_ops_own_look_sees_a_change_made_before_it(project, monkeypatch):
    monkeypatch.setattr(documents_module, "RACY_NS", 0)
    root, lib = project
    documents, analyzer = Documents(root), Analyzer()
    documents.show_disk(analyzer, lib)
    with open(lib.real, "a", encoding="utf-8") as out:
        out.write("pub fn g() {}\n")
    checked = root.file("src/lib.rs")
    documents.before_op(analyzer, holding=True, file=checked)
    assert documents.held["src/lib.rs"].text == "pub fn f() -> u8 { 1 }\npub fn g() {}\n", "held with the new text"
    method, params = analyzer.sent[-1]
    assert method == "textDocument/didChange" and params["contentChanges"][0]["text"] == "pub fn g() {}\n"
    assert documents.index(checked, None).line_count == 3


def test_a_dropped_overlay_leaves_the_file_held_with_its_disk_text(project):
    """Closed, the file's text would come from the analyzer's loader on its own time; an op on another
    file right after could be answered for the overlay's text."""
    root, lib = project
    documents, analyzer = Documents(root), Analyzer()
    documents.update(analyzer, lib, "pub fn f() -> u8 { 2 }\npub fn g() {}\n")
    version = documents.update(analyzer, lib, None)
    assert "src/lib.rs" not in documents.overlays
    assert documents.held["src/lib.rs"].text == "pub fn f() -> u8 { 1 }\n"
    method, params = analyzer.sent[-1]
    assert method == "textDocument/didChange" and params["textDocument"]["version"] == version
    shown = "pub fn f() -> u8 { 2 }\npub fn g() {}\n"
    for change in params["contentChanges"]:  # the ranged edits turn the overlay's text into the disk's
        index = LineIndex(shown)
        start, end = (index.offset(at["line"], at["character"], analyzer.position_encoding)
                      for at in (change["range"]["start"], change["range"]["end"]))
        shown = shown[:start] + change["text"] + shown[end:]
    assert shown == "pub fn f() -> u8 { 1 }\n"


def test_a_dropped_overlay_is_closed_while_diagnostics_come_as_pushes(project):
    root, lib = project
    documents, analyzer = Documents(root), Analyzer()
    documents.before_op(analyzer, holding=False)
    documents.update(analyzer, lib, "pub fn f() -> u8 { 2 }\n")
    documents.update(analyzer, lib, None)
    assert "src/lib.rs" not in documents.held
    assert analyzer.sent[-1][0] == "textDocument/didClose"


def test_a_held_file_is_looked_at_afresh_not_through_the_check_an_earlier_op_made(project, monkeypatch):
    """The sandbox's look at a file (its `lstat`) serves the first read of the op that made it. A file
    written by the op (a rename applied to disk) is held with the check's look still on it, taken
    before the write: the next op must read the file again, not the text that look's key names."""
    root, lib = project
    documents, analyzer = Documents(root), Analyzer()
    monkeypatch.setattr(documents_module, "RACY_NS", 0)  # the text before the write: read settled, kept
    assert documents.index(root.file("src/lib.rs"), None).text == "pub fn f() -> u8 { 1 }\n"
    monkeypatch.setattr(documents_module, "RACY_NS", 1 << 62)  # the write: a moment before the next op
    checked = root.file("src/lib.rs")  # the rename's check, before it writes
    written = "pub fn f() -> u8 { 3 }\n"
    with open(lib.real, "w", encoding="utf-8") as out:
        out.write(written)
    documents.show_written(analyzer, checked, written)
    documents.before_op(analyzer, holding=True)
    assert documents.held["src/lib.rs"].text == written
    assert documents.index(root.file("src/lib.rs"), None).text == written
