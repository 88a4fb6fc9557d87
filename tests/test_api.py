"""The Python API (chartc.load, chartc.from_spec, Chart): DataFrames in, diagnostics, fits, exports, Altair, YAML.

Every chart drawn from a DataFrame is held to the same chart compiled from the
file the DataFrame was read from; fits to statsmodels; exports to what
`chartc compile` writes and to what Vega draws.
"""

from __future__ import annotations

import copy
import json
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import vl_convert
from ruamel.yaml import YAML

import chartc
from chartc import errors as msg
from chartc.commands import cli
from chartc.errors import Location, SpecError

from conftest import ROOT, SPECS, scene_nodes

SEEDS = ("seed_pretraining", "seed_flops")


def without_provenance(vega_lite: dict) -> dict:
    """The chart without ``usermeta.chartc`` (its hashes name the spec and data it was compiled from)."""
    vega_lite = copy.deepcopy(vega_lite)
    vega_lite["usermeta"].pop("chartc")
    if not vega_lite["usermeta"]:
        del vega_lite["usermeta"]
    return vega_lite


def read_yaml(text: str):
    """YAML 1.2, as chartc reads specs (PyYAML's 1.1 reads ``5e20`` as text)."""
    return YAML(typ="safe", pure=True).load(text)


def seed_without_data(name: str) -> tuple[dict, pd.DataFrame]:
    """A seed spec without its `data` (and `$schema`), and its CSV read by pandas."""
    spec = read_yaml((SPECS / f"{name}.yaml").read_text(encoding="utf-8"))
    path = spec.pop("data")["path"]
    spec.pop("$schema")
    return spec, pd.read_csv(SPECS / path)


def datasets(chart) -> list[dict]:
    (rows,) = chart.vega_lite["datasets"].values()
    return rows


class ArrowStream:
    """An object with the Arrow PyCapsule interface and nothing else (as any Arrow-speaking library has)."""

    def __init__(self, table: pa.Table):
        self.table = table

    def __arrow_c_stream__(self, requested_schema=None):
        return self.table.__arrow_c_stream__(requested_schema)


# ------------------------------------------------------------------ DataFrames in

@pytest.mark.parametrize("name", SEEDS)
@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow", "capsule", "named"])
def test_a_seed_chart_from_a_dataframe_is_the_chart_from_its_file(name, kind):
    polars = pytest.importorskip("polars")
    spec, frame = seed_without_data(name)
    data = {"pandas": frame, "polars": polars.from_pandas(frame), "pyarrow": pa.Table.from_pandas(frame),
            "capsule": ArrowStream(pa.Table.from_pandas(frame)), "named": {"runs": frame}}[kind]
    from_file = chartc.load(SPECS / f"{name}.yaml")
    from_frame = chartc.from_spec(spec, data=data)
    assert without_provenance(from_frame.vega_lite) == without_provenance(from_file.vega_lite)
    block = from_frame.vega_lite["usermeta"]["chartc"]
    assert block["data"] == ("frame:runs" if kind == "named" else "frame:table")
    assert from_frame.spec["data"] == {"frame": "runs" if kind == "named" else "table"}


def test_a_dataframe_keeps_its_types_dates_categories_and_exact_integers():
    big = 2**53 + 1
    frame = pd.DataFrame({
        "when": pd.to_datetime(["2024-01-02 03:04:05", "2024-02-03"], format="ISO8601"),
        "zoned": pd.to_datetime(["2024-01-01 12:00"] * 2).tz_localize("Europe/Paris"),
        "kind": pd.Categorical(["b", "a"], categories=["a", "b"]),
        "id": np.array([big, 1], dtype="int64"),
        "flag": [True, False],
        "y": [1.5, float("nan")],
    })
    chart = chartc.from_spec("mark: point\nencoding: {x: when, y: y, color: kind, size: id}\n", data=frame)
    encoding = chart.vega_lite["encoding"]
    assert encoding["x"]["type"] == "temporal"
    assert encoding["color"]["type"] == "nominal"
    assert encoding["size"]["type"] == "quantitative"
    rows = datasets(chart)
    assert [row["when"] for row in rows] == ["2024-01-02T03:04:05", "2024-02-03T00:00:00"]
    assert rows[0]["zoned"] == "2024-01-01T11:00:00"  # the UTC wall clock, as a zoned Parquet column reads
    assert [row["kind"] for row in rows] == ["b", "a"]
    assert rows[0]["id"] == str(big)  # its exact digits, as the file readers give an integer past 2^53
    assert [row["flag"] for row in rows] == [True, False]
    assert rows[1]["y"] is None


def test_the_rows_of_a_dataframe_reach_what_vega_draws():
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [3.0, 1.0, 2.0]})
    chart = chartc.from_spec({"mark": "point", "encoding": {"x": "x", "y": "y"}, "width": 100, "height": 100},
                             data=frame)
    graph = vl_convert.vegalite_to_scenegraph(chart.vega_lite)
    (points,) = scene_nodes(graph, "symbol")
    drawn = sorted((item["x"], item["y"]) for item in points["items"])
    # x on [0, 3] -> [0, 100]; y on [0, 3] -> [100, 0] (zero-based linear scales)
    expected = sorted((x / 3 * 100, 100 - y / 3 * 100) for x, y in zip(frame["x"], frame["y"]))
    assert np.allclose(drawn, expected)


def test_a_spec_with_a_sample_draws_some_rows_of_the_dataframe_and_fits_every_one():
    rng = np.random.default_rng(7)
    x = rng.normal(size=500)
    frame = pd.DataFrame({"x": x, "y": 2 * x + rng.normal(size=500)})
    spec = {"data": {"frame": "runs", "sample": 50}, "encoding": {"x": "x", "y": "y"},
            "layers": [{"mark": "point"}, {"trend": {"method": "linear"}}]}
    chart = chartc.from_spec(spec, data={"runs": frame})
    points = chart.vega_lite["datasets"][chart.vega_lite["data"]["name"]]
    assert len(points) == 50 and all(row in frame.to_dict("records") for row in points)
    (fit,) = chart.fits
    assert fit.n == 500


# ------------------------------------------------------------------ which table, and what is wrong with it

def test_a_frame_spec_without_a_table_is_a_positioned_error(tmp_path):
    spec = tmp_path / "chart.yaml"
    spec.write_text("data: {frame: runs}\nmark: point\nencoding: {x: a, y: b}\n")
    with pytest.raises(SpecError) as raised:
        chartc.load(spec)
    assert raised.value.message == msg.table_not_passed("runs")
    assert raised.value.code == "E825"
    assert raised.value.path == ("data", "frame")
    assert raised.value.location == Location(str(spec), 1, 15)
    assert raised.value.hint == msg.table_not_passed_hint("runs")


def test_the_command_line_reports_a_frame_spec_like_any_other(tmp_path, capsys):
    spec = tmp_path / "chart.yaml"
    spec.write_text("data: {frame: runs}\nmark: point\nencoding: {x: a, y: b}\n")
    assert cli.main(["compile", str(spec), "-o", str(tmp_path / "out.vl.json")]) == 1
    assert capsys.readouterr().err == (f"{spec}:1:15: error[E825]: data.frame: {msg.table_not_passed('runs')} "
                                       f"({msg.table_not_passed_hint('runs')})\n")
    assert not (tmp_path / "out.vl.json").exists()


def test_a_table_name_not_passed_lists_those_passed_with_a_near_miss():
    frame = pd.DataFrame({"a": [1], "b": [2]})
    with pytest.raises(SpecError) as raised:
        chartc.from_spec("data: {frame: run}\nmark: point\nencoding: {x: a, y: b}\n",
                         data={"runs": frame, "other": frame})
    assert raised.value.message == msg.table_not_named("run", ["runs", "other"])
    assert raised.value.hint == msg.did_you_mean("run", ["runs", "other"])
    assert raised.value.location == Location("<spec>", 1, 15)


def test_a_table_passed_to_a_spec_with_its_own_data_is_refused():
    with pytest.raises(SpecError) as raised:
        chartc.from_spec("data: {dataset: cars}\nmark: point\nencoding: {x: Horsepower, y: Acceleration}\n",
                         data=pd.DataFrame({"a": [1]}))
    assert raised.value.message == msg.table_and_source("dataset")
    assert raised.value.path == ("data", "dataset")
    assert raised.value.location == Location("<spec>", 1, 8)


def test_an_object_that_is_no_table_is_refused_with_what_to_pass():
    with pytest.raises(SpecError) as raised:
        chartc.from_spec({"mark": "point", "encoding": {"x": "a", "y": "b"}}, data=[{"a": 1, "b": 2}])
    assert raised.value.message == msg.table_type("table", "list")
    assert raised.value.hint == msg.table_type_hint()


def test_a_nested_column_is_refused_by_name():
    frame = pa.table({"a": [1, 2], "b": [[1], [2]]})
    with pytest.raises(SpecError) as raised:
        chartc.from_spec({"mark": "point", "encoding": {"x": "a", "y": "a"}}, data=frame)
    assert raised.value.message == msg.table_unreadable("table", msg.data_nested_column("b"))
    assert raised.value.code == "E829"


def test_a_missing_column_of_a_dataframe_is_the_usual_field_error():
    frame = pd.DataFrame({"step": [1, 2], "loss": [3.0, 2.0]})
    with pytest.raises(SpecError) as raised:
        chartc.from_spec("mark: point\nencoding:\n  x: step\n  y: los\n", data=frame)
    assert raised.value.code == "E451"
    assert raised.value.path == ("encoding", "y")
    assert raised.value.location == Location("<spec>", 4, 6)


# ------------------------------------------------------------------ specs as text and dicts

def test_yaml_text_errors_carry_line_and_column_in_the_text():
    with pytest.raises(SpecError) as raised:
        chartc.from_spec("data: {dataset: cars}\nmark: pointt\nencoding: {x: Horsepower, y: Acceleration}\n")
    assert raised.value.location == Location("<spec>", 2, 7)
    assert raised.value.path == ("mark",)
    assert raised.value.diagnostic().startswith("<spec>:2:7: error[")


def test_dict_errors_carry_the_spec_path_and_no_position():
    spec = {"data": {"dataset": "cars"}, "encoding": {"x": "Horsepower", "y": "Acceleration"},
            "layers": [{"mark": "point"}, {"trend": {"method": "cubic"}}]}
    with pytest.raises(SpecError) as raised:
        chartc.from_spec(spec)
    assert [(e.path, e.location) for e in raised.value.errors] == [(("layers", 1, "trend", "method"), None)]
    assert raised.value.diagnostic().startswith("error[E")


def test_a_dict_with_numpy_numbers_compiles_like_plain_numbers():
    spec = {"data": {"values": [{"a": np.int64(1), "b": np.float64(2.5)}, {"a": 2, "b": 3.5}]},
            "mark": "point", "encoding": {"x": "a", "y": "b"}}
    plain = {**spec, "data": {"values": [{"a": 1, "b": 2.5}, {"a": 2, "b": 3.5}]}}
    assert chartc.from_spec(spec).vega_lite == chartc.from_spec(plain).vega_lite


def test_base_dir_resolves_data_paths_of_text():
    text = (SPECS / "seed_pretraining.yaml").read_text(encoding="utf-8")
    chart = chartc.from_spec(text, base_dir=SPECS)
    assert chart.vega_lite == chartc.load(SPECS / "seed_pretraining.yaml").vega_lite  # same bytes, same hashes


# ------------------------------------------------------------------ fits

@pytest.mark.slow
def test_fits_are_the_least_squares_models_statsmodels_fits_per_group():
    import statsmodels.api as sm

    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"x": np.tile(np.arange(20.0), 2), "g": ["a"] * 20 + ["b"] * 20})
    frame["y"] = np.where(frame["g"] == "a", 1.5, -0.5) * frame["x"] + rng.normal(size=40)
    spec = {"encoding": {"x": "x", "y": "y", "color": "g"},
            "layers": [{"mark": "point"}, {"trend": {"method": "linear", "by": "g", "band": 0.95}}]}
    chart = chartc.from_spec(spec, data=frame)
    assert [(fit.layer, fit.group) for fit in chart.fits] == [("layers[1]", "a"), ("layers[1]", "b")]
    for fit in chart.fits:
        rows = frame[frame["g"] == fit.group]
        model = sm.OLS(rows["y"], sm.add_constant(rows["x"])).fit()
        assert fit.n == 20 and fit.method == "linear" and fit.band == 0.95
        assert fit.coefficients["intercept"] == pytest.approx(model.params["const"], rel=1e-9)
        assert fit.coefficients["slope"] == pytest.approx(model.params["x"], rel=1e-9)
        assert fit.r2 == pytest.approx(model.rsquared, rel=1e-9)
        stats = fit.statistics
        assert (stats["p"], stats["f"], stats["aic"], stats["bic"]) == pytest.approx(
            (model.pvalues["x"], model.fvalue, model.aic, model.bic), rel=1e-9)
        assert stats["slope_ci"] == pytest.approx(tuple(model.conf_int(alpha=0.05).loc["x"]), rel=1e-9)
        assert stats["rmse"] == pytest.approx(np.sqrt(model.ssr / model.nobs), rel=1e-9)
        # the band's edges: the 95 % confidence interval of the mean at each x drawn
        frame_x = sm.add_constant(np.asarray(fit.x), has_constant="add")
        interval = model.get_prediction(frame_x).conf_int(alpha=0.05)
        assert fit.lower == pytest.approx(tuple(interval[:, 0]), rel=1e-7)
        assert fit.upper == pytest.approx(tuple(interval[:, 1]), rel=1e-7)
    sidecar = json.loads(chart.fits_json())
    assert sidecar["trends"][0]["fits"] == [{k: v for k, v in fit.as_dict().items() if k != "layer"}
                                            for fit in chart.fits]
    assert [fit["statistics"]["slope_ci"] for fit in sidecar["trends"][0]["fits"]] == [
        list(fit.statistics["slope_ci"]) for fit in chart.fits]


# ------------------------------------------------------------------ Altair

@pytest.mark.parametrize("name", ["seed_flops", "seed_pretraining", "iris_facets"])
def test_to_altair_is_a_chart_altair_validates_and_edits(name):
    import altair as alt

    chart = chartc.load(SPECS / f"{name}.yaml")
    edited = chart.to_altair().properties(title="Edited")
    expected_kind = {"seed_flops": alt.Chart, "seed_pretraining": alt.LayerChart}.get(name)
    if expected_kind is not None:
        assert type(edited) is expected_kind
    result = edited.to_dict()  # validates against Altair's Vega-Lite schema (raises if not)
    assert result["title"] == "Edited"
    unedited = chart.to_altair().to_dict()
    assert unedited["datasets"] == chart.vega_lite["datasets"]
    assert without_provenance(unedited)["encoding" if "encoding" in unedited else "$schema"] == \
        chart.vega_lite["encoding" if "encoding" in unedited else "$schema"]


# ------------------------------------------------------------------ exports

@pytest.mark.slow
def test_save_writes_the_bytes_chartc_compile_writes(tmp_path):
    spec = SPECS / "seed_pretraining.yaml"
    chart = chartc.load(spec)
    for suffix in ("vl.json", "svg", "png"):
        warnings = chart.save(tmp_path / f"api.{suffix}", fits=tmp_path / f"api.{suffix}.fits.json")
        assert warnings == []
        assert cli.main(["compile", str(spec), "-o", str(tmp_path / f"cli.{suffix}"),
                         "--fits", str(tmp_path / f"cli.{suffix}.fits.json")]) == 0
        assert (tmp_path / f"api.{suffix}").read_bytes() == (tmp_path / f"cli.{suffix}").read_bytes()
        assert (tmp_path / f"api.{suffix}.fits.json").read_bytes() == (tmp_path / f"cli.{suffix}.fits.json").read_bytes()
    assert json.loads((tmp_path / "api.vl.json").read_text())["usermeta"]["chartc"]["data"] == \
        "data/attention_variants.csv"
    assert (tmp_path / "api.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_save_with_strict_raises_the_scene_checks_warnings_and_writes_nothing(tmp_path):
    # text on a quantitative axis: Vega draws 2 of the 3 rows (the scene check's W760)
    frame = pd.DataFrame({"a": [1, 2, 3], "b": [2, "n/a", 4]})
    chart = chartc.from_spec({"mark": "point", "encoding": {"x": {"field": "a", "type": "quantitative"},
                                                            "y": {"field": "b", "type": "quantitative"}}}, data=frame)
    warnings = chart.save(tmp_path / "loose.svg")
    assert [(w.code, w.message, w.path) for w in warnings] == [
        ("W760", msg.layer_drew_fewer(2, 3), ("encoding", "y", "field"))]
    (symbols,) = scene_nodes(vl_convert.vegalite_to_scenegraph(chart.vega_lite), "symbol")
    assert len(symbols["items"]) == 2
    with pytest.raises(SpecError) as raised:
        chart.save(tmp_path / "strict.svg", fits=tmp_path / "strict.fits.json", strict=True)
    assert [(e.code, e.message) for e in raised.value.errors] == [(w.code, w.message) for w in warnings]
    assert not (tmp_path / "strict.svg").exists() and not (tmp_path / "strict.fits.json").exists()


def test_save_refuses_a_suffix_that_names_no_format(tmp_path):
    chart = chartc.from_spec({"data": {"values": [{"a": 1}]}, "mark": "point", "encoding": {"x": "a"}})
    with pytest.raises(ValueError, match="cannot tell the export format"):
        chart.save(tmp_path / "chart.gif")
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ back to a spec file

@pytest.mark.parametrize("data_path", [None, "rows.csv", "rows.parquet"])
def test_to_yaml_writes_a_spec_that_compiles_to_the_same_chart(tmp_path, data_path):
    frame = pd.DataFrame({
        "day": pd.to_datetime(["2024-01-01", "2024-01-02", "2024-01-03"]),
        "model": pd.Categorical(["a", "b", "a"]),
        "loss": [2.5, 2.25, 0.1 + 0.2],
        "tokens": [2**53 + 1, 3, 4],
    })
    spec = {"title": "Loss", "encoding": {"x": "day", "y": "loss", "color": "model"},
            "layers": [{"mark": "point"}, {"trend": {"method": "linear"}}]}
    chart = chartc.from_spec(spec, data=frame)
    out = tmp_path / "specs" / "loss.yaml"
    (tmp_path / "specs" / "data").mkdir(parents=True)
    text = chart.to_yaml(out, data_path=None if data_path is None else tmp_path / "specs" / "data" / data_path)
    assert out.read_text(encoding="utf-8") == text
    written = read_yaml(text)
    assert written["data"] == ({"path": f"data/{data_path}"} if data_path else {"values": written["data"]["values"]})
    again = chartc.load(out)
    assert without_provenance(again.vega_lite) == without_provenance(chart.vega_lite)
    assert [fit.coefficients for fit in again.fits] == [fit.coefficients for fit in chart.fits]


def test_to_yaml_of_a_spec_file_is_its_spec():
    chart = chartc.load(SPECS / "seed_flops.yaml")
    assert read_yaml(chart.to_yaml()) == read_yaml((SPECS / "seed_flops.yaml").read_text(encoding="utf-8"))
    with pytest.raises(ValueError):
        chart.to_yaml(data_path="rows.csv")


# ------------------------------------------------------------------ notebooks

def test_a_chart_displays_as_vega_lite_and_an_svg():
    import altair as alt
    from xml.etree import ElementTree

    chart = chartc.load(SPECS / "seed_flops.yaml")
    bundle = chart._repr_mimebundle_()
    # Altair's Vega-Lite major version, as a JSON MIME type (nbformat stores a dict only under one)
    mime = f"application/vnd.vegalite.{alt.SCHEMA_VERSION.split('.')[0]}+json"
    assert mime == "application/vnd.vegalite.v6+json"
    assert set(bundle) == {mime, "image/svg+xml", "text/plain"}
    assert bundle[mime] == chart.vega_lite
    assert bundle["image/svg+xml"] == chart.render("svg").decode("utf-8")
    root = ElementTree.fromstring(bundle["image/svg+xml"])
    assert root.tag.endswith("svg")
    assert bundle["text/plain"] == "<chartc.Chart 'Model Accuracy vs. Training FLOPs'>"


def test_the_public_names_are_the_documented_ones():
    assert {"load", "from_spec", "Chart", "Fit", "SpecError", "SpecWarning", "load_ipython_extension"} <= \
        set(chartc.__all__)
    assert chartc.SpecError is SpecError
    assert ROOT.joinpath("docs", "api.md").read_text(encoding="utf-8").count("chartc.from_spec") >= 2


def test_the_readmes_python_example_runs_as_written(tmp_path, monkeypatch):
    readme = ROOT.joinpath("README.md").read_text(encoding="utf-8")
    section = readme.split("## From Python and in notebooks", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"^```python\n(.*?)^```", section, re.MULTILINE | re.DOTALL)
    (tmp_path / "specs" / "data").mkdir(parents=True)
    (tmp_path / "specs" / "data" / "attention_variants.csv").write_bytes(
        (SPECS / "data" / "attention_variants.csv").read_bytes())
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    chart = namespace["chart"]
    assert (tmp_path / "chart.svg").read_bytes() == chart.render("svg")
    again = chartc.load(tmp_path / "chart.yaml")
    assert read_yaml((tmp_path / "chart.yaml").read_text())["data"] == {"path": "runs.csv"}
    assert without_provenance(again.vega_lite) == without_provenance(chart.vega_lite)
