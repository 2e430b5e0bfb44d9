"""Facts from the Rust parser: the records, and every tricky case of the unwrap and env detection."""

from __future__ import annotations

import json

import pytest

from ferrule.conform.facts import extract


def unwraps(src: str) -> list[dict]:
    return extract(src).unwraps


def lines_of(records: list[dict]) -> list[int]:
    return sorted(r["line"] for r in records)


# ---- items --------------------------------------------------------------------------------------

ITEMS = '''\
//! crate docs are not an item's docs
use std::collections::{HashMap, HashSet as Set};
/// Frobs.
///
/// ```
/// assert!(true);
/// ```
pub fn frob() {}
pub(crate) struct Rec { pub a: u8, b: u8 }
enum E { A }
pub trait T { fn m(&self); }
impl T for Rec { fn m(&self) {} }
pub mod m { pub union U { a: u8 } }
const C: u8 = 1;
pub static S: u8 = 2;
#[macro_export]
macro_rules! mac { () => {} }
pub type Alias = u8;
'''


def test_items_kinds_names_lines_visibility():
    items = [(i["kind"], i["name"], i["line"], i["visibility"]) for i in extract(ITEMS).items]
    assert items == [
        ("use", "std::collections::{HashMap, HashSet as Set}", 2, ""),
        ("fn", "frob", 8, "pub"),
        ("struct", "Rec", 9, "pub(crate)"),
        ("enum", "E", 10, ""),
        ("trait", "T", 11, "pub"),
        ("fn", "m", 11, ""),
        ("impl", "Rec", 12, ""),
        ("fn", "m", 12, ""),
        ("mod", "m", 13, "pub"),
        ("union", "U", 13, "pub"),
        ("const", "C", 14, ""),
        ("static", "S", 15, "pub"),
        ("macro_rules", "mac", 17, "pub"),  # #[macro_export] makes it public
        ("type", "Alias", 18, "pub"),
    ]


def test_item_docs_doctests_scopes_and_json():
    by_name = {(i["kind"], i["name"], i["scope"]): i for i in extract(ITEMS).items}
    frob = by_name[("fn", "frob", "")]
    assert frob["doc"] == "Frobs.\n\n```\nassert!(true);\n```" and frob["doctest"] is True
    assert by_name[("enum", "E", "")]["doc"] is None
    assert by_name[("impl", "Rec", "")]["trait"] == "T"
    assert by_name[("fn", "m", "<Rec as T>")]["parent"] == "impl"
    assert by_name[("union", "U", "m")]["public"] is True
    assert by_name[("struct", "Rec", "")]["shape"] == "record"
    records = extract(ITEMS).records()
    assert records[0] == {"kind": "file", "line": 1, "lines": 18}
    assert json.loads(json.dumps(records)) == records  # plain JSON


@pytest.mark.parametrize("fence, doctest", [
    ("```", True), ("```rust", True), ("```no_run", True), ("```should_panic", True),
    ("```compile_fail,edition2021", True), ("```text", False), ("```ignore", False), ("```toml", False),
    ("~~~", True),
])
def test_doctest_detection_follows_rustdoc(fence, doctest):
    close = "~~~" if fence.startswith("~") else "```"
    src = f"/// Doc.\n///\n/// {fence}\n/// let x = 1;\n/// {close}\npub fn f() {{}}\n"
    assert extract(src).items[0]["doctest"] is doctest


def test_doc_attribute_block_doc_and_hidden():
    src = '#[doc = "```\\nlet a = 1;\\n```"]\npub fn a() {}\n/** Block.\n * ```\n * x();\n * ```\n */\npub fn b() {}\n' \
          "#[doc(hidden)]\npub fn c() {}\n"
    a, b, c = extract(src).items
    assert a["doctest"] and b["doctest"] and b["doc"].startswith("Block.")
    assert c["hidden"] and not a["hidden"]


def test_unsafe_blocks_and_line_count():
    facts = extract("fn f() {\n    unsafe { g() }\n}\nfn g() {}")
    assert [(u["line"], u["scope"]) for u in facts.unsafe] == [(2, "f")]
    assert facts.lines == 4


# ---- unwrap / expect: the decided cases ---------------------------------------------------------

def test_method_forms_with_receivers():
    found = unwraps("fn f(x: Option<u8>, r: Result<u8, ()>) {\n x.unwrap();\n r.expect(\"m\");\n"
                    " a.b().c.unwrap();\n}")
    assert [(u["method"], u["receiver"], u["form"], u["line"]) for u in found] == [
        ("unwrap", "x", "method", 2), ("expect", "r", "method", 3), ("unwrap", "a.b().c", "method", 4)]


def test_path_form_called_and_passed():
    found = unwraps("fn f(x: Option<u8>) {\n Option::unwrap(x);\n Result::expect(r, \"m\");\n"
                    " v.map(Option::unwrap);\n std::option::Option::<u8>::unwrap(x);\n}")
    assert [(u["method"], u["receiver"], u["form"]) for u in found] == [
        ("unwrap", "x", "path"), ("expect", "r", "path"), ("unwrap", None, "path"), ("unwrap", "x", "path")]


def test_comment_and_string_are_not_code():
    src = 'fn f() {\n // x.unwrap()\n /* y.expect("a") */\n let s = "z.unwrap()";\n let r = r#"Option::unwrap(q)"#;\n}'
    assert unwraps(src) == []


def test_inside_a_macro_invocation_is_found():
    src = 'fn f(x: Option<u8>) {\n println!("{}", x.unwrap());\n assert_eq!(Option::unwrap(x), 1);\n' \
          ' vec![foo(1).expect("e")];\n println!("x.unwrap()");\n}'
    found = unwraps(src)
    assert [(u["line"], u["receiver"], u["form"], u["in_macro"]) for u in found] == [
        (2, "x", "method", True), (3, "x", "path", True), (4, "foo(1)", "method", True)]


def test_inside_a_macro_rules_body_and_its_repetitions():
    src = "macro_rules! m {\n ($($n:ident)*) => {\n  $( fn $n() { write!(b, 1).unwrap(); } )*\n  $x.expect(\"e\")\n };\n}"
    found = unwraps(src)
    assert [(u["line"], u["receiver"], u["in_macro"]) for u in found] == [(3, "write!(b, 1)", True), (4, "$x", True)]


def test_inside_a_closure_inside_a_test_function_is_test_code():
    src = "#[test]\nfn t() {\n let f = || Some(1).unwrap();\n run(|x| x.expect(\"e\"));\n}\n" \
          "fn domain() { let f = || Some(1).unwrap(); }"
    found = unwraps(src)
    assert [(u["line"], u["test"]) for u in found] == [(3, True), (4, True), (6, False)]


@pytest.mark.parametrize("attrs", ["#[test]", "#[tokio::test]", "#[cfg(test)]", "#[cfg(all(test, unix))]",
                                   "#[rstest]"])
def test_test_attributes(attrs):
    assert unwraps(f"{attrs}\nfn t() {{ x.unwrap(); }}")[0]["test"] is True


@pytest.mark.parametrize("attrs", ["#[cfg(not(test))]", "#[cfg(any(test, unix))]", "#[inline]"])
def test_not_test_attributes(attrs):
    assert unwraps(f"{attrs}\nfn t() {{ x.unwrap(); }}")[0]["test"] is False


def test_cfg_test_module_covers_nested_items_and_impls():
    src = "#[cfg(test)]\nmod tests {\n fn h() { a.unwrap(); }\n impl S { fn m() { b.unwrap(); } }\n}"
    assert [u["test"] for u in unwraps(src)] == [True, True]


def test_methods_that_only_share_the_name_are_not_counted():
    src = "fn f() {\n x.unwrap_or(1);\n x.unwrap_or_default();\n p.expect(Token::A, Token::B);\n x.unwrap(1);\n}"
    assert unwraps(src) == []


@pytest.mark.parametrize("src, allowed", [
    ("#[allow(clippy::unwrap_used)]\nfn f() { x.unwrap(); }", True),
    ("#[expect(clippy::unwrap_used, reason = \"checked above\")]\nfn f() { x.unwrap(); }", True),
    ("#[allow(clippy::expect_used)]\nfn f() { x.unwrap(); }", False),        # wrong lint
    ("#[allow(clippy::expect_used)]\nfn f() { x.expect(\"e\"); }", True),
    ("#[allow(clippy::unwrap_used)]\nimpl S { fn f() { x.unwrap(); } }", True),   # on the impl
    ("#[allow(clippy::unwrap_used)]\nmod m { fn f() { x.unwrap(); } }", True),    # on the module
    ("#![allow(clippy::unwrap_used)]\nfn f() { x.unwrap(); }", True),             # inner, file-wide
    ("fn f() { #![allow(clippy::unwrap_used)]\n x.unwrap(); }", True),            # inner, fn-wide
    ("fn f() {\n #[allow(clippy::unwrap_used)]\n let a = x.unwrap();\n}", True),  # on the statement
    ("fn f() {\n #[allow(clippy::unwrap_used)]\n let a = 1;\n let b = x.unwrap();\n}", False),
    ("#[cfg_attr(test, allow(clippy::unwrap_used))]\nfn f() { x.unwrap(); }", False),  # only in some builds
    ("#[allow(clippy::unwrap_used)]\nfn g() {}\nfn f() { x.unwrap(); }", False),   # another item's
])
def test_deliberate_deviation(src, allowed):
    (found,) = unwraps(src)
    assert found["allowed"] is allowed


def test_scope_paths():
    src = "mod a {\n impl S {\n  fn m() { x.unwrap(); }\n }\n impl T for S { fn n() { y.unwrap(); } }\n}\n" \
          "fn outer() { fn inner() { z.unwrap(); } }"
    assert [u["scope"] for u in unwraps(src)] == ["a::S::m", "a::<S as T>::n", "outer::inner"]


# ---- std::env -----------------------------------------------------------------------------------

@pytest.mark.parametrize("src", [
    'fn f() { std::env::var("A"); }',
    'fn f() { ::std::env::var_os("A"); }',
    'use std::env;\nfn f() { env::var("A"); }',
    'use std::env as e;\nfn f() { e::args(); }',
    'use std::env::var;\nfn f() { var("A"); }',
    'use std::env::{self, current_dir as cwd};\nfn f() { cwd(); }',
    'use std::env::{self, current_dir as cwd};\nfn f() { env::home_dir(); }',
    'use std::{env, fs};\nfn f() { env::vars(); }',
    'use std::env::*;\nfn f() { var("A"); }',
    'fn f() { v.map(std::env::var); }',
    'use std::env;\nfn f() { println!("{:?}", env::var("A")); }',
    'fn f() { use std::env; env::set_var("A", "1"); }',
])
def test_env_reads_found(src):
    (found,) = extract(src).env_reads
    assert found["function"].startswith("std::env::")


@pytest.mark.parametrize("src", [
    'fn f() { env!("CARGO_PKG_NAME"); option_env!("X"); }',          # compile time
    'fn f() { std::env::split_paths("a:b"); std::env::consts::OS; }',  # pure / constants
    'mod env { pub fn var(_: &str) {} }\nfn f() { env::var("A"); }',   # a local module named env
    'fn f() { var("A"); }',                                            # no import
    'fn f() { let s = "std::env::var"; } // std::env::var("A")',
    'fn f(e: std::env::VarError) {}',
])
def test_env_non_reads(src):
    assert extract(src).env_reads == []


def test_env_read_in_test_is_marked():
    src = '#[cfg(test)]\nmod tests { fn t() { std::env::var("A"); } }'
    assert extract(src).env_reads[0]["test"] is True


def test_broken_source_still_yields_facts():
    facts = extract("pub fn ok() { x.unwrap(); }\nfn broken( {\n")
    assert [u["line"] for u in facts.unwraps] == [1]
    assert facts.lines == 2


def test_non_utf8_bytes_do_not_crash():
    facts = extract(b"fn f() { let s = \"\xff\xfe\"; x.unwrap(); }\n")
    assert len(facts.unwraps) == 1
