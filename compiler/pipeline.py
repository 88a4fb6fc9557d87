"""The pipeline in one place: a spec file in, a compiled chart out.

    text -load-> Document -validate-> (schema errors) -parse-> ir.Chart (+ expression errors)
         -data-> rows read, scrubbed, sampled; every layer's rows through its transforms (DataFlow)
         -check-> (field errors, value errors, warnings) -limits-> (too many marks; ARIA off on many)
         -fit-> trend lines -translate-> Altair -> Vega-Lite dict + origins
         -verify-> (what the renderer would refuse, placed through the origins)
         -provenance-> usermeta.chartc -export-> .vl.json / .svg / .png / .pdf / .html
         -scene-> (what the renderer drew against the spec: warnings; errors under --strict)

Each stage takes plain data and returns plain data; after the parse stage
every stage reads the chart model (`ir.Chart`, whose nodes know where they
were written), never the document. Problems from every stage are
`SpecError`s that point into the spec file. The stages live in
`chartc.stages` (one module or package each), the renderer in `chartc.render`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from dataclasses import dataclass, field
from collections.abc import Callable
from pathlib import Path

from . import errors as msg
from .errors import Location, SpecError, SpecWarning
from .infra.files import write_atomic
from .infra.provenance import add_provenance, input_hash
from .infra.table import DateOutOfRange, sample_rows
from .ir.nodes import Chart
from .ir.transforms import Calculate
from .render.export import RenderRefused, export_format, png_from_svg, register_fonts, render, use_utc
from .render.pdf import UnexpectedPdf
from .stages.check import check_chart
from .stages.data import (OpenFields, bind_table, flow_data, follow_fields, lookup_identities, lookup_warnings,
                          project_root, read_columns, read_rows, start_identity, scrub_table)
from .stages.data.engine import DEFAULT_MASTER, ENGINES, EngineUnavailable, SparkSettings, use_engine
from .stages.data.read import rows_unreadable
from .stages.data.sources import EngineReadError
from .stages.limits import apply_mark_limits, check_polar_channels
from .stages.load import Document, read_spec
from .stages.parse import parse_chart
from .stages.validate import check_schema_reference, project_defaults, project_error, validate_document


@dataclass(frozen=True)
class Compiled:
    """The result of the pipeline: the chart model, its fits and its Vega-Lite.

    `source` is the spec file's bytes exactly as compiled (read once); the
    provenance block (``usermeta.chartc``) holds their hash and that of the
    data, taken before the rows were read. `document` is the loaded spec,
    for commands that show its raw values (the gallery's chart page, diff).
    `flow` (the rows each layer got) and `origins` (the translator's map of
    Vega-Lite paths to spec nodes) are what the scene check reads beside the SVG.
    """

    chart: Chart
    document: Document
    vega_lite: dict
    fits: dict = field(default_factory=dict)
    warnings: tuple = ()
    source: bytes = b""
    flow: object = None
    origins: object = None


def check_spec(path: str | os.PathLike, preset: str | None = None) -> tuple[Chart, Document]:
    """Load, validate and parse a spec file without touching its data.

    Args:
        path: the spec file (YAML or JSON).
        preset: a paper preset for the chart (`--preset`), over the spec's and the project's.

    Returns:
        The chart model and its document.

    Raises:
        SpecError: every schema problem, in file order; else every
            expression Vega would refuse, at its column.
    """
    chart, document, _ = _check_source(path, preset)
    return chart, document


def _check_source(path: str | os.PathLike, preset: str | None = None) -> tuple[Chart, Document, bytes]:
    raw, document = read_spec(path)
    return check_document(document, preset), document, raw


def check_document(document: Document, preset: str | None = None) -> Chart:
    """Validate and parse a loaded spec (from a file, text or a dict) without touching its data.

    Args:
        document: the loaded spec (`stages.load`).
        preset: a paper preset over the spec's and its project's ``chartc.toml``'s.

    Returns:
        The chart model.

    Raises:
        SpecError: as `check_spec`.
    """
    problems = validate_document(document)
    if problems:
        raise SpecError.collect(problems)
    chart, problems = parse_chart(document)
    if problems:
        raise SpecError.collect(problems)
    # The paper preset: the command's, else the spec's, else the project's (chartc.toml).
    chosen = preset or chart.preset or project_defaults(document.file)[0].get("preset")
    if chosen != chart.preset:
        chart = dataclasses.replace(chart, preset=chosen)
    if chart.font_directory is not None:
        font_folder(chart)  # there, and inside the project
    return chart


def font_folder(chart: Chart) -> Path:
    """The folder a chart's `font_directory` names: relative to the spec file, inside the project.

    Raises:
        SpecError: it is not a folder, or leaves the project (the git work tree, else the spec's folder).
    """
    from . import errors as msg

    spec = Path(chart.source.file)
    folder = (spec.parent / chart.font_directory).resolve()
    root = project_root(spec)
    if not folder.is_dir() or not folder.is_relative_to(root):
        raise chart.error(msg.font_directory_missing(chart.font_directory), "font_directory", stage="schema",
                          hint=msg.font_directory_hint())
    return folder


def validate_spec(path: str | os.PathLike) -> list[SpecError]:
    """Check a spec and the names of its data's columns, without compiling it.

    The light check behind `chartc validate`: schema, structure, every
    expression, and every field reference through the transforms (each
    transform's `fields_after`, from the column names alone), with no
    pandas, Altair or renderer import. Checks of the data's values (log
    scales over zero, unstyled marker categories, fits) run when the chart
    is compiled.

    Args:
        path: the spec file (YAML or JSON).

    Returns:
        Every problem found (errors and `SpecWarning`s), in file order.
    """
    try:
        chart, document = check_spec(path)
        columns = read_columns(chart.data)
        # A table of the engine's catalog: its columns are the engine's, unknown here (no engine is started), so
        # no field read is reported (as after a pivot); the compile checks them.
        base = OpenFields() if columns is None else {column: "nominal" for column in columns}
        return check_schema_reference(document) + check_polar_channels(chart) + check_chart(
            chart, follow_fields(chart, base))
    except SpecError as error:
        return list(error.errors)


def compile_spec(path: str | os.PathLike, preset: str | None = None, *, full: bool = True,
                 draft: bool = False, engine: str | None = None) -> Compiled:
    """Compile a chart spec file to Vega-Lite.

    Args:
        path: the spec file (YAML or JSON).
        preset: a paper preset (`infra.paper.PRESETS`) over the spec's and the project's ``chartc.toml``'s.
        full: also run what Vega-Lite's own compiler refuses (`verify.compile_refusal`),
            which starts the renderer's engine. A caller that renders the chart
            can leave it out: the render finds the same refusal (`refusals_as_errors`).
        draft: leave out Vega-Lite's JSON schema check too (`chartc serve`'s preview of a
            save, drawn by the browser at once; the build that follows checks everything).
        engine: where the data is queried (`duckdb`, `spark`), over the project's ``chartc.toml``'s.

    Returns:
        A `Compiled` with the Vega-Lite dict, the fitted trends and any warnings.

    Raises:
        SpecError: the spec or its data has problems (all of them, in file order).
    """
    chart, document, source = _check_source(path, preset)
    return compile_document(document, source, chart=chart, full=full, draft=draft, engine=engine)


def data_engine(document: Document, engine: str | None = None) -> SparkSettings | None:
    """Where the chart's data is queried: the caller's engine, else the project's (``chartc.toml``), else DuckDB.

    Returns:
        None for DuckDB; for Spark, its settings from the project file's ``[spark]`` table.

    Raises:
        SpecError: a project file chartc cannot use (at its line).
        ValueError: an engine chartc does not have, named by the caller.
    """
    values, path = project_defaults(document.file)
    name = engine or values.get("engine") or "duckdb"
    if name not in ENGINES:
        raise ValueError(f"unknown engine {name!r}; chartc has {', '.join(ENGINES)}")
    if name == "duckdb":
        return None
    spark = values.get("spark", {})
    chosen = next((key for key in ("remote", "master") if key in spark), None if engine else "engine")
    conf = tuple(sorted((key, str(value).lower() if isinstance(value, bool) else str(value))
                        for key, value in spark.get("conf", {}).items()))
    return SparkSettings(spark.get("master", DEFAULT_MASTER), spark.get("remote"), conf,
                         origin=(path, chosen) if path is not None and chosen else None)


def compile_document(document: Document, source: bytes, *, tables=None, chart: Chart | None = None,
                     preset: str | None = None, full: bool = True, draft: bool = False,
                     engine: str | None = None) -> Compiled:
    """Compile a loaded spec to Vega-Lite: `compile_spec` for a spec that is no file (text, a dict).

    Args:
        document: the loaded spec.
        source: the bytes its provenance hashes (the spec text).
        tables: a table passed from Python for a ``data: {frame: NAME}``
            spec (a DataFrame, an Arrow table), or tables by name; None for
            none (`stages.data.bind_table`).
        chart: the chart model when already parsed from `document`.
        preset: as `compile_spec` (when `chart` is not given).
        full: as `compile_spec`.
        draft: as `compile_spec`.
        engine: as `compile_spec`.

    Returns:
        As `compile_spec`.

    Raises:
        SpecError: as `compile_spec`; also a table passed to a spec that
            reads other data, or a `frame` spec without its table.
    """
    if chart is None:
        chart = check_document(document, preset)
    if tables is not None:
        chart = bind_table(chart, tables)
    settings = data_engine(document, engine)
    if settings is None:
        return _engine_failures_placed(chart, lambda: _compile_chart(chart, document, source, full=full, draft=draft))
    from .stages.data.spark import SparkQueryError, first_line

    try:
        with use_engine(settings):
            return _engine_failures_placed(chart, lambda: _compile_chart(chart, document, source, full=full, draft=draft))
    except EngineUnavailable as error:
        raise _engine_error(chart, settings, msg.engine_unavailable("spark", str(error))) from None
    except SparkQueryError as error:  # a query no caller could explain: Spark's first line, at the data
        raise chart.data.error(msg.engine_query_failed("spark", first_line(error)), stage="data",
                               hint=msg.engine_unavailable_hint()) from None


def _engine_failures_placed(chart: Chart, compile_chart: Callable[[], Compiled]) -> Compiled:
    """The compile, a date past Python's years met in the engine's rows refused: at the `calculate` that makes
    its field, else at the spec's data (a column's date, or a group's). One an expression makes in memory is
    refused at the expression by the check stage. The engine failing on rows it opened (a file changed
    meanwhile) is refused at the data, as had it failed first."""
    try:
        return compile_chart()
    except EngineReadError as error:
        raise rows_unreadable(chart.data, error) from None
    except DateOutOfRange as error:
        steps = (*chart.transform, *(step for layer in chart.layers for step in layer.transform))
        made = next((step.expression for step in steps if isinstance(step, Calculate) and step.as_ == error.column),
                    None)
        message = msg.date_out_of_range(error.year, None if made is not None else error.column)
        node = made if made is not None else chart.data
        raise node.error(message, stage="data", hint=msg.date_out_of_range_hint()) from None


def _engine_error(chart: Chart, settings: SparkSettings, message: str) -> SpecError:
    """An engine that cannot start: at the project file's line that chose it, else at the spec's data."""
    if settings.origin is not None:
        path, key = settings.origin
        return project_error(path, path.read_bytes().decode("utf-8", errors="replace"), key, message,
                             msg.engine_unavailable_hint(), stage="data")
    return chart.data.error(message, stage="data", hint=msg.engine_unavailable_hint())


def _compile_chart(chart: Chart, document: Document, source: bytes, *, full: bool, draft: bool) -> Compiled:
    """`compile_document` once the chart is parsed and the engine chosen."""
    # Hashed before the rows are read (a large file beside them, and checked after): a save meanwhile leaves it stale.
    # Started before the imports below, which keep one core busy for ~0.4 s: a large file's hash has the other.
    identity = start_identity(chart.data)
    lookups = lookup_identities(chart)  # each lookup's second source too, before its rows are read
    # These stages load numpy and Altair: imported here, so `validate_spec` stays light.
    from .stages.fit import fit_chart
    from .stages.translate import translate_chart
    from .stages.verify import check_vega_lite

    # Parquet and Arrow are read by the engine; text and inline rows by chartc's readers, so a chart
    # without transforms over them never imports it (the transforms' query registers what it reads).
    table, scrubbed = scrub_table(read_rows(chart.data), chart.data)  # text that aborts the renderer
    # `data.sample` draws some of the rows; the checks and the fits see them all.
    drawn = sample_rows(table, chart.data.sample) if chart.data.sample is not None else table
    flow = flow_data(chart, table, drawn)  # every layer's rows through its transforms, as Vega computes them
    problems = check_schema_reference(document) + scrubbed + lookup_warnings(chart) + check_polar_channels(chart)
    problems += check_chart(chart, flow.fields, flow)
    errors = [p for p in problems if not isinstance(p, SpecWarning)]
    if errors:
        raise SpecError.collect(errors)
    chart = apply_mark_limits(chart, flow)  # refuse too many marks; no per-mark ARIA labels on many
    fits = fit_chart(chart, flow)
    use_utc()  # before anything starts vl-convert's engine: temporal axes must not depend on TZ
    if chart.font_directory is not None:  # a paper's own font: known to the renderer before it measures text
        register_fonts(font_folder(chart))
    translation = translate_chart(chart, flow, fits)
    invalid = check_vega_lite(translation, chart, drawn, full=full and not draft, schema=not draft)  # what the chart schema lets through but Vega-Lite refuses
    if invalid:
        raise SpecError.collect(invalid)
    vega_lite = add_provenance(translation.vega_lite, input_hash(source), identity(),  # usermeta.chartc: versions, hashes
                               lookups)
    warnings = (*(p for p in problems if isinstance(p, SpecWarning)), *translation.warnings)
    return Compiled(chart, document, vega_lite, fits, warnings, source, flow, translation.origins)


def check_drawn(compiled: Compiled, svg: bytes | None = None) -> list[SpecWarning]:
    """What the renderer drew of a compiled chart, against its spec (the scene stage).

    Reads the chart's SVG: the one just rendered when given (an SVG export,
    or the SVG a PNG is rasterised from), else one rendered for the check.

    Args:
        compiled: from `compile_spec`.
        svg: the chart's SVG export (`export_bytes(compiled, "svg")`), when there is one.

    Returns:
        A `SpecWarning` per difference (a layer that drew fewer marks than
        its rows, an empty facet panel, unreadable axis labels, cut or
        stray text, legend entries drawn alike), placed at its spec node.

    Raises:
        SpecError: the renderer refused the chart, at the spec node that caused it.
    """
    from .stages.scene import check_scene, scene_from_svg

    if svg is None:
        svg = export_bytes(compiled, "svg")
    return check_scene(scene_from_svg(svg), compiled.chart, compiled.flow, compiled.origins)


def export_checked(compiled: Compiled, fmt: str) -> tuple[bytes, list[SpecWarning]]:
    """The bytes of one export format, and the scene check of what the renderer drew.

    An SVG is checked as it is; a PNG is rasterised from the SVG that is
    checked (the same bytes as rendering it directly, `export.png_from_svg`);
    other formats render one SVG more for the check.

    Args:
        compiled: from `compile_spec`.
        fmt: "vl.json", "svg", "png", "pdf" or "html".

    Returns:
        The file content and the scene warnings (`check_drawn`).

    Raises:
        SpecError: the renderer refused the chart, at the spec node that caused it.
    """
    if fmt not in ("svg", "png"):
        return export_bytes(compiled, fmt), check_drawn(compiled)
    svg = export_bytes(compiled, "svg")
    content = svg if fmt == "svg" else png_from_svg(svg, compiled.vega_lite)
    return content, check_drawn(compiled, svg)


def as_errors(warnings) -> list[SpecError]:
    """Warnings reported as errors (``--strict``): the same message, place, hint and code."""
    return [SpecError(w.message, w.path, location=w.location, stage=w.stage, hint=w.hint, code=w.code)
            for w in warnings]


@contextlib.contextmanager
def refusals_as_errors(compiled: Compiled):
    """Inside it, a chart Vega refuses to draw is a positioned `SpecError`, not `export.RenderRefused`.

    The one place a refusal becomes a diagnostic (`verify.render_refusal`:
    what Vega-Lite's compiler refuses as `compile_spec(full=True)` reports it,
    else at the expression or text it names, with a hint), for `export_chart`,
    `chartc compile` and the gallery's workers alike.

    Args:
        compiled: the chart being rendered.

    Raises:
        SpecError: the renderer refused the chart, or gave a PDF that
            cannot be written reproducibly.
    """
    try:
        yield
    except RenderRefused as refusal:
        from .stages.translate import Translation
        from .stages.verify import render_refusal  # the translate stage behind it loads numpy: only on a refusal

        translation = Translation(compiled.vega_lite, compiled.origins) if compiled.origins is not None else None
        raise render_refusal(refusal.reason, compiled.chart, translation) from None
    except UnexpectedPdf as error:  # a PDF qpdf cannot read cleanly is not written: it would not be reproducible
        raise SpecError(error.args[0], (), location=Location(compiled.chart.source.file, 1, 1),
                        stage="render") from None


def export_bytes(compiled: Compiled, fmt: str) -> bytes:
    """The bytes of one export format of a compiled chart.

    Args:
        compiled: from `compile_spec`.
        fmt: "vl.json", "svg", "png", "pdf" or "html".

    Returns:
        The file content.

    Raises:
        SpecError: the renderer refused the chart, at the spec node that caused it.
    """
    with refusals_as_errors(compiled):
        return render(compiled.vega_lite, fmt)


def export_chart(compiled: Compiled, out: str | os.PathLike) -> Path:
    """Render a compiled chart to a file; the format follows the suffix.

    Nothing is written unless the whole render succeeds (and then atomically).

    Args:
        compiled: from `compile_spec`.
        out: the output path (.vl.json, .json, .svg, .png, .pdf or .html).

    Returns:
        The path written.

    Raises:
        SpecError: the renderer refused the chart (say, a name Vega does not
            know in a label expression), at the spec node that caused it; the
            only error a chart itself causes here.
        ValueError: the suffix names no export format (a caller's mistake, before anything is rendered).
        OSError: the file cannot be written.
    """
    fmt = export_format(out)
    if fmt is None:
        raise ValueError(f"cannot tell the export format of {str(out)!r}")
    write_atomic(out, export_bytes(compiled, fmt))
    return Path(out)


def fits_json(compiled: Compiled) -> str:
    """The fitted trends of a chart as canonical JSON (the ``--fits`` sidecar, the gallery's ``.fits.json``).

    Carries the chart's provenance under ``chartc`` like every other export.
    """
    import json

    from .errors import format_path
    from .infra.provenance import provenance
    from .trends.fitting import trend_summary  # numpy: loaded already where charts are compiled

    layers = [
        {"layer": format_path(path), "fits": [trend_summary(line) for line in lines]}
        for path, lines in compiled.fits.items()
    ]
    document = {"trends": layers}
    block = provenance(compiled.vega_lite)
    if block:
        document["chartc"] = block
    return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
