"""What a rename would collide with: rust-analyzer renames `one` to `two` beside an existing `two`
(or a method, field or variant onto a sibling's name) without a word, and the code then no longer
compiles. The item's siblings in the outline of the file that defines it are looked at: the same
module's items, the struct's fields, the enum's variants, the trait's items, the methods of the
type's inherent impl blocks in that file. Two names clash only in one namespace (a field and a
method may share a name; a struct and a function may too).
"""

from __future__ import annotations

from typing import Any

from ferrule.lsp.positions import range_contains
from ferrule.project import ErrorRecord
from ferrule.relay import mapping
from ferrule.relay.ops.context import OpContext
from ferrule.relay.places import Places, lsp_locations
from ferrule.relay.symbols import Target, impl_parts

RENAME_CLASH_KIND = "rename-clash"

# The protocol's SymbolKind by the namespace its items live in (rust-analyzer's kinds).
_NAMESPACE = {
    **dict.fromkeys((6, 12, 13, 14), "values"),  # method, function, static, constant
    **dict.fromkeys((2, 5, 10, 11, 23, 26), "types"),  # module, struct, enum, trait, type alias
    8: "fields",
    22: "variants",
}
_FUNCTION = 12  # rust-analyzer gives `macro_rules!` macros this kind too, without a `fn` signature
_IMPL = 19  # rust-analyzer's kind for an impl block (`impl S`, `impl Display for S`)


async def rename_clashes(ctx: OpContext, place: Target, new_name: str) -> list[ErrorRecord]:
    """A warning for each sibling of the renamed item's definition already called `new_name`."""
    definitions = lsp_locations(await ctx.request("textDocument/definition",
                                                  {"textDocument": {"uri": place.uri}, "position": place.position}))
    if not definitions:
        return []
    uri, lsp_range = definitions[0]
    places = Places(ctx)
    if places.file(uri)[3] is None:  # not a project file: the analyzer refuses to rename it anyway
        return []
    outline = await ctx.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    if not outline or "selectionRange" not in outline[0]:
        return []  # a flat answer has no nesting to find siblings in
    found = _siblings(outline, lsp_range["start"])
    if found is None:
        return []
    item, siblings = found
    namespace = _namespace(item)
    warnings: list[ErrorRecord] = []
    for other in siblings:
        if other is item or other.get("name") != new_name or _namespace(other) != namespace:
            continue
        where = places.location(uri, other["selectionRange"])
        kind = mapping.symbol_kind(other.get("kind"), None)
        warnings.append({
            "kind": RENAME_CLASH_KIND,
            "message": f"`{new_name}` is already defined beside it ({kind} at {where['file']}:{where['line']}): "
                       "after this rename the code does not compile",
            "recipe": "choose another name, or rename or remove the other item first"})
    return warnings


def _namespace(node: dict[str, Any]) -> str | None:
    kind = node.get("kind") or 0
    if kind == _FUNCTION and "fn" not in str(node.get("detail") or ""):
        return "macros"
    return _NAMESPACE.get(kind)


def _siblings(outline: list[dict[str, Any]], start: dict[str, int]) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """The item whose name starts at `start`, and the items that share its scope."""
    level, enclosing, enclosing_level = outline, None, outline
    while True:
        for node in level:
            if node.get("selectionRange", {}).get("start") == start:
                impl_type = _inherent_type(enclosing)
                if impl_type is None:
                    return node, level
                # a type's inherent methods share one scope across its impl blocks
                return node, [child for block in enclosing_level if _inherent_type(block) == impl_type
                              for child in block.get("children") or []]
            if range_contains(node.get("range"), start["line"], start["character"]):
                enclosing, enclosing_level, level = node, level, node.get("children") or []
                break
        else:
            return None


def _inherent_type(node: dict[str, Any] | None) -> str | None:
    """The type an inherent impl block (`impl<T> Stack<T>`) is for; None for anything else."""
    if node is None or node.get("kind") != _IMPL:
        return None
    parts = impl_parts(str(node.get("name") or ""))
    return parts[1] if parts is not None and parts[0] is None else None  # `Gen<u32>` and `Gen<i32>` are two


__all__ = ["RENAME_CLASH_KIND", "rename_clashes"]
