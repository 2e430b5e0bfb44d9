"""The analyzer's workspace edits: shown as the protocol's per-file edits, and applied as overlays or
written to disk.

`overlay` sets each edited file's new text as its overlay: every later op sees it, the disk is untouched.
`disk` writes each file atomically (a temporary file beside it, then a rename) once every target is
confirmed unchanged since the analyzer read it (its view, `rust-analyzer/viewFileText`, equals the
disk); otherwise nothing is written and every changed file is named. Files with an overlay are not
written to disk: their text is not the disk's. Library files are never edited.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from typing import Any

from ferrule.fastframe import LineIndex
from ferrule.lsp import LspClient, ResponseError, uri_to_path
from ferrule.project import BadRequest, ProjectFile
from ferrule.relay import texts
from ferrule.relay.documents import Documents, read_or_none
from ferrule.relay.ops.context import OpContext
from ferrule.relay.results import FileEdit, TextEdit

_EDIT_RECIPE = "apply it as an overlay (`apply: \"overlay\"`), or ask again once the files are as the analyzer sees them"


@dataclass
class PlannedFile:
    """One file's edits: the text they apply to, the text they make, and the edits as the protocol shows them."""

    file: ProjectFile
    before: str
    after: str = ""
    edits: list[TextEdit] = field(default_factory=list)


def text_edits(workspace_edit: Any) -> list[tuple[str, list[dict[str, Any]]]]:
    """(uri, LSP text edits) per document, from `documentChanges` or `changes`. Creating, renaming or
    deleting files is refused: the protocol edits text only."""
    if not workspace_edit:
        return []
    per_uri: dict[str, list[dict[str, Any]]] = {}
    for change in workspace_edit.get("documentChanges") or []:
        if "kind" in change:
            raise BadRequest(f"the edit would {change['kind']} a file ({change.get('uri') or change.get('newUri')}); "
                             "only text edits are applied", "make that change by hand")
        per_uri.setdefault(change["textDocument"]["uri"], []).extend(change.get("edits") or [])
    for uri, edits in (workspace_edit.get("changes") or {}).items():
        per_uri.setdefault(uri, []).extend(edits)
    return list(per_uri.items())


async def plan(ctx: OpContext, workspace_edit: Any, *, analyzer_view: bool = False) -> list[PlannedFile]:
    """Each edited file with its new text. With `analyzer_view`, the text the edits apply to is the
    analyzer's own view of the file (checked against the disk before a write)."""
    planned = []
    for uri, edits in text_edits(workspace_edit):
        file = _project_file(ctx, uri)
        if analyzer_view:
            before = await _analyzer_text(ctx, uri)
            index = LineIndex(before)
        else:
            shown = texts.seen(ctx.documents, file)
            if shown is None:
                raise BadRequest(f"the edit would change {file.rel}, which cannot be read", "check the file")
            before, index = shown
        planned.append(_planned(ctx, file, before, index, edits))
    return planned


def _project_file(ctx: OpContext, uri: str) -> ProjectFile:
    path = str(uri_to_path(uri))
    file = texts.project_file(ctx.root, path)  # the sandbox: a symlink leaving the root is refused
    if file is None:
        raise BadRequest(f"the edit would change {path}, outside the project (library files are read-only)",
                         "only files inside the project are edited")
    return file


async def _analyzer_text(ctx: OpContext, uri: str) -> str:
    try:
        return str(await ctx.request("rust-analyzer/viewFileText", {"uri": uri}))
    except ResponseError as error:
        raise BadRequest(f"the analyzer cannot show its view of {uri} ({error.message}), so a write to disk "
                         "cannot be confirmed safe", _EDIT_RECIPE) from None


def _planned(ctx: OpContext, file: ProjectFile, before: str, index: LineIndex,
             edits: list[dict[str, Any]]) -> PlannedFile:
    encoding = ctx.analyzer.codec.encoding
    spans = []
    shown: list[TextEdit] = []
    for edit in edits:
        start, end = edit["range"]["start"], edit["range"]["end"]
        spans.append((index.offset(start["line"], start["character"], encoding),
                      index.offset(end["line"], end["character"], encoding), edit["newText"]))
        shown.append({"line": start["line"] + 1, "character": ctx.utf8_column(index, start["line"], start["character"]),
                      "end_line": end["line"] + 1, "end_character": ctx.utf8_column(index, end["line"], end["character"]),
                      "new_text": edit["newText"]})
    after = before
    for start_offset, end_offset, new_text in sorted(spans, key=lambda span: (span[0], span[1]), reverse=True):
        after = after[:start_offset] + new_text + after[end_offset:]
    shown.sort(key=lambda e: (e["line"], e["character"]))
    return PlannedFile(file, before, after, shown)


def changes(planned: list[PlannedFile]) -> list[FileEdit]:
    return [{"file": p.file.rel, "edits": p.edits} for p in planned]


def apply_overlays(client: LspClient, documents: Documents, planned: list[PlannedFile]) -> None:
    for p in planned:
        documents.update(client, p.file, p.after)


def write_to_disk(client: LspClient, documents: Documents, planned: list[PlannedFile]) -> None:
    """Write every file, or none: refused when a target has an overlay or changed on disk since the
    analyzer read it (`before` is the analyzer's view)."""
    overlaid = [p.file.rel for p in planned if p.file.rel in documents.overlays]
    if overlaid:
        raise BadRequest("not written: " + ", ".join(overlaid) + " has an overlay, whose text is not the disk's",
                         "apply as an overlay, or drop the overlays (`update` with null) and ask again")
    changed = [p.file.rel for p in planned if read_or_none(p.file) != p.before]
    if changed:
        raise BadRequest("not written: changed on disk since the analyzer read it: " + ", ".join(changed),
                         "nothing was written; ask again once the analyzer has caught up with the disk")
    temporaries: list[tuple[str, str]] = []
    try:
        for p in planned:
            temporaries.append((_temporary_beside(p.file.real, _line_endings_kept(p.file.real, p.after)), p.file.real))
    except OSError as error:
        for temporary, _ in temporaries:
            os.unlink(temporary)
        raise BadRequest(f"not written: {error.filename}: {error.strerror}", "check the files' permissions") from None
    for temporary, real in temporaries:
        os.replace(temporary, real)
    for p in planned:  # the analyzer sees the new text now, not once its file watcher notices
        documents.show_written(client, p.file, p.after)


def _line_endings_kept(real: str, text: str) -> str:
    """The text with the file's CRLF line ends, when it has them: the texts compared and edited here
    are read with universal newlines, as the analyzer reads them."""
    with open(real, "rb") as handle:
        crlf = b"\r\n" in handle.read()
    return text.replace("\r\n", "\n").replace("\n", "\r\n") if crlf else text


def _temporary_beside(real: str, text: str) -> str:
    directory, name = os.path.split(real)
    handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, os.stat(real).st_mode & 0o7777)
    except OSError:
        os.unlink(temporary)
        raise
    return temporary


__all__ = ["PlannedFile", "apply_overlays", "changes", "plan", "text_edits", "write_to_disk"]
