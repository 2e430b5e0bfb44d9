"""How a name or path is read, and which candidates' paths it matches (no analyzer needed)."""

from __future__ import annotations

import pytest

from ferrule.project import BadRequest
from ferrule.relay.ops.navigation import _capped_tree
from ferrule.relay.symbols import _qualified_by, split_path


def test_a_path_is_split_into_segments_and_a_leading_crate_dropped():
    assert split_path("crate::orders::Order::total") == ["orders", "Order", "total"]
    assert split_path(" Pricing ") == ["Pricing"]
    assert split_path("println!") == ["println!"]
    for bad in ("", "Order::", "a b", "1x", "Order::::total"):
        with pytest.raises(BadRequest):
            split_path(bad)


@pytest.mark.parametrize(("qualifiers", "matches"), [
    ([], True),
    (["Order"], True),
    (["pricing", "Order"], True),
    (["orders", "pricing", "Order"], True),
    (["shop", "orders", "Order"], True),  # the crate's own name may lead
    (["Report"], False),
    (["Order", "pricing"], False),  # out of order
    (["shop"], False),  # a single unknown qualifier is not taken for the crate's name
])
def test_qualifiers_must_appear_in_order_in_the_candidates_path(qualifiers, matches):
    assert _qualified_by(["orders", "pricing", "Order"], qualifiers) is matches


def test_an_outline_keeps_parents_before_children_and_counts_what_it_cut():
    outline = [{"name": "A", "children": [{"name": "a1"}, {"name": "a2"}]}, {"name": "B", "children": [{"name": "b1"}]}]
    kept, more = _capped_tree(outline, 2)
    assert kept == [{"name": "A", "children": [{"name": "a1"}]}]
    assert more == 3
