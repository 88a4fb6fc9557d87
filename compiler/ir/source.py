"""Where each node of the chart model was written: the spec file's position index, and the node base class.

A `Source` is the position index of one spec file (the loader fills it: the
position of every value, of every mapping key, and of the first character
of every string written verbatim on one line). Every IR node carries its
spec `path` and a reference to the shared `Source`, so a diagnostic about a
node is built from the node itself, in any stage, without the document:

    layer.trend.error(msg.trend_needs_xy("x"), stage="fit", key=True)
    predicate.error(msg.field_not_found(name, fields), "field", stage="check")

A node made by a stage rather than read from the file (a default marker
style, say) has no source; its diagnostics carry the path alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import Location, SpecError, SpecPath, SpecWarning

@dataclass(frozen=True, slots=True, eq=False)
class Source:
    """The positions of one spec file, shared by every node parsed from it.

    Attributes:
        file: the spec's path as the user gave it (for messages).
        positions: spec path -> position of the value there (the root is ``()``).
        key_positions: spec path -> position of the key of that mapping entry.
        text_starts: spec path -> position of the first character of a string
            written verbatim on one line (plain, or quoted without escapes),
            so a column inside the string is that position plus an offset.
    """

    file: str
    positions: Mapping[SpecPath, Location] = field(default_factory=dict)
    key_positions: Mapping[SpecPath, Location] = field(default_factory=dict)
    text_starts: Mapping[SpecPath, Location] = field(default_factory=dict)

    def locate(self, path: SpecPath, *, key: bool = False) -> Location | None:
        """The file position of a spec path.

        Args:
            path: a spec path such as ``("layers", 1, "trend", "method")``.
            key: prefer the position of the mapping key over its value.

        Returns:
            The position of `path`, or, when the file does not have it (a
            default, a key the parser filled in), that of its nearest
            ancestor that it has; None only for a source without positions.
        """
        path = tuple(path)
        while True:
            if key and path in self.key_positions:
                return self.key_positions[path]
            if path in self.positions:
                return self.positions[path]
            if not path:
                return None
            path = path[:-1]

    def locate_text(self, path: SpecPath, offset: int) -> Location | None:
        """The position of character `offset` of the string at `path`.

        Exact for a string written verbatim on one line; for any other (a
        block scalar, escapes, a string the parser made) the string's own
        position, or its nearest ancestor's.
        """
        start = self.text_starts.get(tuple(path))
        if start is None:
            return self.locate(path)
        return Location(start.file, start.line, start.column + offset)

    def has(self, path: SpecPath) -> bool:
        """Whether the file writes a value (or a key) at `path`."""
        return tuple(path) in self.positions or tuple(path) in self.key_positions


@dataclass(frozen=True, slots=True)
class Node:
    """What every node of the chart model has: where it was written.

    Attributes:
        path: the node's spec path, e.g. ``("layers", 1, "trend")``; for a
            node merged from elsewhere (a shared channel) where it was declared.
        source: the position index of its file, or None for a node a stage made.
    """

    path: SpecPath = field(default=(), kw_only=True)
    source: Source | None = field(default=None, kw_only=True, compare=False, repr=False)

    def at(self, *child) -> SpecPath:
        """The spec path of a child of this node: ``layer.at("mark")``."""
        return self.path + tuple(child)

    def locate(self, *child, key: bool = False) -> Location | None:
        """The file position of this node (or of a child path under it), its nearest written ancestor's if absent."""
        return self.source.locate(self.at(*child), key=key) if self.source is not None else None

    def within(self, rest: SpecPath) -> SpecPath:
        """The longest prefix of `rest` that the file writes under this node (for placing a problem)."""
        rest = tuple(rest)
        if self.source is None:
            return ()
        for end in range(len(rest), 0, -1):
            if self.source.has(self.at(*rest[:end])):
                return rest[:end]
        return ()

    def error(self, message: str, *child, stage: str, hint: str | None = None, key: bool = False,
              location: Location | None = None) -> SpecError:
        """A `SpecError` about this node (or a child path under it), placed in the file.

        Args:
            message: what is wrong (a message function of `errors`).
            child: keys below the node, e.g. ``("scale", "type")``.
            stage: the stage reporting it.
            hint: what to do about it.
            key: point at the mapping key rather than its value.
            location: an exact position inside the node's text (an
                expression's column), instead of the node's own.
        """
        where = self.at(*child)
        return SpecError(message, where, location=location or self.locate(*child, key=key), stage=stage, hint=hint)

    def warning(self, message: str, *child, stage: str, hint: str | None = None, key: bool = False) -> SpecWarning:
        """A `SpecWarning` about this node (or a child path under it), placed in the file."""
        return SpecWarning(message, self.at(*child), location=self.locate(*child, key=key), stage=stage, hint=hint)
