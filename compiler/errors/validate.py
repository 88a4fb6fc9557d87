"""Messages of the validate stage (stages/validate.py): the spec against the JSON Schema, colours and fonts.

Each message is a function; one that a diagnostic reads carries its code
(`@code`), and its docstring is the explanation `chartc explain` prints.
"""

from __future__ import annotations

import json
from typing import Sequence

from .registry import code
from .text import did_you_mean, or_list, quoted_list


@code("E201")
def unknown_key(key: str) -> str:
    """An unknown key.

    The spec has a key the schema does not know at that place. Usually a typo (the hint suggests the
    closest key) or a key written one level too high or too low, such as `type` directly under a channel
    instead of inside `scale`. The allowed keys are listed in docs/reference.md.

    Example:
        data: {dataset: cars}
        mark: point
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
          colour: Origin
    """
    return f"unknown key {key!r}"


@code("E202")
def not_one_of(value: object, allowed: Sequence[object]) -> str:
    """A value that is not one of the allowed choices.

    The value is not one of the values this key accepts, which the message lists. Usually a typo in a
    mark type, scale type, trend method or position; the hint suggests the closest allowed value.

    Example:
        data: {dataset: cars}
        mark: pointt
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
    """
    return f"{value!r} is not one of {quoted_list(allowed, limit=20)}"


@code("E203")
def missing_key(key: str) -> str:
    """A required key is missing.

    A mapping lacks a key it requires, such as `as` in a calculate transform or `method` in a trend. Add
    the key the message names.

    Example:
        data: {dataset: cars}
        transform:
          - calculate: datum.Horsepower / 10
        mark: point
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
    """
    return f"missing required key {key!r}"


def allowed_keys(keys: Sequence[str]) -> str:
    return f"allowed keys: {quoted_list(keys, limit=20)}"


def _describe_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the string {value!r}"
    return repr(value)


@code("E204")
def wrong_type(value: object, wanted: Sequence[str]) -> str:
    """A value of the wrong type.

    A value has the wrong type: text where a number or true/false is expected, a single value where a
    list is expected, and so on. In YAML, quoting a number makes it text, and words like `maybe` are
    text, not booleans.

    Example:
        data: {dataset: cars}
        mark: point
        encoding:
          x: {field: Horsepower, scale: {zero: maybe}}
          y: Miles_per_Gallon
    """
    wanted = list(dict.fromkeys(wanted))
    if len(wanted) > 1 and "true or false" in wanted:  # "true, false or a mapping"
        at = wanted.index("true or false")
        wanted[at:at + 1] = ["true", "false"]
    expected = " or ".join(wanted) if len(wanted) < 3 else ", ".join(wanted[:-1]) + " or " + wanted[-1]
    return f"expected {expected}, got {_describe_value(value)}"


@code("E205")
def out_of_bounds(value: object, relation: str, bound: object) -> str:
    """A number out of its allowed range.

    A number is outside the range the key allows (an opacity above 1, a negative size, more legend
    columns than can be drawn). The message gives the bound.

    Example:
        data: {dataset: cars}
        mark: {type: point, opacity: 1.5}
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
    """
    return f"{value!r} is out of range: it must be {relation} {bound!r}"


@code("E206")
def wrong_size(rule: str, bound: int) -> str:
    """A list or mapping with too few or too many entries.

    A list or mapping has too few or too many entries, or a text is empty: a scale domain needs two
    bounds, a chart takes a limited number of layers.

    Example:
        data: {dataset: cars}
        layers: []
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
    """
    return {
        "minItems": f"needs at least {bound} item{'s' if bound != 1 else ''}",
        "maxItems": f"takes at most {bound} item{'s' if bound != 1 else ''}",
        "minProperties": f"needs at least {bound} entr{'ies' if bound != 1 else 'y'}",
        "maxProperties": f"takes at most {bound} entr{'ies' if bound != 1 else 'y'}",
        "minLength": "must not be empty",
    }[rule]


@code("E207")
def text_too_long(length: int, limit: int) -> str:
    """Text over its length limit.

    A title, label or other text is longer than its limit. The limits keep rendering fast and are listed
    in docs/reference.md; shorten the text.
    """
    return f"text of {length:,} characters is over the limit of {limit:,}"


def text_too_long_hint() -> str:
    return "shorten it; the limits keep rendering fast and are listed in docs/reference.md"


@code("E208")
def bad_pattern(value: object) -> str:
    """A value of the wrong form.

    The value does not have the form this key needs (a time unit, a format string, a field name).
    docs/reference.md describes each key's form.
    """
    return f"{value!r} is not a valid value here"


@code("E209", hint="data_hint")
def data_one_source() -> str:
    """Data without a source.

    `data` needs exactly one source: inline `values`, a `path` to a file inside the project, a vega-
    datasets `dataset`, or the `frame` (a DataFrame) a Python caller passes.

    Example:
        data: {format: csv}
        mark: point
        encoding:
          x: a
          y: b
    """
    return "data needs exactly one of 'values', 'path', 'dataset' or 'frame'"


def data_hint() -> str:
    return "e.g. data: {path: results.csv} or data: {dataset: cars}"


@code("E210")
def mark_and_layers() -> str:
    """Both 'mark' and 'layers' on one chart.

    A chart is either a single mark (`mark` with `encoding`) or a list of `layers`, each with its own
    mark. Move the top-level mark into a layer.

    Example:
        data: {dataset: cars}
        mark: point
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
        layers:
          - mark: line
    """
    return "a chart has either 'mark' or 'layers', not both"


def mark_and_layers_hint() -> str:
    return "move the mark into a layer: layers: [{mark: point}, ...]"


@code("E211")
def no_mark() -> str:
    """A chart with neither 'mark' nor 'layers'.

    The chart draws nothing: it has neither a `mark` nor `layers`.

    Example:
        data: {dataset: cars}
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
    """
    return "missing 'mark' or 'layers'"


def no_mark_hint() -> str:
    return "add e.g. mark: point"


@code("E212")
def markers_with_layers() -> str:
    """Top-level 'markers' on a layered chart.

    Top-level `markers` styles the mark of a single-mark chart. In a layered chart it is ambiguous which
    layer it styles: move it into that layer.
    """
    return "top-level 'markers' is for single-mark charts; put it in the layer it styles"


@code("E213")
def mark_and_trend() -> str:
    """A layer with both 'mark' and 'trend'.

    A layer draws either a mark or a trend line, not both. Split it into two layers: one with the mark,
    one with the trend.

    Example:
        data: {dataset: cars}
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
        layers:
          - mark: point
            trend: {method: linear}
    """
    return "a layer has either 'mark' or 'trend', not both"


@code("E214")
def layer_needs_mark() -> str:
    """A layer with neither 'mark' nor 'trend'.

    Every layer draws something: a `mark` (point, line, bar, ...) or a `trend` fitted to the data. This
    layer has neither.

    Example:
        data: {dataset: cars}
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
        layers:
          - mark: point
          - encoding:
              color: Origin
    """
    return "a layer needs 'mark' or 'trend'"


def layer_needs_mark_hint() -> str:
    return "add e.g. mark: point, or trend: {method: linear}"


@code("E215")
def markers_on_trend() -> str:
    """'markers' on a trend layer.

    `markers` styles the points of a mark layer; a trend layer draws a line, styled with `trend.style`.
    """
    return "'markers' styles a mark layer, not a trend layer"


def _clipped(text: object, limit: int = 60) -> str:
    text = str(text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


@code("E222", hint="color_hint")
def not_a_color(value: object) -> str:
    """A value that is not a colour.

    The value is not a colour chartc knows. A colour is a CSS name, a hex code, rgb()/hsl(), a
    matplotlib name such as 'tab:blue' or 'C0', or a grey level; the hint suggests the closest name for
    a misspelling.

    Example:
        data: {dataset: cars}
        mark: {type: point, color: steelblu}
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
    """
    if isinstance(value, str):
        return f"{_clipped(value)!r} is not a colour"
    return f"expected a colour, got {_describe_value(value)}"


COLOR_FORM_RULES = {
    "rgb": "rgb() and rgba() take red, green and blue (all 0-255 or all 0%-100%) and an optional alpha "
           "(0-1 or 0%-100%)",
    "hsl": "hsl() and hsla() take a hue in degrees, a saturation and a lightness (0%-100%) and an optional "
           "alpha (0-1 or 0%-100%)",
    "grey": "a grey level is a number from 0 (black) to 1 (white)",
}
COLOR_FORM_EXAMPLES = {
    "rgb": "e.g. rgb(214, 39, 40) or rgba(214, 39, 40, 0.5)",
    "hsl": "e.g. hsl(359, 69%, 50%) or hsla(359, 69%, 50%, 0.5)",
    "grey": "e.g. '.3' for dark grey, '0.75' for light grey",
}


@code("E223", hint="color_form_hint")
def color_arguments(value: str, form: str) -> str:
    """A colour function with wrong arguments.

    rgb(), rgba(), hsl() and hsla() take a fixed number of arguments in fixed ranges; the message gives
    the rule and the hint an example.
    """
    return f"{_clipped(value)!r} is not a colour: {COLOR_FORM_RULES[form]}"


def color_form_hint(form: str) -> str:
    return COLOR_FORM_EXAMPLES[form]


def color_hint(suggestion: str | None) -> str:
    forms = ("a colour is a CSS name ('steelblue', 'transparent'), hex ('#1f77b4', '#rgb', '#rrggbbaa'), "
             "rgb()/rgba()/hsl()/hsla(), or matplotlib's 'tab:blue'...'tab:cyan', 'C0'...'C9', a grey level "
             "from '0' (black) to '1' (white) such as '.3', or one of 'b g r c m y k w'")
    return f"{suggestion} {forms}" if suggestion else forms


@code("E224")
def unsafe_text(value: str, marker: str) -> str:
    """Text that would make a viewer load or run something.

    A colour, font or style value holds something a viewer of the chart would load or run (`url(`,
    `javascript:`, markup). Charts are drawn offline and load nothing: write the colour or text itself.

    Example:
        data: {dataset: cars}
        mark: point
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
        config:
          view: {fill: "url(http://example.com/track#p)"}
    """
    return f"{_clipped(value)!r} contains {marker!r}, which would make a viewer of the chart load or run something"


def unsafe_text_hint() -> str:
    return "charts load nothing and run nothing: write a colour, a font name or plain text"


@code("E225")
def unsafe_font(value: str, characters: Sequence[str]) -> str:
    """A font name with characters fonts cannot have.

    A font name holds characters no font name has (quotes, parentheses, `=`, `<`): written into SVG or
    HTML they could end the attribute they sit in. Write font families as names separated by commas.

    Example:
        data: {dataset: cars}
        mark: point
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
        config:
          axis: {labelFont: 'Helvetica" onload="alert(1)'}
    """
    return f"font {_clipped(value)!r} has characters a font name cannot have: {quoted_list(characters)}"


def unsafe_font_hint() -> str:
    return ("write font families as names separated by commas, e.g. 'Helvetica Neue, Arial, sans-serif': "
            "letters, digits, spaces and - _ . , ' only")


@code("E226")
def computed_style(key: str) -> str:
    """A colour or font computed by an expression.

    Colours and fonts are checked before the chart is drawn; a value computed by an expression (a Vega-
    Lite `expr`) cannot be, so it is refused in a `vega_lite:` override. Write the colour or font
    itself.
    """
    return f"{key!r} must be written out here, not computed by an expression"


def computed_style_hint() -> str:
    return "colours and fonts are checked before the chart is drawn; write the colour or font itself"


@code("E227")
def unscaled_colors(channel: str) -> str:
    """Data values drawn as colours without a scale.

    A colour channel with `scale: null` would draw the data's values themselves as colours, unchecked
    (so a data file could make a viewer load something). Map values to colours with a scale range or
    with markers.
    """
    return f"the {channel!r} channel would draw the data's own values as colours, unchecked"


def unscaled_colors_hint() -> str:
    return "map the values to colours with a scale, e.g. scale: {range: ['#1f77b4', '#ff7f0e']}, or with markers"


@code("E216")
def data_two_sources(keys: Sequence[str]) -> str:
    """Data with more than one source.

    `data` names more than one source (say both `path` and `dataset`); chartc would not know which to
    draw. Keep one.

    Example:
        data: {dataset: cars, path: cars.csv}
        mark: point
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
    """
    names = [repr(k) for k in keys]
    listed = ", ".join(names[:-1]) + " and " + names[-1]
    return f"data has {'both' if len(keys) == 2 else 'all of'} {listed}, but takes exactly one source"


def data_two_sources_hint() -> str:
    return "keep one of 'values', 'path' or 'dataset' and remove the others"


@code("E217")
def needs_one_of_keys(keys: Sequence[str]) -> str:
    """A mapping without any of the keys it needs.

    A mapping needs one of several keys to say what it is (a transform needs `filter`, `calculate`,
    `fold` or `aggregate`, say) and has none of them; usually the one it has is misspelled.

    Example:
        data: {dataset: cars}
        transform:
          - stack: Horsepower
        mark: point
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
    """
    return f"expected a mapping with one of the keys {or_list(keys)}"


@code("E218")
def mark_property_not_for(prop: str, kind: str) -> str:
    """A mark property the mark type does not take.

    The mark has a property that its type does not use (say `extent` on a bar mark); Vega-Lite
    would ignore it silently. Remove it or change the mark type; the hint lists the keys it takes.

    Example:
        data: {dataset: cars}
        mark: {type: bar, extent: stderr}
        encoding:
          x: Origin
          y: {field: Horsepower, aggregate: mean}
    """
    return f"{prop!r} does not apply to {kind!r} marks"


def mark_property_hint(kinds: Sequence[str]) -> str:
    return f"it applies to {or_list(kinds)} marks"


@code("W201")
def schema_copy_stale(reference: str) -> str:
    """The spec's $schema copy is out of date.

    The spec's `$schema` points at a copy of the chart schema that differs from the one this chartc
    validates with (usually after upgrading chartc), so an editor would check the spec against outdated
    rules. Run `chartc init` to update the copy. The chart still compiles.
    """
    return f"{reference} is another chartc version's chart schema: editors check this spec against other rules"


def schema_copy_stale_hint() -> str:
    return "update the copy with: chartc init"


def facet_channel_hint(channel: str) -> str:
    return f"small multiples are declared under facet, e.g. facet: {{{channel}: Origin}}"


@code("E219")
def facet_property_not_allowed(prop: str, channel: str) -> str:
    """A property a facet channel does not take.

    The facet channel has a property that only applies to a positional or mark channel (a scale, an
    axis). Remove it.
    """
    return f"{prop!r} does not apply to a facet {channel}"


@code("E220")
def channel_takes_no(prop: str, channel: str) -> str:
    """A property the channel does not take.

    The channel does not take this property: Vega-Lite would ignore it silently. Remove it, or move it
    to a channel that takes it.
    """
    return f"the {channel!r} channel takes no {prop!r}"


def channel_takes_no_hint() -> str:
    return "give it a field, e.g. {field: Origin}"


@code("E221", hint="constant_channel_hint")
def constant_channel_with(prop: str, constant: str) -> str:
    """A constant channel with field properties.

    A channel with a constant `value` or `datum` draws the same for every row, so properties that
    describe a field (`type`, `scale`, `aggregate`, `bin`) do not apply to it.
    """
    return f"{prop!r} does not apply to a channel with a constant {constant!r}"


def constant_channel_hint(constant: str) -> str:
    return f"keep either {constant!r} alone, or a 'field' with its settings"


@code("E240")
def extent_ci_unsupported() -> str:
    """An error bar's or band's `ci` extent over an encoding chartc cannot compute it for.

    chartc computes `extent: ci` itself, once, as each group's mean ± t(0.975, n − 1) · s/√n (a
    Student t 95% interval), and draws the two ends; Vega-Lite's own `ci` is a random bootstrap that
    would change on every render. The interval needs one quantitative position channel (the measure,
    with no `aggregate`, `bin` or `timeUnit` and no `x2`/`y2`) over groups (the other channels' fields)
    in rows chartc knows before rendering; dates are no groups (Vega-Lite groups the dates it parses,
    not the cells' text). The data stage computes it; the translate stage reports it where it could not.

    Example:
        data: {dataset: cars}
        mark: {type: errorbar, extent: ci}
        encoding:
          x: {field: Year, type: temporal}
          y: Miles_per_Gallon
    """
    return "'ci' needs one quantitative position over groups whose rows are known before rendering"


def extent_ci_unsupported_hint() -> str:
    return ("put the groups on the other axis (x: Origin, y: Miles_per_Gallon) or on color, or use extent: stderr, "
            "stdev or iqr")


@code("E229")
def trend_extent_ci() -> str:
    """A confidence interval written as a trend's extent.

    A trend's `extent` is the x range its line covers (`data`, `axis` or `[min, max]`), not a confidence
    interval: a confidence band of the fitted mean is `band: 0.95`, a prediction band `prediction: 0.95`.

    Example:
        data: {dataset: cars}
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
        layers:
          - mark: point
          - trend: {method: linear, extent: ci}
    """
    return "a trend's extent is the x range its line covers ('data', 'axis' or [min, max]), not a confidence interval"


def trend_extent_ci_hint() -> str:
    return "for a confidence band write band: 0.95, for a prediction band prediction: 0.95"


@code("E283")
def unknown_engine(name: str, known: Sequence[str]) -> str:
    """A data engine chartc does not have.

    `engine` in the project's `chartc.toml` (or `--engine`) picks where a chart's data is queried:
    `duckdb` (the default, embedded) or `spark` (Apache Spark: a local one, a cluster's master URL or a
    Spark Connect server, set in the project file's `[spark]` table). `engine = "sprak"` reports it.
    """
    return f"unknown engine {name!r}; chartc has {or_list(known)}"


@code("E230")
def unknown_preset(name: str, known: Sequence[str]) -> str:
    """A paper preset chartc does not have.

    `preset:` in a spec is checked by the schema; a preset named by the project's `chartc.toml` (or
    `--preset`) is checked against the same list: a venue's column or full width (`neurips-column`,
    `icml-full`, `acl-column`, `ieee-column`, ...), `slide-16x9` or `poster`. docs/paper.md lists
    their sizes and fonts. A `chartc.toml` with `preset = "neurips-col"` reports it, on that line.
    """
    return f"unknown preset {name!r}; chartc has {or_list(known)}"


@code("E231")
def project_file_invalid(reason: str) -> str:
    """A project file (`chartc.toml`) chartc cannot use.

    The project's defaults file must be TOML with only the keys chartc knows: `preset`, a preset's name
    (a string); `engine`, the data engine (`duckdb` or `spark`); and a `[spark]` table with `master`
    (a master URL, default `local[2]`), `remote` (a Spark Connect URL) and `conf` (more Spark settings). It applies to every spec below the folder it is in (up to the git work tree's root) that
    does not name a preset itself. `preset = ["neurips-column"]` (a list) or a misspelt key reports it.
    """
    return f"the project file cannot be used: {reason}"


def project_file_hint() -> str:
    return 'write the project\'s defaults as TOML, e.g. preset = "neurips-column"'


@code("E232")
def font_directory_missing(folder: str) -> str:
    """A font folder that is not there.

    `font_directory` names a folder of font files (.ttf, .otf) for the renderer to load, relative to the
    spec file and inside the project (the git work tree, else the spec's folder), so a paper's own font
    can be drawn: name its family in `config.font`. The folder must exist and stay inside the project.

    Example:
        data: {values: [{x: 1, y: 2}]}
        mark: point
        encoding: {x: x, y: y}
        font_directory: fonts/times
        config: {font: Times New Roman}
    """
    return f"font directory {folder!r} is not a folder inside the project"


def font_directory_hint() -> str:
    return "put the paper's .ttf or .otf files in a folder beside the spec and name it relative to the spec file"


@code("E250")
def param_undefined(name: str) -> str:
    """A condition on a selection no layer declares.

    A channel's `condition: {param: NAME}` names the selection whose marks take the condition's value;
    NAME must be declared in the chart's `params` or a layer's.

    Example:
        data: {dataset: cars}
        mark: point
        params:
          - {name: hover, select: {type: point, on: pointerover}}
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
          opacity: {condition: {param: hovr, value: 1}, value: 0.3}
    """
    return f"no selection is named {name!r}"


def param_undefined_hint(suggestion: str | None, declared) -> str:
    names = quoted_list(declared) if declared else None
    if suggestion:
        return suggestion
    return f"declared: {names}" if names else "declare it in params: [{name: ..., select: point}]"


@code("E251")
def param_duplicate(name: str) -> str:
    """Two selections with one name.

    Every selection of a chart has a name of its own: a condition names the one it means.

    Example:
        data: {dataset: cars}
        layers:
          - mark: point
            params: [{name: pick, select: point}]
          - mark: line
            params: [{name: pick, select: interval}]
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
    """
    return f"a selection named {name!r} is declared already"


@code("E252")
def param_on_trend() -> str:
    """A selection on a trend layer.

    A trend layer draws a fitted line, not the data's rows: the reader selects marks of a mark layer.
    Declare the selection on a mark layer; conditions in any layer may name it.
    """
    return "a trend layer takes no params: declare the selection on a mark layer"


@code("E253")
def param_bind(bind: str, why: str) -> str:
    """A selection bound to something it cannot drive.

    `bind: legend` needs a point selection of one field (`select: {type: point, fields: [FIELD]}`),
    the field a legend shows; `bind: scales` needs an interval selection (it pans and zooms the axes).

    Example:
        data: {dataset: cars}
        mark: point
        params:
          - {name: pick, select: point, bind: legend}
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
          color: Origin
    """
    return f"bind: {bind} needs {why}"




@code("E265")
def impute_value_unused(method: str) -> str:
    """An impute's `value` with a method that computes the value.

    `value` is what `method: value` fills in; with `mean`, `median`, `max` or `min` the filled value is
    computed from the group's rows and Vega-Lite drops `value` without a word.

    Example:
        data: {values: [{x: 1, y: 2, g: a}, {x: 2, y: 3, g: b}]}
        transform:
          - {impute: y, key: x, groupby: [g], method: mean, value: 0}
        mark: line
        encoding: {x: x, y: y, color: g}
    """
    return f"impute: value is read only by method: value, and this impute's method is {method!r}"


def impute_value_unused_hint() -> str:
    return "drop value, or set method: value to fill that value"


@code("E266")
def impute_frame_unused() -> str:
    """An impute's `frame` with `method: value`.

    `frame` says which rows `mean`, `median`, `max` or `min` read; `method: value` (the default) fills
    one constant and reads no row, so Vega-Lite drops the frame without a word.

    Example:
        data: {values: [{x: 1, y: 2, g: a}, {x: 2, y: 3, g: b}]}
        transform:
          - {impute: y, key: x, groupby: [g], frame: [-1, 1]}
        mark: line
        encoding: {x: x, y: y, color: g}
    """
    return "impute: frame is read only by a method computed from rows (mean, median, max, min)"


def impute_frame_unused_hint() -> str:
    return "drop frame, or set a method such as method: mean"


@code("E267")
def impute_sequence_too_long(limit: int) -> str:
    """An impute's key sequence with too many values.

    `keyvals: {start, stop, step}` names every key each group must have, and each group gets a row per
    key it lacks: a sequence of more than 100,000 keys is a unit slip (a stop in milliseconds, a step
    of 1 over a large range), not a chart.

    Example:
        data: {values: [{x: 1, y: 2, g: a}, {x: 2, y: 3, g: b}]}
        transform:
          - {impute: y, key: x, groupby: [g], keyvals: {start: 0, stop: 1e9}}
        mark: line
        encoding: {x: x, y: y, color: g}
    """
    return f"impute: keyvals names more than {limit:,} keys"


def impute_sequence_too_long_hint() -> str:
    return "give a larger step, or list the keys: keyvals: [2020, 2021, 2022]"


@code("E260")
def window_op_needs_field(op: str) -> str:
    """A window op that reads a field, written without one.

    The aggregate ops (`sum`, `mean`, ...; all but `count`) and the value ops (`lag`, `lead`,
    `first_value`, `last_value`, `nth_value`) read a field of the rows in the frame: Vega refuses
    them without one. The ranking ops (`row_number`, `rank`, ...) and `count` need none.

    Example:
        data: {dataset: cars}
        transform:
          - window: [{op: sum, as: total}]
        mark: point
        encoding: {x: Horsepower, y: total}
    """
    return f"the window op {op!r} needs a field"


@code("E261")
def window_op_param(op: str) -> str:
    """A window op's `param` that is missing, or not a whole number above zero.

    `ntile` needs `param` (the number of buckets), `nth_value` too (the position in the frame, 1 the
    first row); the offset of `lag` and `lead` (default 1) is a whole number of rows. Vega throws on a
    missing or non-positive one, and reads a fraction as no row at all.

    Example:
        data: {dataset: cars}
        transform:
          - window: [{op: ntile, as: quartile}]
            sort: [{field: Horsepower}]
        mark: point
        encoding: {x: Horsepower, y: quartile}
    """
    needs = "needs a param" if op in ("ntile", "nth_value") else "takes a param"
    return f"the window op {op!r} {needs}: a whole number above zero"


@code("E262")
def window_frame_order(frame: list) -> str:
    """A window frame whose first offset is after the row or whose second is before it.

    `frame: [before, after]` counts rows before the row (zero or negative) and after it (zero or
    positive); `null` is unbounded. Vega reads only each offset's size, so `[2, 0]` would silently mean
    `[-2, 0]`: write the frame as meant.

    Example:
        data: {dataset: cars}
        transform:
          - window: [{op: mean, field: Horsepower, as: smooth}]
            frame: [2, 2]
        mark: point
        encoding: {x: Horsepower, y: smooth}
    """
    return f"frame {json.dumps(frame)} runs backwards: the first offset is <= 0, the second >= 0"


def window_frame_hint(frame: list) -> str:
    before, after = frame
    fixed = [None if before is None else -abs(before), None if after is None else abs(after)]
    return f"write frame: {json.dumps(fixed)}"


# ------------------------------------------------------------------ density

@code("E270")
def density_extent_empty(low: float, high: float) -> str:
    """A density's extent that does not increase.

    A `density` transform samples its curve from `extent[0]` up to `extent[1]`: the first must be the
    smaller. Vega would sample an empty or reversed span.

    Example:
        data: {dataset: cars}
        transform:
          - {density: Horsepower, extent: [250, 0]}
        mark: line
        encoding:
          x: {field: value, type: quantitative}
          y: {field: density, type: quantitative}
    """
    return f"the density's extent [{low:g}, {high:g}] does not increase"


@code("E271", hint="density_bandwidth_negative_hint")
def density_bandwidth_negative(bandwidth: float) -> str:
    """A negative density bandwidth.

    A `density` transform's `bandwidth` is its Gaussian kernel's standard deviation, in the field's
    units: a positive number, or 0 to estimate it by Scott's rule.

    Example:
        data: {dataset: cars}
        transform:
          - {density: Horsepower, bandwidth: -5}
        mark: line
        encoding:
          x: {field: value, type: quantitative}
          y: {field: density, type: quantitative}
    """
    return f"the density's bandwidth {bandwidth:g} is negative"


def density_bandwidth_negative_hint() -> str:
    return "give the kernel's standard deviation in the field's units, or 0 to estimate it (Scott's rule)"
@code("E275")
def condition_value_and_field(channel: str) -> str:
    """A condition with both a value and a field.

    Where its selection holds a mark (or its test is true), a channel's condition draws either one
    constant (`value`) or a field (`field`, as a channel does): not both.

    Example:
        data: {dataset: cars}
        mark: point
        params: [{name: brush, select: interval}]
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
          color: {condition: {param: brush, field: Cylinders, value: red}, value: grey}
    """
    return f"{channel}'s condition takes a value or a field, not both"


def condition_value_and_field_hint() -> str:
    return "keep `field` to draw the field inside the selection, and put the constant outside: {condition: {param: ..., field: ...}, value: grey}"


@code("E276")
def condition_field_without_value(channel: str) -> str:
    """A condition that draws a field on a channel that draws a field too.

    A condition with a `field` draws that field where it holds; elsewhere the channel needs one
    constant (`value`), not a field of its own: Vega-Lite takes one field per channel.

    Example:
        data: {dataset: cars}
        mark: point
        params: [{name: brush, select: interval}]
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
          color: {field: Origin, condition: {param: brush, field: Cylinders}}
    """
    return f"{channel}'s condition draws a field, so the channel itself takes a value, not a field"


def condition_field_without_value_hint() -> str:
    return "write the constant drawn outside the selection: {condition: {param: ..., field: ...}, value: grey}"




@code("E277", hint="param_undefined_hint")
def filter_param_undefined(name: str) -> str:
    """A filter by a selection no layer declares.

    `filter: {param: NAME}` keeps the rows the reader's selection NAME holds (every row while it is
    empty); NAME must be declared in the chart's `params` or a layer's.

    Example:
        data: {dataset: seattle-weather}
        encoding:
          y: {field: precipitation, aggregate: mean}
        layers:
          - mark: bar
            params: [{name: brush, select: {type: interval, encodings: [x]}}]
            encoding:
              x: {field: date, timeUnit: month, type: ordinal}
          - mark: rule
            transform: [{filter: {param: bursh}}]
    """
    return f"the filter names no declared selection: {name!r}"
# ------------------------------------------------------------------ lookup

@code("E280", hint="lookup_as_count_hint")
def lookup_as_count(fields: int, names: int) -> str:
    """A lookup whose `as` names a different number of fields than `from.fields`.

    `as` renames the looked-up fields one by one: it needs one name per entry of `from.fields` (a
    string for a single field). Vega refuses any other count.

    Example:
        data: {values: [{variety: Manchuria, yield: 27}]}
        transform:
          - lookup: variety
            from:
              data: {values: [{name: Manchuria, bred: Minnesota, year: 1880}]}
              key: name
              fields: [bred, year]
            as: origin
        mark: bar
        encoding: {x: variety, y: yield}
    """
    return f"lookup: `as` gives {names} name{'s' if names != 1 else ''} for {fields} looked-up field" \
           f"{'s' if fields != 1 else ''}"


def lookup_as_count_hint() -> str:
    return "give one name per entry of from.fields, in the same order, or leave `as` out to keep their names"


# ------------------------------------------------------------------ lookup: the second source

@code("E281")
def lookup_key_not_found(key: str, source: str) -> str:
    """A lookup's `from.key` that is not a column of its second source.

    `from.key` names the field of `from.data` matched against the chart's `lookup` field; the hint
    lists the second source's columns.

    Example:
        data: {values: [{variety: Manchuria, yield: 27}]}
        transform:
          - lookup: variety
            from:
              data: {values: [{name: Manchuria, bred: Minnesota}]}
              key: variety
              fields: [bred]
        mark: bar
        encoding: {x: variety, y: yield}
    """
    return f"lookup key {key!r} is not a column of {source}"


@code("E282")
def lookup_field_not_found(name: str, source: str) -> str:
    """A looked-up field that is not a column of the lookup's second source.

    Each entry of `from.fields` names a column of `from.data` that every row gains; the hint lists the
    second source's columns.

    Example:
        data: {values: [{variety: Manchuria, yield: 27}]}
        transform:
          - lookup: variety
            from:
              data: {values: [{name: Manchuria, bred: Minnesota}]}
              key: name
              fields: [bread]
        mark: bar
        encoding: {x: variety, y: yield}
    """
    return f"looked-up field {name!r} is not a column of {source}"


def lookup_columns_hint(name: str, columns: Sequence[str]) -> str:
    """A near miss among the second source's columns, else the columns themselves."""
    return did_you_mean(name, columns) or f"its columns: {quoted_list(columns)}"


def lookup_source(label: str) -> str:
    """How a message names a lookup's second source: its file, dataset or inline values."""
    return "the inline lookup values" if label == "values" else f"the lookup data {label!r}"


@code("W281")
def lookup_duplicate_key(key: str, count: int, source: str) -> str:
    """A key that more than one row of a lookup's second source holds.

    Vega's lookup indexes the second source by its key, each row replacing the one before: a key held
    by several rows gets the values of the last of them (as chartc computes it, too). Usually the
    second source was meant to hold one row per key.

    Example:
        data: {values: [{variety: Manchuria, yield: 27}]}
        transform:
          - lookup: variety
            from:
              data: {values: [{name: Manchuria, bred: Minnesota}, {name: Manchuria, bred: Ontario}]}
              key: name
              fields: [bred]
        mark: bar
        encoding: {x: variety, y: bred}
    """
    return f"lookup key {key!r} is held by {count} rows of {source}: the last of them is used, as Vega does"


def lookup_duplicate_key_hint() -> str:
    return "keep one row per key in the lookup data (or aggregate it first)"
