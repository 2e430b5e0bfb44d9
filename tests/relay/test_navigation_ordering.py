"""How serve orders the navigation ops: on their file when one file is all they touch, as barriers when
they are named by symbol or query, or apply an edit that may reach other files."""

from __future__ import annotations

import orjson
import pytest

from ferrule.project import ProjectRoot
from ferrule.relay.envelope import parse_request


@pytest.fixture
def root(tmp_path) -> ProjectRoot:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.rs").write_text("pub fn a() {}\n")
    return ProjectRoot(tmp_path)


AT = {"file": "src/lib.rs", "position": {"line": 1, "character": 7}}


@pytest.mark.parametrize(("op", "params", "file", "reads"), [
    ("definition", AT, "src/lib.rs", True),
    ("references", {**AT, "max": 3}, "src/lib.rs", True),
    ("definition", {"symbol": "a"}, None, True),
    ("symbols", {"query": "a"}, None, True),
    ("symbols", {"file": "src/lib.rs"}, "src/lib.rs", True),
    ("rename", {**AT, "new_name": "b"}, "src/lib.rs", True),
    ("rename", {**AT, "new_name": "b", "apply": "overlay"}, None, False),
    ("apply_fix", {"file": "src/lib.rs", "id": "1:0-1:0/0/00000000/00000000"}, "src/lib.rs", True),
    ("apply_fix", {"file": "src/lib.rs", "id": "1:0-1:0/0/00000000/00000000", "apply": "disk"}, None, False),
])
def test_the_ordering_key_of_each_navigation_request(root, op, params, file, reads):
    frame = orjson.dumps({"proto": 1, "id": 1, "op": op, "params": params})
    request = parse_request(frame, root)
    assert request.file == file
    assert request.only_reads is reads


def test_a_navigation_request_naming_a_file_outside_the_root_is_refused(root):
    from ferrule.relay.envelope import FrameRejected

    for path in ("../x.rs", "/etc/passwd"):
        frame = orjson.dumps({"proto": 1, "id": 1, "op": "references",
                              "params": {"file": path, "position": {"line": 1, "character": 0}}})
        with pytest.raises(FrameRejected) as rejected:
            parse_request(frame, root)
        assert rejected.value.error.kind == "protocol"
