"""The disk text's line index is kept between ops and follows the file when it changes on disk."""

from __future__ import annotations

import os

from ferrule.project import ProjectRoot
from ferrule.relay import documents as documents_module
from ferrule.relay.documents import Documents


def test_the_disk_index_is_reused_until_the_file_changes(tmp_path, monkeypatch):
    monkeypatch.setattr(documents_module, "RACY_NS", 0)  # the file is written a moment before it is read
    (tmp_path / "src").mkdir()
    source = tmp_path / "src" / "lib.rs"
    source.write_text("fn a() {}\n")
    root = ProjectRoot(tmp_path)
    documents, file = Documents(root), root.file("src/lib.rs")
    first = documents.index(file, None)
    assert documents.index(file, None) is first, "an unchanged file is not read and indexed again"
    source.write_text("fn a() {}\nfn b() {}\nfn c() {}\n")
    stamp = os.stat(source)
    os.utime(source, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1))  # a change the clock may not show
    changed = documents.index(file, None)
    assert changed is not first and changed.line_count == first.line_count + 2
    assert documents.index(file, "fn x() {}\n").line_count == first.line_count, "content wins over the disk"


def test_a_text_read_a_moment_after_its_change_is_read_again(tmp_path):
    """Its key may not show a second change within the same tick of the filesystem's clock."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.rs").write_text("fn a() {}\n")
    root = ProjectRoot(tmp_path)
    documents, file = Documents(root), root.file("src/lib.rs")
    first = documents.index(file, None)
    again = documents.index(file, None)
    assert again is not first and again.text == first.text
