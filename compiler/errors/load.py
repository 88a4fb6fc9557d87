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
    """The spec path is a folder.

    The path given as a spec is a folder. `chartc validate` and `chartc build` take folders and read the
    specs in them; `chartc compile` takes one spec file.
    """
    return f"{path!r} is a directory, not a spec file"


@code("E103")
def spec_unreadable(path: str, reason: str) -> str:
    """The spec file cannot be read.

    The spec file exists but cannot be read (permissions, or an I/O error); the reason is the operating
    system's.
    """
    return f"cannot read spec file {path!r}: {reason}"


@code("E104")
def spec_too_large(limit: int) -> str:
    """The spec file is too large.

    A chart spec is a small text file; one over the limit is refused before it is parsed, so a huge or
    runaway file cannot exhaust memory. Put large data in a data file and point `data.path` at it.
    """
    return f"the spec is larger than {limit // (1024 * 1024)} MiB"


def spec_too_large_hint() -> str:
    return "keep large data in a separate file and point the spec at it"


@code("E105")
def invalid_utf8(byte: int) -> str:
    """The spec file is not UTF-8.

    Spec files are read as UTF-8. The byte shown is not valid UTF-8, usually because the file was saved
    in another encoding (Latin-1, Windows-1252): save it as UTF-8.
    """
    return f"the file is not valid UTF-8 (byte 0x{byte:02X})"


def invalid_utf8_hint() -> str:
    return "save the file as UTF-8"


@code("E106")
def forbidden_character(char: str) -> str:
    """A character a spec cannot hold.

    The spec holds a control character or a Unicode non-character, which cannot be shown or typed and
    which crashes the renderer if it reaches a chart. Usually pasted by accident: delete it, or write
    what you meant.
    """
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
    """A tab where YAML does not allow one.

    YAML does not allow a tab at this place (inside indentation or before a flow item). Replace it with
    spaces.
    """
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
    """More than one YAML document in the file.

    The file holds more than one YAML document (separated by `---`); a spec is one document. Put each
    chart in its own file.

    Example:
        data: {dataset: cars}
        mark: point
        ---
        mark: line
    """
    return "the file holds more than one YAML document"


def multiple_documents_hint() -> str:
    return "a spec file holds one chart: remove the extra '---' or split the file"


@code("E112")
def unsupported_yaml_version(version: str) -> str:
    """A YAML version other than 1.2.

    Specs are read as YAML 1.2 (where `no` is text, not false). A `%YAML` directive asking for another
    version is refused rather than read differently from what it says; remove the directive.
    """
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
    """A mapping key that is not text.

    Every key of a spec is text. YAML allows numbers, lists or mappings as keys (`? [a, b]: 1`), which
    no spec key can be: quote the key, or write it as text.
    """
    if text is None:
        return f"a mapping key must be a string, not {kind}"
    return f"mapping key {text!r} is {kind}, not a string"


def key_not_string_hint() -> str:
    return "quote the key"


@code("E116")
def unsupported_tag(tag: str) -> str:
    """A YAML tag chartc does not read.

    A YAML tag (`!color`, `!!binary`, `!!set`) asks for a type a chart spec does not have. Remove the
    tag and write the value plainly.

    Example:
        data: {dataset: cars}
        mark: !color red
    """
    return f"the tag {tag} is not supported"


def unsupported_tag_hint() -> str:
    return "remove the tag; a spec holds only mappings, lists, strings, numbers, booleans and null"


@code("E117")
def bad_tagged_scalar(value: str, tag: str) -> str:
    """A tagged value that does not read as its tag.

    A value with a standard tag (`!!int`, `!!float`, `!!bool`) does not read as that type. Remove the
    tag or fix the value.
    """
    return f"{value!r} is not a valid {tag} value"


@code("E118")
def bad_merge() -> str:
    """A YAML merge key that cannot merge.

    A YAML merge key (`<<: *base`) must be followed by a mapping or a list of mappings to merge in.
    """
    return "a merge key '<<' must be followed by a mapping or a list of mappings"


@code("E119")
def non_finite_number(text: str) -> str:
    """Infinity or NaN written in a spec.

    YAML can write infinity and not-a-number (`.inf`, `.nan`), which no chart value can be and which
    JSON cannot hold. Write a finite number.

    Example:
        data: {dataset: cars}
        mark: {type: point, size: .inf}
    """
    return f"{text} is not allowed: numbers in a spec must be finite"


def non_finite_number_hint() -> str:
    return "JSON has no NaN or infinity; use null, or quote the value if it is text"


@code("E120")
def number_out_of_range(text: str) -> str:
    """A number too large for a double.

    The number is too large to be a double-precision float (beyond about 1.8e308), so it would become
    infinity. Write a smaller number.
    """
    shown = text if len(text) <= 24 else text[:20] + "..."
    return f"the number {shown} is out of range"


@code("E121")
def undefined_alias(name: str) -> str:
    """An alias to an anchor not defined before it.

    A YAML alias (`*name`) refers to an anchor (`&name`) that is not defined before it. Define the
    anchor first, or fix the spelling.

    Example:
        data: {dataset: cars}
        mark: *point
    """
    return f"alias *{name} refers to an undefined anchor"


def undefined_alias_hint(name: str) -> str:
    return f"define the anchor with &{name} before the alias"


@code("E122")
def recursive_alias(name: str) -> str:
    """An alias inside its own anchor.

    An alias refers to a node that contains it, which would make an endless value.
    """
    return f"recursive alias *{name}: it refers to a node that contains it"


@code("E123")
def alias_bomb(limit: int) -> str:
    """Aliases that expand to too many nodes.

    YAML aliases can repeat a value many times over (a 'billion laughs'): a few lines can expand to
    millions of nodes and exhaust memory when validated or written. chartc counts the nodes aliases
    expand to and refuses past the limit.
    """
    return f"aliases expand to more than {limit:,} nodes"


def alias_bomb_hint() -> str:
    return "use fewer aliases (*name), or write the repeated values out"


@code("E124")
def too_deeply_nested(limit: int) -> str:
    """The spec nests too deeply.

    The spec nests mappings and lists deeper than any chart needs; deeper nesting is refused so a
    malformed or hostile file cannot exhaust the parser's stack.
    """
    return f"the spec is nested more than {limit} levels deep"
