"""Running a gallery build: the folder locked, the stale charts rendered in worker processes, the result committed.

`build_gallery` is the build: it takes the folder's lock (`lock`), plans
which charts are stale (`plan`), renders them in warm worker processes
(`workers`, ``--jobs``), and commits every new output and the manifest at
once (`commit`). `render_chart` is what a worker runs per chart.

- A chart that aborts or hangs the renderer fails alone (its previous
  outputs are kept) and the others build; the bytes do not depend on the
  number of workers or on which one rendered what.
- Each output is recorded with the hashes of the exact spec and data bytes
  it was compiled from (read once, the data hashed before its rows are read),
  so a file saved during a build leaves its chart stale for the next one.
- Only files the manifest says chartc wrote are ever deleted.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ... import errors as msg
from ...errors import Location, SpecError
from ...infra.files import remove_leftovers
from ...infra.paper import project_file
from ...infra.provenance import input_hash, output_hash, provenance
# Used as `export.render(...)`, looked up at each call: a worker's warm-up may put a wrapper in its place.
from ...render import export
from ...render.workers import Outcome, preload, raised, shared_pool, warm_renderer
from ..manifest import (BUNDLE_NAME, INDEX_NAME, MAX_TITLE_CHARS, STYLE_NAME, ChartRecord, Manifest, chart_inputs,
                        file_output_hash, relative_to, toolchain)
from .commit import CommitFailed, commit_outputs, is_folder
from .lock import BuildLocked, release_lock, take_lock
from .pages import PAGE_STYLE, chart_page, fits_json, index_entries, index_page
from .plan import GALLERY_FORMATS, BuildReport, PlannedChart, check_gallery, checked_manifest, plan_charts

# What a worker imports before its first chart (`render_chart` compiles with
# them), so a chart's timeout measures its own compile and render.
RENDER_MODULES = ("chartc.commands.gallery.run", "chartc.pipeline", "chartc.stages.fit", "chartc.stages.translate",
                  "chartc.stages.verify", "chartc.stages.scene")


def build_gallery(specs: list[Path], out: Path, *, check: bool = False, force: bool = False,
                  jobs: int | None = None, timeout: float | None = None, pool=None,
                  strict: bool = False, preset: str | None = None, engine: str | None = None) -> BuildReport:
    """Render every stale chart into `out`, with an index page and the manifest.

    Charts are compiled and rendered in warm worker processes (`workers`), so
    a chart that crashes or hangs the renderer is that chart's failure and
    the rest of the gallery still builds. The bytes do not depend on how
    many workers there are or which chart goes where.

    Args:
        specs: spec files; the gallery also keeps charts already in its manifest
            whose spec file still exists, and drops those whose spec is gone.
        out: the gallery folder.
        check: write nothing; see `plan.check_gallery`.
        force: render every chart even when the manifest says it is up to date.
        jobs: worker processes (default: the number of cores; never more than
            there are charts to render). 0 renders in this process, uncontained.
        timeout: seconds one chart may take (default `workers.DEFAULT_TIMEOUT`).
        pool: a `workers.WorkerPool` to render with; `jobs` and `timeout` are
            then ignored. By default the process's `workers.shared_pool`,
            kept warm between builds.
        strict: for CI: render and check every chart (as `force`), and fail
            a chart with any warning, the scene check's included (its
            previous outputs are kept).
        preset: a paper preset for every chart (``--preset``), over the specs' and the project's;
            recorded as an input, so a build with another preset, or none, renders the charts again.
        engine: where every chart's data is queried (``--engine``), over the project's; not an input:
            every engine draws the same bytes.

    Returns:
        A report; `failed` is set when a spec has errors or its chart could
        not be rendered (its previous outputs are kept; every other chart is
        still built).
    """
    if check:
        return check_gallery(specs, out, preset)
    out = Path(out)
    report = BuildReport()
    try:
        out.mkdir(parents=True, exist_ok=True)
        lock = take_lock(out)
    except BuildLocked as locked:
        report.problems.append(f"{out}: error: {msg.build_locked(str(out), locked.pid)}")
        report.failed = report.locked = True
        return report
    except OSError as error:
        _write_failed(report, error, error.filename or out)
        return report
    try:
        _build_locked(specs, out, report, force=force or strict, jobs=jobs, timeout=timeout, pool=pool,
                      strict=strict, preset=preset, engine=engine)
    finally:
        release_lock(out, lock)
    return report


def _build_locked(specs: list[Path], out: Path, report: BuildReport, *, force, jobs, timeout, pool,
                  strict, preset=None, engine=None) -> None:
    """`build_gallery` once this process holds the folder's lock."""
    try:
        for path in remove_leftovers(out):  # no other build runs: whatever is staged was left by a killed one
            report.lines.append(msg.leftover_removed(str(path)))
    except OSError as error:
        _write_failed(report, error, error.filename or out)
        return
    old = checked_manifest(specs, out, report)
    if old is None:
        return
    charts, orphans = plan_charts(specs, out, old, report, preset)

    stale = [chart for chart in charts if force or chart.reasons or chart.output_reasons]
    results, bundle = _render_charts(stale, jobs=jobs, timeout=timeout, pool=pool, strict=strict, preset=preset,
                                     engine=engine)
    tools = {**old.tools, **toolchain()}
    records: dict[str, ChartRecord] = {}
    contents: dict[str, bytes] = {}  # file name -> new bytes, for rendered charts
    rendered_lines, rendered_stems = [], []
    for chart in charts:
        if chart.stem not in results:  # up to date
            records[chart.stem] = chart.record
            continue
        rendered = _record_chart(chart, results[chart.stem], bundle, out, report, preset)
        if rendered is None:  # spec errors or a failed render: keep what was there
            if chart.record is not None:
                records[chart.stem] = chart.record
            continue
        record, outputs, vega_lite_version = rendered
        records[chart.stem] = record
        contents.update(outputs)
        if vega_lite_version:
            tools["vega_lite"] = vega_lite_version
        why = "; ".join(chart.reasons or list(chart.output_reasons.values())) or msg.chart_forced()
        rendered_lines.append(msg.chart_rendered(str(chart.spec), why))
        rendered_stems.append(chart.stem)

    index = index_page(index_entries(records)).encode("utf-8")
    contents[INDEX_NAME] = index
    manifest = Manifest(tools, dict(sorted(records.items())), output_hash(index))
    wanted = manifest.owned_files()
    doomed = sorted(name for name in old.owned_files() - wanted
                    if os.path.lexists(out / name) and not is_folder(out / name))
    writes = {name: data for name, data in contents.items() if file_output_hash(out / name) != output_hash(data)}
    try:
        commit_outputs(out, writes, doomed, manifest.to_bytes())
    except CommitFailed as failure:
        _write_failed(report, failure.error, failure.path, partly=failure.partly)
        return
    report.lines.extend(rendered_lines)
    report.rendered.extend(rendered_stems)
    report.lines.extend(msg.output_removed(str(out / name)) for name in doomed)
    report.removed = doomed
    report.lines.append(msg.build_summary(str(out), len(report.rendered), len(records) - len(report.rendered),
                                          len(orphans)))


def _write_failed(report: BuildReport, error: OSError, path, *, partly: bool = False) -> None:
    """Report a file-system fault (read-only folder, full disk) as what it is: no chartc bug.

    Names `path`: the output or folder that could not be written.
    """
    where = os.fsdecode(path)
    reason = error.strerror or str(error)
    message = msg.gallery_partly_written(where, reason) if partly else msg.gallery_unwritable(where, reason)
    report.problems.append(f"chartc: error: {message}")
    report.failed = True


def warm_worker() -> None:
    """A gallery worker's warm-up: import the compiler (`RENDER_MODULES`), then start the renderer's engine.

    What `shared_pool` workers do before their first chart; a pool made for
    a build (`build_gallery(pool=...)`) can be given it as its `warm`.
    """
    preload(RENDER_MODULES)
    warm_renderer()


@dataclass(frozen=True)
class RenderedChart:
    """What `render_chart` sends back from a worker process for one chart.

    Either the chart's outputs and what its manifest record needs, or its
    `problems`: the `SpecError`s (and `SpecWarning`s) themselves, which pickle
    with every field (code, message, spec path, position, stage, hint).
    """

    outputs: dict[str, bytes] = field(default_factory=dict)  # file name suffix -> content
    title: str | None = None
    spec_hash: str = ""                     # of the spec bytes compiled
    data: tuple = ()                        # (label, hash of the data bytes read, data file or None)
    lookups: tuple = ()                     # the same of each lookup's second source
    vega_lite: str | None = None            # the Vega-Lite version the chart was compiled for
    warnings: tuple[str, ...] = ()          # diagnostic lines
    project: tuple = ()                     # (the project's chartc.toml, its hash) when the chart read one
    problems: tuple[SpecError, ...] = ()    # when it has any, nothing else is set


def render_chart(spec: str, strict: bool = False, preset: str | None = None,
                 engine: str | None = None) -> RenderedChart:
    """Compile one spec, render every gallery output of it, and check what was drawn (the scene stage).

    What a worker process runs for each chart (and a build with ``jobs=0``
    in its own process). The spec and data bytes are read once and their
    hashes recorded: a save meanwhile leaves the chart stale.

    Args:
        spec: the spec file.
        strict: report its warnings as errors (then it has no outputs).
        preset: a paper preset over the spec's and the project's (``build --preset``).
        engine: where its data is queried (``build --engine``), over the project's.

    Returns:
        Its outputs, or its problems (a chart the renderer refuses is one,
        placed as `chartc compile` places it); everything in it pickles.
    """
    # The compiler (YAML, numpy, Altair): loaded in the workers (`RENDER_MODULES`), never by a no-op build.
    from ...pipeline import as_errors, check_drawn, compile_spec, refusals_as_errors
    from ...stages.data import chart_lookups, data_source
    from ...stages.data.lookup import source_label

    try:
        compiled = compile_spec(spec, preset, full=False, engine=engine)  # what Vega-Lite's compiler refuses, the render finds
        with refusals_as_errors(compiled):
            outputs = chart_outputs(compiled)
        warnings = [*compiled.warnings, *check_drawn(compiled, outputs["svg"])]  # the SVG just rendered
        if strict and warnings:
            raise SpecError.collect(as_errors(warnings))
    except SpecError as error:
        return RenderedChart(problems=tuple(error.errors))
    block = provenance(compiled.vega_lite)
    kind, where = data_source(compiled.chart.data)
    files: dict = {}  # a lookup's label -> its file, as the chart's own data file is recorded
    for step in chart_lookups(compiled.chart):
        looked, found = data_source(step.data)
        files.setdefault(source_label(step), str(found) if looked == "path" else None)
    return RenderedChart(
        outputs=outputs,
        title=compiled.chart.title,
        spec_hash=block["spec_hash"],
        data=(block["data"], block["data_hash"], str(where) if kind == "path" else None),
        lookups=tuple((entry["data"], entry["data_hash"], files.get(entry["data"])) for entry in block.get("lookups", ())),
        vega_lite=block.get("vega_lite"),
        warnings=tuple(warning.diagnostic() for warning in warnings),
        project=_project_input(spec),
    )


def _project_input(spec: str) -> tuple:
    """(path, hash) of the project's ``chartc.toml`` a spec is compiled under, or ()."""
    path = project_file(spec)
    try:
        return () if path is None else (str(path), input_hash(path.read_bytes()))
    except OSError:
        return ()


def chart_outputs(compiled) -> dict[str, bytes]:
    """File name suffix -> content for one chart (the PNG rasterised from the SVG: one Vega run; a PDF on paper)."""
    outputs = {fmt: export.render(compiled.vega_lite, fmt) for fmt in GALLERY_FORMATS if fmt not in ("png", "html")}
    outputs["png"] = export.png_from_svg(outputs["svg"], compiled.vega_lite)
    outputs["html"] = chart_page(compiled).encode("utf-8")
    if export.paper_dpi(compiled.vega_lite) is not None:  # a figure for paper: the PDF a LaTeX file includes
        outputs["pdf"] = export.render(compiled.vega_lite, "pdf")
    if compiled.fits:
        outputs["fits.json"] = fits_json(compiled).encode("utf-8")
    return outputs


def _render_charts(charts: list[PlannedChart], *, jobs, timeout, pool, strict=False,
                   preset=None, engine=None) -> tuple[dict, object]:
    """stem -> `workers.Outcome` of `render_chart` for every chart, and the bundle's.

    The bundle comes from chartc's cache when it is there; otherwise one
    worker makes it (and caches it) beside the charts.
    """
    if not charts:
        return {}, None
    tasks = [(render_chart, (str(chart.spec), strict, preset, engine)) for chart in charts]
    cached = export.cached_javascript_bundle()
    if cached is None:
        tasks.insert(0, (export.javascript_bundle, ()))  # first: the slowest task starts soonest
    if jobs == 0 and pool is None:  # in this process: no containment, for debugging and tests
        outcomes = []
        for function, args in tasks:
            try:
                outcomes.append(Outcome(value=function(*args)))
            except Exception as error:  # a bug in chartc: that chart's failure, as from a worker
                outcomes.append(Outcome(failure=raised(f"{type(error).__name__}: {error}"), kind="raised"))
    else:
        outcomes = (pool or shared_pool(jobs, timeout, preload=RENDER_MODULES)).run(tasks)
    bundle = outcomes.pop(0) if cached is None else Outcome(value=cached)
    return {chart.stem: outcome for chart, outcome in zip(charts, outcomes)}, bundle


def _record_chart(chart: PlannedChart, outcome, bundle, out: Path, report: BuildReport, preset=None):
    """A rendered chart's record and outputs; None (with diagnostics reported) when it failed."""
    if outcome.ok and outcome.value.problems:
        error = SpecError.collect(outcome.value.problems)
        report.problems.extend(problem.diagnostic() for problem in error.errors)
        report.failed = True
        report.failures[chart.stem] = error
        return None
    if not outcome.ok or not bundle.ok:
        failure = outcome.failure if not outcome.ok else msg.bundle_failed(bundle.failure)
        hint = msg.render_timeout_hint() if outcome.kind == "timeout" else msg.render_failed_hint()
        error = SpecError(failure, (), location=Location(str(chart.spec), 1, 1), stage="render", hint=hint)
        report.problems.append(error.diagnostic())
        report.failed = True
        report.failures[chart.stem] = error
        return None
    result = outcome.value
    report.problems.extend(result.warnings)
    outputs = {f"{chart.stem}.{suffix}": content for suffix, content in result.outputs.items()}
    outputs[BUNDLE_NAME] = bundle.value.encode("utf-8")
    outputs[STYLE_NAME] = PAGE_STYLE.encode("utf-8")
    label, data_hash, data_file = result.data
    record = ChartRecord(
        spec=relative_to(chart.spec, out),
        title=(result.title or chart.stem)[:MAX_TITLE_CHARS],
        inputs=chart_inputs(chart.spec, result.spec_hash, label, None if data_file is None else Path(data_file),
                            data_hash, out, result.project, preset, result.lookups),
        outputs={name: output_hash(content) for name, content in sorted(outputs.items())},
    )
    return record, outputs, result.vega_lite
