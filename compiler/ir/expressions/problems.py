"""What goes wrong with a Vega expression: the exceptions, and the words users read.

`ExpressionError` is text Vega would refuse, with the offset of the problem;
`Unsupported` is a value the evaluator cannot compute the way Vega would;
`EvaluationError` is a place where JavaScript would throw. Inside the
evaluator, the value operations raise `Throw` for a JavaScript exception, and
the node that ran them turns it into an `EvaluationError` with its offsets.

The `expression_*` functions are the messages of `ExpressionError`, one
function each; tests compare against these.
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
# The words users read, one function each; tests compare against these.

def expression_nothing() -> str:
    return "the expression is empty"


def expression_expected(what: str, found: str) -> str:
    return f"expected {what}, found {found}"


def expression_unclosed(closer: str, what: str, opened_at: int, found: str) -> str:
    return f"expected {closer!r} to close {what} opened at character {opened_at + 1}, found {found}"


def expression_trailing(found: str) -> str:
    return f"unexpected {found} after the end of the expression"


def expression_bad_character(char: str) -> str:
    return f"unexpected character {char!r}"


def expression_unterminated_string(quote: str) -> str:
    return f"this string has no closing {quote}"


def expression_bad_escape(escape: str) -> str:
    return f"invalid escape sequence {escape!r} in a string"


def expression_octal() -> str:
    return "octal numbers and octal escapes are not allowed (write 8 or '\\x08', not 010 or '\\10')"


def expression_bad_number(text: str) -> str:
    return f"malformed number {text!r}"


def expression_not_allowed(what: str) -> str:
    return f"{what} is not allowed in a Vega expression"


def expression_assignment_hint(operator: str) -> str | None:
    return "to compare, write '=='" if operator == "=" else None


def expression_unknown_function(name: str) -> str:
    return f"unknown function {name!r} (Vega: \"Unrecognized function: {name}\")"


def expression_not_a_function_name() -> str:
    return "only functions named directly can be called, as in 'log(x)', not 'a.b(x)' or '(a)(x)'"


def expression_arity(name: str, low: int, high: int | None, given: int) -> str:
    if high == low:
        wanted = f"{low} argument{'s' if low != 1 else ''}"
    elif high is None:
        wanted = f"at least {low} argument{'s' if low != 1 else ''}"
    else:
        wanted = f"{low} to {high} arguments"
    return f"{name}() takes {wanted}, not {given}"


def expression_unknown_name(name: str) -> str:
    return (f"unknown name {name!r}: a data expression reads fields through 'datum' (datum.{name}) "
            "and knows the constants NaN, PI, E, LN2, LN10, LOG2E, LOG10E, SQRT1_2, SQRT2, MIN_VALUE, MAX_VALUE")


def expression_event_name(name: str) -> str:
    return (f"{name!r} exists only in event and mark expressions; in a data transform it is a "
            "ReferenceError and Vega draws nothing")


def expression_reserved_name(name: str) -> str:
    return f"the name {name!r} is reserved by Vega"


def expression_length_of_integer(digits: str) -> str:
    return (f"Vega compiles length({digits}) to JavaScript as {digits}.length, which does not parse; "
            f"write length('{digits}') for the text or length({digits}.0)")


def expression_duplicate_key(key: str) -> str:
    return f"the object has the key {key!r} twice"


def expression_illegal_key(key: str) -> str:
    return f"the object key {key!r} would replace a JavaScript built-in"


def expression_array_hole() -> str:
    return "an array element is missing between commas"


def expression_bad_regex(reason: str) -> str:
    return f"invalid regular expression: {reason}"


def expression_bad_regex_flags(flags: str) -> str:
    return f"invalid regular expression flags {flags!r} (Vega accepts g, i, m, u and y, each once)"


def expression_too_deep(limit: int) -> str:
    return f"the expression nests deeper than {limit} levels"
