"""Which files outside the project the relay may read: only those under a library root, as named."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from ferrule.relay import texts
from ferrule.relay.libraries import LibraryRoots


def test_library_files_are_shown_under_their_root_and_nothing_else_is_a_library(tmp_path):
    sysroot = tmp_path / "library"
    (sysroot / "alloc" / "src" / "vec").mkdir(parents=True)
    registry = tmp_path / "cargo" / "registry" / "src" / "index.crates.io-6f17d22bba15001f"
    (registry / "serde-1.0.152" / "src" / "de").mkdir(parents=True)
    roots = LibraryRoots.from_environment({"RUST_SRC_PATH": str(sysroot), "CARGO_HOME": str(tmp_path / "cargo")})
    vec = str(sysroot / "alloc" / "src" / "vec" / "mod.rs")
    assert roots.shown(vec) == ("alloc/src/vec/mod.rs", vec)
    de = registry / "serde-1.0.152" / "src" / "de" / "mod.rs"
    assert roots.shown(str(de))[0] == "serde-1.0.152/src/de/mod.rs"
    for outside in ("/etc/passwd", f"{sysroot}/../secret.rs", f"{sysroot}/alloc/../../secret.rs",
                    str(tmp_path / "cargo" / "registry" / "src" / "stray.rs"), str(sysroot) + "-evil/x.rs"):
        assert roots.shown(outside) is None, outside


def _crates(folder: Path, *names: str) -> None:
    """Crate folders as cargo vendors them: each with its checksum file."""
    for name in names:
        (folder / name / "src").mkdir(parents=True)
        (folder / name / ".cargo-checksum.json").write_text('{"files": {}}')


def test_cargo_checkouts_and_the_folders_its_configuration_puts_in_place_of_a_source_are_libraries(tmp_path):
    cargo = tmp_path / "cargo"
    checkout = cargo / "git" / "checkouts" / "either-3f1a2b4c" / "9c8d7e6" / "src"
    checkout.mkdir(parents=True)
    packaged = tmp_path / "usr" / "share" / "cargo" / "registry"
    _crates(packaged, "fnv-1.0.7")
    (cargo / "config.toml").write_text(f'[source.crates-io]\nreplace-with = "packaged"\n\n'
                                       f'[source.packaged]\ndirectory = "{packaged}"\n')
    project = tmp_path / "work" / "app"
    (project / ".cargo").mkdir(parents=True)
    _crates(tmp_path / "work" / "vendor", "smallvec-1.9.0")
    # relative to the folder that holds `.cargo`: the project's parent's `vendor`
    (project / ".cargo" / "config.toml").write_text('[source.vendored]\ndirectory = "../vendor"\n')
    (tmp_path / "work" / ".cargo").mkdir()
    (tmp_path / "work" / ".cargo" / "config").write_text("[source.broken\n")  # does not parse: adds nothing
    roots = LibraryRoots.from_environment({"CARGO_HOME": str(cargo)}, project=project)
    assert roots.shown(str(checkout / "lib.rs"))[0] == "either-3f1a2b4c/9c8d7e6/src/lib.rs"
    assert roots.shown(str(packaged / "fnv-1.0.7" / "lib.rs"))[0] == "fnv-1.0.7/lib.rs"
    vendored = tmp_path / "work" / "vendor" / "smallvec-1.9.0" / "src" / "lib.rs"
    assert roots.shown(str(vendored))[0] == "smallvec-1.9.0/src/lib.rs"
    assert roots.shown(str(tmp_path / "work" / "app" / "secret.rs")) is None
    elsewhere = LibraryRoots.from_environment({"CARGO_HOME": str(cargo)}, project=tmp_path / "other")
    assert elsewhere.shown(str(vendored)) is None, "another project's vendored folder is not this one's library"


def test_the_standard_librarys_own_vendored_dependencies_are_libraries(tmp_path):
    """A toolchain whose `library` workspace vendors its dependencies names them in its own cargo
    configuration: the analyzer's answers point there (`getopts` for `test`)."""
    library = tmp_path / "std-src" / "library"
    (library / ".cargo").mkdir(parents=True)
    _crates(tmp_path / "std-src" / "registry", "getopts-0.2.24")
    (library / ".cargo" / "config.toml").write_text('[source.crates-io]\nreplace-with = "std"\n\n'
                                                    '[source.std]\ndirectory = "../registry"\n')
    getopts = tmp_path / "std-src" / "registry" / "getopts-0.2.24" / "src" / "lib.rs"
    roots = LibraryRoots.from_environment({"RUST_SRC_PATH": str(library), "CARGO_HOME": str(tmp_path / "cargo")})
    assert roots.shown(str(getopts))[0] == "getopts-0.2.24/src/lib.rs"
    bare = tmp_path / "bare" / "library"
    bare.mkdir(parents=True)
    elsewhere = LibraryRoots.from_environment({"RUST_SRC_PATH": str(bare), "CARGO_HOME": str(tmp_path / "cargo")})
    assert elsewhere.shown(str(getopts)) is None, "another toolchain's vendored folder is not this one's library"


def test_the_standard_librarys_configuration_cannot_make_a_folder_holding_the_project_a_library(tmp_path):
    project = tmp_path / "shared" / "app"
    project.mkdir(parents=True)
    _crates(tmp_path / "shared", "crate1")
    library = tmp_path / "toolchain" / "library"
    (library / ".cargo").mkdir(parents=True)
    (library / ".cargo" / "config.toml").write_text(f'[source.std]\ndirectory = "{tmp_path / "shared"}"\n')
    # a configuration above the library is not the library workspace's own: not read
    (tmp_path / "toolchain" / ".cargo").mkdir()
    _crates(tmp_path / "above", "crate2")
    (tmp_path / "toolchain" / ".cargo" / "config.toml").write_text(f'[source.x]\ndirectory = "{tmp_path / "above"}"\n')
    roots = LibraryRoots.from_environment({"RUST_SRC_PATH": str(library), "CARGO_HOME": str(tmp_path / "cargo")},
                                          project=project)
    for outside in (tmp_path / "shared" / "sibling.rs", tmp_path / "shared" / "crate1" / "lib.rs",
                    tmp_path / "above" / "crate2" / "lib.rs"):
        assert roots.shown(str(outside)) is None, outside


@pytest.mark.parametrize(("directory", "crates_in"), [
    ("..", "work"), (".", "work/app"), ("../..", ""),  # a folder holding the project, crates or not
    ("/", None), ("{home}", None),
    ("plain", None),  # no crate's checksum file there: not a vendored source
])
def test_a_projects_configuration_cannot_make_a_folder_above_it_or_any_folder_a_library(tmp_path, directory,
                                                                                         crates_in):
    """The relay reads a library's lines: a cloned project's `.cargo/config.toml` naming `/`, a folder
    holding the project or the home folder, or a folder of no vendored crates adds nothing."""
    project = tmp_path / "work" / "app"
    (project / ".cargo").mkdir(parents=True)
    (project / "plain" / "notes").mkdir(parents=True)
    (project.parent / "sibling").mkdir()
    if crates_in is not None:
        _crates(tmp_path / crates_in, "evil-1.0.0")
    folder = directory.format(home=Path.home())
    (project / ".cargo" / "config.toml").write_text(f'[source.x]\ndirectory = "{folder}"\n')
    roots = LibraryRoots.from_environment({"CARGO_HOME": str(tmp_path / "cargo")}, project=project)
    for outside in ("/etc/passwd", str(project.parent / "sibling" / "x.rs"), str(Path.home() / ".ssh" / "id"),
                    str(project / "plain" / "notes" / "x.rs"), str(tmp_path / (crates_in or "") / "evil-1.0.0" / "a.rs")):
        assert roots.shown(outside) is None, (directory, outside)


def test_of_two_configuration_files_in_one_folder_the_one_without_an_extension_counts(tmp_path):
    project = tmp_path / "app"
    (project / ".cargo").mkdir(parents=True)
    _crates(tmp_path / "legacy", "hex-0.4.3")
    _crates(tmp_path / "newer", "itoa-1.0.1")
    (project / ".cargo" / "config").write_text(f'[source.x]\ndirectory = "{tmp_path / "legacy"}"\n')
    (project / ".cargo" / "config.toml").write_text(f'[source.x]\ndirectory = "{tmp_path / "newer"}"\n')
    roots = LibraryRoots.from_environment({"CARGO_HOME": str(tmp_path / "cargo")}, project=project)
    assert roots.shown(str(tmp_path / "legacy" / "hex-0.4.3" / "src" / "lib.rs")) is not None
    assert roots.shown(str(tmp_path / "newer" / "itoa-1.0.1" / "src" / "lib.rs")) is None


def test_a_file_changed_on_disk_is_read_again(tmp_path):
    file = tmp_path / "a.rs"
    file.write_text("fn a() {}\n")
    assert texts.disk(str(file))[0] == "fn a() {}\n"
    file.write_text("fn b() {}\n")
    later = time.time() + 1
    os.utime(file, (later, later))  # a coarse clock may give both writes one mtime
    text, index = texts.disk(str(file))
    assert text == "fn b() {}\n" and index.line(0) == "fn b() {}"


def test_the_analyzer_is_told_what_navigation_needs(tmp_path):
    from ferrule.relay.analyzer import initialize_params

    capabilities = initialize_params(tmp_path)["capabilities"]
    text = capabilities["textDocument"]
    assert text["documentSymbol"]["hierarchicalDocumentSymbolSupport"] is True
    assert text["rename"]["prepareSupport"] is True
    assert "edit" in text["codeAction"]["resolveSupport"]["properties"]
    assert "quickfix" in text["codeAction"]["codeActionLiteralSupport"]["codeActionKind"]["valueSet"]
    assert capabilities["workspace"]["workspaceEdit"]["documentChanges"] is True
