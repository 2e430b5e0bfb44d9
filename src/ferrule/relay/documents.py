"""The files as the analyzer sees them through the relay: persistent overlays with their versions,
the disk text, and transient `content` shown for one op and then taken back.

`update` keeps an overlay (didOpen/didChange with a monotonic version per file); null puts the disk
text back and holds the file.
`content` on validate, complete and type is transient: `showing()` shows it for the op, and leaving
the `with` block puts the file's previous state (overlay or disk) back.

A file shown transiently stays open afterwards, holding its disk text (`held`, the few most recent):
the next `content` for it is then sent as the range that differs, not as the whole file twice. Before
every op, a held file whose disk changed is given its new text (and stays held), so the analyzer
never answers from a disk text that is gone; a file gone from disk is closed.

An op on a file without `content` or an overlay is answered from the disk text the relay reads for
it, not from the analyzer's own copy: that one follows the disk through a file watcher, and an op
right after a write could be answered from the text before it. So the file is shown its disk text
(once: it stays held) unless it is held with that text already.
"""

from __future__ import annotations

import os
import time
from types import TracebackType
from typing import Any

from ferrule.fastframe import LineIndex, changed_span
from ferrule.lsp import LspClient, path_to_uri
from ferrule.project import BadRequest, ProjectFile, ProjectRoot
from ferrule.relay.text_change import Span, ranged_change

MISSING_FILE_RECIPE = "create the file, or send its text with `content` or `update` first"
NOT_A_FILE_RECIPE = "name a Rust source file in it, e.g. `src/lib.rs`"


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
HELD_CAP = 8  # files held open with their disk text: each costs a stat before every op

DiskKey = tuple[int, int, int, int]  # (mtime_ns, ctime_ns, size, inode): the text read is the disk's while it holds
# A file changed this recently may change again within the same tick of the filesystem's clock with
# its size kept, and its key would not show it (as git's racy check): a file held open with such a
# key has its text compared with the disk's before every op until its key settles.
RACY_NS = 50_000_000


class Held:
    """A file left open after a transient show, the analyzer holding its disk text as read at `key`;
    `key` None: read too soon after a change for its key to show the next one, so the text is
    compared instead.

    A changed file stays open with its new text rather than being closed: rust-analyzer takes a
    closed file's text from its loader again, which may still hold a read made while the file was
    being written (an empty or partial text), and an op on another file would be answered for that."""

    __slots__ = ("file", "text", "key")

    def __init__(self, file: ProjectFile, text: str, key: DiskKey | None) -> None:
        self.file, self.text, self.key = file, text, key


def settled(key: DiskKey) -> DiskKey | None:
    """The key, when it will show the file's next change; else None."""
    return None if racy(key) else key


def key_of(seen: os.stat_result) -> DiskKey:
    return seen.st_mtime_ns, seen.st_ctime_ns, seen.st_size, seen.st_ino


def disk_key(path: str) -> DiskKey | None:
    try:
        return key_of(os.stat(path))
    except OSError:
        return None


def racy(key: DiskKey) -> bool:
    """Whether the file changed too recently for its key to show the next change."""
    return time.time_ns() - max(key[0], key[1]) < RACY_NS


def change(client: LspClient, old: str, new: str, span: Span | None = None,
           start_line: int | None = None) -> list[dict[str, Any]]:
    """The contentChanges taking a document the analyzer holds as `old` to `new`: the differing range
    (`span` and its `start_line`, when known already) when the analyzer takes ranges, else the whole text."""
    sync = client.capabilities.get("textDocumentSync")
    incremental = (sync.get("change") if isinstance(sync, dict) else sync) == 2
    ranged = ranged_change(old, new, client.position_encoding, span, start_line) if incremental else None
    return [ranged if ranged is not None else {"text": new}]


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
        self._disk_indexes: dict[str, tuple[DiskKey, LineIndex]] = {}  # rel -> (key, index)
        self._versions: dict[str, int] = {}
        self._uris: dict[str, str] = {}
        self.held: dict[str, Held] = {}  # oldest first
        self.holding = True  # False while diagnostics come as pushes for a version: each show opens anew
        self._showing: dict[str, int] = {}  # transient shows under way, per file
        self._last_span: tuple[str, str, Span] | None = None  # an op asks for its content's span twice

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

    def opened_version(self, rel: str) -> int:
        """The version to open `rel` at without counting a change: its last one (a document opened
        afresh may repeat it), 0 for a file never sent."""
        return self._versions.get(rel, 0)

    # ---- text ------------------------------------------------------------------------------------

    def disk_text(self, file: ProjectFile) -> str:
        try:
            with open(file.real, encoding="utf-8", errors="replace") as handle:
                return handle.read()
        except FileNotFoundError:
            raise BadRequest(f"{file.rel} does not exist", MISSING_FILE_RECIPE) from None
        except IsADirectoryError:
            raise BadRequest(f"{file.rel} is a directory, not a file", NOT_A_FILE_RECIPE) from None
        except OSError as error:
            raise BadRequest(f"{file.rel} could not be read: {error.strerror}",
                             "check the file's permissions, or pass its text in `content`") from None

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
        if content is not None:  # from a text of the file already indexed: only what differs is scanned
            overlay = self.overlays.get(file.rel)
            known = overlay.index if overlay is not None else self._disk_indexes.get(file.rel, (None, None))[1]
            if known is None:
                return LineIndex(content)
            return known.edited(content, *self.span(known.text, content))
        overlay = self.overlays.get(file.rel)
        if overlay is not None:
            return overlay.index
        return self._disk_entry(file)[1]

    def span(self, old: str, new: str) -> Span:
        """Where `old` and `new` differ; the last pair's answer kept: a `content` op needs it for its
        line index and again for the change it sends, over the same two texts."""
        last = self._last_span
        if last is not None and last[0] is old and last[1] is new:
            return last[2]
        span = changed_span(old, new)
        self._last_span = (old, new, span)
        return span

    def disk_state(self, file: ProjectFile) -> tuple[DiskKey | None, str] | None:
        """(key, text) of the file on disk, read again only when the key changed; None when unreadable.
        The key is None when the text was read too soon after a change for the key to show the next."""
        try:
            key, index = self._disk_entry(file)
        except BadRequest:
            return None
        return settled(key), index.text  # judged as it is read: a text kept was read settled

    def index_of(self, rel: str, text: str) -> LineIndex | None:
        """The line index already built for `text` as the file's overlay or disk text, else None."""
        overlay = self.overlays.get(rel)
        if overlay is not None and overlay.text is text:
            return overlay.index
        known = self._disk_indexes.get(rel)
        return known[1] if known is not None and known[1].text is text else None

    def _disk_entry(self, file: ProjectFile) -> tuple[DiskKey, LineIndex]:
        """The disk text's key and line index, built again only when the file changed (its key):
        checking a position must not read and index the whole file on every op."""
        # The sandbox's look as the op began (when it found a regular file) serves the op's first
        # read; any later read of the same checked file looks again.
        seen, file.seen = file.seen, None
        if seen is None:
            try:
                seen = os.stat(file.real)
            except OSError:
                text = self.disk_text(file)  # raises the clear error, unless the file appeared meanwhile
                return (0, 0, -1, 0), LineIndex(text)  # a key no file has: matched by nothing, never kept
        key = key_of(seen)
        known = self._disk_indexes.get(file.rel)
        if known is not None and known[0] == key:
            return known
        entry = key, LineIndex(self.disk_text(file))
        if racy(key):  # the key may not show the next change: read again next time
            return entry
        if len(self._disk_indexes) >= _DISK_INDEX_CAP:
            self._disk_indexes.clear()
        self._disk_indexes[file.rel] = entry
        return entry

    # ---- overlays --------------------------------------------------------------------------------

    def update(self, client: LspClient, file: ProjectFile, content: str | None) -> int:
        """Set, replace or (content None) drop the overlay; the version the analyzer got."""
        uri = self.uri(file.rel)
        version = self.next_version(file.rel)
        overlay = self.overlays.get(file.rel)
        if content is None:
            if overlay is not None:
                del self.overlays[file.rel]
                disk = self.disk_state(file) if self.holding else None
                if disk is None:
                    self.close_document(client, file)
                else:  # back to the disk text and held: closed, it would come from the analyzer's loader
                    key, text = disk
                    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                             "contentChanges": change(client, overlay.text, text)})
                    self.hold(client, file, text, key)
        elif overlay is None:
            self.overlays[file.rel] = Overlay(content, version)
            held = self.held.pop(file.rel, None)
            if held is None:
                client.notify("textDocument/didOpen", {"textDocument": {
                    "uri": uri, "languageId": "rust", "version": version, "text": content}})
            else:  # open already
                client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                         "contentChanges": change(client, held.text, content)})
        else:
            changes = change(client, overlay.text, content)
            overlay.replace(content, version)
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": changes})
        return version

    def reopen_all(self, client: LspClient) -> None:
        """Give a respawned analyzer every overlay again (a held file it reads from disk)."""
        self.held.clear()
        for rel, overlay in self.overlays.items():
            overlay.version = self.next_version(rel)
            client.notify("textDocument/didOpen", {"textDocument": {
                "uri": self.uri(rel), "languageId": "rust", "version": overlay.version, "text": overlay.text}})

    def clear(self) -> None:
        """Forget every overlay and held file (init and shutdown: the analyzer that had them is gone)."""
        self.overlays.clear()
        self.held.clear()

    def before_op(self, client: LspClient, holding: bool, file: ProjectFile | None = None) -> None:
        """Held files whose disk changed get the new text, and stay held; a file gone, or every held
        file while not holding, is closed (not one being shown now). `file`, the op's own as the
        sandbox checked it just now, is not looked at again."""
        self.holding = holding
        changed = []
        for rel, held in self.held.items():
            if rel in self._showing:
                continue
            if holding and held.key is not None:
                seen = file.seen if file is not None and file.rel == rel else None
                if (disk_key(held.file.real) if seen is None else key_of(seen)) == held.key:
                    continue
            changed.append(rel)
        for rel in changed:
            held = self.held[rel]
            # one stat-and-read with the disk index's cache: the op's own read of the file reuses it
            disk = self.disk_state(file if file is not None and file.rel == rel else held.file) if holding else None
            if disk is None:
                del self.held[rel]
                self.close_document(client, held.file)
                continue
            key, text = disk
            if text != held.text:
                client.notify("textDocument/didChange", {
                    "textDocument": {"uri": self.uri(rel), "version": self.next_version(rel)},
                    "contentChanges": change(client, held.text, text)})
            held.text, held.key = text, key

    def is_shown(self, rel: str) -> bool:
        return rel in self._showing

    def show_began(self, rel: str) -> None:
        self._showing[rel] = self._showing.get(rel, 0) + 1

    def show_ended(self, rel: str) -> None:
        left = self._showing[rel] - 1
        if left:
            self._showing[rel] = left
        else:
            del self._showing[rel]

    def hold(self, client: LspClient, file: ProjectFile, text: str, key: DiskKey | None) -> None:
        """Keep a file open with its disk text; the oldest held file is closed past the cap."""
        file.seen = None  # the sandbox's look serves the op that made it: a later op looks afresh
        self.held.pop(file.rel, None)
        self.held[file.rel] = Held(file, text, key)
        while len(self.held) > HELD_CAP:
            oldest = next(iter(self.held))
            if oldest in self._showing:
                break
            self.close_document(client, self.held.pop(oldest).file)

    def show_written(self, client: LspClient, file: ProjectFile, text: str) -> None:
        """The analyzer sees `text`, just written to the file, now rather than once its watcher notices."""
        uri, version = self.uri(file.rel), self.next_version(file.rel)
        held = self.held.get(file.rel)
        if held is None:
            client.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "rust", "version": version, "text": text}})
        else:
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": change(client, held.text, text)})
        key = disk_key(file.real)
        if key is None:
            self.held.pop(file.rel, None)
            client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        else:  # held, not closed: a closed file's text would come from the analyzer's loader again
            self.hold(client, file, text, settled(key))

    def showing(self, client: LspClient, file: ProjectFile, content: str | None) -> Shown:
        """Show `content` to the analyzer for the `with` block; None: the disk text the relay reads, unless
        the file is overlaid or held with that text already."""
        return Shown(self, client, file, content)

    def show_disk(self, client: LspClient, file: ProjectFile) -> None:
        """Have the analyzer hold the disk text the relay reads (once: the file is then held), for an
        op that asks about the file without content and reads no text of its own while it waits:
        its answer is then for the text on disk, not for what the analyzer's file watcher has caught
        up with."""
        with self.showing(client, file, None):
            pass

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

    __slots__ = ("_documents", "_client", "_file", "_content", "_overlaid", "_disk", "_from_disk", "_before", "_span",
                 "_start_line")

    def __init__(self, documents: Documents, client: LspClient, file: ProjectFile, content: str | None) -> None:
        self._documents = documents
        self._client = client
        self._file = file
        self._overlaid = file.rel in documents.overlays
        self._disk: tuple[DiskKey | None, str] | None | _Unread = _UNREAD
        self._from_disk = False  # the disk text shown, for an op without content on a file not held
        # (a show under way is another read's show of that same text: the ops that show other text
        # change the file, and the scheduler runs none of them beside a read of it)
        if (content is None and not self._overlaid and documents.holding and file.rel not in documents.held
                and not documents.is_shown(file.rel)):
            disk = documents.disk_state(file)  # the text the op reads is the text the analyzer sees
            if disk is not None:
                content, self._disk, self._from_disk = disk[1], disk, True
        self._content = content
        self._before: str | None = None  # the text the analyzer held before the show, when open
        self._span: Span | None = None  # where `_before` and the content differ: the restore's span too
        self._start_line = 0  # the line where that span starts, the same in both texts

    @property
    def active(self) -> bool:
        return self._content is not None

    def __enter__(self) -> Shown:
        content = self._content
        if content is not None:
            documents, rel, client = self._documents, self._file.rel, self._client
            uri = documents.uri(rel)
            # the disk text opens at the version the file is at: the count `update` answers moves
            # only when a text other than the disk's is sent
            version = documents.opened_version(rel) if self._from_disk else documents.next_version(rel)
            held = None if self._overlaid else documents.held.get(rel)
            if held is not None:
                self._disk = (held.key, held.text)  # checked against the disk at the op's start
            self._before = documents.overlays[rel].text if self._overlaid else held.text if held else None
            if self._before is None:
                client.notify("textDocument/didOpen", {"textDocument": {
                    "uri": uri, "languageId": "rust", "version": version, "text": content}})
            else:
                self._span = span = documents.span(self._before, content)
                known = documents.index_of(rel, self._before)  # the line by bisection, not a count
                self._start_line = (known.position(span[0])[0] if known is not None
                                    else self._before.count("\n", 0, span[0]))
                changes = change(client, self._before, content, span, self._start_line)
                client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                         "contentChanges": changes})
            documents.show_began(rel)  # only once it is shown: a show that failed leaves nothing to end
        return self

    def _restore(self, content: str, text: str) -> list[dict[str, Any]]:
        """The change from `content` back to `text`: the show's span turned round, when `text` is what
        the show left."""
        span = self._span
        if span is None or text is not self._before:
            return change(self._client, content, text)
        return change(self._client, content, text, (span[0], span[2], span[1]), self._start_line)

    def prepare(self) -> None:
        if self._content is not None and not self._overlaid and self._disk is _UNREAD:
            self._disk = self._documents.disk_state(self._file)

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        client, documents, rel, content = self._client, self._documents, self._file.rel, self._content
        if content is None:
            return
        documents.show_ended(rel)
        if not client.alive:
            return
        current = documents.overlays.get(rel)
        if current is None:
            disk = self._disk
            if not isinstance(disk, tuple) or not documents.holding or self._overlaid:
                documents.held.pop(rel, None)
                documents.close_document(client, self._file, disk if not isinstance(disk, tuple) else disk[1])
            else:  # back to the disk text, and held open for the next show
                key, text = disk
                if content is not text:  # else the disk text was what was shown
                    client.notify("textDocument/didChange", {
                        "textDocument": {"uri": documents.uri(rel), "version": documents.next_version(rel)},
                        "contentChanges": self._restore(content, text)})
                documents.hold(client, self._file, text, key)
        elif self._overlaid:  # else an overlay set meanwhile owns the document now
            current.version = documents.next_version(rel)
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": documents.uri(rel), "version": current.version},
                "contentChanges": self._restore(content, current.text)})
        client.flush()


__all__ = ["HELD_CAP", "MISSING_FILE_RECIPE", "Documents", "Held", "Overlay", "Shown", "read_or_none"]
