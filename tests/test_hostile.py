"""Hostile inputs, end to end: each ends in a `FILE:LINE:COL` error or a warned fix-up.

For every case the process stays alive, no output file (not even half of
one) is left behind, and a chart that is written is not blank. The loader's
own cases (alias bombs, duplicate keys, YAML 1.1 words, tabs...) are unit
tested in test_load.py; here they go through the command line once each.

Anything that could abort the renderer (vl-convert#220: a control character
in rendered text is SIGABRT) runs in a child process.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from chartc import errors as msg
from chartc.stages.data import read as resolve
from chartc.errors import SpecError, SpecWarning
from chartc.render.export import render
from chartc.pipeline import compile_spec
from chartc.infra.jsonout import canonical_json

ROOT = Path(__file__).resolve().parent.parent
DIAGNOSTIC = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<column>\d+): (?P<severity>error|warning)\[(?P<code>[EW]\d{3})\]: ")
TABLE = "model,bpb,score\nMLA,0.72,35.1\nMQA,0.73,33.5\nGQA,0.725,35.8\n"


@pytest.fixture
def project(tmp_path):
    """A project folder (its own git work tree, so data may not leave it) with a data file."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "data" / "table.csv").write_text(TABLE, encoding="utf-8")
    return root


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def spec_text(data: str, *, extra: str = "", mark: str = "point", x: str = "bpb", y: str = "score") -> str:
    """A one-layer spec whose `data:` is on line 2 (so positions are easy to state)."""
    return f"title: hostile\ndata: {data}\nmark: {mark}\nencoding:\n  x: {x}\n  y: {y}\n{extra}"


def compile_error(path: Path) -> SpecError:
    """The SpecError compiling `path` raises; every problem in it has a position in `path`."""
    with pytest.raises(SpecError) as caught:
        compile_spec(path)
    for problem in caught.value.errors:
        assert problem.location is not None, problem.diagnostic()
        assert problem.location.file == str(path)
        assert not isinstance(problem, SpecWarning)
    return caught.value


def at(error: SpecError, line: int, column: int | None = None) -> SpecError:
    """The first problem, checked to be at `line` (and `column`)."""
    first = error.errors[0]
    assert first.location.line == line, first.diagnostic()
    if column is not None:
        assert first.location.column == column, first.diagnostic()
    return first


def chartc(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the command line in a child process (the renderer may abort a process)."""
    return subprocess.run([sys.executable, "-m", "chartc", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def assert_rejected(result: subprocess.CompletedProcess, spec: Path, out: Path | None = None) -> list[str]:
    """Exit 1, diagnostics only (no traceback), every line FILE:LINE:COL, no output left behind."""
    assert result.returncode == 1, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines
    for line in lines:
        match = DIAGNOSTIC.match(line)
        assert match, line
        assert Path(match["file"]).name == spec.name
    if out is not None:
        assert not out.exists()
        assert not [p for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")], "temporary file left"
    return lines


def svg_marks(svg: bytes) -> int:
    """How many data marks an SVG draws (points, texts, line paths...), legends and axes aside."""
    tree = ET.fromstring(svg)
    return sum(len(group) for group in tree.iter() if "role-mark" in group.get("class", "").split())


# ------------------------------------------------------------------ YAML through the command line

YAML_CASES = {
    "alias_bomb": (
        'a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]\n'
        + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
                  f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
                  for i in range(8)),
        msg.alias_bomb,
    ),
    "recursive_alias": ("title: t\ndata: &d {values: [*d]}\nmark: point\n", msg.recursive_alias),
    "duplicate_key": ("title: a\ntitle: b\ndata: {path: data/table.csv}\nmark: point\n", msg.duplicate_key),
    "tab_indentation": ("title: t\ndata:\n\tpath: data/table.csv\nmark: point\n", None),
    "null_key": ("data: {path: data/table.csv}\nmark: point\nencoding: {~: bpb}\n", msg.key_not_string),
    "yaml11_boolean": ("data: {path: data/table.csv}\nmark: {type: point, filled: yes}\n", None),
}


@pytest.mark.parametrize("case", sorted(YAML_CASES))
def test_hostile_yaml_is_a_diagnostic_on_the_command_line(project, case):
    text, _ = YAML_CASES[case]
    spec = write(project, f"{case}.yaml", text)
    out = project / "out.svg"
    result = chartc("compile", spec.name, "-o", out.name, cwd=project, timeout=60)
    assert_rejected(result, spec, out)


def test_yaml_12_reading_of_words_numbers_and_dates(project):
    """`no` stays text, `1e3` is a number, a date stays the text written."""
    spec = write(project, "words.yaml", spec_text(
        "{path: data/table.csv}", extra="width: 1e3\nsubtitle: 2024-01-31\ndescription: no\n"))
    vega_lite = compile_spec(spec).vega_lite
    assert vega_lite["width"] == 1000
    assert vega_lite["title"]["subtitle"] == "2024-01-31"
    assert vega_lite["description"] == "no"


def test_numeric_keys_are_category_names(project):
    (project / "data" / "cyl.csv").write_text("cyl,x,y\n4,1,2\n8,2,3\n", encoding="utf-8")
    spec = write(project, "keys.yaml", """\
        data: {path: data/cyl.csv}
        mark: point
        encoding: {x: x, y: y}
        markers:
          field: cyl
          styles:
            4: {shape: circle, color: red}
            8: {shape: square, color: blue}
        """)
    compiled = compile_spec(spec)
    assert not compiled.warnings


# ------------------------------------------------------------------ text that reaches the renderer

def test_control_characters_in_spec_text_are_rejected_before_rendering(project):
    spec = project / "ctrl.yaml"
    spec.write_text(spec_text("{path: data/table.csv}").replace("title: hostile", 'title: "bad\\b title"'),
                    encoding="utf-8")
    out = project / "ctrl.svg"
    lines = assert_rejected(chartc("compile", spec.name, "-o", out.name, cwd=project), spec, out)
    assert lines[0].endswith(msg.forbidden_character("\b") + f" ({msg.forbidden_character_hint()})")


@pytest.mark.slow
def test_control_characters_in_a_csv_are_replaced_and_warned_not_fatal(project):
    """vl-convert aborts the process on \\x08 in any rendered text (vl-convert#220)."""
    (project / "data" / "ctrl.csv").write_bytes(
        "na\x08me,v,c\nab\x08c\x00,1,x\x1b\nok,2,y\n\ufffe,3,z\x7f\n".encode("utf-8"))
    spec = write(project, "ctrl.yaml", spec_text("{path: data/ctrl.csv}", mark="text", x="v", y="c",
                                                  extra="  text: c\n  tooltip: [c]\n"))
    out = project / "ctrl.svg"
    result = chartc("compile", spec.name, "-o", out.name, cwd=project)
    assert result.returncode == 0, (result.returncode, result.stderr[-3000:])  # alive: no SIGABRT (-6)
    warnings = result.stderr.strip().splitlines()
    assert warnings == [
        f"{spec.name}:2:14: warning[{msg.data_column_scrubbed.code}]: data.path: "
        f"{msg.data_column_scrubbed('na' + chr(8) + 'me', 'na�me', 1)}"
        f" ({msg.data_scrubbed_hint()})",
        f"{spec.name}:2:14: warning[{msg.data_text_scrubbed.code}]: data.path: {msg.data_text_scrubbed('na�me', 3)} "
        f"({msg.data_scrubbed_hint()})",
        f"{spec.name}:2:14: warning[{msg.data_text_scrubbed.code}]: data.path: {msg.data_text_scrubbed('c', 2)} "
        f"({msg.data_scrubbed_hint()})",
    ]
    svg = out.read_bytes()
    assert svg_marks(svg) == 3
    assert "x\ufffd" in svg.decode("utf-8") and "\x1b" not in svg.decode("utf-8")


def test_control_characters_in_a_json_data_file_are_replaced_everywhere(project):
    rows = [{"k\u0007": "a\u0001", "v": 1, "odd": "\ud800\uffff"}, {"k\u0007": "b", "v": 2, "odd": None}]
    (project / "data" / "rows.json").write_text(json.dumps(rows), encoding="utf-8")
    spec = write(project, "rows.yaml", spec_text("{path: data/rows.json}", x="v", y="v"))
    compiled = compile_spec(spec)
    assert [w.message for w in compiled.warnings] == [
        msg.data_column_scrubbed("k\u0007", "k\ufffd", 1), msg.data_text_scrubbed("k\ufffd", 1),
        msg.data_text_scrubbed("odd", 2)]  # a lone surrogate and U+FFFF
    text = canonical_json(compiled.vega_lite)
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]", text)


def test_integers_past_what_the_renderer_reads_become_floats_with_a_warning(project):
    (project / "data" / "big.csv").write_text("bpb,score\n18446744073709551616,1\n2,2\n", encoding="utf-8")
    compiled = compile_spec(write(project, "big.yaml", spec_text("{path: data/big.csv}")))
    assert [w.message for w in compiled.warnings] == [msg.data_integers_rounded("bpb", 1)]
    assert svg_marks(render(compiled.vega_lite, "svg")) == 2
    # legend.columns has a schema maximum now: a key without one reaches the renderer check.
    spec = write(project, "big2.yaml", spec_text("{path: data/table.csv}", extra="vega_lite: {padding: 18446744073709551616}\n"))
    problem = at(compile_error(spec), 7, 22)
    assert problem.message == msg.number_out_of_range("18446744073709551616")


def test_a_category_holding_a_line_separator_keeps_its_legend_labels(project):
    """U+2028 is valid in JSON text but a line break to Vega's expression parser (the labels' labelExpr)."""
    spec = write(project, "sep.yaml", """\
        data:
          values: [{bpb: 1, score: 2, model: "a\\u2028b"}, {bpb: 2, score: 3, model: c}]
        encoding: {x: bpb, y: score}
        mark: point
        markers:
          field: model
          styles:
            "a\\u2028b": {shape: star, label: First}
            c: {shape: circle, label: Second}
        """)
    texts = [t.text for t in ET.fromstring(render(compile_spec(spec).vega_lite, "svg")).iter("{http://www.w3.org/2000/svg}text")]
    assert "First" in texts and "Second" in texts


def test_nested_values_in_data_are_refused(project):
    (project / "data" / "nested.json").write_text(json.dumps([{"bpb": 1, "score": [1, 2]}]), encoding="utf-8")
    problem = at(compile_error(write(project, "n.yaml", spec_text("{path: data/nested.json}"))), 2, 14)
    assert problem.message == msg.data_unreadable("data/nested.json", msg.data_nested("score", 0))
    spec = write(project, "n2.yaml", spec_text("{values: [{bpb: 1, score: 2}, {bpb: 2, score: {a: 1}}]}"))
    problem = at(compile_error(spec), 2, 53)
    assert problem.path == ("data", "values", 1, "score") and problem.message == msg.data_nested("score", 1)


MARKUP = ("</script><script>alert(1)</script>", '" onmouseover="alert(1)', "<!--", "&amp;\u2028")


@pytest.fixture
def markup_spec(project):
    """Markup in the title, an axis title, a legend title and in the data (text marks)."""
    rows = "\n".join(f'{i},{i * 2},"{m.replace(chr(34), chr(34) * 2)}"' for i, m in enumerate(MARKUP))
    (project / "data" / "markup.csv").write_text("x,y,label\n" + rows + "\n", encoding="utf-8")
    return write(project, "markup.yaml", f"""\
        title: {json.dumps(MARKUP[0])}
        subtitle: {json.dumps(MARKUP[1])}
        data: {{path: data/markup.csv}}
        mark: text
        encoding:
          x: {{field: x, title: {json.dumps(MARKUP[1])}}}
          y: {{field: y, title: {json.dumps(MARKUP[2])}}}
          text: label
          color: {{field: label, legend: {{title: {json.dumps(MARKUP[0])}}}}}
          tooltip: [label]
        """)


def test_markup_is_inert_in_html(markup_spec):
    page = render(compile_spec(markup_spec).vega_lite, "html").decode("utf-8")
    head, _, body = page.partition("<body>")
    # The page's own two scripts are the only ones: no title or datum closes one or opens another.
    assert body.count("<script") == 2 and body.count("</script") == 2
    assert "<!--" not in body.split("<script>", 2)[2]  # nothing after the bundle opens a comment
    markup = re.sub(r"<script>.*?</script>", "", page, flags=re.S)  # the page outside its scripts
    assert "onmouseover" not in markup and "alert" not in markup.replace("alert(1)&lt;", "")
    assert "<title>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>" in head
    assert "\\u003c/script\\u003e" in body and "\\u2028" in body


def test_markup_is_inert_in_svg(markup_spec):
    svg = render(compile_spec(markup_spec).vega_lite, "svg")
    tree = ET.fromstring(svg)  # well-formed XML: every < and & in text was escaped
    for element in tree.iter():
        assert not element.tag.endswith("script")
        assert not [name for name in element.attrib if name.lower().startswith("on")], element.attrib
    texts = [element.text for element in tree.iter() if element.text]
    assert MARKUP[0] in texts and any(MARKUP[1] in t for t in texts)
    assert svg_marks(svg) == len(MARKUP)


# ------------------------------------------------------------------ paths

@pytest.mark.parametrize("path, message", [
    ("/etc/passwd", msg.data_path_absolute),
    ("~/data.csv", msg.data_path_absolute),
    ("file:///etc/passwd", msg.data_url),
    ("http://example.com/data.csv", msg.data_url),
    ("https://example.com/data.csv", msg.data_url),
    ("../outside.csv", None),
    ("data/../../outside.csv", None),
    ("data/missing.csv", msg.file_not_found),
    ("data", msg.data_not_a_file),
    ("data/table.txt", msg.data_unknown_format),
])
def test_data_paths_that_are_refused(project, path, message):
    (project.parent / "outside.csv").write_text(TABLE, encoding="utf-8")
    (project / "data" / "table.txt").write_text(TABLE, encoding="utf-8")
    spec = write(project, "paths.yaml", spec_text(f"{{path: {json.dumps(path)}}}"))
    problem = at(compile_error(spec), 2, 14)
    expected = message(path) if message else msg.data_path_outside(path, project.name)
    assert problem.message == expected
    assert problem.path == ("data", "path")


def test_a_symlink_out_of_the_project_is_refused(project):
    outside = project.parent / "secret.csv"
    outside.write_text(TABLE, encoding="utf-8")
    (project / "data" / "link.csv").symlink_to(outside)
    spec = write(project, "link.yaml", spec_text("{path: data/link.csv}"))
    assert at(compile_error(spec), 2, 14).message == msg.data_path_outside("data/link.csv", project.name)


def test_a_symlink_inside_the_project_is_fine(project):
    (project / "data" / "alias.csv").symlink_to(project / "data" / "table.csv")
    assert compile_spec(write(project, "alias.yaml", spec_text("{path: data/alias.csv}"))).vega_lite


def test_a_file_over_the_size_limit_is_refused_without_reading_it(project, monkeypatch):
    """JSON is parsed whole in Python: limited (CSV and TSV that large are parsed by the engine, unlimited)."""
    big = project / "data" / "big.json"
    with big.open("wb") as stream:  # sparse: the size is there, the bytes are not
        stream.truncate(resolve.MAX_FILE_BYTES + 1)
    monkeypatch.setitem(resolve.READERS, ".json", lambda paths: pytest.fail("read the oversized file"))
    spec = write(project, "big.yaml", spec_text("{path: data/big.json}"))
    problem = at(compile_error(spec), 2, 14)
    assert problem.message == msg.data_too_large("data/big.json", resolve.MAX_FILE_BYTES + 1,
                                                 resolve.MAX_FILE_BYTES)


def test_a_garbled_csv_too_large_for_the_python_reader_is_a_positioned_error(project, monkeypatch):
    """Zero bytes past `ENGINE_TEXT_BYTES`: the engine refuses them in chartc's words, at the data path."""
    big = project / "data" / "big.csv"
    with big.open("wb") as stream:  # sparse: a file of zero bytes
        stream.truncate(resolve.ENGINE_TEXT_BYTES + 1)
    monkeypatch.setitem(resolve.READERS, ".csv", lambda paths: pytest.fail("the Python reader read a large file"))
    spec = write(project, "big.yaml", spec_text("{path: data/big.csv}"))
    problem = at(compile_error(spec), 2, 14)
    assert problem.path == ("data", "path") and problem.message.startswith("cannot read data file 'data/big.csv'")
    assert "DuckDB" not in problem.message and problem.hint


@pytest.mark.parametrize("where, url", [
    ("encoding:\n    url: {field: model, type: nominal}", {"field": "model", "type": "nominal"}),
    ("mark: {type: image, url: 'http://127.0.0.1:9/x.png'}", "http://127.0.0.1:9/x.png"),
])
def test_the_escape_hatch_cannot_make_an_image_mark_fetch(project, where, url):
    """vl-convert's PNG rasteriser fetches <image> URLs whatever `allowed_base_urls` says: refuse them."""
    spec = write(project, "img.yaml", spec_text("{path: data/table.csv}", extra=f"vega_lite:\n  {where}\n"))
    problem = compile_error(spec).errors[0]
    assert problem.message == msg.image_url(url) and problem.path[-1] == "url"
    assert problem.hint == msg.image_url_hint()


@pytest.mark.parametrize("url", ["file:///etc/hostname", "https://example.com/x.csv", "data/table.csv"])
def test_the_escape_hatch_cannot_make_the_renderer_fetch(project, url):
    """A URL would load nothing (`allowed_base_urls=[]`) and give a blank chart: refuse it."""
    spec = write(project, "fetch.yaml", spec_text("{path: data/table.csv}",
                                                  extra=f"vega_lite:\n  data: {{url: {json.dumps(url)}}}\n"))
    problem = at(compile_error(spec), 8, 15)
    assert problem.message == msg.data_url(url) and problem.path == ("vega_lite", "data", "url")


def test_the_renderer_is_never_allowed_to_fetch(monkeypatch):
    from chartc.render import export

    calls = []

    class Engine:
        def __getattr__(self, name):
            def convert(spec, **options):
                calls.append((name, options))
                return "<svg/>" if name.endswith("svg") else b"\x89PNG"
            return convert

    monkeypatch.setattr(export, "engine", lambda: Engine())
    vega_lite = {"mark": "point", "data": {"values": [{"a": 1}]}}
    for fmt in ("svg", "png", "pdf"):
        try:
            render(vega_lite, fmt)
        except Exception:  # noqa: BLE001 - a fake engine; only the options matter
            pass
    assert calls and all(options.get("allowed_base_urls") == [] for _, options in calls), calls


# ------------------------------------------------------------------ data

@pytest.mark.parametrize("content", ["", "model,bpb,score\n"])
def test_empty_data_files(project, content):
    (project / "data" / "empty.csv").write_text(content, encoding="utf-8")
    problem = compile_error(write(project, "empty.yaml", spec_text("{path: data/empty.csv}"))).errors[0]
    assert problem.message == msg.empty_data() and problem.location.line == 2


def test_empty_inline_values(project):
    problem = at(compile_error(write(project, "empty.yaml", spec_text("{values: []}"))), 2)
    assert problem.message == msg.empty_data()


@pytest.mark.parametrize("content", ["[1, 2]", '{"a": 1}', "null", '"text"', "[[1, 2]]", "{", "\x00\x01",
                                     "[" * 100_000 + "]" * 100_000, "[{}]", "[]"])
def test_json_data_that_is_not_rows(project, content):
    (project / "data" / "odd.json").write_text(content, encoding="utf-8")
    spec = write(project, "odd.yaml", spec_text("{path: data/odd.json}"))
    problem = at(compile_error(spec), 2)
    assert problem.message.startswith("cannot read data file") or problem.message == msg.empty_data()


@pytest.mark.parametrize("content", [b"\xff\xfe\x00a\x00", b"a,b\n1,2,3,4\n5\n", b"\x89PNG\r\n\x1a\n\x00\x00"])
def test_csv_data_that_does_not_parse(project, content):
    """Unreadable at the data path, or read (the reader is lenient) and then short of fields."""
    (project / "data" / "odd.csv").write_bytes(content)
    spec = write(project, "odd.yaml", spec_text("{path: data/odd.csv}"))
    problem = compile_error(spec).errors[0]
    assert problem.path in (("data", "path"), ("encoding", "x")), problem.diagnostic()


def test_a_missing_field_points_at_its_use(project):
    spec = write(project, "field.yaml", spec_text("{path: data/table.csv}", y="scroe"))
    problem = at(compile_error(spec), 6, 6)
    assert problem.message == msg.field_not_found("scroe", ["model", "bpb", "score"])
    assert "did you mean 'score'?" in problem.hint


def test_nan_inf_and_missing_values_give_valid_json_and_a_drawn_chart(project):
    (project / "data" / "holes.csv").write_text(
        "model,bpb,score\nA,0.72,nan\nB,inf,33\nC,,35\nD,0.73,\nE,0.74,36\nF,-inf,1e999\n", encoding="utf-8")
    compiled = compile_spec(write(project, "holes.yaml", spec_text("{path: data/holes.csv}")))
    text = canonical_json(compiled.vega_lite)
    json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in the output"))
    rows = compiled.vega_lite["datasets"][next(iter(compiled.vega_lite["datasets"]))] \
        if "datasets" in compiled.vega_lite else compiled.vega_lite["data"]["values"]
    assert [row["score"] for row in rows] == [None, 33, 35, None, 36, None]
    assert svg_marks(render(compiled.vega_lite, "svg")) == 1  # the one row with both numbers


def test_inline_values_with_nulls_and_mixed_types(project):
    spec = write(project, "mixed.yaml", spec_text(
        "{values: [{bpb: 1, score: null}, {bpb: two, score: 3}, {bpb: 3, score: 4}]}"))
    text = canonical_json(compile_spec(spec).vega_lite)
    assert "NaN" not in text


def test_unparseable_dates_on_a_temporal_axis(project):
    (project / "data" / "dates.csv").write_text("day,v\n2024-01-01,1\n2024-02-30,2\nsoon,3\n", encoding="utf-8")
    spec = write(project, "dates.yaml", spec_text("{path: data/dates.csv}", mark="line",
                                                  x="{field: day, type: temporal}", y="v"))
    problem = at(compile_error(spec), 5, 25)
    assert problem.message == msg.not_dates("day", ["2024-02-30", "soon"])
    assert problem.path == ("encoding", "x", "type")


def test_dates_that_parse_draw_a_temporal_axis(project):
    (project / "data" / "dates.csv").write_text("day,v\n2024-01-01,1\n2024-02-29,2\n2024-03-01T10:00,3\n",
                                                encoding="utf-8")
    spec = write(project, "dates.yaml", spec_text("{path: data/dates.csv}", mark="point",
                                                  x="{field: day, type: temporal}", y="v"))
    assert svg_marks(render(compile_spec(spec).vega_lite, "svg")) == 3


def test_log_scale_over_non_positive_values(project):
    (project / "data" / "neg.csv").write_text("a,b\n-1,1\n0,2\n10,3\n", encoding="utf-8")
    spec = write(project, "log.yaml", spec_text("{path: data/neg.csv}", x="{field: a, scale: {type: log}}", y="b"))
    problem = at(compile_error(spec), 5, 31)
    assert problem.message == msg.log_scale_non_positive("a", 2)


@pytest.mark.parametrize("rows, method", [
    ("a,b\n1,2\n", "linear"),
    ("a,b\n1,2\n1,3\n1,4\n", "linear"),
    ("a,b\n1,2\n1,3\n1,4\n", "loess"),
    ("a,b\n1,2\n2,3\n", "poly"),
    ("a,b\n,2\nnan,3\n1,\n", "linear"),
])
def test_trends_that_cannot_be_fitted(project, rows, method):
    (project / "data" / "few.csv").write_text(rows, encoding="utf-8")
    order = "      order: 3\n" if method == "poly" else ""
    spec = write(project, "few.yaml", f"""\
data: {{path: data/few.csv}}
encoding: {{x: a, y: b}}
layers:
  - mark: point
  - trend:
      method: {method}
{order}""")
    problem = compile_error(spec).errors[0]
    assert problem.path[:3] == ("layers", 1, "trend"), problem.diagnostic()
    assert problem.location.line in (5, 6, 7)


@pytest.mark.slow
def test_a_failed_compile_writes_nothing_on_the_command_line(project):
    """Also checks the process stays alive and prints no traceback for a data error."""
    spec = write(project, "bad.yaml", spec_text("{path: data/missing.csv}"))
    out = project / "out.png"
    out_html = project / "out.html"
    for target in (out, out_html):
        assert_rejected(chartc("compile", spec.name, "-o", target.name, cwd=project), spec, target)


# ------------------------------------------------------------------ what the renderer cannot survive

@pytest.mark.parametrize("extra, line, path, message", [
    ("width: 100000000\n", 7, ("width",), msg.render_limit("width", 100000000, 10_000)),
    ("vega_lite: {config: {view: {continuousHeight: 1.0e+9}}}\n", 7,
     ("vega_lite", "config", "view", "continuousHeight"), msg.render_limit("continuousHeight", 1e9, 10_000)),
])
def test_sizes_that_hang_the_renderer(project, extra, line, path, message):
    spec = write(project, "size.yaml", spec_text("{path: data/table.csv}", extra=extra))
    problem = at(compile_error(spec), line)
    assert (problem.path, problem.message) == (path, message)


@pytest.mark.parametrize("x, path, message", [
    ("{field: bpb, axis: {tickCount: 100000}}", ("encoding", "x", "axis", "tickCount"),
     msg.render_limit("tickCount", 100000, 1_000)),
    ("{field: bpb, bin: {maxbins: 1000000}}", ("encoding", "x", "bin", "maxbins"),
     msg.render_limit("maxbins", 1000000, 1_000)),
    ("{field: bpb, bin: {step: 0.0000001}}", ("encoding", "x", "bin", "step"),
     msg.too_many_bins(1e-7, (0.73 - 0.72) / 1e-7, 10_000)),
])
def test_ticks_and_bins_that_hang_the_renderer(project, x, path, message):
    spec = write(project, "ticks.yaml", spec_text("{path: data/table.csv}", x=x))
    problem = at(compile_error(spec), 5)
    assert (problem.path, problem.message) == (path, message)


@pytest.mark.slow
@pytest.mark.parametrize("extra, diagnostic", [
    # Each once aborted the renderer (SIGTRAP, V8's stack on stderr) or stalled it for minutes,
    # reported at 1:1.
    ("legend: {columns: 1e9}\n", f"8:19: error[{msg.out_of_bounds.code}]: legend.columns: {msg.out_of_bounds(1e9, '<=', 1000)}"),
    ("config: {legend: {columns: 1e9}}\n", f"8:28: error[{msg.render_limit.code}]: config.legend.columns: "
     f"{msg.render_limit('columns', 1e9, 1_000_000)} ({msg.render_limit_hint()})"),
    ("vega_lite: {title: " + "T" * 10**6 + "}\n", f"8:20: error[{msg.render_text_too_long.code}]: vega_lite.title: "
     f"{msg.render_text_too_long('title', 10**6, 1_000)} ({msg.text_too_long_hint()})"),
])
def test_what_once_crashed_the_renderer_is_one_positioned_line(project, extra, diagnostic):
    spec = write(project, "crash.yaml", spec_text("{path: data/table.csv}", extra=extra, x="bpb\n  color: model"))
    out = project / "crash.svg"
    lines = assert_rejected(chartc("compile", spec.name, "-o", out.name, cwd=project), spec, out)
    assert lines == [f"{spec.name}:{diagnostic}"]


def test_a_fine_bin_step_is_fine(project):
    spec = write(project, "bins.yaml", spec_text("{path: data/table.csv}", mark="bar",
                                                 x="{field: bpb, bin: {step: 0.001}}", y="{aggregate: count}"))
    # The engine bins the rows (one row per bin that has any), and the chart draws them as binned.
    assert compile_spec(spec).vega_lite["encoding"]["x"]["bin"] == {"binned": True, "step": 0.001}


def test_what_vega_lite_refuses_is_a_spec_error_at_its_spot(project):
    """The `vega_lite` and `config` escape hatches are checked against Vega-Lite's schema."""
    spec = write(project, "hatch.yaml", spec_text("{path: data/table.csv}",
                                                  extra="config:\n  axis: {labelFontSize: big}\n"))
    problem = at(compile_error(spec), 8, 25)
    assert problem.path == ("config", "axis", "labelFontSize")
    assert problem.message.startswith(msg.vega_lite_invalid("")[:-1])
    spec = write(project, "hatch2.yaml", spec_text("{path: data/table.csv}", extra="vega_lite: {mark: 3}\n"))
    assert at(compile_error(spec), 7).path == ("vega_lite", "mark")


def test_a_value_altair_refuses_while_building_is_a_spec_error(project):
    spec = write(project, "range.yaml", spec_text("{path: data/table.csv}", x='{field: bpb, scale: {range: ""}}'))
    problem = at(compile_error(spec), 5)
    assert problem.path == ("encoding", "x", "scale", "range"), problem.diagnostic()


@pytest.mark.parametrize("theme", ["ggplot2", "dark", "fivethirtyeight"])
def test_themed_charts_are_valid_vega_lite(project, theme):
    """vl-convert's themes hold Vega-only config (`symbol`, `path`...) that Vega-Lite's schema refuses."""
    spec = write(project, "theme.yaml", spec_text("{path: data/table.csv}", extra=f"theme: {theme}\n"))
    assert compile_spec(spec).vega_lite["config"]


# ------------------------------------------------------------------ sanitize, unit by unit

def test_scrub_text_replaces_exactly_the_unsafe_characters():
    from chartc.stages.data import scrub_text

    unsafe = "".join(map(chr, [*range(0, 9), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0),
                               0xD800, 0xDFFF, 0xFDD0, 0xFDEF, 0xFFFE, 0xFFFF, 0x1FFFE, 0x10FFFF]))
    assert scrub_text(unsafe) == ("\ufffd" * len(unsafe), len(unsafe))
    safe = "tab\tnewline\ncr\r é 名 😀 \ufffd \u2028 </script>"
    assert scrub_text(safe) == (safe, 0)


def test_scrub_table_leaves_clean_data_alone_and_never_merges_columns():
    from chartc.stages.load import load_text
    from chartc.stages.parse import parse_chart
    from chartc.stages.data import scrub_table
    from chartc.infra.table import from_records

    chart, _ = parse_chart(load_text("data: {path: x.csv}\nmark: point\n", "spec.yaml"))
    clean = from_records([{"a": "x", "b": 1.0}, {"a": "y", "b": None}])
    assert scrub_table(clean, chart.data) == (clean, [])
    dirty = from_records([{"a\x01": "x", "a\ufffd": "y\x02", "n": 1}])
    scrubbed, warnings = scrub_table(dirty, chart.data)
    assert scrubbed.names == ["a\ufffd\ufffd", "a\ufffd", "n"]
    assert scrubbed["a\ufffd"] == ["y\ufffd"] and dirty.names[0] == "a\x01"  # input untouched
    assert [(w.path, w.location.line, w.location.column) for w in warnings] == [(("data", "path"), 1, 14)] * 2


def test_the_origin_map_places_vega_lite_paths_at_the_nodes_that_wrote_them(project):
    """The translator records which spec node wrote each Vega-Lite node; the rest of a path resolves inside it."""
    from chartc.pipeline import check_spec
    from chartc.stages.data import flow_data, read_rows
    from chartc.stages.translate import translate_chart

    spec = write(project, "origins.yaml", "data: {values: [{a: 1}]}\nlayers:\n  - mark: point\n    encoding:\n"
                 "      color: {field: a, sort: [1, 2]}\n  - mark: line\nvega_lite: {padding: {left: x}}\n")
    chart, _ = check_spec(spec)
    origins = translate_chart(chart, flow_data(chart, read_rows(chart.data)), {}).origins

    def spec_path_for(vl_path):
        node, child = origins.place(vl_path)
        return node.at(*child)

    assert spec_path_for(("layer", 0, "encoding", "color", "sort", 1)) == (
        "layers", 0, "encoding", "color", "sort", 1)
    assert spec_path_for(("padding", "left")) == ("vega_lite", "padding", "left")
    assert spec_path_for(("nothing", "like", "it")) == ()


@pytest.mark.parametrize("text, line, path, reason", [
    ("data: {values: [{x: 1}]}\nmark: boxplot\n", 2, ("mark",), "Need a valid continuous axis for boxplots"),
    ("data: {values: [{x: 1}]}\nlayers:\n  - mark: errorbar\n", 2, ("layers",), "No ranged axis"),
])
def test_what_vega_lite_cannot_compile_is_a_spec_error_not_a_render_crash(project, text, line, path, reason):
    problem = at(compile_error(write(project, "refused.yaml", text)), line)
    assert (problem.path, problem.message) == (path, msg.vega_lite_refused(reason))


@pytest.mark.parametrize("fmt", ["{nope}", "bogus{", "%Y"])
def test_a_number_format_d3_cannot_read(project, fmt):
    spec = write(project, "fmt.yaml", spec_text("{path: data/table.csv}", x=f"{{field: bpb, axis: {{format: '{fmt}'}}}}"))
    problem = at(compile_error(spec), 5)
    assert (problem.path, problem.message) == (("encoding", "x", "axis", "format"), msg.bad_number_format(fmt))


def test_an_expression_vega_cannot_parse_is_refused_at_its_column_before_the_data_is_read(project):
    """Once the renderer's "Unexpected end of input" at render time; now the parse stage's diagnostic."""
    from chartc.ir import expressions

    text = "data: {path: data/missing.csv}\nmark: bar\ntransform: [{calculate: 'datum.x >', as: z}]\n"
    problem = at(compile_error(write(project, "refused.yaml", text)), 3, text.splitlines()[2].index("datum") + 10)
    assert (problem.path, problem.message) == (("transform", 0, "calculate"),
                                               expressions.expression_expected("an expression",
                                                                               "the end of the expression"))


def test_a_filter_before_a_trend_compares_as_vega_does(project):
    """Vega-Lite compiles `gte: ""` to `datum["bpb"]>=""`: the text reads as 0, so every row passes.

    (The fit once refused to compare numbers with text; the renderer does compare them.)
    """
    spec = write(project, "cmp.yaml", """\
        data: {path: data/table.csv}
        encoding: {x: bpb, y: score}
        transform: [{filter: {field: bpb, gte: ""}}]
        layers:
          - mark: point
          - trend: {method: linear}
        """)
    (line,) = compile_spec(spec).fits[("layers", 1)]
    assert line.n == 3


def test_a_list_among_one_of_values_matches_no_row(project):
    """`indexof` compares with ===, so a list never matches: only MLA is left, too few points to fit."""
    spec = write(project, "cmp.yaml", """\
        data: {path: data/table.csv}
        encoding: {x: bpb, y: score}
        transform: [{filter: {field: model, oneOf: [[1, 1], MLA]}}]
        layers:
          - mark: point
          - trend: {method: linear}
        """)
    problem = at(compile_error(spec), 6)
    assert problem.path == ("layers", 1, "trend")


def test_an_empty_trend_group_field_is_a_missing_field(project):
    spec = write(project, "by.yaml", """\
        data: {path: data/table.csv}
        encoding: {x: bpb, y: score}
        layers:
          - mark: point
          - trend: {method: linear, by: ""}
        """)
    problem = at(compile_error(spec), 5)
    assert problem.path == ("layers", 1, "trend", "by") and problem.message == msg.field_not_found("", [])


@pytest.mark.parametrize("name", ["x" * 300 + ".csv", "loop.csv"])
def test_paths_the_file_system_refuses(project, name):
    (project / "data" / "loop.csv").symlink_to(project / "data" / "loop.csv")
    spec = write(project, "fs.yaml", spec_text(f"{{path: data/{name}}}"))
    problem = at(compile_error(spec), 2, 14)
    assert problem.message.startswith(msg.data_unreadable(f"data/{name}", "")[:-2])
