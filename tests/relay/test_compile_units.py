"""The shadow check's pieces without cargo: rustc's spans mapped to UTF-8 byte columns, and the mirror
following the disk and the overlays."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ferrule.project import ProjectRoot
from ferrule.relay.cache import project_home
from ferrule.relay.compile.cargo import group_running
from ferrule.relay.compile.mirror import Mirror
from ferrule.relay.compile.spans import RELATED_CHARS, Suggestion, byte_column, diagnostics, suggestions
from testkit.waiting import wait_for


def test_a_character_column_becomes_the_byte_column_of_the_line():
    line = 'let s = "🦀漢字"; let n = v.len();'
    column = line.index("v.len") + 1  # rustc: 1-based characters
    assert byte_column(line, column) == len(line[:line.index("v.len")].encode()) == column - 1 + 3 + 2 * 2
    assert byte_column("", 1) == 0


def _message(file_name: str, line: int, column: int, *, code: str | None = "E0382", level: str = "error",
             expansion: dict | None = None) -> dict:
    span = {"file_name": file_name, "line_start": line, "column_start": column, "is_primary": True,
            "expansion": expansion}
    return {"reason": "compiler-message", "package_id": "x",
            "message": {"level": level, "message": "borrow of moved value: `v`",
                        "code": code and {"code": code}, "spans": [span]}}


def test_rustc_messages_are_located_in_the_project_once_each(tmp_path):
    text = {"src/lib.rs": ["fn main() {", '    let s = "é漢"; v.len();']}
    column = text["src/lib.rs"][1].index("v.len") + 1

    def line_of(rel: str, line: int) -> str:
        return text[rel][line - 1]

    tree = str(tmp_path)
    inside_macro = _message("/registry/some-dep/src/macros.rs", 9, 1,
                            expansion={"span": {"file_name": "src/lib.rs", "line_start": 2, "column_start": 5}})
    messages = [
        _message("src/lib.rs", 2, column),
        _message(f"{tree}/src/lib.rs", 2, column),  # the same error, reported for the lib test target
        inside_macro,
        {"reason": "compiler-artifact"},
        _message("/registry/some-dep/src/lib.rs", 1, 1),  # outside the project: not ours
        {"reason": "compiler-message", "message": {"level": "error", "message": "aborting", "spans": []}},
    ]
    found = diagnostics(messages, tree, line_of)
    assert [(d["file"], d["line"], d["character"], d["source"]) for d in found] == [
        ("src/lib.rs", 2, len('    let s = "é漢"; '.encode()), "rustc"),
        ("src/lib.rs", 2, 4, "rustc"),
    ]


def _span(file_name: str, line: int, label: str | None = None, *, primary: bool = False,
          replacement: str | None = None) -> dict:
    return {"file_name": file_name, "line_start": line, "column_start": 5, "is_primary": primary, "label": label,
            "suggested_replacement": replacement, "expansion": None}


def _child(level: str, message: str, *spans: dict) -> dict:
    return {"level": level, "message": message, "spans": list(spans), "children": []}


def _suggesting(file_name: str, line: int, column: int, end_column: int, text: str, applicability: str) -> dict:
    return {**_span(file_name, line, replacement=text), "column_start": column, "line_end": line,
            "column_end": end_column, "suggestion_applicability": applicability}


def _rustc(level: str, code: str, spans: list[dict], children: list[dict]) -> dict:
    return {"reason": "compiler-message",
            "message": {"level": level, "message": "headline", "code": {"code": code}, "spans": spans,
                        "children": children}}


def test_rustcs_other_places_notes_and_help_come_with_its_diagnostic(tmp_path):
    """As rustc 1.95 words them (cargo check --message-format=json), cut to what helps a fix."""
    tree = str(tmp_path)
    moved = _rustc("error", "E0382", [_span("src/wire.rs", 25, "value moved here"),
                                       _span("src/wire.rs", 26, "value used here after move", primary=True),
                                       _span("src/lib.rs", 3, "defined here"),
                                       _span("/rustc/library/alloc/src/vec/mod.rs", 400, "in std: not shown")],
                   [_child("note", "move occurs because `frame.body` has type `Vec<u8>`, which does not\n"
                                   "implement the `Copy` trait")])
    unused = _rustc("warning", "unused_variables", [_span("src/wire.rs", 26, primary=True)],
                    [_child("note", "`#[warn(unused_variables)]` (part of `#[warn(unused)]`) on by default"),
                     _child("note", "the lint level is defined here"),
                     _child("note", "`-D unused-variables` implied by `-D warnings`"),
                     _child("note", "`#[deny(unused_variables)]` implied by `#[deny(warnings)]`"),
                     _child("help", "if this is intentional, prefix it with an underscore",
                            _span("src/wire.rs", 26, replacement="_again"))])
    lifetime = _rustc("error", "E0106", [_span("src/more.rs", 9, "expected named lifetime parameter", primary=True)],
                      [_child("help", "consider introducing a named lifetime parameter",
                              *(_suggesting("src/more.rs", 9, column, column, text, "MaybeIncorrect")
                                for column, text in ((15, "<'a>"), (20, "'a "), (29, "'a "), (38, "'a "))))])
    arguments = _rustc("error", "E0061", [_span("src/more.rs", 22, primary=True)],
                       [_child("note", "function defined here", _span("src/more.rs", 17)),
                        _child("note", "method defined here", _span("src/lib.rs", 4)),
                        _child("note", "required by a bound in `f`", _span("/rustc/library/core/src/fmt.rs", 9))])
    chatty = _rustc("error", "E0277", [_span("src/more.rs", 18, primary=True)],
                    [_child("note", "x" * 500)] + [_child("help", f"help {n}") for n in range(6)])
    found = diagnostics([moved, unused, lifetime, arguments, chatty], tree, lambda rel, line: "")
    assert [d.get("related") for d in found] == [
        ["line 25: value moved here", "src/lib.rs line 3: defined here",
         "note: move occurs because `frame.body` has type `Vec<u8>`, which does not implement the `Copy` trait"],
        ["help: if this is intentional, prefix it with an underscore: `_again`"],
        ["help: consider introducing a named lifetime parameter: `<'a>` and 3 more edits"],
        ["note: function defined here: line 17", "note: method defined here: src/lib.rs line 4",
         "note: required by a bound in `f`"],  # a place outside the project is not named
        ["note: " + "x" * (RELATED_CHARS - 7) + "…", "help: help 0", "help: help 1", "help: help 2"],
    ]
    assert all(len(line) <= RELATED_CHARS for d in found for line in d["related"])
    plain = diagnostics([_rustc("error", "E0599", [_span("src/a.rs", 1, primary=True)], [])], tree, lambda r, n: "")
    assert "related" not in plain[0]


def test_a_suggestion_the_help_already_quotes_is_not_repeated(tmp_path):
    missing = _rustc("error", "E0046", [_span("src/lib.rs", 5, primary=True)], [
        _child("help", "implement the missing item: `fn price(&self) -> u64 { todo!() }`",
               _suggesting("src/lib.rs", 5, 1, 1, "fn price(&self) -> u64 { todo!() }\n", "HasPlaceholders"))])
    [found] = diagnostics([missing], str(tmp_path), lambda rel, line: "")
    assert found["related"] == ["help: implement the missing item: `fn price(&self) -> u64 { todo!() }`"]


def test_rustcs_suggested_fixes_are_edits_at_byte_columns_of_the_projects_files(tmp_path):
    tree = str(tmp_path)
    text = {"src/lib.rs": ['pub fn f() -> usize { let s = "é"; let v = vec![s]; let w = v; v.len() + w.len() }'],
            "src/key.rs": ["pub struct Key(u8);"]}
    line = text["src/lib.rs"][0]
    after_v = line.index("v.len") + 2  # rustc: 1-based characters, the `.len` after `v`
    clone = _rustc("error", "E0382", [_span("src/lib.rs", 1, primary=True)], [
        _child("help", "consider cloning the value if the performance cost is acceptable",
               _suggesting("src/lib.rs", 1, after_v, after_v, ".clone()", "MachineApplicable"))])
    derive = _rustc("error", "E0277", [_span("src/lib.rs", 1, primary=True)], [
        _child("help", "consider annotating `Key` with `#[derive(Hash)]`",
               _suggesting("src/key.rs", 1, 1, 1, "#[derive(Hash)]\n", "MaybeIncorrect"))])
    unsure = _rustc("error", "E0308", [_span("src/lib.rs", 1, primary=True)], [
        _child("help", "try", _suggesting("src/lib.rs", 1, 1, 3, "/* value */", "HasPlaceholders"))])
    outside = _rustc("error", "E0599", [_span("src/lib.rs", 1, primary=True)], [
        _child("help", "in std", _suggesting("/rustc/library/core/src/lib.rs", 1, 1, 1, "x", "MachineApplicable"))])
    imports = _rustc("error", "E0412", [_span("src/lib.rs", 1, primary=True)], [
        _child("help", "consider importing one of these items",
               *(_suggesting("src/lib.rs", 1, 1, 1, f"use {path};\n", "MaybeIncorrect")
                 for path in ("std::fmt::Result", "std::io::Result")))])
    found = suggestions([clone, clone, derive, unsure, outside, imports], tree, lambda rel, n: text[rel][n - 1])
    byte = len(line[:after_v - 1].encode())
    assert found == [
        Suggestion("src/lib.rs", 1, "E0382", "consider cloning the value if the performance cost is acceptable: "
                   "`.clone()`", (("src/lib.rs", 1, byte, 1, byte, ".clone()"),)),
        Suggestion("src/lib.rs", 1, "E0277", "consider annotating `Key` with `#[derive(Hash)]`",
                   (("src/key.rs", 1, 0, 1, 0, "#[derive(Hash)]\n"),)),
        # choices over one place: each its own fix, never all applied at once
        *(Suggestion("src/lib.rs", 1, "E0412", f"consider importing one of these items: `use {path};`",
                     (("src/lib.rs", 1, 0, 1, 0, f"use {path};\n"),)) for path in ("std::fmt::Result", "std::io::Result")),
    ], "each once; none with placeholders to fill in, none editing outside the project"
    [imports_seen] = [d for d in diagnostics([imports], tree, lambda rel, n: text[rel][n - 1]) if d["code"] == "E0412"]
    assert imports_seen["related"] == ["help: consider importing one of these items: `use std::fmt::Result;` or 1 other"]


def _project(tmp_path: Path) -> ProjectRoot:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "Cargo.toml").write_text("[package]\nname = 'p'\n")
    (root / "src" / "lib.rs").write_text("pub mod a;\n")
    (root / "src" / "a.rs").write_text("pub fn a() {}\n")
    (root / "target" / "debug").mkdir(parents=True)
    (root / "target" / "debug" / "big").write_text("artefact")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref")
    return ProjectRoot(root)


def test_the_mirror_follows_the_disk_and_keeps_unchanged_files(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = _project(tmp_path)
    mirror = Mirror(root)
    assert mirror.home.parent == project_home(root)
    assert str(mirror.home).startswith(str(tmp_path / "cache" / "ferrule"))
    mirror.sync({})
    tree = mirror.tree
    assert sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file()) == [
        "Cargo.toml", "src/a.rs", "src/lib.rs"]  # no target/, no .git
    kept = (tree / "src" / "a.rs").stat().st_mtime_ns
    generation = mirror.generation

    mirror.sync({})
    assert mirror.generation == generation and (tree / "src" / "a.rs").stat().st_mtime_ns == kept

    (root.path / "src" / "b.rs").write_text("pub fn b() {}\n")
    (root.path / "src" / "lib.rs").write_text("pub mod a;\npub mod b;\n")
    os.remove(root.path / "src" / "a.rs")
    mirror.sync({})
    assert mirror.generation > generation
    assert (tree / "src" / "b.rs").read_text() == "pub fn b() {}\n"
    assert (tree / "src" / "lib.rs").read_text() == "pub mod a;\npub mod b;\n"
    assert not (tree / "src" / "a.rs").exists()


def test_overlays_are_written_in_only_when_their_text_changes_and_taken_back_when_dropped(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = _project(tmp_path)
    mirror = Mirror(root)
    lib = mirror.tree / "src" / "lib.rs"
    mirror.sync({"src/lib.rs": "pub mod a;\n// unsaved\n", "src/new.rs": "pub fn n() {}\n"})
    assert lib.read_text() == "pub mod a;\n// unsaved\n"
    assert (mirror.tree / "src" / "new.rs").read_text() == "pub fn n() {}\n"
    written = lib.stat().st_mtime_ns
    os.utime(lib, ns=(written - 10**9, written - 10**9))  # an older stamp shows whether it is rewritten
    mirror.sync({"src/lib.rs": "pub mod a;\n// unsaved\n", "src/new.rs": "pub fn n() {}\n"})
    assert lib.stat().st_mtime_ns == written - 10**9

    mirror.sync({})
    assert lib.read_text() == "pub mod a;\n"
    assert lib.stat().st_mtime_ns > written - 10**9  # a restored file is newer than what cargo checked
    assert not (mirror.tree / "src" / "new.rs").exists()
    assert not (root.path / "src" / "new.rs").exists()


def test_a_symlink_leaving_the_root_is_not_mirrored(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = _project(tmp_path)
    secret = tmp_path / "secret.rs"
    secret.write_text("outside")
    (root.path / "src" / "leak.rs").symlink_to(secret)
    mirror = Mirror(root)
    mirror.sync({})
    assert not (mirror.tree / "src" / "leak.rs").exists()


def test_one_holder_of_the_mirror_at_a_time_and_each_learns_when_another_wrote_it(tmp_path):
    import asyncio
    import time

    from ferrule.relay.compile.lock import LockTimeout, held

    async def scenario() -> list[object]:
        seen: list[object] = []
        async with held(tmp_path, "a", time.monotonic() + 5) as others:
            seen.append(others)  # nobody stamped it yet
            try:
                async with held(tmp_path, "b", time.monotonic() + 0.05):
                    seen.append("b got in")
            except LockTimeout:
                seen.append("b waited out its deadline")
        async with held(tmp_path, "a", time.monotonic() + 5) as others:
            seen.append(others)
        async with held(tmp_path, "b", time.monotonic() + 5) as others:
            seen.append(others)
        async with held(tmp_path, "a", time.monotonic() + 5) as others:
            seen.append(others)
        return seen

    assert asyncio.run(scenario()) == [True, "b waited out its deadline", False, True, True]


def _found(file: str, line: int, code: str | None, source: str = "rustc", category: str = "error") -> dict:
    return {"file": file, "code": code, "category": category, "message": f"{code} here", "line": line,
            "character": 0, "source": source}


def _analyzer(line: int, code: str | None, category: str = "error") -> dict:
    found = _found("src/lib.rs", line, code, "rust-analyzer", category)
    del found["file"]
    return found


def test_an_error_both_report_is_kept_once_as_rustcs_and_other_files_are_capped():
    from ferrule.relay.compile import ELSEWHERE_CAP, CompileAnswer, merged

    result = {"diagnostics": [_analyzer(3, "E0308"), _analyzer(7, "unresolved-macro-call"),
                              _analyzer(9, "unused", "warning")]}
    others = [_found(f"src/m{n:03}.rs", 1, "E0061") for n in range(ELSEWHERE_CAP + 2)]
    answer = CompileAnswer([_found("src/lib.rs", 3, "E0308"), _found("src/lib.rs", 5, "E0382"),
                            _found("src/warned.rs", 1, None, category="warning"), *others], ms=12)
    merged(result, answer, "src/lib.rs", analyzer_misled=False)
    # rustc reports no error on line 7: the analyzer's error there is unconfirmed, and listed last
    assert [(d["line"], d["code"], d["source"], d.get("unconfirmed", False)) for d in result["diagnostics"]] == [
        (3, "E0308", "rustc", False), (5, "E0382", "rustc", False), (9, "unused", "rust-analyzer", False),
        (7, "unresolved-macro-call", "rust-analyzer", True)]
    assert all("file" not in d for d in result["diagnostics"])
    assert len(result["elsewhere"]) == ELSEWHERE_CAP and result["elsewhere_omitted"] == 2
    assert {d["file"] for d in result["elsewhere"]} == {f"src/m{n:03}.rs" for n in range(ELSEWHERE_CAP)}
    assert (result["compiled"], result["compile_ms"]) == (True, 12)


def test_without_std_the_analyzers_errors_give_way_to_rustc():
    from ferrule.relay.compile import CompileAnswer, merged

    result = {"diagnostics": [_analyzer(2, "unresolved-macro-call"), _analyzer(4, "unused", "warning")]}
    merged(result, CompileAnswer([], ms=1), "src/lib.rs", analyzer_misled=True)
    assert [(d["line"], d["category"]) for d in result["diagnostics"]] == [(4, "warning")]


def test_a_check_that_did_not_run_leaves_the_analyzers_answer(monkeypatch):
    from ferrule.relay.compile import CompileAnswer, compile_disabled, merged

    monkeypatch.setenv("FERRULE_NO_COMPILE", "1")
    off = compile_disabled(True)
    assert off is not None and off["kind"] == "disabled"
    monkeypatch.delenv("FERRULE_NO_COMPILE")
    assert compile_disabled(True) is None
    assert "conform.toml" in compile_disabled(False)["message"]
    result = {"diagnostics": [_analyzer(2, "E0308")]}
    merged(result, CompileAnswer(error=off), "src/lib.rs", analyzer_misled=False)
    assert result["compiled"] is False and result["compile_error"] == off and len(result["diagnostics"]) == 1


def test_the_package_checked_is_the_one_whose_manifest_is_nearest(tmp_path):
    from ferrule.relay.compile.checker import package_of

    (tmp_path / "crates" / "tally" / "src").mkdir(parents=True)
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "top"\n\n[workspace]\nmembers = ["crates/tally"]\n')
    (tmp_path / "crates" / "tally" / "Cargo.toml").write_text('[package]\nname = "tally"\n')
    assert package_of(tmp_path, "src/lib.rs") == "top"
    assert package_of(tmp_path, "crates/tally/src/lib.rs") == "tally"
    (tmp_path / "Cargo.toml").write_text('[workspace]\nmembers = ["crates/tally"]\n')
    assert package_of(tmp_path, "src/lib.rs") is None  # a virtual manifest: the whole workspace


def test_a_path_dependency_outside_the_project_is_reached_from_the_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = _project(tmp_path)
    common = str(tmp_path / "common")
    manifest = ('[package]\nname = "p"\nversion = "0.1.0"\n\n[lib]\npath = "src/lib.rs"\n\n[dependencies]\n'
                'common = { path = "../common" }\ninner = { path = "crates/inner" }\nfixed = { path = "/opt/fixed" }\n'
                "[dependencies.other]\npath = '../../other'\n"
                f'back = {{ path = "../{root.path.name}/crates/back" }}\n'
                'dotted.path = "../dotted"\n')
    (root.path / "Cargo.toml").write_text(manifest)
    mirror = Mirror(root)
    mirror.sync({})
    copied = (mirror.tree / "Cargo.toml").read_text()
    assert f"common = {{ path = '{common}' }}" in copied
    assert f"path = '{os.path.dirname(str(tmp_path))}/other'" in copied
    assert 'inner = { path = "crates/inner" }' in copied and 'fixed = { path = "/opt/fixed" }' in copied
    assert '[lib]\npath = "src/lib.rs"' in copied
    assert "back = { path = 'crates/back' }" in copied, "back into the project: named from inside the copy"
    assert f"dotted.path = '{tmp_path / 'dotted'}'" in copied
    assert mirror.outside == {common, os.path.join(os.path.dirname(str(tmp_path)), "other"), str(tmp_path / "dotted")}
    assert (root.path / "Cargo.toml").read_text() == manifest, "the project's own manifest is left as it was"

    mirror.sync({"Cargo.toml": manifest.replace("../common", "../common2")})  # an overlaid manifest too
    assert f"common = {{ path = '{common}2' }}" in (mirror.tree / "Cargo.toml").read_text()


def test_the_build_scripts_and_libraries_that_failed_are_named_by_their_root_files(tmp_path):
    from ferrule.relay.compile.spans import failed_prerequisites

    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)  # the mirror behind a link: cargo names the real path

    def record(kind: str, src: str, level: str = "error", reason: str = "compiler-message", test: bool = False) -> dict:
        path = src if src.startswith("/") else f"{real}/{src}"
        return {"reason": reason, "target": {"kind": [kind], "src_path": path}, "profile": {"test": test},
                "message": {"level": level, "message": "m", "spans": []}}

    messages = [record("custom-build", "core/build.rs"), record("custom-build", "core/build.rs"),
                record("lib", "core/src/lib.rs", "warning"),  # a warning stops nothing
                record("bin", "app/src/main.rs"),  # nothing waits for a binary
                record("custom-build", "/registry/memchr-2.5.0/build.rs"),  # not the project's
                record("lib", "shapes/src/lib.rs"),
                # an error in `#[cfg(test)]` code only: the library itself was built
                record("lib", "tally/src/lib.rs"), record("lib", "tally/src/lib.rs", "", "compiler-artifact"),
                record("lib", "tally/src/lib.rs", "", "compiler-artifact", test=True)]
    assert failed_prerequisites(messages, str(tmp_path / "link")) == ("core/build.rs", "shapes/src/lib.rs")


def test_a_failed_cargo_is_told_by_its_errors_not_its_waits_for_a_lock(tmp_path):
    from ferrule.relay.compile.cargo import CargoRun
    from ferrule.relay.compile.checker import _answer

    stderr = ("    Blocking waiting for file lock on package cache\n"
              "    Updating crates.io index\n"
              "error: no matching package named `not-a-real-crate-xyz` found\n"
              "location searched: crates.io index\n"
              "required by package `p v0.1.0 (/x)`\n"
              "Caused by:\n"
              "  failed to query replaced source registry `crates-io`\n"
              "    Blocking waiting for file lock on package cache\n")
    answer = _answer(CargoRun(101, [], stderr), tmp_path, (), 5)
    assert answer.error is not None
    message = answer.error["message"]
    assert message.startswith("cargo check failed: error: no matching package named `not-a-real-crate-xyz` found")
    assert "failed to query replaced source registry" in message
    assert "Blocking" not in message and "Updating" not in message


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rpartition(")")[2].split()[0]


@pytest.mark.skipif(sys.platform != "linux", reason="zombies are told apart through /proc")
def test_a_killed_group_whose_compilers_wait_to_be_reaped_runs_no_more():
    """A compiler killed with cargo is reaped by init; until then it is a zombie, which the kernel
    still counts in its group. An init that reaps slowly must not hold up the answer."""
    waiting = subprocess.Popen(["true"], start_new_session=True)  # never reaped until the end: a zombie
    running = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        wait_for(lambda: _state(waiting.pid) == "Z", what="the process to end unreaped")
        os.killpg(waiting.pid, 0)  # the kernel still knows the group
        assert not group_running(waiting.pid)
        assert group_running(running.pid)
    finally:
        running.kill()
        running.wait()
        waiting.wait()
    assert not group_running(running.pid) and not group_running(waiting.pid)
