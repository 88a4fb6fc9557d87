#!/usr/bin/env python3
"""Make schemas/chart.schema.json teach in the editor: descriptions, examples, defaults.

For every property (and every ``$defs`` entry) of the chart schema:

- ``markdownDescription`` = ``description`` (VS Code's YAML extension renders it
  as markdown on hover and in completion);
- ``examples`` from `EXAMPLES` when the property has none (an enum without an
  entry gets its first values; a boolean gets ``true, false``);
- ``default`` from `DEFAULTS` when it has none: what chartc or Vega-Lite does
  when the key is left out;
- ``description`` from `DESCRIPTIONS` for a property that has none (a bare
  ``$ref``), else the description of what it refers to.

Idempotent: a second run changes nothing. Every example and default is
validated against its property's schema before anything is written.

    python scripts/enrich_schema.py            # rewrite schemas/chart.schema.json
    python scripts/enrich_schema.py --check    # exit 1 if it would change the file

Table keys name a property by its path with branch indexes left out:
``trend.style.color`` (inside ``$defs.trend``), ``channel.axis.format``,
``data.path`` (top level). A value ``{"by_type": {...}}`` picks examples by
the property's JSON type, for names that mean different things in different
branches (``transform.as``).
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from pathlib import Path

SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "chart.schema.json"

FIELD = "Horsepower"
COLORS = ["#1f77b4", "gray", "tab:orange", "rgb(214, 39, 40)"]
FORMATS = ["pow10", "si", "percent", ".2f", ",d"]
CHANNEL = ["Horsepower", {"field": "Horsepower", "title": "Horsepower (hp)"}]
CHANNELS = ["Name", ["Name", "Horsepower", {"field": "Miles_per_Gallon", "title": "MPG"}]]

EXAMPLES: dict[str, object] = {
    # ---------------------------------------------------------------- top level
    "$schema": ["../schemas/chart.schema.json"],
    "title": ["Pretraining vs Downstream Performance"],
    "subtitle": ["Ordinary least squares, 95% confidence band"],
    "description": ["Miles per gallon against horsepower for 406 cars."],
    "width": [480, "container"],
    "height": [320, "container"],
    "data": [{"dataset": "cars"}, {"path": "data/results.csv"}, {"values": [{"model": "a", "loss": 2.4}]}],
    "data.values": [[{"model": "small", "params": 1.2e8, "loss": 3.1}, {"model": "large", "params": 1.3e9, "loss": 2.6}]],
    "data.path": ["data/results.csv", "runs/*.parquet"],
    "data.dataset": ["cars", "iris", "stocks"],
    "data.format": ["csv", "tsv", "json"],
    "data.sample": [20000],
    "transform": [[{"filter": {"field": "Horsepower", "valid": True}},
                   {"calculate": "datum.Miles_per_Gallon * 0.425", "as": "km_per_litre"}]],
    "encoding": [{"x": "Horsepower", "y": "Miles_per_Gallon", "color": "Origin"}],
    "encoding.x": CHANNEL,
    "encoding.y": ["Miles_per_Gallon", {"field": "Miles_per_Gallon", "title": "Miles per gallon"}],
    "encoding.x2": ["end", {"field": "end"}],
    "encoding.y2": ["upper", {"field": "upper"}],
    "encoding.color": ["Origin", {"field": "Origin", "title": "Origin"}, {"value": "#1f77b4"}],
    "encoding.shape": ["Origin", {"field": "Origin"}],
    "encoding.size": ["Weight_in_lbs", {"value": 60}],
    "encoding.opacity": [{"value": 0.7}, "confidence"],
    "encoding.fillOpacity": [{"value": 0.3}, {"condition": {"param": "select", "value": 1}, "value": 0.3}],
    "encoding.strokeOpacity": [{"value": 0.5}, "confidence"],
    "encoding.strokeWidth": [{"value": 2}, {"condition": {"param": "hover", "empty": False, "value": 2}, "value": 0}],
    "encoding.strokeDash": ["symbol", {"field": "symbol"}],
    "encoding.text": ["label", {"field": "value", "format": ".1f"}],
    "encoding.tooltip": CHANNELS,
    "encoding.detail": ["run", ["run", "seed"]],
    "mark": ["point", "line", "bar", {"type": "line", "strokeWidth": 2}],
    "markers": [{"field": "model", "styles": {"MLA": {"shape": "diamond", "color": "#d62728"},
                                              "LRKV": {"shape": "star", "color": "#9467bd", "size": 220}}}],
    "layers": [[{"mark": "point"}, {"trend": {"method": "linear"}}]],
    "legend": [{"position": "bottom-right"}, {"position": "top-left", "title": None}],
    "legend.position": ["bottom-right", "top-left", "right", "none"],
    "legend.title": ["Model", None],
    "legend.columns": [1, 2],
    "facet": [{"column": "Origin"}, {"row": "Cylinders"}],
    "facet.row": ["Cylinders", {"field": "Cylinders", "title": "Cylinders"}],
    "facet.column": ["Origin", {"field": "Origin"}],
    "facet.columns": [3],
    "config": [{"axis": {"labelFontSize": 12, "titleFontSize": 13}}, {"font": "Helvetica"}],
    "theme": ["default", "ggplot2", "fivethirtyeight"],
    "vega_lite": [{"config": {"view": {"stroke": None}}}, {"padding": 10}],
    # ---------------------------------------------------------------- channel
    "channel.field": ["Horsepower", "date", "model"],
    "channel.type": ["quantitative", "nominal", "temporal"],
    "channel.title": ["Horsepower (hp)", None],
    "channel.aggregate": ["mean", "count", "sum", "median"],
    "channel.bin": [True, {"maxbins": 20}, {"step": 5}],
    "channel.bin.maxbins": [10, 20, 40],
    "channel.bin.step": [5, 0.5],
    "channel.timeUnit": ["year", "month", "yearmonth"],
    "channel.sort": ["ascending", "descending", "-y", ["low", "medium", "high"], None],
    "channel.scale": [{"type": "log"}, {"domain": [0, 100], "zero": False}, {"scheme": "viridis"}],
    "channel.scale.type": ["linear", "log", "sqrt", "time"],
    "channel.scale.domain": [[0, 100], ["small", "medium", "large"]],
    "channel.scale.range": [["#1f77b4", "#ff7f0e"], [10, 200], "category"],
    "channel.scale.zero": [False, True],
    "channel.scale.nice": [True, False, 5],
    "channel.scale.reverse": [True, False],
    "channel.scale.scheme": ["tableau10", "viridis", "category20"],
    "channel.scale.exponent": [0.5, 2],
    "channel.scale.base": [10, 2],
    "channel.scale.clamp": [True, False],
    "channel.axis": [{"format": "pow10"}, {"title": "Horsepower", "grid": False}, None],
    "channel.axis.title": ["Horsepower (hp)", None],
    "channel.axis.format": FORMATS,
    "channel.axis.labelAngle": [0, -45, 90],
    "channel.axis.grid": [False, True],
    "channel.axis.orient": ["bottom", "top", "left", "right"],
    "channel.axis.tickCount": [5, 10],
    "channel.axis.values": [[1, 10, 100, 1000], ["2020-01-01", "2021-01-01"]],
    "channel.axis.labels": [True, False],
    "channel.axis.ticks": [True, False],
    "channel.axis.domain": [True, False],
    "channel.axis.titleColor": ["tab:red", "#85C5A6"],
    "channel.axis.labelColor": ["tab:red", "#1f77b4"],
    "channel.axis.tickColor": ["gray", "tab:blue"],
    "channel.axis.domainColor": ["black", "tab:blue"],
    "channel.axis.gridColor": ["#ddd", "lightgray"],
    "channel.legend": [{"title": "Origin"}, {"orient": "bottom", "columns": 3}, None],
    "channel.legend.title": ["Origin", None],
    "channel.legend.format": FORMATS,
    "channel.legend.orient": ["right", "bottom", "top-left"],
    "channel.legend.columns": [1, 3],
    "channel.value": ["#1f77b4", 60, 0.5],
    "channel.datum": [0, "2020-01-01", "threshold"],
    "channel.format": FORMATS,
    "channel.stack": ["zero", "normalize", None],
    # ------------------------------------------------------------- mark_object
    "mark_object.type": ["point", "line", "bar", "area"],
    "mark_object.color": COLORS,
    "mark_object.fill": COLORS,
    "mark_object.stroke": ["black", "#333333", "white"],
    "mark_object.opacity": [0.5, 0.8, 1],
    "mark_object.size": [30, 100],
    "mark_object.filled": [True, False],
    "mark_object.shape": ["circle", "square", "triangle-up"],
    "mark_object.strokeWidth": [1, 2],
    "mark_object.strokeDash": [[6, 4], [2, 2]],
    "mark_object.interpolate": ["linear", "monotone", "step-after"],
    "mark_object.point": [True, False],
    "mark_object.tooltip": [True, False],
    "mark_object.cursor": ["pointer", "crosshair", "grab"],
    "mark_object.align": ["left", "center", "right"],
    "mark_object.baseline": ["middle", "top", "bottom"],
    "mark_object.dx": [5, -5],
    "mark_object.dy": [-8, 8],
    "mark_object.fontSize": [11, 14],
    "mark_object.extent": ["min-max", 1.5, "stderr"],
    "mark_object.orient": ["vertical", "horizontal"],
    "mark_object.clip": [True, False],
    "mark_object.thickness": [1, 2],
    "mark_object.cornerRadius": [2, 4],
    "mark_object.density": [True, {"cell": 1}, {"bins": [80, 40], "scale": "log"}],
    "mark_object.density.cell": [1, 4],
    "mark_object.density.bins": [50, [80, 40]],
    "mark_object.density.scale": ["linear", "log"],
    # --------------------------------------------------------------- transform
    "transform.filter": ["datum.Horsepower > 100", {"field": "Origin", "equal": "USA"},
                         {"field": "Horsepower", "valid": True}],
    "transform.filter.field": ["Origin", "Horsepower"],
    "transform.filter.equal": ["USA", 4, True],
    "transform.filter.oneOf": [["AAPL", "MSFT"], [4, 6, 8]],
    "transform.filter.range": [[50, 150], ["2020-01-01", "2020-12-31"]],
    "transform.filter.lt": [100, "2021-01-01"],
    "transform.filter.lte": [100, "2021-01-01"],
    "transform.filter.gt": [0, "2019-12-31"],
    "transform.filter.gte": [0, "2020-01-01"],
    "transform.filter.valid": [True],
    "transform.calculate": ["datum.Miles_per_Gallon * 0.425", "log(datum.params) / LN10"],
    "transform.as": {"by_type": {"string": ["km_per_litre", "mean_loss"], "array": [["measure", "value"]]}},
    "transform.aggregate": [[{"op": "mean", "field": "loss", "as": "mean_loss"}, {"op": "count", "as": "runs"}]],
    "transform.aggregate.op": ["mean", "count", "max"],
    "transform.aggregate.field": ["loss", "Horsepower"],
    "transform.aggregate.as": ["mean_loss", "runs"],
    "transform.groupby": [["model"], ["model", "size"]],
    "transform.fold": [["train_loss", "val_loss"]],
    "transform.pivot": ["metric", "symbol"],
    "transform.limit": [5],
    "transform.op": ["sum", "mean", "max"],
    "transform.impute": ["price", "loss"],
    "transform.key": ["date", "step"],
    "transform.keyvals": [[2000, 2001, 2002], {"start": 0, "stop": 100, "step": 10}],
    "transform.method": ["value", "mean", "median"],
    "transform.frame": [[-2, 2], [None, 0]],
    # ------------------------------------------------------------------- layer
    "layer.mark": ["point", {"type": "line", "strokeWidth": 2}],
    "layer.encoding": [{"color": "model"}, {"y": "val_loss"}],
    "layer.encoding.x": CHANNEL,
    "layer.encoding.y": ["Miles_per_Gallon", {"field": "Miles_per_Gallon", "title": "Miles per gallon"}],
    "layer.encoding.x2": ["end", {"field": "end"}],
    "layer.encoding.y2": ["upper", {"field": "upper"}],
    "layer.encoding.color": ["Origin", {"value": "#1f77b4"}],
    "layer.encoding.shape": ["Origin", {"field": "Origin"}],
    "layer.encoding.size": ["Weight_in_lbs", {"value": 60}],
    "layer.encoding.opacity": [{"value": 0.7}, "confidence"],
    "layer.encoding.fillOpacity": [{"value": 0.3}, {"condition": {"param": "select", "value": 1}, "value": 0.3}],
    "layer.encoding.strokeOpacity": [{"value": 0.5}, "confidence"],
    "layer.encoding.strokeWidth": [{"value": 2}, {"condition": {"param": "hover", "empty": False, "value": 2}, "value": 0}],
    "layer.encoding.strokeDash": ["symbol", {"field": "symbol"}],
    "layer.encoding.text": ["label", {"field": "value", "format": ".1f"}],
    "layer.encoding.tooltip": CHANNELS,
    "layer.encoding.detail": ["run", ["run", "seed"]],
    "layer.markers": [{"field": "model", "styles": {"GQA": {"shape": "square", "color": "#ff7f0e"}}}],
    "layer.trend": [{"method": "linear"}, {"method": "loess", "bandwidth": 0.4},
                    {"method": "poly", "order": 3, "band": 0.95}],
    "layer.transform": [[{"filter": {"field": "split", "equal": "val"}}]],
    "layer.name": ["fit", "validation runs"],
    # ----------------------------------------------------------------- markers
    "markers.field": ["model", "species", "Cylinders"],
    "markers.styles": [{"MLA": {"shape": "diamond", "color": "#d62728"},
                        "Standard MHA": {"shape": "circle", "color": "#1f77b4"}}],
    "markers.default": [{"shape": "circle", "color": "gray", "size": 36, "filled": False}],
    "markers.title": ["Model", None],
    "marker_style.shape": ["circle", "diamond", "star", "triangle-up", "x"],
    "marker_style.color": COLORS,
    "marker_style.size": [64, 120, 220],
    "marker_style.filled": [True, False],
    "marker_style.opacity": [0.6, 1],
    "marker_style.stroke": ["black", "#333333"],
    "marker_style.strokeWidth": [1, 1.5],
    "marker_style.dash": [[6, 4], [2, 2]],
    "marker_style.width": [2, 3],
    "marker_style.label": ["Multi-head attention", "LRKV (ours)"],
    # ------------------------------------------------------------------- trend
    "trend.method": ["linear", "poly", "loess", "log"],
    # A method's parameters (trend.order, .bandwidth, .window) carry their examples
    # and defaults in their classes (chartc.trends.methods; scripts/build_schema.py).
    "trend.by": ["model", "Origin"],
    "trend.band": [0.95, 0.9],
    "trend.prediction": [0.95],
    "trend.label": ["Trend (R²={r2:.3f})", "{group}: {equation}"],
    "trend.annotate": ["top-left", {"position": "bottom-right", "text": "{equation}   R²={r2:.3f}"}],
    "trend.annotate.position": ["top-left", "bottom-right"],
    "trend.annotate.text": ["{equation}   R²={r2:.3f}", "n={n}"],
    "trend.extent": ["data", "axis", [0, 250]],
    "trend.space": ["axis", "data"],
    "trend.style": [{"color": "gray", "dash": [6, 4]}, {"color": "#d62728", "width": 2, "band_opacity": 0.2}],
    "trend.style.color": COLORS,
    "trend.style.dash": [[6, 4], [2, 2]],
    "trend.style.width": [1, 2, 3],
    "trend.style.opacity": [0.8, 1],
    "trend.style.band_opacity": [0.18, 0.3],
    # ------------------------------------------------------- interaction and layout
    "width.step": [20, 40],
    "height.step": [20, 40],
    "encoding.xOffset": ["site", {"field": "year", "type": "nominal"}],
    "encoding.yOffset": ["site", {"field": "year", "type": "nominal"}],
    "layer.encoding.xOffset": ["site", {"field": "year", "type": "nominal"}],
    "layer.encoding.yOffset": ["site", {"field": "year", "type": "nominal"}],
    "resolve": [{"scale": {"y": "independent"}}, {"scale": {"color": "independent"}, "legend": {"color": "independent"}}],
    "resolve.scale": [{"y": "independent"}],
    "resolve.axis": [{"y": "independent"}],
    "resolve.legend": [{"color": "independent"}],
    "params": [[{"name": "pick", "select": {"type": "point", "fields": ["Origin"]}, "bind": "legend"}],
               [{"name": "brush", "select": "interval"}]],
    "layer.params": [[{"name": "hover", "select": {"type": "point", "on": "pointerover"}}]],
    "layer.vega_lite": [{"params": [{"name": "grid", "select": "interval", "bind": "scales"}]},
                        {"mark": {"cursor": "pointer"}}],
    "param.name": ["brush", "hover", "pick"],
    "param.select": ["point", "interval", {"type": "point", "on": "pointerover"}],
    "param.select.on": ["pointerover", "click"],
    "param.select.clear": ["pointerout", False],
    "param.select.fields": [["Origin"]],
    "param.select.encodings": [["x"], ["color"]],
    "param.select.toggle": [False, "event.shiftKey"],
    "param.value": [[{"Origin": "Japan"}], {"x": [50, 100]}],
    "channel.condition": [{"param": "hover", "value": 1}, {"test": "datum.year == 1810", "value": "orange"}],
    "channel.sort.field": ["yield", "Horsepower"],
    "condition.param": ["hover", "brush"],
    "condition.test": ["datum.year == 1810", "datum.value < 0"],
    "condition.value": ["orange", 1, 0.2],
    "condition.field": ["Cylinders", "Origin"],
    "condition.type": ["ordinal", "nominal", "quantitative"],
}

# What happens when the key is left out (chartc's own defaults, then Vega-Lite's).
DEFAULTS: dict[str, object] = {
    "theme": "default",
    "legend.position": "right",
    "channel.scale.base": 10,
    "channel.scale.reverse": False,
    "channel.scale.clamp": False,
    "channel.axis.labels": True,
    "channel.axis.ticks": True,
    "channel.axis.domain": True,
    "mark_object.interpolate": "linear",
    "mark_object.point": False,
    "mark_object.tooltip": False,
    "mark_object.cornerRadius": 0,
    "mark_object.dx": 0,
    "mark_object.dy": 0,
    "marker_style.shape": "circle",
    "marker_style.size": 64,
    "marker_style.filled": True,
    "marker_style.opacity": 1,
    "marker_style.width": 2,
    "transform.filter.valid": True,
    "transform.as": {"by_type": {"array": ["key", "value"]}},
    "transform.limit": 0,
    "transform.op": "sum",
    "transform.method": "value",
    "transform.frame": [None, None],
    "trend.method": "linear",
    "trend.extent": "data",
    "trend.space": "axis",
    "trend.style.color": "gray",
    "trend.style.width": 2,
    "trend.style.opacity": 1,
    "trend.style.band_opacity": 0.18,
}

# For properties that are a bare $ref (their target's description is the fallback).
DESCRIPTIONS: dict[str, str] = {
    "layer.markers": "Per-category marker styles of this layer: one legend that merges shape, colour and size.",
    "layer.trend": "A fitted trend line (regression, loess or moving average) computed when the chart compiles, "
                   "instead of a mark.",
}


# ---------------------------------------------------------------- walking

def properties(schema: dict):
    """Yield ``(table key, property schema)`` for every property of the schema.

    Walks the top level, then each ``$defs`` entry (keyed by its name), through
    ``anyOf``/``oneOf``/``allOf`` branches, ``items`` and ``additionalProperties``.
    """
    def walk(node, key):
        if not isinstance(node, dict):
            return
        for combinator in ("anyOf", "oneOf", "allOf"):
            for branch in node.get(combinator, []):
                yield from walk(branch, key)
        for nested in ("items", "additionalProperties"):
            if isinstance(node.get(nested), dict):
                yield from walk(node[nested], key)
        for name, sub in node.get("properties", {}).items():
            path = f"{key}.{name}" if key else name
            yield path, sub
            yield from walk(sub, path)

    yield from walk(schema, "")
    for name, definition in schema.get("$defs", {}).items():
        yield from walk(definition, name)


def described_nodes(schema: dict):
    """Every schema node that carries a description (root, defs, properties, branches)."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        if isinstance(node.get("description"), str):
            yield node
        for key, value in node.items():
            if key in ("properties", "$defs", "patternProperties") and isinstance(value, dict):
                stack.extend(value.values())  # names here are property names, not keywords
            elif key not in ("examples", "default", "enum", "const"):
                stack.append(value)


def _json_type(node: dict, root: dict) -> str | None:
    target = _resolve(node, root)
    kind = target.get("type")
    return kind if isinstance(kind, str) else None


def _resolve(node: dict, root: dict) -> dict:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return root["$defs"][ref.rsplit("/", 1)[1]]
    return node


def _pick(entry, node: dict, root: dict):
    """A table entry, or its branch for this property's type; None when there is none."""
    if isinstance(entry, dict) and "by_type" in entry:
        return entry["by_type"].get(_json_type(node, root))
    return entry


def _fallback_examples(node: dict, root: dict):
    target = _resolve(node, root)
    if "enum" in target:
        return [v for v in target["enum"] if v is not None][:4]
    if "const" in target:
        return [target["const"]]
    if target.get("type") == "boolean":
        return [True, False]
    return None


# --------------------------------------------------------------- enriching

def enrich(schema: dict) -> tuple[dict, list[str]]:
    """The enriched schema and the problems found (properties left incomplete, bad examples).

    Does not modify `schema`.
    """
    root = copy.deepcopy(schema)
    problems: list[str] = []
    for key, node in properties(root):
        plain = re.sub(r"\[\d*\]", "", key)
        if not node.get("description"):
            text = DESCRIPTIONS.get(plain) or _resolve(node, root).get("description")
            if text:
                _put(node, "description", text)
        if "examples" not in node:
            examples = _pick(EXAMPLES.get(plain), node, root)
            if examples is None:
                examples = _fallback_examples(node, root)
            if examples is not None:
                _put(node, "examples", list(examples))
        if "default" not in node and plain in DEFAULTS:
            default = _pick(DEFAULTS[plain], node, root)
            if default is not None:
                _put(node, "default", default)
        for missing in ("description", "examples"):
            if missing not in node:
                problems.append(f"{key}: no {missing} (add it to {missing.upper()} in {Path(__file__).name})")
        problems.extend(_check_values(key, node, root))
    for node in described_nodes(root):
        _put(node, "markdownDescription", node["description"])
    return root, problems


ANNOTATIONS = ("description", "markdownDescription", "examples", "default")


def _put(node: dict, key: str, value) -> None:
    """Set `key`; the annotations stay together, in `ANNOTATIONS` order, where
    ``description`` was (or first)."""
    node[key] = value
    items = list(node.items())
    anchor = next((i for i, (k, _) in enumerate(items) if k == "description"), None)
    notes = [(k, node[k]) for k in ANNOTATIONS if k in node]
    others = [(k, v) for k, v in items if k not in ANNOTATIONS]
    cut = 0 if anchor is None else sum(1 for k, _ in items[:anchor] if k not in ANNOTATIONS)
    node.clear()
    node.update(others[:cut] + notes + others[cut:])


def _check_values(key: str, node: dict, root: dict) -> list[str]:
    """Every example and the default must be valid for the property."""
    from jsonschema import Draft202012Validator

    sub = {k: v for k, v in node.items() if k not in ("examples", "default")}
    validator = Draft202012Validator({**sub, "$defs": root.get("$defs", {})}, format_checker=_format_checker())
    found = []
    values = [("example", v) for v in node.get("examples", [])]
    if "default" in node:
        values.append(("default", node["default"]))
    for what, value in values:
        error = next(iter(validator.iter_errors(value)), None)
        if error is not None:
            found.append(f"{key}: {what} {json.dumps(value, ensure_ascii=False)} is invalid: {error.message}")
    return found


def _format_checker():
    """chartc's own formats (``color``): a colour example must be one chartc accepts."""
    try:
        from chartc.stages.validate import format_checker
    except ImportError:  # run where chartc is not installed: formats are not checked
        return None
    return format_checker()


def schema_text(schema: dict) -> str:
    """The schema file's text: two-space indent, UTF-8 as is, trailing newline."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the schema is not enriched yet")
    parser.add_argument("--schema", type=Path, default=SCHEMA, help="the schema file (default: %(default)s)")
    args = parser.parse_args(argv)
    text = args.schema.read_text(encoding="utf-8")
    enriched, problems = enrich(json.loads(text))
    for problem in problems:
        print(f"{args.schema}: {problem}", file=sys.stderr)
    new_text = schema_text(enriched)
    if args.check:
        if new_text != text:
            print(f"{args.schema}: not enriched; run python scripts/enrich_schema.py", file=sys.stderr)
            return 1
        return 1 if problems else 0
    if new_text != text:
        args.schema.write_text(new_text, encoding="utf-8", newline="\n")
        print(f"{args.schema}: enriched")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
