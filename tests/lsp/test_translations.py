"""Pure LSP translations: hover markdown to text, positions between encodings, file URIs."""

from __future__ import annotations

import pytest

from ferrule.lsp.markup import markdown_to_text, split_hover
from ferrule.lsp.positions import PositionCodec
from ferrule.lsp.uri import path_to_uri, uri_to_path

RA_HOVER = (
    "\n```rust\nstdcrate\n```\n\n```rust\npub fn word_counts(text: &str) -> HashMap<String, usize>\n```\n\n"
    "---\n\nCounts each word of `text`, see [`HashMap`](https://doc.rust-lang.org/std/collections/struct.HashMap.html)."
)


def test_hover_display_is_the_signature_and_docs_are_plain_text():
    display, documentation = split_hover(RA_HOVER)
    assert display == "pub fn word_counts(text: &str) -> HashMap<String, usize>"
    assert documentation == "Counts each word of text, see HashMap."


def test_markdown_keeps_code_and_link_text_and_drops_syntax():
    md = ("# Panics\n\nPanics if the value is a [`None`] with **msg**.\n\n```rust\nlet x: Option<u8> = None;\n"
          "x.expect(\"*boom*\");\n```\n\n[`None`]: crate::option::Option::None\n")
    assert markdown_to_text(md) == ("Panics\n\nPanics if the value is a None with msg.\n\n"
                                    "let x: Option<u8> = None;\nx.expect(\"*boom*\");")
    assert markdown_to_text("no markup at all ") == "no markup at all"


def test_position_codec_round_trips_through_the_line():
    line = '    let wave = "👋🏽"; let 名前 = 1;'
    utf16 = PositionCodec("utf-16")
    byte_column = len(line[: line.index("名前")].encode())
    unit_column = len(line[: line.index("名前")].encode("utf-16-le")) // 2
    assert utf16.to_server(line, byte_column) == unit_column
    assert utf16.from_server(line, unit_column) == byte_column
    identity = PositionCodec("utf-8")
    assert identity.to_server(line, 7) == 7 and identity.from_server("", 7) == 7
    with pytest.raises(ValueError):
        PositionCodec("latin-1")


def test_uris_round_trip_with_spaces_and_unicode(tmp_path):
    path = tmp_path / "a dir" / "名前.rs"
    uri = path_to_uri(path)
    assert uri.startswith("file:///") and " " not in uri
    assert uri_to_path(uri) == path
    with pytest.raises(ValueError):
        uri_to_path("https://example.com/x")
