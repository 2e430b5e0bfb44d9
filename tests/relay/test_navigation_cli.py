"""The one-shot navigation commands as a person runs them: `ferrule definition --symbol Order::total`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from ferrule.relay.navigation_cli import text

ORDERS = Path(__file__).resolve().parents[1] / "fixtures" / "orders"


def ferrule(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ferrule", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONUTF8": "1"})


@pytest.fixture
def crate(tmp_path) -> Path:
    return Path(shutil.copytree(ORDERS, tmp_path / "orders"))


@pytest.mark.live
def test_a_definition_by_name_prints_file_line_col_and_the_line(crate):
    done = ferrule("definition", "--symbol", "Order::total", "-q", cwd=crate)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "src/orders/pricing.rs:22:12: pub fn total(&self) -> u64 {\n"


@pytest.mark.live
def test_a_dependencys_item_is_shown_with_its_line_wherever_cargo_put_its_sources(tmp_path):
    """The offline machines take crates from a folder cargo's configuration puts in place of crates.io
    (as `cargo vendor` and distributions' packaged crates do), a user's machine from the registry: the
    line is shown either way, its column counted in it."""
    crate = tmp_path / "uses-either"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text('[package]\nname = "uses_either"\nversion = "0.1.0"\nedition = "2021"\n\n'
                                      '[dependencies]\neither = "1.6"\n')
    (crate / "src" / "lib.rs").write_text("pub fn left() -> either::Either<u8, ()> {\n    either::Either::Left(1)\n}\n")
    done = ferrule("definition", "--symbol", "either::Either", "-q", cwd=crate)
    assert done.returncode == 0, done.stderr
    shown = re.fullmatch(r"either-1\.[^/]+/src/lib\.rs:\d+:(\d+):  \[read-only\] (pub enum Either<L, R> \{)\n",
                         done.stdout)
    assert shown is not None, done.stdout
    assert int(shown.group(1)) == shown.group(2).index("Either") + 1


@pytest.mark.live
def test_fixes_for_a_whole_line_list_rustcs_first_and_apply_fix_shows_its_edit(tmp_path):
    crate = tmp_path / "moved"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text('[package]\nname = "moved"\nversion = "0.1.0"\nedition = "2021"\n')
    (crate / "src" / "lib.rs").write_text("pub fn f() -> usize {\n    let v = vec![1];\n    let w = v;\n"
                                          "    v.len() + w.len()\n}\n")
    done = ferrule("fixes", "src/lib.rs", "4", "-q", cwd=crate)  # no COL: the whole line
    assert done.returncode == 0, done.stderr
    fix_id, kind, title = done.stdout.splitlines()[0].split("  ", 2)
    assert fix_id.startswith("rustc:4/0/") and kind == "quickfix" and title.endswith(": `.clone()`"), done.stdout
    done = ferrule("apply_fix", "src/lib.rs", fix_id, "-q", cwd=crate)
    assert done.returncode == 0, done.stderr
    assert "src/lib.rs:3:14: -> '.clone()'" in done.stdout and "not written (pass --write)" in done.stdout
    alone = ferrule("fixes", "src/lib.rs", "4", "--no-compile", "-q", cwd=crate)
    assert alone.returncode == 0 and "rustc:" not in alone.stdout, alone.stdout + alone.stderr


@pytest.mark.live
def test_a_name_a_project_macro_makes_is_not_the_std_item_of_that_name(tmp_path):
    """The macro's `Vec` is placed in the macro's body, and its uses are the project's: std's `Vec`,
    which the bare name means at the crate root where the relay shows it as code, is in neither
    answer (one command each, where it was)."""
    crate = tmp_path / "made"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text('[package]\nname = "made"\nversion = "0.1.0"\nedition = "2021"\n')
    (crate / "src" / "lib.rs").write_text("pub mod gen;\npub fn make() -> gen::Vec {\n    gen::Vec\n}\n")
    (crate / "src" / "gen.rs").write_text("macro_rules! make_vec { () => { pub struct Vec; } }\nmake_vec!();\n")
    done = ferrule("definition", "--symbol", "Vec", "-q", cwd=crate)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("src/gen.rs:1:44: "), done.stdout  # `pub struct Vec;`'s name
    done = ferrule("references", "--symbol", "Vec", "-q", cwd=crate)
    assert done.returncode == 0, done.stderr
    uses = {line.split(": ", 1)[0] for line in done.stdout.splitlines()}
    assert {"src/lib.rs:2:23", "src/lib.rs:3:10"} <= uses and all(use.startswith("src/") for use in uses), uses
    # rust-analyzer renames no name written in a macro's body: the refusal says where it is and what to do
    done = ferrule("rename", "--symbol", "Vec", "--to", "Bag", "-q", cwd=crate)
    assert done.returncode == 2
    assert "rename refused: `Vec` is made by a macro (src/gen.rs:1), which rust-analyzer does not rename" in done.stderr
    assert "`references`" in done.stderr


@pytest.mark.live
def test_a_macros_item_no_path_names_is_refused_not_taken_for_the_macro(tmp_path):
    """Made in a module inline in the crate root, the macro's `Vec` has no path from the crate root
    (there `Vec` is std's): only the macro's place is known, and what the analyzer answers there is the
    macro's. Its uses, its type and a rename by name are refused with where it is made; a rename is
    never sent there, where it would rename the macro."""
    crate = tmp_path / "inline"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text('[package]\nname = "inline"\nversion = "0.1.0"\nedition = "2021"\n')
    (crate / "src" / "lib.rs").write_text("pub mod gen {\n    macro_rules! make_vec { () => { pub struct Vec; } }\n"
                                          "    make_vec!();\n}\npub fn make() -> gen::Vec {\n    gen::Vec\n}\n")
    for command in (["references", "--symbol", "Vec"], ["type", "--symbol", "Vec"],
                    ["rename", "--symbol", "Vec", "--to", "Bag"]):
        done = ferrule(*command, "-q", cwd=crate)
        assert done.returncode == 2 and "`Vec` is made by a macro (src/lib.rs:3)" in done.stderr, (command, done)
        assert "make_vec" not in done.stdout


@pytest.mark.live
def test_the_type_of_a_name_prints_its_signature_and_docs(crate):
    done = ferrule("type", "--symbol", "Order::total", "-q", cwd=crate)
    assert done.returncode == 0, done.stderr
    assert "pub fn total(&self) -> u64" in done.stdout


@pytest.mark.parametrize("args", [["definition"], ["definition", "src/lib.rs"], ["symbols"],
                                  ["symbols", "src/lib.rs", "--query", "x"], ["type"], ["type", "src/lib.rs"],
                                  ["type", "src/lib.rs", "1", "1", "--symbol", "Order"]])
def test_incomplete_commands_are_usage_errors_before_any_analyzer_starts(crate, args):
    done = ferrule(*args, "-q", cwd=crate)
    assert done.returncode == 2 and done.stderr.startswith(f"ferrule {args[0]}: ")


def test_edits_are_shown_with_one_based_columns_and_whether_they_were_written():
    value = {"changes": [{"file": "src/a.rs", "edits": [{"line": 3, "character": 4, "end_line": 3,
                                                         "end_character": 9, "new_text": "sum"}]}],
             "applied": None}
    assert text("rename", value) == "src/a.rs:3:5: -> 'sum'\nnot written (pass --write)\n"


@pytest.mark.live
def test_serve_answers_navigation_frames_in_order_around_an_applied_rename(crate):
    """Pipelined: a rename applied as overlays is a barrier, so the reference search after it sees the
    new name, and the one before it the old."""
    frames = [
        {"op": "references", "params": {"symbol": "Order::total", "include_declaration": False}},
        {"op": "rename", "params": {"file": "src/orders/pricing.rs", "position": {"line": 22, "character": 12},
                                    "new_name": "sum", "apply": "overlay"}},
        {"op": "references", "params": {"symbol": "Order::sum", "include_declaration": False}},
        {"op": "validate", "params": {"file": "src/report.rs"}},
        {"op": "shutdown", "params": {}},
    ]
    lines = "".join(orjson.dumps({"proto": 1, "id": n, **frame}).decode() + "\n" for n, frame in enumerate(frames))
    done = subprocess.run([sys.executable, "-m", "ferrule", "serve", "--root", str(crate)], input=lines,
                          capture_output=True, text=True, timeout=120)
    answers = {a["id"]: a for a in map(orjson.loads, done.stdout.splitlines())}
    assert all(a["ok"] for a in answers.values()), answers
    assert answers[0]["result"]["count"] == answers[2]["result"]["count"] == 4
    assert all("sum" in r["text"] and "total()" not in r["text"]
               for g in answers[2]["result"]["files"] for r in g["references"])
    assert answers[3]["result"]["diagnostics"] == []
    assert "order.total()" in (crate / "src/report.rs").read_text()
