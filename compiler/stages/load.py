"""Stage 1: spec text (YAML or JSON) -> `Document` (plain data + positions).

YAML is read as YAML 1.2 with ruamel.yaml (``no``/``yes``/``on``/``off`` stay
strings, ``1e3`` is a float); JSON is read as strict JSON. Whatever the format,
the result is the same: plain ``dict``/``list``/``str``/``int``/``float``/
``bool``/``None`` data, and the 1-based file position of every value and of
every mapping key, so later stages can point at the exact spot in the file.

What the loader decides, because later stages and the renderer rely on it:

- Dates and timestamps (``2024-01-01``) stay the string the user wrote: JSON
  and Vega-Lite have no date type.
- Integer and float mapping keys become the string the user wrote (``4:`` is
  the key ``"4"``, ``1e3:`` is ``"1e3"``), so numeric category names work in
  a style map. Null, boolean, date, list and mapping keys are errors.
- Duplicate keys are errors (``4:`` and ``"4":`` are the same key).
- Aliases (``*name``) are expanded into independent copies; the positions of
  an expanded copy are those of the anchored original. Merge keys (``<<:``)
  are supported. Aliases may add at most `MAX_ALIAS_NODES` nodes, and an alias
  inside its own anchor is an error.
- Control characters other than tab, newline and carriage return, unpaired
  surrogates and Unicode non-characters are rejected, whether written raw or
  as escapes: they abort the renderer.
- Numbers must be finite (no NaN or infinity), as in JSON.
"""

from __future__ import annotations

import bisect
import json
import math
import os
import re
import stat
from dataclasses import dataclass, field
from typing import Any, Callable

from ruamel.yaml import YAML
from ruamel.yaml.composer import Composer, ComposerError
from ruamel.yaml.error import MarkedYAMLError
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.reader import ReaderError
from ruamel.yaml.scanner import ScannerError

from .. import errors as msg
from ..errors import Location, SpecError, did_you_mean

try:
    from ruamel.yaml.composer import MaxDepthExceededError
except ImportError:  # ruamel.yaml < 0.19 has no depth limit; RecursionError is the fallback
    class MaxDepthExceededError(Exception):  # type: ignore[no-redef]
        pass

__all__ = ["Document", "load_spec", "read_spec", "load_text", "MAX_SPEC_BYTES", "MAX_ALIAS_NODES", "MAX_DEPTH"]

# A spec is a page of text; anything bigger is data that belongs in a data file.
MAX_SPEC_BYTES = 2 * 1024 * 1024
# Nodes that aliases may add: enough for any real spec, far below an alias bomb.
MAX_ALIAS_NODES = 100_000
# Nesting depth (the root counts as 1): keeps every later recursive walk safe.
MAX_DEPTH = 100

STAGE = "load"

# Rejected anywhere in the text: C0 and C1 controls except tab, LF and CR,
# unpaired surrogates, and the Unicode non-characters.
_FORBIDDEN = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef"
    + "".join(chr(plane + 0xFFFE) + chr(plane + 0xFFFF) for plane in range(0, 0x110000, 0x10000))
    + "]"
)


@dataclass(frozen=True, slots=True)
class Document:
    """A loaded spec: plain data plus the file position of every node.

    Attributes:
        data: the spec as plain dicts, lists, strings, numbers, booleans and None.
        file: the spec's path as the user gave it (for messages).
        positions: spec path -> position of the value at that path (mapping
            values and sequence items; the root is ``()``).
        key_positions: spec path -> position of the key of that mapping entry.
        text_starts: spec path -> position of the first character of a string
            written verbatim on one line (plain, or quoted without escapes):
            a column inside it (an expression's error) is that plus an offset.
    """

    data: Any
    file: str
    positions: dict[tuple, Location]
    key_positions: dict[tuple, Location]
    text_starts: dict[tuple, Location] = field(default_factory=dict)

    def locate(self, path, *, key: bool = False) -> Location | None:
        """The file position of a spec path.

        Args:
            path: a spec path such as ``("layers", 1, "trend", "method")``.
            key: prefer the position of the mapping key over its value.

        Returns:
            The position of `path`, or, when `path` is not in the document (a
            missing required key, say), that of its nearest ancestor that is;
            None only for a document without positions.
        """
        path = tuple(path)
        while True:
            if key and path in self.key_positions:
                return self.key_positions[path]
            if path in self.positions:
                return self.positions[path]
            if not path:
                return None
            path = path[:-1]


# ------------------------------------------------------------------ public API

def load_spec(path: str | os.PathLike) -> Document:
    """Read a spec file: ``.json`` files (any case) as JSON, anything else as YAML 1.2.

    Args:
        path: the spec file. Its text must be UTF-8 (a BOM is tolerated) and at
            most `MAX_SPEC_BYTES` long.

    Returns:
        The `Document`, whose ``file`` is `path` as given.

    Raises:
        SpecError: (stage ``"load"``) the file is missing, unreadable, too
            large, not UTF-8, or not a valid spec text (see `load_text`).
    """
    return read_spec(path)[1]


def read_spec(path: str | os.PathLike) -> tuple[bytes, Document]:
    """`load_spec`, also giving the exact bytes that were parsed.

    The file is read once: a hash of these bytes is a hash of what was
    compiled, even when the file is saved again meanwhile.

    Returns:
        The file's bytes and its `Document`.

    Raises:
        SpecError: as `load_spec`.
    """
    file = os.fsdecode(os.fspath(path))
    spec_format = "json" if file.lower().endswith(".json") else "yaml"
    raw = _read_bytes(file)
    return raw, _load_bytes(raw, file, spec_format)


def _load_bytes(raw: bytes, file: str, spec_format: str) -> Document:
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        before = raw[: error.start].decode("utf-8")
        line, column = _line_column(before, len(before))
        raise SpecError(
            msg.invalid_utf8(raw[error.start]), (), location=Location(file, line, column),
            stage=STAGE, hint=msg.invalid_utf8_hint(),
        ) from None
    return load_text(text, file, format=spec_format)


def load_text(text: str, file: str = "<string>", *, format: str = "yaml") -> Document:
    """Parse spec text.

    Args:
        text: the spec source; a leading BOM is ignored.
        file: how to name the source in positions and messages.
        format: ``"yaml"`` (YAML 1.2) or ``"json"``.

    Returns:
        The `Document`: plain data (the top level is always a dict) and the
        position of every value and mapping key.

    Raises:
        SpecError: (stage ``"load"``) the text is too large, holds a forbidden
            character, is malformed, has duplicate or non-string keys, aliases
            that recurse or expand too far, more than one document, or is not
            a mapping at the top.
        ValueError: `format` is neither ``"yaml"`` nor ``"json"``.
    """
    if format not in _LOADERS:
        raise ValueError(f"unknown spec format {format!r}; expected 'yaml' or 'json'")
    if text.startswith("\ufeff"):
        text = text[1:]
    if len(text) > MAX_SPEC_BYTES:  # characters, not bytes: a cheap bound for text in memory
        raise SpecError(msg.spec_too_large(MAX_SPEC_BYTES), (), location=Location(file, 1, 1),
                        stage=STAGE, hint=msg.spec_too_large_hint())
    bad = _FORBIDDEN.search(text)
    if bad:
        raise _forbidden_error(bad.group(), (), _location(text, file, bad.start()))
    if not text.strip(" \t\r\n"):
        raise _not_a_mapping("an empty document", file, format)
    try:
        return _LOADERS[format](text, file)
    except RecursionError:
        # A last resort: the depth limits should stop deep nesting first.
        raise SpecError(msg.too_deeply_nested(MAX_DEPTH), (), location=Location(file, 1, 1),
                        stage=STAGE) from None


# ------------------------------------------------------------------ reading files

def _read_bytes(file: str) -> bytes:
    """The file's bytes, checking the size before reading it all."""
    where = Location(file, 1, 1)
    try:
        info = os.stat(file)
        if stat.S_ISDIR(info.st_mode):
            raise SpecError(msg.spec_is_directory(file), (), location=where, stage=STAGE)
        if not stat.S_ISREG(info.st_mode):
            # A FIFO or device could block or never end.
            raise SpecError(msg.spec_unreadable(file, "not a regular file"), (),
                            location=where, stage=STAGE)
        if info.st_size > MAX_SPEC_BYTES:
            raise _too_large(where)
        with open(file, "rb") as handle:
            raw = handle.read(MAX_SPEC_BYTES + 1)
    except FileNotFoundError:
        raise SpecError(msg.spec_not_found(file), (), location=where, stage=STAGE,
                        hint=_sibling_hint(file)) from None
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise SpecError(msg.spec_unreadable(file, reason.lower()), (), location=where,
                        stage=STAGE) from None
    if len(raw) > MAX_SPEC_BYTES:  # grew since stat
        raise _too_large(where)
    return raw


def _too_large(where: Location) -> SpecError:
    return SpecError(msg.spec_too_large(MAX_SPEC_BYTES), (), location=where, stage=STAGE,
                     hint=msg.spec_too_large_hint())


def _sibling_hint(file: str) -> str | None:
    """A "did you mean" hint from the files next to a missing spec."""
    folder, name = os.path.split(file)
    try:
        siblings = os.listdir(folder or ".")
    except OSError:
        return None
    return did_you_mean(name, siblings)


# ------------------------------------------------------------------ shared helpers

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _line_starts(text: str) -> list[int]:
    """Offsets where lines begin; LF, CRLF and a lone CR end a line (as in ruamel)."""
    return [0] + [m.end() for m in _LINE_BREAK.finditer(text)]


def _line_column(text: str, offset: int, starts: list[int] | None = None) -> tuple[int, int]:
    """1-based line and column of `offset` in `text`."""
    if starts is None:
        starts = _line_starts(text[:offset])
    line = bisect.bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1


def _location(text: str, file: str, offset: int) -> Location:
    return Location(file, *_line_column(text, offset))


def _forbidden_error(char: str, path: tuple, location: Location) -> SpecError:
    return SpecError(msg.forbidden_character(char), path, location=location, stage=STAGE,
                     hint=msg.forbidden_character_hint())


def _check_string(value: str, path: tuple, location: Location) -> None:
    """Catch forbidden characters written as escapes (``"\\b"``, ``"\\u0008"``)."""
    bad = _FORBIDDEN.search(value)
    if bad:
        raise _forbidden_error(bad.group(), path, location)


_KINDS = {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean",
          int: "a number", float: "a number", type(None): "null"}


def _not_a_mapping(kind: str, file: str, spec_format: str) -> SpecError:
    return SpecError(msg.not_a_mapping(kind), (), location=Location(file, 1, 1), stage=STAGE,
                     hint=msg.not_a_mapping_hint(spec_format))


def _document(data: Any, file: str, spec_format: str, positions, key_positions, text_starts) -> Document:
    if not isinstance(data, dict):
        raise _not_a_mapping(_KINDS.get(type(data), "a scalar"), file, spec_format)
    return Document(data, file, positions, key_positions, text_starts)


# ------------------------------------------------------------------ YAML

_TAG = "tag:yaml.org,2002:"


class _Problem(Exception):
    """A load problem found inside ruamel's composer, at a ruamel mark."""

    def __init__(self, message: str, mark: Any, hint: str | None = None, *, directive: bool = False):
        super().__init__(message)
        self.message, self.mark, self.hint = message, mark, hint
        self.directive = directive  # report at the %YAML line, not at the mark


class _Composer(Composer):
    """ruamel's composer, made safe against alias tricks.

    It counts the nodes that aliases add (from each anchored node's size,
    without expanding anything), rejects an alias inside its own anchor (which
    would make a cyclic graph), and rejects YAML versions other than 1.2.
    """

    def __init__(self, loader: Any = None) -> None:
        super().__init__(loader)
        self.warn_double_anchors = False  # re-defining an anchor is legal YAML
        self.sizes: dict[int, int] = {}   # id(node) -> node count once expanded
        self.expanded = 0

    def compose_document(self) -> Any:
        event = self.parser.peek_event()
        version = getattr(event, "version", None)
        if version is not None and tuple(version) != (1, 2):
            raise _Problem(msg.unsupported_yaml_version(".".join(map(str, version))),
                           event.start_mark, msg.unsupported_yaml_version_hint(), directive=True)
        return super().compose_document()

    def compose_node(self, parent: Any, index: Any) -> Any:
        if not self.parser.check_event(AliasEvent):
            return super().compose_node(parent, index)
        event = self.parser.get_event()
        name = event.anchor
        if name not in self.anchors:
            raise _Problem(msg.undefined_alias(name), event.start_mark, msg.undefined_alias_hint(name))
        node = self.anchors[name]
        size = self.sizes.get(id(node))
        if size is None:  # the anchored node is still being composed
            raise _Problem(msg.recursive_alias(name), event.start_mark)
        self.expanded += size
        if self.expanded > MAX_ALIAS_NODES:
            raise _Problem(msg.alias_bomb(MAX_ALIAS_NODES), event.start_mark, msg.alias_bomb_hint())
        return node

    def compose_scalar_node(self, anchor: Any) -> Any:
        node = super().compose_scalar_node(anchor)
        self.sizes[id(node)] = 1
        return node

    def compose_sequence_node(self, anchor: Any) -> Any:
        node = super().compose_sequence_node(anchor)
        self.sizes[id(node)] = 1 + sum(self.sizes[id(item)] for item in node.value)
        return node

    def compose_mapping_node(self, anchor: Any) -> Any:
        node = super().compose_mapping_node(anchor)
        self.sizes[id(node)] = 1 + sum(self.sizes[id(k)] + self.sizes[id(v)] for k, v in node.value)
        return node


def _load_yaml(text: str, file: str) -> Document:
    yaml = YAML(typ="safe", pure=True)
    yaml.Composer = _Composer
    yaml.max_depth = MAX_DEPTH
    try:
        root = yaml.compose(text)
    except _Problem as problem:
        location = _mark_location(problem.mark, file)
        directive = _YAML_DIRECTIVE.search(text) if problem.directive else None
        if directive:
            location = _location(text, file, directive.start())
        raise SpecError(problem.message, (), location=location, stage=STAGE, hint=problem.hint) from None
    except Exception as error:  # ruamel raises assorted types, AssertionError included
        raise _yaml_error(error, text, file) from None
    if root is None:  # only comments, or a bare '---'
        raise _not_a_mapping("an empty document", file, "yaml")
    builder = _YamlBuilder(file, text)
    data = builder.build(root, (), 1)
    return _document(data, file, "yaml", builder.positions, builder.key_positions, builder.text_starts)


def _mark_location(mark: Any, file: str) -> Location:
    return Location(file, mark.line + 1, mark.column + 1)


def _first_line(text: Any) -> str:
    return str(text).strip().splitlines()[0].strip() if str(text).strip() else ""


_YAML_DIRECTIVE = re.compile(r"^%YAML[ \t]+([^\s#]+)", re.M)


def _yaml_error(error: Exception, text: str, file: str) -> SpecError:
    """Turn a ruamel error into a SpecError at the position ruamel reports."""
    directive = _YAML_DIRECTIVE.search(text)
    if directive and directive.group(1) != "1.2" and (
            not isinstance(error, MarkedYAMLError) or "version" in str(error.problem)):
        # ruamel refuses other versions with an assertion or a parser error.
        return SpecError(msg.unsupported_yaml_version(directive.group(1)), (),
                         location=_location(text, file, directive.start()), stage=STAGE,
                         hint=msg.unsupported_yaml_version_hint())
    if isinstance(error, ReaderError):
        # ruamel's reader gives an offset; our own character scan usually fires first.
        char = chr(error.character) if isinstance(error.character, int) else str(error.character)[:1]
        return _forbidden_error(char or "\0", (), _location(text, file, error.position))
    if not isinstance(error, MarkedYAMLError):
        return SpecError(msg.invalid_yaml(_first_line(error) or type(error).__name__), (),
                         location=Location(file, 1, 1), stage=STAGE)
    mark = error.problem_mark or error.context_mark
    location = _mark_location(mark, file) if mark is not None else Location(file, 1, 1)
    if isinstance(error, MaxDepthExceededError):
        return SpecError(msg.too_deeply_nested(MAX_DEPTH), (), location=location, stage=STAGE)
    if isinstance(error, ComposerError) and "single document" in str(error.context):
        return SpecError(msg.multiple_documents(), (), location=location, stage=STAGE,
                         hint=msg.multiple_documents_hint())
    if isinstance(error, ScannerError) and mark is not None and text[mark.index: mark.index + 1] == "\t":
        line_start = max(text.rfind("\n", 0, mark.index), text.rfind("\r", 0, mark.index)) + 1
        if text[line_start: mark.index].strip(" \t") == "":
            return SpecError(msg.tab_indentation(), (), location=location, stage=STAGE,
                             hint=msg.tab_indentation_hint())
        return SpecError(msg.tab_not_allowed(), (), location=location, stage=STAGE,
                         hint=msg.tab_not_allowed_hint())
    problem = _first_line(error.problem) or _first_line(error.context) or "malformed text"
    hint = None
    context = _first_line(error.context)
    if error.problem and context and error.context_mark is not None and error.context_mark != mark:
        thing = re.sub(r"^while (?:scanning|parsing|constructing) ", "", context)
        hint = msg.syntax_context_hint(thing, error.context_mark.line + 1, error.context_mark.column + 1)
    return SpecError(msg.invalid_yaml(problem), (), location=location, stage=STAGE, hint=hint)


def _yaml_int(text: str) -> int:
    digits = text.replace("_", "")
    sign = -1 if digits.startswith("-") else 1
    digits = digits.lstrip("+-")
    base = {"0b": 2, "0o": 8, "0x": 16}.get(digits[:2].lower(), 10)
    return sign * int(digits[2:] if base != 10 else digits, base)


def _yaml_float(text: str) -> float:
    return float(text.replace("_", ""))


def _yaml_bool(text: str) -> bool:
    return {"true": True, "false": False}[text.lower()]


def _yaml_null(text: str) -> None:
    if text not in ("", "~", "null", "Null", "NULL"):
        raise ValueError(text)
    return None


# Core-schema tag -> how to read the scalar's text. Timestamps (and `=`, which
# ruamel tags as a "value") stay the text the user wrote.
_SCALAR_READERS: dict[str, Callable[[str], Any]] = {
    _TAG + "str": str,
    _TAG + "timestamp": str,
    _TAG + "value": str,
    _TAG + "int": _yaml_int,
    _TAG + "float": _yaml_float,
    _TAG + "bool": _yaml_bool,
    _TAG + "null": _yaml_null,
}

# Key tag -> what the key is called in the "quote the key" error; int and
# float keys are kept as written instead.
_BAD_KEY_KINDS = {
    _TAG + "null": "null",
    _TAG + "bool": "a boolean",
    _TAG + "timestamp": "a date",
}
_NUMBER_TAGS = (_TAG + "int", _TAG + "float")


def _show_tag(tag: str) -> str:
    return "!!" + tag[len(_TAG):] if tag.startswith(_TAG) else tag


class _YamlBuilder:
    """Walks ruamel's node graph into plain data, recording positions."""

    def __init__(self, file: str, text: str = ""):
        self.file, self.text = file, text
        self.positions: dict[tuple, Location] = {}
        self.key_positions: dict[tuple, Location] = {}
        self.text_starts: dict[tuple, Location] = {}

    def error(self, message: str, path: tuple, node: Node, hint: str | None = None) -> SpecError:
        return SpecError(message, path, location=self.at(node), stage=STAGE, hint=hint)

    def at(self, node: Node) -> Location:
        return _mark_location(node.start_mark, self.file)

    def build(self, node: Node, path: tuple, depth: int) -> Any:
        # Aliases can nest an anchored subtree deeper than it was written.
        if depth > MAX_DEPTH:
            raise self.error(msg.too_deeply_nested(MAX_DEPTH), (), node)
        self.positions[path] = self.at(node)
        if isinstance(node, MappingNode):
            if node.tag != _TAG + "map":
                raise self.error(msg.unsupported_tag(_show_tag(node.tag)), path, node, msg.unsupported_tag_hint())
            result = {}
            for key, (key_node, value_node) in self.entries(node, path).items():
                self.key_positions[path + (key,)] = self.at(key_node)
                result[key] = self.build(value_node, path + (key,), depth + 1)
            return result
        if isinstance(node, SequenceNode):
            if node.tag != _TAG + "seq":
                raise self.error(msg.unsupported_tag(_show_tag(node.tag)), path, node, msg.unsupported_tag_hint())
            return [self.build(item, path + (i,), depth + 1) for i, item in enumerate(node.value)]
        value = self.scalar(node, path)
        if isinstance(value, str):
            self.verbatim(node, value, path)
        return value

    def scalar(self, node: ScalarNode, path: tuple) -> Any:
        reader = _SCALAR_READERS.get(node.tag)
        if reader is None:
            raise self.error(msg.unsupported_tag(_show_tag(node.tag)), path, node, msg.unsupported_tag_hint())
        text = node.value
        if node.tag == _TAG + "float" and text.lower().lstrip("+-") in (".inf", ".nan"):
            raise self.error(msg.non_finite_number(text), path, node, msg.non_finite_number_hint())
        try:
            value = reader(text)
        except (ValueError, KeyError):
            if node.tag in _NUMBER_TAGS and re.fullmatch(r"[-+]?[0-9][0-9_.eE+-]*", text):
                # Python refuses ints beyond 4300 digits.
                raise self.error(msg.number_out_of_range(text), path, node) from None
            raise self.error(msg.bad_tagged_scalar(text, _show_tag(node.tag)), path, node) from None
        if isinstance(value, float) and not math.isfinite(value):
            raise self.error(msg.number_out_of_range(text), path, node)
        if isinstance(value, str):
            _check_string(value, path, self.at(node))
        return value

    def verbatim(self, node: ScalarNode, value: str, path: tuple) -> None:
        """Record where the string's first character is, when its text is written as is on one line."""
        start, end = node.start_mark, node.end_mark
        if start.line != end.line or node.style not in (None, "'", '"'):
            return
        raw = self.text[start.index:end.index]
        inner = raw if node.style is None else raw[1:-1]
        if inner == value and (node.style is None or raw[:1] == raw[-1:] == node.style):
            self.text_starts[path] = Location(self.file, start.line + 1, start.column + 1 + (node.style is not None))

    def key(self, node: Node, path: tuple) -> str:
        """A mapping key as a string: numbers as written, strings as they are."""
        hint = msg.key_not_string_hint()
        if isinstance(node, MappingNode):
            raise self.error(msg.key_not_string("a mapping"), path, node, hint)
        if isinstance(node, SequenceNode):
            raise self.error(msg.key_not_string("a list"), path, node, hint)
        if node.tag in _BAD_KEY_KINDS:
            raise self.error(msg.key_not_string(_BAD_KEY_KINDS[node.tag], node.value), path, node, hint)
        if node.tag in _NUMBER_TAGS:
            key = node.value
        else:
            key = self.scalar(node, path)
            if not isinstance(key, str):  # an explicit !!bool "..." or similar
                raise self.error(msg.key_not_string(_KINDS.get(type(key), "a scalar"), node.value),
                                 path, node, hint)
        return key

    def entries(self, node: MappingNode, path: tuple) -> dict[str, tuple[Node, Node]]:
        """The mapping's entries by key, with merge keys (``<<``) applied.

        Keys written in the mapping win over merged ones; among merged
        mappings, the first one wins. Keys keep their order of appearance.
        """
        written: dict[str, tuple[Node, Node]] = {}
        order: list[tuple[str | None, Node]] = []
        for key_node, value_node in node.value:
            if key_node.tag == _TAG + "merge":
                order.append((None, value_node))
                continue
            key = self.key(key_node, path)
            if key in written:
                first = written[key][0].start_mark.line + 1
                raise self.error(msg.duplicate_key(key, first), path + (key,), key_node,
                                 msg.duplicate_key_hint())
            written[key] = (key_node, value_node)
            order.append((key, value_node))
        result: dict[str, tuple[Node, Node]] = {}
        for key, value_node in order:
            if key is not None:
                result[key] = written[key]
                continue
            sources = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
            for source in sources:
                if not isinstance(source, MappingNode):
                    raise self.error(msg.bad_merge(), path, source)
                for merged_key, entry in self.entries(source, path).items():
                    if merged_key not in written and merged_key not in result:
                        result[merged_key] = entry
        return result


# ------------------------------------------------------------------ JSON

class _NonFinite(Exception):
    """NaN / Infinity seen by json.loads; the position pass reports it."""


def _reject_constant(name: str) -> Any:
    raise _NonFinite(name)


def _load_json(text: str, file: str) -> Document:
    # json.loads decides what is valid JSON and where it breaks; the position
    # pass below then walks the (valid) text again to record positions and
    # catch what json.loads lets through: duplicate keys, NaN, huge numbers.
    try:
        json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise SpecError(msg.invalid_json(_first_line(error.msg)), (),
                        location=_location(text, file, error.pos), stage=STAGE) from None
    except (_NonFinite, ValueError, RecursionError):
        pass  # found with its position by the pass below
    reader = _JsonReader(text, file)
    try:
        data, end = reader.value(0, (), 1)
    except (IndexError, ValueError) as error:  # not expected after json.loads accepted the text
        raise SpecError(msg.invalid_json(_first_line(error) or "malformed text"), (),
                        location=Location(file, 1, 1), stage=STAGE) from None
    return _document(data, file, "json", reader.positions, reader.key_positions, reader.text_starts)


_JSON_SPACE = re.compile(r"[ \t\n\r]*")
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_JSON_LITERALS = {"true": True, "false": False, "null": None}
_JSON_NON_FINITE = ("NaN", "Infinity", "-Infinity")


class _JsonReader:
    """A small recursive-descent JSON reader that records positions."""

    def __init__(self, text: str, file: str):
        self.text, self.file = text, file
        self.starts = _line_starts(text)  # one scan, then a bisect per node
        self.positions: dict[tuple, Location] = {}
        self.key_positions: dict[tuple, Location] = {}
        self.text_starts: dict[tuple, Location] = {}

    def at(self, offset: int) -> Location:
        return Location(self.file, *_line_column(self.text, offset, self.starts))

    def skip(self, offset: int) -> int:
        return _JSON_SPACE.match(self.text, offset).end()

    def value(self, offset: int, path: tuple, depth: int) -> tuple[Any, int]:
        text = self.text
        offset = self.skip(offset)
        if depth > MAX_DEPTH:
            raise SpecError(msg.too_deeply_nested(MAX_DEPTH), (), location=self.at(offset), stage=STAGE)
        self.positions[path] = self.at(offset)
        char = text[offset]
        if char == "{":
            return self.object(offset, path, depth)
        if char == "[":
            return self.array(offset, path, depth)
        if char == '"':
            string, end = json.decoder.scanstring(text, offset + 1, True)
            _check_string(string, path, self.at(offset))
            if text[offset + 1:end - 1] == string:  # no escapes: each character is one column
                self.text_starts[path] = self.at(offset + 1)
            return string, end
        for name in _JSON_NON_FINITE:
            if text.startswith(name, offset):
                raise SpecError(msg.non_finite_number(name), path, location=self.at(offset),
                                stage=STAGE, hint=msg.non_finite_number_hint())
        for name, literal in _JSON_LITERALS.items():
            if text.startswith(name, offset):
                return literal, offset + len(name)
        number = _JSON_NUMBER.match(text, offset)
        if not number:
            raise ValueError("Expecting value")
        written = number.group()
        try:
            value = float(written) if number.group(1) or number.group(2) else int(written)
        except ValueError:  # more digits than Python converts
            value = None
        if value is None or isinstance(value, float) and not math.isfinite(value):
            raise SpecError(msg.number_out_of_range(written), path, location=self.at(offset), stage=STAGE)
        return value, number.end()

    def object(self, offset: int, path: tuple, depth: int) -> tuple[dict, int]:
        text = self.text
        result: dict[str, Any] = {}
        offset = self.skip(offset + 1)
        if text[offset] == "}":
            return result, offset + 1
        while True:
            offset = self.skip(offset)
            key_at = offset
            key, offset = json.decoder.scanstring(text, offset + 1, True)
            _check_string(key, path, self.at(key_at))
            key_path = path + (key,)
            if key in result:
                raise SpecError(msg.duplicate_key(key, self.key_positions[key_path].line), key_path,
                                location=self.at(key_at), stage=STAGE, hint=msg.duplicate_key_hint())
            self.key_positions[key_path] = self.at(key_at)
            offset = self.skip(offset) + 1  # the ':'
            result[key], offset = self.value(offset, key_path, depth + 1)
            offset = self.skip(offset)
            if text[offset] == "}":
                return result, offset + 1
            offset += 1  # the ','

    def array(self, offset: int, path: tuple, depth: int) -> tuple[list, int]:
        text = self.text
        result: list[Any] = []
        offset = self.skip(offset + 1)
        if text[offset] == "]":
            return result, offset + 1
        while True:
            item, offset = self.value(offset, path + (len(result),), depth + 1)
            result.append(item)
            offset = self.skip(offset)
            if text[offset] == "]":
                return result, offset + 1
            offset += 1  # the ','


# Format name -> loader; `load_spec` picks the name from the file suffix.
_LOADERS: dict[str, Callable[[str, str], Document]] = {"yaml": _load_yaml, "json": _load_json}
