"""A large real file through the relay: regex-syntax's src/ast/parse.rs (5.9k lines, from
$RUST_OFFLINE_CRATES). Ops that each carry a one-line transient change re-parse what changed, never the
whole file again, and answer as they do on a small file."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ferrule.conform.facts import extract
from ferrule.conform.syntax import PARSES
from ferrule.relay.sync import SyncSession
from testkit.live import live_session

pytestmark = pytest.mark.live

CRATE = Path(os.environ.get("RUST_OFFLINE_CRATES", "/opt/rust-offline/crates")) / "regex-syntax-0.6.27"
FILE = "src/ast/parse.rs"
DOMAIN_LINE = "        self.parser().capture_index.set(i);"  # in `next_capture_index`, where `current: u32`
TEST_LINE = "        lit_with(c, span(start..start + c.len_utf8()))"  # in `mod tests`, where `c: char`
HOVERED = "let current = "
ROUNDS = 4


@pytest.fixture(scope="module")
def regex_syntax(tmp_path_factory, analyzer) -> Path:
    assert (CRATE / FILE).is_file(), f"{CRATE / FILE} is missing: source /opt/rust-offline/env.sh"
    target = tmp_path_factory.mktemp("large") / "regex-syntax"
    shutil.copytree(CRATE, target, ignore=shutil.ignore_patterns("target"))
    return target


@pytest.fixture(scope="module")
def large_session(regex_syntax, private_cache) -> Iterator[SyncSession]:
    with live_session(regex_syntax) as session:
        yield session


def replaced(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def line_of(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


def test_one_line_changes_never_parse_the_whole_file_again(large_session, regex_syntax):
    text = (regex_syntax / FILE).read_text(encoding="utf-8")
    domain_line, test_line, hovered = line_of(text, DOMAIN_LINE), line_of(text, TEST_LINE), line_of(text, HOVERED)
    completing, in_tests = "        current.checked_add(1).", "        c.to_digit(10)."
    full = PARSES.full
    answers = []
    domain_parses = []  # parses by each completion in domain code, above every test attribute
    for round_number in range(ROUNDS):  # every text differs from the one before
        note = f" // change {round_number}"
        domain = replaced(text, DOMAIN_LINE, completing + note)
        tests = replaced(text, TEST_LINE, in_tests + note)
        invalid = replaced(text, DOMAIN_LINE, f'{DOMAIN_LINE} let _check: u32 = "{round_number}";')
        commented = replaced(text, DOMAIN_LINE, DOMAIN_LINE + note)
        parses = PARSES.full + PARSES.incremental
        in_domain = large_session.call("complete", {"file": FILE, "content": domain, "prefix": "unwrap",
                                                    "position": {"line": domain_line, "character": len(completing)}})
        domain_parses.append(PARSES.full + PARSES.incremental - parses)
        answers.append((
            in_domain,
            large_session.call("complete", {"file": FILE, "content": tests, "prefix": "unwrap",
                                            "position": {"line": test_line, "character": len(in_tests)}}),
            large_session.call("scope", {"file": FILE}),
            large_session.call("validate", {"file": FILE, "content": invalid}),
            large_session.call("type", {"file": FILE, "content": commented,
                                        "position": {"line": hovered, "character": 12}}),
            invalid,
        ))
    assert PARSES.full - full == 1  # the first op parsed the file; every later one only what changed
    assert domain_parses == [0] * ROUNDS, "no attribute above the line marks tests: nothing parsed"

    last_facts = None
    for in_domain, in_test_code, scope, validated, typed, invalid in answers:
        assert [entry["unsafe"] for entry in in_domain["entries"] if entry["name"] == "unwrap"] == [True]
        assert [entry["unsafe"] for entry in in_test_code["entries"] if entry["name"] == "unwrap"] == [False]
        names = {symbol["name"] for symbol in scope["symbols"]}
        assert {"Parser", "ParserBuilder", "ParserI"} <= names
        assert [(d["code"], d["line"]) for d in validated["diagnostics"]] == [("E0308", domain_line)]
        assert typed["display"] == "let current: u32"
        last_facts = (validated["facts"], invalid)
    assert last_facts is not None
    assert last_facts[0] == extract(last_facts[1]).records()  # the facts of the text the op saw
