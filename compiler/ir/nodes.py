"""The chart model's nodes: a schema-valid spec as frozen dataclasses that know where they were written.

`Chart` is the root: its `DataSource`, its `Layer`s (a single-mark chart is
one layer at the top level), the chart-level transforms (`ir.transforms`),
`Legend`, `Facet`, `resolve` and the open mappings (`config`, `vega_lite`) as
`FreeForm` nodes. A layer has its `Mark`, its `Encoding` (the chart's
encoding overridden channel by channel; each `Channel` keeps the path where
it was declared and whether it was written as shorthand, `x: bpb`), its
`Markers`, `Trend` and `Param`s (selections), and an escape hatch of its own.

Every node is a `source.Node`: it carries its spec path and the file's
position index, so a stage reports a problem with ``node.error(...)``.
Python field names match the schema keys (``as`` is ``as_``, and a data
file's ``path`` is ``DataSource.file``: ``path`` is every node's spec path).
Nothing here is mutated: mappings are read-only, lists are tuples; a stage
that changes a node makes a new one (`dataclasses.replace`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..errors import SpecPath
from .source import Node
from .transforms import Transform


def freeze(value: Any) -> Any:
    """A JSON-like value made read-only: mappings as `MappingProxyType`, lists as tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({key: freeze(item) for key, item in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(item) for item in value)
    return value


def thaw(value: Any) -> Any:
    """A frozen value as plain JSON-like data again (a fresh copy: dicts and lists)."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return [thaw(item) for item in value]
    return value


@dataclass(frozen=True, slots=True)
class FreeForm(Node):
    """An open mapping the schema does not type (`config`, `vega_lite`, mark properties, a trend's style).

    Reads like a read-only mapping; `plain()` gives a fresh dict for output.
    A problem inside it is placed with `within` (the longest part of a
    path the file writes under the node).
    """

    value: Mapping = field(default_factory=lambda: MappingProxyType({}))

    def __getitem__(self, key):
        return self.value[key]

    def __iter__(self):
        return iter(self.value)

    def __len__(self) -> int:
        return len(self.value)

    def __contains__(self, key) -> bool:
        return key in self.value

    def get(self, key, default=None):
        return self.value.get(key, default)

    def keys(self):
        return self.value.keys()

    def items(self):
        return self.value.items()

    def values(self):
        return self.value.values()

    def plain(self) -> dict:
        """The mapping as a fresh plain dict (lists for tuples)."""
        return thaw(self.value)

    def entries(self) -> Iterator[tuple[SpecPath, Any]]:
        """(relative path, value) of every node below this one, parents first, in written order."""
        stack = [((), self.value)]
        while stack:
            where, value = stack.pop()
            if where:
                yield where, value
            if isinstance(value, Mapping):
                stack.extend(reversed([(where + (key,), item) for key, item in value.items()]))
            elif isinstance(value, tuple):
                stack.extend(reversed([(where + (index,), item) for index, item in enumerate(value)]))


Mapping.register(FreeForm)


@dataclass(frozen=True, slots=True)
class Channel(Node):
    """One encoding channel (or one item of a tooltip/detail list).

    Attributes:
        name: the channel, ``x``, ``color``, ``tooltip``...
        properties: its mapping, shorthand expanded (``x: bpb`` is
            ``{field: bpb}``), placed at the channel's own path.
        shorthand: written as the field name itself; a problem with the
            field then points at the channel, not at a ``field`` key.
    """

    name: str
    properties: FreeForm
    shorthand: bool = False

    @property
    def field(self) -> str | None:
        return self.properties.get("field")

    @property
    def type(self) -> str | None:
        return self.properties.get("type")

    @property
    def aggregate(self) -> str | None:
        return self.properties.get("aggregate")

    def get(self, key, default=None):
        return self.properties.get(key, default)

    def __contains__(self, key) -> bool:
        return key in self.properties

    def definition(self) -> dict:
        """The channel mapping as a plain dict (for the translator)."""
        return self.properties.plain()

    def field_at(self) -> SpecPath:
        """Where the field name is written, below the channel: ``field``, or the channel itself for shorthand."""
        return () if self.shorthand else ("field",)


def channel_definition(value: Channel | tuple[Channel, ...]) -> dict | list[dict]:
    """An encoding entry as plain data: a channel's mapping, or the list of a tooltip's or detail's."""
    return [item.definition() for item in value] if isinstance(value, tuple) else value.definition()


@dataclass(frozen=True, slots=True)
class Encoding:
    """A layer's channels: name -> `Channel`, or a tuple of them for `tooltip` and `detail` lists.

    The chart's shared encoding and the layer's own, merged (the layer's
    declaration wins); each channel keeps the path where it was declared.
    """

    channels: tuple[tuple[str, Channel | tuple[Channel, ...]], ...] = ()

    def __getitem__(self, name: str):
        for key, value in self.channels:
            if key == name:
                return value
        raise KeyError(name)

    def get(self, name: str, default=None):
        try:
            return self[name]
        except KeyError:
            return default

    def __contains__(self, name) -> bool:
        return any(key == name for key, _ in self.channels)

    def __iter__(self):
        return (key for key, _ in self.channels)

    def __len__(self) -> int:
        return len(self.channels)

    def keys(self):
        return [key for key, _ in self.channels]

    def items(self):
        return list(self.channels)

    def values(self):
        return [value for _, value in self.channels]

    def each(self) -> Iterator[Channel]:
        """Every channel, list items one by one, in declaration order."""
        for _, value in self.channels:
            yield from (value if isinstance(value, tuple) else (value,))


Mapping.register(Encoding)


@dataclass(frozen=True, slots=True)
class Mark(Node):
    """A layer's mark: its type and the other properties as written (``mark: point`` is shorthand)."""

    type: str
    properties: FreeForm
    shorthand: bool = False

    def definition(self) -> dict:
        """``{type, **properties}`` as a plain dict."""
        return {"type": self.type, **self.properties.plain()}


@dataclass(frozen=True, slots=True)
class MarkerStyle(Node):
    """How one category is drawn; None means "not declared"."""

    shape: str | None = None
    color: str | None = None
    size: float | None = None
    filled: bool | None = None
    opacity: float | None = None
    stroke: str | None = None
    strokeWidth: float | None = None
    dash: tuple | None = None
    width: float | None = None
    label: str | None = None


@dataclass(frozen=True, slots=True)
class Markers(Node):
    """Per-category styles of a layer, in the declared (legend) order."""

    field: str
    styles: tuple[tuple[str, MarkerStyle], ...]
    default: MarkerStyle | None = None
    title: str | None = None
    has_title: bool = False  # `title: null` hides the title; absent uses the field name


@dataclass(frozen=True, slots=True)
class Trend(Node):
    """A fitted trend line (see schemas/ for each key).

    ``parameters`` holds the method's own keys as written (``order``,
    ``bandwidth``, ``window``: whatever registered methods declare, see
    `chartc.trends.registry`); the fit fills in the method's defaults.
    """

    method: str = "linear"
    by: str | None = None
    band: float | None = None
    prediction: float | None = None
    label: str | None = None
    annotate: Any = None               # a corner, or a read-only {position, text}
    extent: Any = "data"               # "data", "axis" or a (low, high) tuple
    space: str = "axis"
    style: FreeForm = FreeForm()
    parameters: FreeForm = FreeForm()


@dataclass(frozen=True, slots=True)
class Legend(Node):
    """The chart's one legend: where it goes, its title, its columns."""

    position: str | None = None
    title: str | None = None
    has_title: bool = False  # `title: null` hides it
    columns: int | None = None

    def __bool__(self) -> bool:
        return self.position is not None or self.has_title or self.columns is not None


@dataclass(frozen=True, slots=True)
class Param(Node):
    """A selection the reader makes in an interactive export: its name, what is selected and how.

    Attributes:
        name: what conditions (`condition: {param: NAME}`) call it.
        select: ``point`` or ``interval``.
        options: the rest of the ``select`` object as written (``on``, ``fields``, ``encodings`` ...).
        bind: ``legend`` or ``scales`` (None: bound to nothing but the marks).
        value: the initial selection, as written (None: empty).
    """

    name: str
    select: str
    options: FreeForm = FreeForm()
    bind: str | None = None
    value: Any = None

    def definition(self) -> dict:
        """The Vega-Lite parameter: ``{name, select: {type, ...}, bind?, value?}``."""
        result = {"name": self.name, "select": {"type": self.select, **self.options.plain()}}
        if self.bind is not None:
            result["bind"] = self.bind
        if self.value is not None:
            result["value"] = thaw(self.value)
        return result


@dataclass(frozen=True, slots=True)
class Facet(Node):
    """Small multiples: a row and/or column channel, and how many columns to wrap at."""

    row: Channel | None = None
    column: Channel | None = None
    columns: int | None = None

    def channels(self) -> tuple[Channel, ...]:
        """The row, then the column channel (those declared)."""
        return tuple(channel for channel in (self.row, self.column) if channel is not None)


@dataclass(frozen=True, slots=True)
class DataSource(Node):
    """Where the rows come from: exactly one of `values`, `file` (the spec's ``path``), `dataset`, `frame` or
    `catalog` (the spec's ``table``).

    A `frame` source names a table a Python caller passes (a DataFrame); the
    data stage binds the table itself to `table` (`stages.data.bind_table`).
    A `catalog` source names a table of the data engine's catalog (``logs.runs``),
    whose rows the engine reads where they live (`stages.data.read_rows`).
    """

    values: tuple | None = None     # read-only rows
    file: str | None = None         # the ``path`` key: a data file beside the spec
    dataset: str | None = None
    format: str | None = None
    sample: int | None = None       # rows to draw (all are fitted); None draws every row
    frame: str | None = None        # the name of a table passed from Python
    catalog: str | None = None      # the ``table`` key: a table of the engine's catalog, ``db.table`` or ``table``
    table: Any = field(default=None, compare=False, repr=False)  # that table, once bound

    def records(self) -> list[dict]:
        """The inline rows as plain dicts (empty without `values`)."""
        return thaw(self.values) if self.values is not None else []

    @property
    def key(self) -> str:
        """The key that names the source in the spec: ``values``, ``path``, ``dataset``, ``frame`` or ``table``."""
        if self.frame is not None:
            return "frame"
        if self.catalog is not None:
            return "table"
        return "values" if self.values is not None else "path" if self.file is not None else "dataset"


@dataclass(frozen=True, slots=True)
class Layer(Node):
    """One layer with its effective encoding (chart encoding + layer overrides)."""

    index: int
    mark: Mark | None                  # None for a trend layer
    encoding: Encoding = Encoding()
    markers: Markers | None = None
    trend: Trend | None = None
    transform: tuple[Transform, ...] = ()
    name: str | None = None
    params: tuple[Param, ...] = ()     # selections on this layer's marks
    vega_lite: FreeForm = FreeForm()   # the escape hatch for this layer's view alone


@dataclass(frozen=True, slots=True)
class Chart(Node):
    """A whole chart, normalised: the root of the model."""

    data: DataSource
    layers: tuple[Layer, ...]
    transform: tuple[Transform, ...] = ()
    title: str | None = None
    subtitle: str | None = None
    description: str | None = None
    width: Any = None
    height: Any = None
    preset: str | None = None          # a venue's figure (`infra.paper.PRESETS`): the spec's, the command's or the project's
    font_directory: str | None = None  # a folder of fonts the renderer loads for this chart (relative to the spec)
    legend: Legend = Legend()
    facet: Facet | None = None
    resolve: FreeForm = FreeForm()     # shared or independent scales, axes, legends per channel
    interactive: bool = False          # pan and zoom the x and y scales
    config: FreeForm = FreeForm()
    theme: str = "default"
    vega_lite: FreeForm = FreeForm()
    layered: bool = False              # written with `layers` (else one `mark` at the top level)

    def transforms(self, layer: Layer) -> tuple[Transform, ...]:
        """The transforms a layer's rows go through: the chart's, then its own."""
        return (*self.transform, *layer.transform)

    def params(self) -> tuple[Param, ...]:
        """Every selection the chart declares, layer by layer."""
        return tuple(param for layer in self.layers for param in layer.params)

    def drawn_fields(self) -> set | None:
        """The fields the marks read (the channels' and the facet's), or None when that is not sure.

        Not sure, so every field may be read: an expression in a channel (a
        condition's test), a mark's ``tooltip`` (it may show every field), or
        Vega-Lite written by hand (`vega_lite`). Trend layers draw their own rows.
        A selection reads the fields it projects on (``select.fields``) and those
        its initial value names.
        """
        if self.vega_lite.plain():
            return None
        found: set = set()

        def walk(value) -> bool:
            if isinstance(value, dict):
                for key, item in value.items():
                    if key == "field" and isinstance(item, str):
                        found.add(item)
                    elif not walk(item):
                        return False
                return True
            if isinstance(value, (list, tuple)):
                return all(walk(item) for item in value)
            return not (isinstance(value, str) and "datum" in value)

        definitions = [channel.definition() for channel in self.facet.channels()] if self.facet is not None else []
        for layer in self.layers:
            if layer.trend is not None:
                continue
            if "tooltip" in layer.mark.definition():
                return None
            definitions.extend(channel_definition(value) for value in layer.encoding.values())
        for param in self.params():
            definition = param.definition()
            found.update(name for name in definition["select"].get("fields", ()) if isinstance(name, str))
            values = definition.get("value")
            for value in values if isinstance(values, list) else [values]:
                if isinstance(value, dict):  # a point's fields, or an interval's channels (harmless if kept)
                    found.update(name for name in value if isinstance(name, str))
        return found if walk(definitions) else None
