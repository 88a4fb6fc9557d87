# The scanner and parser below are ported from vega-expression's parser
# (Vega 6.2, packages/vega-expression/src/parser.js), and `_Resolver` follows
# the checks of its code generator (codegen.js). Vega's licence:
#
# Copyright (c) 2015-2023, University of Washington Interactive Data Lab
# All rights reserved.
#
# Redistribution and use in source and binary forms, with or without
# modification, are permitted provided that the following conditions are met:
#
# 1. Redistributions of source code must retain the above copyright notice, this
#    list of conditions and the following disclaimer.
#
# 2. Redistributions in binary form must reproduce the above copyright notice,
#    this list of conditions and the following disclaimer in the documentation
#    and/or other materials provided with the distribution.
#
# 3. Neither the name of the copyright holder nor the names of its contributors
#   may be used to endorse or promote products derived from this software
#   without specific prior written permission.
#
# THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
# AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
# IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
# DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT OWNER OR CONTRIBUTORS BE LIABLE
# FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
# DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
# SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER
# CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY,
# OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
# OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
#
# vega-expression's parser is based on Esprima (http://esprima.org/), whose
# header and licence it carries, and so does this port:
#
# Copyright (C) 2013 Ariya Hidayat <ariya.hidayat@gmail.com>
# Copyright (C) 2013 Thaddee Tyl <thaddee.tyl@gmail.com>
# Copyright (C) 2013 Mathias Bynens <mathias@qiwi.be>
# Copyright (C) 2012 Ariya Hidayat <ariya.hidayat@gmail.com>
# Copyright (C) 2012 Mathias Bynens <mathias@qiwi.be>
# Copyright (C) 2012 Joost-Wim Boekesteijn <joost-wim@boekesteijn.nl>
# Copyright (C) 2012 Kris Kowal <kris.kowal@cixar.com>
# Copyright (C) 2012 Yusuke Suzuki <utatane.tea@gmail.com>
# Copyright (C) 2012 Arpad Borsos <arpad.borsos@googlemail.com>
# Copyright (C) 2011 Ariya Hidayat <ariya.hidayat@gmail.com>
#
# Redistribution and use in source and binary forms, with or without
# modification, are permitted provided that the following conditions are met:
#
#   * Redistributions of source code must retain the above copyright
#     notice, this list of conditions and the following disclaimer.
#   * Redistributions in binary form must reproduce the above copyright
#     notice, this list of conditions and the following disclaimer in the
#     documentation and/or other materials provided with the distribution.
#
# THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
# AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
# IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE
# ARE DISCLAIMED. IN NO EVENT SHALL <COPYRIGHT HOLDER> BE LIABLE FOR ANY
# DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES
# (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES;
# LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND
# ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT
# (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF
# THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
#
# See THIRD_PARTY_NOTICES.md.

"""Parsing: vega-expression's scanner and parser, then its code generator's checks, building `nodes`.

`parse(text)` reads the expression with the grammar of vega-expression's
parser (an Esprima subset), applies the checks of its code generator (names,
functions and their arities, object keys), and returns the typed tree of
`nodes`. Every refusal is an `ExpressionError` with the offset of the problem.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ... import errors as msg
from .jsvalues import LINE_TERMINATORS, OBJECT_PROTOTYPE, from_units, int_to_double, js_string, to_js_string
from .nodes import (
    ArrayLiteral,
    Binary,
    Call,
    Conditional,
    Constant,
    Datum,
    Expression,
    Field,
    Literal,
    Logical,
    Member,
    ObjectLiteral,
    Regex,
    Unary,
)
from .problems import (
    ExpressionError,
    expression_arity,
    expression_array_hole,
    expression_assignment_hint,
    expression_bad_character,
    expression_bad_escape,
    expression_bad_number,
    expression_bad_regex,
    expression_bad_regex_flags,
    expression_duplicate_key,
    expression_event_name,
    expression_expected,
    expression_illegal_key,
    expression_length_of_integer,
    expression_not_a_function_name,
    expression_not_allowed,
    expression_nothing,
    expression_octal,
    expression_reserved_name,
    expression_too_deep,
    expression_trailing,
    expression_unclosed,
    expression_unknown_function,
    expression_unknown_name,
    expression_unterminated_string,
)
from .regex import RegexSyntaxError, translate_regex
from .signatures import CONSTANTS, VEGA_FUNCTIONS

# ------------------------------------------------------------------ tokens
# A port of vega-expression's scanner: the same tokens at the same places.

_EOF, _IDENTIFIER, _KEYWORD, _BOOLEAN, _NULL, _NUMBER_TOKEN, _PUNCTUATOR, _STRING = range(8)

_KEYWORDS = frozenset(
    "if in do var for new try let this else case void with enum while break catch throw const yield "
    "class super return typeof delete switch export import public static default finally extends "
    "package private function continue debugger interface protected instanceof implements".split())

_VEGA_SPACE = frozenset("\t\v\f \xa0\u1680\u180e\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
                        "\u2009\u200a\u202f\u205f\u3000\ufeff\n\r\u2028\u2029")
_HEX = frozenset("0123456789abcdefABCDEF")
_OCTAL = frozenset("01234567")
_DIGITS = frozenset("0123456789")

_PRECEDENCE = {
    "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5,
    "==": 6, "!=": 6, "===": 6, "!==": 6,
    "<": 7, ">": 7, "<=": 7, ">=": 7, "instanceof": 7, "in": 7,
    "<<": 8, ">>": 8, ">>>": 8,
    "+": 9, "-": 9, "*": 11, "/": 11, "%": 11,
}

_ASSIGNMENTS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", ">>>=", "&=", "|=", "^="})

# Limits that keep Python's recursion (about 1000 frames) out of reach: how deep
# parentheses, calls and unary operators may nest (the parser recurses some eight
# frames per level), and how deep the tree may be (a chain `a + b + ...` is
# parsed without recursion, but evaluated with one frame per operator).
MAX_NESTING = 60
MAX_DEPTH = 200


def _identifier_start(char: str) -> bool:
    return char == "$" or char == "_" or char == "\\" or ("a" <= char <= "z") or ("A" <= char <= "Z") or (
        char >= "\x80" and char.isidentifier())


def _identifier_part(char: str) -> bool:
    return _identifier_start(char) or ("0" <= char <= "9") or (char >= "\x80" and ("a" + char).isidentifier())


@dataclass(slots=True)
class _Token:
    kind: int
    value: object
    start: int
    end: int
    octal: bool = False


class _Scanner:
    """vega-expression's lexer: tokens on demand, since '/' is division or a regex by context."""

    def __init__(self, text: str):
        self.text = text
        self.length = len(text)

    def skip_space(self, index: int) -> int:
        text, length = self.text, self.length
        while index < length and text[index] in _VEGA_SPACE:
            index += 1
        return index

    def token(self, index: int) -> _Token:
        index = self.skip_space(index)
        if index >= self.length:
            return _Token(_EOF, None, index, index)
        char = self.text[index]
        if _identifier_start(char):
            return self.identifier(index)
        if char in "'\"":
            return self.string(index)
        if char == "." and index + 1 < self.length and self.text[index + 1] in _DIGITS:
            return self.number(index)
        if char in _DIGITS:
            return self.number(index)
        return self.punctuator(index)

    def fail(self, message: str, offset: int, hint: str | None = None):
        raise ExpressionError(message, offset, hint)

    # --- names

    def identifier(self, start: int) -> _Token:
        text, index = self.text, start
        name = []
        first = True
        while index < self.length and _identifier_part(text[index]):
            char = text[index]
            if char == "\\":
                # \uXXXX spells an identifier character (Vega takes no other escape here)
                digits = text[index + 2:index + 6]
                if text[index + 1:index + 2] != "u" or len(digits) != 4 or not set(digits) <= _HEX:
                    self.fail(expression_bad_character("\\"), index)
                char = chr(int(digits, 16))
                valid = _identifier_start(char) if first else _identifier_part(char)
                if char == "\\" or not valid:
                    self.fail(expression_bad_character("\\"), index)
                index += 6
            elif first and not _identifier_start(char):
                break
            else:
                index += 1
            name.append(char)
            first = False
        word = "".join(name)
        if len(word) == 1:
            kind = _IDENTIFIER
        elif word in _KEYWORDS:
            kind = _KEYWORD
        elif word == "null":
            kind = _NULL
        elif word in ("true", "false"):
            kind = _BOOLEAN
        else:
            kind = _IDENTIFIER
        return _Token(kind, word, start, index)

    # --- punctuation

    def punctuator(self, start: int) -> _Token:
        text = self.text
        char = text[start]
        if char in ".();,{}[]:?~":
            return _Token(_PUNCTUATOR, char, start, start + 1)
        following = text[start + 1:start + 2]
        if following == "=":
            if char in "+-/<>^|%&*":
                return _Token(_PUNCTUATOR, char + "=", start, start + 2)
            if char in "!=":
                end = start + 3 if text[start + 2:start + 3] == "=" else start + 2
                return _Token(_PUNCTUATOR, text[start:end], start, end)
        four = text[start:start + 4]
        if four == ">>>=":
            return _Token(_PUNCTUATOR, four, start, start + 4)
        three = four[:3]
        if three in (">>>", "<<=", ">>="):
            return _Token(_PUNCTUATOR, three, start, start + 3)
        two = three[:2]
        if (two[1:] == char and char in "+-<>&|") or two == "=>":
            return _Token(_PUNCTUATOR, two, start, start + 2)
        if two == "//" or two == "/*":
            self.fail(expression_not_allowed("a comment"), start)
        if char in "<>=!+-*%&|^/":
            return _Token(_PUNCTUATOR, char, start, start + 1)
        self.fail(expression_bad_character(char), start)

    # --- numbers

    def number(self, start: int) -> _Token:
        text, length = self.text, self.length
        index = start

        def run(allowed: frozenset, at: int) -> int:
            while at < length and text[at] in allowed:
                at += 1
            return at

        def bad(at: int):
            end = at
            while end < length and (_identifier_part(text[end]) or text[end] == "."):
                end += 1
            self.fail(expression_bad_number(text[start:max(end, at + 1)]), start)

        if text[index] != ".":
            if text[index] == "0" and index + 1 < length:
                following = text[index + 1]
                if following in "xX":
                    end = run(_HEX, index + 2)
                    if end == index + 2 or (end < length and _identifier_start(text[end])):
                        bad(end)
                    return _Token(_NUMBER_TOKEN, int_to_double(int(text[index + 2:end], 16)), start, end)
                if following in _OCTAL:
                    self.fail(expression_octal(), start)
                if following in _DIGITS:
                    bad(index + 1)
            index = run(_DIGITS, index)
        if index < length and text[index] == ".":
            index = run(_DIGITS, index + 1)
        if index < length and text[index] in "eE":
            index += 1
            if index < length and text[index] in "+-":
                index += 1
            if index >= length or text[index] not in _DIGITS:
                bad(index)
            index = run(_DIGITS, index)
        if index < length and _identifier_start(text[index]):
            bad(index)
        return _Token(_NUMBER_TOKEN, float(text[start:index]), start, index)

    # --- strings

    def string(self, start: int) -> _Token:
        text, length = self.text, self.length
        quote = text[start]
        index = start + 1
        out = []
        while True:
            if index >= length or text[index] in LINE_TERMINATORS:
                self.fail(expression_unterminated_string(quote), start)
            char = text[index]
            index += 1
            if char == quote:
                break
            if char != "\\":
                out.append(char)
                continue
            if index >= length:
                self.fail(expression_unterminated_string(quote), start)
            escape_at = index - 1
            char = text[index]
            index += 1
            if char in LINE_TERMINATORS:  # a line continuation
                if char == "\r" and text[index:index + 1] == "\n":
                    index += 1
            elif char == "u" and text[index:index + 1] == "{":
                close = text.find("}", index)
                digits = text[index + 1:close] if close >= 0 else ""
                if not digits or not set(digits) <= _HEX or int(digits, 16) > 0x10FFFF:
                    self.fail(expression_bad_escape(text[escape_at:(close + 1 if close >= 0 else index + 1)]),
                              escape_at)
                out.append(chr(int(digits, 16)))
                index = close + 1
            elif char in "ux":
                size = 4 if char == "u" else 2
                digits = text[index:index + size]
                if len(digits) != size or not set(digits) <= _HEX:
                    valid = len(digits) - len(digits.lstrip("0123456789abcdefABCDEF"))
                    self.fail(expression_bad_escape(text[escape_at:index + valid]), escape_at)
                out.append(chr(int(digits, 16)))
                index += size
            elif char in "nrtbfv":
                out.append({"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", "v": "\v"}[char])
            elif char in _OCTAL:
                if char != "0" or (index < length and text[index] in _OCTAL):
                    self.fail(expression_octal(), escape_at)
                out.append("\0")
            else:
                out.append(char)
        return _Token(_STRING, from_units("".join(out)), start, index)

    # --- regular expressions: scanned only where an expression may start

    def regex(self, start: int) -> tuple[str, str, int]:
        text, length = self.text, self.length
        index = start + 1
        in_class = False
        while True:
            if index >= length or text[index] in LINE_TERMINATORS:
                self.fail(expression_bad_regex("no closing '/'"), start)
            char = text[index]
            index += 1
            if char == "\\":
                if index >= length or text[index] in LINE_TERMINATORS:
                    self.fail(expression_bad_regex("no closing '/'"), start)
                index += 1
            elif in_class:
                in_class = char != "]"
            elif char == "/":
                break
            elif char == "[":
                in_class = True
        body_end = index - 1
        flags_start = index
        while index < length and _identifier_part(text[index]):
            if text[index] == "\\":
                self.fail(expression_bad_character("\\"), index)
            index += 1
        flags = text[flags_start:index]
        if not set(flags) <= set("gimuy") or len(set(flags)) != len(flags):
            self.fail(expression_bad_regex_flags(flags), flags_start)
        return text[start + 1:body_end], flags, index


# ------------------------------------------------------------------ parsing
# Two passes, as in Vega: the parser builds a raw ESTree-like tree and reports
# syntax errors; `_Resolver` then applies the code generator's checks (names,
# functions, object keys) and builds the typed `nodes`.


class _Raw:
    """A raw parse node: kind ('id', 'literal', 'regex', 'member', 'call', 'unary', 'binary',
    'conditional', 'array', 'object'), position, parts and depth."""

    __slots__ = ("kind", "start", "end", "parts", "depth")

    def __init__(self, kind: str, start: int, end: int, *parts):
        self.kind, self.start, self.end, self.parts = kind, start, end, parts
        self.depth = 1 + max((p.depth for p in _raw_children(parts)), default=0)
        if self.depth > MAX_DEPTH:
            raise ExpressionError(expression_too_deep(MAX_DEPTH), start)


def _raw_children(parts) -> Iterator[_Raw]:
    for part in parts:
        if isinstance(part, _Raw):
            yield part
        elif isinstance(part, (list, tuple)):
            yield from _raw_children(part)


def _describe(token: _Token, text: str) -> str:
    """A token as a message names it."""
    if token.kind == _EOF:
        return "the end of the expression"
    written = text[token.start:token.end]
    if token.kind == _NUMBER_TOKEN:
        return f"the number {written}"
    if token.kind == _STRING:
        return f"the string {written}"
    if token.kind == _IDENTIFIER:
        return f"the name {token.value!r}"
    if token.kind == _KEYWORD:
        return f"the keyword {token.value!r}"
    return repr(written)


class _Parser:
    """vega-expression's recursive-descent parser (Esprima's, cut down), with positions."""

    def __init__(self, text: str):
        self.text = text
        self.scanner = _Scanner(text)
        self.lookahead = self.scanner.token(0)
        self.nesting = 0

    # --- tokens

    def next(self) -> _Token:
        token = self.lookahead
        self.lookahead = self.scanner.token(token.end)
        return token

    def match(self, value: str) -> bool:
        return self.lookahead.kind == _PUNCTUATOR and self.lookahead.value == value

    def unexpected(self, token: _Token, wanted: str = "an expression"):
        """Fail on `token`, naming the construct Vega refuses when that is why."""
        if token.kind == _PUNCTUATOR and token.value in _ASSIGNMENTS:
            raise ExpressionError(expression_not_allowed(f"assignment ({token.value!r})"), token.start,
                                  expression_assignment_hint(token.value))
        if token.kind == _PUNCTUATOR and token.value in ("++", "--"):
            raise ExpressionError(expression_not_allowed(f"{token.value!r}"), token.start)
        if token.kind == _PUNCTUATOR and token.value == "=>":
            raise ExpressionError(expression_not_allowed("a function ('=>')"), token.start)
        if token.kind == _KEYWORD and token.value not in ("in", "instanceof"):
            raise ExpressionError(expression_not_allowed(f"the keyword {token.value!r}"), token.start)
        raise ExpressionError(expression_expected(wanted, _describe(token, self.text)), token.start)

    def close(self, closer: str, what: str, opened_at: int) -> _Token:
        if not self.match(closer):
            token = self.lookahead
            if token.kind == _PUNCTUATOR and token.value in _ASSIGNMENTS | {"++", "--", "=>"}:
                self.unexpected(token)
            if self.match(","):
                raise ExpressionError(expression_not_allowed("the comma operator"), token.start)
            raise ExpressionError(expression_unclosed(closer, what, opened_at, _describe(token, self.text)),
                                  token.start)
        return self.next()

    # --- grammar

    def parse(self) -> _Raw:
        if self.lookahead.kind == _EOF:
            raise ExpressionError(expression_nothing(), 0)
        node = self.expression()
        if self.lookahead.kind != _EOF:
            token = self.lookahead
            if token.kind == _PUNCTUATOR and (token.value in _ASSIGNMENTS or token.value in ("++", "--", "=>")):
                self.unexpected(token)
            raise ExpressionError(expression_trailing(_describe(token, self.text)), token.start)
        return node

    def expression(self) -> _Raw:
        node = self.conditional()
        if self.match(","):
            raise ExpressionError(expression_not_allowed("the comma operator"), self.lookahead.start)
        return node

    def conditional(self) -> _Raw:
        test = self.binary()
        if not self.match("?"):
            return test
        question = self.next()
        consequent = self.conditional()
        self.close(":", "the conditional '?'", question.start)
        alternate = self.conditional()
        return _Raw("conditional", test.start, alternate.end, test, consequent, alternate)

    def binary(self) -> _Raw:
        """Operator precedence by a stack, as Esprima does: long chains do not recurse."""
        left = self.unary()
        precedence = self.precedence(self.lookahead)
        if not precedence:
            return left
        operator = self.next()
        stack: list = [left, (operator.value, precedence), self.unary()]
        while True:
            precedence = self.precedence(self.lookahead)
            if not precedence:
                break
            while len(stack) > 2 and precedence <= stack[-2][1]:
                right = stack.pop()
                op = stack.pop()[0]
                left = stack.pop()
                stack.append(_Raw("binary", left.start, right.end, op, left, right))
            operator = self.next()
            stack.append((operator.value, precedence))
            stack.append(self.unary())
        node = stack[-1]
        index = len(stack) - 1
        while index > 1:
            left = stack[index - 2]
            node = _Raw("binary", left.start, node.end, stack[index - 1][0], left, node)
            index -= 2
        return node

    @staticmethod
    def precedence(token: _Token) -> int:
        if token.kind != _PUNCTUATOR and token.kind != _KEYWORD:
            return 0
        return _PRECEDENCE.get(token.value, 0)

    def unary(self) -> _Raw:
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise ExpressionError(expression_too_deep(MAX_NESTING), self.lookahead.start)
        try:
            token = self.lookahead
            if token.kind == _PUNCTUATOR and token.value in ("+", "-", "~", "!"):
                self.next()
                argument = self.unary()
                return _Raw("unary", token.start, argument.end, token.value, argument)
            if token.kind == _PUNCTUATOR and token.value in ("++", "--"):
                self.unexpected(token)
            if token.kind == _KEYWORD and token.value in ("delete", "void", "typeof"):
                self.unexpected(token)
            return self.postfix()
        finally:
            self.nesting -= 1

    def postfix(self) -> _Raw:
        node = self.call_or_member()
        if self.match("++") or self.match("--"):
            self.unexpected(self.lookahead)
        return node

    def call_or_member(self) -> _Raw:
        node = self.primary()
        while True:
            if self.match("."):
                self.next()
                name = self.next()
                if name.kind not in (_IDENTIFIER, _KEYWORD, _BOOLEAN, _NULL):
                    self.unexpected(name, "a property name after '.'")
                node = _Raw("member", node.start, name.end, node, _Raw("id", name.start, name.end, name.value), False)
            elif self.match("("):
                opened = self.next()
                arguments = []
                if not self.match(")"):
                    while True:
                        arguments.append(self.conditional())
                        if self.match(")"):
                            break
                        if not self.match(","):
                            what = (f"the call of {node.parts[0]!r}" if node.kind == "id" else "the call")
                            self.close(")", what, opened.start)
                        self.next()
                closing = self.next()
                node = _Raw("call", node.start, closing.end, node, tuple(arguments), opened.start)
            elif self.match("["):
                opened = self.next()
                prop = self.expression()
                closing = self.close("]", "the '['", opened.start)
                node = _Raw("member", node.start, closing.end, node, prop, True)
            else:
                return node

    def primary(self) -> _Raw:
        token = self.lookahead
        if self.match("("):
            self.next()
            node = self.expression()
            self.close(")", "the parenthesis", token.start)
            return node
        if self.match("["):
            return self.array()
        if self.match("{"):
            return self.object()
        kind = token.kind
        if kind == _IDENTIFIER or (kind == _KEYWORD and token.value == "if"):
            self.next()
            return _Raw("id", token.start, token.end, token.value)
        if kind in (_STRING, _NUMBER_TOKEN, _BOOLEAN, _NULL):
            self.next()
            value = token.value if kind != _BOOLEAN else token.value == "true"
            return _Raw("literal", token.start, token.end, None if kind == _NULL else value)
        if self.match("/") or self.match("/="):
            pattern, flags, end = self.scanner.regex(token.start)
            self.lookahead = self.scanner.token(end)
            return _Raw("regex", token.start, end, pattern, flags)
        self.unexpected(token)

    def array(self) -> _Raw:
        opened = self.next()
        elements = []
        while not self.match("]"):
            if self.match(","):
                raise ExpressionError(expression_array_hole(), self.lookahead.start)
            elements.append(self.conditional())
            if not self.match("]"):
                if not self.match(","):
                    self.close("]", "the array", opened.start)
                self.next()
        closing = self.next()
        return _Raw("array", opened.start, closing.end, tuple(elements))

    def object(self) -> _Raw:
        opened = self.next()
        properties = []
        seen = set()
        while not self.match("}"):
            token = self.next()
            if token.kind in (_EOF, _PUNCTUATOR):
                if token.kind == _EOF:
                    self.close("}", "the object", opened.start)
                self.unexpected(token, "a property name")
            if token.kind in (_STRING, _NUMBER_TOKEN):
                key = token.value if token.kind == _STRING else js_string(token.value)
                bare = False
            else:
                key, bare = token.value, True
            if self.lookahead.kind != _PUNCTUATOR or self.lookahead.value != ":":
                self.unexpected(self.lookahead, "':' after the property name")
            self.next()
            value = self.conditional()
            if key in seen:
                raise ExpressionError(expression_duplicate_key(key), token.start)
            seen.add(key)
            properties.append((key, bare, token.start, value))
            if not self.match("}"):
                if not self.match(","):
                    self.close("}", "the object", opened.start)
                self.next()
        closing = self.next()
        return _Raw("object", opened.start, closing.end, tuple(properties))


class _Resolver:
    """The checks of Vega's code generator, in its visiting order, building the typed nodes."""

    def __init__(self, text: str):
        self.text = text

    def node(self, raw: _Raw) -> Expression:
        return getattr(self, "resolve_" + raw.kind)(raw, *raw.parts)

    def resolve_literal(self, raw: _Raw, value) -> Expression:
        return Literal(value, start=raw.start, end=raw.end)

    def resolve_regex(self, raw: _Raw, pattern: str, flags: str) -> Expression:
        try:
            translate_regex(pattern, flags)
        except RegexSyntaxError as error:
            raise ExpressionError(expression_bad_regex(error.reason), raw.start + 1 + error.offset) from None
        return Regex(pattern, flags, start=raw.start, end=raw.end)

    def resolve_id(self, raw: _Raw, name: str) -> Expression:
        if name == "datum":
            return Datum(start=raw.start, end=raw.end)
        if name in CONSTANTS:
            return Constant(name, start=raw.start, end=raw.end)
        if name == "_":
            raise ExpressionError(expression_reserved_name(name), raw.start)
        if name in ("event", "item"):
            raise ExpressionError(expression_event_name(name), raw.start)
        raise ExpressionError(expression_unknown_name(name), raw.start,
                              msg.did_you_mean(name, ["datum", *CONSTANTS]))

    def resolve_member(self, raw: _Raw, obj: _Raw, prop: _Raw, computed: bool) -> Expression:
        target = self.node(obj)
        if not computed:
            name = prop.parts[0]
            if type(target) is Datum:
                return Field(name, start=raw.start, end=raw.end)
            key = Literal(name, start=prop.start, end=prop.end)
            return Member(target, key, False, start=raw.start, end=raw.end)
        key = self.node(prop)
        if type(target) is Datum and type(key) is Literal:
            return Field(to_js_string(key.value), start=raw.start, end=raw.end)
        return Member(target, key, True, start=raw.start, end=raw.end)

    def resolve_call(self, raw: _Raw, callee: _Raw, arguments: tuple, opened: int) -> Expression:
        if callee.kind != "id":
            raise ExpressionError(expression_not_a_function_name(), callee.start)
        name = callee.parts[0]
        signature = VEGA_FUNCTIONS.get(name)
        if signature is None:
            raise ExpressionError(expression_unknown_function(name), callee.start,
                                  msg.did_you_mean(name, VEGA_FUNCTIONS))
        count = len(arguments)
        if count < signature.low or (signature.high is not None and count > signature.high):
            raise ExpressionError(expression_arity(name, signature.low, signature.high, count), callee.start)
        nodes = tuple(self.node(argument) for argument in arguments)
        if name == "length" and arguments[0].kind == "literal":
            # length() is the one function Vega compiles without a cast: `x.length`
            written = self.text[arguments[0].start:arguments[0].end]
            if written.isdigit():
                raise ExpressionError(expression_length_of_integer(written), arguments[0].start)
        if name == "if":
            return Conditional(*nodes, start=raw.start, end=raw.end)
        return Call(name, nodes, start=raw.start, end=raw.end)

    def resolve_unary(self, raw: _Raw, operator: str, argument: _Raw) -> Expression:
        return Unary(operator, self.node(argument), start=raw.start, end=raw.end)

    def resolve_binary(self, raw: _Raw, operator: str, left: _Raw, right: _Raw) -> Expression:
        kind = Logical if operator in ("&&", "||") else Binary
        return kind(operator, self.node(left), self.node(right), start=raw.start, end=raw.end)

    def resolve_conditional(self, raw: _Raw, test: _Raw, consequent: _Raw, alternate: _Raw) -> Expression:
        return Conditional(self.node(test), self.node(consequent), self.node(alternate),
                           start=raw.start, end=raw.end)

    def resolve_array(self, raw: _Raw, elements: tuple) -> Expression:
        return ArrayLiteral(tuple(self.node(e) for e in elements), start=raw.start, end=raw.end)

    def resolve_object(self, raw: _Raw, properties: tuple) -> Expression:
        resolved = []
        for key, bare, at, value in properties:
            # Vega refuses Object.prototype's method names as bare keys; a quoted
            # "__proto__" would set the prototype, so it is refused as well.
            if (bare and key in OBJECT_PROTOTYPE) or key == "__proto__":
                raise ExpressionError(expression_illegal_key(key), at)
            resolved.append((key, self.node(value)))
        return ObjectLiteral(tuple(resolved), start=raw.start, end=raw.end)


def parse(text: str) -> Expression:
    """Parse a Vega expression as Vega does, and resolve its names for a data transform.

    Args:
        text: the expression, e.g. ``"datum.price * 1.2"``.

    Returns:
        The typed tree; every node has `start`/`end` offsets into `text`.

    Raises:
        ExpressionError: a syntax error, an unknown function or name, a wrong
            number of arguments, an invalid regular expression; `offset` is
            where in `text`.
    """
    return _Resolver(text).node(_Parser(text).parse())
