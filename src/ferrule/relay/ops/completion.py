"""`complete` and `scope`: both read the analyzer's completion list at a position.

`complete` ranks, filters and caps the list before any per-entry work and flags entries that would
panic in domain code; `scope` keeps the names in scope, at a position or at a neutral top-level place
(inside a probe function appended to the file for the one op), the file's own first, then its
imports, then the rest (the prelude, which otherwise buries them), and caps them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ferrule.conform import FileFacts
from ferrule.lsp import completion_list
from ferrule.lsp.positions import line_text
from ferrule.project import ProjectFile
from ferrule.relay import mapping
from ferrule.relay.documents import Shown
from ferrule.relay.ops.context import OpContext
from ferrule.relay.params import (
    COMPLETE_MAX_DEFAULT,
    SCOPE_MAX_DEFAULT,
    CompleteParams,
    Position,
    ScopeParams,
)
from ferrule.relay.results import Branded, CompleteResult, Entry, ScopeResult, Symbol

PROBE_NAME = "__ferrule_scope_probe__"


@lru_cache(maxsize=4)  # `scope` asks again about a file whose text has not changed: the same copy serves
def with_probe(text: str, newlines: int | None = None) -> tuple[str, Position]:
    """`text` with an empty probe function appended, and the neutral top-level position inside it
    (the end of its indented, otherwise empty body line). `newlines`: the count of LF in `text`, when
    known (a line index has it)."""
    if newlines is None:
        newlines = text.count("\n")
    ends_a_line = text.endswith("\n") or not text
    body = "    "
    # one copy of a text that may be large
    probed = "".join((text, "" if ends_a_line else "\n", f"\nfn {PROBE_NAME}() {{\n", body, "\n}\n"))
    return probed, Position(newlines + (1 if ends_a_line else 2) + 2, len(body))


async def _completion_items(ctx: OpContext, file: ProjectFile, position: dict[str, int], shown: Shown,
                            meanwhile: Callable[[], object] | None = None) -> list[dict[str, Any]]:
    """The completion items at `position`, while `shown` is shown; `meanwhile` runs while the analyzer
    works (default: the shown text's preparation)."""
    if meanwhile is None and shown.active:
        meanwhile = shown.prepare
    result = await ctx.request("textDocument/completion", {
        "textDocument": {"uri": ctx.documents.uri(file.rel)},
        "position": position,
        "context": {"triggerKind": 1},
    }, meanwhile, decode=completion_list.decode_answer)
    return mapping.completion_items(result)  # the first answer, even when marked incomplete


async def complete(ctx: OpContext, params: CompleteParams) -> CompleteResult:
    file, content = ctx.file(params), params.content
    prefix = params.prefix or ""
    limit = COMPLETE_MAX_DEFAULT if params.max is None else params.max
    documents = ctx.documents
    documents.require(file, content)
    index = documents.index(file, content)
    position = ctx.lsp_position(file, params.position, content, index)
    policy = ctx.policy.current
    line, character = params.position.line, params.position.character
    domain_file = not policy.is_test_path(file.rel)
    test_code: list[bool] = []  # whether the position is in test code, decided at most once

    def in_test_code() -> bool:
        if not test_code:  # from the file's syntax tree, re-parsed only where the text changed
            test_code.append(policy.in_test_code(file.rel, index, line, character))
        return test_code[0]

    with documents.showing(ctx.client, file, content) as shown:

        def meanwhile() -> None:  # while the analyzer computes: decide early where unwrap may be offered
            shown.prepare()
            if domain_file and mapping.after_member_access(line_text(index, line - 1), character):
                in_test_code()

        items = await _completion_items(ctx, file, position, shown, meanwhile)
        best = mapping.best(items, prefix, limit)  # filtered, ranked and capped before per-entry work
        panicking = mapping.PANICKING
        unsafe = [False] * len(best)
        for at, (name, item) in enumerate(best):  # while shown: an entry resolves only against its own text
            if domain_file and name in panicking and not in_test_code():
                unsafe[at] = await _panics_on_option_or_result(ctx, items, item)
    entries: list[Entry] = [{"name": name, "kind": mapping.completion_kind(item, name),
                             "type_text": mapping.type_text(item), "unsafe": flagged}
                            for (name, item), flagged in zip(best, unsafe, strict=True)]
    result: CompleteResult = {"entries": entries}
    return ctx.caveated(result, ctx.analyzer.warnings())


async def _panics_on_option_or_result(ctx: OpContext, items: list[dict[str, Any]], item: dict[str, Any]) -> bool:
    """The name+receiver heuristic: an Option/Result-only sibling, else std's docs of the entry."""
    decided = mapping.receiver_is_option_or_result(items, item)
    if decided or "documentation" in item or "data" not in item:
        return decided
    resolved = await ctx.request("completionItem/resolve", completion_list.as_sent(item))
    return mapping.receiver_is_option_or_result([], resolved or {})


async def scope(ctx: OpContext, params: ScopeParams) -> ScopeResult:
    file = ctx.file(params)
    documents = ctx.documents
    index = documents.index(file, None)
    text = index.text
    shown_text: str | None
    if params.position is not None:
        position = ctx.lsp_position(file, params.position, None, index)
        shown_text = None
    else:  # a neutral top-level position: inside a probe function appended for this op only
        shown_text, neutral = with_probe(text, index.line_count - 1)
        position = {"line": neutral.line - 1, "character": neutral.character}  # ASCII: any encoding
    policy = ctx.policy.current
    with documents.showing(ctx.client, file, shown_text) as shown:

        def meanwhile() -> None:  # while the analyzer computes: the file's facts, for the ranking and `branded`
            shown.prepare()
            policy.facts(file.rel, text)

        items = await _completion_items(ctx, file, position, shown, meanwhile)
    own, imported = policy.derived(file.rel, text, "declared", _declared)
    ranked: list[tuple[int, str, str, Symbol]] = []
    seen = set()
    for item in items:
        kind = item.get("kind")
        name = mapping.symbol_name(item)
        if name is None or kind in (mapping.KEYWORD, mapping.SNIPPET) or name.startswith(PROBE_NAME):
            continue  # internal names (`<ra@gennew>7` in a for loop), keywords, snippets, the probe
        key = (name, kind)
        if key in seen:
            continue
        seen.add(key)
        group = 0 if kind == mapping.VARIABLE or name in own else 1 if name in imported else 2
        symbol: Symbol = {"name": name, "kind": mapping.completion_kind(item, name), "type_text": mapping.type_text(item)}
        ranked.append((group, item.get("sortText") or "", name, symbol))
    ranked.sort(key=lambda entry: entry[:3])
    limit = SCOPE_MAX_DEFAULT if params.max is None else params.max
    symbols = [entry[3] for entry in ranked[:limit]]
    placement = await ctx.packages.placement(file.rel, ctx.budget.remaining())
    cell = placement.cell
    seam_file = next((rel for rel in placement.seams
                      if rel == file.rel or (ctx.root.path / rel).is_file() or rel in documents.overlays), None)
    branded: list[Branded] = []
    for found in policy.branded(file.rel, text):
        entry: Branded = {"name": found["name"], "seam": cell or file.rel, "heuristic": True}
        if "line" in found:
            entry["line"] = found["line"]
        branded.append(entry)
    result: ScopeResult = {"symbols": symbols, "more": len(ranked) - len(symbols), "cell": cell,
                           "seam_file": seam_file, "branded": branded}
    return ctx.caveated(result, ctx.analyzer.warnings())


def _declared(facts: FileFacts) -> tuple[frozenset[str], frozenset[str]]:
    """The names the file declares (its module's items; a macro as `name!`) and the names its `use`
    items import, from the policy's facts of the text (kept for validate too)."""
    own: set[str] = set()
    imported: set[str] = set()
    for fact in facts.items:
        kind, name = fact.get("kind"), fact.get("name")
        if not name:
            continue
        if kind == "use":
            imported |= mapping.imported_names(name)
        elif kind == "macro_rules":
            own.add(name + "!")
        elif kind != "impl":
            own.add(name)
    return frozenset(own), frozenset(imported)
