"""`rename`, `fixes`, `apply_fix`: changes the analyzer computes, answered as edits and applied on request.

A fix's `id` names the fix itself (the range asked about, its place in the analyzer's list, a
checksum of its title and one of its file's name), so `apply_fix` asks for the fixes there again and
applies the one with that title: nothing is remembered between ops, a fix that no longer applies is
refused, not guessed, and an id passed with another file than its own is refused as such. A fix rustc
suggests (with `compile`) is named the same way by its diagnostic's line and its place among that
line's suggestions (`rustc:12/0/...`): `apply_fix` checks the same text again (an unchanged text's
answer is kept) and applies that suggestion's edits.
"""

from __future__ import annotations

import re
import zlib
from typing import Any

from ferrule.fastframe import LineIndex
from ferrule.lsp import RequestTimeout, ResponseError
from ferrule.lsp.positions import line_text
from ferrule.project import BadRequest, OpTimeout, ProjectFile, WorkspaceUnloadable
from ferrule.relay import edits
from ferrule.relay.clashes import rename_clashes
from ferrule.relay.compile.spans import Suggestion
from ferrule.relay.ops.context import OpContext
from ferrule.relay.ops.validate import (  # rustc's answer, a fix's diagnostic: validate's
    compile_beside,
    start_compile,
    validate,
)
from ferrule.relay.params import (
    NAVIGATION_MAX_DEFAULT,
    ApplyFixParams,
    FixesParams,
    Position,
    RenameParams,
    ValidateParams,
)
from ferrule.relay.places import Places
from ferrule.relay.results import ApplyFixResult, EditResult, Fix, FixesResult, RenameResult
from ferrule.relay.symbols import doc_examples, made_by_macro, target, unnamed

_FIX_ID = re.compile(r"(\d+):(\d+)-(\d+):(\d+)/(\d+)/([0-9a-f]{8})/([0-9a-f]{8})")
_RUSTC_FIX_ID = re.compile(r"rustc:(\d+)/(\d+)/([0-9a-f]{8})/([0-9a-f]{8})")
_FIX_RECIPE = "ask `fixes` for the file again and pass one of the ids it answers"
_IN_MACRO_RECIPE = ("edit its name in the macro's body and at its uses, which `references` lists (by name, or at a "
                    "position where it is used); the macro may make other items of that name")


async def rename(ctx: OpContext, params: RenameParams) -> RenameResult:
    place = await target(ctx, params)
    if unnamed(place):  # the macro's own place: the analyzer would rename the macro
        raise made_by_macro(ctx, place, str(params.symbol), "and no path from the crate root names it",
                            _IN_MACRO_RECIPE, lead="rename refused: ")
    where = {"textDocument": {"uri": place.uri}, "position": place.position}
    # rename alone: it refuses what prepareRename would (an invalid name, a keyword, a library item)
    # with the same reason, in one round trip instead of two
    try:
        workspace_edit = await ctx.request("textDocument/rename", {**where, "newName": params.new_name})
    except ResponseError as error:
        if place.in_macro and not Places(ctx).file(place.uri)[1]:  # the project's (a library's: as any library item)
            raise made_by_macro(ctx, place, str(params.symbol), f"which rust-analyzer does not rename ({error.message})",
                                _IN_MACRO_RECIPE, lead="rename refused: ") from None
        raise BadRequest(f"rename refused: {error.message}", "choose another name or another symbol") from None
    if workspace_edit is None:
        raise BadRequest("rename refused: nothing there can be renamed",
                         "point at a name: a `symbol`, or a position on it")
    try:
        clashes = await rename_clashes(ctx, place, params.new_name)  # on the outline as it is before the edit
    except (ResponseError, RequestTimeout):  # a warning the analyzer could not help with: the edit stands
        clashes = []
    result: RenameResult = {**await _applied(ctx, workspace_edit, params.apply), **doc_examples(ctx, params, place)}
    if clashes:
        result["warnings"] = clashes
    return result


async def fixes(ctx: OpContext, params: FixesParams) -> FixesResult:
    file = ctx.file(params)
    index = ctx.documents.index(file, None)
    ctx.documents.show_disk(ctx.client, file)
    start, end = _asked_range(params, index)
    async with compile_beside(ctx, file.rel, wanted=bool(params.compile)) as compiling:
        actions = await _code_actions(ctx, file, index, start, end)
        if params.code is not None:
            actions = await _for_code(ctx, file, actions, params.code, start, end)
        answer = None if compiling is None else await compiling
    found: list[Fix] = [] if answer is None else [
        {"id": f"rustc:{line}/{n}/{_checksum(s.title)}/{_checksum(file.rel)}", "title": s.title, "kind": "quickfix",
         "source": "rustc"}
        for line, n, s in _rustc_fixes(answer.suggestions, file.rel, start.line, end.line, params.code)]
    found += [
        {"id": _fix_id(file, start, end, position, action["title"]), "title": action["title"],
         "kind": action.get("kind") or ""}
        for position, action in actions]
    limit = params.max or NAVIGATION_MAX_DEFAULT
    result: FixesResult = {"fixes": found[:limit], "more": max(0, len(found) - limit)}
    if answer is not None and answer.error is not None and answer.error["kind"] != "disabled":
        result["compile_error"] = answer.error
    return ctx.mark(result)


def _rustc_fixes(suggestions: list[Suggestion], rel: str, first: int, last: int,
                 code: str | None) -> list[tuple[int, int, Suggestion]]:
    """(line, place among the line's suggestions, suggestion) of rustc's fixes on lines first..last."""
    on_line: dict[int, int] = {}
    found = []
    for suggestion in suggestions:
        if suggestion.file != rel:
            continue
        n = on_line[suggestion.line] = on_line.get(suggestion.line, -1) + 1
        if first <= suggestion.line <= last and (code is None or suggestion.code == code):
            found.append((suggestion.line, n, suggestion))
    return found


async def apply_fix(ctx: OpContext, params: ApplyFixParams) -> ApplyFixResult:
    rustc = _RUSTC_FIX_ID.fullmatch(params.id)
    matched = _FIX_ID.fullmatch(params.id)
    if matched is None and rustc is None:
        raise BadRequest(f"`id` {params.id!r} is not a fix id", _FIX_RECIPE)
    file = ctx.file(params)
    if _checksum(file.rel) != params.id[-8:]:  # either kind of id ends with its file's checksum
        raise BadRequest(f"fix {params.id} was answered for another file, not {file.rel}",
                         "pass the `file` that `fixes` was asked about, with an id it answered")
    if rustc is not None:
        return await _apply_rustc_fix(ctx, file, params, int(rustc.group(1)), int(rustc.group(2)), rustc.group(3))
    assert matched is not None
    line, character, end_line, end_character, position, checksum, _ = matched.groups()
    index = ctx.documents.index(file, None)
    ctx.documents.show_disk(ctx.client, file)
    start, end = Position(int(line), int(character)), Position(int(end_line), int(end_character))
    actions = dict(await _code_actions(ctx, file, index, start, end))
    action = actions.get(int(position))
    if action is None or _checksum(action["title"]) != checksum:
        raise BadRequest(f"fix {params.id} is no longer offered at {file.rel}:{line}", _FIX_RECIPE)
    if "edit" not in action:
        action = await ctx.request("codeAction/resolve", action)
    if "edit" not in action:
        raise BadRequest(f"fix {action['title']!r} runs a command instead of editing text; it is not applied here",
                         "make that change by hand")
    result = await _applied(ctx, action["edit"], params.apply)
    return {**result, "title": action["title"]}  # type: ignore[typeddict-item]


async def _apply_rustc_fix(ctx: OpContext, file: ProjectFile, params: ApplyFixParams, line: int, n: int,
                           checksum: str) -> ApplyFixResult:
    """rustc's suggestion `n` on `line`, from a check of the text as it is now (the same text's answer is
    kept, so no cargo runs again), as the analyzer's workspace edit would carry it."""
    answer = await start_compile(ctx, file.rel)
    if answer.error is not None:  # what stops cargo is the machine's or the project's, not the request's
        failed = OpTimeout if answer.error["kind"] == "timeout" else WorkspaceUnloadable
        raise failed(f"fix {params.id} needs rustc's answer, and the compile check could not run "
                     f"({answer.error['kind']}): {answer.error['message']}", answer.error.get("recipe"))
    chosen = [s for at, k, s in _rustc_fixes(answer.suggestions, file.rel, line, line, None) if k == n]
    if not chosen or _checksum(chosen[0].title) != checksum:
        raise BadRequest(f"fix {params.id} is no longer offered at {file.rel}:{line}", _FIX_RECIPE)
    changes: dict[str, list[dict[str, Any]]] = {}
    for rel, start_line, start, end_line, end, new_text in chosen[0].edits:
        edited = ctx.root.file(rel)
        index = ctx.documents.index(edited, None)
        changes.setdefault(ctx.documents.uri(rel), []).append({"newText": new_text, "range": {
            "start": ctx.lsp_position(edited, Position(start_line, start), None, index),
            "end": ctx.lsp_position(edited, Position(end_line, end), None, index)}})
    result = await _applied(ctx, {"changes": changes}, params.apply)
    return {**result, "title": chosen[0].title}  # type: ignore[typeddict-item]


async def _applied(ctx: OpContext, workspace_edit: Any, apply: str | None) -> EditResult:
    planned = await edits.plan(ctx, workspace_edit, analyzer_view=apply == "disk")
    if apply == "overlay":
        edits.apply_overlays(ctx.client, ctx.documents, planned)
    elif apply == "disk":
        edits.write_to_disk(ctx.client, ctx.documents, planned)
    result: EditResult = {"changes": edits.changes(planned), "applied": apply}
    return ctx.mark(result)


def _asked_range(params: FixesParams, index: LineIndex) -> tuple[Position, Position]:
    """The protocol range asked about: a position (empty range), or whole lines."""
    if params.position is not None:
        if params.line is not None:
            raise BadRequest("pass `position` or `line`, not both", "e.g. {\"file\": \"src/lib.rs\", \"line\": 12}")
        return params.position, params.position
    if params.line is None:
        raise BadRequest("missing `position` or `line`: where to look for fixes", "e.g. {\"file\": \"src/lib.rs\", \"line\": 12}")
    last = params.end_line or params.line
    if last < params.line:
        raise BadRequest(f"`end_line` {last} is before `line` {params.line}", "pass end_line >= line")
    # from the first line's code to the last line's end: a range starting in the indentation is offered
    # only the assists that extract lines, not the fixes for the code on them
    first, final = line_text(index, params.line - 1), line_text(index, last - 1).rstrip()
    indent = len(first) - len(first.lstrip())
    return Position(params.line, len(first[:indent].encode("utf-8"))), Position(last, len(final.encode("utf-8")))


async def _code_actions(ctx: OpContext, file: ProjectFile, index: LineIndex, start: Position,
                        end: Position) -> list[tuple[int, dict[str, Any]]]:
    """(place in the analyzer's list, code action) of the actions offered over the range; bare commands
    are left out: they edit nothing the relay can show."""
    answer = await ctx.request("textDocument/codeAction", {
        "textDocument": {"uri": ctx.documents.uri(file.rel)},
        "range": {"start": ctx.lsp_position(file, start, None, index), "end": ctx.lsp_position(file, end, None, index)},
        "context": {"diagnostics": []}})
    return [(n, action) for n, action in enumerate(answer or []) if not isinstance(action.get("command"), str)]


async def _for_code(ctx: OpContext, file: ProjectFile, actions: list[tuple[int, dict[str, Any]]], code: str,
                    start: Position, end: Position) -> list[tuple[int, dict[str, Any]]]:
    """The quick fixes, when a diagnostic with `code` lies in the range (rust-analyzer does not say which
    diagnostic a fix is for)."""
    report = await validate(ctx, ValidateParams(file=file.rel, checked=file))
    present = any(d["code"] == code and start.line <= d["line"] <= end.line for d in report["diagnostics"])
    return [(n, a) for n, a in actions if present and str(a.get("kind", "")).startswith("quickfix")]


def _checksum(text: str) -> str:
    """A fix's title, or its file's name, in eight hex digits."""
    return f"{zlib.crc32(text.encode('utf-8')):08x}"


def _fix_id(file: ProjectFile, start: Position, end: Position, position: int, title: str) -> str:
    return (f"{start.line}:{start.character}-{end.line}:{end.character}/{position}/{_checksum(title)}/"
            f"{_checksum(file.rel)}")


__all__ = ["apply_fix", "fixes", "rename"]
