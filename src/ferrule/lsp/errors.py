"""What can go wrong between the client and a language server."""

from __future__ import annotations

# JSON-RPC / LSP error codes the client acts on.
METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603
REQUEST_CANCELLED = -32800
CONTENT_MODIFIED = -32801
SERVER_CANCELLED = -32802

RETRYABLE_CODES = frozenset({CONTENT_MODIFIED, SERVER_CANCELLED})


class LspError(Exception):
    """Base of every client-side failure."""


class ResponseError(LspError):
    """The server answered a request with a JSON-RPC error."""

    def __init__(self, method: str, code: int, message: str, data: object = None) -> None:
        super().__init__(f"{method}: {message} (code {code})")
        self.method = method
        self.code = code
        self.message = message
        self.data = data

    @property
    def retryable(self) -> bool:
        """The document changed under the request (ContentModified) or the server gave up on it."""
        return self.code in RETRYABLE_CODES


class ServerExited(LspError):
    """The server process died or closed its output; pending requests fail with this."""

    def __init__(self, returncode: int | None, stderr_tail: str = "", reason: str = "") -> None:
        how = reason or (
            "server output closed" if returncode is None else f"server exited with status {returncode}"
        )
        detail = f"; last stderr: {stderr_tail.strip()[-500:]}" if stderr_tail.strip() else ""
        super().__init__(how + detail)
        self.returncode = returncode
        self.stderr_tail = stderr_tail


class RequestTimeout(LspError):
    """No answer within the caller's budget; the request was cancelled with $/cancelRequest."""

    def __init__(self, method: str, timeout: float) -> None:
        super().__init__(f"{method}: no answer within {timeout:.3f} s")
        self.method = method
        self.timeout = timeout
