"""The spec reference, docs/reference.md, generated from the JSON Schema.

`schema_reference_markdown` turns ``schemas/chart.schema.json`` into one
markdown table per mapping (every property with its type and description), so
the reference cannot drift from the schema: ``chartc schema --markdown``
prints it, and tests/test_schema_docs.py checks docs/reference.md against it.
It ends with the registries' own sections, written from the classes: every
trend method (its parameters, label placeholders and bands) and every
marker shape; then math in labels (`infra.mathtext`) and the colour-blind-safe
palettes (`infra.colors.PALETTES`).
"""

from __future__ import annotations

import json
import re

from ..infra.colors import PALETTES
from ..infra.mathtext import BLACKBOARD, FUNCTIONS, SUBSCRIPTS, SUPERSCRIPTS, SYMBOLS
from ..infra.shapes import registered_shapes
from ..stages.validate import load_schema
from ..trends.registry import COMMON_PLACEHOLDERS, STATISTICS_PLACEHOLDERS, registered

HEADING = "###"
ROOT_NAME = "Top level"


def schema_reference_markdown(schema: dict | None = None) -> str:
    """The reference of every spec property as markdown, ending with a newline.

    Args:
        schema: the chart JSON Schema (default: the one chartc validates with).

    Returns:
        One section per mapping of the schema, in the order a reader meets
        them from the top level: a heading, the mapping's description and a
        table of its properties (name, type, description). Types name the
        section of a nested mapping as a link.
    """
    if schema is None:
        schema = load_schema()
    reference = _Reference(schema)
    return (reference.markdown() + "\n" + _methods_markdown(reference) + "\n" + _shapes_markdown() + "\n"
            + _math_markdown() + "\n" + _palettes_markdown())


def _methods_markdown(reference: _Reference) -> str:
    """The trend methods section: one subsection per registered method, from its class."""
    common = ", ".join(f"`{{{p.name}}}`" for p in (*STATISTICS_PLACEHOLDERS, *COMMON_PLACEHOLDERS))
    lines = [f"{HEADING} Trend methods", "",
             "Every `method` a [trend](#trend) takes, with its own keys and label placeholders. Every method "
             f"offers {common}; a statistic a method does not compute (R² of a smoother) is an error in a "
             "label.", ""]
    for name, cls in registered().items():
        lines += [f"#### `{name}`", "", _one_line(cls.description), ""]
        if cls.aliases:
            lines += ["Also written " + ", ".join(f"`{a}`" for a in cls.aliases) + ".", ""]
        if cls.parameters:
            lines += ["| Parameter | Type | Description |", "| --- | --- | --- |"]
            for parameter in cls.parameters:
                kind = reference.type_of(dict(parameter.schema), f"trend.{parameter.name}")
                lines.append(f"| `{parameter.name}` | {_cell(kind)} | {_cell(reference.description(dict(parameter.schema)))} |")
            lines.append("")
        if cls.placeholders:
            lines += ["| Placeholder | Type | Description |", "| --- | --- | --- |"]
            lines += [f"| `{{{p.name}}}` | {p.kind} | {_cell(p.description)} |" for p in cls.placeholders]
            lines.append("")
        bands = "Bands: `band` and `prediction`." if cls.has_band else "No bands."
        reach = "" if cls.extrapolates else " The curve stops at the data's x range."
        lines += [bands + reach + " " + _scaling(cls), ""]
    return "\n".join(lines)


def _scaling(cls) -> str:
    """How a method's fit grows with the rows, from its class."""
    if cls.from_moments:
        return ("Fits any number of rows: from sums the data engine computes in one query per layer, exact "
                "(centred) and the same on every run.")
    if cls.max_rows is not None:
        return (f"Fitted in memory on every row of a group, up to {cls.max_rows:,} rows (more is refused, "
                "E639: aggregate or bin first).")
    return "Fitted in memory on every row."


def _shapes_markdown() -> str:
    """The marker shapes section: every registered shape, its aliases and what Vega draws."""
    lines = [f"{HEADING} Marker shapes", "",
             "Every `shape` a marker style, a point mark or a shape channel's `value` and `range` take. An outline is an "
             "SVG path scaled to the area of Vega's circle, so every one covers the same pixels at one `size`.",
             "", "| Shape | Aliases | Drawn as |", "| --- | --- | --- |"]
    for name, shape in registered_shapes().items():
        aliases = " ".join(f"`{a}`" for a in shape.aliases) or "—"
        if shape.strokes is not None:
            drawn = "thin lines, unfilled (a matplotlib line marker)"
        elif shape.outline is not None:
            drawn = "an equal-area outline" if shape.area == 1 else f"an outline at {shape.area:g} of the circle's area"
        else:
            drawn = f"Vega's `{shape.symbol}`"
        if not shape.filled and shape.strokes is None:
            drawn += " (a line: needs `filled: false`)"
        lines.append(f"| `{name}` | {_cell(aliases)} | {drawn} |")
    return "\n".join(lines) + "\n"


def _math_markdown() -> str:
    """The math-in-labels section: the syntax, and every command and script character, from infra/mathtext.py."""
    symbols = " ".join(f"`\\{name}` {char.strip() or '(space)'}" for name, char in SYMBOLS.items()
                       if name not in FUNCTIONS and char)
    lines = [f"{HEADING} Math in labels", "",
             "Text between two `$` in a title, subtitle, axis, legend or header title, a marker style's `label`, a "
             "marker map's or the legend's `title`, a trend's `label` and `annotate.text`, or a text mark's `text` "
             "is math, written as Unicode text: `'$R^2$'` draws R², `'$10^{-3}$'` 10⁻³, `'$\\alpha$'` α. A text "
             "with an odd number of `$` has no math (`Cost ($)`); `\\$` is a literal `$`. In YAML write math in "
             "single quotes (in double quotes `\\a` is a control character). Trend labels and annotations are "
             "format templates: their braces are doubled (`'$10^{{-3}}$'`). Math that has no Unicode form is an "
             "error (E725-E728).", "",
             "- Superscripts `x^2`, `x^{-3}` and subscripts `x_i`, `x_{max}` of these characters: superscript "
             + " ".join(f"`{c}`" for c in SUPERSCRIPTS if c not in "∘′*∗†")
             + "; subscript " + " ".join(f"`{c}`" for c in SUBSCRIPTS)
             + ". `^\\circ` is °, `^\\prime` and `'` are ′, `^*` is *. One level only (no `e^{x^2}`).",
             "- `\\frac{a}{b}` as a/b (a part that is not one character, a number or a word in parentheses: "
             "(a+b)/2), `\\sqrt{x}` as √x, `\\mathbb{R}` as ℝ (" + " ".join(BLACKBOARD) + "), "
             "`\\mathrm{..}`, `\\operatorname{..}`, `\\mathit{..}` and `\\text{..}` as their content; "
             "`\\left` and `\\right` draw their delimiter.",
             "- `-` is the minus sign −, `~` a no-break space; spaces are kept as written; letters stay upright.",
             "- Function names as their words: " + " ".join(f"`\\{name}`" for name in FUNCTIONS) + ".",
             "- Symbols: " + symbols + ".", ""]
    return "\n".join(lines)


def _palettes_markdown() -> str:
    """The palettes section: chartc's colour-blind-safe palettes and the checks that suggest them."""
    lines = [f"{HEADING} Colour-blind-safe palettes", "",
             "A colour channel's `scale: {scheme: NAME}` takes these besides Vega's schemes (chartc writes their "
             "colours as the scale's range). Okabe & Ito's, and Paul Tol's (SRON/EPS/TN/09-002, 2021) qualitative "
             "schemes. Categories told apart by colour alone are checked for a greyscale print and for "
             "deuteranopia, protanopia and tritanopia (W770, W771).", "",
             "| Scheme | Colours | Source |", "| --- | --- | --- |"]
    sources = {"okabe-ito": "Okabe & Ito (2008); Wong, Nature Methods 8, 441 (2011)"}
    lines += [f"| `{name}` | {' '.join(f'`{c}`' for c in colors)} | "
              f"{sources.get(name, 'Paul Tol, SRON/EPS/TN/09-002 (2021)')} |" for name, colors in PALETTES.items()]
    return "\n".join(lines) + "\n"


class _Reference:
    """Walks the schema breadth first, naming each mapping once."""

    def __init__(self, schema: dict):
        self.schema = schema
        self.queue: list[tuple[str, dict]] = []
        self.names: dict[str, str] = {}  # canonical JSON of a mapping schema -> its section name

    def markdown(self) -> str:
        self.section_for(ROOT_NAME, self.schema)
        sections = []
        done = 0
        while done < len(self.queue):  # sections queue more sections as they are written
            name, node = self.queue[done]
            sections.append(self.section(name, node))
            done += 1
        return "\n".join(sections)

    # ------------------------------------------------------------ sections

    def section_for(self, name: str, node: dict) -> str:
        """The section name of a mapping schema, queueing it the first time it is seen."""
        key = json.dumps(node, sort_keys=True)
        if key not in self.names:
            self.names[key] = name
            self.queue.append((name, node))
        return self.names[key]

    def section(self, name: str, node: dict) -> str:
        lines = [f"{HEADING} {name}", ""]
        if node.get("description"):
            lines += [_one_line(node["description"]), ""]
        if "properties" not in node:  # a choice between mappings: list them
            for branch_name, branch in self.variants(name, node):
                summary = _one_line(branch.get("description", ""))
                lines.append(f"- {_link(self.section_for(branch_name, branch))}" + (f": {summary}" if summary else ""))
            return "\n".join(lines) + "\n"
        lines += ["| Property | Type | Description |", "| --- | --- | --- |"]
        required = set(node.get("required", []))
        prefix = "" if name == ROOT_NAME else name + "."
        for prop, sub in node["properties"].items():
            label = f"`{prop}`" + (" (required)" if prop in required else "")
            kind = self.type_of(sub, prefix + prop)
            lines.append(f"| {_cell(label)} | {_cell(kind)} | {_cell(self.description(sub))} |")
        return "\n".join(lines) + "\n"

    def description(self, node: dict) -> str:
        text = node.get("description") or self.resolve(node).get("description", "")
        text = _one_line(text)
        if "default" in node:
            text = (text + " " if text else "") + f"Default: {_literal(node['default'])}."
        return text

    # ------------------------------------------------------------ types

    def resolve(self, node: dict) -> dict:
        ref = node.get("$ref")
        if not ref:
            return node
        return self.schema["$defs"][ref.rsplit("/", 1)[-1]]

    def variants(self, name: str, node: dict) -> list[tuple[str, dict]]:
        """The inline mappings of an anyOf/oneOf, when there are several, each named
        by its first required key (``transform.filter``)."""
        branches = node.get("anyOf") or node.get("oneOf") or []
        objects = [b for b in branches if "properties" in b]
        if len(objects) < 2:
            return []
        return [(f"{name}.{(b.get('required') or [i])[0]}", b) for i, b in enumerate(objects)]

    def type_of(self, node: dict, name: str) -> str:
        """A readable type: ``string``, ``number ≥ 0``, ``list of [layer](#layer)``, ..."""
        if "$ref" in node:
            def_name = node["$ref"].rsplit("/", 1)[-1]
            target = self.resolve(node)
            if "properties" in target or self.variants(def_name, target):
                return _link(self.section_for(def_name, target))
            return self.type_of(target, def_name)
        if "const" in node:
            return _literal(node["const"])
        if "enum" in node:
            return " or ".join(_literal(v) for v in node["enum"])
        for combinator in ("anyOf", "oneOf"):
            if combinator in node and "type" not in node:
                named = dict((id(b), n) for n, b in self.variants(name, node))
                kinds = [self.type_of(b, named.get(id(b), name)) for b in node[combinator]]
                return " or ".join(dict.fromkeys(kinds))
        kinds = node.get("type")
        if kinds is None:
            return "any"
        if isinstance(kinds, list):
            return " or ".join(self.type_of({**node, "type": k}, name) for k in kinds)
        if kinds == "object":
            if "properties" in node:
                return _link(self.section_for(name, node))
            values = node.get("additionalProperties")
            if isinstance(values, dict):
                return f"mapping of name → {self.type_of(values, name + '.*')}"
            return "mapping"
        if kinds == "array":
            items = node.get("items") or {}
            item = self.type_of(items, name) if items else ""
            kind = f"list of ({item})" if " or " in item else (f"list of {item}" if item else "list")
            low, high = node.get("minItems"), node.get("maxItems")
            if low is not None and low == high:
                return f"{kind} ({low} items)"
            if low:
                return f"{kind} (at least {low})"
            return kind
        if kinds in ("number", "integer"):
            return kinds + _bounds(node)
        return kinds


def _bounds(node: dict) -> str:
    if "minimum" in node and "maximum" in node:
        return f" from {node['minimum']:g} to {node['maximum']:g}"
    parts = []
    for key, sign in (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<")):
        if key in node:
            parts.append(f"{sign} {node[key]:g}")
    return " " + ", ".join(parts) if parts else ""


def _literal(value) -> str:
    return f"`{json.dumps(value, ensure_ascii=False).strip(chr(34))}`" if isinstance(value, str) else \
        f"`{json.dumps(value)}`"


def _slug(name: str) -> str:
    """The anchor GitHub gives a heading."""
    return re.sub(r"[^\w\- ]", "", name.lower()).replace(" ", "-")


def _link(name: str) -> str:
    return f"[{name}](#{_slug(name)})"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


# ---------------------------------------------------------------- README block
