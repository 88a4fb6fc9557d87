"""Messages people found confusing: each says what is wrong once, why, and what to write instead.

Every case runs through the command line as a user meets it (`chartc validate`,
or `validate --full` where only a compile can tell, and `chartc compile`) and is
compared, position and all, with the message functions' words.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from chartc import errors as msg
from chartc.commands import cli
from chartc.errors import Location, SpecError
from chartc.errors.text import KEY_SYNONYMS, VALUE_SYNONYMS
from chartc.pipeline import compile_spec
from chartc.stages.translate import vega_lite_schema

CARS = "data: {dataset: cars}\n"
POINTS = CARS + "mark: point\nencoding:\n  x: Horsepower\n  y: Miles_per_Gallon\n"


def write(folder: Path, text: str, name: str = "chart.yaml") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def expected(spec: Path, line: int, column: int, path: tuple, message: str, hint: str | None) -> str:
    """The one line chartc prints for a problem: FILE:LINE:COL: error[CODE]: PATH: message (hint)."""
    return SpecError(message, path, location=Location(str(spec), line, column), hint=hint).diagnostic()


def reported(spec: Path, tmp_path: Path, capsys, *, full: bool = False) -> list[list[str]]:
    """The diagnostics `chartc validate` and `chartc compile` print for `spec` (each exits 1)."""
    out = []
    validate = ["validate", "--full", str(spec)] if full else ["validate", str(spec)]
    for command in (validate, ["compile", str(spec), "-o", str(tmp_path / "out.svg")]):
        assert cli.main(command) == cli.EXIT_INVALID, command
        err = capsys.readouterr().err
        out.append([line for line in err.splitlines() if ": error[" in line])
    return out


def assert_reported_once(spec: Path, tmp_path: Path, capsys, line: str, *, full: bool = False) -> None:
    for lines in reported(spec, tmp_path, capsys, full=full):
        assert lines == [line]


# ------------------------------------------------------------------ vega_lite: the branch meant, not the last


def vega_lite_marks() -> list[str]:
    """Every value Vega-Lite's schema takes as a mark name, read from its `AnyMark` (in its order)."""
    definitions = vega_lite_schema()["definitions"]
    names: list[str] = []

    def collect(schema: dict) -> None:
        if "$ref" in schema:
            collect(definitions[schema["$ref"].rsplit("/", 1)[-1]])
        elif "anyOf" in schema:
            for branch in schema["anyOf"]:
                collect(branch)
        elif "enum" in schema:
            names.extend(schema["enum"])
        elif "const" in schema:
            names.append(schema["const"])

    collect(definitions["AnyMark"])
    return names


def test_a_vega_lite_mark_lists_every_mark_and_suggests_point_for_scatter(tmp_path, capsys):
    """It said "'boxplot' was expected": the last of the anyOf's branches, not the one meant."""
    spec = write(tmp_path, POINTS + "vega_lite:\n  mark: scatter\n")
    marks = vega_lite_marks()
    assert {"point", "boxplot", "errorband", "geoshape"} <= set(marks) and len(marks) == len(set(marks))
    line = expected(spec, 7, 9, ("vega_lite", "mark"), msg.vega_lite_invalid(msg.not_one_of("scatter", marks)),
                    msg.vega_lite_invalid_hint("mark", "did you mean 'point'?"))
    assert_reported_once(spec, tmp_path, capsys, line, full=True)


def test_a_vega_lite_value_is_checked_in_the_branch_that_took_its_type(tmp_path, capsys):
    """A mark written as a mapping is a MarkDef: its `type` is refused, with every mark listed."""
    spec = write(tmp_path, POINTS + "vega_lite:\n  mark: {type: lineplot}\n")
    line = expected(spec, 7, 16, ("vega_lite", "mark", "type"),
                    msg.vega_lite_invalid(msg.not_one_of("lineplot", vega_lite_marks())),
                    msg.vega_lite_invalid_hint("mark.type", "did you mean 'line'?"))
    assert_reported_once(spec, tmp_path, capsys, line, full=True)


def test_a_vega_lite_value_of_a_few_choices_names_each_kind(tmp_path, capsys):
    """`width` is a number, 'container' or a step mapping: all three are said, not only the constant."""
    spec = write(tmp_path, POINTS + "vega_lite:\n  width: wide\n")
    line = expected(spec, 7, 10, ("vega_lite", "width"),
                    msg.vega_lite_invalid("expected 'container', a number or a mapping, got the string 'wide'"),
                    msg.vega_lite_invalid_hint("width"))
    assert_reported_once(spec, tmp_path, capsys, line, full=True)


def test_a_vega_lite_key_error_is_reported_where_it_is(tmp_path, capsys):
    spec = write(tmp_path, POINTS + "vega_lite:\n  encoding:\n    x: {scale: {type: logarithmic}}\n")
    scales = vega_lite_schema()["definitions"]["ScaleType"]["enum"]
    line = expected(spec, 8, 23, ("vega_lite", "encoding", "x", "scale", "type"),
                    msg.vega_lite_invalid(msg.not_one_of("logarithmic", scales)),
                    msg.vega_lite_invalid_hint("encoding.x.scale.type", "did you mean 'log'?"))
    assert_reported_once(spec, tmp_path, capsys, line, full=True)


# ------------------------------------------------------------------ condition: a channel's own, no error


@pytest.mark.parametrize("other", ["value: grey", "field: Origin"])
def test_a_channel_condition_beside_a_value_or_a_field_is_no_error(tmp_path, other):
    """`condition` was an unknown key (with a value beside it, also "not with a constant"); now it is the channel's."""
    spec = write(tmp_path, CARS + "mark: point\nencoding:\n  x: Horsepower\n  y: Miles_per_Gallon\n  color:\n"
                 f"    {other}\n    condition: {{test: 'datum.Horsepower > 150', value: red}}\n")
    compiled = compile_spec(spec)
    assert compiled.vega_lite["encoding"]["color"]["condition"] == {"test": "datum.Horsepower > 150", "value": "red"}


@pytest.mark.slow  # starts the renderer
def test_a_condition_through_the_escape_hatch_still_draws(tmp_path):
    """Vega-Lite's condition passed on through vega_lite colours the rows it selects."""
    vl_convert = pytest.importorskip("vl_convert")
    spec = write(tmp_path, POINTS + "vega_lite:\n  encoding:\n    color:\n"
                 "      condition: {test: 'datum.Horsepower > 150', value: red}\n      value: grey\n")
    compiled = compile_spec(spec)
    fills = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("marktype") == "symbol" and node.get("role") == "mark":
                fills.extend(item.get("stroke") or item.get("fill") for item in node["items"])
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(vl_convert.vegalite_to_scenegraph(compiled.vega_lite))
    rows = [r for r in compiled.vega_lite["datasets"][compiled.vega_lite["data"]["name"]]
            if r["Horsepower"] is not None and r["Miles_per_Gallon"] is not None]
    assert len(fills) == len(rows)
    assert fills.count("red") == sum(1 for r in rows if r["Horsepower"] > 150) > 0
    assert fills.count("grey") == len(rows) - fills.count("red")


# ------------------------------------------------------------------ other libraries' words


@pytest.mark.parametrize("word, meant", [
    ("scatter", "point"), ("scatterplot", "point"), ("plot", "line"), ("lineplot", "line"), ("barh", "bar"),
    ("hist", "bar"), ("histplot", "bar"), ("fill_between", "area"), ("axhline", "rule"), ("heatmap", "rect"),
    ("pie", "arc"), ("donut", "arc"),
])
def test_a_mark_from_matplotlib_or_seaborn_suggests_chartcs(tmp_path, capsys, word, meant):
    spec = write(tmp_path, CARS + f"mark: {word}\nencoding:\n  x: Horsepower\n  y: Miles_per_Gallon\n")
    marks = ["point", "circle", "square", "line", "area", "bar", "rule", "text", "tick", "rect", "boxplot",
             "errorbar", "errorband", "arc"]
    line = expected(spec, 2, 7, ("mark",), msg.not_one_of(word, marks), f"did you mean {meant!r}?")
    assert_reported_once(spec, tmp_path, capsys, line)


LEGEND_PLACES = ["top-left", "top-right", "bottom-left", "bottom-right", "top", "bottom", "left", "right", "none"]


@pytest.mark.parametrize("loc, meant", [
    ("upper left", "top-left"), ("upper right", "top-right"), ("lower left", "bottom-left"),
    ("lower right", "bottom-right"), ("center left", "left"), ("center right", "right"),
    ("upper center", "top"), ("lower center", "bottom"), ("Upper_Left", "top-left"),
])
def test_a_matplotlib_legend_place_suggests_chartcs(tmp_path, capsys, loc, meant):
    spec = write(tmp_path, POINTS + f"  color: Origin\nlegend: {{position: {loc}}}\n")
    line = expected(spec, 7, 20, ("legend", "position"), msg.not_one_of(loc, LEGEND_PLACES),
                    f"did you mean {meant!r}?")
    assert_reported_once(spec, tmp_path, capsys, line)


def test_best_suggests_the_default_and_says_why(tmp_path, capsys):
    spec = write(tmp_path, POINTS + "  color: Origin\nlegend: {position: best}\n")
    line = expected(spec, 7, 20, ("legend", "position"), msg.not_one_of("best", LEGEND_PLACES),
                    "did you mean 'right'? it is the default; chartc does not look for the emptiest corner")
    assert_reported_once(spec, tmp_path, capsys, line)


def test_a_channel_legend_takes_orient_and_its_places_from_matplotlib(tmp_path, capsys):
    spec = write(tmp_path, POINTS + "  color: {field: Origin, legend: {position: lower right}}\n")
    line = expected(spec, 6, 35, ("encoding", "color", "legend", "position"), msg.unknown_key("position"),
                    "did you mean 'orient'?")
    assert_reported_once(spec, tmp_path, capsys, line)
    spec = write(tmp_path, POINTS + "  color: {field: Origin, legend: {orient: lower right}}\n")
    places = ["left", "right", "top", "bottom", "top-left", "top-right", "bottom-left", "bottom-right", "none"]
    line = expected(spec, 6, 43, ("encoding", "color", "legend", "orient"), msg.not_one_of("lower right", places),
                    "did you mean 'bottom-right'?")
    assert_reported_once(spec, tmp_path, capsys, line)


def test_seaborns_hue_suggests_color(tmp_path, capsys):
    spec = write(tmp_path, POINTS + "  hue: Origin\n")
    line = expected(spec, 6, 3, ("encoding", "hue"), msg.unknown_key("hue"), "did you mean 'color'?")
    assert_reported_once(spec, tmp_path, capsys, line)


def test_a_synonym_is_suggested_only_where_what_it_means_is_allowed():
    assert msg.did_you_mean("scatter", ["line", "bar"], synonyms=VALUE_SYNONYMS) is None
    assert msg.did_you_mean("lowess", ["linear", "loess"], synonyms=VALUE_SYNONYMS) == "did you mean 'loess'?"
    assert msg.did_you_mean("loc", ["title", "orient"], synonyms=KEY_SYNONYMS) == "did you mean 'orient'?"
    assert msg.did_you_mean("loc", ["position", "orient"], synonyms=KEY_SYNONYMS) == "did you mean 'position'?"
    # Field names are the data's own: no other library's words are guessed for them.
    assert msg.did_you_mean("scatter", ["point", "x"]) is None
    # Case and separators do not hide a value: 'Top_Left' is 'top-left'.
    assert msg.did_you_mean("Top_Left", LEGEND_PLACES) == "did you mean 'top-left'?"


def test_every_synonym_means_a_value_or_key_chartc_or_vega_lite_knows():
    """A synonym pointing at a word nothing accepts would never be suggested: a typo in the table."""
    schema_text = Path(msg.__file__).parents[2].joinpath("schemas", "chart.schema.json").read_text(encoding="utf-8")
    known = set(vega_lite_marks())
    for meant in {m for targets in VALUE_SYNONYMS.values() for m in targets}:
        assert f'"{meant}"' in schema_text or meant in known, meant
    for meant in {m for targets in KEY_SYNONYMS.values() for m in targets}:
        assert f'"{meant}"' in schema_text, meant


# ------------------------------------------------------------------ extent: ci


@pytest.mark.slow
def test_an_errorband_ci_over_dates_says_what_it_needs(tmp_path, capsys):
    # chartc computes `ci` itself (a t-interval per group); it groups no dates, and never leaves it to the bootstrap.
    spec = write(tmp_path, CARS + "encoding:\n  x: Year\n  y: Miles_per_Gallon\nlayers:\n"
                 "  - mark: {type: errorband, extent: ci}\n")
    line = expected(spec, 6, 37, ("layers", 0, "mark", "extent"), msg.extent_ci_unsupported(),
                    msg.extent_ci_unsupported_hint())
    assert_reported_once(spec, tmp_path, capsys, line, full=True)


def test_a_trend_extent_ci_points_to_the_band(tmp_path, capsys):
    spec = write(tmp_path, CARS + "encoding:\n  x: Horsepower\n  y: Miles_per_Gallon\nlayers:\n  - mark: point\n"
                 "  - trend: {method: linear, extent: ci}\n")
    line = expected(spec, 7, 37, ("layers", 1, "trend", "extent"), msg.trend_extent_ci(), msg.trend_extent_ci_hint())
    assert_reported_once(spec, tmp_path, capsys, line)


# ------------------------------------------------------------------ a data path leaving the project


def outside_spec(tmp_path: Path) -> tuple[Path, Path]:
    """A spec in project/charts/ reading ../../outside.csv, beside the project."""
    (tmp_path / "outside.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    project = tmp_path / "project"
    spec = write(project, "data: {path: ../../outside.csv}\nmark: point\nencoding:\n  x: a\n  y: b\n",
                 "charts/chart.yaml")
    return project, spec


def test_a_data_path_leaving_the_git_work_tree_names_it(tmp_path, capsys):
    project, spec = outside_spec(tmp_path)
    (project / ".git").mkdir()
    line = expected(spec, 1, 14, ("data", "path"), msg.data_path_outside("../../outside.csv", "project"),
                    msg.data_path_outside_hint(str(project.resolve()), True))
    assert "git work tree" in line and str(project.resolve()) in line
    assert_reported_once(spec, tmp_path, capsys, line)


def test_without_git_the_project_is_the_specs_folder_and_the_hint_says_so(tmp_path, capsys):
    project, spec = outside_spec(tmp_path)
    charts = project / "charts"
    line = expected(spec, 1, 14, ("data", "path"), msg.data_path_outside("../../outside.csv", "charts"),
                    msg.data_path_outside_hint(str(charts.resolve()), False))
    assert "no git work tree" in line and str(charts.resolve()) in line
    assert_reported_once(spec, tmp_path, capsys, line)
