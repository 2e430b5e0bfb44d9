"""Reading Rust attributes and doc comments: what an item's `#[...]` and `///` say to the policy.

Only what the rules need: is the item test code (`#[test]`-like, or a `#[cfg(...)]` that holds only
under test), which clippy lints it allows or expects, whether rustdoc hides it, its doc text, and
whether that text holds a doctest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# `#[tokio::test]`, `#[rstest]`, `#[test_case(...)]` and friends mark test functions as `#[test]` does.
_TEST_ATTRIBUTES = frozenset({"test", "bench", "rstest", "test_case", "quickcheck"})
# rustdoc's own words in a code fence's info string; any other word (`text`, `sh`, `toml`) means the
# block is not Rust, and `ignore` means it is never run, so neither is a doctest.
_RUST_FENCE_WORDS = frozenset({"", "rust", "should_panic", "no_run", "compile_fail", "test_harness",
                               "allow_fail", "standalone_crate"})
_TOKEN = re.compile(
    r'r(#*)"(.*?)"\1|"((?:[^"\\]|\\.)*)"|([A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)|(\S)', re.S)
_FENCE = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([^\n]*)$", re.M)


@dataclass(frozen=True)
class Attributes:
    test: bool = False          # cfg(test)-only or a test function attribute
    allows: frozenset[str] = frozenset()  # lints in allow(...) / expect(...), e.g. "clippy::unwrap_used"
    hidden: bool = False        # #[doc(hidden)]
    exported: bool = False      # #[macro_export]
    doc: str = ""               # text of #[doc = "..."] attributes, one line each


NO_ATTRIBUTES = Attributes()


def _tokens(text: str) -> list[str]:
    """Identifiers/paths (spaces around `::` removed), string literals as '"' + body, and single characters."""
    out = []
    for _hashes, raw_body, plain_body, word, char in _TOKEN.findall(text):
        if word:
            out.append(re.sub(r"\s+", "", word))
        elif char:
            out.append(char)
        else:
            out.append('"' + (raw_body or _unescape(plain_body)))
    return out


def _unescape(body: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


def _split_top(tokens: list[str]) -> list[list[str]]:
    """Split a token list at the commas that are not nested inside parentheses."""
    parts: list[list[str]] = [[]]
    depth = 0
    for tok in tokens:
        if tok in "([{":
            depth += 1
        elif tok in ")]}":
            depth -= 1
        if tok == "," and depth == 0:
            parts.append([])
        else:
            parts[-1].append(tok)
    return [p for p in parts if p]


def _cfg_implies_test(tokens: list[str]) -> bool:
    """Whether a cfg predicate can only hold when compiling tests: `test`, `all(.., test, ..)`, `any(test, test)`."""
    if tokens == ["test"]:
        return True
    if len(tokens) >= 3 and tokens[1] == "(" and tokens[-1] == ")":
        args = _split_top(tokens[2:-1])
        if tokens[0] == "all":
            return any(_cfg_implies_test(a) for a in args)
        if tokens[0] == "any":
            return bool(args) and all(_cfg_implies_test(a) for a in args)
    return False


def read_attribute(text: str, into: dict) -> None:
    """Fold one attribute's text (what is inside `#[...]`) into the `into` accumulator."""
    tokens = _tokens(text)
    if not tokens:
        return
    name = tokens[0]
    last = name.rsplit("::", 1)[-1]
    body = tokens[2:-1] if len(tokens) >= 3 and tokens[1] == "(" and tokens[-1] == ")" else None
    if last in _TEST_ATTRIBUTES and (name == last or name.endswith("::test")):
        into["test"] = True
    elif name == "cfg" and body is not None:
        if _cfg_implies_test(body):
            into["test"] = True
    elif name in ("allow", "expect") and body is not None:
        lints = into.setdefault("allows", set())
        for arg in _split_top(body):
            if len(arg) == 1 and arg[0][:1] != '"':
                lints.add(arg[0])
    elif name == "doc":
        if body is not None and "hidden" in body:
            into["hidden"] = True
        elif len(tokens) == 3 and tokens[1] == "=" and tokens[2][:1] == '"':
            into.setdefault("doc", []).append(tokens[2][1:])
    elif name == "macro_export":
        into["exported"] = True


def summarise(into: dict) -> Attributes:
    if not into:
        return NO_ATTRIBUTES
    return Attributes(
        test=into.get("test", False),
        allows=frozenset(into.get("allows", ())),
        hidden=into.get("hidden", False),
        exported=into.get("exported", False),
        doc="\n".join(into.get("doc", ())),
    )


def clean_block_doc(text: str) -> str:
    """The text of a `/** ... */` doc comment without the decorative `*` and the space after it."""
    lines = [re.sub(r"^\s*\* ?", "", line) if i else line.lstrip(" ") for i, line in enumerate(text.split("\n"))]
    return "\n".join(lines).strip()


def has_doctest(doc: str) -> bool:
    """Whether doc text holds a code block rustdoc would compile as a test."""
    if "```" not in doc and "~~~" not in doc:
        return False
    fence = None
    for m in _FENCE.finditer(doc):
        marker, info = m.group(1), m.group(2).strip()
        if fence is None:
            fence = marker
            words = {w for w in re.split(r"[\s,]+", info.strip("{}")) if w}
            if not words or all(w in _RUST_FENCE_WORDS or w.startswith("edition") for w in words):
                return True
        elif marker[0] == fence[0] and len(marker) >= len(fence) and not info:
            fence = None
    return False
