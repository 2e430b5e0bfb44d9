"""Path safety and the error taxonomy: what a host sees when it names a file badly."""

from __future__ import annotations

import os

import pytest

from ferrule.project import KINDS, BadRequest, FerruleError, OpTimeout, ProjectRoot, sandbox


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
    with pytest.raises(BadRequest) as caught:
        ProjectRoot(project).file(bad)
    assert caught.value.to_json()["kind"] == "protocol"
    assert caught.value.recipe


def test_an_absolute_name_inside_the_root_is_taken_as_its_relative_name_and_checked_again(project):
    """Agents name files absolutely; the relative name they become still goes through the checks."""
    root = ProjectRoot(project)
    assert root.name_of(str(project / "src" / "lib.rs")) == "src/lib.rs"
    assert root.name_of(str(project / "src" / ".." / "src" / "lib.rs")) == "src/lib.rs"
    assert root.name_of("src/lib.rs") == "src/lib.rs"  # relative: as given, for `file` to judge
    with pytest.raises(BadRequest, match="outside the project root"):
        root.name_of(str(project.parent / "secret.rs"))
    with pytest.raises(BadRequest, match="names the project root"):
        root.name_of(str(project))
    os.symlink(project.parent / "secret.rs", project / "src" / "leak.rs")  # inside by name, outside in fact
    with pytest.raises(BadRequest, match="outside the project root"):
        root.file(root.name_of(str(project / "src" / "leak.rs")))
    os.symlink(project, project.parent / "link")  # the root reached through a link
    assert root.name_of(str(project.parent / "link" / "src" / "lib.rs")) == "src/lib.rs"
    # `..` after a link goes where the link leads, not back into the root by name
    os.symlink(project.parent, project / "out")
    with pytest.raises(BadRequest, match="outside the project root"):
        root.name_of(str(project / "out" / ".." / "secret.rs"))
    for unusable in ("/tmp/\ud800", "/" + "a/" * 3000):  # no file system path: refused before any look
        with pytest.raises(BadRequest):
            root.name_of(unusable)
    with pytest.raises(BadRequest, match="not valid Unicode"):
        root.file("src/\ud800.rs")


def test_non_string_path_is_refused(project):
    with pytest.raises(BadRequest):
        ProjectRoot(project).file(42)


def test_symlink_leaving_root_is_refused(project):
    os.symlink(project.parent / "secret.rs", project / "src" / "leak.rs")
    os.symlink(project.parent, project / "up")
    root = ProjectRoot(project)
    with pytest.raises(BadRequest, match="outside the project root"):
        root.file("src/leak.rs")
    with pytest.raises(BadRequest, match="outside the project root"):
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

        monkeypatch.setattr(sandbox.os, "lstat", lstat)


def test_a_clean_path_is_looked_up_again_on_every_request(project, monkeypatch):
    root = ProjectRoot(project)
    lstat = _CountedLstat(monkeypatch)
    first = root.file("src/lib.rs")
    looked = lstat.calls
    assert looked == 2 and first.regular is True
    assert root.file("src/lib.rs") == first
    assert lstat.calls == 2 * looked, "nothing is trusted from an earlier look"


def test_a_clean_path_turned_into_an_escaping_symlink_is_refused_at_once(project):
    root = ProjectRoot(project)
    assert root.file("src/lib.rs").regular
    os.unlink(project / "src" / "lib.rs")
    os.symlink(project.parent / "secret.rs", project / "src" / "lib.rs")
    with pytest.raises(BadRequest, match="outside the project root"):
        root.file("src/lib.rs")  # the very next request: no window in which the old answer holds


def test_a_clean_directory_swapped_for_an_escaping_symlink_is_refused_at_once(project):
    root = ProjectRoot(project)
    assert root.file("src/lib.rs").regular
    (project.parent / "elsewhere").mkdir()
    (project.parent / "elsewhere" / "lib.rs").write_text("secret\n")
    os.rename(project / "src", project / "src.old")
    os.symlink(project.parent / "elsewhere", project / "src")
    with pytest.raises(BadRequest, match="outside the project root"):
        root.file("src/lib.rs")


def test_a_path_through_a_symlink_is_checked_every_time(project):
    root = ProjectRoot(project)
    os.symlink(project / "src" / "lib.rs", project / "alias.rs")
    assert root.file("alias.rs").rel == "src/lib.rs"
    os.unlink(project / "alias.rs")
    os.symlink(project.parent / "secret.rs", project / "alias.rs")
    with pytest.raises(BadRequest, match="outside the project root"):
        root.file("alias.rs")


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
        assert isinstance(err, FerruleError)
        assert err.to_json() == {"kind": kind, "message": "it broke", "recipe": err.recipe}
        assert err.recipe, f"{kind} carries no recipe"


def test_timeout_names_op_and_budget():
    err = OpTimeout.for_op("complete", 250)
    assert "complete" in err.message and "250 ms" in err.message
    assert "complete" in err.recipe and "250" in err.recipe


def test_unknown_op_lists_known_ops():
    err = BadRequest.unknown_op("frobnicate", ["init", "type"])
    assert "frobnicate" in err.message and "init, type" in err.recipe


def test_the_check_keeps_its_look_at_a_regular_file_only(project):
    root = ProjectRoot(project)
    checked = root.file("src/lib.rs")
    assert checked.seen is not None and checked.seen.st_ino == os.stat(project / "src" / "lib.rs").st_ino
    os.symlink(project / "src" / "lib.rs", project / "alias.rs")
    assert root.file("alias.rs").seen is None, "through a link, nobody looked at the file itself"
    assert root.file("src/new.rs").seen is None and root.file("src").seen is None


def test_a_refused_name_is_refused_every_time(project):
    root = ProjectRoot(project)
    for _ in range(2):
        with pytest.raises(BadRequest, match="may not leave"):
            root.file("src/../../x.rs")
