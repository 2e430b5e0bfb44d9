"""The analyzer's locations as the protocol's: project-relative (or library) paths, 1-based lines,
UTF-8 byte columns, and the line's text.

Text is read from the project (overlay, else disk, through the sandbox) or from a library root, and
from nowhere else: a location anywhere other is answered with its path and no text.
"""

from __future__ import annotations

from typing import Any

from ferrule.fastframe import LineIndex
from ferrule.lsp import uri_to_path
from ferrule.lsp.positions import line_text
from ferrule.project import ProjectFile
from ferrule.relay import texts
from ferrule.relay.libraries import LibraryRoots, library_roots
from ferrule.relay.ops.context import OpContext
from ferrule.relay.results import Location

LINE_TEXT_MAX = 240  # a minified line must not flood the answer


class Places:
    """One op's view of the files its locations name; each file is read at most once."""

    def __init__(self, ctx: OpContext, libraries: LibraryRoots | None = None) -> None:
        self.ctx = ctx
        self.libraries = library_roots(ctx.root.path) if libraries is None else libraries
        self._files: dict[str, tuple[str, bool, LineIndex | None, ProjectFile | None]] = {}
        self._projects: dict[str, tuple[str | None, ProjectFile | None]] = {}

    def file(self, uri: str) -> tuple[str, bool, LineIndex | None, ProjectFile | None]:
        """(path shown, read-only, the text's index or None, the project file or None) of a URI."""
        known = self._files.get(uri)
        if known is None:
            known = self._files[uri] = self._resolve(uri)
        return known

    def in_project(self, uri: str) -> bool:
        """Whether a URI names a project file (through the sandbox), without reading it: answers list
        the project's places first, since they are what an agent edits."""
        return self._project_file(uri)[1] is not None

    def _project_file(self, uri: str) -> tuple[str | None, ProjectFile | None]:
        """(the URI's path, or None for one that names no path; the project file it is, or None),
        checked through the sandbox once per op."""
        known = self._projects.get(uri)
        if known is None:
            try:
                path: str | None = str(uri_to_path(uri))
            except ValueError:
                path = None
            known = self._projects[uri] = (path, None if path is None else texts.project_file(self.ctx.root, path))
        return known

    def _resolve(self, uri: str) -> tuple[str, bool, LineIndex | None, ProjectFile | None]:
        path, file = self._project_file(uri)
        if path is None:
            return uri, True, None, None
        if file is not None:
            shown = texts.seen(self.ctx.documents, file)
            return file.rel, False, None if shown is None else shown[1], file
        library = self.libraries.shown(path)
        if library is not None:
            name, real = library
            shown = texts.disk(real)
            return name, True, None if shown is None else shown[1], None
        return path, True, None, None  # neither the project's nor a library's: not read

    def location(self, uri: str, lsp_range: dict[str, Any]) -> Location:
        shown, read_only, index, _ = self.file(uri)
        start, end = lsp_range["start"], lsp_range["end"]
        text = line_text(index, start["line"]) if index is not None else ""
        return {
            "file": shown,
            "line": start["line"] + 1,
            "character": self.column(index, start["line"], start["character"]),
            "end_line": end["line"] + 1,
            "end_character": self.column(index, end["line"], end["character"]),
            "text": text if len(text) <= LINE_TEXT_MAX else text[:LINE_TEXT_MAX] + "…",
            "read_only": read_only,
        }

    def column(self, index: LineIndex | None, line: int, character: int) -> int:
        return self.ctx.utf8_column(index, line, character)


def lsp_locations(answer: Any) -> list[tuple[str, dict[str, Any]]]:
    """(uri, range) of each Location or LocationLink of a definition-like answer."""
    if not answer:
        return []
    items = answer if isinstance(answer, list) else [answer]
    found = []
    for item in items:
        if "targetUri" in item:
            found.append((item["targetUri"], item.get("targetSelectionRange") or item["targetRange"]))
        else:
            found.append((item["uri"], item["range"]))
    return found


__all__ = ["LINE_TEXT_MAX", "Places", "lsp_locations"]
