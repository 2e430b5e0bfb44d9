"""Where two texts (str or bytes) differ: their common prefix and suffix taken away, one span.

Found with whole-slice compares (memcmp speed) whose length doubles while the texts agree, then a
binary search inside the first slice that differs: a one-line change in a 6k-line file costs a few
dozen compares, never a loop over characters.
"""

from __future__ import annotations

from typing import TypeVar

Text = TypeVar("Text", str, bytes)

_FIRST_STEP = 4096


def changed_span(old: Text, new: Text) -> tuple[int, int, int]:
    """(start, old_end, new_end): `old[start:old_end]` became `new[start:new_end]`, the rest is shared."""
    limit = min(len(old), len(new))
    start = _common_prefix(old, new, limit)
    back = _common_suffix(old, new, limit - start)  # the suffix may not reach back into the prefix
    return start, len(old) - back, len(new) - back


def _common_prefix(a: Text, b: Text, limit: int) -> int:
    start, step = 0, _FIRST_STEP
    while start < limit:
        stop = min(start + step, limit)
        if a[start:stop] != b[start:stop]:
            while stop - start > 1:  # the first difference lies in [start, stop)
                middle = (start + stop) // 2
                if a[start:middle] == b[start:middle]:
                    start = middle
                else:
                    stop = middle
            return start
        start, step = stop, step * 2
    return limit


def _common_suffix(a: Text, b: Text, limit: int) -> int:
    length, step = 0, _FIRST_STEP
    a_end, b_end = len(a), len(b)
    while length < limit:
        longer = min(length + step, limit)
        if a[a_end - longer:a_end - length] != b[b_end - longer:b_end - length]:
            while longer - length > 1:  # the last difference lies within the last `longer` items
                middle = (length + longer) // 2
                if a[a_end - middle:a_end - length] == b[b_end - middle:b_end - length]:
                    length = middle
                else:
                    longer = middle
            return length
        length, step = longer, step * 2
    return limit


__all__ = ["changed_span"]
