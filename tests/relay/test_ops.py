"""Every op against the real rust-analyzer over the std fixture crate (one shared session)."""

from __future__ import annotations

import os

import pytest

from ferrule.project import BadRequest
from ferrule.relay.sync import SyncSession
from testkit.live import copy_crate

pytestmark = pytest.mark.live


def text_of(root, rel):
    return (root / rel).read_text()


def test_init_reports_version_encoding_and_quiescence(stdcrate_session):
    result = stdcrate_session.init_result
    assert set(result) == {"ra_version", "position_encoding", "pull_diagnostics", "quiescent"}
    assert result["ra_version"].startswith("rust-analyzer ")
    assert result["position_encoding"] == "utf-8"
    assert result["pull_diagnostics"] is True
    assert result["quiescent"] is True


def test_type_of_a_function_with_its_docs(stdcrate_session, stdcrate, at):
    lib = text_of(stdcrate, "src/lib.rs")
    result = stdcrate_session.call("type", {"file": "src/lib.rs", "position": at(lib, "word_counts")})
    assert result == {
        "display": "pub fn word_counts(text: &str) -> HashMap<String, usize>",
        "documentation": "Counts each word of text.",
    }


def test_type_of_std_types_in_locals(stdcrate_session, stdcrate, at):
    lib = text_of(stdcrate, "src/lib.rs")
    found = stdcrate_session.call("type", {"file": "src/lib.rs", "position": at(lib, "found =")})
    assert found["display"] == "let found: Option<i32>"
    port = stdcrate_session.call("type", {"file": "src/lib.rs", "position": at(lib, "port =")})
    assert port["display"] == "let port: Result<u16, ParseIntError>"


def test_type_on_lines_with_emoji_and_cjk(stdcrate_session, stdcrate, at):
    text = text_of(stdcrate, "src/text.rs")
    cases = {"名前 = String": "let 名前: String", "shout =": "let shout: usize", "wave =": "let wave: &str"}
    for needle, display in cases.items():
        position = at(text, needle)
        assert stdcrate_session.call("type", {"file": "src/text.rs", "position": position})["display"] == display
    # `shout` sits after a 4-byte emoji and a modifier on its line: its UTF-8 column is not its char index
    line = text.splitlines()[at(text, "shout =")["line"] - 1]
    assert at(text, "shout =")["character"] == len(line[: line.index("shout")].encode())
    assert at(text, "shout =")["character"] != line.index("shout")


def test_type_where_there_is_nothing_is_empty(stdcrate_session):
    result = stdcrate_session.call("type", {"file": "src/lib.rs", "position": {"line": 2, "character": 0}})
    assert result == {"display": "", "documentation": ""}


def test_validate_clean_file(stdcrate_session):
    result = stdcrate_session.call("validate", {"file": "src/lib.rs"})
    assert result["diagnostics"] == []
    assert result["markers"] == []
    assert result["degraded"] is False
    for key in ("facts", "conform_findings", "advice"):
        assert isinstance(result[key], list)


def test_validate_transient_content_then_disk_again(stdcrate_session, stdcrate, at):
    broken = text_of(stdcrate, "src/text.rs").replace('let wave = "👋🏽";', 'let wave: u8 = "👋🏽";')
    result = stdcrate_session.call("validate", {"file": "src/text.rs", "content": broken})
    [diagnostic] = result["diagnostics"]
    assert diagnostic["code"] == "E0308" and diagnostic["category"] == "error"
    assert "expected u8" in diagnostic["message"]
    assert {"line": diagnostic["line"], "character": diagnostic["character"]} == at(broken, '"👋🏽"')
    # the content was transient: the disk text is what the analyzer sees again
    assert stdcrate_session.call("validate", {"file": "src/text.rs"})["diagnostics"] == []


def test_back_to_back_ops_in_one_loop_turn_see_the_restored_text(stdcrate_session, stdcrate, at):
    """The restore of a transient op is written after its answer; an op started at once after it (in
    the same event-loop turn, before that write) must still see the disk text, not the transient one."""
    text = text_of(stdcrate, "src/text.rs")
    broken = text.replace('let wave = "👋🏽";', 'let wave: u8 = "👋🏽";')
    session = stdcrate_session.session

    async def back_to_back():
        answers = []
        for _ in range(3):
            answers.append(await session.call("validate", {"file": "src/text.rs", "content": broken}))
            answers.append(await session.call("validate", {"file": "src/text.rs"}))
            answers.append(await session.call("type", {"file": "src/text.rs", "position": at(text, "wave =")}))
        return answers

    answers = stdcrate_session._run(back_to_back())
    for transient, disk, hover in zip(answers[0::3], answers[1::3], answers[2::3], strict=True):
        assert [d["code"] for d in transient["diagnostics"]] == ["E0308"]
        assert disk["diagnostics"] == []
        assert hover["display"] == "let wave: &str"


def test_update_is_persistent_and_transient_content_restores_it(stdcrate_session, stdcrate):
    lib = text_of(stdcrate, "src/lib.rs")
    broken = lib + "\npub fn oops() -> u8 { nothing_here }\n"
    try:
        first = stdcrate_session.call("update", {"file": "src/lib.rs", "content": broken})["version"]
        codes = [d["code"] for d in stdcrate_session.call("validate", {"file": "src/lib.rs"})["diagnostics"]]
        assert codes == ["E0425"]
        # transient good text: clean for that op only
        assert stdcrate_session.call("validate", {"file": "src/lib.rs", "content": lib})["diagnostics"] == []
        codes = [d["code"] for d in stdcrate_session.call("validate", {"file": "src/lib.rs"})["diagnostics"]]
        assert codes == ["E0425"], "the overlay must come back after transient content"
        second = stdcrate_session.call("update", {"file": "src/lib.rs", "content": broken + "\n"})["version"]
        assert second > first
    finally:
        closed = stdcrate_session.call("update", {"file": "src/lib.rs", "content": None})
    assert closed["version"] > second and closed["dropped"] is True
    assert stdcrate_session.call("validate", {"file": "src/lib.rs"})["diagnostics"] == []
    again = stdcrate_session.call("update", {"file": "src/lib.rs", "content": None})
    assert again["dropped"] is False, "there was no overlay left to drop"
    with pytest.raises(BadRequest, match="src is a directory"):
        stdcrate_session.call("update", {"file": "src", "content": "fn f() {}"})


def test_overlay_of_one_file_is_seen_by_another(stdcrate_session, stdcrate, at):
    lib = text_of(stdcrate, "src/lib.rs")
    circle = text_of(stdcrate, "src/shapes/circle.rs")
    uses = circle + "\npub fn twice() -> u64 { crate::UserId::new(1).doubled() }\n"
    try:
        stdcrate_session.call("update", {"file": "src/lib.rs", "content": lib.replace(
            "    pub fn raw(&self)", "    pub fn doubled(&self) -> u64 {\n        self.0 * 2\n    }\n\n    pub fn raw(&self)")})
        result = stdcrate_session.call("validate", {"file": "src/shapes/circle.rs", "content": uses})
        assert result["diagnostics"] == []
    finally:
        stdcrate_session.call("update", {"file": "src/lib.rs", "content": None})
    result = stdcrate_session.call("validate", {"file": "src/shapes/circle.rs", "content": uses})
    assert [d["code"] for d in result["diagnostics"]] == ["E0599"]


def test_complete_flags_unwrap_on_option_and_result(stdcrate_session, stdcrate, at):
    lib = text_of(stdcrate, "src/lib.rs")
    probe = lib.replace("    found\n}", "    found.unw\n}").replace("    port\n}", "    port.exp\n}")
    option = stdcrate_session.call("complete", {"file": "src/lib.rs", "content": probe,
                                                "position": at(probe, "found.unw", after=True)})
    by_name = {entry["name"]: entry for entry in option["entries"]}
    assert by_name["unwrap"]["unsafe"] is True
    assert by_name["unwrap"]["kind"] == "method"
    assert "-> T" in by_name["unwrap"]["type_text"]
    assert by_name["unwrap_or"]["unsafe"] is False
    result = stdcrate_session.call("complete", {"file": "src/lib.rs", "content": probe,
                                                "position": at(probe, "port.exp", after=True), "prefix": "expect"})
    names = [entry["name"] for entry in result["entries"]]
    assert "expect" in names and all(name.startswith("expect") for name in names)
    assert {entry["name"]: entry["unsafe"] for entry in result["entries"]}["expect"] is True


def test_complete_unwrap_of_own_type_is_not_flagged(stdcrate_session, stdcrate, at):
    lib = text_of(stdcrate, "src/lib.rs") + (
        "\npub struct Wrapper;\nimpl Wrapper {\n    pub fn unwrap(self) -> u8 {\n        0\n    }\n}\n"
        "pub fn use_it() -> u8 {\n    Wrapper.unw\n}\n")
    result = stdcrate_session.call("complete", {"file": "src/lib.rs", "content": lib,
                                                "position": at(lib, "Wrapper.unw", after=True)})
    assert {entry["name"]: entry["unsafe"] for entry in result["entries"]}["unwrap"] is False


def test_complete_reads_the_docs_of_an_unwrap_its_siblings_leave_undecided(stdcrate_session, stdcrate, at):
    """No Option-only sibling decides it, so the entry's docs are resolved from the analyzer (the item
    sent back as it came): these say what std's `Option::unwrap` says, so the entry is flagged."""
    lib = text_of(stdcrate, "src/lib.rs") + (
        "\npub struct Maybe(Option<u8>);\nimpl Maybe {\n"
        "    /// Returns the contained [`Some`] value, consuming the `self` value.\n"
        "    pub fn unwrap(self) -> u8 {\n        self.0.unwrap_or(0)\n    }\n}\n"
        "pub fn use_maybe(m: Maybe) -> u8 {\n    m.unw\n}\n")
    result = stdcrate_session.call("complete", {"file": "src/lib.rs", "content": lib,
                                                "position": at(lib, "m.unw", after=True)})
    assert {entry["name"]: entry["unsafe"] for entry in result["entries"]}["unwrap"] is True


def test_complete_in_a_test_file_is_never_unsafe(stdcrate_session, at):
    text = "use stdcrate::first_even;\n\n#[test]\nfn finds() {\n    first_even(&[2]).unw\n}\n"
    result = stdcrate_session.call("complete", {"file": "tests/finds.rs", "content": text,
                                                "position": at(text, ".unw", after=True)})
    entries = {entry["name"]: entry for entry in result["entries"]}
    assert "unwrap" in entries and entries["unwrap"]["unsafe"] is False


def test_complete_prefix_filters_and_max_caps(stdcrate_session, stdcrate, at):
    lib = text_of(stdcrate, "src/lib.rs").replace("    found\n}", "    found.\n}")
    position = at(lib, "found.", after=True)
    everything = stdcrate_session.call("complete", {"file": "src/lib.rs", "content": lib, "position": position,
                                                    "max": 1000})["entries"]
    assert len(everything) > 50
    default = stdcrate_session.call("complete", {"file": "src/lib.rs", "content": lib, "position": position})
    assert len(default["entries"]) == 50
    capped = stdcrate_session.call("complete", {"file": "src/lib.rs", "content": lib, "position": position,
                                                "prefix": "is_", "max": 2})["entries"]
    assert len(capped) == 2 and all(entry["name"].startswith("is_") for entry in capped)
    assert set(capped[0]) == {"name", "kind", "type_text", "unsafe"}


def test_completion_and_scope_names_are_the_names_code_writes(stdcrate_session, stdcrate, at):
    """rust-analyzer runs a name's doc aliases into its filter text (`and_thenflatmap`, `Veclistvector`)
    and notes them in its label (`and_then(alias flatmap)`): entries carry the name itself."""
    lib = text_of(stdcrate, "src/lib.rs").replace("    found\n}", "    found.\n}")
    entries = stdcrate_session.call("complete", {"file": "src/lib.rs", "content": lib, "max": 1000,
                                                 "position": at(lib, "found.", after=True)})["entries"]
    names = {entry["name"] for entry in entries}
    assert {"and_then", "map", "unwrap"} <= names
    assert not {"and_thenflatmap"} & names and all("(" not in name for name in names)
    symbols = {symbol["name"] for symbol in stdcrate_session.call("scope", {"file": "src/lib.rs"})["symbols"]}
    assert {"Vec", "HashMap"} <= symbols and "Veclistvector" not in symbols


def test_complete_keeps_the_analyzers_best_entries_under_the_cap(stdcrate_session, stdcrate, at):
    """Entries come in the analyzer's order of preference (sortText), so a small `max` keeps the best:
    in a function body the file's own names and the locals rank above the keywords and the prelude's
    traits and types. Where the prelude's constructors (`Some`, `Ok`, ...) rank is each release's call."""
    lib = text_of(stdcrate, "src/lib.rs")
    probe = lib.replace("    counts\n}", "    c\n}")
    position = at(probe, "    c\n}", after=False)
    position["character"] += 5
    everything = stdcrate_session.call("complete", {"file": "src/lib.rs", "content": probe, "position": position,
                                                    "max": 1000})["entries"]
    top = stdcrate_session.call("complete", {"file": "src/lib.rs", "content": probe, "position": position,
                                             "max": 3})["entries"]
    assert [entry["name"] for entry in top] == [entry["name"] for entry in everything[:3]]
    ranked = [(entry["name"], entry["kind"]) for entry in everything]
    own = [("HashMap", "struct"), ("counts", "variable"), ("text", "variable")]
    assert set(own) <= set(ranked), "the file's names are offered"
    below = [i for i, (name, kind) in enumerate(ranked) if kind == "keyword"
             or (kind in {"interface", "struct", "enum", "module"} and (name, kind) not in own)]
    assert below and max(ranked.index(entry) for entry in own) < min(below), (
        f"the file's names rank above the keywords and the prelude's traits and types: {ranked[:12]}")
    assert not any(entry["name"].startswith("<") for entry in everything), "no internal names"


def test_complete_unwrap_inside_test_code_is_not_flagged(stdcrate_session, stdcrate, at):
    """The same receiver in the same domain file: flagged in domain code, not in a #[cfg(test)] module's
    #[test] function nor in a helper of that module."""
    lib = text_of(stdcrate, "src/lib.rs") + (
        "\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
        "    fn helper() -> i32 {\n        first_even(&[2]).unw\n    }\n\n"
        "    #[test]\n    fn finds() {\n        first_even(&[4]).unw\n    }\n}\n")
    probe = lib.replace("    found\n}", "    found.unw\n}")

    def unwrap_flag(needle: str) -> bool:
        result = stdcrate_session.call("complete", {"file": "src/lib.rs", "content": probe,
                                                    "position": at(probe, needle, after=True)})
        return {entry["name"]: entry["unsafe"] for entry in result["entries"]}["unwrap"]

    assert unwrap_flag("found.unw") is True
    assert unwrap_flag("first_even(&[2]).unw") is False
    assert unwrap_flag("first_even(&[4]).unw") is False


def test_complete_after_cjk_receiver(stdcrate_session, stdcrate, at):
    text = text_of(stdcrate, "src/text.rs").replace("名前.len()", "名前.le")
    result = stdcrate_session.call("complete", {"file": "src/text.rs", "content": text,
                                                "position": at(text, "名前.le", after=True)})
    assert "len" in [entry["name"] for entry in result["entries"]]


def test_scope_at_top_level(stdcrate_session):
    result = stdcrate_session.call("scope", {"file": "src/shapes/circle.rs"})
    assert result["cell"] == "crate::shapes::circle"
    assert result["seam_file"] == "src/shapes/mod.rs"
    names = {symbol["name"]: symbol for symbol in result["symbols"]}
    assert names["Circle"]["kind"] == "struct"
    assert "Option" in names and "String" in names, "the std prelude is in scope"
    assert not any(symbol["kind"] in ("keyword", "snippet") for symbol in result["symbols"])
    assert not any("probe" in name for name in names)
    assert result["branded"] == []


def test_scope_lists_names_not_the_analyzers_internal_ones(stdcrate_session, stdcrate, at):
    """Inside a `for` loop rust-analyzer offers its desugared iterator as `<ra@gennew>N`: not a name
    anyone can write. Enum variants come as `Some`, not as their filter text `Some()`."""
    lib = text_of(stdcrate, "src/lib.rs")
    position = at(lib, "        *counts.entry")
    result = stdcrate_session.call("scope", {"file": "src/lib.rs", "position": position})
    names = [symbol["name"] for symbol in result["symbols"]]
    assert "counts" in names and "word" in names
    assert not [name for name in names if "<" in name or "@" in name]
    assert "Some" in names and "Ok" in names and "Some()" not in names


def test_scope_at_a_position_sees_locals(stdcrate_session, stdcrate, at):
    lib = text_of(stdcrate, "src/lib.rs")
    position = at(lib, "    counts\n}")
    position["character"] += 4
    result = stdcrate_session.call("scope", {"file": "src/lib.rs", "position": position})
    names = {symbol["name"]: symbol for symbol in result["symbols"]}
    assert names["counts"]["kind"] == "variable"
    assert names["counts"]["type_text"].startswith("HashMap<String, usize")
    assert ("text", "variable") in {(s["name"], s["kind"]) for s in result["symbols"]}, "parameters are in scope"
    assert result["cell"] == "crate" and result["seam_file"] == "src/lib.rs"


def test_scope_branded_newtypes(stdcrate_session):
    lib = stdcrate_session.call("scope", {"file": "src/lib.rs"})
    assert [(b["name"], b["heuristic"]) for b in lib["branded"]] == [("UserId", True)]
    shapes = stdcrate_session.call("scope", {"file": "src/shapes/mod.rs"})
    assert shapes["cell"] == "crate::shapes" and shapes["seam_file"] == "src/shapes/mod.rs"
    assert [b["name"] for b in shapes["branded"]] == ["Side"]


@pytest.mark.parametrize("bad", ["../outside.rs", "/etc/passwd", "src/../../outside.rs", "src\\lib.rs"])
def test_paths_outside_the_root_are_refused(stdcrate_session, bad):
    for op, params in [("validate", {}), ("type", {"position": {"line": 1, "character": 0}}),
                       ("update", {"content": "x"})]:
        with pytest.raises(BadRequest) as caught:
            stdcrate_session.call(op, {"file": bad, **params})
        assert caught.value.kind == "protocol"


def test_symlink_out_of_the_root_is_refused(tmp_path, analyzer):
    # A crate of its own: a file that appears and vanishes under the shared analyzer's watched folders
    # can make rust-analyzer 1.96 panic at a later request (its VFS loses the file's source root).
    crate = copy_crate("stdcrate", tmp_path / "own")
    secret = tmp_path / "secret.rs"
    secret.write_text("pub fn secret() {}\n")
    os.symlink(secret, crate / "src" / "leak.rs")
    with SyncSession(crate, analyzer=analyzer.path) as session:
        with pytest.raises(BadRequest, match="outside the project root"):
            session.call("validate", {"file": "src/leak.rs"})
        assert session.session.client is None, "refused before any analyzer started: nothing was read"


def test_bad_params_are_protocol_errors(stdcrate_session):
    cases = [
        ("type", {"file": "src/lib.rs"}),
        ("type", {"file": "src/lib.rs", "position": {"line": 0, "character": 0}}),
        ("complete", {"file": "src/lib.rs", "position": {"line": 1, "character": 0}, "max": -1}),
        ("update", {"file": "src/lib.rs"}),
        ("validate", {"file": "src/missing.rs"}),
        ("validate", {"file": "src/lib.rs", "timeout_ms": "soon"}),
        ("frobnicate", {}),
    ]
    for op, params in cases:
        with pytest.raises(BadRequest) as caught:
            stdcrate_session.call(op, params)
        assert caught.value.message and caught.value.recipe
    with pytest.raises(BadRequest) as caught:
        stdcrate_session.call("frobnicate", {})
    assert "validate" in caught.value.recipe


def test_positions_outside_the_text_are_refused_in_the_relays_terms(stdcrate_session, stdcrate):
    lib = text_of(stdcrate, "src/lib.rs")
    lines = lib.count("\n")  # the file ends with a newline
    text = text_of(stdcrate, "src/text.rs")
    wave_line = text.splitlines()[4]  # `let wave = "👋🏽"; ...`: its length in bytes is not in characters
    cases = [
        ("type", {"file": "src/lib.rs", "position": {"line": 120, "character": 0}},
         f"line 120 is past the end of src/lib.rs ({lines} lines)"),
        ("complete", {"file": "src/lib.rs", "position": {"line": lines + 5, "character": 0}},
         f"line {lines + 5} is past the end of src/lib.rs ({lines} lines)"),
        ("scope", {"file": "src/lib.rs", "position": {"line": 999, "character": 2}},
         f"line 999 is past the end of src/lib.rs ({lines} lines)"),
        ("type", {"file": "src/text.rs", "position": {"line": 5, "character": 200}},
         f"character 200 is past the end of line 5 of src/text.rs ({len(wave_line.encode())} bytes)"),
        ("type", {"file": "src/lib.rs", "position": {"line": 3, "character": 1}, "content": "a\n\n\n"},
         "character 1 is past the end of line 3 of src/lib.rs (0 bytes)"),
    ]
    for op, params, message in cases:
        with pytest.raises(BadRequest) as caught:
            stdcrate_session.call(op, params)
        assert caught.value.kind == "protocol" and caught.value.message == message, (op, params)
        assert "1-based" in caught.value.recipe
    # the end of the last line, and the empty line after the final newline, are inside the text
    last = lib.splitlines()[-1]
    stdcrate_session.call("type", {"file": "src/lib.rs", "position": {"line": lines, "character": len(last)}})
    stdcrate_session.call("type", {"file": "src/lib.rs", "position": {"line": lines + 1, "character": 0}})


def test_scope_lists_the_files_own_then_imports_then_the_prelude_and_caps(stdcrate_session):
    everything = stdcrate_session.call("scope", {"file": "src/lib.rs", "max": 10_000})
    names = [s["name"] for s in everything["symbols"]]
    assert everything["more"] == 0 and len(names) > 100, "std's prelude alone is over a hundred names"
    own = ["UserId", "Meters", "word_counts", "first_even", "parse_port", "shapes", "text"]
    last_own = max(names.index(name) for name in own)
    assert last_own < len(own), names[:20]  # the file's own items lead
    assert names.index("HashMap") == len(own), "then what the file imports"
    assert names.index("println!") > names.index("HashMap")  # the prelude last
    capped = stdcrate_session.call("scope", {"file": "src/lib.rs"})  # the default cap: 100
    assert [s["name"] for s in capped["symbols"]] == names[:100]
    assert capped["more"] == len(names) - 100
    few = stdcrate_session.call("scope", {"file": "src/lib.rs", "max": 3.0})
    assert len(few["symbols"]) == 3 and few["more"] == len(names) - 3
