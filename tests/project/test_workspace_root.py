"""The root every command picks for a file: the workspace its package belongs to, as cargo finds it."""

from __future__ import annotations

from pathlib import Path

from ferrule.project import project_root


def manifest(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "Cargo.toml").write_text(text, encoding="utf-8")
    (folder / "src").mkdir(exist_ok=True)
    return folder


def package(name: str, extra: str = "") -> str:
    return f'[package]\nname = "{name}"\nversion = "0.1.0"\n{extra}'


def test_a_member_file_belongs_to_the_workspace_root(tmp_path):
    manifest(tmp_path, '[workspace]\nmembers = ["crates/*", "app"]\n')
    core = manifest(tmp_path / "crates" / "core", package("core"))
    app = manifest(tmp_path / "app", package("app"))
    assert project_root(core / "src" / "lib.rs") == tmp_path
    assert project_root(app / "src" / "main.rs") == tmp_path
    assert project_root(app) == tmp_path  # a folder to start in, as `ferrule serve` and `check` use


def test_a_package_outside_the_members_is_its_own_root(tmp_path):
    manifest(tmp_path, '[workspace]\nmembers = ["app"]\nexclude = ["vendor"]\n')
    loose = manifest(tmp_path / "tools" / "loose", package("loose"))
    vendored = manifest(tmp_path / "vendor" / "dep", package("dep"))
    assert project_root(loose / "src" / "lib.rs") == loose
    assert project_root(vendored / "src" / "lib.rs") == vendored


def test_a_member_may_name_its_workspace(tmp_path):
    manifest(tmp_path / "ws", '[workspace]\nmembers = ["../elsewhere"]\n')
    member = manifest(tmp_path / "elsewhere", package("elsewhere", 'workspace = "../ws"\n'))
    assert project_root(member / "src" / "lib.rs") == tmp_path / "ws"


def test_a_root_package_with_a_workspace_table_is_the_root(tmp_path):
    manifest(tmp_path, package("root") + '\n[workspace]\nmembers = ["sub"]\n')
    sub = manifest(tmp_path / "sub", package("sub"))
    assert project_root(tmp_path / "src" / "lib.rs") == tmp_path
    assert project_root(sub / "src" / "lib.rs") == tmp_path


def test_no_manifest_above_is_no_root(tmp_path):
    (tmp_path / "loose.rs").write_text("fn main() {}\n", encoding="utf-8")
    assert project_root(tmp_path / "loose.rs") is None


def test_an_unreadable_manifest_above_leaves_the_package_its_own_root(tmp_path):
    (tmp_path / "Cargo.toml").write_text("[workspace\nmembers = [", encoding="utf-8")
    member = manifest(tmp_path / "app", package("app"))
    assert project_root(member / "src" / "main.rs") == member
