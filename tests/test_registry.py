"""Trend methods and marker shapes are registered objects: a new one is one class (or one call), end to end.

A toy method (``constant``: y = the mean of y, placeholder ``{mean}``, no
band) and a toy shape (``kite``) are registered by the tests below exactly as
a user's code would, compiled through the whole pipeline (validation, fit,
legend, Vega-Lite, the rendered SVG), and removed again: every test restores
the registries it changed. The schema on disk is what the registries write.
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from chartc import errors
from chartc.commands.cli import reference_markdown
from chartc.errors import SpecError
from chartc.infra import shapes
from chartc.infra.paths import SCHEMA_PATH
from chartc.infra.shapes import Shape, register_shape, resolve_shape
from chartc.pipeline import compile_spec, validate_spec
from chartc.render.export import render
from chartc.stages.validate import chart_schema
from chartc.trends import registry
from chartc.trends.fitting import TREND_METHODS, fit_trend
from chartc.trends.methods import Options, Parameter, Placeholder, TrendMethod

ROOT = Path(__file__).resolve().parent.parent
XS = [1, 2, 3, 4, 5]
YS = [1.0, 3.0, 2.0, 5.0, 4.5]
MEAN = sum(YS) / len(YS)   # 3.1


@pytest.fixture
def constant():
    """Register the toy `constant` method for one test, and forget it afterwards."""
    saved = registry.snapshot()

    class Constant(TrendMethod):
        name = "constant"
        aliases = ("flat",)
        description = "y = the mean of y."
        placeholders = (Placeholder("mean", "the mean of y"),)
        has_band = False

        def fit(self, u, v, options: Options):
            import numpy as np

            from chartc.trends.numerics import Model

            mean = float(np.mean(v))
            return Model((("mean", mean),), f"{options.y_name} = {mean:g}",
                         lambda at: np.full(len(at), mean), None)

    try:
        yield Constant
    finally:
        registry.restore(saved)


@pytest.fixture
def kite():
    """Register the toy `kite` shape (alias ``K``) for one test, and forget it afterwards."""
    saved = shapes.registered_shapes()
    outline = [(0.0, -1.0), (0.6, -0.2), (0.0, 1.0), (-0.6, -0.2)]
    try:
        yield register_shape(Shape("kite", ("K",), outline=lambda: outline))
    finally:
        shapes.restore_shapes(saved)


def write(tmp_path: Path, spec: dict) -> Path:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def trend_spec(trend: dict) -> dict:
    return {"data": {"values": [{"x": x, "y": y} for x, y in zip(XS, YS)]},
            "encoding": {"x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative"}},
            "layers": [{"mark": "point"}, {"trend": trend}]}


def vertices(path: str) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in re.findall(r"(-?[\d.]+),(-?[\d.]+)", path)]


# ------------------------------------------------------------------ a trend method

def test_a_registered_method_compiles_end_to_end(tmp_path, constant):
    compiled = compile_spec(write(tmp_path, trend_spec({"method": "constant", "label": "mean {mean:.2f}"})))

    (line,) = compiled.fits[("layers", 1)]
    assert line.method == "constant" and line.coefficients == (("mean", MEAN),)
    assert line.label == "mean 3.10" and line.lower is None and line.equation == "y = 3.1"
    # The drawn line: the trend's own rows in the Vega-Lite, flat at the mean over the data's x range.
    vl = compiled.vega_lite
    line_view = next(view for view in vl["layer"] if view["mark"]["type"] == "line")
    rows = line_view["data"]["values"] if "values" in line_view["data"] else vl["datasets"][line_view["data"]["name"]]
    assert {row["legend"] for row in rows} == {"mean 3.10"}
    assert [row["x"] for row in rows][0::99] == [1.0, 5.0] and {row["y"] for row in rows} == {MEAN}
    # The rendered SVG: one horizontal line across the plot, and its legend entry.
    svg = ET.fromstring(render(vl, "svg"))
    drawn = [path.get("d") for group in svg.iter() if "mark-line" in group.get("class", "").split()
             for path in group.iter() if path.tag.endswith("path")]
    assert len(drawn) == 1
    ys = {y for _, y in vertices(drawn[0])}
    assert len(ys) == 1  # flat
    texts = ["".join(node.itertext()) for node in svg.iter() if node.tag.endswith("text")]
    assert "mean 3.10" in texts


def test_a_registered_method_is_in_the_schema_validation_and_hints(tmp_path, constant):
    spec = write(tmp_path, trend_spec({"method": "flat", "label": "{mean}"}))
    assert validate_spec(spec) == []  # the alias, through the composed schema
    method = chart_schema()["$defs"]["trend"]["properties"]["method"]
    assert method["enum"] == [*TREND_METHODS, "constant", "flat"]
    assert method["enumDescriptions"][len(TREND_METHODS):] == [
        "`constant`: y = the mean of y. Also written `flat`. Label placeholders: `{mean}` (the mean of y). "
        "No `band` or `prediction`.", "`flat`: `constant`."]
    assert registry.label_placeholders()[-6:] == ("mean", "coef", "n", "equation", "method", "group")
    assert "constant" not in registry.band_methods()
    with pytest.raises(SpecError) as raised:
        fit_trend(XS, YS, "constant", band=0.95)
    assert raised.value.message == errors.trend_band_unsupported("constant")
    assert raised.value.hint == errors.trend_band_unsupported_hint((*TREND_METHODS[:6], "logistic"))
    with pytest.raises(SpecError) as raised:
        compile_spec(write(tmp_path, trend_spec({"method": "linear", "label": "{mean}"})))
    assert raised.value.errors[0].message == errors.trend_label_undefined("mean", "linear")


def test_the_registry_is_restored_after_a_test(tmp_path):
    assert "constant" not in registry.method_names() and "kite" not in shapes.registered_shapes()
    (problem,) = validate_spec(write(tmp_path, trend_spec({"method": "constant"})))
    assert problem.path == ("layers", 1, "trend", "method")
    assert "constant" not in chart_schema()["$defs"]["trend"]["properties"]["method"]["enum"]


def test_a_method_parameter_comes_with_its_schema_default_and_check(tmp_path, constant):
    class Trimmed(TrendMethod):
        """The mean of y without the `cut` largest and smallest values."""

        name = "trimmed"
        description = "y = a trimmed mean of y."
        parameters = (Parameter("cut", {"type": "integer", "description": "Values cut at each end.",
                                        "examples": [1], "default": 1, "minimum": 0}),)
        has_band = False
        extrapolates = False

        def check(self, options: Options) -> None:
            if options["cut"] > 10:
                raise SpecError("cut at most 10", ("cut",), stage="fit")

        def fit(self, u, v, options: Options):
            import numpy as np

            from chartc.trends.numerics import Model

            kept = np.sort(v)[options["cut"]:len(v) - options["cut"]]
            mean = float(kept.mean())
            return Model((("mean", mean),), f"y = {mean:g}", lambda at: np.full(len(at), mean), None)

    cut = chart_schema()["$defs"]["trend"]["properties"]["cut"]
    assert cut == {"type": "integer", "description": "Values cut at each end. Used by `trimmed`.",
                   "markdownDescription": "Values cut at each end. Used by `trimmed`.", "examples": [1],
                   "default": 1, "minimum": 0}
    extent = chart_schema()["$defs"]["trend"]["properties"]["extent"]["description"]
    assert extent.endswith(" `loess`, `moving-average`, `ewm`, `expanding` and `trimmed` stop at the data.")
    (problem,) = validate_spec(write(tmp_path, trend_spec({"method": "trimmed", "cut": -1})))
    assert problem.path == ("layers", 1, "trend", "cut")
    assert fit_trend(XS, YS, "trimmed").coefficients == (("mean", (3.0 + 2.0 + 4.5) / 3),)   # cut 1: the default
    assert fit_trend(XS, YS, "trimmed", cut=0).coefficients == (("mean", MEAN),)
    with pytest.raises(SpecError) as raised:
        compile_spec(write(tmp_path, trend_spec({"method": "trimmed", "cut": 11})))
    assert (raised.value.errors[0].path, raised.value.errors[0].message) == (
        ("layers", 1, "trend", "cut"), "cut at most 10")
    assert "#### `trimmed`" in reference_markdown()
    registry.unregister("trimmed")
    assert "cut" not in chart_schema()["$defs"]["trend"]["properties"]


def test_a_name_taken_by_another_method_is_refused(constant):
    with pytest.raises(ValueError, match="'flat' already names 'constant'"):
        type("Flat", (TrendMethod,), {"name": "flat"})


# ------------------------------------------------------------------ a marker shape

def test_a_registered_shape_compiles_end_to_end(tmp_path, kite):
    path = resolve_shape("K")
    assert path == resolve_shape("kite") == kite.value()
    points = vertices(path)
    area = abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1]))) / 2
    assert len(points) == 4 and area == pytest.approx(math.pi, rel=1e-3)  # the circle's area
    spec = {"data": {"values": [{"x": 1, "y": 2, "g": "a"}, {"x": 2, "y": 3, "g": "b"}]},
            "encoding": {"x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative"}},
            "mark": "point",
            "markers": {"field": "g", "styles": {"a": {"shape": "K"}, "b": {"shape": "circle"}}}}
    assert validate_spec(write(tmp_path, spec)) == []
    vl = compile_spec(write(tmp_path, spec)).vega_lite
    assert vl["encoding"]["shape"]["scale"]["range"] == [path, "circle"]
    svg = render(vl, "svg").decode()
    # Vega draws a custom symbol by scaling its path: four corners, the kite's proportions (height / width 1 / 0.6).
    symbols = [vertices(d) for d in re.findall(r'<path[^>]* d="(M[^"]*)"', svg) if len(vertices(d)) == 4]
    kites = [p for p in symbols if max(y for _, y in p) - min(y for _, y in p)
             == pytest.approx((max(x for x, _ in p) - min(x for x, _ in p)) / 0.6, rel=0.02)]
    assert kites  # the data point and its legend symbol


def test_an_unknown_shape_hint_lists_the_registered_shapes(kite):
    with pytest.raises(SpecError) as raised:
        resolve_shape("kit")
    assert raised.value.hint == errors.did_you_mean("kit", shapes.shape_choices()) == "did you mean 'kite'?"
    assert shapes.shape_choices()[-1] == "K"
    assert "kite" in json.dumps(chart_schema()["$defs"]["marker_style"]["properties"]["shape"]["examples"])


# ------------------------------------------------------------------ generated files

def load_builder():
    spec = importlib.util.spec_from_file_location("build_schema", ROOT / "scripts" / "build_schema.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_schema_file_is_what_the_registries_write():
    builder = load_builder()
    assert SCHEMA_PATH.read_text(encoding="utf-8") == builder.built_schema(SCHEMA_PATH), (
        "schemas/chart.schema.json is stale: run python scripts/build_schema.py")
    assert json.loads(SCHEMA_PATH.read_text(encoding="utf-8")) == chart_schema()


def test_the_schema_builder_rewrites_a_stale_file_and_checks(tmp_path, capsys):
    builder = load_builder()
    stale = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    stale["$defs"]["trend"]["properties"]["method"]["enum"] = ["linear"]
    del stale["$defs"]["trend"]["properties"]["window"]
    path = tmp_path / "chart.schema.json"
    path.write_text(json.dumps(stale), encoding="utf-8")
    assert builder.main(["--check", "--schema", str(path)]) == 1
    assert capsys.readouterr().err == f"{path} is stale: run python scripts/build_schema.py\n"
    assert builder.main(["--schema", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == SCHEMA_PATH.read_text(encoding="utf-8")
    assert builder.main(["--check", "--schema", str(path)]) == 0


def test_the_reference_lists_every_method_with_its_parameters_and_placeholders():
    text = reference_markdown()
    for name, cls in registry.registered().items():
        section = text.split(f"#### `{name}`\n", 1)[1].split("\n#### ", 1)[0].split("\n### ", 1)[0]
        assert cls.description in section
        assert all(f"| `{p.name}` |" in section for p in cls.parameters), name
        assert all(f"| `{{{p.name}}}` | {p.kind} |" in section for p in cls.placeholders), name
    for name in shapes.registered_shapes():
        assert f"| `{name}` |" in text
