"""Box plots computed in the engine: the rows Vega-Lite gets draw the same boxes, whiskers and outliers.

Each chart is compiled twice (`test_evaluated.both_forms`): the engine's
stand-in rows, and the rows read for Vega-Lite to aggregate itself; the two
SVGs must be byte-identical, over generated data with several groups, ties,
missing values, a group of missing values only, outliers on one side or both,
and tiny groups whose whisker lies inside the box. The quartiles are also
checked against an independent type-7 computation (numpy's ``method="linear"``
within 1e-12, Vega's own in the SVG), and the Vega-Lite's size against the
rows read.
"""

from __future__ import annotations

import json
import random

import numpy
import pytest
from test_evaluated import both_forms, svg_of

from chartc.pipeline import compile_spec
from chartc.stages.data.vega import quantile_sorted


def generated(seed: int, groups: int = 4, rows: int = 300) -> list[dict]:
    """Rows over `groups` categories: normal values rounded (ties), missing ones, far outliers, a null group."""
    rng = random.Random(seed)
    out = []
    for index in range(rows):
        group = f"g{rng.randrange(groups)}"
        roll = rng.random()
        if roll < 0.05:
            value = None
        elif roll < 0.10:
            value = rng.choice([-1, 1]) * rng.uniform(30, 80)
        else:
            value = round(rng.gauss(rng.choice([0, 3]), 4), 1)
        out.append({"g": group, "c": "ab"[index % 2], "v": value})
    out.append({"g": "empty", "c": "a", "v": None})
    # A short group whose lower whisker is inside its box: q1 = 75, the fence 35.6, the whisker 100.
    out.extend({"g": "short", "c": "b", "v": value} for value in (0, 100, 101, 102))
    out.append({"g": "low", "c": "a", "v": -5})  # a group of one
    return out


def write(tmp_path, rows: list[dict], mark: dict, encoding: dict, **more):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({"data": {"values": rows}, "mark": mark, "encoding": encoding, **more}))
    return path


CASES = {
    "default": ({"type": "boxplot"}, {"x": {"field": "g", "type": "nominal"}, "y": {"field": "v"}}),
    "min-max": ({"type": "boxplot", "extent": "min-max"},
                {"x": {"field": "g", "type": "nominal"}, "y": {"field": "v"}}),
    "narrow": ({"type": "boxplot", "extent": 0.5},
               {"y": {"field": "g", "type": "nominal"}, "x": {"field": "v"}}),
    "coloured": ({"type": "boxplot"}, {"x": {"field": "g", "type": "nominal"}, "y": {"field": "v"},
                                       "color": {"field": "c", "type": "nominal"}}),
    "one box": ({"type": "boxplot"}, {"y": {"field": "v"}}),
}


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("case", list(CASES))
def test_the_engine_box_plot_draws_the_svg_vega_lite_draws_from_every_row(tmp_path, monkeypatch, case, seed):
    mark, encoding = CASES[case]
    spec = write(tmp_path, generated(seed), mark, encoding)
    evaluated, raw = both_forms(monkeypatch, lambda: compile_spec(spec))
    assert evaluated != raw  # the engine's rows, not the rows read
    assert svg_of(evaluated) == svg_of(raw)


@pytest.mark.slow
def test_a_faceted_box_plot_draws_the_same_svg(tmp_path, monkeypatch):
    spec = write(tmp_path, generated(7), {"type": "boxplot"},
                 {"x": {"field": "g", "type": "nominal"}, "y": {"field": "v"}},
                 facet={"column": {"field": "c", "type": "nominal"}})
    evaluated, raw = both_forms(monkeypatch, lambda: compile_spec(spec))
    assert svg_of(evaluated) == svg_of(raw)


def test_quantile_sorted_is_type_7():
    rng = numpy.random.default_rng(5)
    for size in (1, 2, 3, 4, 5, 10, 101):
        values = sorted(rng.normal(size=size).tolist())
        for p in (0.25, 0.5, 0.75):
            assert quantile_sorted(values, p) == pytest.approx(numpy.quantile(values, p, method="linear"),
                                                               abs=1e-12)


def test_the_vega_lite_of_a_box_plot_grows_with_its_outliers_not_its_rows(tmp_path):
    """10⁴ rows in 3 groups, 60 far outliers planted: the outliers are the real rows, and the rows the
    Vega-Lite carries are at most 4 per outlier plus 5 per group (numpy counts the outliers)."""
    rng = numpy.random.default_rng(11)
    rows = [{"g": f"g{i % 3}", "v": float(value)} for i, value in enumerate(rng.normal(size=10_000))]
    for index in range(60):
        rows[index * 97]["v"] = 50.0 + index
    spec = write(tmp_path, rows, {"type": "boxplot"}, {"x": {"field": "g", "type": "nominal"}, "y": {"field": "v"}})
    vega_lite = compile_spec(spec).vega_lite
    values = vega_lite["data"]["values"] if "values" in vega_lite["data"] else vega_lite["datasets"][
        vega_lite["data"]["name"]]
    outliers = []
    for group in ("g0", "g1", "g2"):
        numbers = numpy.array([row["v"] for row in rows if row["g"] == group])
        q1, q3 = numpy.quantile(numbers, [0.25, 0.75], method="linear")
        outside = numbers[(numbers < q1 - 1.5 * (q3 - q1)) | (numbers > q3 + 1.5 * (q3 - q1))]
        outliers.extend(outside.tolist())
        mine = sorted(row["v"] for row in values if row["g"] == group)
        assert [quantile_sorted(mine, p) for p in (0.25, 0.5, 0.75)] == pytest.approx(
            numpy.quantile(numbers, [0.25, 0.5, 0.75], method="linear"), abs=1e-12)
    assert 60 < len(outliers) < 200
    assert len(values) <= 4 * (len(outliers) + 3) + 3
    assert sorted(row["v"] for row in values if row["v"] >= 50) == [50.0 + index for index in range(60)]
