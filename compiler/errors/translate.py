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


def vega_lite_invalid_hint(vl_path: str) -> str:
    return f"Vega-Lite rejects this value (at {vl_path} in the compiled chart)"
