"""conform.toml: defaults with their origin said, every key read, bad files named with the key."""

from __future__ import annotations

import pytest

from ferrule.conform import ConfigError, Policy
from ferrule.conform.config import Config, load_config


def test_absent_file_gives_defaults_and_says_so(project, capsys):
    policy = Policy.load(project.root)
    assert policy.config == Config()
    err = capsys.readouterr().err
    assert "no conform.toml" in err and str(project.root) in err and "defaults" in err


def test_present_file_is_named_as_origin(project, capsys):
    project.write("conform.toml", "max_file_lines = 10\n")
    policy = Policy.load(project.root)
    assert policy.config.max_file_lines == 10
    assert str(project.root / "conform.toml") in capsys.readouterr().err


def test_every_key_is_read(project):
    project.write("conform.toml", """\
max_file_lines = 50
env_roots = ["src/config.rs"]
seam_files = ["api.rs"]
test_paths = ["spec/**"]
exclude = ["vendor/**"]
baseline = "debt.json"

[rules]
seam-doctest = "off"
file-too-long = "warn"

[relay]
compile = false
""")
    config, origin = load_config(project.root)
    assert origin.endswith("conform.toml")
    assert config.max_file_lines == 50
    assert config.env_roots == ("src/config.rs",)
    assert config.seam_files == ("api.rs",)
    assert config.test_paths == ("spec/**",)
    assert config.exclude == ("vendor/**",)
    assert config.baseline == "debt.json"
    assert config.rules == {"unwrap-outside-tests": "deny", "seam-doctest": "off",
                            "env-outside-roots": "deny", "file-too-long": "warn"}
    assert config.compile is False and Config().compile is True


@pytest.mark.parametrize("text, key, words", [
    ("max_lines = 10\n", "max_lines", "unknown key"),
    ("max_file_lines = '10'\n", "max_file_lines", "positive integer"),
    ("max_file_lines = 0\n", "max_file_lines", "positive integer"),
    ("max_file_lines = true\n", "max_file_lines", "positive integer"),
    ("env_roots = 'src/main.rs'\n", "env_roots", "array"),
    ("test_paths = [1, 2]\n", "test_paths", "array"),
    ("baseline = 3\n", "baseline", "file name"),
    ("rules = 'deny'\n", "rules", "table"),
    ("[rules]\nno-unwrap = 'deny'\n", "rules.no-unwrap", "unknown rule"),
    ("[rules]\nseam-doctest = 'error'\n", "rules.seam-doctest", "deny, warn, off"),
    ("[rules]\nseam-doctest = false\n", "rules.seam-doctest", "deny, warn, off"),
    ("relay = true\n", "relay", "table"),
    ("[relay]\ncompile = 'no'\n", "relay.compile", "boolean"),
    ("[relay]\ncheck = false\n", "relay.check", "unknown key"),
])
def test_bad_values_name_the_key_and_the_file(project, text, key, words):
    project.write("conform.toml", text)
    with pytest.raises(ConfigError) as info:
        Policy.load(project.root, announce=False)
    message = str(info.value)
    assert f"'{key}'" in message and str(project.root / "conform.toml") in message and words in message
    assert info.value.key == key


def test_invalid_toml_names_the_file_and_position(project):
    project.write("conform.toml", "max_file_lines = = 3\n")
    with pytest.raises(ConfigError, match=r"conform\.toml: is not valid TOML.*line 1"):
        load_config(project.root)


def test_levels_change_what_is_reported(project):
    project.write("conform.toml", '[rules]\nunwrap-outside-tests = "warn"\nseam-doctest = "off"\n')
    policy = Policy.load(project.root, announce=False)
    _, findings = policy.check_file("src/lib.rs", "pub fn f(x: Option<u8>) -> u8 { x.unwrap() }\n")
    assert [(f.rule, f.level) for f in findings] == [("unwrap-outside-tests", "warn")]
