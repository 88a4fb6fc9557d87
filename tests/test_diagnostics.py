"""Diagnostic codes: unique, on every diagnostic chartc reports, pinned in docs/diagnostics.md, explained by `chartc explain`.

The codes are declared beside the messages (compiler/errors/<stage>.py,
`@code("E451")`); docs/diagnostics.md is generated from them, and a code once
published there never disappears (it is retired, not reused).
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest
import yaml

from chartc import errors as msg
from chartc.commands import cli
from chartc.commands.explain import close_codes, diagnostics_markdown, entries, explain_code, template
from chartc.errors import REGISTRY, RETIRED, Diagnostic, SpecError, SpecWarning
from chartc.errors.registry import code
from chartc.pipeline import compile_spec, validate_spec

from conftest import ROOT, example_specs

DOC = ROOT / "docs" / "diagnostics.md"
REGENERATE = "chartc explain --markdown > docs/diagnostics.md"
ERRORS = ROOT / "compiler" / "errors"
# The hundreds of a code -> the messages modules that may declare it (docs/how-it-works.md's stages).
STAGE_MODULES = {
    "1": {"load"}, "2": {"validate"}, "3": {"parse"}, "4": {"data", "check"}, "5": {"limits"}, "6": {"fit"},
    "7": {"translate", "verify", "render", "scene"}, "8": {"commands"},
}
WITH_EXAMPLES = [entry.code for entry in entries() if entry.example]


def declared_codes() -> list[tuple[str, str, str]]:
    """(code, function, module) of every ``@code("...")`` in the source, read without importing it."""
    found = []
    for path in sorted(ERRORS.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef):
                for decorator in node.decorator_list:
                    if isinstance(decorator, ast.Call) and getattr(decorator.func, "id", "") == "code":
                        found.append((decorator.args[0].value, node.name, path.stem))
    return found


def doc_sections(text: str) -> dict[str, str]:
    """Code -> its section of docs/diagnostics.md (from its heading to the next)."""
    parts = re.split(r"^(?=## [EW]\d{3}\b)", text, flags=re.MULTILINE)
    return {part[3:7]: part for part in parts if re.match(r"## [EW]\d{3}\b", part)}


# ------------------------------------------------------------------ the codes

def test_every_code_is_declared_once_and_in_its_stage_hundreds():
    declared = declared_codes()
    codes = [c for c, _, _ in declared]
    assert sorted(c for c in set(codes) if codes.count(c) > 1) == []
    assert sorted(codes) == sorted(REGISTRY)  # the registry is exactly what the source declares
    wrong = [(c, name, module) for c, name, module in declared
             if not re.fullmatch(r"[EW][1-8]\d\d", c) or module not in STAGE_MODULES[c[1]]]
    assert wrong == []
    assert not set(RETIRED) & set(REGISTRY)


def test_a_declared_hint_is_a_hint_function_of_the_messages():
    declared = {entry.code: entry.hint for entry in entries() if entry.hint}
    assert len(declared) >= 20
    assert [c for c, hint in declared.items() if not callable(getattr(msg, hint, None))] == []
    assert "Hint:\n\n```\n{guess} {columns}\n```" in explain_code("E451")


def test_a_code_cannot_be_registered_twice_nor_malformed():
    with pytest.raises(ValueError, match="E451 is already field_not_found"):
        code("E451")(lambda: "again")
    with pytest.raises(ValueError, match="malformed"):
        code("E45")


def test_a_message_is_still_its_text_and_carries_its_code():
    message = msg.field_not_found("mpg", ["a"])
    assert message == "field 'mpg' is not in the data" and isinstance(message, str)
    assert message.code == msg.field_not_found.code == "E451"
    error = SpecError(message, ("encoding", "x"))
    assert error.code == "E451" and error.diagnostic() == "error[E451]: encoding.x: field 'mpg' is not in the data"
    assert SpecError("plain text").code is None and SpecError(message, code="E999").code == "E999"


def test_a_wrapped_message_keeps_the_code_of_what_it_wraps():
    inner = msg.trend_too_few_x(1)
    assert msg.trend_in_panel((("Origin", "USA"),), inner).code == inner.code
    assert msg.trend_in_group("Origin", "USA", inner).code == inner.code


# ------------------------------------------------------------------ the hierarchy

def test_warnings_are_not_errors():
    assert not issubclass(SpecWarning, SpecError)
    assert not issubclass(SpecWarning, BaseException)
    assert issubclass(SpecError, Exception) and issubclass(SpecError, Diagnostic) and issubclass(SpecWarning, Diagnostic)
    warning = SpecWarning(msg.data_text_scrubbed("name", 2), ("data", "path"))
    assert warning.diagnostic() == f"warning[W401]: data.path: {msg.data_text_scrubbed('name', 2)}"
    with pytest.raises(TypeError):
        raise warning


def test_warning_codes_are_on_warnings_and_error_codes_on_errors(tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(REGISTRY["W451"].example, encoding="utf-8")
    warnings = compile_spec(spec).warnings  # and W770/W771: its default colours merge for some readers
    [warning] = [w for w in warnings if w.code == "W451"]
    assert isinstance(warning, SpecWarning) and all(isinstance(w, SpecWarning) for w in warnings)


# ------------------------------------------------------------------ every diagnostic has one

def problems_of(spec: Path) -> list[Diagnostic]:
    """Every diagnostic the light validate and a compile report for `spec`."""
    found = list(validate_spec(spec))
    try:
        found += list(compile_spec(spec).warnings)
    except SpecError as error:
        found += error.errors
    return found


def assert_coded(problems: list[Diagnostic]) -> None:
    uncoded = [p.diagnostic() for p in problems if not p.code]
    assert uncoded == []
    wrong_kind = [p.diagnostic() for p in problems if p.code[0] != ("W" if isinstance(p, SpecWarning) else "E")]
    assert wrong_kind == []
    assert all(p.code in REGISTRY for p in problems)


INVALID_CASES = sorted(p for p in (ROOT / "tests" / "cases" / "invalid").iterdir() if p.suffix in (".yaml", ".json"))


def test_every_invalid_case_and_example_reports_only_coded_diagnostics():
    problems = [p for case in INVALID_CASES for p in problems_of(case)]
    assert len(problems) >= len(INVALID_CASES)
    assert_coded(problems)
    assert_coded([p for spec in example_specs() for p in validate_spec(spec)])


def _leaves(value, path=()):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, path + (index,))
    else:
        yield path


def _replace(data, path, value):
    if not path:
        return value
    copy = dict(data) if isinstance(data, dict) else list(data)
    copy[path[0]] = _replace(data[path[0]], path[1:], value)
    return copy


@pytest.mark.slow
def test_broken_gallery_specs_report_only_coded_diagnostics(tmp_path):
    """Every gallery spec, each of a sample of its values replaced by a wrong one, and each key misspelled."""
    shutil.copytree(ROOT / "specs" / "data", tmp_path / "data")  # the specs' data paths resolve beside them
    problems, broken = [], 0
    for spec in example_specs():
        data = yaml.safe_load(spec.read_text(encoding="utf-8"))
        data.pop("$schema", None)
        leaves = [path for path in _leaves(data) if path and path[0] != "data"]
        mutants = [_replace(data, path, value) for path in leaves[::max(1, len(leaves) // 4)]
                   for value in ("zzz", -1)]
        mutants += [{(f"{key}x" if index == number else key): item for index, (key, item) in enumerate(data.items())}
                    for number in range(len(data))][:3]
        for index, mutant in enumerate(mutants):
            path = tmp_path / f"{spec.stem}_{index}.yaml"
            path.write_text(yaml.safe_dump(mutant, sort_keys=False), encoding="utf-8")
            found = problems_of(path)
            broken += bool(found)
            problems += found
    assert broken >= 50 and len({p.code for p in problems}) >= 8
    assert_coded(problems)


# ------------------------------------------------------------------ docs/diagnostics.md

def test_docs_diagnostics_is_generated_from_the_registry():
    assert DOC.read_text(encoding="utf-8") == diagnostics_markdown(), (
        f"docs/diagnostics.md is stale: regenerate it with `{REGENERATE}`")


def test_a_published_code_is_never_dropped():
    published = set(re.findall(r"^## ([EW]\d{3})\b", DOC.read_text(encoding="utf-8"), re.MULTILINE))
    assert len(published) >= len(REGISTRY)
    gone = sorted(published - set(REGISTRY) - set(RETIRED))
    assert gone == [], (f"codes published in docs/diagnostics.md are gone: {gone}; list each in "
                        "compiler/errors/registry.py's RETIRED (a code is never reused), then `{REGENERATE}`")


def test_each_code_has_a_title_a_message_template_and_an_explanation():
    for entry in entries():
        section = explain_code(entry.code)
        assert entry.title and entry.title != entry.name, entry.code
        assert template(entry.function), entry.code
        assert len(section.split("\n\n")) >= 3, entry.code
    assert template(msg.not_a_color) == "{_clipped(value)!r} is not a colour\nexpected a colour, got {_describe_value(value)}"
    assert template(msg.trend_in_panel) == "in the panel for {where}: {message}"


@pytest.mark.parametrize("code", WITH_EXAMPLES)
def test_an_explanations_example_really_reports_its_code(tmp_path, code):
    spec = tmp_path / "example.yaml"
    spec.write_text(REGISTRY[code].example, encoding="utf-8")
    assert code in [problem.code for problem in problems_of(spec)]


def test_the_common_codes_have_examples():
    assert len(WITH_EXAMPLES) >= 25
    cases = {code for case in INVALID_CASES for code in re.findall(r"\[([EW]\d{3})\]", case.with_suffix(".txt").read_text())}
    cases -= {"E105", "E107", "E110", "E207", "E409"}  # bytes, tabs, JSON and long texts: no short YAML example
    assert sorted(cases - set(WITH_EXAMPLES)) == []


# ------------------------------------------------------------------ chartc explain

def test_explain_prints_the_codes_section_of_the_doc(capsys):
    sections = doc_sections(DOC.read_text(encoding="utf-8"))
    assert list(sections) == sorted([*REGISTRY, *RETIRED], key=lambda c: (c[1:], c[0]))
    for identifier, section in sections.items():
        assert cli.main(["explain", identifier.lower() if identifier == "E451" else identifier]) == cli.EXIT_OK
        out, err = capsys.readouterr()
        assert err == "" and section.startswith(out) and section.rstrip("\n") == out.rstrip("\n"), identifier


def test_explain_shows_the_example(capsys):
    assert cli.main(["explain", "E451"]) == cli.EXIT_OK
    out = capsys.readouterr().out
    assert out.startswith("## E451: A field that is not in the data\n")
    assert "```yaml\n" + REGISTRY["E451"].example + "```" in out
    assert "field {field!r} is not in the data" in out


def test_explain_without_a_code_lists_every_code(capsys):
    assert cli.main(["explain"]) == cli.EXIT_OK
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(REGISTRY) + len(RETIRED)
    assert "E451  A field that is not in the data" in lines and "W401  Control characters replaced in data text" in lines


@pytest.mark.parametrize("given, close", [("E21", ["E210", "E211", "E212"]), ("E4511", ["E451", "E411", "W451"]), ("X", [])])
def test_explain_an_unknown_code_is_a_usage_error_with_close_matches(capsys, given, close):
    assert close_codes(given) == close
    assert cli.main(["explain", given]) == cli.EXIT_USAGE
    assert capsys.readouterr() == ("", f"chartc: error: {msg.unknown_code(given, close)}\n")
    assert "did you mean E210 or E211 or E212?" in msg.unknown_code("E21", close_codes("E21"))
