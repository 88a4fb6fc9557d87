"""Text in the data that would abort the renderer, replaced before anything else reads the rows.

The loader rejects control characters and non-characters in the spec's own
text, but a data file (CSV, TSV, JSON) can carry them, and vl-convert
*aborts the Python process* (SIGABRT, vl-convert#220) when one reaches any
text it renders: a label, a tick, a legend entry. Such characters in data
values and column names are replaced with U+FFFD, and each field that had
any gets one `SpecWarning` naming it and the count: a documented, warned
fix-up rather than a rejected data file. Integers past 2⁵³ inside JSON
values become floats (the renderer cannot read them exactly).
"""

from __future__ import annotations

import re
from typing import Any

from ... import errors as msg
from ...errors import SpecWarning
from ...infra.table import STORED_BOOLEAN, STORED_DATE, STORED_FLOAT, STORED_TEXT, TEXT, Table
from ...ir.nodes import DataSource
from .read import STAGE
from .sources import in_engine

REPLACEMENT = "\ufffd"
# Integers past 2⁵³ are not exact in JavaScript, and past 2⁶⁴ the renderer
# cannot read its input at all.
MAX_SAFE_INTEGER = 2**53

# What the renderer must never see: C0 controls except tab, LF and CR, DEL and
# the C1 controls, unpaired surrogates (a JSON file can spell "\ud800"), and
# the Unicode non-characters (U+FDD0..U+FDEF and the last two code points of
# every plane). The same set the spec loader rejects.
RENDERER_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef"
    + "".join(chr(plane + 0xFFFE) + chr(plane + 0xFFFF) for plane in range(0, 0x110000, 0x10000))
    + "]"
)
# The same set in RE2 (what the engine's regexp functions speak), to scan rows left in the engine: UTF-8
# text there holds no surrogates.
RENDERER_UNSAFE_SQL = (
    "[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f\\x{FDD0}-\\x{FDEF}"
    + "".join(f"\\x{{{plane + 0xFFFE:X}}}\\x{{{plane + 0xFFFF:X}}}" for plane in range(0, 0x110000, 0x10000))
    + "]"
)


def scrub_text(text: str) -> tuple[str, int]:
    """`text` with every renderer-unsafe character replaced by U+FFFD, and how many."""
    return RENDERER_UNSAFE.subn(REPLACEMENT, text)


def _scrub_value(value: Any) -> tuple[Any, int, int]:
    """A data value (text, or a mapping or list from a JSON file) scrubbed throughout.

    Returns:
        The clean value, how many characters were replaced, and how many
        integers too large for the renderer were made floats.
    """
    if isinstance(value, str):
        return (*scrub_text(value), 0)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_SAFE_INTEGER:
        return float(value), 0, 1
    if isinstance(value, dict):
        chars = ints = 0
        clean = {}
        for key, item in value.items():
            key, in_key = scrub_text(key) if isinstance(key, str) else (key, 0)
            clean[key], in_item, big = _scrub_value(item)
            chars, ints = chars + in_key + in_item, ints + big
        return (clean, chars, ints) if chars or ints else (value, 0, 0)
    if isinstance(value, (list, tuple)):
        triples = [_scrub_value(item) for item in value]
        chars, ints = sum(t[1] for t in triples), sum(t[2] for t in triples)
        return (type(value)(t[0] for t in triples), chars, ints) if chars or ints else (value, 0, 0)
    return value, 0, 0


def scrub_table(table: Table, data: DataSource) -> tuple[Table, list[SpecWarning]]:
    """Replace renderer-unsafe characters in a chart's data with U+FFFD.

    Args:
        table: the rows from `read_rows`.
        data: the chart's data source, to place the warnings at its
            ``path``, ``values`` or ``dataset``.

    Returns:
        The table (the same object when nothing needed replacing) and one
        `SpecWarning` per column whose name or values had such characters.
    """
    warnings: list[SpecWarning] = []
    renamed: dict = {}
    replaced: dict = {}
    taken = set(table.names)

    def warn(message, hint):
        warnings.append(data.warning(message, data.key, stage=STAGE, hint=hint))

    for column in table.names:
        name = column
        clean_name, in_name = scrub_text(name)
        if in_name:
            while clean_name in taken:  # never merge two columns
                clean_name += REPLACEMENT
            taken.add(clean_name)
            renamed[column] = clean_name
            warn(msg.data_column_scrubbed(name, clean_name, in_name), msg.data_scrubbed_hint())
        if table.kinds[column] not in (TEXT, None):  # numbers, booleans and dates hold no text
            continue
        if in_engine(table, column) and table.stored[column] in (STORED_BOOLEAN, STORED_FLOAT, STORED_DATE):
            continue  # one type of cell where the rows are, no text (booleans beside a gap have no kind)
        if (in_engine(table, column) and table.stored[column] == STORED_TEXT
                and not table.unsafe_text(column, RENDERER_UNSAFE_SQL)):
            continue  # the engine scans its rows: none is read unless one has such a character
        if table.kinds[column] == TEXT and not RENDERER_UNSAFE.search("\n".join(v for v in table[column] if v)):
            continue  # one scan of the whole column finds nothing: the common case
        triples = [_scrub_value(v) for v in table[column]]
        chars, ints = sum(t[1] for t in triples), sum(t[2] for t in triples)
        if chars or ints:
            replaced[column] = [t[0] for t in triples]
        if chars:
            warn(msg.data_text_scrubbed(renamed.get(column, name), chars), msg.data_scrubbed_hint())
        if ints:
            warn(msg.data_integers_rounded(renamed.get(column, name), ints), msg.data_integers_hint())
    if not renamed and not replaced:
        return table, []
    for column, values in replaced.items():
        table = table.replace(column, values)
    return table.rename(renamed), warnings
