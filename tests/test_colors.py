"""Colours: the one vocabulary (CSS Color 4, matplotlib's names), its messages, and what reaches the SVG.

Hostile text in a colour, a font or anywhere in `config`/`vega_lite` is refused
before anything is rendered: no output file is written, so no SVG, PNG or page
ever carries it.
"""

from __future__ import annotations

import importlib.util
import re
import textwrap
from pathlib import Path

import pytest

from chartc.commands import cli
from chartc import errors as msg
from chartc.infra.colors import (BASE_COLORS, CSS_COLORS, CYCLE_COLORS, TABLEAU_COLORS, free_form_problems,
                                 resolve_color, resolve_free_form, unsafe_marker)
from chartc.errors import SpecError
from chartc.render.export import render
from chartc.pipeline import compile_spec

ROWS = "data: {values: [{k: a, x: 1, y: 2}, {k: b, x: 2, y: 3}]}\n"
FORMS_HINT = msg.color_hint(None)


def refusal(text: str) -> SpecError:
    with pytest.raises(SpecError) as caught:
        resolve_color(text)
    return caught.value


# ------------------------------------------------------------------ the vocabulary

def test_the_tables_are_css_color_4_and_matplotlib():
    mcolors = pytest.importorskip("matplotlib.colors")
    assert CSS_COLORS == {name: value.lower() for name, value in mcolors.CSS4_COLORS.items()}
    assert len(CSS_COLORS) == 148 and "rebeccapurple" in CSS_COLORS
    assert TABLEAU_COLORS == mcolors.TABLEAU_COLORS
    assert BASE_COLORS == {name: mcolors.to_hex(rgb) for name, rgb in mcolors.BASE_COLORS.items()}
    assert list(CYCLE_COLORS) == [f"C{i}" for i in range(10)]
    assert [CYCLE_COLORS[f"C{i}"] for i in range(10)] == [mcolors.to_hex(f"C{i}") for i in range(10)]


@pytest.mark.parametrize("text, drawn", [
    # CSS names and hex stay as written (the renderer draws them); rebeccapurple it draws black.
    ("steelblue", "steelblue"), ("Red", "Red"), (" gray ", "gray"), ("transparent", "transparent"),
    ("rebeccapurple", "#663399"), ("#1f77b4", "#1f77b4"), ("#F00", "#F00"), ("#f008", "#f008"),
    ("#1f77b480", "#1f77b480"),
    # matplotlib's names become hex.
    ("tab:blue", "#1f77b4"), ("tab:cyan", "#17becf"), ("Tab:Orange", "#ff7f0e"), ("C0", "#1f77b4"),
    ("C3", "#d62728"), ("C9", "#17becf"), ("b", "#0000ff"), ("g", "#008000"), ("c", "#00bfbf"), ("k", "#000000"),
    ("w", "#ffffff"),
    # Grey levels, rounded half up as CSS rounds: 0.3 * 255 = 76.5 -> 77 = 0x4d.
    (".3", "#4d4d4d"), ("0.3", "#4d4d4d"), ("0.75", "#bfbfbf"), ("0", "#000000"), ("1", "#ffffff"),
    ("1.0", "#ffffff"), ("0.", "#000000"),
    # Functional notation, comma or space separated, as hex.
    ("rgb(214, 39, 40)", "#d62728"), ("rgb(214,39,40)", "#d62728"), ("RGB(214 39 40)", "#d62728"),
    ("rgb(30%, 30%, 30%)", "#4d4d4d"), ("rgba(255, 0, 0, 0.5)", "#ff000080"), ("rgba(255,0,0,50%)", "#ff000080"),
    ("rgb(255 0 0 / 0.5)", "#ff000080"), ("rgba(255, 0, 0)", "#ff0000"), ("rgb(255, 0, 0, 1)", "#ff0000"),
    ("hsl(0, 100%, 50%)", "#ff0000"), ("hsl(120deg 100% 25%)", "#008000"), ("hsl(-120, 100%, 50%)", "#0000ff"),
    ("hsla(240, 100%, 50%, 0.25)", "#0000ff40"),
])
def test_every_form_resolves_to_what_the_renderer_draws(text, drawn):
    assert resolve_color(text) == drawn
    assert resolve_color(drawn) == drawn  # what it returns is a colour that resolves to itself


@pytest.mark.parametrize("text, suggestion", [
    ("bleu", "blue"), ("tab:bleu", "tab:blue"), ("greyy", "grey"), ("B", "b"), ("none", "transparent"),
    ("tab:", "tab:red"), ("#ff000", None), ("#gggggg", None), ("", None),
])
def test_an_unknown_colour_names_the_accepted_forms(text, suggestion):
    error = refusal(text)
    assert error.message == msg.not_a_color(text) == f"{text!r} is not a colour"
    assert error.hint == msg.color_hint(f"did you mean {suggestion!r}?" if suggestion else None)
    assert error.hint.endswith(FORMS_HINT)


@pytest.mark.parametrize("text, form", [
    ("rgb(300, 0, 0)", "rgb"), ("rgb(10%, 0, 0)", "rgb"), ("rgb(1, 2)", "rgb"), ("rgb(1, 2, 3, 4, 5)", "rgb"),
    ("rgba(1, 2, 3, 1.5)", "rgb"), ("rgb(1e2, 0, 0)", "rgb"), ("rgb(1 2 3 /)", "rgb"), ("rgb(-1, 0, 0)", "rgb"),
    ("hsl(0, 100, 50)", "hsl"), ("hsl(0.5turn, 10%, 10%)", "hsl"), ("hsl(0, 120%, 50%)", "hsl"),
    ("1.5", "grey"), ("1.01", "grey"),
])
def test_functional_and_grey_values_out_of_range_say_why(text, form):
    error = refusal(text)
    assert (error.message, error.hint) == (msg.color_arguments(text, form), msg.color_form_hint(form))


@pytest.mark.parametrize("value", [5, None, True, ["red"]])
def test_a_colour_is_text(value):
    assert refusal(value).message == msg.not_a_color(value)


# ------------------------------------------------------------------ text that must never reach an output

@pytest.mark.parametrize("text, marker", [
    ("url(http://host/x#p)", "url("), ("URL(http://host/x#p)", "url("), ("u\\72l(http://host/x)", "url("),
    ("u\\rl(x)", "url("), ("expression(alert(1))", "expression("), ("expr/**/ession(alert(1))", "expression("),
    ("javascript:alert(1)", "javascript:"), ("java\tscript:alert(1)", "javascript:"),
    ("x;@import 'http://host/x.css'", "@import"), ("x</STYLE><script>", "</style"),
])
def test_unsafe_text_is_found_through_case_escapes_and_comments(text, marker):
    assert unsafe_marker(text) == marker
    error = refusal(text)  # a colour that carries one says so, rather than "not a colour"
    assert (error.message, error.hint) == (msg.unsafe_text(text, marker), msg.unsafe_text_hint())


@pytest.mark.parametrize("text", ["Helvetica Neue, Arial, sans-serif", "curly brackets {}", "a < b", "url"])
def test_plain_text_is_not_unsafe(text):
    assert unsafe_marker(text) is None


def problems_in(value, path=("config",)):
    return [(p.path, p.message, p.hint) for p in free_form_problems(value, path)]


def test_free_form_colour_keys_are_colours_at_any_depth():
    config = {"background": "C1", "view": {"fill": "bleu", "stroke": None},
              "axis": {"gridColor": "tab:red", "labelColor": "url(http://host/x#p)"},
              "mark": {"fill": {"gradient": "linear", "stops": [{"offset": 0, "color": "tab:blue"},
                                                                 {"offset": 1, "color": "#zz"}]}}}
    assert problems_in(config) == [
        (("config", "view", "fill"), msg.not_a_color("bleu"), msg.color_hint("did you mean 'blue'?")),
        (("config", "axis", "labelColor"), msg.unsafe_text("url(http://host/x#p)", "url("), msg.unsafe_text_hint()),
        (("config", "mark", "fill", "stops", 1, "color"), msg.not_a_color("#zz"), FORMS_HINT),
    ]


def test_free_form_channels_ranges_and_computed_colours():
    vega_lite = {
        "encoding": {"color": {"field": "k", "legend": {"title": "bleu"}, "scale": {"range": ["C0", "bleu"]},
                               "condition": {"test": "datum.x > 1", "value": "tab:bleu"}}},
        "config": {"range": {"category": ["C0", "url(x)"], "symbol": ["circle"]},
                   "view": {"fill": {"expr": "'ur' + 'l(http://host/x)'"}}},
        "data": {"values": [{"color": "bleu", "fill": "not a colour either"}]},  # rows: data, not styles
    }
    assert problems_in(vega_lite, ("vega_lite",)) == [
        (("vega_lite", "encoding", "color", "scale", "range", 1), msg.not_a_color("bleu"),
         msg.color_hint("did you mean 'blue'?")),
        (("vega_lite", "encoding", "color", "condition", "value"), msg.not_a_color("tab:bleu"),
         msg.color_hint("did you mean 'tab:blue'?")),
        (("vega_lite", "config", "range", "category", 1), msg.unsafe_text("url(x)", "url("), msg.unsafe_text_hint()),
        (("vega_lite", "config", "view", "fill", "expr"), msg.computed_style("fill"), msg.computed_style_hint()),
    ]


@pytest.mark.parametrize("scale", [None, {"type": "identity"}, {"range": {"field": "c"}}])
def test_free_form_colour_channels_may_not_draw_data_values_as_colours(scale):
    vega_lite = {"encoding": {"fill": {"field": "c", "type": "nominal", "scale": scale}},
                 "layer": [{"encoding": {"color": {"field": "c", "scale": {"range": ["C0", "C1"]}}}}]}
    assert problems_in(vega_lite, ("vega_lite",)) == [
        (("vega_lite", "encoding", "fill", "scale"), msg.unscaled_colors("fill"), msg.unscaled_colors_hint())]


def test_free_form_fonts_are_plain_family_lists():
    config = {"font": "Helvetica Neue, Arial, sans-serif", "title": {"font": 'Helvetica" onload="x'},
              "axis": {"labelFont": "a<b", "labelFontSize": 12, "labelFontWeight": 600},
              "text": {"fontStyle": 'italic"', "fontWeight": {"expr": "'bold'"}}, "legend": {"titleFont": "Noto Sans 日本"}}
    assert problems_in(config) == [
        (("config", "title", "font"), msg.unsafe_font('Helvetica" onload="x', ['"', "="]), msg.unsafe_font_hint()),
        (("config", "axis", "labelFont"), msg.unsafe_font("a<b", ["<"]), msg.unsafe_font_hint()),
        (("config", "text", "fontStyle"), msg.unsafe_font('italic"', ['"']), msg.unsafe_font_hint()),
        (("config", "text", "fontWeight", "expr"), msg.computed_style("fontWeight"), msg.computed_style_hint()),
    ]


def test_any_string_in_free_form_is_scanned():
    vega_lite = {"title": {"text": "javascript:alert(1)"}, "usermeta": {"note": "plain </script> text"},
                 "data": {"values": [{"label": "url(http://host/x)"}]}, "mark": {"href": "JavaScript:x"}}
    assert [p[0] for p in problems_in(vega_lite, ("vega_lite",))] == [
        ("vega_lite", "title", "text"), ("vega_lite", "data", "values", 0, "label"), ("vega_lite", "mark", "href")]


def test_free_form_colours_are_emitted_as_drawn_and_the_input_is_kept():
    config = {"background": "C1", "axis": {"gridColor": "tab:red", "labelFontSize": 12},
              "range": {"category": ["C0", ".3", "steelblue"]}, "mark": {"color": None}}
    before = repr(config)
    assert resolve_free_form(config) == {"background": "#ff7f0e", "axis": {"gridColor": "#d62728", "labelFontSize": 12},
                                         "range": {"category": ["#1f77b4", "#4d4d4d", "steelblue"]},
                                         "mark": {"color": None}}
    assert repr(config) == before


def load_enricher():
    script = Path(__file__).resolve().parent.parent / "scripts" / "enrich_schema.py"
    spec = importlib.util.spec_from_file_location("enrich_schema", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_schema_examples_are_checked_as_colours():
    """The schema enricher validates examples with chartc's `color` format: a bad example is a problem."""
    enricher = load_enricher()
    schema = {"type": "object", "properties": {"c": {"$ref": "#/$defs/color", "description": "x",
                                                     "examples": ["tab:blue", "bleu"]}},
              "$defs": {"color": {"type": "string", "format": "color"}}}
    _, problems = enricher.enrich(schema)
    assert problems == ["c: example \"bleu\" is invalid: 'bleu' is not a 'color'"]  # jsonschema's words


# ------------------------------------------------------------------ end to end: the compiled chart and its SVG

def compile_text(tmp_path, body: str):
    path = tmp_path / "chart.yaml"
    path.write_text(ROWS + textwrap.dedent(body), encoding="utf-8")
    return compile_spec(path)


def fills(svg: str) -> set[str]:
    return set(re.findall(r'<path[^>]* fill="([^"]*)"', svg))


@pytest.mark.parametrize("color, drawn", [("tab:blue", "#1f77b4"), ("C0", "#1f77b4"), (".3", "#4d4d4d"),
                                          ("rgba(255,0,0,50%)", "#ff000080"), ("rebeccapurple", "#663399")])
def test_matplotlib_colours_are_drawn_not_black(tmp_path, color, drawn):
    compiled = compile_text(tmp_path, f"mark: {{type: bar, color: '{color}'}}\nencoding: {{x: k, y: y}}\n")
    assert compiled.vega_lite["mark"]["color"] == drawn
    assert drawn in fills(render(compiled.vega_lite, "svg").decode())


HOSTILE = {
    "mark color": ("mark: {type: bar, color: 'url(http://host/x#p)'}\nencoding: {x: k, y: y}\n",
                   ("mark", "color"), msg.unsafe_text("url(http://host/x#p)", "url(")),
    "channel value": ("mark: bar\nencoding: {x: k, y: y, color: {value: 'url(http://host/x#p)'}}\n",
                      ("encoding", "color", "value"), msg.unsafe_text("url(http://host/x#p)", "url(")),
    "marker stroke": ("mark: point\nencoding: {x: x, y: y}\nmarkers: {field: k, default: {stroke: 'url(http://h/x)'},"
                      " styles: {a: {color: red}}}\n", ("markers", "default", "stroke"),
                      msg.unsafe_text("url(http://h/x)", "url(")),
    "trend colour": ("encoding: {x: x, y: y}\nlayers: [{mark: point}, {trend: {style: {color: 'url(http://h/x)'}}}]\n",
                     ("layers", 1, "trend", "style", "color"), msg.unsafe_text("url(http://h/x)", "url(")),
    "config background": ("mark: bar\nencoding: {x: k, y: y}\nconfig: {background: 'url(http://host/x#p)'}\n",
                          ("config", "background"), msg.unsafe_text("url(http://host/x#p)", "url(")),
    "config view fill": ("mark: bar\nencoding: {x: k, y: y}\nconfig: {view: {fill: 'url(http://host/x#p)'}}\n",
                         ("config", "view", "fill"), msg.unsafe_text("url(http://host/x#p)", "url(")),
    "vega_lite fill": ("mark: bar\nencoding: {x: k, y: y}\nvega_lite: {mark: {type: bar, fill: 'url(http://h/x)'}}\n",
                       ("vega_lite", "mark", "fill"), msg.unsafe_text("url(http://h/x)", "url(")),
    "font quote": ("mark: bar\nencoding: {x: k, y: y}\nconfig: {font: 'Arial\" onload=\"x'}\n",
                   ("config", "font"), msg.unsafe_font('Arial" onload="x', ['"', "="])),
    "font style sheet": ("mark: bar\nencoding: {x: k, y: y}\nconfig: {font: 'x;}</style><style>@import url(h)'}\n",
                         ("config", "font"), msg.unsafe_text("x;}</style><style>@import url(h)", "url(")),
    "label font expression": ("mark: bar\nencoding: {x: k, y: y}\nconfig: {axis: {labelFont: 'expression(x)'}}\n",
                              ("config", "axis", "labelFont"), msg.unsafe_text("expression(x)", "expression(")),
}


@pytest.mark.parametrize("name", list(HOSTILE))
@pytest.mark.parametrize("suffix", [".svg", ".html"])
def test_hostile_text_is_refused_before_anything_is_rendered(tmp_path, monkeypatch, capsys, name, suffix):
    body, path, message = HOSTILE[name]
    spec = tmp_path / "chart.yaml"
    spec.write_text(ROWS + body, encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        compile_spec(spec)
    assert [(e.path, e.message) for e in caught.value.errors] == [(path, message)]
    assert caught.value.location is not None and caught.value.location.line > 1
    monkeypatch.chdir(tmp_path)
    assert cli.main(["compile", "chart.yaml", "-o", "chart" + suffix]) == cli.EXIT_INVALID
    assert list(tmp_path.iterdir()) == [spec]  # no output, so no url( in any output
    assert f"chart.yaml:{caught.value.location.line}:" in capsys.readouterr().err


def test_data_values_drawn_as_colours_are_refused(tmp_path, monkeypatch):
    """`scale: null` drew a data file's `url(...)` as a fill, past every check of the spec's own text."""
    (tmp_path / "d.csv").write_text("a,b,c\n1,2,url(http://host/x#p)\n2,3,red\n", encoding="utf-8")
    (tmp_path / "chart.yaml").write_text(
        "data: {path: d.csv}\nmark: {type: point, filled: true}\nencoding: {x: a, y: b}\n"
        "vega_lite: {encoding: {color: {field: c, type: nominal, scale: null}}}\n", encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        compile_spec(tmp_path / "chart.yaml")
    assert (caught.value.path, caught.value.message) == (("vega_lite", "encoding", "color", "scale"),
                                                         msg.unscaled_colors("color"))
    monkeypatch.chdir(tmp_path)
    assert cli.main(["compile", "chart.yaml", "-o", "chart.svg"]) == cli.EXIT_INVALID
    assert not (tmp_path / "chart.svg").exists()
