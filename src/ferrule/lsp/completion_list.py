"""A `textDocument/completion` answer decoded with only the fields the relay reads.

A completion list on a large file is the biggest answer the analyzer sends (50-60 KB for 130-160
items), and most of it is each item's edit and resolve data. Decoded in full, it costs more CPU than
the rest of the op; here those two members stay undecoded bytes (`msgspec.Raw`) until an item goes
back to the analyzer (`as_sent`), and members nobody reads are skipped. Without msgspec (an
interpreter it has no build for), the answer is decoded in full: the result has the same shape.
"""

from __future__ import annotations

from typing import Any, TypedDict

import orjson

try:
    import msgspec
except ImportError:  # pragma: no cover - msgspec builds for every CPython the package supports
    msgspec = None  # type: ignore[assignment]


def as_sent(item: dict[str, Any]) -> dict[str, Any]:
    """The item as the analyzer sent it, for `completionItem/resolve`: undecoded members decoded."""
    if msgspec is None:
        return item
    return {key: orjson.loads(memoryview(value)) if isinstance(value, msgspec.Raw) else value
            for key, value in item.items()}


if msgspec is not None:

    class _Item(TypedDict, total=False):
        label: str
        kind: int
        detail: str
        sortText: str
        filterText: str
        documentation: Any
        textEdit: msgspec.Raw
        data: msgspec.Raw

    class _List(TypedDict, total=False):
        isIncomplete: bool
        items: list[_Item]

    class _Answer(TypedDict, total=False):
        id: int | str | None
        result: _List | list[_Item] | None
        error: Any

    _decode = msgspec.json.Decoder(_Answer).decode
    _SHAPE_ERRORS = (msgspec.ValidationError, msgspec.DecodeError)

    def decode_answer(body: bytes) -> dict[str, Any]:
        """The response `body` with its completion items cut to the fields read; an answer of another
        shape, or not JSON, goes to orjson (which then says what is wrong with it)."""
        try:
            return _decode(body)  # type: ignore[return-value]
        except _SHAPE_ERRORS:
            return orjson.loads(body)  # type: ignore[no-any-return]

else:  # pragma: no cover
    decode_answer = orjson.loads


__all__ = ["as_sent", "decode_answer"]
