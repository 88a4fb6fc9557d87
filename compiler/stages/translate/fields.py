"""Every field reference chartc writes, escaped as Vega-Lite reads it.

Vega-Lite reads a field string as a path: ``eval.loss`` is field ``loss``
of field ``eval``, ``a[0]`` the first item of ``a``. chartc's columns are
always flat (the data stage refuses nested values), so a column whose name
holds ``.``, ``[`` or ``]`` (``eval.loss``, the ``y.1`` a repeated CSV
header becomes) must be written with those characters escaped by ``\\``,
or Vega reads undefined and draws nothing.

`escape_fields` does it once, on the finished Vega-Lite, at every place
Vega-Lite reads a field path: each channel of every encoding (tooltip and
detail lists, `sort` and `condition` fields), the facet, and the transforms
(field predicates of filters, fold's fields, aggregate's fields and
groupby). Names a transform makes (``as``) are flat names, not paths, and
expressions name fields as ``datum['eval.loss']``: both are left as they
are. A channel whose field is escaped and has no title gets the column's
own name as its title, or the axis would show the escapes.

A backslash cannot be written at all: Vega-Lite splits the path (an
escaped backslash becomes one), then escapes only ``.``, ``[`` and ``]``
again for Vega, which reads the lone backslash as an escape of the next
character and so another field. `unescapable` finds such a reference, which
the translator refuses.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# The characters Vega-Lite's field paths give a meaning to.
PATH_CHARACTERS = re.compile(r"([.\[\]\\])")
ESCAPED = re.compile(r"\\(.)")
# Channel properties that change the default title from the field's name.
TITLE_CHANGING = ("aggregate", "bin", "timeUnit")


def escape_field(name: str) -> str:
    """A flat column name as a Vega-Lite field reference: ``.``, ``[``, ``]`` and ``\\`` escaped by ``\\``."""
    return PATH_CHARACTERS.sub(r"\\\1", name)


def unescape_field(reference: str) -> str:
    """The column a field reference `escape_field` wrote names."""
    return ESCAPED.sub(r"\1", reference)


def escape_fields(vega_lite: dict) -> list[tuple[tuple, str]]:
    """Escape, in place, every field reference of a Vega-Lite spec chartc wrote.

    Args:
        vega_lite: the spec (before the `vega_lite:` override is merged in:
            what the user writes there is Vega-Lite already).

    Returns:
        (Vega-Lite path, column name) of each reference Vega cannot read as
        written (a backslash in the name), in the order found.
    """
    unreadable: list[tuple[tuple, str]] = []
    for path, owner, key in _references(vega_lite, ()):
        name = owner[key]
        if "\\" in name:
            unreadable.append((path, name))
        owner[key] = escape_field(name)
    return unreadable


def _references(view: dict, path: tuple) -> Iterator[tuple[tuple, object, object]]:
    """(path, container, key) of every field reference in a view and the views inside it."""
    encoding = view.get("encoding")
    if isinstance(encoding, dict):
        for channel, definition in encoding.items():
            yield from _channel(definition, path + ("encoding", channel))
    facet = view.get("facet")
    if isinstance(facet, dict):
        if "field" in facet:
            yield from _channel(facet, path + ("facet",))
        else:
            for channel, definition in facet.items():
                yield from _channel(definition, path + ("facet", channel))
    for index, step in enumerate(view.get("transform") or ()):
        yield from _transform(step, path + ("transform", index))
    if isinstance(view.get("spec"), dict):
        yield from _references(view["spec"], path + ("spec",))
    for index, inner in enumerate(view.get("layer") or ()):
        yield from _references(inner, path + ("layer", index))


def _channel(definition, path: tuple) -> Iterator:
    if isinstance(definition, list):  # tooltip, detail
        for index, item in enumerate(definition):
            yield from _channel(item, path + (index,))
        return
    if not isinstance(definition, dict):
        return
    field = definition.get("field")
    if isinstance(field, str):
        if escape_field(field) != field and "title" not in definition \
                and not any(key in definition for key in TITLE_CHANGING):
            definition["title"] = field
        yield path + ("field",), definition, "field"
    sort = definition.get("sort")
    if isinstance(sort, dict) and isinstance(sort.get("field"), str):
        yield path + ("sort", "field"), sort, "field"
    condition = definition.get("condition")
    if isinstance(condition, (dict, list)):
        yield from _channel(condition, path + ("condition",))


def _transform(step: dict, path: tuple) -> Iterator:
    if isinstance(step.get("filter"), dict):
        yield from _predicate(step["filter"], path + ("filter",))
    if isinstance(step.get("fold"), list):
        for index, name in enumerate(step["fold"]):
            if isinstance(name, str):
                yield path + ("fold", index), step["fold"], index
    if isinstance(step.get("aggregate"), list):
        for index, op in enumerate(step["aggregate"]):
            if isinstance(op, dict) and isinstance(op.get("field"), str):
                yield path + ("aggregate", index, "field"), op, "field"
        for index, name in enumerate(step.get("groupby") or ()):
            if isinstance(name, str):
                yield path + ("groupby", index), step["groupby"], index
    yield from _window_transform(step, path)
    yield from _lookup_transform(step, path)


def _lookup_transform(step: dict, path: tuple) -> Iterator:
    """The fields a ``lookup`` names as paths: the looked-up field, and the second source's key and fields."""
    if not isinstance(step.get("lookup"), str) or not isinstance(step.get("from"), dict):
        return
    yield path + ("lookup",), step, "lookup"
    source = step["from"]
    if isinstance(source.get("key"), str):
        yield path + ("from", "key"), source, "key"
    for index, name in enumerate(source.get("fields") or ()):
        if isinstance(name, str):
            yield path + ("from", "fields", index), source["fields"], index


def _window_transform(step: dict, path: tuple) -> Iterator:
    """The fields a ``window`` or ``joinaggregate`` names: each op's, the groupby's and the sort's."""
    kind = next((key for key in ("window", "joinaggregate") if isinstance(step.get(key), list)), None)
    if kind is None:
        return
    for index, op in enumerate(step[kind]):
        if isinstance(op, dict) and isinstance(op.get("field"), str):
            yield path + (kind, index, "field"), op, "field"
    for index, name in enumerate(step.get("groupby") or ()):
        if isinstance(name, str):
            yield path + ("groupby", index), step["groupby"], index
    for index, item in enumerate(step.get("sort") or ()):
        if isinstance(item, dict) and isinstance(item.get("field"), str):
            yield path + ("sort", index, "field"), item, "field"
    if isinstance(step.get("density"), str):
        yield from _density(step, path)


def _density(step: dict, path: tuple) -> Iterator:
    """A density's field and groupby fields (Vega reads both as field references)."""
    yield path + ("density",), step, "density"
    for index, name in enumerate(step.get("groupby") or ()):
        if isinstance(name, str):
            yield path + ("groupby", index), step["groupby"], index


def _predicate(predicate: dict, path: tuple) -> Iterator:
    if isinstance(predicate.get("field"), str):
        yield path + ("field",), predicate, "field"
    for key in ("and", "or"):
        for index, inner in enumerate(predicate.get(key) or ()):
            if isinstance(inner, dict):
                yield from _predicate(inner, path + (key, index))
    if isinstance(predicate.get("not"), dict):
        yield from _predicate(predicate["not"], path + ("not",))
