"""Stage 2: check a loaded document against the JSON Schema in ``schemas/``.

Every violation becomes a `SpecError` at the most specific spec path the
schema can name, reworded for people and placed at its line and column.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from . import errors as msg
from .errors import SpecError
from .load import Document

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schemas" / "chart.schema.json"
if not SCHEMA_PATH.exists():  # installed as a wheel: the schema ships inside the package
    SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "chart.schema.json"

JSON_TYPES = {
    dict: "a mapping", list: "a list", str: "a string", bool: "true or false",
    int: "a number", float: "a number", type(None): "null",
}
SCHEMA_TYPE_NAMES = {
    "object": "a mapping", "array": "a list", "string": "a string", "boolean": "true or false",
    "number": "a number", "integer": "a whole number", "null": "null",
}


@functools.cache
def load_schema() -> dict:
    """The chart JSON Schema, read once per process."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@functools.cache
def _validator():
    # Built once: jsonschema.validate() re-checks the schema on every call.
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema())


def validate_document(doc: Document) -> list[SpecError]:
    """Check a document against the chart schema.

    Args:
        doc: the loaded spec.

    Returns:
        Every violation, in file order, each reworded at its most specific path.
    """
    problems: list[SpecError] = []
    for error in _validator().iter_errors(doc.data):
        problems.extend(_describe(error, doc))
    problems.extend(_check_structure(doc))
    unique = {p.diagnostic(): p for p in problems}
    return sorted(unique.values(), key=_file_order)


def _file_order(error: SpecError):
    loc = error.location
    return (loc.line, loc.column) if loc else (0, 0)


def _check_structure(doc: Document) -> list[SpecError]:
    """Rules about which keys go together, with messages the schema cannot give."""
    data = doc.data if isinstance(doc.data, dict) else {}
    problems = []
    has_mark, has_layers = "mark" in data, "layers" in data
    if has_mark and has_layers:
        problems.append(_error(msg.mark_and_layers(), ("mark",), doc, hint=msg.mark_and_layers_hint()))
    elif not has_mark and not has_layers:
        problems.append(_error(msg.no_mark(), (), doc, hint=msg.no_mark_hint()))
    if "markers" in data and has_layers:
        problems.append(_error(msg.markers_with_layers(), ("markers",), doc, key=True))
    if "data" not in data:
        problems.append(_error(msg.missing_key("data"), (), doc, hint=msg.data_hint()))
    for index, layer in enumerate(data.get("layers") or []):
        if not isinstance(layer, dict):
            continue
        path = ("layers", index)
        if "mark" in layer and "trend" in layer:
            problems.append(_error(msg.mark_and_trend(), path + ("trend",), doc, key=True))
        elif "mark" not in layer and "trend" not in layer:
            problems.append(_error(msg.layer_needs_mark(), path, doc, hint=msg.layer_needs_mark_hint()))
        if "markers" in layer and "trend" in layer:
            problems.append(_error(msg.markers_on_trend(), path + ("markers",), doc, key=True))
    return problems


def _error(message, path, doc, *, hint=None, key=False) -> SpecError:
    return SpecError(message, path, location=doc.locate(path, key=key), stage="schema", hint=hint)


def _describe(error, doc: Document) -> list[SpecError]:
    """Reword one jsonschema error (descending into anyOf/oneOf) for people."""
    path = tuple(error.absolute_path)
    validator, value, instance = error.validator, error.validator_value, error.instance
    if validator in ("anyOf", "oneOf"):
        if path == ("data",) or (validator == "oneOf" and _is_data_choice(error)):
            return [_error(msg.data_one_source(), path, doc, hint=msg.data_hint())]
        return _describe_choice(error, doc)
    if validator == "not":
        return []  # structural rules are reported by _check_structure
    if validator == "additionalProperties":
        allowed = list(error.schema.get("properties", {}))
        extra = [k for k in instance if k not in allowed] if isinstance(instance, dict) else []
        if not allowed:  # e.g. a closed mapping with no keys
            return [_error(msg.unknown_key(k), path + (k,), doc, key=True) for k in extra]
        return [
            _error(msg.unknown_key(k), path + (k,), doc, key=True,
                   hint=msg.did_you_mean(k, allowed) or msg.allowed_keys(allowed))
            for k in extra
        ]
    if validator == "enum":
        choices = [v for v in value if v is not None and not isinstance(v, bool)]
        hint = msg.did_you_mean(instance, choices) if isinstance(instance, str) else None
        return [_error(msg.not_one_of(instance, value), path, doc, hint=hint)]
    if validator == "const":
        return [_error(msg.not_one_of(instance, [value]), path, doc)]
    if validator == "type":
        wanted = [value] if isinstance(value, str) else list(value)
        return [_error(msg.wrong_type(instance, [SCHEMA_TYPE_NAMES[w] for w in wanted]), path, doc)]
    if validator == "required":
        missing = [k for k in value if isinstance(instance, dict) and k not in instance]
        return [_error(msg.missing_key(k), path, doc, key=bool(path)) for k in missing]
    if validator in BOUNDS:
        return [_error(msg.out_of_bounds(instance, BOUNDS[validator], value), path, doc)]
    if validator in ("minItems", "maxItems", "minProperties", "maxProperties", "minLength"):
        return [_error(msg.wrong_size(validator, value), path, doc)]
    if validator == "pattern":
        return [_error(msg.bad_pattern(instance), path, doc)]
    return [_error(error.message, path, doc)]


BOUNDS = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}


def _is_data_choice(error) -> bool:
    return all(set(sub.get("required", [])) & {"values", "path", "dataset"} for sub in error.validator_value)


def _describe_choice(error, doc: Document) -> list[SpecError]:
    """Pick the branch of an anyOf/oneOf the user meant and report its errors.

    The branch whose JSON type matches the value is the one meant (a mapping
    where a channel may be a string or a mapping); among those, the branch
    whose errors go deepest explains the problem best.
    """
    by_branch: dict[int, list] = {}
    for sub in error.context:
        by_branch.setdefault(sub.schema_path[0], []).append(sub)
    branches = error.validator_value
    kind = type(error.instance)
    matching = [i for i in by_branch if _branch_accepts_type(branches[i], kind)]
    if not matching:
        wanted = []
        for branch in branches:
            wanted.extend(_branch_type_names(branch))
        return [_error(msg.wrong_type(error.instance, list(dict.fromkeys(wanted))), tuple(error.absolute_path), doc)]
    best = max(matching, key=lambda i: (max(len(e.absolute_path) for e in by_branch[i]), -len(by_branch[i])))
    found: list[SpecError] = []
    for sub in by_branch[best]:
        found.extend(_describe(sub, doc))
    return found


def _resolve(branch: dict) -> dict:
    ref = branch.get("$ref")
    if ref:
        return load_schema()["$defs"][ref.rsplit("/", 1)[-1]]
    return branch


def _branch_types(branch: dict) -> list[str]:
    branch = _resolve(branch)
    if "type" in branch:
        return [branch["type"]] if isinstance(branch["type"], str) else list(branch["type"])
    if "enum" in branch or "const" in branch:
        values = branch.get("enum", [branch.get("const")])
        return sorted({_schema_type_of(v) for v in values})
    if "anyOf" in branch:
        return [t for sub in branch["anyOf"] for t in _branch_types(sub)]
    return ["object", "array", "string", "number", "boolean", "null"]


def _schema_type_of(value) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "array", dict: "object", type(None): "null"}[type(value)]


def _branch_accepts_type(branch: dict, kind: type) -> bool:
    names = _branch_types(branch)
    if kind is bool:
        return "boolean" in names
    if kind in (int, float):
        return "number" in names or ("integer" in names and kind is int)
    return _schema_type_of(kind()) in names


def _branch_type_names(branch: dict) -> list[str]:
    return [SCHEMA_TYPE_NAMES[t] for t in _branch_types(branch)]
