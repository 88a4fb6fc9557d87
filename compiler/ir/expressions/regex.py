r"""JavaScript regular expressions, translated exactly to Python's `re`, or refused with the reason.

JavaScript regular expressions (without the u flag) match UTF-16 code units,
and several of their escapes mean something else in Python: `\d` and `\w`
are ASCII, `\s` is JavaScript's white space, `.` and `$` stop at any line
terminator, not only "\n". `translate_regex` reads the pattern with
JavaScript's grammar (Annex B, as browsers and V8 accept it), reports the
syntax errors JavaScript reports, and writes an equivalent Python pattern
that runs on the units string (`jsvalues.to_units`), or says why it cannot:
backreferences, lookbehind, named groups, the u/v/y flags, a quantified
group that captures or can match empty (JavaScript resets captures and
refuses empty iterations where Python does not), a case-insensitive match of
non-ASCII letters (JavaScript folds them, Python's ASCII mode does not).

`new_regexp` is `RegExp(source, flags)`; `regex_replace` and `regex_split`
are RegExp.prototype[@@replace] and [@@split], and `substitution` is the
replacement template (`$&`, `$1`, ...) both kinds of `replace` read.
"""
from __future__ import annotations

import functools
import re

from .jsvalues import JS_SPACE, LINE_TERMINATORS, UNDEFINED, JSRegExp, from_units, to_number, to_uint32, to_units
from .problems import Throw, Unsupported

_HEX = frozenset("0123456789abcdefABCDEF")
_DIGITS = frozenset("0123456789")
_JS_WHITE = "".join(sorted(set(JS_SPACE)))
_LINE_CLASS = "\\n\\r\\u2028\\u2029"
_MAX_REPEAT = 65535


class RegexSyntaxError(Exception):
    """JavaScript refuses the pattern: `reason`, at `offset` in the pattern."""

    def __init__(self, reason: str, offset: int):
        super().__init__(reason)
        self.reason = reason
        self.offset = offset


class _RegexUnsupported(Exception):
    """The pattern is valid but has no exact Python translation here."""


def _escape_unit(char: str) -> str:
    return char if char.isascii() and char.isalnum() else f"\\u{ord(char):04x}"


def _complement(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out, low = [], 0
    for start, end in sorted(ranges):
        if start > low:
            out.append((low, start - 1))
        low = max(low, end + 1)
    if low <= 0xFFFF:
        out.append((low, 0xFFFF))
    return out


_CLASS_SETS: dict[str, list[tuple[int, int]]] = {
    "d": [(0x30, 0x39)],
    "w": [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)],
    "s": [(ord(c), ord(c)) for c in _JS_WHITE],
}
for _letter in "dws":
    _CLASS_SETS[_letter.upper()] = _complement(_CLASS_SETS[_letter])


def _class_text(ranges: list[tuple[int, int]]) -> str:
    return "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges)


class _RegexTranslator:
    """One pattern, read with ECMAScript's grammar (non-Unicode mode, Annex B)."""

    def __init__(self, pattern: str, flags: str):
        self.text = to_units(pattern)
        self.index = 0
        self.ignore_case = "i" in flags
        self.multiline = "m" in flags
        self.dot_all = "s" in flags
        self.groups = 0

    def fail(self, reason: str, at: int | None = None):
        raise RegexSyntaxError(reason, self.index if at is None else at)

    def peek(self, ahead: int = 0) -> str:
        return self.text[self.index + ahead:self.index + ahead + 1]

    def translate(self) -> str:
        python, _ = self.disjunction()
        if self.index < len(self.text):  # only an unmatched ')' stops a disjunction early
            self.fail("unmatched ')'")
        return python

    def disjunction(self) -> tuple[str, bool]:
        """(Python text, can match empty)."""
        parts, nullable = [], False
        while True:
            text, empty = self.alternative()
            parts.append(text)
            nullable = nullable or empty
            if self.peek() != "|":
                return "|".join(parts), nullable
            self.index += 1

    def alternative(self) -> tuple[str, bool]:
        parts, nullable = [], True
        while self.index < len(self.text) and self.peek() not in ("|", ")"):
            text, empty = self.term()
            parts.append(text)
            nullable = nullable and empty
        return "".join(parts), nullable

    def term(self) -> tuple[str, bool]:
        start = self.index
        char = self.peek()
        if char == "^":
            self.index += 1
            self.no_quantifier()
            return ("(?<![^" + _LINE_CLASS + "])" if self.multiline else "\\A"), True
        if char == "$":
            self.index += 1
            self.no_quantifier()
            return ("(?![^" + _LINE_CLASS + "])" if self.multiline else "\\Z"), True
        if char == "\\" and self.peek(1) in ("b", "B"):
            self.index += 2
            self.no_quantifier()
            return "\\" + self.text[start + 1], True
        if char in ("*", "+", "?") or (char == "{" and self.braced_quantifier() is not None):
            self.fail("nothing to repeat")
        captures_before = self.groups
        atom, nullable, group, lookahead = self.atom()
        quantifier = self.quantifier()
        if quantifier is None:
            return atom, nullable
        text, low = quantifier
        if lookahead:
            raise _RegexUnsupported("a quantified lookahead")
        if group and (self.groups > captures_before or nullable):
            raise _RegexUnsupported("a quantified group that captures or can match nothing")
        return atom + text, nullable or low == 0

    def no_quantifier(self) -> None:
        if self.peek() in ("*", "+", "?") or (self.peek() == "{" and self.braced_quantifier() is not None):
            self.fail("nothing to repeat")

    def braced_quantifier(self) -> tuple[int, int | None, int] | None:
        """`{n}`, `{n,}` or `{n,m}` at the current index: (n, m, length), else None (a literal '{')."""
        match = re.match(r"\{([0-9]+)(,([0-9]*))?\}", self.text[self.index:])
        if not match:
            return None
        low = int(match.group(1))
        high = low if match.group(2) is None else (int(match.group(3)) if match.group(3) else None)
        return low, high, match.end()

    def quantifier(self) -> tuple[str, int] | None:
        char = self.peek()
        if char in ("*", "+", "?"):
            self.index += 1
            text, low = char, 0 if char != "+" else 1
        elif char == "{" and (braced := self.braced_quantifier()) is not None:
            low, high, length = braced
            if high is not None and high < low:
                self.fail("numbers out of order in {} quantifier")
            if low > _MAX_REPEAT or (high or 0) > _MAX_REPEAT:
                raise _RegexUnsupported("a repetition count above 65535")
            text = self.text[self.index:self.index + length]
            self.index += length
        else:
            return None
        if self.peek() == "?":
            text += "?"
            self.index += 1
        self.no_quantifier()
        return text, low

    def atom(self) -> tuple[str, bool, bool, bool]:
        """(Python text, can match empty, is a group, is a lookahead)."""
        char = self.peek()
        if char == "(":
            return self.group()
        if char == ")":
            self.fail("unmatched ')'")
        if char == "[":
            return self.character_class(), False, False, False
        if char == ".":
            self.index += 1
            return ("[\\u0000-\\uffff]" if self.dot_all else "[^" + _LINE_CLASS + "]"), False, False, False
        if char == "\\":
            return self.atom_escape(), False, False, False
        self.index += 1
        return self.literal(char), False, False, False

    def group(self) -> tuple[str, bool, bool, bool]:
        opened = self.index
        self.index += 1
        lookahead = False
        if self.peek() == "?":
            kind = self.text[self.index:self.index + 3]
            if kind[:2] == "?:":
                prefix, self.index = "(?:", self.index + 2
            elif kind[:2] in ("?=", "?!"):
                prefix, self.index, lookahead = "(" + kind[:2], self.index + 2, True
            elif kind in ("?<=", "?<!"):
                raise _RegexUnsupported("lookbehind")
            elif kind[:2] == "?<":
                raise _RegexUnsupported("a named group")
            elif kind[1:2] in ("i", "m", "s", "-"):
                raise _RegexUnsupported("a group with flag modifiers")
            else:
                self.fail("invalid group")
        else:
            self.groups += 1
            prefix = "("
        captures_before = self.groups
        inner, nullable = self.disjunction()
        if self.peek() != ")":
            self.fail("unterminated group", opened)
        self.index += 1
        if lookahead and self.groups > captures_before:
            raise _RegexUnsupported("a lookahead that captures")
        return prefix + inner + ")", nullable or lookahead, True, lookahead

    def literal(self, char: str) -> str:
        if self.ignore_case and not char.isascii() and (char.lower() != char or char.upper() != char):
            raise _RegexUnsupported("a case-insensitive non-ASCII letter")
        return _escape_unit(char)

    def escape(self, in_class: bool) -> tuple[str, str | None]:
        """After a backslash: ('char', unit) or ('set', letter of \\d \\w \\s and their negations)."""
        self.index += 1
        if self.index >= len(self.text):
            self.fail("\\ at end of pattern")
        char = self.peek()
        self.index += 1
        if char in "dDwWsS":
            return "set", char
        if char in "fnrtv":
            return "char", {"f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}[char]
        if char == "b" and in_class:
            return "char", "\b"
        if char == "0" and self.peek() not in _DIGITS:
            return "char", "\0"
        if char in _DIGITS:
            raise _RegexUnsupported("a backreference or octal escape")
        if char == "c":
            raise _RegexUnsupported("a control escape")
        if char in "xu":
            size = 2 if char == "x" else 4
            digits = self.text[self.index:self.index + size]
            if len(digits) == size and set(digits) <= _HEX:
                self.index += size
                return "char", chr(int(digits, 16))
            return "char", char  # Annex B: a lone \x or \u is the letter itself
        return "char", char  # an identity escape

    def atom_escape(self) -> str:
        kind, value = self.escape(in_class=False)
        if kind == "set":
            return "[" + _class_text(_CLASS_SETS[value]) + "]"
        return self.literal(value)

    def character_class(self) -> str:
        opened = self.index
        self.index += 1
        negated = self.peek() == "^"
        if negated:
            self.index += 1
        ranges: list[tuple[int, int]] = []
        while True:
            if self.index >= len(self.text):
                self.fail("unterminated character class", opened)
            if self.peek() == "]":
                self.index += 1
                break
            range_start = self.index
            first = self.class_atom()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.index += 1
                second = self.class_atom()
                if first[0] == "set" or second[0] == "set":  # Annex B: [\d-z] is \d, '-' and 'z'
                    ranges.extend(self.class_ranges(first) + [(0x2D, 0x2D)] + self.class_ranges(second))
                    continue
                low, high = ord(first[1]), ord(second[1])
                if low > high:
                    self.fail("range out of order in character class", range_start)
                ranges.append((low, high))
            else:
                ranges.extend(self.class_ranges(first))
        if self.ignore_case:
            for low, high in ranges:
                if high >= 0x80 and any(chr(c).lower() != chr(c) or chr(c).upper() != chr(c)
                                        for c in range(max(low, 0x80), high + 1)):
                    raise _RegexUnsupported("a case-insensitive non-ASCII letter")
        if not ranges:
            return "[\\u0000-\\uffff]" if negated else "(?!)"
        return "[" + ("^" if negated else "") + _class_text(sorted(set(ranges))) + "]"

    def class_atom(self) -> tuple[str, str]:
        if self.peek() == "\\":
            return self.escape(in_class=True)
        char = self.peek()
        self.index += 1
        return "char", char

    @staticmethod
    def class_ranges(atom: tuple[str, str]) -> list[tuple[int, int]]:
        kind, value = atom
        if kind == "set":
            return list(_CLASS_SETS[value])
        return [(ord(value), ord(value))]


@functools.lru_cache(maxsize=512)
def translate_regex(pattern: str, flags: str) -> tuple[re.Pattern | None, str | None, int]:
    """(compiled Python pattern or None, why not, capture groups) for a JavaScript pattern and flags.

    The result is cached: a pattern is translated once, whether the parser
    checks a literal, the evaluator compiles it, or `regexp(...)` builds it.

    Raises:
        RegexSyntaxError: JavaScript refuses the pattern.
    """
    if set(flags) & set("uvy"):  # Unicode mode has another grammar; sticky matching is not modelled
        return None, f"the {''.join(sorted(set(flags) & set('uvy')))} flag", 0
    translator = _RegexTranslator(pattern, flags)
    try:
        python = translator.translate()
    except _RegexUnsupported as why:
        return None, str(why), 0
    options = re.ASCII | (re.IGNORECASE if translator.ignore_case else 0)
    try:
        return re.compile(python, options), None, translator.groups
    except (re.error, OverflowError) as why:
        return None, f"no Python equivalent ({why})", 0


_FLAG_ORDER = "dgimsuvy"


def new_regexp(source: str, flags: str) -> JSRegExp:
    """`new RegExp(source, flags)` at run time: a SyntaxError for a bad pattern or flags."""
    if not set(flags) <= set(_FLAG_ORDER) or len(set(flags)) != len(flags) or {"u", "v"} <= set(flags):
        raise Throw(f"SyntaxError: Invalid flags supplied to RegExp constructor '{flags}'")
    try:
        compiled, unsupported, groups = translate_regex(source, flags)
    except RegexSyntaxError as error:
        raise Throw(f"SyntaxError: Invalid regular expression: /{source}/{flags}: {error.reason}") from None
    flags = "".join(flag for flag in _FLAG_ORDER if flag in flags)
    return JSRegExp(_escape_source(source), flags, compiled, unsupported, groups)


def _escape_source(source: str) -> str:
    """EscapeRegExpPattern: what RegExp.prototype.source shows for a pattern given as text."""
    if not source:
        return "(?:)"
    out, in_class, index = [], False, 0
    while index < len(source):
        char = source[index]
        if char == "\\" and index + 1 < len(source):
            out.append(source[index:index + 2])
            index += 2
            continue
        if char == "/" and not in_class:
            out.append("\\/")
        elif char in LINE_TERMINATORS:
            out.append({"\n": "\\n", "\r": "\\r", "\u2028": "\\u2028", "\u2029": "\\u2029"}[char])
        else:
            in_class = (in_class and char != "]") or (not in_class and char == "[")
            out.append(char)
        index += 1
    return "".join(out)


def regex_compiled(pattern: JSRegExp, name: str) -> re.Pattern:
    """The Python pattern of a RegExp, or Unsupported (naming `name`, the function) when there is none."""
    if pattern.compiled is None:
        raise Unsupported(f"{name} with /{pattern.source}/{pattern.flags}", pattern.unsupported or "")
    return pattern.compiled


def _captures(match: re.Match, groups: int) -> list:
    return [UNDEFINED if value is None else from_units(value) for value in match.groups()[:groups]]


def substitution(matched: str, text: str, position: int, captures: list, template: str) -> str:
    """GetSubstitution: `$$ $& $\\` $' $n $nn` in a replacement (no named groups)."""
    if "$" not in template:
        return template
    out = []
    index, size, count = 0, len(template), len(captures)
    while index < size:
        char = template[index]
        following = template[index + 1:index + 2]
        if char != "$" or not following:
            out.append(char)
            index += 1
        elif following == "$":
            out.append("$")
            index += 2
        elif following == "&":
            out.append(matched)
            index += 2
        elif following == "`":
            out.append(text[:position])
            index += 2
        elif following == "'":
            out.append(text[min(position + len(matched), len(text)):])
            index += 2
        elif following in _DIGITS:
            digits = template[index + 1:index + 3]
            if len(digits) < 2 or digits[1] not in _DIGITS or int(digits) > count:
                digits = following
            number = int(digits)
            if 1 <= number <= count:
                capture = captures[number - 1]
                out.append("" if capture is UNDEFINED else capture)
            else:
                out.append("$" + digits)
            index += 1 + len(digits)
        else:
            out.append("$")
            index += 1
    return "".join(out)


def regex_replace(pattern: JSRegExp, text: str, template: str) -> str:
    """RegExp.prototype[@@replace] on a units string."""
    compiled = regex_compiled(pattern, "replace")
    matches = []
    position = 0
    while position <= len(text):
        match = compiled.search(text, position)
        if match is None:
            break
        matches.append(match)
        if "g" not in pattern.flags:
            break
        position = match.end() + 1 if match.end() == match.start() else match.end()
    out, next_position = [], 0
    for match in matches:
        start, matched = match.start(), match.group()
        captures = [UNDEFINED if value is None else value for value in match.groups()[:pattern.groups]]
        replacement = substitution(matched, text, start, captures, template)
        if start >= next_position:
            out.append(text[next_position:start] + replacement)
            next_position = start + len(matched)
    out.append(text[next_position:])
    return "".join(out)


def regex_split(pattern: JSRegExp, text: str, limit: object) -> list:
    """RegExp.prototype[@@split]: sticky matches at each index, captures spliced into the result."""
    compiled = regex_compiled(pattern, "split")
    units = to_units(text)
    lim = 0xFFFFFFFF if limit is UNDEFINED else to_uint32(to_number(limit))
    if lim == 0:
        return []
    size = len(units)
    if size == 0:
        return [] if compiled.match(units, 0) is not None else [text]
    out: list = []
    start = position = 0
    while position < size:
        match = compiled.match(units, position)
        if match is None:
            position += 1
            continue
        end = min(match.end(), size)
        if end == start:
            position += 1
            continue
        out.append(from_units(units[start:position]))
        if len(out) == lim:
            return out
        start = end
        for capture in _captures(match, pattern.groups):
            out.append(capture)
            if len(out) == lim:
                return out
        position = start
    out.append(from_units(units[start:]))
    return out
