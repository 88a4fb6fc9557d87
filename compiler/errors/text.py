"""Wording shared by the messages of every stage: near-miss hints and quoted lists."""

from __future__ import annotations

import difflib
from typing import Iterable, Sequence


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """A "did you mean 'x'?" hint for a near miss, or None."""
    choices = [str(c) for c in choices]
    close = difflib.get_close_matches(str(word), choices, n=1, cutoff=0.6)
    if not close:
        lowered = {c.lower(): c for c in choices}
        if str(word).lower() in lowered:
            close = [lowered[str(word).lower()]]
    return f"did you mean {close[0]!r}?" if close else None


def quoted_list(values: Iterable[object], limit: int = 12) -> str:
    """``'a', 'b', 'c'`` with an ellipsis past `limit` items."""
    values = [str(v) for v in values]
    text = ", ".join(repr(v) for v in values[:limit])
    return text + (f", ... ({len(values) - limit} more)" if len(values) > limit else "")


def or_list(values: Sequence[object]) -> str:
    """``'a', 'b' or 'c'``."""
    shown = [repr(v) for v in values]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
