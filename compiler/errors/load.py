"""Messages of the load stage (stages/load.py): reading the spec file and parsing its YAML or JSON.

Each message is a function; one that a diagnostic reads carries its code
(`@code`), and its docstring is the explanation `chartc explain` prints.
"""

from __future__ import annotations


from .registry import code


@code("E101")
def spec_not_found(path: str) -> str:
    """The spec file does not exist.

    The spec file given on the command line (or found in a folder) does not exist. Check the path: it is
    relative to the current folder.
    """
    return f"spec file {path!r} does not exist"


@code("E102")
def spec_is_directory(path: str) -> str:
    """The spec path is a folder."""
    return f"{path!r} is a directory, not a spec file"


@code("E103")
def spec_unreadable(path: str, reason: str) -> str:
    """The spec file cannot be read."""
    return f"cannot read spec file {path!r}: {reason}"


@code("E104")
def spec_too_large(limit: int) -> str:
    """The spec file is too large."""
    return f"the spec is larger than {limit // (1024 * 1024)} MiB"


def spec_too_large_hint() -> str:
    return "keep large data in a separate file and point the spec at it"


@code("E105")
def invalid_utf8(byte: int) -> str:
    """The spec file is not UTF-8."""
    return f"the file is not valid UTF-8 (byte 0x{byte:02X})"


def invalid_utf8_hint() -> str:
    return "save the file as UTF-8"


@code("E106")
def forbidden_character(char: str) -> str:
    """A character a spec cannot hold."""
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        kind = "unpaired surrogate"
    elif code < 0x20 or 0x7F <= code <= 0x9F:
        kind = "control character"
    else:
        kind = "non-character"
    return f"{kind} U+{code:04X} is not allowed"


def forbidden_character_hint() -> str:
    return "remove it; tab, newline and carriage return are the only control characters allowed"


@code("E107")
def tab_indentation() -> str:
    """A tab indents a YAML line.

    YAML indents with spaces only; a tab at the start of a line is refused. Your editor may insert tabs:
    set it to indent YAML files with spaces and replace the tab the diagnostic points at.
    """
    return "tab character used for indentation"


def tab_indentation_hint() -> str:
    return "indent with spaces"


@code("E108")
def tab_not_allowed() -> str:
    """A tab where YAML does not allow one."""
    return "tab character is not allowed here"


def tab_not_allowed_hint() -> str:
    return "use spaces instead of tabs"


@code("E109")
def invalid_yaml(problem: str) -> str:
    """The YAML does not parse.

    The file is not valid YAML: the parser stopped at the position shown, which is often just after the
    real mistake. Common causes: an unclosed quote or bracket, a missing space after a colon, a list
    item indented differently from its siblings. Fix the line the diagnostic points at (or the one
    before it).

    Example:
        data: {dataset: cars
        mark: point
    """
    return f"invalid YAML: {problem}"


@code("E110")
def invalid_json(problem: str) -> str:
    """The JSON does not parse.

    A .json spec that is not valid JSON: a trailing comma, a single-quoted string, a comment or an
    unquoted key. JSON allows none of them; write the spec as YAML (.yaml) if you want comments.
    """
    return f"invalid JSON: {problem}"


def syntax_context_hint(context: str, line: int, column: int) -> str:
    """Where the construct that the parser was reading began."""
    return f"in {context} that starts at line {line}, column {column}"


@code("E111")
def multiple_documents() -> str:
    """More than one YAML document in the file."""
    return "the file holds more than one YAML document"


def multiple_documents_hint() -> str:
    return "a spec file holds one chart: remove the extra '---' or split the file"


@code("E112")
def unsupported_yaml_version(version: str) -> str:
    """A YAML version other than 1.2."""
    return f"YAML {version} is not supported; specs are read as YAML 1.2"


def unsupported_yaml_version_hint() -> str:
    return "remove the %YAML line"


@code("E113")
def not_a_mapping(kind: str) -> str:
    """The spec is not a mapping.

    A chart spec is a mapping of keys (`data`, `mark`, `encoding`, ...); the file holds something else:
    a list, a single value, or nothing at all.

    Example:
        - mark: point
    """
    return f"a chart spec must be a mapping of keys to values, not {kind}"


def not_a_mapping_hint(spec_format: str) -> str:
    if spec_format == "json":
        return 'write the spec as a JSON object, e.g. {"title": "My chart"}'
    return "start the file with top-level keys, e.g. 'title: My chart'"


@code("E114")
def duplicate_key(key: str, first_line: int) -> str:
    """A key written twice in one mapping.

    The same key is written twice in one mapping. YAML 1.1 loaders silently keep the last value, so the
    first one would be ignored without a word; chartc refuses the file instead. Remove one of the two,
    or rename it if you meant another key.

    Example:
        data: {dataset: cars}
        mark: point
        encoding:
          x: Horsepower
          x: Miles_per_Gallon
    """
    return f"duplicate key {key!r} (first defined on line {first_line})"


def duplicate_key_hint() -> str:
    return "a key may appear only once in a mapping; remove or rename one"


@code("E115")
def key_not_string(kind: str, text: str | None = None) -> str:
    """A mapping key that is not text."""
    if text is None:
        return f"a mapping key must be a string, not {kind}"
    return f"mapping key {text!r} is {kind}, not a string"


def key_not_string_hint() -> str:
    return "quote the key"


@code("E116")
def unsupported_tag(tag: str) -> str:
    """A YAML tag chartc does not read."""
    return f"the tag {tag} is not supported"


def unsupported_tag_hint() -> str:
    return "remove the tag; a spec holds only mappings, lists, strings, numbers, booleans and null"


@code("E117")
def bad_tagged_scalar(value: str, tag: str) -> str:
    """A tagged value that does not read as its tag."""
    return f"{value!r} is not a valid {tag} value"


@code("E118")
def bad_merge() -> str:
    """A YAML merge key that cannot merge."""
    return "a merge key '<<' must be followed by a mapping or a list of mappings"


@code("E119")
def non_finite_number(text: str) -> str:
    """Infinity or NaN written in a spec."""
    return f"{text} is not allowed: numbers in a spec must be finite"


def non_finite_number_hint() -> str:
    return "JSON has no NaN or infinity; use null, or quote the value if it is text"


@code("E120")
def number_out_of_range(text: str) -> str:
    """A number too large for a double."""
    shown = text if len(text) <= 24 else text[:20] + "..."
    return f"the number {shown} is out of range"


@code("E121")
def undefined_alias(name: str) -> str:
    """An alias to an anchor not defined before it."""
    return f"alias *{name} refers to an undefined anchor"


def undefined_alias_hint(name: str) -> str:
    return f"define the anchor with &{name} before the alias"


@code("E122")
def recursive_alias(name: str) -> str:
    """An alias inside its own anchor."""
    return f"recursive alias *{name}: it refers to a node that contains it"


@code("E123")
def alias_bomb(limit: int) -> str:
    """Aliases that expand to too many nodes."""
    return f"aliases expand to more than {limit:,} nodes"


def alias_bomb_hint() -> str:
    return "use fewer aliases (*name), or write the repeated values out"


@code("E124")
def too_deeply_nested(limit: int) -> str:
    """The spec nests too deeply."""
    return f"the spec is nested more than {limit} levels deep"
