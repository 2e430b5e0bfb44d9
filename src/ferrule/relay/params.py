"""Typed requests: each op's params as a dataclass (read-only by convention), checked once from the frame's JSON object.

A field's `Param` (in its metadata) says how it is checked, what it is on the wire and what it means;
the envelope, the docs' op table and the tool descriptors read the same declaration. Every fault of a
request is named in one `protocol` error. Unknown params are dropped (a newer client may send optional
params this relay does not know: additive evolution), and so is an optional param sent as null.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

import orjson

from ferrule.project import BadRequest, ProjectFile, ProjectRoot
from ferrule.relay.mapping import MACRO_KIND, SYMBOL_KIND

# LSP carries positions and counts as `uinteger`: at most 2**31 - 1. The 1-based `line` may therefore
# reach 2**31. Larger values are refused here, named, rather than failing inside the inner hop.
UINTEGER_MAX = 2**31 - 1
COMPLETE_MAX_DEFAULT = 50
SCOPE_MAX_DEFAULT = 100

PARAMS_RECIPE = "see docs/PROTOCOL.md section 3 for each op's params"

Check = Callable[[object], "str | None"]  # a complaint, or None when the value is acceptable


def type_name(value: object) -> str:
    """The JSON name of a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def shown(value: object) -> str:
    """A value as JSON, for messages; what JSON cannot spell (inf) as Python does."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # orjson would print null
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return repr(value)


def as_int(value: object) -> int | None:
    """An integer param's value as an int: JSON integers, and numbers such as `17.0` that some
    clients send for them (JavaScript has one number type); None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _string(value: object) -> str | None:
    return None if isinstance(value, str) else f"must be a string, got {type_name(value)}"


def _boolean(value: object) -> str | None:
    return None if isinstance(value, bool) else f"must be a boolean, got {type_name(value)}"


def _string_or_null(value: object) -> str | None:
    return None if value is None or isinstance(value, str) else (
        f"must be a string or null, got {type_name(value)}")


def _ranged(low: int) -> Check:
    def check(value: object) -> str | None:
        number = as_int(value)
        if number is not None and low <= number <= UINTEGER_MAX:
            return None
        return f"must be an integer from {low} to {UINTEGER_MAX}, got {shown(value)}"

    return check


_POSITION_BOUNDS = (("line", 1, UINTEGER_MAX + 1, "1-based"), ("character", 0, UINTEGER_MAX, "0-based, in UTF-8 bytes"))


def _position(value: object) -> str | None:
    """Complaints are whole phrases (`position.line` ...), so the caller does not prefix them."""
    if type(value) is dict:  # the usual case, in a few steps: a position is checked on most ops
        line, character = value.get("line"), value.get("character")
        if type(line) is int and type(character) is int and 1 <= line <= UINTEGER_MAX + 1 and 0 <= character <= UINTEGER_MAX:
            return None
    elif not isinstance(value, dict):
        return f"`position` must be an object {{line, character}}, got {type_name(value)}"
    problems = []
    for key, low, high, meaning in _POSITION_BOUNDS:
        if key not in value:
            problems.append(f"missing `position.{key}`")
        elif (number := as_int(value[key])) is None or not low <= number <= high:
            problems.append(f"`position.{key}` must be an integer from {low} to {high} ({meaning}), "
                            f"got {shown(value[key])}")
    return "; ".join(problems) or None


# The requests are read-only by convention, not `frozen`: a frozen dataclass's constructor sets each
# field through object.__setattr__, which made building the typed request the costliest step of an op.
@dataclass(slots=True)
class Position:
    """`line` 1-based; `character` 0-based, in UTF-8 bytes of the line."""

    line: int
    character: int

    def to_json(self) -> dict[str, int]:
        return {"line": self.line, "character": self.character}


@dataclass(frozen=True, slots=True)
class Param:
    """How one param is checked and documented."""

    check: Check
    wire: str  # its JSON shape, as docs/PROTOCOL.md shows it
    meaning: str
    required: bool = False
    keeps_null: bool = False  # null carries meaning (update's content clears), so it is kept
    convert: Callable[[Any], Any] | None = None  # the checked JSON value to the typed one


def param(check: Check, wire: str, meaning: str, *, required: bool = False, keeps_null: bool = False,
          convert: Callable[[Any], Any] | None = None) -> Any:
    metadata = {"param": Param(check, wire, meaning, required, keeps_null, convert)}
    return field(metadata=metadata) if required else field(default=None, metadata=metadata)


def _file_param() -> Any:
    return param(_string, "string", "the file, root-relative with forward slashes", required=True)


def _content_param() -> Any:
    return param(_string, "string", "the file's text for this op only (transient); the previous state is restored")


def _position_param(*, required: bool) -> Any:
    return param(_position, "{line, character}", "`line` 1-based, `character` 0-based in UTF-8 bytes",
                 required=required, convert=lambda value: Position(int(value["line"]), int(value["character"])))


@dataclass(slots=True, kw_only=True)
class OpParams:
    """What every op takes: an optional budget. Subclasses add the op's own params."""

    timeout_ms: int | None = param(_ranged(1), f"integer 1..{UINTEGER_MAX}",
                                   "the op's time budget in ms, counted from the frame's arrival", convert=int)

    def to_json(self) -> dict[str, Any]:
        """The params as a frame carries them (for echoes and logs); unset optionals are left out."""
        wire: dict[str, Any] = {}
        for name, spec in fields_of(type(self)):
            value = getattr(self, name)
            if value is None and not spec.keeps_null:
                continue
            wire[name] = value.to_json() if isinstance(value, Position) else value
        return wire


@dataclass(slots=True, kw_only=True)
class FileParams(OpParams):
    """An op on one file; `file` is its canonical root-relative name once checked against the sandbox.

    `checked` is that check (not a param): the op uses it when it starts right away, and checks the
    path on disk again when it had to wait (see serve)."""

    file: str = _file_param()
    checked: ProjectFile | None = field(default=None, compare=False, repr=False)

    #: The op reads Rust source: a file that is not `.rs` is refused (`update` takes any file, such as
    #: a Cargo.toml for the compile check to see).
    sources_only: ClassVar[bool] = True


@dataclass(slots=True, kw_only=True)
class InitParams(OpParams):
    """`unanswered` (not a param): the relay's own start at launch, whose answer goes to no one; an
    `init` from the host may join the analyzer it started while nothing has used it yet."""

    unanswered: bool = field(default=False, compare=False, repr=False)


@dataclass(slots=True, kw_only=True)
class ShutdownParams(OpParams):
    pass


@dataclass(slots=True, kw_only=True)
class UpdateParams(FileParams):
    content: str | None = param(_string_or_null, "string or null", "the overlay's text; null drops the overlay",
                                required=True, keeps_null=True)

    sources_only: ClassVar[bool] = False


@dataclass(slots=True, kw_only=True)
class ValidateParams(FileParams):
    content: str | None = _content_param()
    compile: bool | None = param(_boolean, "boolean", "also run rustc (`cargo check` in a mirror of the "
                                 "project) on the text the op sees; default false")
    include_facts: bool | None = param(_boolean, "boolean", "false leaves `facts` empty (the findings and advice "
                                       "drawn from them are still answered); default true")


@dataclass(slots=True, kw_only=True)
class ScopeParams(FileParams):
    position: Position | None = _position_param(required=False)
    max: int | None = param(_ranged(0), f"integer 0..{UINTEGER_MAX}",
                            f"at most this many symbols (default {SCOPE_MAX_DEFAULT}), the file's own first",
                            convert=int)


@dataclass(slots=True, kw_only=True)
class CompleteParams(FileParams):
    position: Position = _position_param(required=True)
    content: str | None = _content_param()
    prefix: str | None = param(_string, "string", "keep only entries whose name starts with it")
    max: int | None = param(_ranged(0), f"integer 0..{UINTEGER_MAX}",
                            f"at most this many entries (default {COMPLETE_MAX_DEFAULT})", convert=int)


# ---- navigation by name: symbols, definition, references, implementations, rename, fixes ----------

NAVIGATION_MAX_DEFAULT = 50
SYMBOL_KINDS = tuple(sorted(set(SYMBOL_KIND.values()) | {MACRO_KIND}))  # what `kinds` may name: what answers say
APPLY_MODES = ("overlay", "disk")


def _strings_of(allowed: tuple[str, ...]) -> Check:
    def check(value: object) -> str | None:
        if isinstance(value, list) and value and all(isinstance(v, str) and v in allowed for v in value):
            return None
        return f"must be a non-empty array of {', '.join(allowed)}, got {shown(value)}"

    return check


def _one_of(allowed: tuple[str, ...]) -> Check:
    def check(value: object) -> str | None:
        return None if value in allowed else f"must be one of {', '.join(allowed)}, got {shown(value)}"

    return check


def _max_param() -> Any:
    return param(_ranged(1), f"integer 1..{UINTEGER_MAX}", f"at most this many items (default "
                 f"{NAVIGATION_MAX_DEFAULT}); the rest are counted")


def _apply_param(*, required: bool) -> Any:
    return param(_one_of(APPLY_MODES), "\"overlay\" or \"disk\"",
                 "apply the edit: as overlays (disk untouched) or written to disk atomically", required=required)


@dataclass(slots=True, kw_only=True)
class TargetParams(FileParams):
    """A place in the code: `{file, position}` or `{symbol}` (the handler insists on one of them)."""

    # optional here: a `symbol` names the place instead
    file: str | None = param(_string, "string",  # type: ignore[assignment]
                             "the file, root-relative with forward slashes (with `position`)")
    position: Position | None = _position_param(required=False)
    symbol: str | None = param(_string, "string", "a name or path instead of a position, e.g. `Order::total`")


@dataclass(slots=True, kw_only=True)
class TypeParams(TargetParams):
    """`{file, position}` with an optional transient `content`, or `{symbol}`: what a name is."""

    content: str | None = _content_param()


@dataclass(slots=True, kw_only=True)
class SymbolsParams(FileParams):
    file: str | None = param(_string, "string", "the file whose outline to answer")  # type: ignore[assignment]
    query: str | None = param(_string, "string", "a name to search the workspace for")
    kinds: list[str] | None = param(_strings_of(SYMBOL_KINDS), "array of kinds", "keep only these kinds")
    max: int | None = _max_param()


@dataclass(slots=True, kw_only=True)
class DefinitionParams(TargetParams):
    pass


@dataclass(slots=True, kw_only=True)
class ReferencesParams(TargetParams):
    include_declaration: bool | None = param(_boolean, "boolean", "count the declaration too (default true)")
    max: int | None = _max_param()


@dataclass(slots=True, kw_only=True)
class ImplementationsParams(TargetParams):
    max: int | None = _max_param()


@dataclass(slots=True, kw_only=True)
class RenameParams(TargetParams):
    new_name: str = param(_string, "string", "the new name", required=True)
    apply: str | None = _apply_param(required=False)


@dataclass(slots=True, kw_only=True)
class FixesParams(FileParams):
    position: Position | None = _position_param(required=False)
    line: int | None = param(_ranged(1), "integer", "the first line of a range, 1-based (instead of `position`)")
    end_line: int | None = param(_ranged(1), "integer", "the range's last line, inclusive (default `line`)")
    code: str | None = param(_string, "string", "keep only the fixes for diagnostics with this code, e.g. E0004")
    max: int | None = _max_param()
    compile: bool | None = param(_boolean, "boolean", "also rustc's suggested fixes for what it reports on these "
                                 "lines (`cargo check` in the mirror, as `validate` runs it); default false")


@dataclass(slots=True, kw_only=True)
class ApplyFixParams(FileParams):
    id: str = param(_string, "string", "a fix's `id` as `fixes` answered it", required=True)
    apply: str | None = _apply_param(required=False)


P = TypeVar("P", bound=OpParams)
_ABSENT = object()

_FIELDS: dict[type[OpParams], tuple[tuple[str, Param], ...]] = {}


def fields_of(cls: type[OpParams]) -> tuple[tuple[str, Param], ...]:
    """(name, Param) of a params class: the op's own first, in declaration order, the budget last."""
    known = _FIELDS.get(cls)
    if known is None:
        declared = [(f.name, f.metadata["param"]) for f in dataclasses.fields(cls) if "param" in f.metadata]
        known = _FIELDS[cls] = (*[d for d in declared if d[0] != "timeout_ms"],
                                *[d for d in declared if d[0] == "timeout_ms"])
    return known


def parse_params(op: str, cls: type[P], params: object, root: ProjectRoot | None) -> P:
    """The typed request of `op`; BadRequest naming every fault. With `root`, `file` is checked against
    the sandbox on disk and canonicalised (a path that leaves the root is refused here)."""
    if params is None:
        params = {}
    if type(params) is not dict and not isinstance(params, Mapping):  # the ABC's test costs a microsecond
        raise BadRequest(f"{op}: `params` must be an object, got {type_name(params)}", PARAMS_RECIPE)
    checked: dict[str, Any] = {}
    problems: list[str] = []
    for name, spec in fields_of(cls):
        value = params.get(name, _ABSENT)
        if value is _ABSENT:
            if spec.required:
                problems.append(f"missing `{name}`")
            continue
        if value is None and not spec.required and not spec.keeps_null:
            continue
        complaint = spec.check(value)
        if complaint:
            problems.append(complaint if complaint.startswith(("`", "missing")) else f"`{name}` {complaint}")
        else:
            checked[name] = value if spec.convert is None else spec.convert(value)
    if problems:
        raise BadRequest(f"{op}: bad params: " + "; ".join(problems), PARAMS_RECIPE)
    if root is not None and "file" in checked:
        file = root.file(checked["file"])
        if getattr(cls, "sources_only", False) and not file.rel.endswith(".rs"):
            raise BadRequest(f"{op}: `file` {file.rel!r} is not a Rust source file (.rs)",
                             "name a .rs file, e.g. `src/lib.rs`; the compile check reads Cargo.toml itself")
        checked["file"], checked["checked"] = file.rel, file
    return cls(**checked)


__all__ = [
    "APPLY_MODES",
    "NAVIGATION_MAX_DEFAULT",
    "SYMBOL_KINDS",
    "ApplyFixParams",
    "DefinitionParams",
    "FixesParams",
    "ImplementationsParams",
    "ReferencesParams",
    "RenameParams",
    "SymbolsParams",
    "TargetParams",
    "COMPLETE_MAX_DEFAULT",
    "PARAMS_RECIPE",
    "SCOPE_MAX_DEFAULT",
    "UINTEGER_MAX",
    "CompleteParams",
    "FileParams",
    "InitParams",
    "OpParams",
    "Param",
    "Position",
    "ScopeParams",
    "ShutdownParams",
    "TypeParams",
    "UpdateParams",
    "ValidateParams",
    "fields_of",
    "parse_params",
    "shown",
    "type_name",
]
