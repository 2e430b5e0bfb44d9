"""Path safety and the error taxonomy: what a host sees when it names a file badly."""

from __future__ import annotations

import os

import pytest

from ferrule.relay.errors import KINDS, OpTimeout, ProtocolError, RelayError
from ferrule.relay.paths import ProjectRoot


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "crate"
    (root / "src").mkdir(parents=True)
    (root / "src" / "lib.rs").write_text("pub fn f() {}\n")
    (tmp_path / "secret.rs").write_text("secret\n")
    return root


def test_relative_path_resolves_inside_root(project):
    found = ProjectRoot(project).file("src/lib.rs")
    assert found.rel == "src/lib.rs"
    assert found.path.read_text() == "pub fn f() {}\n"


def test_dot_segments_and_doubled_slashes_normalise(project):
    assert ProjectRoot(project).file("./src//lib.rs").rel == "src/lib.rs"


def test_file_that_does_not_exist_yet_is_allowed(project):
    assert ProjectRoot(project).file("src/new.rs").rel == "src/new.rs"


@pytest.mark.parametrize(
    "bad",
    ["/etc/passwd", "../secret.rs", "src/../../secret.rs", "C:/Windows/win.ini", "src\\lib.rs", "", ".", "a\x00b"],
)
def test_escapes_and_malformed_paths_are_protocol_errors(project, bad):
    with pytest.raises(ProtocolError) as caught:
        ProjectRoot(project).file(bad)
    assert caught.value.to_json()["kind"] == "protocol"
    assert caught.value.recipe


def test_non_string_path_is_refused(project):
    with pytest.raises(ProtocolError):
        ProjectRoot(project).file(42)


def test_symlink_leaving_root_is_refused(project):
    os.symlink(project.parent / "secret.rs", project / "src" / "leak.rs")
    os.symlink(project.parent, project / "up")
    root = ProjectRoot(project)
    with pytest.raises(ProtocolError, match="outside the project root"):
        root.file("src/leak.rs")
    with pytest.raises(ProtocolError, match="outside the project root"):
        root.file("up/secret.rs")


def test_symlink_inside_root_is_canonicalised(project):
    os.symlink(project / "src" / "lib.rs", project / "alias.rs")
    assert ProjectRoot(project).file("alias.rs").rel == "src/lib.rs"


def test_root_given_through_a_symlink_still_contains_its_files(project, tmp_path):
    os.symlink(project, tmp_path / "link")
    root = ProjectRoot(tmp_path / "link")
    assert root.file("src/lib.rs").path == project.resolve() / "src" / "lib.rs"
    assert root.relative(project / "src" / "lib.rs") == "src/lib.rs"
    assert root.relative(tmp_path / "secret.rs") is None


def test_every_kind_serialises_to_the_wire_shape():
    assert set(KINDS) == {"rust-analyzer-missing", "workspace-unloadable", "oracle-crashed", "protocol", "timeout"}
    for kind, cls in KINDS.items():
        err = cls("it broke")
        assert isinstance(err, RelayError)
        assert err.to_json() == {"kind": kind, "message": "it broke", "recipe": err.recipe}
        assert err.recipe, f"{kind} carries no recipe"


def test_timeout_names_op_and_budget():
    err = OpTimeout.for_op("complete", 250)
    assert "complete" in err.message and "250 ms" in err.message
    assert "complete" in err.recipe and "250" in err.recipe


def test_unknown_op_lists_known_ops():
    err = ProtocolError.unknown_op("frobnicate", ["init", "type"])
    assert "frobnicate" in err.message and "init, type" in err.recipe
