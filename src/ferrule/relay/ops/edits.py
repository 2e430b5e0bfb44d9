"""`rename`, `fixes`, `apply_fix`: changes the analyzer computes, answered as edits and applied on request.

A fix's `id` names the fix itself (the range asked about, its place in the analyzer's list, a
checksum of its title and one of its file's name), so `apply_fix` asks for the fixes there again and
applies the one with that title: nothing is remembered between ops, a fix that no longer applies is
refused, not guessed, and an id passed with another file than its own is refused as such.
"""

from __future__ import annotations

import re
import zlib
from typing import Any

from ferrule.fastframe import LineIndex
from ferrule.lsp import RequestTimeout, ResponseError
from ferrule.lsp.positions import line_text
from ferrule.project import BadRequest, ProjectFile
from ferrule.relay import edits
from ferrule.relay.clashes import rename_clashes
from ferrule.relay.ops.context import OpContext
from ferrule.relay.ops.validate import validate  # a fix's diagnostic, exactly as `validate` reports it
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
    actions = await _code_actions(ctx, file, index, start, end)
    if params.code is not None:
        actions = await _for_code(ctx, file, actions, params.code, start, end)
    found: list[Fix] = [
        {"id": _fix_id(file, start, end, position, action["title"]), "title": action["title"],
         "kind": action.get("kind") or ""}
        for position, action in actions]
    limit = params.max or NAVIGATION_MAX_DEFAULT
    result: FixesResult = {"fixes": found[:limit], "more": max(0, len(found) - limit)}
    return ctx.mark(result)


async def apply_fix(ctx: OpContext, params: ApplyFixParams) -> ApplyFixResult:
    matched = _FIX_ID.fullmatch(params.id)
    if matched is None:
        raise BadRequest(f"`id` {params.id!r} is not a fix id", _FIX_RECIPE)
    line, character, end_line, end_character, position, checksum, file_checksum = matched.groups()
    file = ctx.file(params)
    if _checksum(file.rel) != file_checksum:
        raise BadRequest(f"fix {params.id} was answered for another file, not {file.rel}",
                         "pass the `file` that `fixes` was asked about, with an id it answered")
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
