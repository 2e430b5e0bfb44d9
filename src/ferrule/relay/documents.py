"""The files as the analyzer sees them through the relay: persistent overlays with their versions,
the disk text, and transient `content` shown for one op and then taken back.

`update` keeps an overlay (didOpen/didChange with a monotonic version per file, null -> didClose).
`content` on validate, complete and type is transient: `showing()` shows it for the op, and leaving
the `with` block puts the file's previous state (overlay or disk) back.
"""

from __future__ import annotations

import os
from types import TracebackType

from ferrule.fastframe import LineIndex
from ferrule.lsp import LspClient, path_to_uri
from ferrule.project import BadRequest, ProjectFile, ProjectRoot

MISSING_FILE_RECIPE = "create the file, or send its text with `content` or `update` first"


class Overlay:
    """A file's unsaved text as the relay last gave it to the analyzer."""

    __slots__ = ("text", "version", "_index")

    def __init__(self, text: str, version: int) -> None:
        self.text = text
        self.version = version
        self._index: LineIndex | None = None

    def replace(self, text: str, version: int) -> None:
        self.text, self.version, self._index = text, version, None

    @property
    def index(self) -> LineIndex:
        if self._index is None:
            self._index = LineIndex(self.text)
        return self._index


_DISK_INDEX_CAP = 256  # files whose disk line index is kept at once


class _Unread:
    """The disk text not read yet (None means: the file could not be read)."""


_UNREAD = _Unread()


def read_or_none(file: ProjectFile) -> str | None:
    try:
        with open(file.real, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


class Documents:
    def __init__(self, root: ProjectRoot) -> None:
        self.root = root
        self.overlays: dict[str, Overlay] = {}
        self._disk_indexes: dict[str, tuple[tuple[int, int], LineIndex]] = {}  # rel -> ((mtime, size), index)
        self._versions: dict[str, int] = {}
        self._uris: dict[str, str] = {}

    # ---- names and versions ----------------------------------------------------------------------

    def uri(self, rel: str) -> str:
        uri = self._uris.get(rel)
        if uri is None:
            uri = self._uris[rel] = path_to_uri(self.root.path / rel)
        return uri

    def next_version(self, rel: str) -> int:
        version = self._versions.get(rel, 0) + 1
        self._versions[rel] = version
        return version

    def version(self, rel: str) -> int:
        """The version the analyzer last got for `rel`."""
        return self._versions[rel]

    # ---- text ------------------------------------------------------------------------------------

    def disk_text(self, file: ProjectFile) -> str:
        try:
            with open(file.real, encoding="utf-8", errors="replace") as handle:
                return handle.read()
        except FileNotFoundError:
            raise BadRequest(f"{file.rel} does not exist", MISSING_FILE_RECIPE) from None
        except OSError as error:
            raise BadRequest(f"{file.rel} could not be read: {error.strerror}") from None

    def require(self, file: ProjectFile, content: str | None) -> None:
        """BadRequest when the op would see no text at all (no content, no overlay, nothing on disk)."""
        if content is None and file.rel not in self.overlays and not (
                file.regular or (file.regular is None and os.path.isfile(file.real))):
            self.disk_text(file)  # raises the clear error

    def text(self, file: ProjectFile, content: str | None) -> str:
        """The text the op sees: `content`, else the overlay, else the disk (BadRequest when unreadable)."""
        if content is not None:
            return content
        overlay = self.overlays.get(file.rel)
        if overlay is not None:
            return overlay.text
        return self.disk_text(file)

    def index(self, file: ProjectFile, content: str | None) -> LineIndex:
        if content is not None:
            return LineIndex(content)
        overlay = self.overlays.get(file.rel)
        if overlay is not None:
            return overlay.index
        return self._disk_index(file)

    def disk_text_or_none(self, file: ProjectFile) -> str | None:
        """The disk text, read again only when the file's mtime or size changed; None when unreadable."""
        try:
            return self._disk_index(file).text
        except BadRequest:
            return None

    def _disk_index(self, file: ProjectFile) -> LineIndex:
        """The disk text's line index, built again only when the file's mtime or size changed: checking
        a position must not read and index the whole file on every op."""
        try:
            seen = os.stat(file.real)
        except OSError:
            return LineIndex(self.disk_text(file))  # raises the clear error
        key = (seen.st_mtime_ns, seen.st_size)
        known = self._disk_indexes.get(file.rel)
        if known is not None and known[0] == key:
            return known[1]
        index = LineIndex(self.disk_text(file))
        if len(self._disk_indexes) >= _DISK_INDEX_CAP:
            self._disk_indexes.clear()
        self._disk_indexes[file.rel] = (key, index)
        return index

    # ---- overlays --------------------------------------------------------------------------------

    def update(self, client: LspClient, file: ProjectFile, content: str | None) -> int:
        """Set, replace or (content None) drop the overlay; the version the analyzer got."""
        uri = self.uri(file.rel)
        version = self.next_version(file.rel)
        overlay = self.overlays.get(file.rel)
        if content is None:
            if overlay is not None:
                del self.overlays[file.rel]
                self.close_document(client, file)
        elif overlay is None:
            self.overlays[file.rel] = Overlay(content, version)
            client.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "rust", "version": version, "text": content}})
        else:
            overlay.replace(content, version)
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": [{"text": content}]})
        return version

    def reopen_all(self, client: LspClient) -> None:
        """Give a respawned analyzer every overlay again."""
        for rel, overlay in self.overlays.items():
            overlay.version = self.next_version(rel)
            client.notify("textDocument/didOpen", {"textDocument": {
                "uri": self.uri(rel), "languageId": "rust", "version": overlay.version, "text": overlay.text}})

    def clear(self) -> None:
        """Forget every overlay (init and shutdown: the analyzer that had them is gone)."""
        self.overlays.clear()

    def showing(self, client: LspClient, file: ProjectFile, content: str | None) -> Shown:
        """Show `content` to the analyzer for the `with` block (nothing when it is None)."""
        return Shown(self, client, file, content)

    def close_document(self, client: LspClient, file: ProjectFile, disk: str | None | _Unread = _UNREAD) -> None:
        """didClose, with the disk text put back first: rust-analyzer re-reads a closed file from disk
        only later, and an op right after must not see the text that was just closed."""
        uri = self.uri(file.rel)
        if disk is _UNREAD:
            disk = read_or_none(file)
        if disk is not None:
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": self.next_version(file.rel)},
                "contentChanges": [{"text": disk}]})
        client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


class Shown:
    """Transient `content` shown for one op. `prepare()`, called while the analyzer works on the op's
    request, reads what the restore needs, so that leaving the block only encodes and writes.

    The restore is written at once, in one write, before the answer is mapped: rust-analyzer then
    settles it (and the diagnostics it recomputes after every edit) while the relay still works, and
    the next op finds it idle. Held back to join the next op's write, or written after the answer,
    the next op was measured slower by more than the write costs."""

    __slots__ = ("_documents", "_client", "_file", "_content", "_overlaid", "_disk")

    def __init__(self, documents: Documents, client: LspClient, file: ProjectFile, content: str | None) -> None:
        self._documents = documents
        self._client = client
        self._file = file
        self._content = content
        self._overlaid = file.rel in documents.overlays
        self._disk: str | None | _Unread = _UNREAD

    @property
    def active(self) -> bool:
        return self._content is not None

    def __enter__(self) -> Shown:
        content = self._content
        if content is not None:
            documents, rel = self._documents, self._file.rel
            uri, version = documents.uri(rel), documents.next_version(rel)
            if self._overlaid:
                self._client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                               "contentChanges": [{"text": content}]})
            else:
                self._client.notify("textDocument/didOpen", {"textDocument": {
                    "uri": uri, "languageId": "rust", "version": version, "text": content}})
        return self

    def prepare(self) -> None:
        if self._content is not None and not self._overlaid and self._disk is _UNREAD:
            self._disk = self._documents.disk_text_or_none(self._file)

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        client, documents, rel = self._client, self._documents, self._file.rel
        if self._content is None or not client.alive:
            return
        current = documents.overlays.get(rel)
        if current is None:
            documents.close_document(client, self._file, self._disk)
        elif self._overlaid:  # else an overlay set meanwhile owns the document now
            current.version = documents.next_version(rel)
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": documents.uri(rel), "version": current.version},
                "contentChanges": [{"text": current.text}]})
        client.flush()


__all__ = ["MISSING_FILE_RECIPE", "Documents", "Overlay", "Shown", "read_or_none"]
