"""Path safety and the error taxonomy: what a host sees when it names a file badly."""

from __future__ import annotations

import os

import pytest

from ferrule.relay import paths
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


class _CountedLstat:
    """os.lstat as the path check sees it, counted."""

    def __init__(self, monkeypatch):
        self.calls = 0
        real = os.lstat

        def lstat(path, *args, **kwargs):
            self.calls += 1
            return real(path, *args, **kwargs)

        monkeypatch.setattr(paths.os, "lstat", lstat)


class _Clock:
    def __init__(self, monkeypatch):
        self.now = 1000.0
        monkeypatch.setattr(paths.time, "monotonic", lambda: self.now)


def test_a_clean_path_is_not_looked_up_again_within_the_reuse_window(project, monkeypatch):
    root = ProjectRoot(project)
    lstat, clock = _CountedLstat(monkeypatch), _Clock(monkeypatch)
    first = root.file("src/lib.rs")
    looked = lstat.calls
    assert looked == 2 and first.regular is True
    clock.now += paths.CLEAN_REUSE_S / 2
    assert root.file("src/lib.rs") is first
    assert lstat.calls == looked, "a host asking in a loop pays no syscalls for the same path"
    clock.now += paths.CLEAN_REUSE_S
    assert root.file("src/lib.rs") == first
    assert lstat.calls == 2 * looked, "after the window the path is checked again"


def test_a_clean_path_turned_into_an_escaping_symlink_is_refused_once_the_window_passes(project, monkeypatch):
    root, clock = ProjectRoot(project), _Clock(monkeypatch)
    assert root.file("src/lib.rs").regular
    os.unlink(project / "src" / "lib.rs")
    os.symlink(project.parent / "secret.rs", project / "src" / "lib.rs")
    clock.now += paths.CLEAN_REUSE_S + 0.001
    with pytest.raises(ProtocolError, match="outside the project root"):
        root.file("src/lib.rs")


def test_a_path_through_a_symlink_is_checked_every_time(project, monkeypatch):
    root = ProjectRoot(project)
    _Clock(monkeypatch)  # time stands still: a cached answer, if there were one, would still be fresh
    os.symlink(project / "src" / "lib.rs", project / "alias.rs")
    assert root.file("alias.rs").rel == "src/lib.rs"
    os.unlink(project / "alias.rs")
    os.symlink(project.parent / "secret.rs", project / "alias.rs")
    with pytest.raises(ProtocolError, match="outside the project root"):
        root.file("alias.rs")  # at once, the clock unmoved: no reuse window for links


def test_a_missing_file_is_not_remembered(project):
    root = ProjectRoot(project)
    assert root.file("src/new.rs").regular is False
    (project / "src" / "new.rs").write_text("pub fn g() {}\n")
    assert root.file("src/new.rs").regular is True
    assert root.file("src").regular is False, "a directory is not a file the ops can read"


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
