"""conform.toml: the project's policy settings, read once, checked strictly.

    max_file_lines = 1000                    # REQ-2.1: a file longer than this is a finding
    env_roots  = ["**/main.rs", "src/bin/**", "**/build.rs"]   # files allowed to touch std::env
    seam_files = ["lib.rs", "mod.rs"]        # files whose pub items are the public seams (REQ-3.1)
    test_paths = ["**/tests/**", "**/benches/**", "**/examples/**", "**/tests.rs"]
    exclude    = ["target/**"]               # never scanned by `ferrule check`
    baseline   = "conform-baseline.json"     # the ratchet file, relative to the project root

    [rules]                                  # a level per rule: "deny", "warn" or "off"
    unwrap-outside-tests = "deny"
    seam-doctest = "deny"
    env-outside-roots = "deny"
    file-too-long = "deny"

Every key is optional. An unknown key or a value of the wrong type is a `ConfigError` that names the
key and the file, so a typo never silently turns a rule off. Patterns are described in `globs`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ferrule._toml import tomllib
from ferrule.conform.globs import PathSet

CONFIG_NAME = "conform.toml"
LEVELS = ("deny", "warn", "off")
RULE_IDS = ("unwrap-outside-tests", "seam-doctest", "env-outside-roots", "file-too-long")


class ConfigError(ValueError):
    """conform.toml cannot be used as written; the message names the file and the key."""

    def __init__(self, path: Path, key: str | None, problem: str) -> None:
        self.path = path
        self.key = key
        where = f"{path}: key {key!r}" if key else str(path)
        super().__init__(f"{where}: {problem}")


def _default_levels() -> dict[str, str]:
    return dict.fromkeys(RULE_IDS, "deny")


@dataclass(frozen=True)
class Config:
    max_file_lines: int = 1000
    env_roots: tuple[str, ...] = ("**/main.rs", "src/bin/**", "**/build.rs")
    seam_files: tuple[str, ...] = ("lib.rs", "mod.rs")
    test_paths: tuple[str, ...] = ("**/tests/**", "**/benches/**", "**/examples/**", "**/tests.rs")
    exclude: tuple[str, ...] = ("target/**",)
    baseline: str = "conform-baseline.json"
    rules: dict[str, str] = field(default_factory=_default_levels)
    compile: bool = True  # `[relay] compile = false`: no shadow cargo check (build scripts, proc macros)

    def level(self, rule: str) -> str:
        return self.rules.get(rule, "deny")


_LIST_KEYS = ("env_roots", "seam_files", "test_paths", "exclude")
KNOWN_KEYS = ("max_file_lines", *_LIST_KEYS, "baseline", "rules", "relay")


def _type_name(value: Any) -> str:
    return {str: "a string", int: "an integer", bool: "a boolean", float: "a float", list: "an array",
            dict: "a table"}.get(type(value), type(value).__name__)


def parse_config(data: dict[str, Any], path: Path) -> Config:
    """Check a decoded conform.toml table and turn it into a Config; `path` is named in errors."""
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in KNOWN_KEYS:
            raise ConfigError(path, key, f"unknown key; known keys: {', '.join(KNOWN_KEYS)}")
        if key == "max_file_lines":
            if type(value) is not int or value < 1:
                raise ConfigError(path, key, f"must be a positive integer, not {_type_name(value)} ({value!r})")
        elif key in _LIST_KEYS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(path, key, f"must be an array of path patterns (strings), not {_type_name(value)}")
            value = tuple(value)
        elif key == "baseline":
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(path, key, f"must be a non-empty file name (string), not {_type_name(value)}")
        elif key == "rules":
            value = _parse_levels(value, path)
        elif key == "relay":
            values.update(_parse_relay(value, path))
            continue
        values[key] = value
    return Config(**values)


def _parse_levels(table: Any, path: Path) -> dict[str, str]:
    if not isinstance(table, dict):
        raise ConfigError(path, "rules", f"must be a table of rule = level, not {_type_name(table)}")
    levels = _default_levels()
    for rule, level in table.items():
        key = f"rules.{rule}"
        if rule not in RULE_IDS:
            raise ConfigError(path, key, f"unknown rule; rules: {', '.join(RULE_IDS)}")
        if level not in LEVELS:
            raise ConfigError(path, key, f"level must be one of {', '.join(LEVELS)}, not {level!r}")
        levels[rule] = level
    return levels


def _parse_relay(table: Any, path: Path) -> dict[str, bool]:
    if not isinstance(table, dict):
        raise ConfigError(path, "relay", f"must be a table, not {_type_name(table)}")
    for key, value in table.items():
        if key != "compile":
            raise ConfigError(path, f"relay.{key}", "unknown key; known keys: compile")
        if not isinstance(value, bool):
            raise ConfigError(path, "relay.compile", f"must be a boolean, not {_type_name(value)}")
    return {"compile": table.get("compile", True)}


def load_config(root: Path) -> tuple[Config, str]:
    """The project's Config and where it came from (the file's path, or a note that defaults apply)."""
    path = Path(root) / CONFIG_NAME
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Config(), f"no {CONFIG_NAME} in {root}: built-in defaults"
    except OSError as exc:
        raise ConfigError(path, None, f"cannot be read: {exc.strerror or exc}") from exc
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(path, None, f"is not UTF-8 text: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, None, f"is not valid TOML: {exc}") from exc
    return parse_config(data, path), str(path)


class PathRoles:
    """What a root-relative path is to the policy: test code, a seam, an env root, excluded."""

    def __init__(self, config: Config) -> None:
        self.tests = PathSet(config.test_paths)
        self.seams = PathSet(config.seam_files)
        self.env_roots = PathSet(config.env_roots)
        self.excluded = PathSet(config.exclude)
