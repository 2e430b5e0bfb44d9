"""The forced UTF-16 path and the push-diagnostics path, each against the real analyzer.

`FERRULE_POSITION_ENCODING=utf-16` offers only UTF-16, so every column is converted through the line's
text; `FERRULE_DIAGNOSTICS=push` leaves out pull support, so validate waits for the versioned push.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.live

BROKEN_LINE = '    let wave = "👋🏽"; let 名 = 1; let shout: u8 = 名前.len();'


def broken_text(root):
    text = (root / "src" / "text.rs").read_text()
    return text.replace('    let wave = "👋🏽"; let shout = 名前.len();', BROKEN_LINE)


def test_utf16_is_what_was_granted(utf16_session):
    assert utf16_session.init_result["position_encoding"] == "utf-16"
    assert utf16_session.init_result["quiescent"] is True


def test_utf16_type_positions_on_non_ascii_lines(utf16_session, stdcrate, at):
    text = (stdcrate / "src" / "text.rs").read_text()
    for needle, display in {"名前 = String": "let 名前: String", "shout =": "let shout: usize",
                            "名前.len": "let 名前: String"}.items():
        result = utf16_session.call("type", {"file": "src/text.rs", "position": at(text, needle)})
        assert result["display"] == display, needle


def test_utf16_diagnostic_columns_come_back_in_utf8(utf16_session, stdcrate, at):
    text = broken_text(stdcrate)
    result = utf16_session.call("validate", {"file": "src/text.rs", "content": text})
    mismatch = [d for d in result["diagnostics"] if d["code"] == "E0308"]
    assert mismatch, result["diagnostics"]
    where = at(text, "len();")
    assert {"line": mismatch[0]["line"], "character": mismatch[0]["character"]} == where
    # the UTF-16 column differs from the UTF-8 one on this line: a missed conversion would show
    line = text.splitlines()[where["line"] - 1]
    prefix = line[: line.index("len();")]
    assert len(prefix.encode("utf-16-le")) // 2 != where["character"]


def test_utf16_complete_after_cjk(utf16_session, stdcrate, at):
    text = (stdcrate / "src" / "text.rs").read_text().replace("名前.len()", "名前.le")
    result = utf16_session.call("complete", {"file": "src/text.rs", "content": text,
                                             "position": at(text, "名前.le", after=True)})
    assert "len" in [entry["name"] for entry in result["entries"]]


def test_utf16_overlay_positions_use_the_overlay_text(utf16_session, stdcrate, at):
    text = "// 🦀🦀🦀 crabs first\n" + (stdcrate / "src" / "text.rs").read_text()
    try:
        utf16_session.call("update", {"file": "src/text.rs", "content": text})
        result = utf16_session.call("type", {"file": "src/text.rs", "position": at(text, "shout =")})
        assert result["display"] == "let shout: usize"
    finally:
        utf16_session.call("update", {"file": "src/text.rs", "content": None})


def test_push_diagnostics_are_degraded_but_correct(push_session, stdcrate, at):
    assert push_session.init_result["pull_diagnostics"] is False
    text = broken_text(stdcrate)
    result = push_session.call("validate", {"file": "src/text.rs", "content": text})
    assert result["degraded"] is True
    mismatch = [d for d in result["diagnostics"] if d["code"] == "E0308"]
    assert mismatch and {"line": mismatch[0]["line"], "character": mismatch[0]["character"]} == at(text, "len();")
    clean = push_session.call("validate", {"file": "src/lib.rs"})
    assert clean["degraded"] is True and clean["diagnostics"] == []
