"""Math in labels: ``$R^2$``, ``$\\alpha$``, ``$10^{-3}$`` as the Unicode text a paper's LaTeX reads like.

Text between two ``$`` is math, as in LaTeX and matplotlib; a text with an odd
number of unescaped ``$`` has none (``Cost ($)`` stays as written, as
matplotlib reads it), and ``\\$`` is a literal dollar anywhere. Math becomes
plain Unicode text, so every renderer, export and font draws it as text
(searchable in a PDF, no images, the same bytes on every run):

- superscripts and subscripts, ``x^2``, ``x_i``, ``10^{-3}``, ``x_{\\max}``:
  each character of the script in its Unicode superscript or subscript form
  (`SUPERSCRIPTS`, `SUBSCRIPTS`: digits, ``+ - = ( )``, most Latin letters,
  some Greek); ``^\\circ`` is ``°``, ``^\\prime`` and ``'`` are ``′``, ``^*`` is ``*``;
- the commands of `SYMBOLS`: Greek letters (``\\alpha`` ... ``\\Omega``, with
  ``\\epsilon`` ϵ and ``\\varepsilon`` ε, ``\\phi`` ϕ and ``\\varphi`` φ as
  LaTeX draws them), operators and relations (``\\times \\pm \\cdot \\leq \\geq
  \\neq \\approx \\sim \\propto \\infty \\partial \\nabla \\sum \\to`` ...), spaces
  (``\\, \\; \\quad``), escaped characters (``\\% \\{ \\}``), ``\\log \\exp \\max``
  and the other function names as their words;
- ``\\frac{a}{b}`` as ``a/b`` (a part of more than one character that is not a
  plain number or word in parentheses: ``(a+b)/2``), ``\\sqrt{x}`` as ``√x``;
- ``\\mathrm{...}``, ``\\text{...}``, ``\\operatorname{...}``, ``\\mathit{...}``
  as their content (``\\text`` keeps it as written), ``\\mathbb{R}`` as ``ℝ``;
- ``-`` is the minus sign ``−``, ``~`` a no-break space, braces group;
  spaces are kept as written (a label is not typeset: ``$R^2 = 0.9$`` keeps
  the spaces around its ``=``); letters stay upright.

Anything else is refused with a diagnostic (`MathProblem`): a command not in
the list (``\\mathbf``, ``\\begin``), a character without a Unicode script
form (``x^q``, ``x_b``), unbalanced braces or a script without its argument,
a script inside a script. Trend labels and annotations are ``str.format``
templates: their braces are written doubled there (``$10^{{-3}}$``).
"""

from __future__ import annotations

from .. import errors as msg
from ..errors.translate import LETTER_STYLES

# Unicode's superscript forms (Superscripts and Subscripts, Latin-1, Phonetic Extensions).
SUPERSCRIPTS = dict(zip(
    "0123456789+−=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVWαβγδεθιφχ",
    "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵅᵝᵞᵟᵋᶿᶥᵠᵡ"))
SUBSCRIPTS = dict(zip(
    "0123456789+−=()aehijklmnoprstuvxβγρφχ",
    "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ"))
# Symbols that are superscripts as they are drawn: ``^\\circ`` is the degree sign, ``^\\prime`` a prime.
SUPERSCRIPTS.update({"∘": "°", "′": "′", "*": "*", "∗": "*", "†": "†"})
SCRIPTS = {"^": SUPERSCRIPTS, "_": SUBSCRIPTS}

GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε", "zeta": "ζ",
    "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν",
    "xi": "ξ", "pi": "π", "varpi": "ϖ", "rho": "ρ", "varrho": "ϱ", "sigma": "σ", "varsigma": "ς", "tau": "τ",
    "upsilon": "υ", "phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ",
    "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}
OPERATORS = {
    "times": "×", "pm": "±", "mp": "∓", "cdot": "·", "div": "÷", "ast": "∗", "star": "⋆", "circ": "∘",
    "bullet": "•", "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "neq": "≠", "ne": "≠", "approx": "≈",
    "sim": "∼", "simeq": "≃", "equiv": "≡", "propto": "∝", "ll": "≪", "gg": "≫", "infty": "∞",
    "partial": "∂", "nabla": "∇", "sum": "∑", "prod": "∏", "int": "∫", "to": "→", "rightarrow": "→",
    "leftarrow": "←", "Rightarrow": "⇒", "leftrightarrow": "↔", "mapsto": "↦", "in": "∈", "notin": "∉",
    "subset": "⊂", "subseteq": "⊆", "cup": "∪", "cap": "∩", "forall": "∀", "exists": "∃", "neg": "¬",
    "wedge": "∧", "vee": "∨", "emptyset": "∅", "ell": "ℓ", "hbar": "ℏ", "degree": "°", "prime": "′",
    "dagger": "†", "ldots": "…", "dots": "…", "cdots": "⋯", "langle": "⟨", "rangle": "⟩", "vert": "|",
    "Vert": "‖", "|": "‖", "sqrt": "√",
}
SPACES = {",": "\u2009", ":": "\u2005", ";": "\u2005", " ": " ", "!": "", "quad": "\u2003", "qquad": "\u2003\u2003"}
ESCAPED = {char: char for char in "%{}$&#_"}
# Function names LaTeX sets upright: written as their words.
FUNCTIONS = ("log", "ln", "exp", "sin", "cos", "tan", "max", "min", "arg", "argmax", "argmin", "det", "lim",
             "sup", "inf", "Pr", "dim", "ker", "deg", "gcd", "sinh", "cosh", "tanh", "mod")
BLACKBOARD = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "P": "ℙ", "H": "ℍ", "E": "𝔼"}
# Commands whose one argument is drawn as it is (`\text` keeps its characters as written).
VERBATIM = ("text", "textrm", "mbox")
CONTENT = ("mathrm", "operatorname", "mathit", "mathsf", "mathnormal")
# Commands that only size or pair a delimiter: the delimiter is drawn, the command is not.
DELIMITER_SIZES = ("left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr")
SYMBOLS = {**GREEK, **OPERATORS, **SPACES, **ESCAPED, **{name: name for name in FUNCTIONS}}


def supported_commands() -> list[str]:
    """Every command math text accepts (without the backslash), for did-you-mean hints and the docs."""
    return sorted({*SYMBOLS, "frac", "sqrt", "mathbb", *VERBATIM, *CONTENT, *DELIMITER_SIZES})


class MathProblem(ValueError):
    """Math that cannot be written as Unicode text: a message function's text and its hint."""

    def __init__(self, message: str, hint: str):
        super().__init__(message)
        self.message, self.hint = message, hint


def render_math(text: str) -> str:
    """A label with its ``$...$`` math written as Unicode text (see the module docstring).

    Args:
        text: a label as the spec writes it.

    Returns:
        The text to draw: unchanged when it has no math and no ``\\$``.

    Raises:
        MathProblem: math that has no Unicode form (E725-E728), with a hint.
    """
    if "$" not in text:
        return text
    parts = _split(text)
    if len(parts) % 2 == 0:  # an odd number of unescaped `$`: no math, as matplotlib reads it
        return text.replace("\\$", "$")
    return "".join(part.replace("\\$", "$") if index % 2 == 0 else _Math(part).render()
                   for index, part in enumerate(parts))


def _split(text: str) -> list[str]:
    """The text split at every unescaped ``$``."""
    parts, current, index = [], "", 0
    while index < len(text):
        if text.startswith("\\$", index):
            current += "\\$"
            index += 2
        elif text[index] == "$":
            parts.append(current)
            current = ""
            index += 1
        else:
            current += text[index]
            index += 1
    return parts + [current]


class _Math:
    """One math span, read left to right: atoms, scripts, commands."""

    def __init__(self, source: str):
        self.source = source
        self.index = 0

    def render(self) -> str:
        return self._sequence(closing=False, in_script=False)

    # ---------------------------------------------------------------- reading

    def _peek(self) -> str:
        return self.source[self.index] if self.index < len(self.source) else ""

    def _sequence(self, closing: bool, in_script: bool) -> str:
        """Atoms up to the end, or up to the `}` that closes the group (consumed)."""
        out = []
        while True:
            char = self._peek()
            if not char:
                if closing:
                    raise MathProblem(msg.math_unbalanced("a '{' is never closed"), msg.math_unbalanced_hint())
                return "".join(out)
            if char == "}":
                if not closing:
                    raise MathProblem(msg.math_unbalanced("a '}' closes nothing"), msg.math_unbalanced_hint())
                self.index += 1
                return "".join(out)
            if char in SCRIPTS:
                if in_script:
                    raise MathProblem(msg.math_nested_script(), msg.math_nested_script_hint())
                self.index += 1
                out.append(self._script(char))
            else:
                out.append(self._atom(in_script))

    def _argument(self, command: str, in_script: bool) -> str:
        """The argument of a command or a script: a group, a command, or one character."""
        while self._peek() == " ":
            self.index += 1
        if not self._peek() or self._peek() == "}":
            raise MathProblem(msg.math_unbalanced(f"{command!r} has no argument"), msg.math_unbalanced_hint())
        if self._peek() in SCRIPTS:
            raise MathProblem(msg.math_nested_script(), msg.math_nested_script_hint())
        return self._atom(in_script)

    def _atom(self, in_script: bool) -> str:
        char = self._peek()
        if char == "{":
            self.index += 1
            return self._sequence(closing=True, in_script=in_script)
        if char == "\\":
            return self._command(in_script)
        self.index += 1
        return {"-": "−", "~": "\u00a0", "'": "′"}.get(char, char)

    def _raw_group(self, command: str) -> str:
        """The text of a `{...}` argument as written (for `\\text`), nested braces kept balanced."""
        while self._peek() == " ":
            self.index += 1
        if self._peek() != "{":
            return self._argument(command, False)
        depth, start = 0, self.index
        while self.index < len(self.source):
            char = self.source[self.index]
            depth += {"{": 1, "}": -1}.get(char, 0)
            self.index += 1
            if depth == 0:
                return self.source[start + 1:self.index - 1]
        raise MathProblem(msg.math_unbalanced("a '{' is never closed"), msg.math_unbalanced_hint())

    def _command(self, in_script: bool) -> str:
        self.index += 1  # the backslash
        start = self.index
        while self._peek().isascii() and self._peek().isalpha():
            self.index += 1
        if self.index == start and self._peek():
            self.index += 1  # a one-character command: \, \{ \%
        name = self.source[start:self.index]
        if name in SYMBOLS and name != "sqrt":
            return SYMBOLS[name]
        if name == "frac":
            numerator = self._argument("\\frac", in_script)
            denominator = self._argument("\\frac", in_script)
            return f"{_wrapped(numerator)}/{_wrapped(denominator)}"
        if name == "sqrt":
            return "√" + _wrapped(self._argument("\\sqrt", in_script))
        if name in VERBATIM:
            return self._raw_group("\\" + name).replace("\\$", "$")
        if name in CONTENT:
            return self._argument("\\" + name, in_script)
        if name == "mathbb":
            letter = self._argument("\\mathbb", in_script)
            if letter not in BLACKBOARD:
                raise MathProblem(msg.math_unknown_command(f"\\mathbb{{{letter}}}"),
                                  msg.math_unknown_command_hint(None, "".join(BLACKBOARD)))
            return BLACKBOARD[letter]
        if name in DELIMITER_SIZES:
            if self._peek() == ".":  # \left. : no delimiter
                self.index += 1
            return ""
        suggestion = None if name in LETTER_STYLES else msg.did_you_mean(name, supported_commands())
        raise MathProblem(msg.math_unknown_command("\\" + name),
                          msg.math_unknown_command_hint(suggestion, command=name))

    def _script(self, kind: str) -> str:
        text = self._argument(kind, in_script=True).replace(" ", "")
        forms = SCRIPTS[kind]
        missing = next((char for char in text if char not in forms), None)
        if missing is not None:
            raise MathProblem(msg.math_no_script_form(missing, "superscript" if kind == "^" else "subscript"),
                              msg.math_no_script_form_hint("".join(forms)))
        return "".join(forms[char] for char in text)


def _wrapped(text: str) -> str:
    """A fraction's part: in parentheses unless it is one character, a number or a word."""
    if len(text) <= 1 or text.replace(".", "").isalnum():
        return text
    return f"({text})"
