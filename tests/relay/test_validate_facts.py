"""`validate` on the relay's wire: `include_facts: false` leaves `facts` empty and changes nothing else
the policy answers (its findings and advice are drawn from the facts all the same)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.live

SHAPES = "src/shapes/mod.rs"


def test_include_facts_false_leaves_facts_empty_and_keeps_the_findings(stdcrate_session):
    whole = stdcrate_session.call("validate", {"file": SHAPES})
    lean = stdcrate_session.call("validate", {"file": SHAPES, "include_facts": False})
    assert whole["facts"], "the file has items: the default answer lists their facts"
    assert lean["facts"] == []
    assert lean["conform_findings"] == whole["conform_findings"] and lean["advice"] == whole["advice"]
    assert lean["diagnostics"] == whole["diagnostics"]
    assert stdcrate_session.call("validate", {"file": SHAPES, "include_facts": True})["facts"] == whole["facts"]
