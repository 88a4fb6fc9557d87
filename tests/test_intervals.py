"""`extent: ci` on error bars and bands: each group's Student t interval of the mean, computed by chartc.

The bars are read from what Vega draws (its scenegraph) and compared, group by
group, with `scipy.stats.t.interval` over the group's values read straight from
vega-datasets' file. The y (or x) scale is pinned to [0, 40] over 400 px, so a
value v is drawn 10·v px from the axis' origin; tolerance 1e-6 px (1e-7 in the
data's units): the two computations differ only in float rounding.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from chartc import errors as msg
from chartc.errors import SpecError
from chartc.pipeline import compile_spec
from chartc.stages.data.intervals import t_interval

scipy_stats = pytest.importorskip("scipy.stats")

TOLERANCE_PX = 1e-6
SIZE = 400  # px over the pinned domain [0, 40]: 10 px per unit


def cars() -> list[dict]:
    folder = Path(importlib.util.find_spec("vega_datasets").submodule_search_locations[0]) / "_data"
    return json.loads((folder / "cars.json").read_text(encoding="utf-8"))


def scipy_intervals(by: str, field: str = "Miles_per_Gallon") -> dict:
    """group -> (lower, upper), scipy's 95% t-interval of the group's mean (missing values left out)."""
    groups: dict = {}
    for row in cars():
        if row[field] is not None:
            groups.setdefault(row[by], []).append(row[field])
    return {key: scipy_stats.t.interval(0.95, len(values) - 1, loc=sum(values) / len(values),
                                        scale=scipy_stats.sem(values))
            for key, values in groups.items()}


def write(tmp_path: Path, spec: dict) -> Path:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def drawn(vega_lite: dict, marktype: str) -> list[dict]:
    """The items of every `marktype` mark Vega draws."""
    import vl_convert

    found = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("marktype") == marktype and node.get("role") == "mark":
                found.extend(node["items"])
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(vl_convert.vegalite_to_scenegraph(vega_lite))
    return found


PINNED = {"scale": {"domain": [0, 40]}}


@pytest.mark.slow
def test_each_error_bar_spans_the_t_interval_of_its_group(tmp_path):
    spec = {"data": {"dataset": "cars"}, "width": 300, "height": SIZE, "mark": {"type": "errorbar", "extent": "ci"},
            "encoding": {"x": {"field": "Origin", "type": "nominal"},
                         "y": {"field": "Miles_per_Gallon", "type": "quantitative", **PINNED}}}
    rules = sorted(drawn(compile_spec(write(tmp_path, spec)).vega_lite, "rule"), key=lambda item: item["x"])
    expected = scipy_intervals("Origin")
    assert len(rules) == len(expected) == 3
    for rule, origin in zip(rules, sorted(expected)):  # the band scale sorts the origins
        low, high = expected[origin]
        assert sorted((rule["y"], rule["y2"])) == pytest.approx([SIZE - 10 * high, SIZE - 10 * low], abs=TOLERANCE_PX)


@pytest.mark.slow
def test_a_horizontal_error_bar_and_small_groups(tmp_path):
    # Cylinders 3 and 5 have 4 and 3 cars: t with 3 and 2 degrees of freedom, far from the normal's 1.96.
    spec = {"data": {"dataset": "cars"}, "height": 300, "width": SIZE, "mark": {"type": "errorbar", "extent": "ci"},
            "encoding": {"y": {"field": "Cylinders", "type": "ordinal"},
                         "x": {"field": "Miles_per_Gallon", "type": "quantitative", **PINNED}}}
    rules = sorted(drawn(compile_spec(write(tmp_path, spec)).vega_lite, "rule"), key=lambda item: item["y"])
    expected = scipy_intervals("Cylinders")
    assert len(rules) == len(expected) == 5
    for rule, cylinders in zip(rules, sorted(expected)):
        low, high = expected[cylinders]
        assert sorted((rule["x"], rule["x2"])) == pytest.approx([10 * low, 10 * high], abs=TOLERANCE_PX)


@pytest.mark.slow
def test_an_error_band_is_drawn_through_each_groups_interval(tmp_path):
    spec = {"data": {"dataset": "cars"}, "width": 300, "height": SIZE, "mark": {"type": "errorband", "extent": "ci"},
            "encoding": {"x": {"field": "Cylinders", "type": "ordinal"},
                         "y": {"field": "Miles_per_Gallon", "type": "quantitative", **PINNED}}}
    points = sorted(drawn(compile_spec(write(tmp_path, spec)).vega_lite, "area"), key=lambda item: item["x"])
    expected = scipy_intervals("Cylinders")
    assert len(points) == len(expected)
    for point, cylinders in zip(points, sorted(expected)):
        low, high = expected[cylinders]
        assert sorted((point["y"], point["y2"])) == pytest.approx([SIZE - 10 * high, SIZE - 10 * low],
                                                                  abs=TOLERANCE_PX)


@pytest.mark.parametrize("values, level", [([1.0, 2.0], 0.95), ([3.5, -1.25, 7.0, 2.0, 2.0], 0.95),
                                           ([10.0, 11.5, 9.25, 30.0, 12.0, 8.0], 0.9)])
def test_the_interval_is_scipys(values, level):
    mean, low, high = t_interval(values, level)
    expected = scipy_stats.t.interval(level, len(values) - 1, loc=sum(values) / len(values),
                                      scale=scipy_stats.sem(values))
    assert (low, high) == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert mean == pytest.approx((low + high) / 2, rel=1e-15)


def test_one_number_has_no_interval():
    assert t_interval([4.0]) is None
    assert t_interval([]) is None


def test_the_drawn_rows_are_the_intervals_not_a_bootstrap(tmp_path):
    """The Vega-Lite carries the two ends per group and no `extent` for Vega-Lite to resample."""
    spec = {"data": {"dataset": "cars"}, "mark": {"type": "errorbar", "extent": "ci"},
            "encoding": {"x": {"field": "Origin", "type": "nominal"}, "y": {"field": "Miles_per_Gallon"}}}
    vega_lite = compile_spec(write(tmp_path, spec), full=False).vega_lite
    assert "extent" not in vega_lite["mark"]
    (rows,) = vega_lite["datasets"].values()
    expected = scipy_intervals("Origin")
    assert {row["Origin"] for row in rows} == set(expected)
    for row in rows:
        low, high = expected[row["Origin"]]
        assert row["Lower of Miles_per_Gallon"] == pytest.approx(low, rel=1e-12)
        assert row["Upper of Miles_per_Gallon"] == pytest.approx(high, rel=1e-12)


def test_a_ci_chartc_cannot_compute_is_refused_never_bootstrapped(tmp_path):
    spec = {"data": {"dataset": "cars"}, "mark": {"type": "errorbar", "extent": "ci"},
            "encoding": {"x": {"field": "Year", "type": "temporal"}, "y": {"field": "Miles_per_Gallon"}}}
    with pytest.raises(SpecError) as raised:
        compile_spec(write(tmp_path, spec), full=False)
    (error,) = raised.value.errors
    assert (error.message, error.hint, error.path) == (msg.extent_ci_unsupported(), msg.extent_ci_unsupported_hint(),
                                                      ("mark", "extent"))
