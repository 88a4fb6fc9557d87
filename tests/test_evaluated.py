"""The Vega-Lite carries each layer's rows with its transforms done by the data stage, and draws what it drew before.

Before, every layer carried the rows read and its transforms, and Vega
evaluated them again in the renderer. `translate_chart(..., evaluated=False)`
still writes that form (the engine tests compare the engine with Vega through
it); here it is the reference the evaluated form must draw exactly alike.
"""

from __future__ import annotations

import datetime
import json
import re
from collections import Counter

import pytest
from conftest import ROOT, compile_text, example_specs, scene_nodes

CORPUS = sorted((ROOT / "tests" / "corpus").glob("*.yaml"))


def both_forms(monkeypatch, compile_it):
    """The chart compiled twice: each layer's computed rows, and the rows read with every transform."""
    import chartc.stages.translate as translate

    evaluated = compile_it().vega_lite
    original = translate.translate_chart
    monkeypatch.setattr(translate, "translate_chart",
                        lambda chart, data, fits, **kwargs: original(chart, data, fits, evaluated=False))
    raw = compile_it().vega_lite
    monkeypatch.setattr(translate, "translate_chart", original)
    return evaluated, raw


def svg_of(vega_lite: dict) -> str:
    """The SVG the renderer draws, its element ids made position-free.

    vl-convert numbers clip paths and gradients per process (`clip12`), so the
    same chart rendered later in a process has other ids: that is the one
    difference set aside.
    """
    from chartc.render.export import use_utc

    use_utc()
    import vl_convert

    return re.sub(r"\b(clip|gradient_|pattern_)\d+", r"\1N", vl_convert.vegalite_to_svg(vega_lite))


def transforms_in(node) -> list:
    """Every ``transform`` list anywhere in a Vega-Lite spec."""
    if isinstance(node, dict):
        return ([node["transform"]] if "transform" in node else []) + [
            found for key, value in node.items() if key != "datasets" for found in transforms_in(value)]
    if isinstance(node, list):
        return [found for value in node for found in transforms_in(value)]
    return []


@pytest.mark.slow
@pytest.mark.parametrize("spec_file", example_specs() + CORPUS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_gallery_and_corpus_chart_draws_the_same_svg_from_its_computed_rows(spec_file, monkeypatch):
    from chartc.pipeline import compile_spec

    if re.search(r"\bextent: ci\b", spec_file.read_text(encoding="utf-8")):
        pytest.skip("extent: ci has no form Vega evaluates: Vega-Lite's own ci is a random bootstrap")
    if re.search(r"\bdensity:", spec_file.read_text(encoding="utf-8")):
        pytest.skip("a density raster has no form Vega evaluates (tests/test_density.py checks its counts)")
    evaluated, raw = both_forms(monkeypatch, lambda: compile_spec(spec_file))
    if evaluated == raw:  # no transform: the rows read are the rows drawn, emitted as before
        return
    text = spec_file.read_text(encoding="utf-8")
    if re.search(r"\baggregate: \{arg(min|max):", text) or re.search(r"timeUnit.*type: ordinal", text):
        # Vega-Lite's own ARIA label of an encoding's argmax reads the field outside the picked row
        # ("variety: undefined"), and that of an ordinal time unit reads the date the aggregate left out
        # ("date (month): undefined"); the computed rows label them with the value they hold. The rest is alike.
        assert ": undefined" in svg_of(raw) and ": undefined" not in svg_of(evaluated)
        assert without_aria_labels(svg_of(evaluated)) == without_aria_labels(svg_of(raw))
        return
    assert svg_of(evaluated) == svg_of(raw)


def without_aria_labels(svg: str) -> str:
    return re.sub(r' aria-label="[^"]*"', "", svg)


def test_a_chart_level_aggregate_is_emitted_as_its_rows_once_not_as_a_transform():
    """barley_rule: the bars and labels share one data set of the aggregate's rows; the rule, the mean of them."""
    from chartc.pipeline import compile_spec

    vega_lite = compile_spec(ROOT / "specs" / "barley_rule.yaml").vega_lite
    assert transforms_in(vega_lite) == []
    bars, labels, rule = (vega_lite_rows(vega_lite, view["data"]) for view in vega_lite["layer"])
    assert bars is labels and len(vega_lite["datasets"]) == 2
    rows = bars
    # The means of an independent computation, per site, in the order of each site's first row.
    from chartc.stages.data import load_dataset

    barley = load_dataset("barley")
    sums: dict = {}
    for site, value in zip(barley["site"], barley["yield"]):
        total, count = sums.get(site, (0.0, 0))
        sums[site] = (total + value, count + 1)
    assert [row["site"] for row in rows] == list(sums)
    assert [row["mean_yield"] for row in rows] == pytest.approx([t / c for t, c in sums.values()], rel=1e-12)
    assert set(rows[0]) == {"site", "mean_yield"}
    means = [row["mean_yield"] for row in rows]
    assert rule == [{"Mean of mean_yield": pytest.approx(sum(means) / len(means), rel=1e-12)}]
    assert vega_lite["layer"][2]["encoding"]["x"] == {"field": "Mean of mean_yield", "type": "quantitative",
                                                      "stack": None}


def test_layers_with_different_rows_each_carry_their_own_and_draw_them(tmp_path, monkeypatch):
    text = """\
        data: {values: [{a: 1, b: 2, c: x}, {a: 2, b: 5, c: y}, {a: 3, b: 1, c: x}, {a: 4, b: 7, c: y}]}
        encoding: {x: {field: a, type: quantitative}, y: {field: b, type: quantitative}}
        layers:
          - mark: point
            transform: [{filter: "datum.b > 1"}]
          - mark: line
            transform: [{calculate: "datum.b * 2", as: b2}]
            encoding: {y: {field: b2, type: quantitative}}
        """
    evaluated, raw = both_forms(monkeypatch, lambda: compile_text(tmp_path, text))
    assert transforms_in(evaluated) == []
    assert "data" not in evaluated
    first, second = (vega_lite_rows(evaluated, view["data"]) for view in evaluated["layer"])
    assert first == [{"a": 1, "b": 2}, {"a": 2, "b": 5}, {"a": 4, "b": 7}]
    assert [row["b2"] for row in second] == [4, 10, 2, 14]
    assert svg_of(evaluated) == svg_of(raw)
    import vl_convert

    points = scene_nodes(vl_convert.vegalite_to_scenegraph(evaluated), "symbol", role="mark")
    assert sum(len(node["items"]) for node in points) == 3


def vega_lite_rows(vega_lite: dict, data: dict) -> list:
    return vega_lite["datasets"][data["name"]] if "name" in data else data["values"]


def test_a_facet_over_layers_with_different_rows_tags_them_and_draws_each_panel_alike(tmp_path, monkeypatch):
    """Vega-Lite facets only the top-level data: each layer's rows join it tagged, each view filters its tag."""
    from chartc.stages.translate import PART_FIELD

    text = """\
        data: {values: [{a: 1, b: 2, g: p}, {a: 2, b: 5, g: q}, {a: 3, b: 1, g: p}, {a: 4, b: 7, g: q}]}
        facet: {column: {field: g}}
        encoding: {x: {field: a, type: quantitative}, y: {field: b, type: quantitative}}
        layers:
          - mark: point
            transform: [{filter: "datum.b > 1"}]
          - mark: line
        """
    evaluated, raw = both_forms(monkeypatch, lambda: compile_text(tmp_path, text))
    rows = vega_lite_rows(evaluated, evaluated["data"])
    assert sorted(row[PART_FIELD] for row in rows) == ["rows 0"] * 3 + ["rows 1"] * 4
    assert [view["transform"][0]["filter"] for view in evaluated["spec"]["layer"]] == [
        f'datum["{PART_FIELD}"] === "rows 0"', f'datum["{PART_FIELD}"] === "rows 1"']
    assert svg_of(evaluated) == svg_of(raw)


def test_a_chart_without_transforms_emits_the_rows_read_as_before(tmp_path, monkeypatch):
    text = "data: {values: [{a: 1, b: 2}, {a: 2, b: 5}]}\nmark: point\nencoding: {x: a, y: b}\n"
    evaluated, raw = both_forms(monkeypatch, lambda: compile_text(tmp_path, text))
    assert evaluated == raw


def test_a_sampled_chart_draws_the_sample_through_its_transforms(tmp_path):
    values = json.dumps([{"a": i, "b": i % 7} for i in range(200)])
    compiled = compile_text(tmp_path, f"""\
        data: {{values: {values}, sample: 20}}
        transform: [{{calculate: "datum.a * 10", as: a10}}]
        mark: point
        encoding: {{x: {{field: a10, type: quantitative}}, y: {{field: b, type: quantitative}}}}
        """)
    rows = vega_lite_rows(compiled.vega_lite, compiled.vega_lite["data"])
    drawn = compiled.flow.drawn
    assert len(rows) == len(drawn) == 20
    assert [row["a10"] for row in rows] == [10 * a for a in drawn["a"]]
    assert len(compiled.flow.layers[0].table) == 200  # the checks and fits see every row


def test_the_origin_of_a_layers_computed_rows_and_its_channels_is_still_the_spec(tmp_path):
    from chartc.pipeline import check_spec
    from chartc.stages.data import flow_data, read_rows
    from chartc.stages.translate import translate_chart

    path = tmp_path / "origins.yaml"
    path.write_text("data: {values: [{a: 1, b: 2}, {a: 3, b: 4}]}\nlayers:\n"
                    "  - mark: point\n    transform: [{filter: 'datum.a > 1'}]\n    encoding: {x: a, y: b}\n"
                    "  - mark: line\n    encoding: {x: a, y: b}\n")
    chart, _ = check_spec(path)
    translation = translate_chart(chart, flow_data(chart, read_rows(chart.data)), {})
    assert "data" in translation.vega_lite["layer"][0] and transforms_in(translation.vega_lite) == []

    def spec_path_for(vl_path):
        node, child = translation.origins.place(vl_path)
        return node.at(*child)

    assert spec_path_for(("layer", 0, "data")) == ("data",)
    assert spec_path_for(("layer", 0, "encoding", "x", "field")) == ("layers", 0, "encoding", "x")  # `x: a`


# ------------------------------------------------------------------ encodings aggregated by the engine

def vega_edges(values, maxbins: int) -> list[float]:
    """Vega's bin edges for the values, from its algorithm as written in vega-statistics (independent of chartc's)."""
    import math

    low, high = min(values), max(values)
    span = high - low
    step = 10 ** (math.floor(math.log10(span) + 0.5) - math.ceil(math.log10(maxbins)))
    while math.ceil(span / step) > maxbins:
        step *= 10
    for divisor in (5, 2):
        if span / (step / divisor) <= maxbins:
            step /= divisor
    start = math.floor(low / step) * step
    stop = math.ceil(high / step) * step
    return [start + i * step for i in range(round((stop - start) / step) + 1)]


def write_csv(path, columns: dict) -> None:
    names = list(columns)
    lines = [",".join(names)] + [",".join(repr(float(v)) for v in row) for row in zip(*columns.values())]
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.slow
def test_a_histogram_of_many_rows_carries_one_row_per_bin_counted_as_numpy_counts(tmp_path):
    numpy = pytest.importorskip("numpy")
    from chartc.pipeline import compile_spec

    values = numpy.random.default_rng(7).normal(50, 12, 300_000).round(3)
    write_csv(tmp_path / "rows.csv", {"v": values})
    (tmp_path / "chart.yaml").write_text("data: {path: rows.csv}\nmark: bar\n"
                                         "encoding:\n  x: {field: v, bin: {maxbins: 30}}\n  y: {aggregate: count}\n")
    vega_lite = compile_spec(tmp_path / "chart.yaml").vega_lite
    [rows] = vega_lite["datasets"].values()
    edges = vega_edges(values, 30)
    counts, _ = numpy.histogram(values, bins=edges)
    by_start = {row["v (binned)"]: row["Count of Records"] for row in rows}
    assert sorted(by_start) == pytest.approx(edges[:-1]) and sum(by_start.values()) == len(values)
    assert [by_start[start] for start in sorted(by_start)] == counts.tolist()
    assert vega_lite["encoding"]["x"]["bin"] == {"binned": True, "step": edges[1] - edges[0]}
    assert vega_lite["encoding"]["x"]["scale"] == {"domain": [edges[0], edges[-1]], "zero": False}
    assert vega_lite["encoding"]["x2"] == {"field": "v (binned)_end", "title": "v (binned)"}
    assert len(json.dumps(vega_lite)) < 10_000  # the marks' size, not the rows'


def test_a_binned_heatmap_draws_the_cells_vega_lite_drew_from_every_row(tmp_path, monkeypatch):
    """Bin on x and y, a count as colour: the density a scatter too large to draw is refused for (E501's hint)."""
    numpy = pytest.importorskip("numpy")
    rng = numpy.random.default_rng(3)
    x, y = rng.normal(0, 1, 3000).round(4), rng.gamma(2, 2, 3000).round(4)
    write_csv(tmp_path / "rows.csv", {"x": x, "y": y})
    text = """\
        data: {path: rows.csv}
        mark: rect
        encoding:
          x: {field: x, bin: {maxbins: 20}}
          y: {field: y, bin: {maxbins: 15}}
          color: {aggregate: count}
        """
    evaluated, raw = both_forms(monkeypatch, lambda: compile_text(tmp_path, text))
    rows = vega_lite_rows(evaluated, evaluated["data"])
    counts, _, _ = numpy.histogram2d(x, y, bins=[vega_edges(x, 20), vega_edges(y, 15)])
    assert sorted(row["Count of Records"] for row in rows) == sorted(c for c in counts.ravel().tolist() if c)
    assert svg_of(evaluated) == svg_of(raw)


def test_a_bar_of_means_by_category_is_computed_once_and_drawn_alike(tmp_path, monkeypatch):
    text = """\
        data: {values: [{g: a, v: 1}, {g: b, v: 4}, {g: a, v: 2}, {g: b, v: null}, {g: c, v: 0.1}, {g: c, v: 0.2}]}
        mark: bar
        encoding:
          x: {field: g}
          y: {field: v, aggregate: mean}
          tooltip: [{field: v, aggregate: sum}, {field: g}]
        """
    evaluated, raw = both_forms(monkeypatch, lambda: compile_text(tmp_path, text))
    assert vega_lite_rows(evaluated, evaluated["data"]) == [
        {"g": "a", "Mean of v": 1.5, "Sum of v": 3.0}, {"g": "b", "Mean of v": 4.0, "Sum of v": 4.0},
        {"g": "c", "Mean of v": (0.1 + 0.2) / 2, "Sum of v": 0.1 + 0.2}]
    assert evaluated["encoding"]["y"] == {"field": "Mean of v", "type": "quantitative", "stack": None}
    assert svg_of(evaluated) == svg_of(raw)


def test_a_bin_alone_stays_vega_lites_to_compute_and_a_box_plot_draws_alike(tmp_path, monkeypatch):
    """A bin without an aggregate bins each row (no groups); a box plot's statistics come from the engine
    (tests/test_boxes.py), as the few rows per group that Vega-Lite's composite mark turns back into them."""
    for mark, encoding in (("point", "{x: {field: v, bin: true}, y: {field: w}}"),
                           ("boxplot", "{x: {field: g}, y: {field: v}}")):
        text = (f"data: {{values: [{{g: a, v: 1, w: 2}}, {{g: b, v: 3, w: 4}}]}}\nmark: {mark}\n"
                f"encoding: {encoding}\n")
        evaluated, raw = both_forms(monkeypatch, lambda text=text: compile_text(tmp_path, text))
        if mark == "point":
            assert evaluated == raw
        else:
            assert vega_lite_rows(evaluated, evaluated["data"]) == [{"g": "a", "v": 1.0}] * 5 + [{"g": "b", "v": 3.0}] * 5
            assert svg_of(evaluated) == svg_of(raw)


def test_bins_grouped_by_their_index_keep_vegas_groups_nulls_and_starts_that_meet(tmp_path, monkeypatch):
    """The engine groups a bin by its index and computes its start and end from it (`sql._Chain.bin`): the
    same groups, in the order of their first rows, a null in a group of its own; where a step is below the
    start's precision two indexes may give one start (1e16 + 0.2 is 1e16): there the bins' starts group the rows.
    The rows are those computed before the bins were grouped by their index; Vega draws the same."""
    text = """\
        data: {values: [{a: 1, b: 1e16}, {a: 9.9, b: 10000000000000002}, {a: null, b: 1e16},
                        {a: 2.5, b: 10000000000000004}, {a: 7, b: 1e16}, {a: 1.2, b: null}, {a: 9.5, b: 1e16},
                        {a: 1.5, b: 1e16}, {a: 1.9, b: null}]}
        mark: rect
        encoding:
          x: {field: a, bin: {maxbins: 10}}
          y: {field: b, bin: {maxbins: 20}}
          color: {aggregate: count}
        """
    evaluated, raw = both_forms(monkeypatch, lambda: compile_text(tmp_path, text))
    rows = vega_lite_rows(evaluated, evaluated["data"])
    big, next_big, far = 1e16, 1e16 + 2, 1e16 + 4
    assert [(row["a (binned)"], row["a (binned)_end"], row["b (binned)"], row["b (binned)_end"],
             row["Count of Records"]) for row in rows] == [
        (1.0, 2.0, big, big, 2.0), (9.0, 10.0, next_big, next_big, 1.0), (None, None, big, big, 1.0),
        (2.0, 3.0, far, far, 1.0), (7.0, 8.0, big, big, 1.0), (1.0, 2.0, None, None, 2.0), (9.0, 10.0, big, big, 1.0)]
    assert svg_of(evaluated) == svg_of(raw)


# ------------------------------------------------------------------ time units grouped by the engine

# Every unit the engine floors, as the parts of a date each keeps (written out here from vega-time's `floor`).
FLOORED_UNITS = {"year": "y", "quarter": "q", "month": "m", "date": "d", "hours": "H", "minutes": "M",
                 "seconds": "S", "yearquarter": "yq", "yearmonth": "ym", "yearmonthdate": "ymd",
                 "yearmonthdatehours": "ymdH", "monthdate": "md", "hoursminutes": "HM", "hoursminutesseconds": "HMS",
                 "day": "w", "week": "W", "dayofyear": "j", "milliseconds": "L"}


def test_the_engine_floors_every_time_unit_of_the_chart_schema():
    """`encoded.TIME_UNITS` is written by hand: each unit the schema allows (a `utc` one floors as its own) is in
    it, and in this test's floors, so no unit reaches the renderer unnoticed."""
    from chartc.stages.data.encoded import TIME_UNITS

    schema = json.loads((ROOT / "schemas" / "chart.schema.json").read_text(encoding="utf-8"))
    units = {unit.removeprefix("utc") for unit in schema["$defs"]["channel"]["properties"]["timeUnit"]["enum"]}
    assert units == set(TIME_UNITS) == set(FLOORED_UNITS) and len(units) == 18


def vega_floor(date, parts: str):
    """vega-time's ``timeFloor`` of a date: the parts kept, the others 2012, January (or the quarter's first
    month), the 1st, midnight. A day of the week (w) is that day of the year's second week, counted from its 1st's
    weekday, in the month kept; a week (W) that week's Sunday, from the Sundays since the 1st of January; a day of
    the year (j) that day of the year kept. Counted by walking the calendar, as d3-time counts."""

    def sunday_based(day) -> int:
        return (day.weekday() + 1) % 7

    year = date.year if "y" in parts else 2012
    month = date.month if "m" in parts else 3 * ((date.month - 1) // 3) + 1 if "q" in parts else 1
    january_first = datetime.date(date.year, 1, 1)
    day_of_year = (date.date() - january_first).days + 1
    first = sunday_based(datetime.date(year, 1, 1))
    if "W" in parts:
        week = sum(sunday_based(january_first + datetime.timedelta(days=k)) == 0 for k in range(day_of_year))
        day = (sunday_based(date) if "w" in parts else 0) + 7 * week - (first + 6) % 7
    elif "w" in parts:
        day = sunday_based(date) + 7 - (first + 6) % 7
    else:
        day = date.day if "d" in parts else day_of_year if "j" in parts else 1
    return datetime.datetime(year, month, 1, date.hour if "H" in parts else 0, date.minute if "M" in parts else 0,
                             date.second if "S" in parts else 0) + datetime.timedelta(
        days=day - 1, microseconds=1000 * (date.microsecond // 1000) if "L" in parts else 0)


def held_dates(drawn: list) -> list:
    """The date each group's row holds (field `at`), as a datetime; None where missing."""
    return [None if row["at"] is None else datetime.datetime.fromisoformat(row["at"]) for row in drawn]


@pytest.fixture(scope="module")
def dated_rows(tmp_path_factory):
    """800 rows over 30 months, a time of day to the second, a category, a value; every 40th date missing."""
    import random

    rng = random.Random(7)
    folder = tmp_path_factory.mktemp("dated")
    start = datetime.datetime(2019, 11, 5, 6, 30, 0)
    rows = []
    for index in range(800):
        date = start + datetime.timedelta(seconds=rng.randrange(0, 30 * 30 * 86400) // 7 * 7)
        rows.append((None if index % 40 == 17 else date, rng.choice("abc"), round(rng.uniform(-5, 20), 2)))
    lines = ["at,kind,v"] + [f"{'' if at is None else at.isoformat()},{kind},{v}" for at, kind, v in rows]
    (folder / "dated.csv").write_text("\n".join(lines) + "\n")
    return folder, rows


@pytest.mark.slow
@pytest.mark.parametrize("unit", [*FLOORED_UNITS, "utcyearmonth", "utchoursminutes", "utcday", "utcweek"])
def test_a_time_unit_is_grouped_by_the_engine_as_vega_floors_it_and_drawn_alike(unit, dated_rows, monkeypatch):
    """Counts per floored date and category, one row per group (a missing date a group of its own, as Vega
    keeps it null), each count checked against the dates floored here; the SVG is Vega-Lite's own aggregate's."""
    folder, rows = dated_rows
    text = f"""\
        data: {{path: dated.csv}}
        mark: bar
        encoding:
          x: {{field: at, timeUnit: {unit}}}
          y: {{aggregate: count}}
          color: {{field: kind}}
        """
    evaluated, raw = both_forms(monkeypatch, lambda: compile_text(folder, text))
    drawn = vega_lite_rows(evaluated, evaluated["data"])
    parts = FLOORED_UNITS[unit.removeprefix("utc")]
    expected = Counter((None if at is None else vega_floor(at, parts), kind) for at, kind, _ in rows)
    # Each group's date is floored by Vega-Lite again: to the floor of each of the group's rows.
    assert {(at and vega_floor(at, parts), row["kind"]): row["Count of Records"]
            for at, row in zip(held_dates(drawn), drawn)} == expected
    assert len(drawn) == len(expected)
    assert evaluated["encoding"]["x"] == {"field": "at", "timeUnit": unit, "type": "temporal"}
    assert svg_of(evaluated) == svg_of(raw)


def test_time_units_of_one_date_on_two_channels_and_a_facet_group_by_their_common_floor(dated_rows, monkeypatch):
    """A heatmap of day of month by month, a tooltip of both, faceted by year: one row per (year, month, day)
    whose date every unit reads alike; a measure two channels draw is computed once."""
    folder, rows = dated_rows
    text = """\
        data: {path: dated.csv}
        mark: rect
        facet: {row: {field: at, timeUnit: year}}
        encoding:
          x: {field: at, timeUnit: date, type: ordinal}
          y: {field: at, timeUnit: month, type: ordinal}
          color: {field: v, aggregate: max}
          tooltip: [{field: at, timeUnit: monthdate}, {field: v, aggregate: max}]
        """
    evaluated, raw = both_forms(monkeypatch, lambda: compile_text(folder, text))
    drawn = vega_lite_rows(evaluated, evaluated["data"])
    highs: dict = {}
    for at, _, v in rows:
        key = None if at is None else vega_floor(at, "ymd").isoformat()
        highs[key] = max(highs.get(key, v), v)
    assert {row["at"]: row["Max of v"] for row in drawn} == highs
    assert without_aria_labels(svg_of(evaluated)) == without_aria_labels(svg_of(raw))


def test_a_punch_card_of_weekdays_by_hours_groups_by_both(dated_rows, monkeypatch):
    """Days of the week by hours of the day: the rows grouped by both (a day of 2012's first week, at that hour),
    which each unit reads alike. Weekdays by month, and weeks by weekday, group by both too: one date stands for
    each pair (a weekday's first in the month; the day of the week in 2012, or 2018 for week 0). A weekday beside a
    day of the month has no such built date: each group's first row stands for it."""
    folder, rows = dated_rows
    text = """\
        data: {path: dated.csv}
        mark: rect
        encoding:
          x: {field: at, timeUnit: hours, type: ordinal}
          y: {field: at, timeUnit: day, type: ordinal}
          color: {aggregate: count}
        """
    for unit, parts in (("hours", "H"), ("month", "m"), ("week", "W"), ("yearmonth", "ym"), ("date", "d")):
        paired = text.replace("timeUnit: hours", f"timeUnit: {unit}")
        evaluated, raw = both_forms(monkeypatch, lambda paired=paired: compile_text(folder, paired))
        drawn = vega_lite_rows(evaluated, evaluated["data"])
        expected = Counter(None if at is None else (vega_floor(at, parts), vega_floor(at, "w")) for at, _, _ in rows)
        held = held_dates(drawn)
        assert Counter({None if at is None else (vega_floor(at, parts), vega_floor(at, "w")): row["Count of Records"]
                        for at, row in zip(held, drawn)}) == expected, unit
        assert len(drawn) == len(expected)
        assert without_aria_labels(svg_of(evaluated)) == without_aria_labels(svg_of(raw))
        if unit == "date":  # the group's first row, as read
            firsts = {}
            for at, _, _ in rows:
                firsts.setdefault(None if at is None else (at.day, vega_floor(at, "w")), at)
            assert held == [firsts[None if at is None else (at.day, vega_floor(at, "w"))] for at in held]


@pytest.mark.parametrize("units, parts", [(("quarter", "date"), "qd"), (("month", "week"), "mW"),
                                          (("month", "dayofyear"), "mj"), (("yearquarter", "date"), "yqd")])
def test_parts_no_built_date_holds_are_held_by_the_groups_first_row(units, parts, tmp_path, monkeypatch):
    """No built date holds a quarter and a day of the month without its month (the 31st of the second quarter is
    in May, vega-time's floor puts it in April): before, the engine built 2012-04-31 and the compile failed. A
    week or a day of the year beside a month likewise: each group's date is its first row's, and draws alike."""
    dates = ["2020-05-31", "2020-04-30", "2021-05-31", "2020-01-31", "2020-01-05", "2021-04-30", "2019-12-31",
             "2020-12-31", "2020-03-01", "2021-02-28", "", "2020-01-01T10:00:00", "2019-01-01", "2020-02-29"]
    (tmp_path / "d.csv").write_text("at,v\n" + "".join(f"{at},{i}\n" for i, at in enumerate(dates)))
    text = (f"data: {{path: d.csv}}\nmark: rect\nencoding:\n  x: {{field: at, timeUnit: {units[0]}, type: ordinal}}\n"
            f"  y: {{field: at, timeUnit: {units[1]}, type: ordinal}}\n  color: {{aggregate: count}}\n")
    evaluated, raw = both_forms(monkeypatch, lambda: compile_text(tmp_path, text))
    drawn = vega_lite_rows(evaluated, evaluated["data"])
    read = [datetime.datetime.fromisoformat(at) if at else None for at in dates]
    firsts: dict = {}
    counts = Counter(None if at is None else vega_floor(at, parts) for at in read)
    for at in read:
        firsts.setdefault(None if at is None else vega_floor(at, parts), at)
    # built floors collide where the parts differ (2012-04-31 is 1 May): the groups are the parts' own
    assert len({at and (at.year if "y" in parts else 0, (at.month - 1) // 3, at.month if "m" in parts else 0,
                        at.day if "d" in parts else 0, vega_floor(at, "W") if "W" in parts else 0,
                        vega_floor(at, "j") if "j" in parts else 0) for at in read}) == len(drawn) < len(dates)
    assert [(at, row["Count of Records"]) for at, row in zip(held_dates(drawn), drawn)] == [
        (first, counts[key]) for key, first in firsts.items()]
    assert without_aria_labels(svg_of(evaluated)) == without_aria_labels(svg_of(raw))


def test_weeks_faceted_by_year_group_by_the_weeks_first_day_in_that_year(dated_rows, monkeypatch):
    """A week beside its year: week 0 began in the year before (vega-time's floor of the week is a Sunday of
    December), so its group's date is the 1st of January, which each unit reads alike."""
    folder, rows = dated_rows
    text = """\
        data: {path: dated.csv}
        mark: bar
        facet: {row: {field: at, timeUnit: year}}
        encoding:
          x: {field: at, timeUnit: week, type: ordinal}
          y: {aggregate: count}
        """
    evaluated, raw = both_forms(monkeypatch, lambda: compile_text(folder, text))
    drawn = vega_lite_rows(evaluated, evaluated["data"])
    held = held_dates(drawn)
    expected = Counter(None if at is None else (at.year, vega_floor(at, "W")) for at, _, _ in rows)
    assert {None if at is None else (at.year, vega_floor(at, "W")): row["Count of Records"]
            for at, row in zip(held, drawn)} == expected and len(drawn) == len(expected)
    assert datetime.datetime(2021, 1, 1) in held  # a Friday: week 0 of 2021
    assert without_aria_labels(svg_of(evaluated)) == without_aria_labels(svg_of(raw))


def test_a_facet_by_a_time_unit_or_a_bin_groups_the_rows_of_its_panels(dated_rows, monkeypatch):
    """Before, a facet's field grouped the encoding's aggregate by its values as read: one bar per date (or
    per value), each a count of 1, drawn over each other, where Vega-Lite drew one bar per year (or bin)."""
    folder, rows = dated_rows
    for facet in ("{field: at, timeUnit: year}", "{field: v, bin: true}"):
        text = f"""\
            data: {{path: dated.csv}}
            mark: bar
            facet: {{column: {facet}}}
            encoding:
              x: {{field: kind}}
              y: {{aggregate: count}}
            """
        evaluated, raw = both_forms(monkeypatch, lambda text=text: compile_text(folder, text))
        assert svg_of(evaluated) == svg_of(raw)
    assert len(vega_lite_rows(evaluated, evaluated["data"])) == len(rows)  # a binned facet: Vega-Lite's aggregate


def test_a_time_unit_of_milliseconds_since_1970_floors_them_as_dates_and_writes_numbers(tmp_path, monkeypatch):
    """Numbers on a time unit are a Date's milliseconds, truncated as Date truncates them (-0.5 is 1970's first
    millisecond, -1.5 the last of 1969); each group's floor is written as a number, as the column was. A number
    past JavaScript's dates (an Invalid Date, grouped apart by Vega) leaves the chart to Vega-Lite."""
    epoch = datetime.datetime(1970, 1, 1)
    stamps = [-0.5, -1.5, 0.0, 1.5e12 + 0.75, 1.5e12 - 86_400_000.25, None, -2.5e11, 1.2e12, 1.5e12 + 3_600_000]
    kinds = ["a", "b"]
    values = ", ".join(f"{{ms: {'null' if ms is None else repr(ms)}, k: {kinds[i % 2]}}}" for i, ms in enumerate(stamps))

    def date(ms):
        return epoch + datetime.timedelta(milliseconds=int(ms))

    for unit, parts in (("yearmonth", "ym"), ("day", "w"), ("hoursminutes", "HM"), ("week", "W"), ("dayofyear", "j")):
        text = (f"data: {{values: [{values}]}}\nmark: bar\nencoding:\n  x: {{field: ms, timeUnit: {unit}}}\n"
                "  y: {aggregate: count}\n  color: {field: k}\n")
        evaluated, raw = both_forms(monkeypatch, lambda text=text: compile_text(tmp_path, text))
        drawn = vega_lite_rows(evaluated, evaluated["data"])
        expected = {(None if ms is None else vega_floor(date(ms), parts), kinds[i % 2]) for i, ms in enumerate(stamps)}
        assert {(None if row["ms"] is None else vega_floor(date(row["ms"]), parts), row["k"]) for row in drawn} == (
            expected) and len(drawn) == len(expected)
        assert all(isinstance(row["ms"], (float, type(None))) for row in drawn)
        # A time unit of numbers is ordinal: Vega-Lite's ARIA label reads the number its aggregate left out.
        assert without_aria_labels(svg_of(evaluated)) == without_aria_labels(svg_of(raw))
    # Milliseconds: Vega groups a Date by its text, whole seconds, so every floor here is one group per colour, of
    # its first row's milliseconds (-1.5 is the 999th of 1969's last second).
    evaluated, raw = both_forms(monkeypatch, lambda: compile_text(tmp_path, text.replace("dayofyear", "milliseconds")))
    drawn = vega_lite_rows(evaluated, evaluated["data"])
    assert [(row["ms"], row["k"], row["Count of Records"]) for row in drawn] == [
        (1325376000000.0, "a", 5.0), (1325376000999.0, "b", 3.0), (None, "b", 1.0)]
    assert without_aria_labels(svg_of(evaluated)) == without_aria_labels(svg_of(raw))
    far = text.replace("-0.5", "1e16")
    evaluated, raw = both_forms(monkeypatch, lambda: compile_text(tmp_path, far))
    assert evaluated == raw
