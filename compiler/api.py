"""The Python API: a `Chart` from a spec file, YAML text or a dict, with DataFrames as its data.

    chartc.load("specs/cars_scatter.yaml")                 -> Chart
    chartc.from_spec(yaml_text_or_dict, data=df)           -> Chart   (a spec needs no `data:` for a df)
    chart.vega_lite, chart.fits, chart.warnings            the compiled chart, its fitted models, its warnings
    chart.save("out.svg", fits="out.fits.json", strict=True)   every export, the fits sidecar, the scene check
    chart.to_altair(), chart.to_yaml(path, data_path=...)  on to Altair; back to a spec file
    chart  (last in a notebook cell)                       shows itself: Vega-Lite, with an SVG beside it

Everything goes through the pipeline (`pipeline.compile_document`), the same
functions the command line calls (`chartc compile` is `load` then
`save_chart`). A spec's problems raise `SpecError` with the positioned
diagnostics the command line prints: for YAML text, line and column in the
text (the file is ``<spec>``); for a dict, the spec path alone.

May import: the pipeline and every layer below it (it is the layer under
`commands`); altair only for `Chart.to_altair`, nothing heavy at import time.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import SpecError, SpecWarning, format_path
from .pipeline import (Compiled, as_errors, check_drawn, compile_document, export_bytes, export_checked,
                       fits_json)

__all__ = ["Chart", "Fit", "from_spec", "load", "save_chart"]

# What a spec given as text or a dict is called in its diagnostics (a file's name is its path).
TEXT_FILE = "<spec>"
DICT_FILE = "<dict>"
# The name a single table passed without one gets in the spec (`data: {frame: table}`).
DEFAULT_TABLE = "table"
# The output formats `Chart.save` writes, as `render.export.export_format` names them.
FORMATS = ("vl.json", "svg", "png", "pdf", "html")


# ------------------------------------------------------------------ loading

def load(path: str | os.PathLike, data: Any = None, *, preset: str | None = None, full: bool = True,
         engine: str | None = None) -> Chart:
    """Compile a spec file, as `chartc compile` does.

    Args:
        path: the spec file (YAML or JSON).
        data: the rows for a spec whose data is ``{frame: NAME}`` (or that
            has no `data`): a pandas or Polars DataFrame, a pyarrow Table, any
            object with ``__arrow_c_stream__``, or a dict of them by name.
        preset: a paper preset (``neurips-column``...) over the spec's and
            the project's ``chartc.toml``'s, as ``chartc compile --preset``.
        full: also check what Vega-Lite's own compiler refuses now (it
            starts the renderer); False leaves it to the first render, as
            ``chartc compile -o x.vl.json`` does without ``--full``.
        engine: where the data is queried: ``"duckdb"`` (embedded) or ``"spark"`` (where the
            project's ``chartc.toml`` ``[spark]`` table says); default the project file's, else DuckDB.

    Returns:
        The compiled `Chart`.

    Raises:
        SpecError: the spec or its data has problems: every one of them,
            each at its file position.
    """
    from .stages.load import read_spec

    raw, document = read_spec(path)
    return _compile(_with_table(document, data), raw, data, preset=preset, full=full, engine=engine)


def from_spec(spec: str | Mapping, data: Any = None, *, base_dir: str | os.PathLike | None = None,
              name: str | None = None, preset: str | None = None, full: bool = True,
              engine: str | None = None) -> Chart:
    """Compile a spec given as YAML (or JSON) text or as a dict.

    Args:
        spec: the spec's text, or the spec as a dict (as `yaml.safe_load` or
            `json.load` would give it).
        data: the rows, as for `load`. With one table and no `data` in the
            spec, the spec draws that table.
        base_dir: the folder the spec's data paths are relative to (default:
            the current one); a text spec's diagnostics name ``BASE_DIR/<spec>``.
        name: what the diagnostics call the spec (default ``<spec>`` for
            text, ``<dict>`` for a dict).
        preset, full, engine: as for `load`.

    Returns:
        The compiled `Chart`.

    Raises:
        SpecError: the spec or its data has problems. For text, each
            diagnostic is at its line and column in the text; for a dict, at
            its spec path (``layers[1].trend.method``), with no position.
        TypeError: `spec` is neither text nor a mapping.
    """
    from .stages.load import load_text

    if isinstance(spec, Mapping):
        text = json.dumps(spec, ensure_ascii=False, indent=1, default=_json_value)
        file, is_dict = DICT_FILE, True
    elif isinstance(spec, str):
        text, file, is_dict = spec, TEXT_FILE, False
    else:
        raise TypeError(f"a spec is YAML text or a dict, not {type(spec).__name__}")
    file = name or file
    if base_dir is not None:
        file = os.path.join(os.fspath(base_dir), file)
    try:
        document = load_text(text, file, format="json" if is_dict else "yaml")
        if is_dict:  # positions in a text the user never saw would mislead: the spec path says where
            document = type(document)(document.data, file, {}, {}, {})
        return _compile(_with_table(document, data), text.encode("utf-8"), data, preset=preset, full=full,
                        engine=engine)
    except SpecError as error:
        if is_dict:
            raise _without_positions(error) from None
        raise


def _json_value(value):
    """A value `json.dumps` does not know, as a spec holds it: NumPy numbers, dates, tuples."""
    if hasattr(value, "item") and callable(value.item):  # a NumPy scalar
        return value.item()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, (tuple, set, frozenset)):
        return list(value)
    raise TypeError(f"a spec holds plain values, not {type(value).__name__}")


def _without_positions(error: SpecError) -> SpecError:
    problems = [SpecError(e.message, e.path, stage=e.stage, hint=e.hint, code=e.code) for e in error.errors]
    return SpecError.collect(problems)


def _with_table(document, data):
    """The document, reading the table passed when it names no data: ``data: {frame: NAME}`` is added."""
    if data is None or not isinstance(document.data, dict) or "data" in document.data:
        return document
    if isinstance(data, Mapping):
        if len(data) != 1:
            return document  # which table? the schema's "data is missing" says the spec must name one
        name = str(next(iter(data)))
    else:
        name = DEFAULT_TABLE
    spec = dict(document.data)
    head = {"$schema": spec.pop("$schema")} if "$schema" in spec else {}
    return type(document)({**head, "data": {"frame": name}, **spec}, document.file, document.positions,
                          document.key_positions, document.text_starts)


def _compile(document, raw: bytes, data, *, preset: str | None, full: bool, engine: str | None = None) -> Chart:
    return Chart(compile_document(document, raw, tables=data, preset=preset, full=full, engine=engine))


# ------------------------------------------------------------------ the chart

@dataclass(frozen=True)
class Fit:
    """One fitted trend: the model behind one line (per layer, group and facet panel), like Plotly's trendline results.

    Attributes:
        layer: the trend layer's spec path (``layers[1]``).
        method: ``linear``, ``poly``, ``loess``, ... (the spec's `trend.method`).
        group: the `by` value this line was fitted for (None for one overall fit).
        panel: facet field -> value of the panel it was fitted in (empty without facets).
        n: the rows fitted.
        coefficients: name -> value (``intercept``/``slope``; ``c0``..``cK``;
            ``a``/``b``), in the fitting space (`space`: log axes fit logarithms).
        r2, adj_r2, rse: R², adjusted R², the residual standard error (None where undefined).
        statistics: name -> value of the test statistics the method has (``p``, ``f``,
            ``slope_ci`` as (low, high), ``aic``, ``bic``, ``rmse``; a name left out is undefined).
        band: the confidence level of the band drawn (0.95), or None without one.
        band_kind: what the band is (``confidence`` or ``prediction``), or None.
        equation: the fitted equation as text.
        label: the legend text, or None.
        x, y: the curve drawn, in data space (x in milliseconds for dates).
        lower, upper: the band's edges along `x`, or None.
        space: (x space, y space) of the coefficients: ``linear`` or ``log``.
        x_type: ``quantitative``, or ``temporal`` when x was dates.
    """

    layer: str
    method: str
    group: Any
    panel: dict
    n: int
    coefficients: dict
    r2: float | None
    adj_r2: float | None
    rse: float | None
    band: float | None
    band_kind: str | None
    equation: str
    label: str | None
    x: tuple = field(repr=False)
    y: tuple = field(repr=False)
    lower: tuple | None = field(repr=False)
    upper: tuple | None = field(repr=False)
    space: tuple = ("linear", "linear")
    x_type: str = "quantitative"
    statistics: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        """The fit as the ``--fits`` sidecar writes it (no curve), with its layer."""
        from .trends.fitting import trend_summary

        return {"layer": self.layer, **trend_summary(self._line)}

    @classmethod
    def of(cls, layer: str, line) -> Fit:
        """The fit of one `trends.line.TrendLine`."""
        fit = cls(layer, line.method, line.group, dict(line.panel), line.n, dict(line.coefficients), line.r2,
                  line.adj_r2, line.rse, line.band, line.band_kind, line.equation, line.label, line.x, line.y,
                  line.lower, line.upper, line.space, line.x_type, dict(line.statistics))
        object.__setattr__(fit, "_line", line)  # for `as_dict`: the sidecar's own summary
        return fit


class Chart:
    """A compiled chart: its Vega-Lite, its fitted models, its warnings, and every way out of Python.

    Made by `load` and `from_spec` (never directly). A notebook shows it
    (`_repr_mimebundle_`); `save` writes what `chartc compile` writes.

    Attributes:
        compiled: the pipeline's result (`pipeline.Compiled`): the chart
            model, the document, the rows each layer got.
    """

    def __init__(self, compiled: Compiled):
        self.compiled = compiled

    def __repr__(self) -> str:
        title = self.compiled.chart.title
        return f"<chartc.Chart {title!r}>" if title else "<chartc.Chart>"

    @property
    def vega_lite(self) -> dict:
        """The Vega-Lite dict (its data inlined, ``usermeta.chartc`` its provenance); `to_dict` gives a copy."""
        return self.compiled.vega_lite

    @property
    def spec(self) -> dict:
        """The spec as compiled, as plain data (with ``data: {frame: NAME}`` for a table passed)."""
        return self.compiled.document.data

    @property
    def warnings(self) -> tuple[SpecWarning, ...]:
        """The compile's warnings (the chart still compiled); `save` adds what the renderer drew."""
        return tuple(self.compiled.warnings)

    @property
    def fits(self) -> tuple[Fit, ...]:
        """Every fitted trend line, layer by layer, then group by group and panel by panel."""
        return tuple(Fit.of(format_path(path), line) for path, lines in self.compiled.fits.items()
                     for line in lines)

    def to_dict(self) -> dict:
        """A copy of the Vega-Lite dict (as `alt.Chart.to_dict` gives)."""
        return copy.deepcopy(self.compiled.vega_lite)

    def to_json(self) -> str:
        """The Vega-Lite as the ``.vl.json`` export writes it (canonical JSON: same chart, same bytes)."""
        from .infra.jsonout import canonical_json

        return canonical_json(self.compiled.vega_lite)

    def fits_json(self) -> str:
        """The fits sidecar (``chartc compile --fits``): every fit's numbers, and the chart's provenance."""
        return fits_json(self.compiled)

    def to_altair(self):
        """The chart as an Altair chart, validated by Altair, to keep editing there.

        An `alt.Chart`, `alt.LayerChart` or `alt.FacetChart` (by the
        Vega-Lite's top level), built with `from_dict` (which validates it
        against Altair's Vega-Lite schema); ``.properties(title=...)``,
        ``.configure_*`` and ``.save`` work on it as on any Altair chart.

        Returns:
            The Altair chart.

        Raises:
            altair.utils.schemapi.SchemaValidationError: only for a chart
                chartc compiled wrongly (a bug to report).
        """
        import altair as alt

        vega_lite = self.to_dict()
        if "layer" in vega_lite:
            kind = alt.LayerChart
        elif "facet" in vega_lite and "spec" in vega_lite:
            kind = alt.FacetChart
        elif any(key in vega_lite for key in ("hconcat", "vconcat", "concat")):
            kind = {"hconcat": alt.HConcatChart, "vconcat": alt.VConcatChart, "concat": alt.ConcatChart}[
                next(key for key in ("hconcat", "vconcat", "concat") if key in vega_lite)]
        else:
            kind = alt.Chart
        return kind.from_dict(vega_lite)

    def render(self, format: str) -> bytes:
        """The bytes of one export, as `save` writes them (without the scene check).

        Args:
            format: ``"vl.json"``, ``"svg"``, ``"png"``, ``"pdf"`` or ``"html"``.

        Raises:
            SpecError: the renderer refused the chart, at the spec node that caused it.
            ValueError: an unknown format.
        """
        if format not in FORMATS:
            raise ValueError(f"unknown export format {format!r}; expected one of {', '.join(FORMATS)}")
        return export_bytes(self.compiled, format)

    def check_drawn(self) -> list[SpecWarning]:
        """What the renderer draws of the chart, against its spec (the scene check; renders an SVG)."""
        return check_drawn(self.compiled)

    def save(self, path: str | os.PathLike, *, fits: str | os.PathLike | None = None,
             strict: bool = False) -> list[SpecWarning]:
        """Write the chart (and its fits sidecar) as `chartc compile -o PATH [--fits FITS] [--strict]` does.

        The format follows the suffix: ``.vl.json``/``.json``, ``.svg``,
        ``.png``, ``.pdf`` or ``.html``; every export carries the chart's
        provenance. A drawn format is checked against the spec (the scene
        check); so is ``.vl.json`` under `strict`. The chart and its fits
        are written both or neither, each atomically.

        Args:
            path: the output file.
            fits: also write the fitted trends as JSON there.
            strict: report every warning (the compile's and the scene check's)
                as an error: raise, and write nothing.

        Returns:
            Every warning: the compile's, then what the scene check found.

        Raises:
            SpecError: the renderer refused the chart, or (with `strict`) a warning.
            ValueError: the suffix names no export format.
            OSError: a file cannot be written.
        """
        from .render.export import export_format

        fmt = export_format(path)
        if fmt is None:
            raise ValueError(f"cannot tell the export format of {os.fspath(path)!r} "
                             "(use .vl.json, .json, .svg, .png, .pdf or .html)")
        return save_chart(self.compiled, path, fmt, fits=fits, strict=strict)

    def to_yaml(self, path: str | os.PathLike | None = None, *, data_path: str | os.PathLike | None = None) -> str:
        """The spec as YAML, to keep the chart as a versioned spec file; compiles to the same Vega-Lite.

        A chart drawn from a table passed from Python gets its rows into the
        spec: inline (``data: {values: [...]}``) or, with `data_path`, written
        to that file (CSV, or Parquet for ``.parquet``) and named by a
        ``data: {path: ...}`` relative to the spec. Dates are written as ISO
        text, which the readers read back as dates; other specs are written
        as they were compiled.

        Args:
            path: also write the YAML to this file.
            data_path: write the rows of a table passed from Python to this file.

        Returns:
            The YAML text.

        Raises:
            ValueError: `data_path` for a chart that read no table from Python,
                or a suffix other than .csv or .parquet.
            OSError: a file cannot be written.
        """
        from .infra.files import write_atomic
        from .stages.data import read_table, write_rows

        spec = copy.deepcopy(self.spec)
        source = self.compiled.chart.data
        if source.frame is None:
            if data_path is not None:
                raise ValueError("data_path is for a chart drawn from a table passed from Python")
        else:
            rows = read_table(source)
            kept = {k: v for k, v in spec["data"].items() if k == "sample"}
            if data_path is None:
                spec["data"] = {"values": rows.records(), **kept}
            else:
                write_rows(rows, data_path)
                folder = Path(path).parent if path is not None else Path(".")
                relative = Path(os.path.relpath(os.path.abspath(data_path), os.path.abspath(folder))).as_posix()
                spec["data"] = {"path": relative, **kept}
        text = _yaml_text(spec)
        if path is not None:
            write_atomic(path, text.encode("utf-8"))
        return text

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        """What a notebook shows: the Vega-Lite (`vega_lite_mime_type`) and an SVG beside it.

        JupyterLab and Notebook draw the Vega-Lite where a Vega renderer is
        installed for its version; the SVG is what every other viewer shows
        (GitHub's notebook preview, nbviewer, a renderer for older versions).
        """
        bundle: dict = {vega_lite_mime_type(self.compiled.vega_lite): self.compiled.vega_lite,
                        "text/plain": repr(self)}
        try:
            bundle["image/svg+xml"] = export_bytes(self.compiled, "svg").decode("utf-8")
        except SpecError as refused:  # the renderer's refusal, where the picture would be
            bundle["text/plain"] = str(refused)
        return bundle


def vega_lite_mime_type(vega_lite: dict) -> str:
    """The MIME type a notebook draws the chart's Vega-Lite from: ``application/vnd.vegalite.v6+json``.

    Versioned by the chart's own ``$schema`` (the Vega-Lite Altair emits), and
    a JSON type (``+json``) as every Vega-Lite type before it: Altair 6's own
    ``application/vnd.vegalite.v6.json`` is no JSON type to nbformat, whose
    schema then refuses a notebook holding the dict under it.
    """
    from .infra.provenance import vega_lite_version

    version = vega_lite_version(vega_lite) or ""
    return f"application/vnd.vegalite.v{version.split('.')[0]}+json"


def _yaml_text(spec: dict) -> str:
    """A spec as YAML 1.2 (block style, keys in order), as `chartc new` writes specs."""
    import io

    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False
    yaml.allow_unicode = True
    yaml.width = 120
    stream = io.StringIO()
    yaml.dump(spec, stream)
    return stream.getvalue()


# ------------------------------------------------------------------ saving

def save_chart(compiled: Compiled, out: str | os.PathLike | None, fmt: str, *,
               fits: str | os.PathLike | None = None, strict: bool = False) -> list[SpecWarning]:
    """Write a compiled chart's export and fits sidecar, with the scene check: `chartc compile` and `Chart.save`.

    Args:
        compiled: the chart.
        out: the output file; None writes no chart (``chartc compile -o -``
            prints its Vega-Lite), but still checks and writes the fits.
        fmt: the export format (`render.export.export_format` of `out`).
        fits: also write the fitted trends as JSON there.
        strict: every warning is an error: raise it, and write nothing.

    Returns:
        The warnings: the compile's, then the scene check's.

    Raises:
        SpecError: the renderer refused the chart, or (`strict`) the warnings as errors.
        OSError: a file cannot be written.
    """
    from .infra.files import write_all

    files, drawn = {}, []
    if fmt != "vl.json":
        content, drawn = export_checked(compiled, fmt)  # what the renderer drew, against the spec
        if out is not None:
            files[out] = content
    elif out is not None:
        files[out] = export_bytes(compiled, fmt)
    if fmt == "vl.json" and strict:
        drawn = check_drawn(compiled)
    warnings = [*compiled.warnings, *drawn]
    if strict and warnings:
        raise SpecError.collect(as_errors(warnings))
    if fits is not None:
        files[fits] = fits_json(compiled).encode("utf-8")
    write_all(files)  # the chart and its fits, or neither
    return warnings
