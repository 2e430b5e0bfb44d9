"""The conversations the outer-frame goldens pin, over the fixture crate tests/fixtures/relay_shell.

Each scenario is a list of batches; a batch is written to `ferrule serve` at once (pipelined) and
its answers awaited before the next. double/record.py runs them against the real analyzer to write
the goldens (tests/relay/goldens/) and the analyzer transcripts the double replays.
"""

from __future__ import annotations

from pathlib import Path

import orjson

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "relay_shell"
LIB = "src/lib.rs"
IDS = "src/ids.rs"


def f(request_id, op, **params) -> bytes:
    return orjson.dumps({"proto": 1, "id": request_id, "op": op, "params": params})


def at(line: int, character: int) -> dict[str, int]:
    return {"line": line, "character": character}


def lib_text() -> str:
    return (FIXTURE / LIB).read_text(encoding="utf-8")


def lib_with(line: int, text: str) -> str:
    """lib.rs with its 1-based `line` replaced by `text`."""
    lines = lib_text().split("\n")
    lines[line - 1] = text
    return "\n".join(lines)


WORD_DOT = lib_with(18, "    word.")  # `word: Option<&str>`, completing a method on it
TYPE_ERROR = lib_with(18, '    let n: u32 = "seven"; word')  # E0308
WORD_LEN = lib_with(17, "    let word = text.len();")  # the overlay changes `word`'s type to usize

SCENARIOS: dict[str, list[list[bytes]]] = {
    # every op once, each answered as a host sees it
    "ops": [
        [f(1, "type", file=LIB, position=at(17, 8)),  # word: Option<&str>
         f(2, "type", file=LIB, position=at(22, 8)),  # café (non-ASCII identifier)
         f(3, "type", file=LIB, position=at(22, 34))],  # `size`, after multi-byte characters
        [f(4, "complete", file=LIB, position=at(18, 9), content=WORD_DOT, prefix="un", max=5),
         f(5, "complete", file=LIB, position=at(11, 10), max=3)],
        [f(6, "validate", file=LIB)],
        [f(7, "validate", file=LIB, content=TYPE_ERROR)],
        [f(8, "validate", file=LIB)],  # the transient content above left nothing behind
        # a `max` above the prelude's size: which prelude names a cap keeps is each release's to rank
        [f(9, "scope", file=IDS, max=500), f(10, "scope", file=LIB, position=at(11, 9), max=500)],
        [f(11, "update", file=LIB, content=WORD_LEN)],
        [f(12, "type", file=LIB, position=at(17, 8))],  # the overlay: usize
        [f(13, "update", file=LIB, content=None)],
        [f(14, "type", file=LIB, position=at(17, 8))],  # the disk again: Option<&str>
    ],
    # every protocol error the shell answers itself, and the Session's own refusals
    "errors": [
        [b'{"proto":1,"id":1,"op":"type"',
         b"[1,2,3]",
         b'{"proto":1,"op":"init","params":{}}',
         f(2, "init").replace(b'"proto":1', b'"proto":2'),
         f(3, "hover", file=LIB),
         f(4, "complete", file=7, position=at(0, -1), max="ten"),
         f(5, "update", file=LIB),
         f(6, "type", file="/etc/passwd", position=at(1, 0)),
         f(7, "validate", file="../outside.rs"),
         f(8, "type", file="src/missing.rs", position=at(1, 0)),
         f(9, "type", file=LIB, position=at(1, 0))],
    ],
    # one batch: updates and reads on one file interleaved (arrival order holds), another file beside
    "pipelined": [
        [f("u1", "update", file=LIB, content=WORD_LEN),
         f("t1", "type", file=LIB, position=at(17, 8)),
         f("v1", "validate", file=IDS),
         f("u2", "update", file=LIB, content=None),
         f("t2", "type", file=LIB, position=at(17, 8)),
         f("s1", "scope", file=IDS, max=500),
         f("u3", "update", file=LIB, content=WORD_LEN),
         f("t3", "type", file=LIB, position=at(17, 8)),
         f("t4", "type", file=IDS, position=at(8, 8)),
         f("u4", "update", file=LIB, content=None),
         f("c1", "complete", file=LIB, position=at(18, 9), content=WORD_DOT, prefix="is_", max=4),
         f("t5", "type", file=LIB, position=at(17, 8))],
    ],
    # a client init is a re-init; shutdown answers {} and ends the relay, later frames are refused
    "lifecycle": [
        [f(1, "init")],
        [f(2, "type", file=IDS, position=at(8, 8))],
        [f(3, "shutdown"), f(4, "type", file=IDS, position=at(8, 8))],
    ],
}


# One-shot commands as a person types them: (working directory inside the crate, arguments).
CLI_RUNS: list[tuple[str, list[str]]] = [
    (".", ["type", LIB, "17", "9"]),
    ("src", ["type", "lib.rs", "22", "9"]),  # from a subdirectory: the root is found upward; non-ASCII
    (".", ["type", LIB, "17", "9", "--json"]),
    (".", ["complete", LIB, "11", "11", "--max", "3"]),
    (".", ["validate", LIB, "--no-compile"]),  # the analyzer's answer alone: the double has no rustc
    (".", ["validate", "src/broken.rs", "--no-compile"]),
    (".", ["validate", "src/broken.rs", "--no-compile", "--json"]),
    (".", ["scope", IDS, "--max", "500"]),  # above the prelude: the cap would keep a release-ranked few
    (".", ["scope", LIB, "11", "10", "--max", "500"]),
]
