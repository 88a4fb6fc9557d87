"""Property tests: whatever spec chartc is given, it compiles or says why.

Specs come from two generators:

- `schema_specs`: built from ``schemas/chart.schema.json``. The object
  structure (which keys, which are required, which branch of an ``anyOf``) is
  walked here, so each example stays small and fast; every leaf (a channel's
  scale, a trend, a mark object, a transform...) is drawn by
  hypothesis-jsonschema from its own sub-schema. Data is one of a few fixed
  tables with known columns, and field names are drawn from those columns plus
  a few wrong ones, so compilation often gets past the data stage.
- `mutated_specs`: the example specs in ``specs/``, with keys dropped, values
  swapped, types changed, and odd text (markup, control characters, huge
  numbers, empty lists) put in.

Either kind may also be mutated, so both valid and invalid specs are tried.
For every input, `check_spec_file` requires that chartc either raises its own
`SpecError` whose every diagnostic has a ``FILE:LINE:COL``, or returns
Vega-Lite that is valid against Altair's Vega-Lite schema, is finite JSON, and
is byte-identical when compiled again. Nothing is rendered here (rendering is
the slow, abortable part): ``benchmarks/fuzz.py`` renders in a subprocess.

The budget is fixed and derandomised so CI is deterministic and quick; run
``python benchmarks/fuzz.py --minutes N`` for a long run.
"""

from __future__ import annotations

import copy
import functools
import json
import math
import shutil
import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
pytest.importorskip("hypothesis_jsonschema")

from hypothesis import HealthCheck, event, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis_jsonschema import from_schema  # noqa: E402

from chartc.errors import SpecError, SpecWarning  # noqa: E402
from chartc.stages.load import load_spec  # noqa: E402
from chartc.pipeline import compile_spec  # noqa: E402
from chartc.infra.jsonout import canonical_json  # noqa: E402
from chartc.stages.validate import load_schema  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs"
EXAMPLE_SPECS = sorted(p for p in SPECS.glob("*.yaml"))

# ------------------------------------------------------------------ the data

# One small table with a column of every kind, and text that must stay inert.
COLUMNS = ("x", "y", "cat", "date", "n", "label", "neg")
ROWS = [
    {"x": x, "y": y, "cat": cat, "date": f"2024-01-{day:02d}", "n": n, "label": label, "neg": neg}
    for x, y, cat, day, n, label, neg in zip(
        [0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 21.0],
        [1.2, 1.9, 3.1, 4.2, 5.8, 9.1, 13.5, 22.0],
        ["A", "B", "C", "A", "B", "C", "A", "B"],
        range(1, 9),
        [1, 2, 3, 4, 5, 6, 7, 8],
        ["</script><script>alert(1)</script>", '" onmouseover="alert(1)', "é ü ß", "名前",
         "a&b<c>", "\u2028line\u2029", "plain", "😀"],
        [-3.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
    )
]
# Names a spec may use: mostly the real columns, sometimes near misses or nonsense.
WRONG_FIELDS = ("X", "Cat", "nope", "key", "value", "total")
FIELD_NAMES = (*COLUMNS * 5, *WRONG_FIELDS)
CATEGORIES = ("A", "B", "C", "D", "", "</script>")


def _csv(rows, columns=COLUMNS) -> str:
    def cell(value):
        text = "" if value is None else str(value)
        if any(c in text for c in ',"\n\r'):
            text = '"' + text.replace('"', '""') + '"'
        return text
    return "\n".join([",".join(columns)] + [",".join(cell(r.get(c)) for c in columns) for r in rows]) + "\n"


def make_workspace(folder: Path) -> Path:
    """Write the data files the generated specs point at, and the examples' data.

    Returns:
        `folder`, which then holds ``table.csv``, ``table.json``, odd tables
        (control characters, NaN, only a header, empty), and ``data/`` copied
        from ``specs/data``.
    """
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "table.csv").write_text(_csv(ROWS), encoding="utf-8")
    (folder / "table.json").write_text(json.dumps(ROWS), encoding="utf-8")
    control = [dict(r, label=f"bad\x08{r['label']}\x00\ufffe", cat=r["cat"] + "\x1b") for r in ROWS]
    (folder / "control.csv").write_text(_csv(control), encoding="utf-8")
    odd = [dict(r, x=v, y=w) for r, v, w in zip(ROWS, ["nan", "inf", "-inf", "", "1e308", "-0", "x", "2"],
                                                  ["1", "", "nan", "3", "inf", "5", "6", "1e-320"])]
    (folder / "nonfinite.csv").write_text(_csv(odd), encoding="utf-8")
    (folder / "header.csv").write_text(",".join(COLUMNS) + "\n", encoding="utf-8")
    (folder / "empty.csv").write_text("", encoding="utf-8")
    (folder / "same_x.csv").write_text(_csv([dict(r, x=1.0) for r in ROWS]), encoding="utf-8")
    (folder / "table.txt").write_text(_csv(ROWS), encoding="utf-8")
    shutil.copytree(SPECS / "data", folder / "data", dirs_exist_ok=True)
    return folder


GOOD_DATA = ({"values": ROWS}, {"path": "table.csv"})
DATA_SOURCES = (
    *GOOD_DATA * 8,
    {"path": "table.json"},
    {"path": "table.txt", "format": "csv"},
    {"path": "control.csv"},
    {"path": "nonfinite.csv"},
    {"path": "same_x.csv"},
    {"path": "header.csv"},
    {"path": "empty.csv"},
    {"values": []},
    {"values": [{"x": None, "y": None, "cat": None}, {"x": 1, "y": "text", "cat": {"nested": [1]}}]},
    {"values": ROWS[:1]},
    {"path": "missing.csv"},
    {"path": "../outside.csv"},
    {"path": "/etc/passwd"},
    {"path": "https://example.com/data.csv"},
    {"path": "data"},
    {"dataset": "cars"},
    {"table": "logs.runs"},
)

# ------------------------------------------------------------------ specs from the schema

FIELD = st.sampled_from(FIELD_NAMES)
# Free-form mappings (config, vega_lite) passed through to Vega-Lite: a few
# valid settings, a few invalid ones.
FREE_FORM = {
    "config": ({}, {"view": {"stroke": None}}, {"axis": {"labelFontSize": 14}}, {"bogus": 1},
               {"axis": {"labelFontSize": "big"}}, {"legend": {"orient": "nowhere"}}),
    "vega_lite": ({}, {"usermeta": {"note": "</script>"}}, {"padding": 10}, {"mark": 3},
                  {"encoding": {"x": {"type": "wrong"}}}, {"data": {"url": "https://example.com/x.csv"}},
                  {"background": None}),
}
# Objects whose variants are told apart by a key (the chart schema says so in
# prose and `not`, which generation cannot follow): key -> keys it excludes.
EXCLUSIVE_KEYS = {
    (): {"mark": ("layers",), "layers": ("mark", "markers")},
    ("layer",): {"mark": ("trend",), "trend": ("mark", "markers")},
}
# Free text: mostly plain, sometimes markup or odd Unicode, rarely a control
# character (which the loader must reject).
PLAIN_TEXT = st.one_of(
    st.sampled_from(("Trend", "x axis", "é ü 名前 😀", "</script>", '" onmouseover="x', "a&b", "\u2028", "")),
    st.text(st.characters(exclude_categories=("Cc", "Cs")), max_size=12),
)
TEXT = st.integers(0, 29).flatmap(lambda i: st.text(max_size=4) if i == 0 else PLAIN_TEXT)
# Any value (scale domains, sort orders, axis values): mostly what the data holds.
ANY_VALUE = st.one_of(
    st.sampled_from((0, 1, 2.5, -1, 1e9, None, True, "A", "B", "2024-01-03", "nope")),
    st.floats(allow_nan=False, allow_infinity=False), st.integers(), PLAIN_TEXT,
    st.lists(st.integers(-5, 5), max_size=2), st.fixed_dictionaries({}, optional={"year": st.integers(2000, 2030)}),
)
# Strings with a vocabulary: mostly valid words, a few wrong ones.
SAMPLED_TEXT = {
    "shape": ("circle", "square", "diamond", "triangle-up", "star", "x", "plus", "o", "^", "cross", "blob"),
    "color": ("red", "#1f77b4", "gray", "rgb(10, 20, 30)", "transparent", "not-a-colour", ""),
    "stroke": ("black", "#d62728", ""),
    "format": ("pow10", "si", "percent", ".2f", ",d", "%Y", ".3~s", "bogus{", ""),
    "label": ("Trend (R²={r2:.3f})", "{method}: n={n}", "y = {equation}", "{nope}", "{r2", "{coef[9]}", "plain"),
    "scheme": ("viridis", "tableau10", "blues", "no-such-scheme"),
}
EXPRESSIONS = ("datum.x * 2", "datum.nope + 1", "datum.x >", "log(datum.x)", "'</script>'")


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


class SchemaStrategies:
    """Hypothesis strategies for the chart schema, with field names from the data."""

    def __init__(self, schema: dict):
        self.schema = schema
        self.defs = schema["$defs"]
        self.memo: dict[str, st.SearchStrategy] = {}

    def spec(self) -> st.SearchStrategy:
        return self.node(self.schema, ())

    def ref(self, name: str) -> st.SearchStrategy:
        if name not in self.memo:
            self.memo[name] = st.deferred(lambda: self.node(self.defs[name], (name,)))
        return self.memo[name]

    def leaf(self, schema: dict) -> st.SearchStrategy:
        # hypothesis-jsonschema draws each leaf from its own (small) schema.
        leaf = {k: v for k, v in schema.items() if k not in ("description", "markdownDescription", "examples", "default")}
        if '"$ref"' in json.dumps(leaf):
            leaf["$defs"] = self.defs
        return from_schema(leaf)

    def node(self, schema: dict, where: tuple) -> st.SearchStrategy:
        key = where[-1] if where else None
        if "$ref" in schema:
            return self.ref(_ref_name(schema["$ref"]))
        if key in ("field", "by") or where[-2:] in (("fold", "[]"), ("groupby", "[]")):
            return FIELD
        if key in FREE_FORM:
            return st.sampled_from(FREE_FORM[key])
        if key == "calculate":
            return st.sampled_from(EXPRESSIONS)
        if key == "data" and where == ("data",):
            return st.sampled_from(DATA_SOURCES)
        for choice in ("anyOf", "oneOf"):
            if choice in schema and "type" not in schema:
                return st.one_of([self.node(branch, where) for branch in schema[choice]])
        kind = schema.get("type")
        if kind == "string" and schema.get("minLength") == 1 and "pattern" not in schema:
            # a channel shorthand (`x: bpb`), a groupby or fold entry, an `as` name
            return FIELD
        if key in SAMPLED_TEXT and kind == "string":
            return st.sampled_from(SAMPLED_TEXT[key])
        if kind == "string" and not {"enum", "const", "pattern", "format"} & set(schema):
            return TEXT
        if isinstance(kind, list) and "string" in kind and not {"enum", "const", "pattern"} & set(schema):
            return st.one_of(TEXT, self.leaf({**schema, "type": [t for t in kind if t != "string"]}))
        if kind == "object" and "properties" in schema:
            props = schema["properties"]
            if where in EXCLUSIVE_KEYS:  # e.g. a chart has `mark` or `layers`: one variant each
                return st.one_of([self.mapping(schema, where, must=choice, omit=omit)
                                  for choice, omit in EXCLUSIVE_KEYS[where].items() if choice in props])
            return self.mapping(schema, where)
        if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
            return st.dictionaries(st.sampled_from(CATEGORIES), self.node(schema["additionalProperties"], where + ("*",)),
                                   min_size=schema.get("minProperties", 0), max_size=4)
        if kind == "array" and "items" in schema:
            items = self.node(schema["items"], where + ("[]",)) if schema["items"] else ANY_VALUE
            return st.lists(items, min_size=schema.get("minItems", 0), max_size=min(schema.get("maxItems", 4), 4))
        if not schema or set(schema) <= {"description"}:
            return ANY_VALUE
        return self.leaf(schema)

    def mapping(self, schema: dict, where: tuple, must: str | None = None, omit=()) -> st.SearchStrategy:
        """An object with its required keys (and `must`), any of the others but `omit`."""
        props = schema["properties"]
        names = [k for k in schema.get("required", []) if k in props] + ([must] if must else [])
        required = {k: self.node(props[k], where + (k,)) for k in names}
        optional = {k: self.node(v, where + (k,)) for k, v in props.items() if k not in required and k not in omit}
        return st.fixed_dictionaries(required, optional=optional)


@functools.cache
def schema_specs() -> st.SearchStrategy:
    """Chart specs drawn from the chart schema (mostly valid, data and fields fixed)."""
    strategies = SchemaStrategies(load_schema())
    return strategies.spec().map(lambda spec: {"data": spec.pop("data", DATA_SOURCES[0]), **spec})


# ------------------------------------------------------------------ mutations

JUNK = (
    None, True, False, 0, -1, 1.5, -1e-308, 1e308, 2**63, -(2**70), "", " ", "é",
    "</script><script>alert(1)</script>", '" onmouseover="alert(1)', "\u2028", "\ufffe", "\x08",
    "x" * 5000, "{r2", "{nope}", "10", "data", "log", "pow10", [], {}, [0], [1, 1],
    [None, None], {"field": "x"}, {"a": 1}, "nope", "cat", "x", "poly", "linear",
)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value[:20]):
            yield from _paths(v, prefix + (i,))


def _get(doc, path):
    for key in path:
        doc = doc[key]
    return doc


@st.composite
def mutate(draw, spec: dict, rounds: int = 3) -> dict:
    """`spec` with a few random edits: drop, replace, swap, empty, duplicate, add a key."""
    spec = copy.deepcopy(spec)
    for _ in range(draw(st.integers(1, rounds))):
        paths = [p for p in _paths(spec) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent, key = _get(spec, path[:-1]), path[-1]
        op = draw(st.sampled_from(("drop", "junk", "junk", "swap", "empty", "duplicate", "add", "text")))
        if op == "drop":
            del parent[key]
        elif op == "junk":
            parent[key] = copy.deepcopy(draw(st.sampled_from(JUNK)))
        elif op == "swap":
            other = draw(st.sampled_from(paths))
            try:
                parent[key] = copy.deepcopy(_get(spec, other))
            except (KeyError, IndexError, TypeError):
                pass
        elif op == "empty":
            parent[key] = type(parent[key])() if isinstance(parent[key], (list, dict, str)) else None
        elif op == "duplicate" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        elif op == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(("extra", "Field", "layers", "mark", "trend", "scale", "type")))] = \
                copy.deepcopy(draw(st.sampled_from(JUNK)))
        elif op == "text":
            parent[key] = draw(st.text(max_size=12))
    return spec


@functools.cache
def example_documents() -> tuple:
    """The example specs as plain data (their `$schema` removed: it is only for editors)."""
    docs = []
    for path in EXAMPLE_SPECS:
        data = load_spec(path).data
        data.pop("$schema", None)
        docs.append((path.stem, data))
    return tuple(docs)


def mutated_specs() -> st.SearchStrategy:
    """The example specs, each edited a few times."""
    return st.sampled_from(example_documents()).flatmap(lambda named: mutate(named[1]))


# ------------------------------------------------------------------ the oracle

@functools.cache
def vega_lite_validator():
    """Altair's Vega-Lite schema (the version chartc compiles to), built once."""
    import altair
    from jsonschema import Draft7Validator

    path = Path(altair.__file__).parent / "vegalite" / "v6" / "schema" / "vega-lite-schema.json"
    return Draft7Validator(json.loads(path.read_text(encoding="utf-8")))


def vega_lite_problem(vega_lite: dict) -> str | None:
    """The deepest Vega-Lite schema violation of a compiled chart, or None.

    Inline rows are checked up to the first 50 of each table (the rest cost
    time and are made the same way).
    """
    errors = list(vega_lite_validator().iter_errors(_first_rows(vega_lite)))
    if not errors:
        return None

    def leaves(error):
        if not error.context:
            yield error
        for sub in error.context:
            yield from leaves(sub)

    leaf = max((leaf for error in errors for leaf in leaves(error)), key=lambda e: len(e.absolute_path))
    return f"invalid Vega-Lite at {list(leaf.absolute_path)}: {leaf.message[:200]}"


def _first_rows(value, limit: int = 50):
    if isinstance(value, dict):
        return {k: (v[:limit] if k == "values" and isinstance(v, list)
                    else {n: rows[:limit] for n, rows in v.items()} if k == "datasets" and isinstance(v, dict)
                    else _first_rows(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_first_rows(v) for v in value]
    return value


def write_spec(folder: Path, spec: dict, suffix: str = ".json", name: str = "spec") -> Path:
    """Write a spec as JSON (which YAML 1.2 reads too) into the workspace."""
    path = folder / f"{name}{suffix}"
    path.write_text(json.dumps(spec, ensure_ascii=False, allow_nan=False), encoding="utf-8")
    return path


class Outcome:
    """What compiling one input gave: ``"compiled"`` or ``"spec-error"``."""

    def __init__(self, kind: str, text: str = "", warnings=()):
        self.kind, self.text, self.warnings = kind, text, tuple(warnings)


def check_spec_file(path: Path, *, twice: bool = True) -> Outcome:
    """Compile `path` and check the outcome; any other exception propagates.

    With `twice`, the spec is compiled a second time and must give the same bytes.

    Raises:
        AssertionError: the output is not valid Vega-Lite or not deterministic,
            or an error has no file position.
    """
    try:
        compiled = compile_spec(path)
    except SpecError as error:
        assert error.errors, "a SpecError without problems"
        for problem in error.errors:
            assert problem.location is not None, f"no FILE:LINE:COL: {problem.diagnostic()}"
            assert problem.location.file == str(path), problem.diagnostic()
            assert problem.location.line >= 1 and problem.location.column >= 1, problem.diagnostic()
            assert not isinstance(problem, SpecWarning), problem.diagnostic()
        return Outcome("spec-error", str(error))
    text = canonical_json(compiled.vega_lite)
    reloaded = json.loads(text, parse_constant=lambda c: pytest.fail(f"non-finite {c} in output"))
    problem = vega_lite_problem(reloaded)
    assert problem is None, problem
    for warning in compiled.warnings:
        assert isinstance(warning, SpecWarning) and warning.location is not None, warning.diagnostic()
    if twice:
        again = canonical_json(compile_spec(path).vega_lite)
        assert again == text, "compiling twice gave different Vega-Lite"
    assert not any(math.isnan(v) for v in _floats(reloaded))
    return Outcome("compiled", text, compiled.warnings)


def _floats(value):
    if isinstance(value, float):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _floats(v)
    elif isinstance(value, list):
        for v in value:
            yield from _floats(v)


# ------------------------------------------------------------------ the tests

CI = settings(max_examples=120, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def workspace():
    folder = Path(tempfile.mkdtemp(prefix="chartc-props-"))
    yield make_workspace(folder)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow
def test_examples_compile_in_the_workspace(workspace):
    """The oracle accepts every unmodified example (so a failure below is real)."""
    for name, data in example_documents():
        outcome = check_spec_file(write_spec(workspace, data, name=name), twice=False)
        assert outcome.kind == "compiled", outcome.text
        # Some examples' colours merge for some readers (test_examples.VISION_FINDINGS): nothing else warns.
        assert [w for w in outcome.warnings if w.code not in ("W770", "W771")] == []


@CI
@given(spec=st.data())
@pytest.mark.slow
def test_schema_specs_compile_or_raise_spec_error(workspace, spec):
    drawn = spec.draw(schema_specs())
    if spec.draw(st.booleans()):
        drawn = spec.draw(mutate(drawn, rounds=2))
    outcome = check_spec_file(write_spec(workspace, drawn, spec.draw(st.sampled_from((".json", ".yaml")))))
    event(f"outcome: {outcome.kind}")


@CI
@given(spec=mutated_specs(), suffix=st.sampled_from((".json", ".yaml")))
@pytest.mark.slow
def test_mutated_examples_compile_or_raise_spec_error(workspace, spec, suffix):
    event(f"outcome: {check_spec_file(write_spec(workspace, spec, suffix)).kind}")
