"""Every text chartc formats or passes to the renderer is bounded, and every refusal has a position.

- Trend labels and `annotate.text` are Python format templates: a width or a
  precision is a count of characters to write (``{r2:>100000000}``, 16 bytes,
  would write 100 MB per label), so each is bounded before formatting, and so
  is the filled-in text (`trend.LABEL_MAX_*`).
- d3-format strings (channel, axis and legend `format`, `config.numberFormat`)
  pad to their width inside the renderer (`sanitize.D3_MAX_*`).
- Titles, labels, legend columns and the number of layers have schema bounds
  (what the renderer survives, measured), with the same numbers enforced on
  the compiled chart for what `config` and `vega_lite` pass through.
- A chart the renderer still refuses is placed at the spec node the reason
  names, with its first line only.

Each case compiles through the command line, prints its one exact diagnostic
and writes no output.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chartc.commands import cli
from chartc import errors as msg
from chartc.errors import SpecError
from chartc.stages.load import load_text
from chartc.stages.parse import parse_chart
from chartc.stages.verify import D3_MAX_PRECISION, D3_MAX_WIDTH, RENDER_LIMITS, TEXT_LIMITS, render_refusal
from chartc.trends.fitting import (
    LABEL_MAX_LENGTH,
    LABEL_MAX_PRECISION,
    LABEL_MAX_WIDTH,
    _label_values,
    fit_trend,
    format_trend_label,
)
from chartc.stages.validate import load_schema
from conftest import label

# The schema's own bounds (documented in each property's description and in docs/reference.md).
MAX_LAYERS = 100            # 10³ layers take 11 s to render, 10⁴ overflow the renderer's stack
MAX_LEGEND_COLUMNS = 1_000  # 10⁸ legend columns take 1.5 GB, 10⁹ abort the renderer
MAX_FORMAT_LENGTH = 100     # a d3 format is a few characters; widths and precisions are bounded on their own

ROWS = "[{x: 1, y: 2, c: a}, {x: 2, y: 3.5, c: b}, {x: 3, y: 3.9, c: a}, {x: 4, y: 6, c: b}]"
LABEL_HINT = msg.trend_label_spec_too_large_hint(LABEL_MAX_WIDTH, LABEL_MAX_PRECISION)
D3_HINT = msg.number_format_too_large_hint(D3_MAX_WIDTH, D3_MAX_PRECISION)


@pytest.fixture
def compile_cli(tmp_path, capsys):
    """Write a spec, compile it to .vl.json in-process: (exit code, stderr, spec path), and no output written."""
    def call(text: str, name: str = "spec.yaml"):
        spec = tmp_path / name
        spec.write_text(text, encoding="utf-8")
        out = tmp_path / "out.vl.json"
        code = cli.main(["compile", str(spec), "-o", str(out)])
        captured = capsys.readouterr()
        assert captured.out == "" and not out.exists()
        assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no output, not even half of one
        return code, captured.err, spec
    return call


def diagnostic(spec, line: int, column: int, path: str, message: str, hint: str | None = None) -> str:
    return f"{spec}:{line}:{column}: {label(message)}: {path}: {message}" + (f" ({hint})" if hint else "") + "\n"


def trend_spec(trend: str) -> str:
    """A chart whose second layer is a linear trend with `trend` keys (its first key is on line 7)."""
    return (f"data: {{values: {ROWS}}}\n"
            "encoding: {x: {field: x, type: quantitative}, y: {field: y, type: quantitative}}\n"
            "layers:\n"
            "  - mark: point\n"
            "  - trend:\n"
            "      method: linear\n"
            f"      {trend}\n")


# ------------------------------------------------------------------ trend labels, end to end

@pytest.mark.parametrize("trend, column, path, message, hint", [
    ('label: "{r2:>100000000}"', 14, "layers[1].trend.label",
     msg.trend_label_spec_too_large("{r2:>100000000}", "width", "100000000", LABEL_MAX_WIDTH), LABEL_HINT),
    ('label: "R²={r2:.1000000f}"', 14, "layers[1].trend.label",
     msg.trend_label_spec_too_large("{r2:.1000000f}", "precision", "1000000", LABEL_MAX_PRECISION), LABEL_HINT),
    ('label: "{r2:0>51}"', 14, "layers[1].trend.label",
     msg.trend_label_spec_too_large("{r2:0>51}", "width", "51", LABEL_MAX_WIDTH), LABEL_HINT),
    ('label: "' + "{r2:>50}" * 11 + '"', 14, "layers[1].trend.label",
     msg.trend_label_too_long(550, LABEL_MAX_LENGTH), msg.trend_label_too_long_hint()),
    ('annotate: {position: top-right, text: "{r2:>1000000}"}', 45, "layers[1].trend.annotate.text",
     msg.trend_label_spec_too_large("{r2:>1000000}", "width", "1000000", LABEL_MAX_WIDTH), LABEL_HINT),
    ('annotate: {position: top-left, text: "{equation:.{n}0}"}', 44, "layers[1].trend.annotate.text",
     msg.trend_label_spec_too_large("{equation:.{n}0}", "precision", "40", LABEL_MAX_PRECISION), LABEL_HINT),
])
def test_a_label_asking_for_too_much_is_refused_at_the_label(compile_cli, trend, column, path, message, hint):
    code, err, spec = compile_cli(trend_spec(trend))
    assert (code, err) == (cli.EXIT_INVALID, diagnostic(spec, 7, column, path, message, hint))


@pytest.mark.slow
def test_a_label_within_bounds_compiles(tmp_path, capsys):
    spec = tmp_path / "ok.yaml"
    spec.write_text(trend_spec('label: "{method:*^{n}}|{r2:>50.20f}"'), encoding="utf-8")
    assert cli.main(["compile", str(spec), "-o", str(tmp_path / "ok.vl.json")]) == cli.EXIT_OK
    capsys.readouterr()
    datasets = json.loads((tmp_path / "ok.vl.json").read_text(encoding="utf-8"))["datasets"]
    labels = {row["legend"] for rows in datasets.values() for row in rows if "legend" in row}
    assert [len(label) for label in labels] == [len("linear|") + 50]  # "linear" is wider than n = 4


# ------------------------------------------------------------------ trend labels, fuzzed format specs

@pytest.fixture(scope="module")
def line():
    return fit_trend(np.array([1.0, 2.0, 3.0, 4.0, 5.0]), np.array([2.0, 3.5, 3.9, 6.0, 6.1]), "linear", group="g")


# Placeholder -> the kind of value it holds (the types a spec of that kind takes).
FIELDS = {"r2": "number", "adj_r2": "number", "rse": "number", "slope": "number", "intercept": "number",
          "coef[0]": "number", "coef[1]": "number", "n": "integer", "equation": "text", "method": "text",
          "group": "text"}
TYPES = {"number": ["", "f", "e", "g", "%", "E", "G", "n"], "integer": ["", "d", "x", "n", "f", "e"],
         "text": ["", "s"]}


@st.composite
def sizes(draw, limit: int) -> int | None:
    """A width or precision: mostly none or within `limit`, one in eight past it, up to 10⁵ (so that
    `str.format`, the reference, stays cheap)."""
    if draw(st.integers(0, 7)) == 0:
        return draw(st.integers(limit + 1, 100_000))
    return draw(st.one_of(st.none(), st.integers(0, limit)))


@st.composite
def format_specs(draw, kind: str) -> tuple[str, int | None, int | None]:
    """A spec of Python's mini-language, [[fill]align][sign][z][#][0][width][grouping][.precision][type],
    with its width and precision. Most specs suit the value's kind; some do not (`str.format` refuses those)."""
    align = draw(st.sampled_from(["", "<", ">", "=", "^"] if kind != "text" else ["", "<", ">", "^"]))
    fill = draw(st.sampled_from(["", "x", "0", "*", "é", " ", "", "x", "0", "{"])) if align else ""
    width, precision = draw(sizes(LABEL_MAX_WIDTH)), draw(sizes(LABEL_MAX_PRECISION))
    numeric = kind != "text" or draw(st.integers(0, 9)) == 0
    spec = "".join([
        fill, align,
        draw(st.sampled_from(["", "+", "-", " "])) if numeric else "",
        draw(st.sampled_from(["", "z"])) if numeric else "",
        draw(st.sampled_from(["", "#"])) if numeric else "",
        draw(st.sampled_from(["", "0"])),
        "" if width is None else str(width),
        draw(st.sampled_from(["", ",", "_"])) if numeric else "",
        "" if precision is None or kind == "integer" else f".{precision}",
        draw(st.sampled_from(TYPES[kind] if draw(st.integers(0, 9)) else ["q", "d", "s", "x"])),
    ])
    return spec, width, precision if kind != "integer" else None


@st.composite
def templates(draw) -> tuple[str, bool]:
    """A label template of one to three placeholders, and whether any asks past the width or precision limit."""
    parts, over = [], False
    for _ in range(draw(st.integers(1, 3))):
        field = draw(st.sampled_from(sorted(FIELDS)))
        conversion = draw(st.sampled_from(["", "", "", "!r", "!s"]))
        spec, width, precision = draw(format_specs("text" if conversion else FIELDS[field]))
        over |= (width or 0) > LABEL_MAX_WIDTH or (precision or 0) > LABEL_MAX_PRECISION
        parts.append(draw(st.sampled_from(["", "R²=", " ", "{{x}} "])) + "{" + field + conversion
                     + (":" + spec if spec or draw(st.booleans()) else "") + "}")
    return "".join(parts), over


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(drawn=templates())
@pytest.mark.slow
def test_formatted_labels_are_bounded_and_otherwise_as_str_format(line, drawn):
    template, over = drawn
    try:
        reference = template.format_map(_label_values(line))
    except (ValueError, TypeError, IndexError, KeyError, AttributeError):
        reference = None
    try:
        text = format_trend_label(template, line)
    except SpecError as error:
        assert error.path == ("label",) and error.location is None
        assert over or reference is None or len(reference) > LABEL_MAX_LENGTH, error.message
        return
    assert not over and text == reference and len(text) <= LABEL_MAX_LENGTH


@pytest.mark.parametrize("template, message", [
    ("{r2:>100000000}", msg.trend_label_spec_too_large("{r2:>100000000}", "width", "100000000", LABEL_MAX_WIDTH)),
    ("{r2:" + "9" * 5000 + "}", msg.trend_label_spec_too_large("{r2:" + "9" * 5000 + "}", "width", "9" * 5000,
                                                               LABEL_MAX_WIDTH)),
    ("{r2:>0000051}", msg.trend_label_spec_too_large("{r2:>0000051}", "width", "51", LABEL_MAX_WIDTH)),
    ("{r2:.21}", msg.trend_label_spec_too_large("{r2:.21}", "precision", "21", LABEL_MAX_PRECISION)),
    ("{n!r:>{n}1}", msg.trend_label_spec_too_large("{n!r:>{n}1}", "width", "51", LABEL_MAX_WIDTH)),
    ("{r2:{n:{n}}}", msg.trend_label_format("{r2:{n:{n}}}", "Max string recursion exceeded")),
    ("{r2:.3q}", msg.trend_label_format("{r2:.3q}", "Unknown format code 'q' for object of type 'float'")),
    ("x" * 501, msg.trend_label_too_long(501, LABEL_MAX_LENGTH)),
])
def test_label_bounds_table(line, template, message):
    with pytest.raises(SpecError) as caught:
        format_trend_label(template, line)
    assert caught.value.message == message


def test_a_nested_spec_is_bounded_once_filled_in(line):
    assert format_trend_label("{n!r:>{n}0}", line) == " " * 49 + "5"  # n = 5: a width of 50, the limit


def test_every_template_chartc_fills_goes_through_the_bounded_formatter():
    """`format_map` and `Formatter().format` appear nowhere else in chartc: new templates get the bounds too."""
    import chartc

    sources = {p.name: p.read_text(encoding="utf-8") for p in Path(chartc.__file__).parent.glob("*.py")}
    # (fit.label_uses_group only parses a template, with `string.Formatter().parse`.)
    assert [name for name, text in sources.items() if ".format_map(" in text or "Formatter().format" in text] == []


# ------------------------------------------------------------------ d3-format strings

def chart_spec(x: str = "{field: x, type: quantitative}", extra: str = "") -> str:
    """A one-layer chart; x is on line 4."""
    return (f"data: {{values: {ROWS}}}\n"
            "mark: point\n"
            "encoding:\n"
            f"  x: {x}\n"
            "  y: {field: y, type: quantitative}\n"
            f"{extra}")


@pytest.mark.parametrize("x, extra, line, column, path, message, hint", [
    ('{field: x, type: quantitative, axis: {format: "0100000000f"}}', "", 4, 52, "encoding.x.axis.format",
     msg.number_format_too_large("0100000000f", "width", "100000000", D3_MAX_WIDTH), D3_HINT),
    ('{field: x, type: quantitative, axis: {format: ".1000f"}}', "", 4, 52, "encoding.x.axis.format",
     msg.number_format_too_large(".1000f", "precision", "1000", D3_MAX_PRECISION), D3_HINT),
    ('{field: x, type: quantitative, format: ">1000000"}', "", 4, 45, "encoding.x.format",
     msg.number_format_too_large(">1000000", "width", "1000000", D3_MAX_WIDTH), D3_HINT),
    ('{aggregate: count, type: quantitative, axis: {format: "{nope}"}}', "", 4, 60, "encoding.x.axis.format",
     msg.bad_number_format("{nope}"), msg.bad_number_format_hint()),  # a count is formatted by d3 too
    ("{field: x, type: quantitative}", 'config: {numberFormat: "0100000000f"}\n', 6, 24, "config.numberFormat",
     msg.number_format_too_large("0100000000f", "width", "100000000", D3_MAX_WIDTH), D3_HINT),
    ('{field: x, type: quantitative, axis: {format: "' + "," * 101 + '"}}', "", 4, 52, "encoding.x.axis.format",
     msg.text_too_long(101, MAX_FORMAT_LENGTH), msg.text_too_long_hint()),
])
def test_a_number_format_asking_for_too_much_is_refused_at_it(compile_cli, x, extra, line, column, path, message,
                                                             hint):
    code, err, spec = compile_cli(chart_spec(x, extra))
    assert (code, err) == (cli.EXIT_INVALID, diagnostic(spec, line, column, path, message, hint))


def test_a_temporal_format_is_not_read_as_a_number_format():
    from chartc.stages.verify import _oversized_number_formats

    vega_lite = {"encoding": {"x": {"field": "d", "type": "temporal", "axis": {"format": "2020"}},
                              "y": {"field": "v", "type": "quantitative", "axis": {"format": "2020"}}}}
    assert list(_oversized_number_formats(vega_lite)) == [
        (("encoding", "y", "axis", "format"), "2020", "width", "2020", D3_MAX_WIDTH)]


# ------------------------------------------------------------------ what the renderer cannot survive

BIG_LAYERS = "".join("  - mark: point\n" for _ in range(10_000))


@pytest.mark.parametrize("text, line, column, path, message, hint", [
    (chart_spec(extra="  color: c\nlegend: {columns: 1e9}\n"), 7, 19, "legend.columns",
     msg.out_of_bounds(1e9, "<=", MAX_LEGEND_COLUMNS), None),
    (chart_spec(extra="  color: {field: c, legend: {columns: 1000000000}}\n"), 6, 39, "encoding.color.legend.columns",
     msg.out_of_bounds(1000000000, "<=", MAX_LEGEND_COLUMNS), None),
    pytest.param(f"data: {{values: {ROWS}}}\nencoding: {{x: x, y: y}}\nlayers:\n{BIG_LAYERS}", 4, 3, "layers",
                 msg.wrong_size("maxItems", MAX_LAYERS), None, marks=pytest.mark.slow),  # ~4 s: 10⁴ lines of YAML
    (chart_spec(extra="title: " + "T" * 10**6 + "\n"), 6, 8, "title",
     msg.text_too_long(10**6, TEXT_LIMITS["title"]), msg.text_too_long_hint()),
    (chart_spec(extra="subtitle: " + "T" * 1001 + "\n"), 6, 11, "subtitle",
     msg.text_too_long(1001, TEXT_LIMITS["subtitle"]), msg.text_too_long_hint()),
    (chart_spec("{field: x, type: quantitative, axis: {title: " + "T" * 1001 + "}}"), 4, 51, "encoding.x.axis.title",
     msg.text_too_long(1001, TEXT_LIMITS["title"]), msg.text_too_long_hint()),
    (trend_spec('label: "' + "x" * 501 + '"'), 7, 14, "layers[1].trend.label",
     msg.text_too_long(501, LABEL_MAX_LENGTH), msg.text_too_long_hint()),
    # What `config` and `vega_lite` pass through is held to the same numbers.
    (chart_spec(extra="vega_lite: {title: " + "T" * 5000 + "}\n"), 6, 20, "vega_lite.title",
     msg.render_text_too_long("title", 5000, TEXT_LIMITS["title"]), msg.text_too_long_hint()),
    (chart_spec(extra="title: ok\nvega_lite: {title: {subtitle: " + "S" * 5000 + "}}\n"), 7, 31,
     "vega_lite.title.subtitle", msg.render_text_too_long("subtitle", 5000, TEXT_LIMITS["subtitle"]),
     msg.text_too_long_hint()),
    (chart_spec(extra="config: {legend: {columns: 1e9}}\n"), 6, 28, "config.legend.columns",
     msg.render_limit("columns", 1e9, RENDER_LIMITS["columns"]), msg.render_limit_hint()),
])
def test_what_the_renderer_cannot_survive_is_refused_at_its_key(compile_cli, text, line, column, path, message,
                                                               hint):
    code, err, spec = compile_cli(text)
    assert (code, err) == (cli.EXIT_INVALID, diagnostic(spec, line, column, path, message, hint))


# The schema's bounds, and the named numbers they agree with (documented in each description).
SCHEMA_BOUNDS = [
    (("properties", "title"), "maxLength", TEXT_LIMITS["title"]),
    (("properties", "subtitle"), "maxLength", TEXT_LIMITS["subtitle"]),
    (("properties", "description"), "maxLength", TEXT_LIMITS["description"]),
    (("properties", "layers"), "maxItems", MAX_LAYERS),
    (("properties", "legend", "properties", "title"), "maxLength", TEXT_LIMITS["title"]),
    (("properties", "legend", "properties", "columns"), "maximum", MAX_LEGEND_COLUMNS),
    (("$defs", "channel", "properties", "title"), "maxLength", TEXT_LIMITS["title"]),
    (("$defs", "channel", "properties", "format"), "maxLength", MAX_FORMAT_LENGTH),
    (("$defs", "channel", "properties", "axis", "anyOf", 1, "properties", "title"), "maxLength", TEXT_LIMITS["title"]),
    (("$defs", "channel", "properties", "axis", "anyOf", 1, "properties", "format"), "maxLength", MAX_FORMAT_LENGTH),
    (("$defs", "channel", "properties", "legend", "anyOf", 1, "properties", "title"), "maxLength",
     TEXT_LIMITS["title"]),
    (("$defs", "channel", "properties", "legend", "anyOf", 1, "properties", "format"), "maxLength", MAX_FORMAT_LENGTH),
    (("$defs", "channel", "properties", "legend", "anyOf", 1, "properties", "columns"), "maximum", MAX_LEGEND_COLUMNS),
    (("$defs", "markers", "properties", "title"), "maxLength", TEXT_LIMITS["title"]),
    (("$defs", "marker_style", "properties", "label"), "maxLength", TEXT_LIMITS["title"]),
    (("$defs", "trend", "properties", "label"), "maxLength", LABEL_MAX_LENGTH),
    (("$defs", "trend", "properties", "annotate", "anyOf", 1, "properties", "text"), "maxLength", LABEL_MAX_LENGTH),
]


@pytest.mark.parametrize("where, keyword, bound", SCHEMA_BOUNDS, ids=lambda v: "/".join(map(str, v))
                         if isinstance(v, tuple) else str(v))
def test_schema_bounds_are_the_named_numbers_and_documented(where, keyword, bound):
    node = load_schema()
    for key in where:
        node = node[key]
    assert node[keyword] == bound
    if keyword != "maximum":  # a maximum shows in docs/reference.md's type column
        assert f"{bound:,}" in node["description"] and node["markdownDescription"] == node["description"]


def test_the_compiled_chart_limits_never_refuse_what_the_schema_allows():
    assert RENDER_LIMITS["columns"] >= MAX_LEGEND_COLUMNS
    schema_texts = [bound for where, keyword, bound in SCHEMA_BOUNDS if keyword == "maxLength" and where[-1] == "title"]
    assert set(schema_texts) == {TEXT_LIMITS["title"]}


# ------------------------------------------------------------------ refusals the renderer still makes

REFUSED = """\
data: {values: [{a: 1, b: 2}]}
transform:
  - calculate: "datum.a * 2"
    as: c
  - filter: "x"
mark: point
encoding: {x: a, y: b}
vega_lite: {encoding: {x: {axis: {labelExpr: "foo(datum.value)", labelFont: "Weird Sans"}},
                       y: {axis: {labelExpr: "datum.value +"}}}}
config: {axis: {format: "{nope}"}}
"""


def refused_chart():
    """REFUSED as the chart model (its bare `x` filter is a parse problem; the model keeps its text)."""
    chart, _ = parse_chart(load_text(REFUSED, "spec.yaml"))
    return chart


@pytest.mark.parametrize("reason, path, line, column, hint", [
    # Vega quotes the expression it could not parse, in parentheses: that one, not the first in the file.
    ("Expression parse error: (datum.value +)", ("vega_lite", "encoding", "y", "axis", "labelExpr"), 9, 35,
     msg.render_refused_hint()),
    # An unknown name: the expression that uses it.
    ("Unrecognized function: foo", ("vega_lite", "encoding", "x", "axis", "labelExpr"), 8, 35,
     msg.render_refused_hint()),
    ('Unrecognized signal name: "x"', ("transform", 1, "filter"), 5, 5, msg.render_refused_hint()),
    # Not an expression, but a value the spec has.
    ('Unknown font "Weird Sans"', ("vega_lite", "encoding", "x", "axis", "labelFont"), 8, 66,
     msg.render_refused_other_hint()),
    ("invalid format: {nope}", ("config", "axis", "format"), 10, 17, msg.render_refused_other_hint()),
    # Nothing to go by: the marks.
    ("TypeError: Cannot read properties of undefined (reading 'marktype')", ("mark",), 6, 1,
     msg.render_refused_other_hint()),
])
def test_a_render_refusal_is_placed_at_the_node_its_reason_names(reason, path, line, column, hint):
    error = render_refusal(reason, refused_chart())
    assert (error.path, error.location.line, error.location.column) == (path, line, column)
    assert (error.message, error.hint) == (msg.render_refused(reason), hint)


def test_a_render_refusal_keeps_the_first_line_and_no_stack():
    reason = ("invalid format: {nope}\n    at e (https://cdn.jsdelivr.net/npm/d3-format@3.1.0/+esm:7:337)\n"
              "    at Object.formatSpan (https://cdn.jsdelivr.net/npm/vega-format@2.1.0/+esm:7:1253)\n")
    error = render_refusal(reason, refused_chart())
    assert error.message == msg.render_refused("invalid format: {nope}")
    long = render_refusal("x" * 5000, refused_chart())
    assert long.message == msg.render_refused("x" * 197 + "...")


@pytest.mark.slow
def test_a_label_expression_the_renderer_refuses_is_a_diagnostic_at_it(tmp_path, capsys):
    spec = tmp_path / "expr.yaml"
    spec.write_text("data: {values: [{a: 1, b: 2}]}\nmark: point\nencoding: {x: a, y: b}\n"
                    'vega_lite: {encoding: {x: {axis: {labelExpr: "datum.value +"}}}}\n', encoding="utf-8")
    out = tmp_path / "expr.svg"
    code = cli.main(["compile", str(spec), "-o", str(out)])
    err = capsys.readouterr().err
    reason = "Expression parse error: (datum.value +)"
    assert (code, err) == (cli.EXIT_INVALID, diagnostic(spec, 4, 35, "vega_lite.encoding.x.axis.labelExpr",
                                                         msg.render_refused(reason), msg.render_refused_hint()))
    assert not out.exists()
