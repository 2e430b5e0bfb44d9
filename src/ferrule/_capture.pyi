"""Types of the compiled twin; `ferrule._capture_py` is the same API in Python."""

from types import TracebackType

from ferrule._capture_shared import Captured

__all__ = ["StderrCapture", "capture_stderr"]

class StderrCapture:
    @property
    def limit(self) -> int | None: ...
    def __init__(self, limit: int | None = None) -> None: ...
    def __enter__(self) -> Captured: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

def capture_stderr(limit: int | None = None) -> StderrCapture: ...
