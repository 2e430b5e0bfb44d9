"""docs/PROTOCOL.md's op table is the op table: each row is rendered from ferrule.relay.ops and must
appear in the document as it is. A new op, param or result field fails this test until the document
says so; the failure prints the table to paste."""

from __future__ import annotations

import re
from pathlib import Path

from ferrule.project import KINDS
from ferrule.relay.ops import OPS, Op
from ferrule.relay.params import fields_of

DOC = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"


def _params(op: Op) -> str:
    shown = [f"`{name}{'' if spec.required else '?'}`: {spec.wire}"
             for name, spec in fields_of(op.params) if name != "timeout_ms"]
    return "<br>".join(shown) or "–"


def _result(op: Op) -> str:
    keys = [f"`{key}`" for key in op.result.__annotations__ if key in op.result.__required_keys__]
    keys += [f"`{key}?`" for key in op.result.__annotations__ if key in op.result.__optional_keys__]
    return ", ".join(keys) or "`{}`"


def op_table() -> str:
    rows = ["| op | params | result | budget | only reads |", "| --- | --- | --- | --- | --- |"]
    for op in OPS.values():
        rows.append(f"| `{op.name}` | {_params(op)} | {_result(op)} | {op.budget_ms:,} ms | {op.reads_when} |")
    return "\n".join(rows)


def test_the_documents_op_table_is_the_op_table():
    table = op_table()
    assert table in DOC.read_text(encoding="utf-8"), f"docs/PROTOCOL.md's op table should read:\n\n{table}\n"


def test_every_op_has_a_section_and_every_error_kind_a_row():
    text = DOC.read_text(encoding="utf-8")
    for name in OPS:
        assert re.search(rf"^### `{name}`", text, re.M), f"no section for {name}"
    for kind in KINDS:
        assert f"| `{kind}` |" in text, f"no row for the {kind} error kind"


def test_the_sections_the_code_cites_exist():
    text = DOC.read_text(encoding="utf-8")
    for number, title in ((3, "Operations"), (5, "Policy enrichment"), (6, "Errors")):
        assert f"## {number}. {title}" in text
