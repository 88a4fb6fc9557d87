"""A lookup's second source: read once, its key and fields checked, indexed as Vega indexes it.

`lookup_table` reads the rows of a ``lookup`` transform's ``from.data``
through the same readers and safety checks as the chart's own data (a file
beside the spec, inline values, a vega-datasets table), scrubs them, and
checks that `from.key` and every entry of `from.fields` are its columns;
`lookup_index` is Vega's index of those rows (``TupleIndex``: each key as
JavaScript text, a later row replacing an earlier one with the same key);
`lookup_identities` hashes every second source before any row is read, for
provenance and the gallery's staleness, as `read.data_identity` does the
chart's own data. The interpreter and the SQL compiler both join through
the index, so the rows they give are the same.
"""

from __future__ import annotations

from ... import errors as msg
from ...errors import SpecError
from ...infra.table import Table
from ...ir import expressions as ex
from ...ir.nodes import Chart
from ...ir.transforms import Lookup
from . import vega
from . import sources
from .read import STAGE, data_identity, read_rows
from .scrub import scrub_table


def chart_lookups(chart: Chart) -> list[Lookup]:
    """Every lookup of the chart (the chart's transforms, then each layer's), once each, in spec order."""
    steps = [*chart.transform, *(step for layer in chart.layers for step in layer.transform)]
    return [step for step in steps if isinstance(step, Lookup)]


def source_label(step: Lookup) -> str:
    """The second source as messages and provenance name it: its path, ``dataset:NAME`` or ``values``."""
    data = step.data
    return data.file if data.file is not None else f"dataset:{data.dataset}" if data.dataset is not None else "values"


def lookup_identities(chart: Chart) -> tuple[tuple[str, str, object], ...]:
    """``(label, hash, resolved path or None)`` of each lookup's second source, as `read.data_identity` gives them.

    Taken before the rows are read, like the chart's own data's: a file saved in between leaves the
    chart stale. A source two lookups name alike is listed once; the order is the spec's.

    Raises:
        SpecError: a second source's file fails the checks every data file passes (at its ``path``).
    """
    seen: dict = {}
    for step in chart_lookups(chart):
        identity = data_identity(step.data)
        seen.setdefault(identity[0], identity)
    return tuple(seen.values())


# Why a lookup's second source comes to Python whole (E416's words).
LOOKUP_READ = "to index them as Vega's lookup does"


def lookup_table(step: Lookup) -> Table:
    """The second source's rows, read and scrubbed once per compile (kept on the node), key and fields checked.

    Raises:
        SpecError: the source cannot be read (as the chart's data: missing file, outside the project,
            no rows...), or `from.key` or a `from.fields` entry is not one of its columns, or it is rows left in
            the engine past `sources.MAX_PULLED_ROWS` (E416).
    """
    loaded = step.loaded
    if loaded.table is None:
        read = read_rows(step.data)
        if sources.pulled_too_many(read):  # (Vega's index of it is made in Python: refused before a row is read)
            message = msg.rows_pulled_past_limit(len(read), sources.MAX_PULLED_ROWS, LOOKUP_READ, "its second source's")
            raise step.error(message, "from", stage=STAGE, hint=msg.lookup_too_many_rows_hint())
        table, scrubbed = scrub_table(read, step.data)
        source = msg.lookup_source(source_label(step))
        errors = []
        if step.key not in table.names:
            errors.append(step.error(msg.lookup_key_not_found(step.key, source), "from", "key", stage=STAGE,
                                     hint=msg.lookup_columns_hint(step.key, table.names)))
        for index, name in enumerate(step.fields):
            if name not in table.names:
                errors.append(step.error(msg.lookup_field_not_found(name, source), "from", "fields", index,
                                         stage=STAGE, hint=msg.lookup_columns_hint(name, table.names)))
        if errors:
            raise SpecError.collect(errors)
        loaded.warnings = (*scrubbed, *_duplicate_warnings(step, table, source))
        loaded.table = table
    return loaded.table


def lookup_warnings(chart: Chart) -> list:
    """The warnings reading each lookup's second source gave (scrubbed text, keys held by several rows)."""
    return [warning for step in chart_lookups(chart) for warning in step.loaded.warnings]


def key_text(value) -> str:
    """A key as Vega's index holds it: the JavaScript value as text (1 and "1" are one key, null is "null")."""
    return ex.to_js_string(value)


def lookup_index(step: Lookup, table: Table) -> dict[str, int]:
    """Vega's index of the second source: key text -> the last row holding it."""
    return {key_text(vega.js_cell(cell)): row for row, cell in enumerate(table[step.key])}


def default_value(step: Lookup):
    """The JavaScript value a row without a match gets in every looked-up field."""
    return None if step.default is None else vega.js_cell(step.default)


def _duplicate_warnings(step: Lookup, table: Table, source: str) -> list:
    """One warning per key several rows hold (Vega keeps the last of them, as `lookup_index` does)."""
    counts: dict[str, int] = {}
    for cell in table[step.key]:
        text = key_text(vega.js_cell(cell))
        counts[text] = counts.get(text, 0) + 1
    return [step.warning(msg.lookup_duplicate_key(key, count, source), "from", "key", stage=STAGE,
                         hint=msg.lookup_duplicate_key_hint()) for key, count in counts.items() if count > 1]


def lookup_types(chart: Chart) -> dict:
    """Lookup path -> the measurement type of each field it takes from its second source (reading it)."""
    types = {}
    for step in chart_lookups(chart):
        table = lookup_table(step)
        types[step.path] = {name: table.measurement(name) for name in step.fields}
    return types
