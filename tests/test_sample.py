"""Every row is read, whatever the count; `data.sample` draws a fixed random sample of them and fits every row."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import vl_convert
from scipy import stats

from chartc import errors as msg
from chartc.errors import SpecError
from chartc.render.export import render
from chartc.pipeline import compile_spec
from chartc.stages.limits import MAX_MARKS
from chartc.infra.table import SAMPLE_SEED, from_records, sample_key_sql, sample_keys, sample_rows
from chartc.stages.data import engine

# Past the mark limit (and 2.5x the old 100,000-row read cap): only what is drawn is limited.
ROWS = MAX_MARKS + 50_000

SPEC = """\
data: {{path: big.csv{sample}}}
encoding: {{x: x, y: y}}
layers:
  - mark: point
  - trend: {{method: linear}}
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A git work tree with big.csv: 250,000 rows of y = 2x + 1 + noise (noise from a fixed seed)."""
    root = tmp_path_factory.mktemp("sample")
    (root / ".git").mkdir()
    rng = np.random.default_rng(7)
    x = np.round(rng.random(ROWS) * 100, 3)
    y = np.round(2 * x + 1 + rng.normal(0, 5, ROWS), 6)  # 6 decimals: every (x, y) line differs, so a row is its line
    lines = ["x,y"] + [f"{a!r},{b!r}" for a, b in zip(x.tolist(), y.tolist())]
    (root / "big.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def compiled(project, sample: int | None, name: str = "spec"):
    spec = project / f"{name}.yaml"
    spec.write_text(SPEC.format(sample="" if sample is None else f", sample: {sample}"), encoding="utf-8")
    return compile_spec(spec)


def drawn_rows(chart) -> list[dict]:
    """The rows the chart embeds for its marks (the trend carries its own curve)."""
    return chart.vega_lite["datasets"][chart.vega_lite["data"]["name"]]


@pytest.mark.slow
def test_a_scatter_of_every_row_is_refused_by_the_mark_limit_not_by_a_row_cap(project):
    with pytest.raises(SpecError) as raised:
        compiled(project, None)
    (problem,) = raised.value.errors
    assert problem.message == msg.too_many_marks(ROWS, MAX_MARKS, 1)
    assert problem.hint == msg.too_many_marks_hint() and "sample" in problem.hint


@pytest.mark.slow
def test_an_aggregate_of_every_row_compiles_and_counts_every_row(project):
    spec = project / "histogram.yaml"
    spec.write_text("data: {path: big.csv}\nmark: bar\n"
                    "encoding: {x: {field: x, bin: {step: 10}}, y: {aggregate: count}}\n", encoding="utf-8")
    chart = compile_spec(spec)
    scene = vl_convert.vegalite_to_scenegraph(chart.vega_lite)
    bars = [item for mark in marks_of(scene) if mark["marktype"] == "rect" for item in mark["items"]]
    x = np.loadtxt(project / "big.csv", delimiter=",", skiprows=1)[:, 0]
    counts, _ = np.histogram(x, bins=np.arange(0, 110, 10))
    assert len(bars) == 10 and sum(counts) == ROWS
    # Drawn bar heights are proportional to the counts: the tallest bar is the largest count.
    heights = sorted(bar["height"] for bar in bars)
    assert heights == pytest.approx(sorted(heights[-1] * counts / counts.max()), abs=0.5)


def marks_of(node):
    """Every mark (a scenegraph node with a `marktype`) under a scenegraph node."""
    if isinstance(node, dict):
        if "marktype" in node:
            yield node
        for value in node.values():
            yield from marks_of(value)
    elif isinstance(node, list):
        for value in node:
            yield from marks_of(value)


@pytest.mark.slow
def test_a_sample_draws_that_many_file_rows_in_file_order_and_fits_every_row(project):
    chart = compiled(project, 2_000)
    rows = drawn_rows(chart)
    assert len(rows) == 2_000
    lines = (project / "big.csv").read_text(encoding="utf-8").splitlines()[1:]
    positions = {line: i for i, line in enumerate(lines)}
    picked = [positions[f"{row['x']!r},{row['y']!r}"] for row in rows]
    assert picked == sorted(picked) and len(set(picked)) == 2_000
    # The trend is fitted on all 250,000 rows: numpy's least squares on the whole file.
    data = np.loadtxt(project / "big.csv", delimiter=",", skiprows=1)
    slope, intercept = np.polyfit(data[:, 0], data[:, 1], 1)
    (line,) = chart.fits[("layers", 1)]
    assert line.n == ROWS
    assert dict(line.coefficients) == pytest.approx({"intercept": intercept, "slope": slope}, rel=1e-9)


@pytest.mark.slow
def test_the_sample_is_the_same_on_every_compile_and_renders(project):
    first = compiled(project, 500, "a")
    again = compiled(project, 500, "a")
    assert json.dumps(first.vega_lite, sort_keys=True) == json.dumps(again.vega_lite, sort_keys=True)
    tree = ET.fromstring(render(first.vega_lite, "svg"))
    marks = [len(group) for group in tree.iter() if "role-mark" in group.get("class", "").split()]
    assert sorted(marks) == [1, 500]  # the trend line, and one symbol per sampled row


def reference_key(row: int) -> int:
    """A row's sample key as `infra.table` documents it, in Python integers: Thomas Mueller's 32-bit integer
    hash (modulo 2³¹ here) of the row's low 31 bits xor the seed, then of that xor its next 31 bits."""
    def mix(h):
        for _ in range(2):
            h = ((h ^ (h >> 16)) * 0x45D9F3B) % 2 ** 31
        return h ^ (h >> 16)

    return mix(mix((row % 2 ** 31) ^ SAMPLE_SEED) ^ (row >> 31) % 2 ** 31)


def test_sample_rows_keeps_the_rows_with_the_smallest_keys():
    table = from_records([{"i": i} for i in range(1_000)])
    expected = sorted(sorted(range(1_000), key=reference_key)[:37])
    assert sample_rows(table, 37)["i"] == expected
    assert sample_rows(table, 1_000) is table and sample_rows(table, 5_000) is table


@pytest.mark.parametrize("row", [0, 1, 2 ** 31 - 1, 2 ** 31, 10 ** 11 + 7, 2 ** 62 + 3])
def test_the_engine_computes_the_keys_python_does(row):
    connection = engine.connect()
    connection.execute(f"CREATE TABLE rows AS SELECT CAST({row} AS BIGINT) AS n")
    assert connection.execute(f"SELECT k FROM ({sample_key_sql('rows', 'n')})").fetchone()[0] == reference_key(row)
    assert sample_keys(3).tolist() == [reference_key(r) for r in range(3)]


def test_the_keys_look_random():
    """Uniform over 2³¹ (a χ² of 100 equal bins), no correlation between neighbours, and the gaps between
    sampled rows spread as a Poisson process's (their deviation near their mean)."""
    keys = sample_keys(1_000_000).astype(float)
    counts = np.histogram(keys, bins=100, range=(0, 2 ** 31))[0]
    assert stats.chisquare(counts).pvalue > 1e-3
    assert abs(np.corrcoef(keys[:-1], keys[1:])[0, 1]) < 0.01
    gaps = np.diff(np.sort(np.argsort(keys, kind="stable")[:1_000]))
    assert 0.85 < gaps.std() / gaps.mean() < 1.15


def test_a_sample_of_rows_left_in_the_engine_is_drawn_there(project):
    """big.csv is past the size read in memory: its rows stay in the engine, which sends back only the 2,000
    drawn; they are the rows of the smallest keys, as in memory."""
    chart = compiled(project, 2_000, "engine")
    lines = (project / "big.csv").read_text(encoding="utf-8").splitlines()[1:]
    expected = sorted(sorted(range(len(lines)), key=reference_key)[:2_000])
    assert [f"{row['x']!r},{row['y']!r}" for row in drawn_rows(chart)] == [lines[i] for i in expected]


def test_a_sample_below_one_is_a_schema_error(project):
    spec = project / "zero.yaml"
    spec.write_text(SPEC.format(sample=", sample: 0"), encoding="utf-8")
    with pytest.raises(SpecError) as raised:
        compile_spec(spec)
    (problem,) = raised.value.errors
    assert problem.path == ("data", "sample") and problem.location.line == 1
