"""Colour-vision and greyscale checks (translate/vision.py, infra/vision.py) and the colour-blind-safe palettes.

The simulation is checked against colorspacious (an independent implementation of
Machado et al. 2009 and of sRGB's colorimetry), CIEDE2000 against the published test
pairs of Sharma, Wu & Dalal (2005), the palettes against what Vega draws.
"""

from __future__ import annotations

import math

import colorspacious
import pytest
import vl_convert as vlc
from colorspacious.cvd import machado_et_al_2009_matrix

from chartc import errors as msg
from chartc.commands import cli
from chartc.infra.colors import PALETTES
from chartc.infra.vision import (CONDITIONS, DISTINCT, MACHADO_2009, appearance, ciede2000, difference, lab,
                                 simulate)

from conftest import compile_text, label, scene_nodes

COLORSPACIOUS_NAMES = {"protanopia": "protanomaly", "deuteranopia": "deuteranomaly", "tritanopia": "tritanomaly"}


@pytest.mark.parametrize("condition", sorted(MACHADO_2009))
def test_machado_matrices_are_colorspacious_at_full_severity(condition):
    assert [list(row) for row in MACHADO_2009[condition]] == machado_et_al_2009_matrix(
        COLORSPACIOUS_NAMES[condition], 100).tolist()


@pytest.mark.parametrize("color", ["#d62728", "#2ca02c", "#1f77b4", "#E69F00", "#56B4E9", "#777777"])
@pytest.mark.parametrize("condition", sorted(MACHADO_2009))
def test_simulation_is_colorspacious_cvd_in_linear_rgb(color, condition):
    rgb = appearance(color)
    ours = simulate(rgb, condition)
    theirs = colorspacious.cspace_convert(
        [int(color[i:i + 2], 16) / 255 for i in (1, 3, 5)],
        {"name": "sRGB1+CVD", "cvd_type": COLORSPACIOUS_NAMES[condition], "severity": 100}, "sRGB1-linear")
    assert ours == pytest.approx([min(1, max(0, c)) for c in theirs], abs=1e-6)


@pytest.mark.parametrize("color", ["#d62728", "#2ca02c", "#1f77b4", "#E69F00", "#bcbd22"])
def test_greyscale_is_cie_luminance_and_lab_is_colorspacious_cielab(color):
    srgb = [int(color[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    luminance = colorspacious.cspace_convert(srgb, "sRGB1", "XYZ1")[1]
    assert simulate(appearance(color), "greyscale") == pytest.approx([luminance] * 3, abs=1e-4)
    assert lab(appearance(color)) == pytest.approx(colorspacious.cspace_convert(srgb, "sRGB1", "CIELab"), abs=0.05)


# Sharma, Wu & Dalal (2005), table 1: pairs 1, 7, 17, 25 and 34, with their ΔE00.
SHARMA_PAIRS = [
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
]


@pytest.mark.parametrize("first,second,expected", SHARMA_PAIRS)
def test_ciede2000_matches_sharmas_test_data(first, second, expected):
    assert ciede2000(first, second) == pytest.approx(expected, abs=5e-5)
    assert ciede2000(second, first) == pytest.approx(expected, abs=5e-5)


def test_red_and_green_merge_for_deuteranopes_and_okabe_ito_does_not():
    red, green = appearance("#d62728"), appearance("#2ca02c")
    assert difference(red, green, "deuteranopia") < DISTINCT < ciede2000(lab(red), lab(green))
    okabe = [appearance(color) for color in PALETTES["okabe-ito"]]
    closest = min(difference(a, b, condition) for condition in CONDITIONS[1:]
                  for index, a in enumerate(okabe) for b in okabe[index + 1:])
    assert closest > DISTINCT


MARKERS = """
    data:
      values: [{{x: 1, y: 1, m: a}}, {{x: 2, y: 2, m: b}}, {{x: 3, y: 1, m: b}}]
    mark: point
    encoding: {{x: x, y: y}}
    markers:
      field: m
      styles:
        a: {{color: "{first}"{a}}}
        b: {{color: "{second}"{b}}}
"""


def _markers(tmp_path, first, second, a="", b=""):
    return compile_text(tmp_path, MARKERS.format(first=first, second=second, a=a, b=b))


def test_a_red_green_marker_pair_warns_for_deuteranopia_at_the_second_colour(tmp_path):
    compiled = _markers(tmp_path, "#d62728", "#2ca02c")
    [warning] = [w for w in compiled.warnings if w.code == "W770"]
    red, green = appearance("#d62728"), appearance("#2ca02c")
    failing = [c for c in CONDITIONS[1:] if difference(red, green, c) < DISTINCT]
    assert "deuteranopia" in failing
    assert warning.message == msg.colors_merge_for_deficiency(
        "a", "b", failing, min(difference(red, green, c) for c in failing))
    assert warning.path == ("markers", "styles", "b", "color")
    assert (warning.location.line, warning.hint) == (10, msg.colors_merge_for_deficiency_hint())


def test_okabe_ito_colours_raise_no_colour_vision_warning(tmp_path):
    compiled = _markers(tmp_path, PALETTES["okabe-ito"][0], PALETTES["okabe-ito"][4])
    assert [w.code for w in compiled.warnings] == []


def test_a_pair_that_prints_as_one_grey_warns(tmp_path):
    compiled = _markers(tmp_path, "#1f77b4", "#d62728")  # ΔE00 1.1 in grey
    [warning] = [w for w in compiled.warnings if w.code == "W771"]
    grey = difference(appearance("#1f77b4"), appearance("#d62728"), "greyscale")
    assert warning.message == msg.colors_merge_in_grey("a", "b", grey)


@pytest.mark.parametrize("a,b", [(", shape: square", ""), (", filled: false", ""), (", size: 200", "")])
def test_a_pair_that_differs_by_shape_fill_or_size_is_told_apart(tmp_path, a, b):
    assert [w.code for w in _markers(tmp_path, "#d62728", "#2ca02c", a, b).warnings] == []


def test_line_series_with_different_dashes_are_told_apart(tmp_path):
    spec = MARKERS.replace("mark: point", "mark: line")
    plain = compile_text(tmp_path, spec.format(first="#d62728", second="#2ca02c", a="", b=""))
    dashed = compile_text(tmp_path, spec.format(first="#d62728", second="#2ca02c", a="", b=", dash: [4, 2]"))
    assert [w.code for w in plain.warnings] == ["W770"]
    assert dashed.warnings == ()


CHANNEL = """
    data:
      values: [{{x: 1, y: 1, c: a}}, {{x: 2, y: 2, c: b}}, {{x: 3, y: 3, c: c}}]
    mark: point
    encoding:
      x: x
      y: y
      color: {{field: c{scale}}}
{extra}"""


def test_a_colour_channel_with_vegas_category_colours_is_checked_in_its_sorted_order(tmp_path):
    compiled = compile_text(tmp_path, CHANNEL.format(scale="", extra=""))
    # Vega's tableau10: a #4c78a8, b #f58518, c #e45756.
    colors = [appearance(c) for c in ("#4c78a8", "#f58518", "#e45756")]
    greys = {(x, y): difference(colors[i], colors[j], "greyscale")
             for i, x in enumerate("abc") for j, y in enumerate("abc") if i < j}
    merged = {pair: value for pair, value in greys.items() if value < DISTINCT}
    [warning] = [w for w in compiled.warnings if w.code == "W771"]
    (first, second), delta = min(merged.items(), key=lambda item: item[1])
    assert warning.message == msg.colors_merge_in_grey(first, second, delta, len(merged) - 1)
    assert warning.path == ("encoding", "color")


def test_a_colour_channel_whose_field_is_also_the_shape_is_not_reported(tmp_path):
    compiled = compile_text(tmp_path, CHANNEL.format(scale="", extra="      shape: c\n"))
    assert compiled.warnings == ()


@pytest.mark.parametrize("name", sorted(PALETTES))
def test_a_named_palette_is_what_vega_draws(tmp_path, name):
    compiled = compile_text(tmp_path, CHANNEL.format(scale=f", scale: {{scheme: {name}}}", extra=""))
    graph = vlc.vegalite_to_scenegraph(compiled.vega_lite)
    fills = [item.get("stroke") for item in scene_nodes(graph, "symbol") if item.get("role") == "mark"
             for item in item["items"]]
    assert [fill.lower() for fill in fills] == [color.lower() for color in PALETTES[name][:3]]


def test_strict_reports_the_colour_vision_warning_as_an_error(tmp_path, monkeypatch, capsys):
    spec = tmp_path / "chart.yaml"
    spec.write_text(MARKERS.format(first="#d62728", second="#2ca02c", a="", b=""), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["compile", "--strict", "chart.yaml", "-o", "chart.vl.json"]) == 1
    err = capsys.readouterr().err
    assert label(msg.colors_merge_for_deficiency("a", "b", ["x"], 0)) in err
    assert not (tmp_path / "chart.vl.json").exists()
    assert cli.main(["compile", "chart.yaml", "-o", "chart.vl.json"]) == 0
    assert label(msg.colors_merge_for_deficiency("a", "b", ["x"], 0), "warning") in capsys.readouterr().err


def test_every_palette_has_distinct_valid_hex_colours():
    for colors in PALETTES.values():
        assert len(set(colors)) == len(colors) and all(len(c) == 7 and int(c[1:], 16) >= 0 for c in colors)
    assert math.isclose(DISTINCT, 10.0)


def test_a_category_styled_by_the_default_is_placed_at_the_default(tmp_path):
    compiled = compile_text(tmp_path, """
        data: {values: [{x: 1, y: 1, m: a}, {x: 2, y: 2, m: b}]}
        mark: point
        encoding: {x: x, y: y}
        markers: {field: m, default: {shape: circle, color: "#2ca02c"}, styles: {a: {color: "#d62728"}}}
        """)
    [warning] = [w for w in compiled.warnings if w.code == "W770"]
    assert warning.path == ("markers", "default")


def test_many_categories_are_compared_once_per_colour_and_reported_once(tmp_path):
    rows = ", ".join(f"{{x: {i}, y: {i}, c: k{i:04d}}}" for i in range(600))
    compiled = compile_text(tmp_path, f"""
        data: {{values: [{rows}]}}
        mark: point
        encoding: {{x: x, y: y, color: c}}
        """)
    assert sorted(w.code for w in compiled.warnings) == ["W770", "W771"]
    # Vega's ten category colours cycle: the pairs counted are those of distinct colours.
    colors = [appearance(c) for c in ("#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b",
                                      "#eeca3b", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac")]
    greys = [difference(a, b, "greyscale") for i, a in enumerate(colors) for b in colors[i + 1:]]
    [grey] = [w for w in compiled.warnings if w.code == "W771"]
    assert grey.message.endswith(f"({sum(d < DISTINCT for d in greys) - 1} more pairs alike)")


def test_a_chart_level_colour_channel_shared_by_two_layers_is_reported_once(tmp_path):
    compiled = compile_text(tmp_path, """
        data: {values: [{x: 1, y: 1, c: a}, {x: 2, y: 2, c: b}, {x: 3, y: 3, c: c}]}
        encoding: {x: x, y: y, color: c}
        legend: {position: none}
        layers:
          - mark: point
          - mark: line
        """)
    single = compile_text(tmp_path, CHANNEL.format(scale="", extra=""))
    assert [(w.code, w.message) for w in compiled.warnings] == [(w.code, w.message) for w in single.warnings]
    assert sorted(w.code for w in compiled.warnings) == ["W770", "W771"]


def test_categories_labelled_directly_by_a_text_layer_are_not_told_apart_by_colour_alone(tmp_path):
    labelled = compile_text(tmp_path, """
        data: {values: [{x: 1, y: 1, c: a}, {x: 2, y: 2, c: b}, {x: 3, y: 3, c: c}]}
        encoding: {x: x, y: y, color: c}
        legend: {position: none}
        layers:
          - mark: point
          - mark: text
            encoding: {text: c}
        """)
    assert sorted(w.code for w in compile_text(tmp_path, CHANNEL.format(scale="", extra="")).warnings) == [
        "W770", "W771"]
    assert [w.code for w in labelled.warnings] == []
