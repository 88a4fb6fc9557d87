"""Marker maps, the one merged legend, and axis label formats.

Checked on the compiled Vega-Lite (scale domains and ranges in declared
order), on Vega (how many legends Vega-Lite makes of it) and on the rendered
SVG (what a reader sees: each legend label once, dashes, hollow markers).
"""

from __future__ import annotations

import functools
import re
import textwrap
from html import unescape
from pathlib import Path

import pytest
import vl_convert as vlc

from chartc import errors as msg
from chartc.errors import SpecError, SpecWarning
from chartc.stages.translate.legend import INSIDE_LEGEND, LINE_SYMBOL_SIZE, SOLID
from chartc.stages.markers import DEFAULT_COLORS, DEFAULT_SIZE, category_key
from chartc.pipeline import compile_spec
from chartc.infra.shapes import EXTRA_SHAPE_PATHS, LINE_SHAPE_PATHS, resolve_shape

SPECS = Path(__file__).resolve().parent.parent / "specs"
MARKER_CHANNELS = ("shape", "fill", "stroke", "size", "strokeWidth")
LINE_CHANNELS = ("stroke", "strokeDash", "strokeWidth")

ROWS = """\
data:
  values:
    - {x: 1, y: 2, k: a}
    - {x: 2, y: 3, k: b}
    - {x: 3, y: 5, k: c}
    - {x: 4, y: 4, k: a}
"""


@functools.lru_cache(maxsize=None)
def example(name: str):
    """A spec of specs/, compiled once per test run (tests only read it)."""
    return compile_spec(SPECS / f"{name}.yaml")


def compile_text(tmp_path, text: str, name: str = "chart.yaml"):
    """Compile a spec written in the test; without its own `data`, over ROWS."""
    text = textwrap.dedent(text)
    path = tmp_path / name
    path.write_text(text if text.startswith("data:") else ROWS + text)
    return compile_spec(path)


def layers_of(vega_lite: dict) -> list[dict]:
    return vega_lite.get("layer", [vega_lite])


def marker_layer(vega_lite: dict) -> dict:
    return next(layer for layer in layers_of(vega_lite) if "shape" in layer.get("encoding", {}))


def scale(layer: dict, channel: str) -> dict:
    return layer["encoding"][channel]["scale"]


def legend_count(vega_lite: dict) -> int:
    return len(vlc.vegalite_to_vega(vega_lite).get("legends", []))


def legend_labels(svg: str) -> list[str]:
    """The text of every legend entry in a rendered SVG, in order."""
    return [unescape(t) for t in re.findall(
        r'class="mark-text role-legend-label"[^>]*><text[^>]*>([^<]*)</text>', svg)]


def axis_labels(svg: str) -> list[str]:
    """Every axis label of a rendered SVG; a blank label (`<text/>`) is ''."""
    return [unescape(text) for group in re.findall(r'class="mark-text role-axis-label"[^>]*>(.*?)</g>', svg)
            for text in re.findall(r"<text[^>]*?(?:/>|>([^<]*)</text>)", group)]


def drawn_points(svg: str) -> dict[str, str]:
    """Category -> the SVG element of its first point (from the ARIA label `k: a`)."""
    points = {}
    for element in re.findall(r'<path aria-label="[^"]*"[^>]*>', svg):
        key = re.search(r'k: (\w+)"', element).group(1)
        points.setdefault(key, element)
    return points


# ---------------------------------------------------------------- scales

def test_seed_scales_follow_declared_order():
    compiled = example("seed_pretraining")
    layer = marker_layer(compiled.vega_lite)
    declared = ["MLA", "MQA", "GQA", "Standard MHA", "LRKV"]
    domains = {ch: scale(layer, ch)["domain"] for ch in MARKER_CHANNELS}
    for channel, domain in domains.items():
        assert domain[:5] == declared, channel
        assert domain == domains["shape"], channel  # identical domains: Vega-Lite merges the legends
    shapes = scale(layer, "shape")["range"][:5]
    assert shapes == [resolve_shape(s) for s in ("diamond", "triangle-up", "square", "circle", "star")]
    assert scale(layer, "fill")["range"][:5] == ["#d62728", "#2ca02c", "#ff7f0e", "#1f77b4", "#9467bd"]
    assert scale(layer, "size")["range"][:5] == [110, 110, 110, 110, 220]  # `default: {size: 110}` is the base
    assert all(scale(layer, ch)["type"] == "ordinal" for ch in MARKER_CHANNELS)


def test_seed_legend_has_trend_entry_as_dashed_line():
    compiled = example("seed_pretraining")
    layer = marker_layer(compiled.vega_lite)
    domain = scale(layer, "shape")["domain"]
    assert len(domain) == 6 and domain[5].startswith("Trend (R²=")
    assert scale(layer, "shape")["range"][5] == "stroke"
    assert scale(layer, "fill")["range"][5] == "transparent"
    assert scale(layer, "stroke")["range"][5] == "gray"
    assert scale(layer, "size")["range"][5] == LINE_SYMBOL_SIZE


def test_trend_layer_encodes_same_field_and_domain():
    compiled = example("seed_pretraining")
    layers = layers_of(compiled.vega_lite)
    points = marker_layer(compiled.vega_lite)
    line = next(layer for layer in layers if layer.get("mark", {}).get("type") == "line")
    assert line["encoding"]["stroke"]["field"] == points["encoding"]["shape"]["field"] == "model"
    assert scale(line, "strokeDash")["domain"] == scale(points, "shape")["domain"]
    assert scale(line, "strokeDash")["range"][-1] == [6, 4]
    data = line["data"]
    rows = data["values"] if "values" in data else compiled.vega_lite["datasets"][data["name"]]
    assert {row["model"] for row in rows} == {scale(points, "shape")["domain"][-1]}


def test_extra_shapes_are_area_normalised_paths_in_output(tmp_path):
    compiled = compile_text(tmp_path, """\
        mark: point
        encoding: {x: x, y: y}
        markers:
          field: k
          styles:
            a: {shape: star}
            b: {shape: hexagon}
            c: {shape: "*"}
        """)
    shapes = scale(marker_layer(compiled.vega_lite), "shape")["range"]
    assert shapes == [EXTRA_SHAPE_PATHS["star"], EXTRA_SHAPE_PATHS["hexagon"], EXTRA_SHAPE_PATHS["star"]]
    svg = vlc.vegalite_to_svg(compiled.vega_lite)
    # a star is 10 corners and a hexagon 6: count the corners of each drawn path
    corners = sorted({len(re.findall(r"[ML]", d)) for d in re.findall(r'role-legend-symbol[^>]*><path[^>]*d="([^"]+)"', svg)})
    assert corners == [6, 10]


def test_seed_flops_every_extra_shape_resolves():
    compiled = example("seed_flops")
    layer = marker_layer(compiled.vega_lite)
    assert scale(layer, "shape")["range"][1] == LINE_SHAPE_PATHS["x"]
    assert scale(layer, "shape")["range"][2] == LINE_SHAPE_PATHS["plus"]
    assert scale(layer, "shape")["domain"][0] == "finch"


# ---------------------------------------------------------------- one legend

@pytest.mark.parametrize("name", ["seed_pretraining", "seed_flops", "markers_cylinders",
                                  "markers_lines", "legend_trend_groups"])
def test_exactly_one_legend(name):
    compiled = example(name)
    assert legend_count(compiled.vega_lite) == 1


def test_each_label_once_in_rendered_legend():
    compiled = example("seed_pretraining")
    svg = vlc.vegalite_to_svg(compiled.vega_lite)
    assert svg.count('class="mark-group role-legend"') == 1
    labels = legend_labels(svg)
    assert labels[:5] == ["MLA", "MQA", "GQA", "Standard MHA", "LRKV"]
    assert len(labels) == 6 and labels[5].startswith("Trend (R²=")
    assert len(set(labels)) == len(labels)


def test_trend_groups_join_in_marker_colours():
    compiled = example("legend_trend_groups")
    layer = marker_layer(compiled.vega_lite)
    domain = scale(layer, "shape")["domain"]
    assert domain[:3] == ["setosa", "versicolor", "virginica"]
    assert [d.split(" ")[0] for d in domain[3:]] == ["setosa", "versicolor", "virginica"]
    assert scale(layer, "stroke")["range"][3:] == scale(layer, "stroke")["range"][:3]
    labels = legend_labels(vlc.vegalite_to_svg(compiled.vega_lite))
    assert labels == domain


def test_trend_only_legend(tmp_path):
    compiled = example("legend_trend_only")
    labels = legend_labels(vlc.vegalite_to_svg(compiled.vega_lite))
    assert [label.split(" (")[0] for label in labels] == ["Quadratic fit", "Linear fit"]
    assert compiled.vega_lite["config"]["legend"]["orient"] == "bottom"


def test_display_label_replaces_value_in_legend(tmp_path):
    compiled = compile_text(tmp_path, """\
        mark: point
        encoding: {x: x, y: y}
        markers:
          field: k
          styles:
            a: {label: "Alpha (a)"}
            b: {label: 'say "b"'}
            c: {}
        """)
    labels = legend_labels(vlc.vegalite_to_svg(compiled.vega_lite))
    assert labels == ["Alpha (a)", 'say "b"', "c"]


# ---------------------------------------------------------------- styles

def test_hollow_and_filled(tmp_path):
    compiled = compile_text(tmp_path, """\
        mark: point
        encoding: {x: x, y: y}
        markers:
          field: k
          styles:
            a: {color: "#ff0000", filled: false}
            b: {color: "#00ff00"}
            c: {color: "#0000ff", filled: false, stroke: black, strokeWidth: 3}
        """)
    layer = marker_layer(compiled.vega_lite)
    assert scale(layer, "fill")["range"] == ["transparent", "#00ff00", "transparent"]
    assert scale(layer, "stroke")["range"] == ["#ff0000", "#00ff00", "black"]
    assert scale(layer, "strokeWidth")["range"] == [1.5, 1.0, 3]
    svg = vlc.vegalite_to_svg(compiled.vega_lite)
    points = drawn_points(svg)
    assert 'fill="#00ff00"' in points["b"]
    assert "fill=" not in points["a"] and "fill=" not in points["c"]  # the root group's fill="none"
    assert 'stroke="#ff0000"' in points["a"] and 'stroke="black"' in points["c"]
    assert 'stroke-width="3"' in points["c"]


def test_matplotlib_colour_names_are_drawn_in_their_colours(tmp_path):
    """`tab:green`, `C3` and `.3` used to reach the SVG as written, which draws black."""
    compiled = compile_text(tmp_path, """\
        mark: point
        encoding: {x: x, y: y}
        markers:
          field: k
          styles:
            a: {color: "tab:green"}
            b: {color: C3, stroke: ".3", strokeWidth: 2}
            c: {color: r, filled: false}
        """)
    layer = marker_layer(compiled.vega_lite)
    assert scale(layer, "fill")["range"] == ["#2ca02c", "#d62728", "transparent"]
    assert scale(layer, "stroke")["range"] == ["#2ca02c", "#4d4d4d", "#ff0000"]
    points = drawn_points(vlc.vegalite_to_svg(compiled.vega_lite))
    assert 'fill="#2ca02c"' in points["a"] and 'stroke="#2ca02c"' in points["a"]
    assert 'fill="#d62728"' in points["b"] and 'stroke="#4d4d4d"' in points["b"]
    assert 'stroke="#ff0000"' in points["c"]


def test_a_trend_by_group_takes_the_resolved_marker_colours(tmp_path):
    compiled = compile_text(tmp_path, """\
        data:
          values:
            - {x: 1, y: 2, k: a}
            - {x: 2, y: 3, k: a}
            - {x: 3, y: 5, k: a}
            - {x: 1, y: 4, k: b}
            - {x: 2, y: 2, k: b}
            - {x: 3, y: 1, k: b}
        encoding: {x: x, y: y}
        layers:
          - mark: point
            markers: {field: k, styles: {a: {color: C1}, b: {color: "tab:purple"}}}
          - trend: {method: linear, by: k}
          - trend: {method: linear, style: {color: ".3"}}
        """)
    by_group, overall = compiled.vega_lite["layer"][1:]
    rows = compiled.vega_lite["datasets"][by_group["data"]["name"]]
    assert sorted({row["trend_color"] for row in rows}) == ["#9467bd", "#ff7f0e"]  # drawn as is: scale null
    assert overall["mark"]["color"] == "#4d4d4d"
    svg = vlc.vegalite_to_svg(compiled.vega_lite)
    assert {'stroke="#ff7f0e"', 'stroke="#9467bd"', 'stroke="#4d4d4d"'} <= set(re.findall(r'stroke="#[0-9a-f]+"', svg))


def test_default_colours_and_sizes(tmp_path):
    compiled = compile_text(tmp_path, """\
        mark: point
        encoding: {x: x, y: y}
        markers:
          field: k
          styles: {a: {}, b: {}, c: {}}
        """)
    layer = marker_layer(compiled.vega_lite)
    assert scale(layer, "fill")["range"] == list(DEFAULT_COLORS[:3])
    assert scale(layer, "size")["range"] == [DEFAULT_SIZE] * 3
    assert scale(layer, "shape")["range"] == ["circle"] * 3
    assert "opacity" not in layer["encoding"]  # all opaque: no opacity scale
    assert layer["mark"]["opacity"] == 1


def test_opacity_per_category(tmp_path):
    compiled = compile_text(tmp_path, """\
        mark: point
        encoding: {x: x, y: y}
        markers:
          field: k
          styles: {a: {opacity: 0.3}, b: {}, c: {}}
        """)
    assert scale(marker_layer(compiled.vega_lite), "opacity")["range"] == [0.3, 1, 1]


def test_explicit_channel_wins_over_marker_map(tmp_path):
    compiled = compile_text(tmp_path, """\
        mark: point
        encoding: {x: x, y: y, size: {field: y}}
        markers:
          field: k
          styles: {a: {size: 300}, b: {}, c: {}}
        """)
    layer = marker_layer(compiled.vega_lite)
    assert layer["encoding"]["size"]["field"] == "y"


def test_line_series_styles():
    compiled = example("markers_lines")
    layer = layers_of(compiled.vega_lite)[0]
    encoding = layer["encoding"]
    assert set(LINE_CHANNELS) <= set(encoding) and "shape" not in encoding and "size" not in encoding
    domain = ["GOOG", "AAPL", "AMZN", "MSFT", "IBM"]
    assert all(encoding[ch]["scale"]["domain"] == domain for ch in LINE_CHANNELS)
    assert encoding["strokeDash"]["scale"]["range"] == [list(SOLID), [6, 3], [2, 2], list(SOLID), [8, 3, 2, 3]]
    assert encoding["strokeWidth"]["scale"]["range"] == [3, 2, 2, 1.5, 2]
    svg = vlc.vegalite_to_svg(compiled.vega_lite)
    assert 'stroke-dasharray="6,3"' in svg and 'stroke-dasharray="8,3,2,3"' in svg
    assert legend_labels(svg) == ["Alphabet", "AAPL", "AMZN", "MSFT", "IBM"]
    assert encoding["stroke"]["legend"]["symbolSize"] == LINE_SYMBOL_SIZE


def test_numeric_categories_and_default_style():
    compiled = example("markers_cylinders")
    assert compiled.warnings == ()
    layer = marker_layer(compiled.vega_lite)
    assert scale(layer, "shape")["domain"] == [4, 5, 6, 8, 3]  # data-typed; the undeclared one after
    assert scale(layer, "fill")["range"] == ["#2ca02c", "transparent", "transparent", "#d62728", "transparent"]
    assert scale(layer, "size")["range"] == [60, 36, 36, 36, 36]  # `default` is the base of 5, 6 and 8
    assert scale(layer, "shape")["range"][4:] == ["circle"]
    labels = legend_labels(vlc.vegalite_to_svg(compiled.vega_lite))
    assert labels == ["4 (most common)", "5", "6", "8", "3"]


@pytest.mark.parametrize("value, key", [(4, "4"), (4.0, "4"), (4.5, "4.5"), ("MLA", "MLA"), (True, "true")])
def test_category_key(value, key):
    assert category_key(value) == key


# ---------------------------------------------------------------- checks

def test_unstyled_category_is_an_error(tmp_path):
    with pytest.raises(SpecError) as caught:
        compile_text(tmp_path, """\
            mark: point
            encoding: {x: x, y: y}
            markers:
              field: k
              styles:
                a: {shape: star}
            """)
    error = caught.value.errors[0]
    assert error.message == msg.marker_unstyled("k", ["b", "c"])
    assert error.hint == msg.marker_unstyled_hint(["b", "c"])
    assert error.path == ("markers", "styles") and error.stage == "check"
    assert (error.location.line, error.location.column) == (11, 3)  # the `styles:` key


def test_unstyled_category_message_names_value():
    assert msg.marker_unstyled("model", ["LRKV"]) == \
        "'model' has the value 'LRKV' in the data but no style for it"


def test_absent_category_is_a_warning(tmp_path):
    compiled = compile_text(tmp_path, """\
        mark: point
        encoding: {x: x, y: y}
        markers:
          field: k
          styles: {a: {}, b: {}, c: {}, zeta: {}}
        """)
    # (the default colours of four circles also merge for some readers: W770, W771)
    [warning] = [w for w in compiled.warnings if w.code not in ("W770", "W771")]
    assert isinstance(warning, SpecWarning)
    assert warning.message == msg.marker_absent("k", "zeta")
    assert warning.path == ("markers", "styles", "zeta")
    # the absent category still has its place in the legend order
    assert scale(marker_layer(compiled.vega_lite), "shape")["domain"] == ["a", "b", "c", "zeta"]


def test_unknown_shape_is_a_check_error_at_its_key(tmp_path):
    with pytest.raises(SpecError) as caught:
        compile_text(tmp_path, """\
            layers:
              - mark: point
                encoding: {x: x, y: y}
                markers:
                  field: k
                  default: {shape: hexagonn}
                  styles: {a: {shape: starr}}
            """)
    paths = [e.path for e in caught.value.errors]
    assert ("layers", 0, "markers", "styles", "a", "shape") in paths
    assert ("layers", 0, "markers", "default", "shape") in paths
    assert all(e.stage == "check" for e in caught.value.errors)


def test_log_scale_over_non_positive_values_is_an_error(tmp_path):
    with pytest.raises(SpecError) as caught:
        compile_text(tmp_path, """\
            data:
              values: [{x: 0, y: 1}, {x: -2, y: 2}, {x: 10, y: 3}]
            mark: point
            encoding:
              x: {field: x, scale: {type: log}}
              y: y
            """)
    error = caught.value.errors[0]
    assert error.message == msg.log_scale_non_positive("x", 2)
    assert error.path == ("encoding", "x", "scale", "type") and error.stage == "check"


# ---------------------------------------------------------------- legend position

@pytest.mark.parametrize("position", ["top-left", "top-right", "bottom-left", "bottom-right"])
def test_inside_positions_get_a_background(tmp_path, position):
    compiled = compile_text(tmp_path, f"""\
        mark: point
        encoding: {{x: x, y: y}}
        markers: {{field: k, styles: {{a: {{}}, b: {{}}, c: {{}}}}}}
        legend: {{position: {position}, columns: 2, title: Keys}}
        """)
    config = compiled.vega_lite["config"]["legend"]
    assert config["orient"] == position and config["columns"] == 2
    assert config["fillColor"] == INSIDE_LEGEND["fillColor"]
    svg = vlc.vegalite_to_svg(compiled.vega_lite)
    assert sorted(legend_labels(svg)) == ["a", "b", "c"]  # two columns: laid out column by column
    assert ">Keys</text>" in svg


def test_outside_position_and_hidden_legend(tmp_path):
    base = """\
        mark: point
        encoding: {x: x, y: y}
        markers: {field: k, styles: {a: {}, b: {}, c: {}}}
        """
    outside = compile_text(tmp_path, textwrap.dedent(base) + "legend: {position: right, title: null}\n", "a.yaml")
    assert "fillColor" not in outside.vega_lite["config"]["legend"]
    assert marker_layer(outside.vega_lite)["encoding"]["shape"]["legend"]["title"] is None
    hidden = compile_text(tmp_path, textwrap.dedent(base) + "legend: {position: none}\n", "b.yaml")
    assert legend_count(hidden.vega_lite) == 0


# ---------------------------------------------------------------- axis formats

def test_pow10_labels_decades_only(tmp_path):
    compiled = compile_text(tmp_path, textwrap.dedent("""\
        data: {values: [{x: 1e21, y: 1}, {x: 1e24, y: 2}]}
        mark: point
        encoding:
          x: {field: x, scale: {type: log}, axis: {format: pow10}}
          y: y
        """), "pow10.yaml")
    labels = axis_labels(vlc.vegalite_to_svg(compiled.vega_lite))
    x_labels = labels[:labels.index("10²⁴") + 1]  # the x axis comes first: its labels end at 10²⁴
    assert [t for t in x_labels if t] == ["10²¹", "10²²", "10²³", "10²⁴"]
    assert x_labels.count("") >= 20  # the ticks between decades are there, unlabelled


def test_pow10_labels_of_negative_exponents_take_a_superscript_minus(tmp_path):
    """d3's format writes a minus sign (U+2212), not a hyphen: both become ⁻, never a full-size −."""
    compiled = compile_text(tmp_path, textwrap.dedent("""\
        data: {values: [{x: 0.001, y: 1}, {x: 1, y: 2}]}
        mark: point
        encoding:
          x: {field: x, scale: {type: log}, axis: {format: pow10}}
          y: y
        """), "pow10.yaml")
    labels = axis_labels(vlc.vegalite_to_svg(compiled.vega_lite))
    assert [t for t in labels if t.startswith("10")] == ["10⁻³", "10⁻²", "10⁻¹", "10⁰"]


def test_pow10_spec_covers_many_decades():
    compiled = example("axis_pow10")
    labels = axis_labels(vlc.vegalite_to_svg(compiled.vega_lite))
    assert [t for t in labels if t.startswith("10")] == [
        "10³", "10⁴", "10⁵", "10⁶", "10⁷", "10⁸", "10⁹", "10¹⁰"]


def test_si_percent_and_d3_formats():
    compiled = example("axis_formats")
    labels = axis_labels(vlc.vegalite_to_svg(compiled.vega_lite))
    assert {"0", "400k", "1M", "2M"} <= set(labels)
    assert {"0%", "1%", "6%"} <= set(labels)
    legend = legend_labels(vlc.vegalite_to_svg(compiled.vega_lite))
    assert "$1,000,000" in legend
