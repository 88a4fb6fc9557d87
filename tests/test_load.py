"""Stage 1: spec text -> Document (plain data + positions), and every way it fails."""

from __future__ import annotations

import json
import time

import pytest

from chartc import errors as msg
from chartc.errors import Location, SpecError
from chartc.stages.load import MAX_ALIAS_NODES, MAX_DEPTH, MAX_SPEC_BYTES, Document, load_spec, load_text
from conftest import label

SPEC = """\
title: Pretraining vs Downstream
data:
  path: data/attention.csv
layers:
  - mark: point
    markers:
      field: model
      styles:
        MLA: {shape: diamond, color: "#d62728"}
  - trend:
      method: linear
      style: {dash: [6, 4]}
"""


def load_error(text: str, file: str = "spec.yaml", *, format: str = "yaml") -> SpecError:
    with pytest.raises(SpecError) as caught:
        load_text(text, file, format=format)
    assert caught.value.stage == "load"
    return caught.value


def diagnostic(file, line, column, path, message, hint=None) -> str:
    """What SpecError.diagnostic() prints, built independently of SpecError."""
    text = f"{file}:{line}:{column}: {label(message)}: {msg.format_path(path)}: {message}"
    return f"{text} ({hint})" if hint else text


def assert_plain(value) -> None:
    """Only builtin types, nothing from ruamel (exact types, not subclasses)."""
    assert type(value) in (dict, list, str, int, float, bool, type(None)), type(value)
    if type(value) is dict:
        for key, item in value.items():
            assert type(key) is str
            assert_plain(item)
    elif type(value) is list:
        for item in value:
            assert_plain(item)


# ------------------------------------------------------------------ positions and data

def test_yaml_positions_of_nested_values_and_keys():
    doc = load_text(SPEC, "spec.yaml")
    assert isinstance(doc, Document) and doc.file == "spec.yaml"
    assert doc.data["layers"][1]["trend"]["method"] == "linear"
    assert doc.positions[()] == Location("spec.yaml", 1, 1)
    assert doc.positions[("title",)] == Location("spec.yaml", 1, 8)
    assert doc.positions[("layers", 1, "trend", "method")] == Location("spec.yaml", 11, 15)
    assert doc.key_positions[("layers", 1, "trend", "method")] == Location("spec.yaml", 11, 7)
    assert doc.positions[("layers", 1)] == Location("spec.yaml", 10, 5)  # the sequence item
    assert doc.positions[("layers", 0, "markers", "styles", "MLA", "color")] == Location("spec.yaml", 9, 38)
    assert doc.positions[("layers", 1, "trend", "style", "dash", 1)] == Location("spec.yaml", 12, 25)
    assert doc.key_positions[("data", "path")] == Location("spec.yaml", 3, 3)
    assert ("layers", 1) not in doc.key_positions  # sequence items have no key


def test_data_is_plain_python():
    doc = load_text(SPEC + "n: 1\nf: 1.5\nb: true\nz: null\nd: 2024-01-01\n")
    assert_plain(doc.data)
    assert doc.data["layers"][1]["trend"]["style"] == {"dash": [6, 4]}
    assert [doc.data[k] for k in "nfbzd"] == [1, 1.5, True, None, "2024-01-01"]


def test_yaml_1_2_semantics():
    doc = load_text("a: no\nb: yes\nc: on\nd: off\ne: 1e3\nf: 0o17\ng: 0x1F\nh: 017\ni: y\n")
    assert doc.data == {"a": "no", "b": "yes", "c": "on", "d": "off", "e": 1000.0,
                        "f": 15, "g": 31, "h": 17, "i": "y"}
    assert type(doc.data["e"]) is float


def test_dates_stay_as_written():
    doc = load_text("day: 2024-01-01\nwhen: 2001-12-14t21:59:43.10-05:00\n")
    assert doc.data == {"day": "2024-01-01", "when": "2001-12-14t21:59:43.10-05:00"}


def test_numeric_keys_become_the_text_written():
    doc = load_text("styles:\n  4: {shape: star}\n  1.50: {}\n  0x1F: {}\n")
    assert list(doc.data["styles"]) == ["4", "1.50", "0x1F"]
    assert doc.key_positions[("styles", "4")] == Location("<string>", 2, 3)


def test_crlf_line_endings_and_bom(tmp_path):
    spec = tmp_path / "crlf.yaml"
    spec.write_bytes(b"\xef\xbb\xbftitle: x\r\nlayers:\r\n  - mark: point\r\n")
    doc = load_spec(spec)
    assert doc.data == {"title": "x", "layers": [{"mark": "point"}]}
    assert doc.file == str(spec)
    assert doc.positions[("layers", 0, "mark")] == Location(str(spec), 3, 11)


def test_locate_walks_up_to_the_nearest_ancestor():
    doc = load_text(SPEC, "spec.yaml")
    assert doc.locate(("layers", 1, "trend", "method")) == Location("spec.yaml", 11, 15)
    assert doc.locate(["layers", 1, "trend", "method"], key=True) == Location("spec.yaml", 11, 7)
    # A missing key points at its parent mapping.
    assert doc.locate(("layers", 1, "trend", "degree")) == doc.positions[("layers", 1, "trend")]
    assert doc.locate(("layers", 1, "trend", "degree"), key=True) == Location("spec.yaml", 10, 5)
    # A sequence item has no key position: fall back to its value position.
    assert doc.locate(("layers", 0), key=True) == Location("spec.yaml", 5, 5)
    assert doc.locate(("nope", 3)) == Location("spec.yaml", 1, 1)


# ------------------------------------------------------------------ JSON

JSON_SPEC = """{
  "title": "x",
  "layers": [
    {"mark": "point"},
    {"trend": {"method": "linear"}}
  ]
}"""


def test_json_positions_and_plain_types(tmp_path):
    spec = tmp_path / "chart.json"
    spec.write_text(JSON_SPEC, encoding="utf-8")
    doc = load_spec(spec)
    file = str(spec)
    assert doc.data == json.loads(JSON_SPEC)
    assert_plain(doc.data)
    assert doc.positions[()] == Location(file, 1, 1)
    assert doc.positions[("layers", 1, "trend", "method")] == Location(file, 5, 26)
    assert doc.key_positions[("layers", 1, "trend", "method")] == Location(file, 5, 16)
    assert doc.positions[("layers", 0)] == Location(file, 4, 5)


def test_json_suffix_means_json_even_for_yaml_text(tmp_path):
    spec = tmp_path / "chart.JSON"
    spec.write_text("title: x\n", encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(spec)
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads("title: x\n")
    assert caught.value.diagnostic() == diagnostic(spec, 1, 1, (), msg.invalid_json(expected.value.msg))


def test_json_duplicate_key():
    text = '{\n  "title": "a",\n  "mark": "point",\n  "title": "b"\n}'
    error = load_error(text, "c.json", format="json")
    assert error.diagnostic() == diagnostic(
        "c.json", 4, 3, ("title",), msg.duplicate_key("title", 2), msg.duplicate_key_hint())


@pytest.mark.parametrize("text", [
    '{"a": 1,}',                      # trailing comma
    '{"a": [1, 2,]}',
    '// note\n{"a": 1}',               # comment
    '{"a": 1 /* c */}',
    "{'a': 1}",                        # single quotes
    '{"a": 01}',
    '{"a": 1}\n{"b": 2}',              # extra data
    '{"a": "unterminated}',
])
def test_malformed_json_reports_the_parser_position(text):
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(text)
    error = load_error(text, "c.json", format="json")
    assert error.diagnostic() == diagnostic(
        "c.json", expected.value.lineno, expected.value.colno, (), msg.invalid_json(expected.value.msg))


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_json_rejects_non_finite_literals(literal):
    error = load_error('{\n  "size": ' + literal + "\n}", "c.json", format="json")
    assert error.diagnostic() == diagnostic(
        "c.json", 2, 11, ("size",), msg.non_finite_number(literal), msg.non_finite_number_hint())


def test_json_out_of_range_numbers():
    error = load_error('{"size": 1e999}', "c.json", format="json")
    assert error.diagnostic() == diagnostic("c.json", 1, 10, ("size",), msg.number_out_of_range("1e999"))
    digits = "9" * 5000
    error = load_error('{"size": ' + digits + "}", "c.json", format="json")
    assert error.diagnostic() == diagnostic("c.json", 1, 10, ("size",), msg.number_out_of_range(digits))


# ------------------------------------------------------------------ duplicate and odd keys

def test_yaml_duplicate_key_points_at_the_second():
    error = load_error("title: a\nmark: point\ntitle: b\n")
    assert error.diagnostic() == diagnostic(
        "spec.yaml", 3, 1, ("title",), msg.duplicate_key("title", 1), msg.duplicate_key_hint())


def test_numeric_and_quoted_keys_collide():
    error = load_error("styles:\n  '4': {}\n  4: {}\n")
    assert error.diagnostic() == diagnostic(
        "spec.yaml", 3, 3, ("styles", "4"), msg.duplicate_key("4", 2), msg.duplicate_key_hint())


def test_duplicate_key_in_flow_mapping():
    error = load_error("a: {b: 1, b: 2}\n")
    assert error.diagnostic() == diagnostic(
        "spec.yaml", 1, 11, ("a", "b"), msg.duplicate_key("b", 1), msg.duplicate_key_hint())


@pytest.mark.parametrize("text, message, column", [
    ("s:\n  ~: 1\n", msg.key_not_string("null", "~"), 3),
    ("s:\n  null: 1\n", msg.key_not_string("null", "null"), 3),
    ("s:\n  : 1\n", msg.key_not_string("null", ""), 3),
    ("s:\n  true: 1\n", msg.key_not_string("a boolean", "true"), 3),
    ("s:\n  2024-01-01: 1\n", msg.key_not_string("a date", "2024-01-01"), 3),
    ("s:\n  ? [a, b]\n  : 1\n", msg.key_not_string("a list"), 5),
    ("s:\n  ? {a: 1}\n  : 1\n", msg.key_not_string("a mapping"), 5),
])
def test_non_string_keys_are_errors(text, message, column):
    error = load_error(text)
    assert error.diagnostic() == diagnostic("spec.yaml", 2, column, ("s",), message, msg.key_not_string_hint())


# ------------------------------------------------------------------ tabs and syntax errors

@pytest.mark.parametrize("text, line, column", [
    ("a:\n\tb: 1\n", 2, 1),
    ("a:\n  b: 1\n  \tc: 2\n", 3, 3),
    ("layers:\n  - x\n\t- y\n", 3, 1),
])
def test_tab_indentation(text, line, column):
    error = load_error(text)
    assert error.diagnostic() == diagnostic(
        "spec.yaml", line, column, (), msg.tab_indentation(), msg.tab_indentation_hint())


def test_tab_after_a_key():
    error = load_error("title:\tx\n")
    assert error.diagnostic() == diagnostic(
        "spec.yaml", 1, 7, (), msg.tab_not_allowed(), msg.tab_not_allowed_hint())


def test_tabs_inside_text_are_fine():
    doc = load_text('a: |\n  x\n  \ty\nb: "t\\tz"\nc: [\n\t1]\nd: 1  #\tcomment\n')
    assert doc.data == {"a": "x\n\ty\n", "b": "t\tz", "c": [1], "d": 1}


def test_malformed_yaml_reports_the_parser_position():
    error = load_error("a: [1, 2\nb: 3\n")
    assert error.diagnostic() == diagnostic(
        "spec.yaml", 2, 2, (), msg.invalid_yaml("expected ',' or ']', but got ':'"),
        msg.syntax_context_hint("a flow sequence", 1, 4))


def test_malformed_yaml_without_context():
    error = load_error("a:\n  b: 1\n   c: 2\n")
    assert error.diagnostic() == diagnostic(
        "spec.yaml", 3, 5, (), msg.invalid_yaml("mapping values are not allowed here"))


def test_unclosed_quote():
    error = load_error("title: 'x\n")
    assert error.diagnostic() == diagnostic(
        "spec.yaml", 2, 1, (), msg.invalid_yaml("found unexpected end of stream"),
        msg.syntax_context_hint("a quoted scalar", 1, 8))


def test_multiple_documents():
    error = load_error("title: a\n---\ntitle: b\n")
    assert error.diagnostic() == diagnostic(
        "spec.yaml", 2, 1, (), msg.multiple_documents(), msg.multiple_documents_hint())


@pytest.mark.parametrize("version", ["1.1", "1.3", "2.0"])
def test_yaml_versions_other_than_1_2(version):
    error = load_error(f"# chart\n%YAML {version}\n---\na: no\n")
    assert error.diagnostic() == diagnostic(
        "spec.yaml", 2, 1, (), msg.unsupported_yaml_version(version), msg.unsupported_yaml_version_hint())


def test_explicit_yaml_1_2_is_fine():
    assert load_text("%YAML 1.2\n---\na: no\n").data == {"a": "no"}


@pytest.mark.parametrize("text, tag", [("a: !color red\n", "!color"), ("a: !!set {x}\n", "!!set"),
                                       ("a: !!binary aGk=\n", "!!binary")])
def test_unsupported_tags(text, tag):
    error = load_error(text)
    assert error.diagnostic() == diagnostic(
        "spec.yaml", 1, 4, ("a",), msg.unsupported_tag(tag), msg.unsupported_tag_hint())


def test_bad_tagged_scalar():
    error = load_error("a: !!int abc\n")
    assert error.diagnostic() == diagnostic("spec.yaml", 1, 4, ("a",), msg.bad_tagged_scalar("abc", "!!int"))


@pytest.mark.parametrize("written", [".inf", "-.Inf", ".nan"])
def test_yaml_non_finite_numbers(written):
    error = load_error(f"size: {written}\n")
    assert error.diagnostic() == diagnostic(
        "spec.yaml", 1, 7, ("size",), msg.non_finite_number(written), msg.non_finite_number_hint())


def test_yaml_out_of_range_numbers():
    error = load_error("size: 1e999\n")
    assert error.diagnostic() == diagnostic("spec.yaml", 1, 7, ("size",), msg.number_out_of_range("1e999"))


# ------------------------------------------------------------------ aliases

def test_aliases_expand_into_independent_copies():
    doc = load_text("star: &star {shape: star, size: 220}\nstyles:\n  A: *star\n  B: *star\n")
    assert doc.data["styles"] == {"A": {"shape": "star", "size": 220}, "B": {"shape": "star", "size": 220}}
    doc.data["styles"]["A"]["size"] = 1
    assert doc.data["styles"]["B"]["size"] == 220
    # Expanded values point at the anchored original; keys at their own place.
    assert doc.positions[("styles", "B", "shape")] == Location("<string>", 1, 21)
    assert doc.key_positions[("styles", "B")] == Location("<string>", 4, 3)


def test_merge_keys():
    doc = load_text("base: &base {shape: star, color: red}\nstyle:\n  <<: *base\n  color: blue\n")
    assert doc.data["style"] == {"shape": "star", "color": "blue"}
    assert doc.key_positions[("style", "color")] == Location("<string>", 4, 3)
    assert doc.key_positions[("style", "shape")] == Location("<string>", 1, 14)


def test_bad_merge():
    error = load_error("a:\n  <<: [1]\n")
    assert error.diagnostic() == diagnostic("spec.yaml", 2, 8, ("a",), msg.bad_merge())


def test_recursive_alias():
    error = load_error("a: &x\n  b: *x\n")
    assert error.diagnostic() == diagnostic("spec.yaml", 2, 6, (), msg.recursive_alias("x"))


def test_undefined_alias():
    error = load_error("a: *nope\n")
    assert error.diagnostic() == diagnostic(
        "spec.yaml", 1, 4, (), msg.undefined_alias("nope"), msg.undefined_alias_hint("nope"))


def test_billion_laughs_is_rejected_fast():
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    started = time.perf_counter()
    error = load_error("\n".join(lines) + "\n")
    assert time.perf_counter() - started < 0.5
    # a0..a4 add 74,718 nodes; the first alias on the a5 line crosses 100,000.
    assert error.diagnostic() == diagnostic(
        "spec.yaml", 6, lines[5].index("*") + 1, (), msg.alias_bomb(MAX_ALIAS_NODES), msg.alias_bomb_hint())


def test_reused_anchor_names_are_fine():
    assert load_text("a: &x 1\nb: &x 2\nc: *x\n").data == {"a": 1, "b": 2, "c": 2}


# ------------------------------------------------------------------ characters and bytes

@pytest.mark.parametrize("char", ["\x00", "\x08", "\x0b", "\x0c", "\x1b", "\x7f", "\x85", "\x9f",
                                  "\ufffe", "\uffff", "\ufdd0", "\U0001fffe"])
def test_control_characters_in_the_text(char):
    error = load_error(f"title: ok\nnote: a{char}b\n")
    assert error.diagnostic() == diagnostic(
        "spec.yaml", 2, 8, (), msg.forbidden_character(char), msg.forbidden_character_hint())


def test_control_character_message_names_the_code_point():
    assert msg.forbidden_character("\x08") == "control character U+0008 is not allowed"
    assert msg.forbidden_character("\ufffe") == "non-character U+FFFE is not allowed"


def test_control_characters_in_a_json_file():
    error = load_error('{"a":\n "x\x01"}', "c.json", format="json")
    assert error.diagnostic() == diagnostic(
        "c.json", 2, 4, (), msg.forbidden_character("\x01"), msg.forbidden_character_hint())


@pytest.mark.parametrize("escape", ["\\x08", "\\b", "\\u0008", "\\U00000008"])
def test_control_characters_written_as_yaml_escapes(escape):
    error = load_error(f'title: ok\nlayers:\n  - mark: "a{escape}"\n')
    assert error.diagnostic() == diagnostic(
        "spec.yaml", 3, 11, ("layers", 0, "mark"), msg.forbidden_character("\x08"), msg.forbidden_character_hint())


def test_control_characters_escaped_in_keys():
    error = load_error('styles:\n  "A\\x1f": {}\n')
    assert error.diagnostic() == diagnostic(
        "spec.yaml", 2, 3, ("styles",), msg.forbidden_character("\x1f"), msg.forbidden_character_hint())


def test_control_characters_written_as_json_escapes():
    error = load_error('{"title": "ok",\n "x": ["a\\u0007"]}', "c.json", format="json")
    assert error.diagnostic() == diagnostic(
        "c.json", 2, 8, ("x", 0), msg.forbidden_character("\x07"), msg.forbidden_character_hint())
    error = load_error('{"ti\\ufffftle": 1}', "c.json", format="json")
    assert error.diagnostic() == diagnostic(
        "c.json", 1, 2, (), msg.forbidden_character("\uffff"), msg.forbidden_character_hint())


def test_tab_newline_and_carriage_return_are_fine():
    assert load_text('a: "x\\ty\\nz\\r"\n').data == {"a": "x\ty\nz\r"}


def test_invalid_utf8(tmp_path):
    spec = tmp_path / "latin1.yaml"
    spec.write_bytes("title: ok\nname: caf\u00e9 \u00e9\n".encode("latin-1"))
    with pytest.raises(SpecError) as caught:
        load_spec(spec)
    assert caught.value.diagnostic() == diagnostic(
        spec, 2, 10, (), msg.invalid_utf8(0xE9), msg.invalid_utf8_hint())


def test_utf8_text_is_fine(tmp_path):
    spec = tmp_path / "utf8.yaml"
    spec.write_text("title: caf\u00e9 \U0001f600 R\u00b2\n", encoding="utf-8")
    assert load_spec(spec).data == {"title": "caf\u00e9 \U0001f600 R\u00b2"}


# ------------------------------------------------------------------ shape of the file

@pytest.mark.parametrize("text, kind", [
    ("", "an empty document"),
    ("\n  \n", "an empty document"),
    ("# just a comment\n", "an empty document"),
    ("- mark: point\n", "a list"),
    ("just text\n", "a string"),
    ("42\n", "a number"),
])
def test_top_level_must_be_a_mapping(text, kind):
    error = load_error(text)
    assert error.diagnostic() == diagnostic(
        "spec.yaml", 1, 1, (), msg.not_a_mapping(kind), msg.not_a_mapping_hint("yaml"))


@pytest.mark.parametrize("text, kind", [("", "an empty document"), ("[1]", "a list"), ('"x"', "a string")])
def test_json_top_level_must_be_an_object(text, kind):
    error = load_error(text, "c.json", format="json")
    assert error.diagnostic() == diagnostic(
        "c.json", 1, 1, (), msg.not_a_mapping(kind), msg.not_a_mapping_hint("json"))


def test_empty_file(tmp_path):
    spec = tmp_path / "empty.yaml"
    spec.write_bytes(b"")
    with pytest.raises(SpecError) as caught:
        load_spec(spec)
    assert caught.value.diagnostic() == diagnostic(
        spec, 1, 1, (), msg.not_a_mapping("an empty document"), msg.not_a_mapping_hint("yaml"))


def test_too_deeply_nested():
    error = load_error("a: " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "\n")
    assert error.diagnostic() == diagnostic("spec.yaml", 1, MAX_DEPTH + 3, (), msg.too_deeply_nested(MAX_DEPTH))
    nested = '{"a": ' + "[" * 3000 + "]" * 3000 + "}"
    error = load_error(nested, "c.json", format="json")
    assert error.diagnostic() == diagnostic("c.json", 1, MAX_DEPTH + 6, (), msg.too_deeply_nested(MAX_DEPTH))


# ------------------------------------------------------------------ files

def test_file_larger_than_the_limit(tmp_path):
    spec = tmp_path / "big.yaml"
    with open(spec, "wb") as handle:
        handle.truncate(MAX_SPEC_BYTES + 1)  # sparse: nothing is written or read
    with pytest.raises(SpecError) as caught:
        load_spec(spec)
    assert caught.value.diagnostic() == diagnostic(
        spec, 1, 1, (), msg.spec_too_large(MAX_SPEC_BYTES), msg.spec_too_large_hint())


def test_text_larger_than_the_limit():
    error = load_error("a: " + "x" * MAX_SPEC_BYTES)
    assert error.diagnostic() == diagnostic(
        "spec.yaml", 1, 1, (), msg.spec_too_large(MAX_SPEC_BYTES), msg.spec_too_large_hint())


def test_missing_file(tmp_path):
    (tmp_path / "cars.yaml").write_text("a: 1\n")
    missing = tmp_path / "crs.yaml"
    with pytest.raises(SpecError) as caught:
        load_spec(missing)
    assert caught.value.diagnostic() == diagnostic(
        missing, 1, 1, (), msg.spec_not_found(str(missing)), msg.did_you_mean("crs.yaml", ["cars.yaml"]))


def test_directory(tmp_path):
    with pytest.raises(SpecError) as caught:
        load_spec(tmp_path)
    assert caught.value.diagnostic() == diagnostic(tmp_path, 1, 1, (), msg.spec_is_directory(str(tmp_path)))


@pytest.mark.parametrize("text", [
    "a: b: c", "[", "{", "a: &", "a: !", "? ", "a: *", "%TAG ! tag:x\n---\na: !x 1\n", "a: 'x' y",
    "a:\n- b\n c", '"\\', "- - - -", "a: |\n x\n  y\n z", "&a a: *a", "a: [*a, &a 1]", "a: 0b2",
    "a: !!float x", "a: !!null x", "a: !!bool maybe", "a: !!map [1]", "a: !!str {a: 1}", "\u2028a: 1",
])
def test_only_spec_errors_escape(text):
    try:
        load_text(text)
    except SpecError as error:
        assert error.stage == "load" and error.location is not None
