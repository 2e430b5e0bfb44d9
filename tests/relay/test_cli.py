"""The one-shot commands a person runs: `ferrule type|complete|validate|scope`, as real processes.

Over the analyzer double, every recorded run (goldens/cli.ndjson, recorded live by double/record.py)
must print exactly what it printed then and exit the same; the `live` tests run them against the real
rust-analyzer. Usage and environment errors need no analyzer and run here too.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import orjson
import pytest

from testkit import golden
from testkit.scenarios import FIXTURE

HERE = Path(__file__).resolve().parent
RUNS = [json.loads(line) for line in (HERE / "goldens" / "cli.ndjson").read_text(encoding="utf-8").splitlines()]
# each run starts its own analyzer (seconds): live, one run per command, the failing validate among them
LIVE_RUNS = [r for r in RUNS if "--json" not in r["args"] and r["cwd"] == "." and r["args"][:2] in (
    ["type", "src/lib.rs"], ["complete", "src/lib.rs"], ["validate", "src/broken.rs"], ["scope", "src/lib.rs"])]


def run_id(run: dict) -> str:
    return " ".join(run["args"]) + (f" (in {run['cwd']})" if run["cwd"] != "." else "")


@pytest.fixture(scope="module")
def crate(tmp_path_factory) -> Path:
    return golden.copy_fixture(FIXTURE, tmp_path_factory.mktemp("cli") / "crate")


@pytest.fixture(scope="module")
def double(tmp_path_factory) -> str:
    return golden.fake_analyzer_wrapper(tmp_path_factory.mktemp("double"),
                                        HERE / "double" / "transcripts" / "cli.ndjson")


def check(run: dict, crate: Path, analyzer: str) -> str:
    done = golden.run_cli(run["args"], crate / run["cwd"], analyzer)
    assert (done.returncode, done.stdout.replace(str(crate), golden.ROOT_MARK)) == (run["exit"], run["stdout"]), \
        done.stderr
    return done.stderr


@pytest.mark.parametrize("run", RUNS, ids=run_id)
def test_cli_over_the_double(run, crate, double):
    stderr = check(run, crate, double)
    assert "rust-analyzer: " in stderr  # the indexing progress the analyzer reported, shown while waiting


# Completion kinds that name a value, what an expression position asks for (not a keyword, trait or type).
VALUE_KINDS = {"variable", "enum_member", "function", "method", "constant", "field"}


def release_neutral(args: list[str], stdout: str, names: frozenset[str]) -> list[str]:
    """A printed answer with what the installed analyzer release words and ranks its own way reduced to
    what every release agrees on (see testkit.golden.release_neutral): the diagnostic wording, which
    values rank first under `--max`, the prelude's members and every type's spelling."""
    lines = stdout.splitlines()
    rows = [re.split(r"\s{2,}", line.strip()) for line in lines]
    if args[0] == "validate":
        return [re.sub(r"^(\S+:\d+:\d+: \w+(\[\w+\])?): .*", r"\1: <message>", line) for line in lines]
    if args[0] == "complete":
        return ["<value>" if row[1] in VALUE_KINDS else f"{row[0]} {row[1]}" for row in rows]
    if args[0] == "scope":
        header = [re.sub(r"^\d+ symbols? in scope:$", "<n> symbols in scope:", line) for line in lines[:3]]
        return header + [f"{row[0]} {row[1]}" for row in rows[3:] if golden.bare_name(row[0]) in names]
    return lines


@pytest.mark.live
@pytest.mark.parametrize("run", LIVE_RUNS, ids=run_id)
def test_cli_live(run, crate, analyzer):
    done = golden.run_cli(run["args"], crate / run["cwd"], analyzer.path)
    printed = done.stdout.replace(str(crate), golden.ROOT_MARK)
    names = golden.project_names(crate)
    assert (done.returncode, release_neutral(run["args"], printed, names)) == (
        run["exit"], release_neutral(run["args"], run["stdout"], names)), done.stderr
    assert "rust-analyzer: " in done.stderr and "Indexing" in done.stderr


def test_the_recorded_runs_say_what_a_person_needs(crate):
    by_args = {" ".join(r["args"]): r for r in RUNS}
    assert by_args["type src/lib.rs 17 9"]["stdout"] == "let word: Option<&str>\n"
    assert by_args["type lib.rs 22 9"]["stdout"] == "let café: &str\n"
    assert orjson.loads(by_args["type src/lib.rs 17 9 --json"]["stdout"]) == {
        "display": "let word: Option<&str>", "documentation": ""}
    broken = by_args["validate src/broken.rs --no-compile"]
    assert broken["exit"] == 1 and "src/broken.rs:4:5: error[E0308]" in broken["stdout"]
    assert "(rust-analyzer alone: compile check off)" in broken["stdout"].splitlines()[-1]
    assert by_args["validate src/lib.rs --no-compile"]["exit"] == 0
    scope = by_args["scope src/ids.rs --max 500"]["stdout"]
    assert "module:    crate::ids" in scope and "OrderId" in scope


def test_json_errors_and_the_recipe(crate, tmp_path):
    done = golden.run_cli(["type", "src/lib.rs", "1", "1", "--json"], crate, str(tmp_path / "no-analyzer"))
    assert done.returncode == 3
    error = orjson.loads(done.stdout)["error"]
    assert error["kind"] == "rust-analyzer-missing" and "rustup component add rust-analyzer" in error["recipe"]
    assert "to fix: " in done.stderr and "rustup component add rust-analyzer" in done.stderr


@pytest.mark.parametrize("args, needle", [
    (["type", "src/lib.rs", "17"], "COL"),
    (["type", "src/lib.rs", "x", "1"], "positive integer"),
    (["type", "src/lib.rs", "0", "1"], "1-based"),
    (["complete", "src/lib.rs", "1", "1", "--max", "-2"], "positive integer"),
    (["type", "src/nope.rs", "1", "1"], "no such file"),
    (["type", "src/lib.rs", "999", "1"], "past the end"),
    (["scope", "src/lib.rs", "3"], "both LINE and COL"),
    (["validate", "src/lib.rs", "--root", "nowhere"], "not a directory"),
])
def test_usage_errors_exit_2(crate, args, needle):
    done = golden.run_cli(args, crate, None)
    assert done.returncode == 2, done.stderr
    assert needle in done.stderr
    assert done.stdout == ""


def test_a_file_outside_the_given_root_exits_2(crate):
    done = golden.run_cli(["validate", "Cargo.toml", "--root", "src"], crate, None)
    assert done.returncode == 2 and "outside the project root" in done.stderr


def test_no_cargo_project_exits_3_with_the_recipe(tmp_path):
    (tmp_path / "loose.rs").write_text("fn main() {}\n")
    done = golden.run_cli(["validate", "loose.rs"], tmp_path, None)
    assert done.returncode == 3
    assert "workspace-unloadable" in done.stderr and "no Cargo.toml" in done.stderr
    assert "to fix: " in done.stderr and "--root" in done.stderr


def test_a_missing_analyzer_exits_3_with_the_recipe(crate, tmp_path):
    done = golden.run_cli(["type", "src/lib.rs", "1", "1"], crate, str(tmp_path / "no-analyzer"))
    assert done.returncode == 3
    assert "rust-analyzer-missing" in done.stderr and "rustup component add rust-analyzer" in done.stderr


@pytest.mark.parametrize("command", ["type", "complete", "validate", "scope", "serve"])
def test_help_explains_the_command(command):
    done = golden.run_cli([command, "--help"], Path.cwd(), None)
    assert done.returncode == 0
    assert "--rust-analyzer" in done.stdout and "--root" in done.stdout
    if command != "serve":
        assert "exit codes" in done.stdout and "--json" in done.stdout


def tiny_crate(tmp_path: Path, name: str, files: dict[str, str]) -> Path:
    """A one-package crate of these files (paths relative to its root) beside its Cargo.toml."""
    crate = tmp_path / name
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text(f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n')
    for rel, text in files.items():
        (crate / rel).write_text(text)
    return crate


@pytest.mark.live
def test_validate_compile_that_could_not_run_exits_3_not_0(analyzer, tmp_path):
    crate = tiny_crate(tmp_path, "built", {
        "build.rs": 'fn main() {\n    panic!("the build needs a tool this machine lacks");\n}\n',
        "src/lib.rs": "pub fn f() -> u32 {\n    1\n}\n"})
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "RUST_BACKTRACE": "1"}
    done = golden.run_cli(["validate", "src/lib.rs", "--compile", "-q"], crate, analyzer.path, timeout=300, env=env)
    assert done.returncode == 3, done.stdout + done.stderr
    last = done.stdout.splitlines()[-1]
    assert last.startswith("src/lib.rs: unverified: no diagnostics by rust-analyzer alone, the compile check could "
                           "not run (cargo-failed)"), done.stdout
    assert "the build needs a tool this machine lacks" in done.stdout
    assert "stack backtrace" not in done.stdout, "the panic's message, not its backtrace"
    plain = golden.run_cli(["validate", "src/lib.rs", "--no-compile", "-q"], crate, analyzer.path, timeout=300, env=env)
    assert plain.returncode == 0, "with --no-compile the analyzer's verdict is what was asked for"
    assert plain.stdout.splitlines()[-1].startswith("src/lib.rs: no diagnostics (rust-analyzer alone: compile check off)")


@pytest.mark.live
def test_validate_answers_with_rustc_by_default_so_a_borrow_error_fails_it(analyzer, tmp_path):
    # a use after a move: rustc's borrow checker reports it, rust-analyzer's own diagnostics do not
    crate = tiny_crate(tmp_path, "moved", {"src/lib.rs": "pub fn twice(body: Vec<u8>) -> usize {\n    let first = body;\n"
                                          "    let second = body;\n    first.len() + second.len()\n}\n"})
    done = golden.run_cli(["validate", "src/lib.rs", "-q"], crate, analyzer.path, timeout=300, env=analyzer.env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "src/lib.rs:3:18: error[E0382] (rustc): use of moved value: `body`" in done.stdout, done.stdout
    assert done.stdout.splitlines()[-1].startswith("src/lib.rs: 1 error; "), done.stdout
    alone = golden.run_cli(["validate", "src/lib.rs", "--no-compile", "-q"], crate, analyzer.path, timeout=300,
                           env=analyzer.env)
    assert alone.returncode == 0, alone.stdout + alone.stderr
    assert "E0382" not in alone.stdout
    assert alone.stdout.splitlines()[-1].startswith("src/lib.rs: no diagnostics (rust-analyzer alone: compile check off)")


@pytest.mark.live
def test_validate_of_a_file_no_crate_includes_exits_3_not_0(analyzer, tmp_path):
    crate = tiny_crate(tmp_path, "orphaned", {"src/lib.rs": "pub fn kept() -> u32 {\n    1\n}\n",
                                              "src/orphan.rs": "pub fn forgotten() -> u32 {\n    2\n}\n"})
    done = golden.run_cli(["validate", "src/orphan.rs", "-q"], crate, analyzer.path, timeout=300, env=analyzer.env)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "src/orphan.rs: unchecked: no crate includes this file" in done.stdout, done.stdout
    linked = golden.run_cli(["validate", "src/lib.rs", "-q"], crate, analyzer.path, timeout=300, env=analyzer.env)
    assert linked.returncode == 0, linked.stdout + linked.stderr
