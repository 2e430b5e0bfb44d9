"""What a file's `use` declarations make `std::env` paths look like, and resolving them back.

`use std::env`, `use std::env as e`, `use std::env::var`, `use std::env::{self, var as v}`,
`use std::{env, fs}` and the globs `use std::*` / `use std::env::*` are all understood. Imports are
collected file-wide (a `use` inside a function counts for the whole file): a parser has no name
resolution, and a clash between a local `env` and an imported one in one file is rare.
"""

from __future__ import annotations

from tree_sitter import Node

# The std::env functions that read or change ambient process state. `split_paths` and `join_paths`
# are pure, and `consts` holds constants: neither is listed.
AMBIENT_ENV = frozenset({"var", "var_os", "vars", "vars_os", "args", "args_os", "current_dir",
                         "set_current_dir", "current_exe", "home_dir", "temp_dir", "set_var", "remove_var"})
_COMMENTS = frozenset({"line_comment", "block_comment"})


def segments(path: str) -> tuple[str, ...]:
    """`::std::env::var` -> ("std", "env", "var")."""
    parts = tuple(p.strip() for p in path.split("::"))
    return parts[1:] if parts and parts[0] == "" else parts


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


class StdImports:
    def __init__(self) -> None:
        self.aliases: dict[str, tuple[str, ...]] = {}  # local name -> the std path it names
        self.globs: list[tuple[str, ...]] = []

    def __bool__(self) -> bool:
        return bool(self.aliases or self.globs)

    def read(self, use_declaration: Node) -> None:
        self._read(use_declaration.child_by_field_name("argument"), ())

    def _read(self, node: Node | None, prefix: tuple[str, ...]) -> None:
        if node is None:
            return
        kind = node.type
        if kind in ("identifier", "scoped_identifier", "self", "crate", "super"):
            path = _without_self(prefix + segments(_text(node)))
            if path:
                self._alias(path[-1], path)
        elif kind == "use_as_clause":
            target = node.child_by_field_name("path")
            alias = node.child_by_field_name("alias")
            if target is not None and alias is not None:
                self._alias(_text(alias), _without_self(prefix + segments(_text(target))))
        elif kind == "scoped_use_list":
            base = node.child_by_field_name("path")
            self._read(node.child_by_field_name("list"), prefix + (segments(_text(base)) if base else ()))
        elif kind == "use_list":
            for child in node.named_children:
                self._read(child, prefix)
        elif kind == "use_wildcard":
            base = next((c for c in node.named_children if c.type not in _COMMENTS), None)
            path = prefix + (segments(_text(base)) if base is not None else ())
            if path[:1] == ("std",):
                self.globs.append(path)

    def _alias(self, name: str, path: tuple[str, ...]) -> None:
        if path[:1] == ("std",) and name != "_":
            self.aliases[name] = path

    def env_function(self, path: tuple[str, ...]) -> str | None:
        """The ambient std::env function a path (as written in this file) names, or None."""
        if not path:
            return None
        head = path[0]
        if head in self.aliases:
            path = self.aliases[head] + path[1:]
        elif head != "std":
            for glob in self.globs:
                if glob == ("std",) and head == "env" or glob == ("std", "env") and len(path) == 1:
                    path = glob + path
                    break
        if len(path) == 3 and path[0] == "std" and path[1] == "env" and path[2] in AMBIENT_ENV:
            return "std::env::" + path[2]
        return None


def _without_self(path: tuple[str, ...]) -> tuple[str, ...]:
    """`std::env::{self}` imports `std::env` itself."""
    return path[:-1] if path and path[-1] == "self" else path
