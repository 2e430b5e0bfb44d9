"""The citations of docs/MCP.md cannot drift: every section an error class names, and every
`docs/MCP.md §N` the code cites, is a numbered heading of the document, under its own title."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import ferrule
from ferrule._capture_shared import BUSY_MESSAGE
from ferrule.mcp import errors

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "MCP.md"
PACKAGE = Path(ferrule.__file__).resolve().parent  # the sources as imported: a checkout's or the wheel's
# "docs/MCP.md §2.4 (error codes)": the number, and the optional words in brackets after it
CITATION = re.compile(r"docs/MCP\.md (?:§|section )(\d+(?:\.\d+)?)(?: \(([^)]*)\))?")
HEADING = re.compile(r"^#{2,3} (\d+(?:\.\d+)?)\.? (.+?)\s*$")


def headings() -> dict[str, str]:
    """{section number: heading title} of docs/MCP.md."""
    found = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        match = HEADING.match(line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def unresolved(text: str) -> list[str]:
    """The citations in `text` that name no heading, or name one under another title."""
    known = headings()
    wrong = []
    for number, words in CITATION.findall(text):
        title = known.get(number)
        if title is None or (words and words.lower() not in title.lower()):
            wrong.append(f"§{number} ({words})" if words else f"§{number}")
    return wrong


def error_classes() -> list[type]:
    return [c for _, c in inspect.getmembers(errors, inspect.isclass) if c.__module__ == errors.__name__]


def test_the_document_has_the_five_numbered_sections():
    known = headings()
    assert [n for n in known if "." not in n] == ["1", "2", "3", "4", "5"]
    assert all(n.split(".")[0] in known for n in known)


@pytest.mark.parametrize("cls", error_classes(), ids=lambda c: c.__name__)
def test_each_error_section_names_a_heading_of_docs_mcp_md(cls):
    assert cls.section.startswith("docs/MCP.md §"), cls.section
    assert CITATION.search(cls.section), cls.section
    assert unresolved(cls.section) == [], f"{cls.__name__}.section cites what docs/MCP.md does not have"


def test_a_wire_error_carries_its_section_and_fix_in_data():
    for cls in (errors.ParseError, errors.InvalidRequest, errors.InvalidParams, errors.InternalError):
        data = cls("detail").to_error()["data"]
        assert unresolved(data["section"]) == [] and data["section"].startswith("docs/MCP.md §")
        assert data["fix"]


def test_every_citation_in_the_code_names_a_heading_of_docs_mcp_md():
    sources = [*sorted(PACKAGE.rglob("*.py")), *sorted(PACKAGE.glob("*.pyx"))]
    cited = 0
    for path in sources:
        text = path.read_text(encoding="utf-8")
        cited += len(CITATION.findall(text))
        assert unresolved(text) == [], f"{path.relative_to(PACKAGE)} cites sections docs/MCP.md does not have"
        assert "MCP-CORE" not in text and "MCP-REVISIONS" not in text, path
    assert cited >= 20
    assert CITATION.search(BUSY_MESSAGE) and unresolved(BUSY_MESSAGE) == []
