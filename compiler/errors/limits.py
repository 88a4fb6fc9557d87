"""Messages of the limits stage (stages/limits.py): charts too large for the renderer; and the warm
renderer's safety limits (commands/daemon.py: a folder or socket that is not the user's alone).

Each message is a function; one that a diagnostic reads carries its code
(`@code`), and its docstring is the explanation `chartc explain` prints.
"""

from __future__ import annotations


from .registry import Message, code


@code("E501")
def too_many_marks(count: int, limit: int, layers: int) -> str:
    """Too many marks to render.

    The chart would draw more marks than the renderer can handle (it runs out of memory). A scatter
    of that many rows is a blot anyway. The options: draw the scatter as its density
    (`mark: {type: point, density: true}`: the engine counts every point in cells of 4 × 4 pixels,
    exactly, and the chart holds one rect per cell whatever the rows; `density: {cell: 1}` per pixel,
    `{scale: log}` for sparse tails); draw a sample (`data: {path: ..., sample: N}`: the checks and
    the fits still see every row); bin x and y yourself (`mark: rect`, `bin` on x and on y, `color:
    {aggregate: count}`); or aggregate or filter the rows first.

    A layer whose channels group a column read as text by a `timeUnit` (dates written
    `2024/01/05`, which the renderer parses) is grouped by the renderer, not by chartc's engine
    (which groups every unit of a date or of milliseconds): every row is sent to it, and its
    marks cannot be counted before. Such a layer counts its rows, and the message says so:
    write the dates as ISO 8601 (`2024-01-05`), which chartc reads as dates, filter or sample
    the rows first, or group them with transforms (a `calculate` of the period and an `aggregate` by it run where the rows are).
    """
    where = "" if layers <= 1 else f" over {layers} layers"
    return f"the chart would draw {count:,} marks{where}, over the limit of {limit:,}"


def too_many_rows_grouped_by_renderer(count: int, limit: int, field: str) -> str:
    """E501's words where the largest layer groups by a `timeUnit`, which the renderer computes."""
    return Message(f"the chart would send {count:,} rows to the renderer, which groups them by the timeUnit of "
                   f"{field!r} (over the limit of {limit:,} marks: they cannot be counted before)", too_many_marks.code)


def too_many_marks_hint() -> str:
    return ("draw the points as their density (`mark: {type: point, density: true}`: every point counted per "
            "cell, one mark per cell), or a sample (`data: {..., sample: 20000}`), or aggregate or filter the rows "
            "first: the renderer runs out of memory and aborts near 10⁶ marks")


def too_many_rows_grouped_by_renderer_hint(field: str) -> str:
    return (f"write the dates of {field!r} as ISO 8601 (2024-01-05), which chartc reads as dates and groups, "
            f"or filter or sample the rows first (`data: {{..., sample: 20000}}`), or group them with transforms, "
            f"which run where the rows are: a `calculate` of the period from `datum.{field}` and an `aggregate` "
            f"grouped by it, then draw that field")


def too_many_cells_hint() -> str:
    return ("draw larger cells (`density: {cell: 4}` is 4 × 4 pixels) or fewer (`density: {bins: [200, 100]}`): "
            "a density draws one mark per non-empty cell")


@code("E502")
def too_many_panels(panels: int, limit: int) -> str:
    """Too many facet panels.

    A facet makes one panel per value of its field; past the limit the chart cannot be drawn in a
    reasonable size or time. Facet by a field with fewer values, or filter first.
    """
    return f"the facet makes {panels:,} panels, over the limit of {limit:,}"


def too_many_panels_hint() -> str:
    return "facet by a field with fewer distinct values, or filter the rows first"


# ------------------------------------------------------------------ the warm renderer (commands/daemon.py)
# Its safety limits: the folder and socket it is reached through must be the user's alone.

@code("E520", hint="warm_folder_hint")
def warm_not_owned(path: str, owner: int, uid: int) -> str:
    """A warm renderer's folder or socket that belongs to another user.

    `chartc daemon` and `CHARTC_WARM=1` reach the warm renderer through a socket in
    `$XDG_RUNTIME_DIR/chartc` (else `chartc-UID` in the temporary folder). Another user could
    have made that folder or socket to read your specs' paths and answer with their own output,
    so chartc refuses it and compiles in its own process. Remove it (or ask its owner or an
    administrator to), or set `XDG_RUNTIME_DIR` to a folder that is yours alone.
    """
    return f"belongs to user {owner}, not to you (user {uid}): chartc does not use another user's warm renderer"


@code("E521", hint="warm_folder_hint")
def warm_shared(path: str, mode: int) -> str:
    """A warm renderer's folder or socket that other users may use.

    The warm renderer's folder and socket must have no permission for the group or others
    (mode 0700 for the folder, 0600 for the socket): anyone allowed in could connect to it or
    put their own socket in its place. chartc refuses it and compiles in its own process.
    `chmod 700` the folder (chartc makes it so when it makes it), or remove it.
    """
    return f"has permissions {stat_mode(mode)}, open to the group or others (chartc wants {stat_mode(0o700)} or less)"


@code("E522", hint="warm_folder_hint")
def warm_not_plain(path: str, kind: str, wanted: str) -> str:
    """A warm renderer's folder or socket that is a symbolic link or another kind of file.

    chartc reads the warm renderer's folder and socket without following symbolic links: a link
    could lead to another user's socket. A link, or a file where the folder (or the socket)
    belongs, is refused, and chartc compiles in its own process. Remove it.
    """
    return f"is {kind}, not {wanted}: chartc does not follow it"


@code("E523")
def warm_unsupported(platform: str) -> str:
    """The warm renderer on a system that cannot check who connects.

    The warm renderer answers only its own user, whose id it reads from every connection
    (`SO_PEERCRED`, Linux). Elsewhere `chartc daemon` refuses to start; `chartc validate` and
    `chartc compile` compile in their own process as always.
    """
    return f"the warm renderer needs Linux (it checks every connection's user), not {platform}"


@code("E524")
def warm_not_started(reason: str) -> str:
    """A warm renderer that did not start.

    `chartc daemon start` starts the warm renderer in the background and waits for it to answer.
    It did not: the reason given is its log's last line (`daemon.log` beside its socket).
    `chartc validate` and `chartc compile` still work, in their own process.
    """
    return f"the warm renderer did not start: {reason}"


def warm_folder_hint(path: str) -> str:
    return (f"remove {path}, or set XDG_RUNTIME_DIR to a folder of yours with mode 0700; "
            "until then chartc compiles in its own process")


def stat_mode(mode: int) -> str:
    """A file's permission bits as `ls -l` and chmod write them: 0700."""
    return f"{mode & 0o7777:04o}"


def warm_started(pid: int, socket: str, minutes: float) -> str:
    return (f"warm renderer started (pid {pid}, {socket}); `chartc validate` and `chartc compile` use it "
            f"until it has been idle {minutes:g} minutes")


def warm_running(pid: int, version: str, key: str, socket: str, served: int, idle: float, minutes: float) -> str:
    return (f"warm renderer running (pid {pid}, chartc {version}, source {key}, {socket}): {served} runs, "
            f"idle {idle:.0f} s, exits after {minutes:g} idle minutes")


def warm_incompatible(pid: int, version: str, key: str, ours: str, our_key: str) -> str:
    return (f"a warm renderer of another chartc runs (pid {pid}, chartc {version}, source {key}; this is "
            f"chartc {ours}, source {our_key}: another install, or this one edited since): it is not used; "
            "`chartc daemon start` replaces it")


def warm_not_running() -> str:
    return "no warm renderer runs"


def warm_stopped(pid: int) -> str:
    return f"warm renderer stopped (pid {pid})"
# --- arcs (issue 20): a pie is placed by its angle, not by x and y ---

@code("E555")
def arc_position_channel(channel: str) -> str:
    """An x or y channel on an arc mark.

    An arc (a pie or donut slice) is placed by its angle (`theta`) and its distance from the centre
    (`radius`), around the middle of the plot: there is no x or y axis to put it on. Remove the x or y
    channel, or draw the values as bars.

    Example:
        data:
          values: [{label: a, size: 1}, {label: b, size: 2}]
        mark: arc
        encoding:
          x: label
          theta: {field: size, type: quantitative}
          color: label
    """
    return f"an arc mark has no {channel} channel: a slice is placed by its angle (theta) and radius"


def arc_position_channel_hint() -> str:
    return "encode the value as theta, the slice's angle, and the category as color; or draw bars with x and y"


@code("E556")
def polar_channel_without_value(channel: str) -> str:
    """A theta or radius channel with neither a field nor a value.

    `theta` and `radius` draw a field (`theta: {field: size, type: quantitative}`, or `theta: size`)
    or a constant (`radius: {value: 80}`); one with neither would draw every slice alike, from
    nothing. Name the field whose values the slices show.

    Example:
        data:
          values: [{label: a, size: 1}, {label: b, size: 2}]
        mark: arc
        encoding:
          theta: {type: quantitative, stack: true}
          color: label
    """
    return f"{channel} has neither a field nor a value"


def polar_channel_without_value_hint(channel: str) -> str:
    return f"name the field the slices show, e.g. {channel}: {{field: size, type: quantitative}}"


@code("E557")
def arc_without_theta() -> str:
    """An arc mark without a theta channel.

    Every arc would span the whole circle, each drawn over the one before: a pie needs the angle of
    each slice. Encode the quantity each slice shows as `theta` (stacked, the slices fill the circle).

    Example:
        data:
          values: [{label: a, size: 1}, {label: b, size: 2}]
        mark: arc
        encoding:
          color: label
    """
    return "an arc mark needs a theta channel: without it every slice is the whole circle"


def arc_without_theta_hint() -> str:
    return "add theta: {field: FIELD, type: quantitative}, the quantity each slice shows"


@code("E558")
def polar_channel_not_for(channel: str, mark: str) -> str:
    """A theta or radius channel on a mark it does not place.

    `theta` and `radius` place arcs, and text around a pie (its labels); any other mark is placed by x
    and y, and the renderer would ignore the channel silently. Put the channel on an arc or text
    layer, or use x and y.

    Example:
        data:
          values: [{label: a, size: 1}, {label: b, size: 2}]
        mark: bar
        encoding:
          x: label
          y: size
          theta: size
    """
    return f"a {mark} mark is not placed by {channel}: only arc and text marks are"


def polar_channel_not_for_hint() -> str:
    return "draw the layer as mark: arc (or text, for labels around a pie), or remove the channel"
