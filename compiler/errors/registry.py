"""The diagnostic codes: the `@code` decorator, the `Message` it returns, and the registry of every code.

A message function that a diagnostic reads is declared with its code where
its words are written:

    @code("E451")
    def field_not_found(field: str, available: Iterable[str]) -> str:
        \"\"\"A field that is not in the data.

        The explanation `chartc explain E451` prints ...
        \"\"\"
        return f"field {field!r} is not in the data"

It still returns the text (a `Message`, a `str` that carries ``.code``), so
every caller and every test comparing strings keeps working, and a
`SpecError` made from it takes its code from it. The docstring's first line
is the code's title, the rest its explanation; an ``Example:`` section holds a
spec that produces the code (docs/diagnostics.md and a test read it).
"""

from __future__ import annotations

import functools
import inspect
import re
from dataclasses import dataclass
from typing import Callable

# The code's first letter: an error or a warning; its hundreds: the stage.
CODE_PATTERN = re.compile(r"^[EW][1-8]\d\d$")
STAGES = {
    "1": "load", "2": "validate", "3": "parse", "4": "data and check", "5": "limits", "6": "fit",
    "7": "translate, verify, render and scene", "8": "commands",
}
# Codes once published and since removed: never reused (docs/diagnostics.md keeps them listed).
RETIRED: dict[str, str] = {
    "E410": "A data file over the row limit (removed: the rows read are never limited, only the marks drawn)",
    "E228": "extent: ci on an error bar or band (removed: chartc computes a Student t interval of each group's mean)",
    "E603": "annotate on a faceted trend (removed: each panel prints its own fit's numbers)",
}


class Message(str):
    """A message's text that knows the code of the diagnostic it reads in.

    Attributes:
        code: e.g. ``"E451"``; None for text that is no diagnostic of its own.
    """

    code: str | None

    def __new__(cls, text: str, code: str | None = None) -> "Message":
        message = super().__new__(cls, text)
        message.code = code
        return message

    def __reduce__(self):  # pickled across the renderer's worker processes, code included
        return (Message, (str(self), self.code))


@dataclass(frozen=True)
class Entry:
    """One registered code: what `chartc explain` and docs/diagnostics.md show."""

    code: str
    function: Callable
    module: str          # the stage's messages module: "load", "validate", ...
    hint: str | None = None   # the hint function usually shown with it, when not named <name>_hint

    @property
    def name(self) -> str:
        return self.function.__name__

    @property
    def doc(self) -> str:
        return inspect.cleandoc(self.function.__doc__ or "")

    @property
    def title(self) -> str:
        return self.doc.splitlines()[0].rstrip(".") if self.doc else self.name

    @property
    def explanation(self) -> str:
        """The docstring after its title, without the example."""
        body = self.doc.split("\n", 1)[1] if "\n" in self.doc else ""
        return body.split("Example:", 1)[0].strip()

    @property
    def example(self) -> str | None:
        """The example spec of the docstring (YAML), or None."""
        if "Example:" not in self.doc:
            return None
        return inspect.cleandoc(self.doc.split("Example:", 1)[1]).strip() + "\n"


REGISTRY: dict[str, Entry] = {}


def code(identifier: str, *, hint: str | None = None) -> Callable[[Callable[..., str]], Callable[..., Message]]:
    """Declare the code of a message function (see the module docstring).

    Args:
        identifier: ``E`` or ``W``, then the stage's hundreds (``E2xx``: validate).
        hint: the name of the hint function its diagnostics usually carry, for
            the docs, when it is not ``<name>_hint``.

    Returns:
        A decorator: the function then returns a `Message` carrying the code,
        and has ``.code`` itself.

    Raises:
        ValueError: for a malformed, retired or already registered code.
    """
    if not CODE_PATTERN.match(identifier):
        raise ValueError(f"malformed diagnostic code {identifier!r}")
    if identifier in RETIRED:
        raise ValueError(f"diagnostic code {identifier} is retired and never reused")
    if identifier in REGISTRY:
        raise ValueError(f"diagnostic code {identifier} is already {REGISTRY[identifier].name}")

    def register(function: Callable[..., str]) -> Callable[..., Message]:
        @functools.wraps(function)
        def message(*args, **kwargs) -> Message:
            return Message(function(*args, **kwargs), identifier)

        message.code = identifier
        REGISTRY[identifier] = Entry(identifier, message, function.__module__.rpartition(".")[2], hint)
        return message

    return register


def keep_code(text: str, inner: str) -> Message | str:
    """`text`, carrying the code of `inner` (a message it wraps, such as "in the panel for ...: <inner>")."""
    return Message(text, inner.code) if isinstance(inner, Message) else text
