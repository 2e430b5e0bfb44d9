"""file:// URIs for local paths, both ways."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

# Characters left unescaped in a path, as VS Code and rust-analyzer write them.
_SAFE = "/:@!$&'()*+,;=-._~"


def path_to_uri(path: str | os.PathLike[str]) -> str:
    text = os.fspath(path)
    if os.name == "nt":  # C:\x -> /C:/x
        text = "/" + text.replace("\\", "/")
    return "file://" + quote(text, safe=_SAFE)


def uri_to_path(uri: str) -> Path:
    parts = urlsplit(uri)
    if parts.scheme != "file":
        raise ValueError(f"not a file URI: {uri!r}")
    text = unquote(parts.path)
    if os.name == "nt" and len(text) > 2 and text[0] == "/" and text[2] == ":":
        text = text[1:]
    return Path(text)
