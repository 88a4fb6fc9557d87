"""Every spec in specs/ is a worked example and a regression test.

Each one is schema-valid, compiles without warnings, leaves its files
unchanged, matches its reviewed golden Vega-Lite (tests/golden/<name>.vl.json,
rewritten by ``pytest --update-golden``), is valid Vega-Lite, and compiles to
the same bytes every time. New specs are picked up automatically.
"""

from __future__ import annotations

import functools
import hashlib
import warnings
from pathlib import Path

import pytest

from chartc import compile_spec
from chartc.stages.load import load_spec
from chartc.infra.jsonout import canonical_json
from chartc.stages.validate import validate_document

from conftest import GOLDEN, ROOT, assert_golden, example_specs, vega_lite_errors

SPEC_FILES = example_specs()
ids = [p.stem for p in SPEC_FILES]


def _fingerprint(spec_file: Path) -> dict[str, str]:
    """Hashes of the spec and every file beside it that it might read."""
    files = [spec_file, *sorted((spec_file.parent / "data").glob("*"))]
    return {str(f): hashlib.sha256(f.read_bytes()).hexdigest() for f in files if f.is_file()}


@functools.cache
def compiled(spec_file: Path):
    """(compiled chart, Python warnings, files before, files after), once per spec."""
    before = _fingerprint(spec_file)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = compile_spec(spec_file)
    return result, [str(w.message) for w in caught], before, _fingerprint(spec_file)


def test_there_are_enough_examples():
    assert len(SPEC_FILES) >= 10


@pytest.mark.parametrize("spec_file", SPEC_FILES, ids=ids)
def test_example_is_schema_valid(spec_file):
    problems = validate_document(load_spec(spec_file))
    assert [p.diagnostic() for p in problems] == []


# Examples whose categories only colour tells apart, and a greyscale print (W771) or a colour-blind
# reader (W770) cannot: listed so that any other warning, or a new finding, fails. Each is a chart
# still to fix (a shape, a dash, another palette); the list only shrinks.
VISION_FINDINGS = {
    "barley_legend_bottom": {"W770", "W771"},
}


@pytest.mark.parametrize("spec_file", SPEC_FILES, ids=ids)
def test_example_compiles_without_warnings(spec_file):
    result, python_warnings, _, _ = compiled(spec_file)
    vision = {"W770", "W771"}
    assert [w.diagnostic() for w in result.warnings if w.code not in vision] == []
    assert {w.code for w in result.warnings if w.code in vision} == VISION_FINDINGS.get(spec_file.stem, set())
    assert python_warnings == []


@pytest.mark.parametrize("spec_file", SPEC_FILES, ids=ids)
def test_example_leaves_its_files_unchanged(spec_file):
    _, _, before, after = compiled(spec_file)
    assert after == before


@pytest.mark.parametrize("spec_file", SPEC_FILES, ids=ids)
def test_example_matches_golden(spec_file, update_golden):
    result = compiled(spec_file)[0]
    assert_golden(GOLDEN / f"{spec_file.stem}.vl.json", canonical_json(result.vega_lite), update_golden)


@pytest.mark.parametrize("spec_file", SPEC_FILES, ids=ids)
def test_example_is_valid_vega_lite(spec_file):
    assert vega_lite_errors(compiled(spec_file)[0].vega_lite) == []


@pytest.mark.parametrize("spec_file", SPEC_FILES, ids=ids)
def test_example_compiles_to_the_same_bytes_twice(spec_file):
    first = canonical_json(compiled(spec_file)[0].vega_lite)
    assert canonical_json(compile_spec(spec_file).vega_lite) == first


def test_every_golden_has_a_spec(update_golden):
    stems = {p.stem for p in SPEC_FILES}
    orphans = [g for g in sorted(GOLDEN.glob("*.vl.json")) if g.name[: -len(".vl.json")] not in stems]
    if update_golden:
        for golden in orphans:
            golden.unlink()
        return
    assert [str(g.relative_to(ROOT)) for g in orphans] == []


# ------------------------------------------------------------------ coverage
# Together the examples exercise the whole DSL: every mark, every channel and
# the channel, scale, axis, legend, transform and chart options below.

MARKS = ("point", "circle", "square", "line", "area", "bar", "rule", "text", "tick", "rect",
         "boxplot", "errorbar", "errorband")
CHANNELS = ("x", "y", "x2", "y2", "color", "shape", "size", "opacity", "strokeDash", "text",
            "tooltip", "detail")
REQUIRED_FEATURES = (
    *(f"mark:{m}" for m in MARKS),
    *(f"channel:{c}" for c in CHANNELS),
    *(f"channel.{p}" for p in ("field", "title", "aggregate", "bin", "timeUnit", "sort",
                               "scale", "axis", "legend")),
    "channel:shorthand", "channel:inferred-type",
    *(f"scale.type:{t}" for t in ("log", "symlog", "sqrt", "time")),
    *(f"scale.{p}" for p in ("domain", "range", "zero", "nice")),
    *(f"axis.{p}" for p in ("title", "format", "labelAngle", "grid", "orient")),
    *(f"legend.{p}" for p in ("title", "format", "orient")),
    *(f"transform:{t}" for t in ("filter", "calculate", "aggregate", "fold")),
    "layer:overrides-shared-encoding",
    *(f"chart:{k}" for k in ("facet", "config", "theme", "vega_lite")),
    *(f"data:{k}" for k in ("values", "path", "dataset")), "data:csv",
)


def spec_features(data: dict) -> set[str]:
    """What one spec document uses, as feature names (see REQUIRED_FEATURES)."""
    found = {f"chart:{k}" for k in ("facet", "config", "theme", "vega_lite") if k in data}
    source = data.get("data", {})
    found |= {f"data:{k}" for k in ("values", "path", "dataset") if k in source}
    if str(source.get("path", "")).endswith(".csv"):
        found.add("data:csv")
    shared = data.get("encoding", {})
    layers = data.get("layers") or [{"mark": data.get("mark"), "encoding": {}}]
    encodings = [shared] + [layer.get("encoding", {}) for layer in layers]
    transforms = list(data.get("transform", []))
    for layer in layers:
        transforms += layer.get("transform", [])
        mark = layer.get("mark")
        if mark is not None:
            found.add(f"mark:{mark if isinstance(mark, str) else mark['type']}")
        if set(layer.get("encoding", {})) & set(shared):
            found.add("layer:overrides-shared-encoding")
    found |= {f"transform:{key}" for step in transforms for key in step if key != "as" and key != "groupby"}
    for encoding in encodings:
        for channel, value in encoding.items():
            found.add(f"channel:{channel}")
            for item in value if isinstance(value, list) else [value]:
                found |= _channel_features(item)
    return found


def _channel_features(item) -> set[str]:
    if isinstance(item, str):
        return {"channel:shorthand", "channel:inferred-type"}
    found = {f"channel.{key}" for key in item}
    if "field" in item and "type" not in item:
        found.add("channel:inferred-type")
    for part in ("scale", "axis", "legend"):
        if isinstance(item.get(part), dict):
            found |= {f"{part}.{key}" for key in item[part]}
    if "type" in item.get("scale", {}):
        found.add(f"scale.type:{item['scale']['type']}")
    return found


@functools.cache
def all_features() -> frozenset[str]:
    return frozenset().union(*(spec_features(load_spec(p).data) for p in SPEC_FILES))


@pytest.mark.parametrize("feature", REQUIRED_FEATURES)
def test_examples_cover_the_dsl(feature):
    assert feature in all_features(), f"no spec in specs/ uses {feature}"


def test_spec_features_reads_a_spec():
    data = load_spec(ROOT / "specs" / "barley_rule.yaml").data
    assert {"mark:bar", "mark:text", "mark:rule", "channel:y2", "transform:aggregate",
            "layer:overrides-shared-encoding", "data:dataset", "channel.sort"} <= spec_features(data)
