"""How a fitted method writes its equation: numbers to a few significant digits, terms, powers.

Shared by every method's `fit` (``y = 1.2 + 3.4·x``, ``y = 2·e^(0.5·x)``);
plain Python, no numpy.

May import: the standard library.
"""

from __future__ import annotations

# Significant digits of the numbers in `TrendLine.equation`.
EQUATION_DIGITS = 4

SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def number(value: float) -> str:
    """`value` to `EQUATION_DIGITS` significant digits, as people write it."""
    text = f"{value:.{EQUATION_DIGITS}g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}×10{str(int(exponent)).translate(SUPERSCRIPTS)}"
    return text.replace("-", "−")


def terms(pairs: list[tuple[float, str]]) -> str:
    """``a + b·x − c·x²`` from (coefficient, suffix) pairs."""
    text = ""
    for coefficient, suffix in pairs:
        if not text:
            text = number(coefficient) + suffix
        else:
            sign = "−" if coefficient < 0 else "+"
            text += f" {sign} {number(abs(coefficient))}{suffix}"
    return text


def wrap(variable: str) -> str:
    """A variable in parentheses unless it is one word (``x``, but ``(log10(x))``)."""
    return variable if variable.isalnum() else f"({variable})"


def power(variable: str, k: int) -> str:
    """The suffix of the k-th power term: ``""``, ``·x``, ``·x²``..."""
    if k == 0:
        return ""
    return "·" + variable + (str(k).translate(SUPERSCRIPTS) if k > 1 else "")

