"""Messages of the translate stage (stages/translate/): the Vega-Lite chartc writes.

Each message is a function; one that a diagnostic reads carries its code
(`@code`), and its docstring is the explanation `chartc explain` prints.
"""

from __future__ import annotations


from .registry import code


@code("E701")
def vega_lite_invalid(reason: str) -> str:
    """Vega-Lite that fails its schema.

    The Vega-Lite chartc wrote, merged with the spec's `vega_lite:` override, fails Vega-Lite's schema.
    The problem is placed at the override key that wrote it; fix or remove that key.
    """
    return f"the merged Vega-Lite is invalid: {reason}"


def vega_lite_invalid_hint(vl_path: str, suggestion: str | None = None) -> str:
    if suggestion:  # a misspelled value: "did you mean 'point'?"
        return f"{suggestion} Vega-Lite rejects this value (at {vl_path} in the compiled chart)"
    return f"Vega-Lite rejects this value (at {vl_path} in the compiled chart)"


# ------------------------------------------------------------------ field names Vega-Lite reads as paths

@code("E709")
def field_backslash(name: str) -> str:
    """A column name with a backslash.

    Vega-Lite reads a field name as a path and writes it for Vega with '.', '[' and ']' escaped, but not '\\':
    Vega then reads the backslash as an escape and looks up another field, so the chart would be drawn
    from nothing. chartc escapes every other character itself (`eval.loss`, `a[0]` are drawn as columns);
    a backslash has to leave the name.
    """
    return f"Vega-Lite cannot read the field {name!r}: a backslash in a field name makes Vega look up another field"


def field_backslash_hint() -> str:
    return ("rename the column, or copy it under a name without the backslash with a `calculate` transform "
            "(in an expression, datum['...'] reads any name) and draw the copy")
