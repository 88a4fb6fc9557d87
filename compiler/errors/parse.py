"""Messages of the parse stage (stages/parse.py): Vega expressions the parser refuses (ir/expressions).

Each message is a function; one that a diagnostic reads carries its code
(`@code`), and its docstring is the explanation `chartc explain` prints.
"""

from __future__ import annotations


from .registry import code


@code("E301")
def expression_nothing() -> str:
    """An empty expression.

    A filter or calculate expression is empty. Write the expression, or remove the transform.
    """
    return "the expression is empty"


@code("E302")
def expression_expected(what: str, found: str) -> str:
    """An expression missing a part.

    The expression stops where more is needed: an operator without its right-hand side, a call without
    its closing parenthesis. The column points at the spot.

    Example:
        data: {dataset: cars}
        transform:
          - filter: datum.Horsepower >
        mark: point
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
    """
    return f"expected {what}, found {found}"


@code("E303")
def expression_unclosed(closer: str, what: str, opened_at: int, found: str) -> str:
    """An unclosed bracket or parenthesis in an expression.

    A bracket, parenthesis or brace opened in the expression is never closed; the message says where it
    was opened.
    """
    return f"expected {closer!r} to close {what} opened at character {opened_at + 1}, found {found}"


@code("E304")
def expression_trailing(found: str) -> str:
    """Text after the end of an expression.

    The expression is complete, but more text follows it: usually a missing operator (`datum.a datum.b`)
    or an extra closing bracket.
    """
    return f"unexpected {found} after the end of the expression"


@code("E305")
def expression_bad_character(char: str) -> str:
    """A character expressions do not use.

    A character that Vega expressions do not use (such as `#`, `@` or a backtick).
    """
    return f"unexpected character {char!r}"


@code("E306")
def expression_unterminated_string(quote: str) -> str:
    """A string without its closing quote.

    A string in the expression opens with a quote and never closes. In YAML, quote the whole expression
    with the other kind of quote.
    """
    return f"this string has no closing {quote}"


@code("E307")
def expression_bad_escape(escape: str) -> str:
    """An invalid escape in an expression string.

    A backslash escape in an expression string is not one JavaScript knows.
    """
    return f"invalid escape sequence {escape!r} in a string"


@code("E308")
def expression_octal() -> str:
    """An octal number or escape.

    Vega's parser (JavaScript's strict mode) refuses octal numbers such as 010 and octal escapes such as
    '\\10'.
    """
    return "octal numbers and octal escapes are not allowed (write 8 or '\\x08', not 010 or '\\10')"


@code("E309")
def expression_bad_number(text: str) -> str:
    """A malformed number in an expression.

    A number in the expression is malformed (say `1.2.3` or `1e`).
    """
    return f"malformed number {text!r}"


@code("E310")
def expression_not_allowed(what: str) -> str:
    """A construct Vega expressions do not allow.

    Vega expressions allow only expressions, not statements: no assignment, `new`, `this`, `function` or
    `;`. To compare, write `==` or `===`.
    """
    return f"{what} is not allowed in a Vega expression"


def expression_assignment_hint(operator: str) -> str | None:
    return "to compare, write '=='" if operator == "=" else None


@code("E311")
def expression_unknown_function(name: str) -> str:
    """An unknown function in an expression.

    A filter or calculate expression calls a function Vega does not have (Vega's own error is
    "Unrecognized function"). Check the spelling against Vega's expression reference; the hint suggests
    the closest function.

    Example:
        data: {dataset: cars}
        transform:
          - calculate: lg(datum.Horsepower)
            as: lhp
        mark: point
        encoding:
          x: lhp
          y: Miles_per_Gallon
    """
    return f"unknown function {name!r} (Vega: \"Unrecognized function: {name}\")"


@code("E312")
def expression_not_a_function_name() -> str:
    """A call of something that is not a function name.

    Only Vega's named functions can be called, as in `log(x)`; Vega refuses calling a method (`a.b(x)`)
    or a computed value.
    """
    return "only functions named directly can be called, as in 'log(x)', not 'a.b(x)' or '(a)(x)'"


@code("E313")
def expression_arity(name: str, low: int, high: int | None, given: int) -> str:
    """A function called with the wrong number of arguments.

    A Vega function is called with the wrong number of arguments; the message gives how many it takes.
    """
    if high == low:
        wanted = f"{low} argument{'s' if low != 1 else ''}"
    elif high is None:
        wanted = f"at least {low} argument{'s' if low != 1 else ''}"
    else:
        wanted = f"{low} to {high} arguments"
    return f"{name}() takes {wanted}, not {given}"


@code("E314")
def expression_unknown_name(name: str) -> str:
    """An unknown name in a data expression.

    A data expression reads a bare name. Fields are read through `datum` (`datum.Horsepower`); the only
    bare names are Vega's constants (PI, E, ...). Vega would draw an empty chart without a word; chartc
    refuses it.

    Example:
        data: {dataset: cars}
        transform:
          - filter: Horsepower > 100
        mark: point
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
    """
    return (f"unknown name {name!r}: a data expression reads fields through 'datum' (datum.{name}) "
            "and knows the constants NaN, PI, E, LN2, LN10, LOG2E, LOG10E, SQRT1_2, SQRT2, MIN_VALUE, MAX_VALUE")


@code("E315")
def expression_event_name(name: str) -> str:
    """An event name in a data expression.

    Names like `event` exist only in event and mark expressions; in a data transform Vega throws a
    ReferenceError and draws nothing.
    """
    return (f"{name!r} exists only in event and mark expressions; in a data transform it is a "
            "ReferenceError and Vega draws nothing")


@code("E316")
def expression_reserved_name(name: str) -> str:
    """A name Vega reserves.

    The name is reserved by Vega's expression language and cannot be used.
    """
    return f"the name {name!r} is reserved by Vega"


@code("E317")
def expression_length_of_integer(digits: str) -> str:
    """length() of an integer literal.

    Vega compiles `length(123)` to the JavaScript `123.length`, which does not parse. Write
    `length('123')` for the text.
    """
    return (f"Vega compiles length({digits}) to JavaScript as {digits}.length, which does not parse; "
            f"write length('{digits}') for the text or length({digits}.0)")


@code("E318")
def expression_duplicate_key(key: str) -> str:
    """An object literal with a key twice.

    An object literal in the expression has the same key twice, which Vega's strict parser refuses.
    """
    return f"the object has the key {key!r} twice"


@code("E319")
def expression_illegal_key(key: str) -> str:
    """An object key that replaces a JavaScript built-in.

    An object key such as `__proto__` or `constructor` would replace a JavaScript built-in; Vega refuses
    it.
    """
    return f"the object key {key!r} would replace a JavaScript built-in"


@code("E320")
def expression_array_hole() -> str:
    """A missing array element.

    An array literal has an empty element between two commas (`[1,,2]`), which Vega refuses.
    """
    return "an array element is missing between commas"


@code("E321")
def expression_bad_regex(reason: str) -> str:
    """An invalid regular expression.

    A regular expression literal or a regexp() argument does not compile in JavaScript; the reason says
    why.
    """
    return f"invalid regular expression: {reason}"


@code("E322")
def expression_bad_regex_flags(flags: str) -> str:
    """Invalid regular expression flags.

    A regular expression has flags JavaScript does not know or repeats one; Vega accepts g, i, m, u and
    y, each once.
    """
    return f"invalid regular expression flags {flags!r} (Vega accepts g, i, m, u and y, each once)"


@code("E323")
def expression_too_deep(limit: int) -> str:
    """An expression nested too deeply.

    The expression nests deeper than the limit: deeper nesting is refused so the parser and evaluator
    cannot overflow their stacks.
    """
    return f"the expression nests deeper than {limit} levels"
