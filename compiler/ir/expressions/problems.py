"""What goes wrong with a Vega expression: the exceptions, and the words users read.

`ExpressionError` is text Vega would refuse, with the offset of the problem;
`Unsupported` is a value the evaluator cannot compute the way Vega would;
`EvaluationError` is a place where JavaScript would throw. Inside the
evaluator, the value operations raise `Throw` for a JavaScript exception, and
the node that ran them turns it into an `EvaluationError` with its offsets.

The `expression_*` functions are the messages of `ExpressionError`, one
function each with its code, written with the parse stage's messages in
`chartc.errors.parse` and re-exported here; tests compare against these.
"""
from __future__ import annotations


class ExpressionError(Exception):
    """A Vega expression that Vega would refuse, with where in the text.

    Attributes:
        message: what is wrong, for people.
        offset: 0-based index into the expression text of the problem, so a
            diagnostic can point at the string's column plus `offset`.
        hint: a suggestion ("did you mean 'indexof'?"), or None.
    """

    def __init__(self, message: str, offset: int, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.hint = hint

    def __str__(self) -> str:
        return self.message + (f" ({self.hint})" if self.hint else "")


class Unsupported(Exception):
    """`evaluate` cannot compute this the way Vega would (see the package docstring).

    Attributes:
        name: the function, operation or feature, e.g. ``"scale"``.
        reason: why, in a few words.
    """

    def __init__(self, name: str, reason: str = ""):
        super().__init__(f"{name}: {reason}" if reason else name)
        self.name = name
        self.reason = reason


class EvaluationError(Exception):
    """JavaScript would throw here.

    Vega logs the error and the data flow stops: the chart is drawn without
    the marks of that data, and vl-convert raises nothing (measured).

    Attributes:
        message: the JavaScript error, e.g. "TypeError: Cannot read
            properties of null (reading 'x')".
        start, end: offsets of the node that threw.
    """

    def __init__(self, message: str, start: int = 0, end: int = 0):
        super().__init__(message)
        self.message = message
        self.start = start
        self.end = end


class Throw(Exception):
    """A JavaScript exception inside the evaluator, e.g. "TypeError: ...".

    The value operations (`operators`, `functions`, `regex`, `d3format`) raise
    it; the node that ran them turns it into `EvaluationError` with its offsets.
    """


# ------------------------------------------------------------------ messages
# The words users read live with the parse stage's messages (errors/parse.py, each with its
# code); they are re-exported here for the parser and the evaluator.

from ...errors.parse import (  # noqa: E402,F401
    expression_arity, expression_array_hole, expression_assignment_hint, expression_bad_character,
    expression_bad_escape, expression_bad_number, expression_bad_regex, expression_bad_regex_flags,
    expression_duplicate_key, expression_event_name, expression_expected, expression_illegal_key,
    expression_length_of_integer, expression_not_a_function_name, expression_not_allowed, expression_nothing,
    expression_octal, expression_reserved_name, expression_too_deep, expression_trailing, expression_unclosed,
    expression_unknown_function, expression_unknown_name, expression_unterminated_string,
)
