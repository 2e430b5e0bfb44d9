"""A file shown transiently stays open with its disk text, so the next `content` travels as a range.
The analyzer must still never answer from a disk text that is gone."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ferrule.relay import documents as documents_module
from ferrule.relay.documents import HELD_CAP
from ferrule.relay.sync import SyncSession
from testkit.live import copy_crate, live_session

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def crate(tmp_path_factory, analyzer) -> Path:
    """A copy of its own: these tests write to the disk, which sets a shared analyzer indexing."""
    return copy_crate("stdcrate", tmp_path_factory.mktemp("held"))


@pytest.fixture(scope="module")
def session(crate, private_cache) -> Iterator[SyncSession]:
    with live_session(crate) as live:
        yield live

TEXT_RS = "src/text.rs"


def restore(session: SyncSession, path: Path, saved: str) -> None:
    """Put the file back on disk, and have the analyzer read it back now: a file no op holds open is
    otherwise seen again only once the analyzer's file watcher notices, at a time of its own."""
    path.write_text(saved, encoding="utf-8")
    session.call("validate", {"file": TEXT_RS, "content": saved})  # shown, then restored from the disk


def codes(result: dict) -> list[str]:
    return [d["code"] for d in result["diagnostics"]]


def test_a_held_file_changed_on_disk_is_seen_by_its_next_op(session, crate):
    path = crate / TEXT_RS
    saved = path.read_text(encoding="utf-8")
    broken = saved.replace('let wave = "👋🏽";', 'let wave: u8 = "👋🏽";')
    try:
        assert codes(session.call("validate", {"file": TEXT_RS, "content": broken})) == ["E0308"]
        assert TEXT_RS in session.session.documents.held  # what the rest of this test is about
        path.write_text(saved + "\npub fn from_disk() -> u8 { nowhere_defined }\n", encoding="utf-8")
        assert codes(session.call("validate", {"file": TEXT_RS})) == ["E0425"]
        # and a transient show over the new disk text restores that text, not the one held before
        assert codes(session.call("validate", {"file": TEXT_RS, "content": broken})) == ["E0308"]
        assert codes(session.call("validate", {"file": TEXT_RS})) == ["E0425"]
    finally:
        restore(session, path, saved)
    assert codes(session.call("validate", {"file": TEXT_RS})) == []


def test_another_files_op_sees_the_disk_change_of_a_held_file(session, crate):
    path = crate / TEXT_RS
    saved = path.read_text(encoding="utf-8")
    lib = (crate / "src/lib.rs").read_text(encoding="utf-8")
    user = lib + "\nuse crate::text::added_on_disk;\npub fn uses_it() -> u8 { added_on_disk() }\n"
    try:
        session.call("type", {"file": TEXT_RS, "position": {"line": 1, "character": 0}, "content": saved + "\n"})
        assert "E0432" in codes(session.call("validate", {"file": "src/lib.rs", "content": user}))
        path.write_text(saved + "\npub fn added_on_disk() -> u8 { 1 }\n", encoding="utf-8")
        assert codes(session.call("validate", {"file": "src/lib.rs", "content": user})) == []
    finally:
        restore(session, path, saved)
    assert "E0432" in codes(session.call("validate", {"file": "src/lib.rs", "content": user}))


def test_an_overlay_set_on_a_held_file_and_dropped_leaves_the_disk_text(session, crate):
    saved = (crate / TEXT_RS).read_text(encoding="utf-8")
    session.call("validate", {"file": TEXT_RS, "content": saved + "\n"})
    try:
        session.call("update", {"file": TEXT_RS, "content": saved + "\npub fn f() -> u8 { gone }\n"})
        assert codes(session.call("validate", {"file": TEXT_RS})) == ["E0425"]
        assert TEXT_RS not in session.session.documents.held
    finally:
        session.call("update", {"file": TEXT_RS, "content": None})
    assert codes(session.call("validate", {"file": TEXT_RS})) == []


def test_another_files_op_right_after_an_overlay_is_dropped_sees_the_disk(session, crate):
    """The dropped overlay declared a function the disk does not have: the next op on another file
    must not be answered for the overlay's text."""
    saved = (crate / TEXT_RS).read_text(encoding="utf-8")
    lib = (crate / "src/lib.rs").read_text(encoding="utf-8")
    user = lib + "\nuse crate::text::only_in_the_overlay;\npub fn uses_it() -> u8 { only_in_the_overlay() }\n"
    session.call("update", {"file": TEXT_RS, "content": saved + "\npub fn only_in_the_overlay() -> u8 { 1 }\n"})
    try:
        assert codes(session.call("validate", {"file": "src/lib.rs", "content": user})) == []
    finally:
        session.call("update", {"file": TEXT_RS, "content": None})
    assert "E0432" in codes(session.call("validate", {"file": "src/lib.rs", "content": user}))
    assert session.session.documents.held[TEXT_RS].text == saved


def test_past_the_cap_the_oldest_held_file_is_closed(session, crate, monkeypatch):
    monkeypatch.setattr(documents_module, "RACY_NS", 0)  # the files are written a moment before their show
    made = []
    try:
        for n in range(HELD_CAP + 2):
            rel = f"src/held_{n}.rs"
            (crate / rel).write_text(f"pub fn f{n}() -> u8 {{ {n} }}\n", encoding="utf-8")
            made.append(crate / rel)
            session.call("validate", {"file": rel, "content": f"pub fn f{n}() -> u8 {{ {n} + 1 }}\n"})
        held = session.session.documents.held
        assert len(held) == HELD_CAP and "src/held_0.rs" not in held and f"src/held_{HELD_CAP + 1}.rs" in held
    finally:
        for path in made:
            os.unlink(path)


def test_an_op_right_after_a_write_answers_for_the_written_text(session, crate):
    """No op held the file: the analyzer's own copy follows the disk through its file watcher, on a
    time of its own. An op must still answer for the text on disk when it runs, every time."""
    path = crate / TEXT_RS
    saved = path.read_text(encoding="utf-8")
    broken = saved + "\npub fn just_written() -> u32 { \"not a number\" }\n"
    answers = []
    try:
        for _ in range(15):  # the watcher lost this race about one write in ten before
            path.write_text(broken, encoding="utf-8")
            answers.append(codes(session.call("validate", {"file": TEXT_RS})))
            path.write_text(saved, encoding="utf-8")
            answers.append(codes(session.call("validate", {"file": TEXT_RS})))
    finally:
        restore(session, path, saved)
    assert answers == [["E0308"], []] * 15


def test_navigation_right_after_a_write_answers_for_the_written_text(session, crate):
    """The same race for the ops that ask where things are (here a definition and a file's outline):
    their answers must be for the text on disk when they run, every time. Before, the analyzer's
    stale copy answered the wrong line, or refused a position past its end."""
    path = crate / TEXT_RS
    saved = path.read_text(encoding="utf-8")
    definition, caller = "pub fn written_here() -> u32 { 1 }", "pub fn calls_it() -> u32 { written_here() }"
    answers, expected = [], []
    try:
        for round_ in range(10):  # the definition moves three lines down and back between writes
            text = saved + "\n" * (1 + 3 * (round_ % 2)) + f"{definition}\n\n{caller}\n"
            path.write_text(text, encoding="utf-8")
            lines = text.split("\n")
            defined_at, called_at = lines.index(definition) + 1, lines.index(caller) + 1
            use = {"line": called_at, "character": len(caller) - len("written_here() }")}
            found = session.call("definition", {"file": TEXT_RS, "position": use})["locations"]
            outline = session.call("symbols", {"file": TEXT_RS})["symbols"]
            answers.append(([loc["line"] for loc in found],
                            [entry["line"] for entry in outline if entry["name"] == "written_here"]))
            expected.append(([defined_at], [defined_at]))
    finally:
        restore(session, path, saved)
    assert answers == expected
