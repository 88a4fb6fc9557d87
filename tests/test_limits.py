"""Large data: the mark limit, ARIA labels off on large charts, trends that do not grow with the rows."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import numpy as np
import pytest

from chartc import errors as msg
from chartc.stages import limits
from chartc.errors import SpecError
from chartc.pipeline import check_spec, compile_spec

SCATTER = """\
title: Many points
data: {{path: data/points.csv}}
encoding:
  x: {{field: x}}
  y: {{field: y}}
layers:
{layers}"""


def write_points(folder: Path, n: int, seed: int = 3) -> None:
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 100, n)
    y = 3 + 0.5 * x + rng.normal(0, 8, n)
    (folder / "data").mkdir(parents=True, exist_ok=True)
    (folder / "data" / "points.csv").write_text(
        "x,y,g\n" + "".join(f"{a:.4f},{b:.4f},{'abc'[i % 3]}\n" for i, (a, b) in enumerate(zip(x, y))))


def write_spec(folder: Path, layers: str, n: int = 50, name: str = "chart.yaml") -> Path:
    write_points(folder, n)
    spec = folder / name
    spec.write_text(SCATTER.format(layers=layers))
    return spec


def test_too_many_marks_is_a_spec_error_at_the_mark(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_MARKS", 90)
    spec = write_spec(tmp_path, "  - mark: point\n  - mark: {type: tick}\n  - trend: {method: linear}\n")
    with pytest.raises(SpecError) as caught:
        compile_spec(spec)
    error = caught.value
    assert error.message == msg.too_many_marks(100, 90, 2)
    assert "100 marks over 2 layers, over the limit of 90" in error.message
    assert error.hint == msg.too_many_marks_hint()
    assert error.path == ("layers", 0, "mark")
    assert (error.location.line, error.location.column) == (7, 11)  # `point` in `- mark: point`
    assert error.diagnostic().startswith(f"{spec}:7:11: error[{msg.too_many_marks.code}]: layers[0].mark: the chart would draw 100 marks")


def test_a_layer_the_renderer_groups_by_a_time_unit_is_refused_for_the_rows_it_sends(tmp_path, monkeypatch):
    """Bars by day of the month coloured by day of the week over 100 daily rows written 2024/01/05: chartc
    reads them as text, which the renderer parses as dates and groups by those timeUnits, so their distinct days
    are counted, and the message says rows are sent, not that 100 bars are drawn. The same dates written as ISO
    dates are grouped by the engine (84 bars, under the limit); bars by month too: four rows, four bars."""
    monkeypatch.setattr(limits, "MAX_MARKS", 90)
    (tmp_path / "days.csv").write_text("day,v\n" + "".join(f"2024/{1 + i // 28:02d}/{1 + i % 28:02d},{i}\n"
                                                            for i in range(100)))
    spec = tmp_path / "chart.yaml"
    text = ("data: {path: days.csv}\nmark: bar\nencoding:\n  x: {field: day, timeUnit: date, type: ordinal}\n"
            "  y: {field: v, aggregate: mean}\n")
    spec.write_text(text + "  color: {field: day, timeUnit: day, type: nominal}\n")
    with pytest.raises(SpecError) as caught:
        compile_spec(spec)
    error = caught.value
    assert (error.code, error.message, error.hint) == (
        "E501", msg.too_many_rows_grouped_by_renderer(100, 90, "day"), msg.too_many_rows_grouped_by_renderer_hint("day"))
    assert error.message.startswith("the chart would send 100 rows to the renderer, which groups them by the timeUnit")
    monkeypatch.setattr(limits, "MAX_MARKS", 100)  # at the limit: drawn, 100 bars
    chart = compile_spec(spec).vega_lite
    assert sum(len(rows) for rows in chart["datasets"].values()) == 100
    monkeypatch.setattr(limits, "MAX_MARKS", 90)
    (tmp_path / "days.csv").write_text((tmp_path / "days.csv").read_text().replace("/", "-"))
    chart = compile_spec(spec).vega_lite
    pairs = {(1 + i % 28, datetime.date(2024, 1 + i // 28, 1 + i % 28).weekday()) for i in range(100)}
    assert sum(len(rows) for rows in chart["datasets"].values()) == len(pairs) == 84
    spec.write_text(text.replace("timeUnit: date", "timeUnit: month"))
    chart = compile_spec(spec).vega_lite
    months = [[i for i in range(100) if 1 + i // 28 == month] for month in (1, 2, 3, 4)]
    # Groups the engine made are counted: past the limit, the message is of the marks drawn, not of rows sent.
    monkeypatch.setattr(limits, "MAX_MARKS", 3)
    with pytest.raises(SpecError) as caught:
        compile_spec(spec)
    assert (caught.value.code, caught.value.message) == ("E501", msg.too_many_marks(4, 3, 1))
    monkeypatch.setattr(limits, "MAX_MARKS", 90)
    chart = compile_spec(spec).vega_lite
    assert [(row["day"], row["Mean of v"]) for rows in chart["datasets"].values() for row in rows] == [
        (f"2012-{month:02d}-01T00:00:00", sum(values) / len(values)) for month, values in zip((1, 2, 3, 4), months)]


def test_the_limit_itself_compiles(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_MARKS", 50)
    spec = write_spec(tmp_path, "  - mark: point\n  - trend: {method: loess}\n")  # trends do not count
    assert compile_spec(spec).vega_lite


def test_aggregates_count_their_groups_not_their_rows(tmp_path):
    spec_file = tmp_path / "bars.yaml"
    write_points(tmp_path, 300)
    spec_file.write_text("data: {path: data/points.csv}\nmark: bar\n"
                         "encoding:\n  x: {field: g}\n  y: {field: y, aggregate: mean}\n")
    spec, doc = check_spec(spec_file)
    from chartc.stages.data import flow_data, read_rows

    frame = read_rows(spec.data)
    assert limits.count_marks(spec, flow_data(spec, frame)) == [((), 3)]
    binned = tmp_path / "hist.yaml"
    binned.write_text("data: {path: data/points.csv}\nmark: bar\n"
                      "encoding:\n  x: {field: x, bin: {maxbins: 20}}\n  y: {aggregate: count}\n")
    spec, doc = check_spec(binned)
    assert limits.count_marks(spec, flow_data(spec, frame)) == [((), 20)]
    folded = tmp_path / "fold.yaml"
    folded.write_text("data: {path: data/points.csv}\ntransform: [{fold: [x, y]}]\nmark: point\n"
                      "encoding:\n  x: {field: key}\n  y: {field: value}\n")
    spec, doc = check_spec(folded)
    assert limits.count_marks(spec, flow_data(spec, frame)) == [((), 600)]


def test_the_documented_limits_are_measured_numbers():
    assert limits.MAX_MARKS == 200_000 and limits.ARIA_MARKS == 10_000
    assert "2·10⁵" in limits.__doc__ and "vl-convert#210" in limits.__doc__


def test_per_mark_aria_labels_are_off_above_the_threshold(tmp_path, monkeypatch):
    from chartc.render.export import render

    spec = write_spec(tmp_path, "  - mark: point\n")
    small = compile_spec(spec).vega_lite
    assert "aria" not in json.dumps(small.get("config", {}))
    assert 'aria-roledescription="point"' in render(small, "svg").decode()

    monkeypatch.setattr(limits, "ARIA_MARKS", 40)
    large = compile_spec(spec).vega_lite
    assert large["config"]["mark"]["aria"] is False
    svg = render(large, "svg").decode()
    assert 'aria-roledescription="point"' not in svg  # no label per point...
    assert 'aria-roledescription="axis"' in svg       # ...but the axes keep theirs


def test_a_spec_that_sets_aria_keeps_it(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "ARIA_MARKS", 40)
    spec = write_spec(tmp_path, "  - mark: point\n")
    spec.write_text(spec.read_text() + "config: {mark: {aria: true}}\n")
    assert compile_spec(spec).vega_lite["config"]["mark"]["aria"] is True


@pytest.mark.parametrize("layers", [
    "  - trend: {method: linear}\n",
    "  - trend: {method: linear, band: 0.95}\n",
    "  - trend: {method: loess}\n",
    "  - trend: {method: moving-average, window: 20}\n",
], ids=["linear", "band", "loess", "moving-average"])
def test_a_trend_carries_no_raw_rows(tmp_path, layers, monkeypatch):
    from chartc.trends import fitting as trend

    monkeypatch.setattr(trend, "MAX_CURVE_POINTS", 100)  # thin smoothers at 100 points, not 2,000
    sizes = []
    for n in (300, 3000):
        spec = write_spec(tmp_path / str(n), layers, n=n)
        vega_lite = compile_spec(spec).vega_lite
        rows = [len(v) for v in vega_lite.get("datasets", {}).values()]
        assert max(rows) <= 101, rows  # the curve's samples (smoothers thinned), never the data's rows
        sizes.append(len(json.dumps({k: v for k, v in vega_lite.items() if k != "usermeta"})))
    assert abs(sizes[0] - sizes[1]) < 0.05 * sizes[0], sizes  # independent of N (only the numbers differ)


def test_a_facet_with_too_many_panels_is_refused(tmp_path):
    from chartc import SpecError, compile_spec
    from chartc import errors as msg
    from chartc.stages.limits import MAX_FACET_PANELS

    rows = "\n".join(f"k{i},{i}" for i in range(MAX_FACET_PANELS + 1))
    (tmp_path / "rows.csv").write_text("k,v\n" + rows + "\n")
    spec = tmp_path / "facets.yaml"
    spec.write_text("data: {path: rows.csv}\nmark: point\nencoding: {x: v}\nfacet:\n  column: k\n")
    with pytest.raises(SpecError) as caught:
        compile_spec(spec)
    error = caught.value
    assert error.message == msg.too_many_panels(MAX_FACET_PANELS + 1, MAX_FACET_PANELS)
    assert error.path == ("facet",) and (error.location.line, error.location.column) == (4, 1)


def test_a_facet_by_time_unit_counts_its_panels_not_its_dates(tmp_path):
    """1,461 days are 4 yearly panels: the panel limit must not refuse them."""
    from chartc import compile_spec

    spec = tmp_path / "years.yaml"
    spec.write_text("data: {dataset: seattle-weather}\nmark: point\nencoding: {x: temp_min, y: temp_max}\n"
                    "facet:\n  column: {field: date, timeUnit: year}\n")
    vega_lite = compile_spec(spec).vega_lite
    assert vega_lite["facet"]["column"]["timeUnit"] == "year"
