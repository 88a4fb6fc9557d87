"""Stage 2: a document against the chart schema, every problem reworded and placed."""

from __future__ import annotations

import pytest

from chartc import errors as msg
from chartc.errors import Location
from chartc.stages.load import load_text
from chartc.stages.validate import (COMPOSITE_MARK_PROPERTIES, COMPOSITE_ONLY_PROPERTIES, FACET_CHANNEL_KEYS,
                                    OWN_MARK_PROPERTIES, load_schema, validate_document)

VALID = """\
data: {dataset: cars}
mark: point
encoding:
  x: Horsepower
  y: {field: Miles_per_Gallon, title: MPG}
"""


def problems(text: str, *, format: str = "yaml"):
    return validate_document(load_text(text, "spec." + format, format=format))


def only(text: str, **kwargs):
    found = problems(text, **kwargs)
    assert len(found) == 1, [p.diagnostic() for p in found]
    return found[0]


def test_a_valid_spec_has_no_problems():
    assert problems(VALID) == []


def test_every_problem_is_a_schema_error_with_a_position():
    found = problems("title: 1\ndata: {dataset: carz}\nmark: pointt\nencoding: {colour: a}\n")
    assert [p.path for p in found] == [("title",), ("data", "dataset"), ("mark",), ("encoding", "colour")]
    assert all(p.stage == "schema" and p.location is not None for p in found)


# ------------------------------------------------------------------ unknown keys

def test_unknown_key_points_at_the_key_with_did_you_mean():
    error = only("data: {dataset: cars}\nmark: point\nencodng:\n  x: a\n")
    assert error.path == ("encodng",)
    assert error.message == msg.unknown_key("encodng")
    assert error.hint == msg.did_you_mean("encodng", load_schema()["properties"]) == "did you mean 'encoding'?"
    assert error.location == Location("spec.yaml", 3, 1)


def test_unknown_key_without_a_near_miss_lists_the_allowed_keys():
    error = only("data: {dataset: cars, zzz: 1}\nmark: point\n")
    assert error.path == ("data", "zzz")
    assert error.hint == msg.allowed_keys(["values", "path", "dataset", "format", "sample", "frame", "table"])
    assert error.location == Location("spec.yaml", 1, 23)


def test_a_facet_needs_a_field():
    """A facet channel without a field used to reach the renderer as 'Undefined data set name'."""
    error = only("data: {dataset: iris}\nmark: point\nfacet: {column: {title: Species}}\n")
    assert (error.path, error.message) == (("facet", "column"), "missing required key 'field'")
    assert error.location == Location("spec.yaml", 3, 9)


def test_unknown_channel():
    error = only("data: {dataset: cars}\nmark: point\nencoding:\n  colour: Origin\n")
    assert (error.path, error.hint) == (("encoding", "colour"), "did you mean 'color'?")
    assert error.location == Location("spec.yaml", 4, 3)


def test_unknown_key_inside_a_channel_object():
    error = only("data: {dataset: cars}\nmark: point\nencoding:\n  x: {feild: a}\n")
    assert (error.path, error.hint) == (("encoding", "x", "feild"), "did you mean 'field'?")


# ------------------------------------------------------------------ values

def test_misspelled_enum_points_at_the_value():
    error = only("data: {dataset: cars}\nmark: pointt\n")
    assert error.path == ("mark",)
    assert error.message.startswith("'pointt' is not one of 'point', 'circle'")
    assert error.hint == "did you mean 'point'?"
    assert error.location == Location("spec.yaml", 2, 7)


def test_enum_in_a_nested_mapping():
    error = only("data: {dataset: cars}\nmark: point\nencoding:\n  x: {field: a, type: quantitive}\n")
    assert error.path == ("encoding", "x", "type")
    assert error.message == msg.not_one_of("quantitive", ["quantitative", "nominal", "ordinal", "temporal"])
    assert error.hint == "did you mean 'quantitative'?"


def test_wrong_type():
    error = only("data: {dataset: cars}\nmark: point\nencoding:\n  x: {field: a, scale: {zero: maybe}}\n")
    assert error.message == msg.wrong_type("maybe", ["true or false"])
    assert error.message == "expected true or false, got the string 'maybe'"
    assert error.location == Location("spec.yaml", 4, 31)


def test_wrong_type_of_a_shorthand_channel():
    error = only("data: {dataset: cars}\nmark: point\nencoding:\n  x: 5\n")
    assert error.message == msg.wrong_type(5, ["a string", "a mapping"])


def test_a_number_or_a_constant_names_every_form():
    error = only("data: {dataset: cars}\nmark: point\nwidth: wide\n")
    # a physical length by an example of one, and {step: N}
    assert error.message == msg.wrong_type("wide", ["a number", "'container'", "a string such as '3.25in'", "a mapping"])
    assert error.message == "expected a number, 'container', a string such as '3.25in' or a mapping, got the string 'wide'"


def test_near_miss_of_a_constant_gets_a_hint():
    error = only("data: {dataset: cars}\nmark: point\nwidth: contianer\n")
    assert error.hint == "did you mean 'container'?"


def test_out_of_range():
    error = only("data: {dataset: cars}\nmark: {type: point, opacity: 2}\n")
    assert error.message == msg.out_of_bounds(2, "<=", 1)


def test_empty_layers():
    error = only("data: {dataset: cars}\nlayers: []\n")
    assert error.message == msg.wrong_size("minItems", 1)


def test_pattern_failure_explains_the_field():
    error = only("data: {dataset: cars}\nmark: point\nencoding:\n  x: {field: a, sort: -z}\n")
    assert error.message == msg.bad_pattern("-z")
    assert error.hint.startswith("sort order: 'ascending', 'descending'")


# ------------------------------------------------------------------ colours, fonts, free-form Vega-Lite

BLEU_HINT = msg.color_hint("did you mean 'blue'?")
MARKERS = "data: {dataset: cars}\nmark: point\nmarkers:\n  field: Origin\n  styles:\n    USA: "


@pytest.mark.parametrize("text, path", [
    ("data: {dataset: cars}\nmark: {type: point, color: bleu}\n", ("mark", "color")),
    (MARKERS + "{color: bleu}\n", ("markers", "styles", "USA", "color")),
    (MARKERS + "{stroke: bleu}\n", ("markers", "styles", "USA", "stroke")),
    ("data: {dataset: cars}\nencoding: {x: Horsepower, y: Miles_per_Gallon}\n"
     "layers: [{mark: point}, {trend: {style: {color: bleu}}}]\n",
     ("layers", 1, "trend", "style", "color")),
    ("data: {dataset: cars}\nmark: point\nencoding:\n  color: {value: bleu}\n", ("encoding", "color", "value")),
    ("data: {dataset: cars}\nmark: point\nencoding:\n  color: {field: Origin, scale: {range: [red, bleu]}}\n",
     ("encoding", "color", "scale", "range", 1)),
    ("data: {dataset: cars}\nlayers:\n  - mark: point\n    encoding: {color: {value: bleu}}\n",
     ("layers", 0, "encoding", "color", "value")),
    ("data: {dataset: cars}\nmark: point\nconfig: {view: {fill: bleu}}\n", ("config", "view", "fill")),
    ("data: {dataset: cars}\nmark: point\nvega_lite: {config: {axis: {gridColor: bleu}}}\n",
     ("vega_lite", "config", "axis", "gridColor")),
])
def test_every_place_a_colour_is_written_checks_it(text, path):
    error = only(text)
    assert (error.path, error.message, error.hint) == (path, msg.not_a_color("bleu"), BLEU_HINT)
    at = text.index("bleu")  # the diagnostic points at the value
    line, column = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
    assert (error.stage, error.location) == ("schema", Location("spec.yaml", line, column))


@pytest.mark.parametrize("color", ["tab:blue", "C0", ".3", "0.75", "k", "steelblue", "Red", "#1f77b480",
                                   "rgb(214, 39, 40)", "hsla(0, 100%, 50%, 0.5)", "transparent"])
def test_matplotlib_and_css_colours_are_valid_everywhere(color):
    text = (f"data: {{dataset: cars}}\nmark: {{type: point, color: '{color}'}}\n"
            f"encoding: {{color: {{field: Origin, scale: {{range: ['{color}']}}}}}}\n"
            f"config: {{background: '{color}', axis: {{gridColor: '{color}'}}}}\n")
    assert problems(text) == []


def test_a_colour_channel_value_may_be_null_but_not_a_number():
    assert problems("data: {dataset: cars}\nmark: point\nencoding: {color: {value: null}}\n") == []
    error = only("data: {dataset: cars}\nmark: point\nencoding: {color: {value: 5}}\n")
    assert (error.path, error.message) == (("encoding", "color", "value"), msg.wrong_type(5, ["a string", "null"]))


def test_other_channels_keep_their_constants():
    assert problems("data: {dataset: cars}\nmark: point\nencoding: {size: {value: 60}, shape: {value: square}}\n") == []


def test_hostile_colour_in_the_schema_typed_places_says_why():
    error = only("data: {dataset: cars}\nmark: {type: point, color: 'url(http://host/x#p)'}\n")
    assert (error.message, error.hint) == (msg.unsafe_text("url(http://host/x#p)", "url("), msg.unsafe_text_hint())


def test_free_form_problems_are_placed_in_the_file():
    text = ("data: {dataset: cars}\nmark: point\nconfig:\n  font: 'Arial\" x'\n"
            "  title: {subtitleColor: {expr: \"'red'\"}}\n"
            "vega_lite:\n  title: {text: 'javascript:alert(1)'}\n")
    found = problems(text)
    assert [(p.path, p.message, p.location) for p in found] == [
        (("config", "font"), msg.unsafe_font('Arial" x', ['"']), Location("spec.yaml", 4, 9)),
        (("config", "title", "subtitleColor", "expr"), msg.computed_style("subtitleColor"),
         Location("spec.yaml", 5, 33)),  # the expression
        (("vega_lite", "title", "text"), msg.unsafe_text("javascript:alert(1)", "javascript:"),
         Location("spec.yaml", 7, 17)),
    ]
    assert [p.hint for p in found] == [msg.unsafe_font_hint(), msg.computed_style_hint(), msg.unsafe_text_hint()]


# ------------------------------------------------------------------ data

def test_missing_data():
    error = only("mark: point\n")
    assert (error.path, error.message, error.hint) == ((), msg.missing_key("data"), msg.data_hint())
    assert error.location == Location("spec.yaml", 1, 1)


def test_data_with_two_sources_points_at_the_second():
    error = only("data:\n  dataset: cars\n  path: x.csv\nmark: point\n")
    assert error.path == ("data", "path")
    assert error.message == msg.data_two_sources(["dataset", "path"])
    assert error.hint == msg.data_two_sources_hint()
    assert error.location == Location("spec.yaml", 3, 3)


def test_data_with_no_source():
    error = only("data: {format: csv}\nmark: point\n")
    assert (error.path, error.message) == (("data",), msg.data_one_source())


# ------------------------------------------------------------------ structure

def test_mark_and_layers():
    error = only("data: {dataset: cars}\nmark: point\nlayers: [{mark: line}]\n")
    assert (error.path, error.message, error.hint) == (("mark",), msg.mark_and_layers(), msg.mark_and_layers_hint())


def test_neither_mark_nor_layers():
    error = only("data: {dataset: cars}\n")
    assert error.message == msg.no_mark()


def test_layer_with_neither_mark_nor_trend():
    error = only("data: {dataset: cars}\nlayers:\n  - mark: point\n  - encoding: {color: a}\n")
    assert (error.path, error.message) == (("layers", 1), msg.layer_needs_mark())
    assert error.location == Location("spec.yaml", 4, 5)


def test_layer_with_mark_and_trend():
    error = only("data: {dataset: cars}\nlayers:\n  - mark: point\n    trend: {method: linear}\n")
    assert (error.path, error.message) == (("layers", 0, "trend"), msg.mark_and_trend())


def test_top_level_markers_with_layers():
    error = only("data: {dataset: cars}\nmarkers: {field: a, styles: {x: {}}}\nlayers: [{mark: point}]\n")
    assert error.message == msg.markers_with_layers()


def test_a_ci_extent_passes_the_schema():
    # chartc computes `ci` itself (the data stage's t-interval), so the schema takes it on an error bar.
    assert problems("data: {dataset: cars}\nmark: {type: errorbar, extent: ci}\nencoding: {x: Origin, y: Miles_per_Gallon}\n") == []


def test_mark_property_of_another_kind():
    error = only("data: {dataset: cars}\nmark: {type: bar, extent: stderr}\n")
    assert error.path == ("mark", "extent")
    assert error.message == msg.mark_property_not_for("extent", "bar")
    assert error.hint == msg.mark_property_hint(["boxplot", "errorbar", "errorband"])
    assert error.location == Location("spec.yaml", 2, 19)


def test_composite_mark_property_in_a_layer():
    error = only("data: {dataset: cars}\nlayers:\n  - mark: {type: boxplot, strokeWidth: 2}\n")
    assert error.path == ("layers", 0, "mark", "strokeWidth")
    assert error.hint == msg.allowed_keys(COMPOSITE_MARK_PROPERTIES["boxplot"])


def test_mark_property_table_matches_vega_lite():
    """What validate lets through per mark kind is exactly what Altair's mark classes accept."""
    import altair as alt

    ours = set(load_schema()["$defs"]["mark_object"]["properties"])
    classes = {"boxplot": alt.BoxPlotDef, "errorbar": alt.ErrorBarDef, "errorband": alt.ErrorBandDef}
    for kind, cls in classes.items():
        accepted = set(cls.resolve_references()["properties"]) | {"type"}
        assert set(COMPOSITE_MARK_PROPERTIES[kind]) == ours & accepted, kind
    primitive = set(alt.MarkDef.resolve_references()["properties"]) | {"type"}
    assert ours - primitive == set(COMPOSITE_ONLY_PROPERTIES) | set(OWN_MARK_PROPERTIES)


def test_facet_channel_in_the_encoding_points_to_facet():
    error = only("data: {dataset: cars}\nmark: point\nencoding: {row: Origin}\n")
    assert (error.message, error.hint) == (msg.unknown_key("row"), msg.facet_channel_hint("row"))


def test_facet_channel_property_it_does_not_take():
    error = only("data: {dataset: cars}\nmark: point\nfacet: {column: {field: Origin, axis: null}}\n")
    assert error.path == ("facet", "column", "axis")
    assert error.message == msg.facet_property_not_allowed("axis", "column")
    assert error.hint == msg.allowed_keys(FACET_CHANNEL_KEYS)


def test_facet_keys_match_vega_lite():
    import altair as alt

    ours = set(load_schema()["$defs"]["channel"]["properties"])
    assert set(FACET_CHANNEL_KEYS) == ours & set(alt.RowColumnEncodingFieldDef.resolve_references()["properties"])


def test_channels_without_a_constant_form():
    found = problems("data: {dataset: cars}\nmark: point\nencoding:\n  detail: {value: a}\n  tooltip: [{datum: 3}]\n")
    assert [(p.path, p.message) for p in found] == [
        (("encoding", "detail", "value"), msg.channel_takes_no("value", "detail")),
        (("encoding", "tooltip", 0, "datum"), msg.channel_takes_no("datum", "tooltip"))]


def test_constant_next_to_other_keys():
    error = only("data: {dataset: cars}\nlayers:\n  - mark: point\n    encoding: {color: {value: red, legend: null}}\n")
    assert error.path == ("layers", 0, "encoding", "color", "legend")
    assert (error.message, error.hint) == (msg.constant_channel_with("legend", "value"), msg.constant_channel_hint("value"))


def test_constant_channels_match_altair():
    import altair as alt

    from chartc.stages.translate.vega import CHANNEL_CLASSES
    from chartc.stages.validate import CHANNEL_CONSTANTS, CONSTANTS

    for channel, cls in CHANNEL_CLASSES.items():
        has = tuple(c for c in CONSTANTS if hasattr(alt, cls + c.capitalize()))
        assert CHANNEL_CONSTANTS.get(channel, CONSTANTS) == has, channel


# ------------------------------------------------------------------ transforms

def test_misspelled_transform_key_is_one_problem():
    error = only("data: {dataset: cars}\nmark: point\ntransform:\n  - filtr: datum.a > 1\n")
    assert (error.path, error.hint) == (("transform", 0, "filtr"), "did you mean 'filter'?")


def test_misspelled_transform_picks_the_variant_meant():
    error = only("data: {dataset: cars}\nmark: point\ntransform:\n  - calculat: datum.a\n    as: b\n")
    assert (error.path, error.hint) == (("transform", 0, "calculat"), "did you mean 'calculate'?")


def test_transform_missing_a_required_key():
    error = only("data: {dataset: cars}\nmark: point\ntransform:\n  - calculate: datum.a * 2\n")
    assert (error.path, error.message, error.hint) == (
        ("transform", 0), msg.missing_key("as"), "name of the new field")
    assert error.location == Location("spec.yaml", 4, 5)


def test_unknown_transform():
    error = only("data: {dataset: cars}\nmark: point\ntransform:\n  - stack: a\n")
    assert error.message == msg.needs_one_of_keys(["filter", "calculate", "aggregate", "fold", "pivot", "impute",
                                                   "window", "joinaggregate", "density", "lookup"])


# ------------------------------------------------------------------ reporting

def test_all_problems_in_file_order_without_duplicates():
    text = """\
title: 42
width: wide
data: {dataset: carz}
mark: {type: point, colr: red}
encoding:
  x: {field: Horsepower, type: quantitive}
  y: {field: Miles_per_Gallon, scale: {zero: maybe}}
legend: {position: top-centre}
"""
    found = problems(text)
    lines = [(p.location.line, p.location.column) for p in found]
    assert lines == sorted(lines) and len(found) == 7
    assert len({p.diagnostic() for p in found}) == len(found)


def test_json_positions():
    text = '{\n  "data": {"dataset": "cars"},\n  "mark": {"type": "point", "filed": true}\n}\n'
    error = only(text, format="json")
    assert (error.path, error.hint) == (("mark", "filed"), "did you mean 'filled'?")
    assert error.location == Location("spec.json", 3, 29)


@pytest.mark.parametrize("text", ["data: {dataset: cars}\nmark: point\nencoding: []\n",
                                  "data: 5\nmark: point\n", "data: {values: [1]}\nmark: point\n"])
def test_wrong_shapes_never_crash(text):
    assert problems(text)


def test_a_one_of_list_holds_no_mapping():
    # A mapping there once reached the data engine, which could not write it into an expression (a list
    # matches no row, as in Vega: tests/test_hostile.py).
    error = only("data: {dataset: stocks}\ntransform:\n  - filter: {field: symbol, oneOf: [{dataset: stocks}, AMZN]}\n"
                 "mark: line\nencoding: {x: date, y: price}\n")
    assert error.message == "expected a string, a number, true, false or a list, got a mapping"
    assert error.path == ("transform", 0, "filter", "oneOf", 0)
