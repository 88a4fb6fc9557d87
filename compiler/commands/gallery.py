"""The gallery: every spec rendered to every format, an index page and a manifest.

Built only on `pipeline`: a chart's .vl.json, .svg and .png are exactly what
`chartc compile` makes of the same spec. Its .html is the chart's gallery page:
the interactive chart (tooltips on), its spec source beside it, the fitted
trends and download links. The pages share one ``vega-bundle.js`` (Vega,
Vega-Lite and vega-embed, ~0.9 MB) by relative path instead of embedding it
each: still offline, no CDN, and the gallery stays small in git.

Builds are incremental and git-friendly:

- ``manifest.json`` records, per chart, the hashes of its inputs (spec file,
  data file or dataset) and of every output, plus the tool versions. A chart
  whose inputs, tools and outputs all match is not rendered again, so a build
  that changes nothing imports neither altair, pandas nor vl-convert.
- `check_gallery` (``chartc build --check``) writes nothing and lists every
  stale, missing or orphaned output, from hashes alone.
- Each output is recorded with the hashes of the exact spec and data bytes
  it was compiled from (read once, the data hashed before its rows are read),
  so a file saved during a build leaves its chart stale for the next one.
- One build per folder at a time: a build holds an OS lock on
  ``.chartc-build.lock`` in the folder (holding its pid) and a second one
  stops at once, writing nothing. ``--check`` takes no lock.
- Writes are staged: every new output and the manifest go to this build's own
  folder under ``.chartc-staging/`` first and are renamed into place only
  once all of them are written (a full disk or a read-only folder fails
  there, changing nothing), the manifest last. A build killed while
  rendering leaves every previous file byte-identical; the next build removes
  what it staged. No other file is ever taken for a temporary one.
- Charts are compiled and rendered in warm worker processes (`workers`,
  ``--jobs``): a chart that aborts or hangs the renderer fails alone (its
  previous outputs are kept) and the others build; the bytes do not depend
  on the number of workers or on which one rendered what.
- The gallery's charts are the specs given plus those already in the manifest
  whose spec file still exists; a chart whose spec file is gone is removed.
  Only files the manifest says chartc wrote are ever deleted, and the
  manifest is checked first (`manifest.load_manifest`): it comes from the
  repository, and an entry that names anything but a chart's own outputs in
  this folder, or an input outside the project, stops the build.
"""

from __future__ import annotations

import contextlib
import errno
import html
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

try:
    import fcntl
except ImportError:  # Windows: a byte-range lock from msvcrt instead
    fcntl = None
    import msvcrt

from .. import errors as msg
from ..errors import Location, SpecError, SpecWarning, format_path
from ..infra.files import StagingArea, leftovers, process_alive, read_bounded, remove_leftovers
from ..infra.jsonout import html_safe_json
from ..infra.provenance import output_hash, provenance
# Used as `export.render(...)`, looked up at each call: a worker's warm-up may put a wrapper in its place.
from ..render import export
from ..render.workers import Outcome, preload, raised, shared_pool, warm_renderer
from .manifest import (BUNDLE_NAME, INDEX_NAME, MANIFEST_NAME, MAX_TITLE_CHARS, SHARED_OUTPUTS, STYLE_NAME,
                       ChartRecord, Manifest, ManifestError, chart_inputs, check_manifest_files,
                       current_input_hash, file_output_hash, load_manifest, manifest_problem, project_roots,
                       relative_to, tool_differences, toolchain, tools_changed)

GALLERY_FORMATS = ("vl.json", "svg", "png", "html")
# SHARED_OUTPUTS (the bundle and the stylesheet) are outputs every chart's page
# needs and no chart owns alone: each chart record lists them (so they go only
# with the last chart), `check` reports them once.
LOCK_NAME = ".chartc-build.lock"
# What a worker imports before its first chart (`render_chart` compiles with
# them), so a chart's timeout measures its own compile and render.
RENDER_MODULES = ("chartc.commands.gallery", "chartc.pipeline", "chartc.stages.fit", "chartc.stages.translate",
                  "chartc.stages.verify")


@dataclass
class BuildReport:
    """What a build or check did: lines for stdout, problems for stderr."""

    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    failed: bool = False
    rendered: list[str] = field(default_factory=list)  # stems rendered in this build
    failures: dict[str, SpecError] = field(default_factory=dict)  # stem -> its problems (for `chartc serve`)
    removed: list[str] = field(default_factory=list)   # file names deleted
    locked: bool = False  # another build held the folder: nothing was done (`chartc serve` tries again)


@dataclass
class _Chart:
    """One chart of the gallery being built: where its spec is, what is recorded."""

    stem: str
    spec: Path                   # as the user gave it (for messages)
    record: ChartRecord | None   # from the previous manifest
    reasons: list[str]           # why it is stale; empty when up to date
    output_reasons: dict[str, str] = field(default_factory=dict)  # file -> why that file is stale


def output_stem(spec: Path) -> str:
    """The name a spec's outputs share: ``specs/cars.yaml`` -> ``cars``."""
    return Path(spec).name.split(".")[0]


def fits_json(compiled) -> str:
    """The fitted trends of a chart as canonical JSON (for `--fits` and the gallery).

    Carries the chart's provenance under ``chartc`` like every other export.
    """
    from ..trends.fitting import trend_summary  # numpy: loaded already where charts are compiled

    layers = [
        {"layer": format_path(path), "fits": [trend_summary(line) for line in lines]}
        for path, lines in compiled.fits.items()
    ]
    document = {"trends": layers}
    block = provenance(compiled.vega_lite)
    if block:
        document["chartc"] = block
    return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def chart_outputs(compiled) -> dict[str, bytes]:
    """File name suffix -> content for one chart (the PNG rasterised from the SVG: one Vega run)."""
    outputs = {fmt: export.render(compiled.vega_lite, fmt) for fmt in GALLERY_FORMATS if fmt not in ("png", "html")}
    outputs["png"] = export.png_from_svg(outputs["svg"], compiled.vega_lite)
    outputs["html"] = chart_page(compiled).encode("utf-8")
    if compiled.fits:
        outputs["fits.json"] = fits_json(compiled).encode("utf-8")
    return outputs


def bundle_output() -> bytes:
    """The content of ``vega-bundle.js``, the script every chart page loads."""
    return export.javascript_bundle().encode("utf-8")


# ------------------------------------------------------------------ planning

def _display(key: str, out: Path) -> str:
    """A manifest input key as the user would type it (relative to the cwd)."""
    if key.startswith("dataset:"):
        return key
    return os.path.relpath(os.path.normpath(out / key))


def _plan(specs: list[Path], out: Path, manifest: Manifest, report: BuildReport) -> tuple[list[_Chart], dict[str, ChartRecord]]:
    """Every chart of the gallery with why it is stale, and the orphaned records.

    Reads and hashes inputs and outputs; imports nothing heavy.
    """
    tool_changes = tools_changed(manifest.tools, toolchain()) if manifest.charts else []
    given: dict[str, Path] = {}
    for spec in specs:
        stem = output_stem(spec)
        if f"{stem}.html" == INDEX_NAME:  # the chart page would overwrite the gallery's index
            problem = msg.reserved_output_stem(stem, INDEX_NAME)
            report.problems.append(f"{spec}: error[{problem.code}]: {problem}")
            report.failed = True
            continue
        if stem in given and Path(given[stem]).resolve() != Path(spec).resolve():
            problem = msg.duplicate_output_stem(stem, str(given[stem]))
            report.problems.append(f"{spec}: error[{problem.code}]: {problem}")
            report.failed = True
            continue
        given.setdefault(stem, spec)
    orphans: dict[str, ChartRecord] = {}
    for stem, record in manifest.charts.items():
        if stem in given:
            continue
        if (out / record.spec).is_file():
            given[stem] = Path(os.path.relpath(os.path.normpath(out / record.spec)))
        else:
            orphans[stem] = record

    charts = []
    for stem, spec in sorted(given.items(), key=lambda item: (str(item[1]), item[0])):
        record = manifest.charts.get(stem)
        chart = _Chart(stem, spec, record, [])
        if record is None:
            chart.reasons.append(msg.chart_not_built())
        elif record.spec != relative_to(spec, out):
            chart.reasons.append(msg.chart_spec_moved(_display(record.spec, out)))
        else:
            chart.reasons.extend(f"{msg.chart_tools_changed(change)}" for change in tool_changes)
            for key, recorded in sorted(record.inputs.items()):
                try:
                    now = current_input_hash(key, out)
                except OSError as error:  # too large, not a regular file, no permission
                    chart.reasons.append(msg.chart_input_unreadable(_display(key, out), error.strerror or str(error)))
                    continue
                if now is None:
                    chart.reasons.append(msg.chart_input_missing(_display(key, out)))
                elif now != recorded:
                    chart.reasons.append(msg.chart_input_changed(_display(key, out)))
            for name, recorded in sorted(record.outputs.items()):
                now = file_output_hash(out / name)
                if now is None:
                    chart.output_reasons[name] = msg.output_missing()
                elif now != recorded:
                    chart.output_reasons[name] = msg.output_modified()
        charts.append(chart)
    return charts, orphans


def _index_entries(records: dict[str, ChartRecord]) -> list[tuple[str, str]]:
    return [(stem, record.title) for stem, record in sorted(records.items(), key=lambda i: (i[1].spec, i[0]))]


# --------------------------------------------------------------------- check

def check_gallery(specs: list[Path], out: Path) -> BuildReport:
    """List every stale, missing or orphaned output of a gallery; write nothing.

    Renders nothing either: inputs and outputs are compared by hash with the
    manifest, so this is cheap enough for a pre-commit hook.

    Args:
        specs: the spec files the gallery should hold (besides those already in it).
        out: the gallery folder.

    Returns:
        A report whose `problems` name each bad file; `failed` when there is any.
    """
    out = Path(out)
    report = BuildReport()
    manifest = _checked_manifest(specs, out, report)
    if manifest is None:
        return report
    charts, orphans = _plan(specs, out, manifest, report)
    differences = tool_differences(manifest.tools, toolchain()) if manifest.charts else []
    if differences:  # said once, plainly, before the outputs it makes stale
        report.problems.append(msg.toolchain_differs(str(out), differences))
    bad = 0

    def flag(name: str, problem: str) -> None:
        nonlocal bad
        bad += 1
        report.problems.append(f"{out / name}: {problem}")

    shared_flagged: set[str] = set()
    for chart in charts:
        if chart.record is None:
            for suffix in GALLERY_FORMATS:
                name = f"{chart.stem}.{suffix}"
                exists = (out / name).exists()
                flag(name, msg.output_untracked(str(chart.spec)) if exists else msg.output_not_built(str(chart.spec)))
            continue
        for name in sorted(chart.record.outputs):
            if name in SHARED_OUTPUTS:  # no one chart's inputs decide it: only missing or modified counts
                if name in chart.output_reasons and name not in shared_flagged:
                    shared_flagged.add(name)
                    flag(name, chart.output_reasons[name])
                continue
            if name in chart.output_reasons:
                flag(name, chart.output_reasons[name])
            elif chart.reasons:
                flag(name, msg.output_stale("; ".join(chart.reasons)))
    live = {name for chart in charts if chart.record is not None for name in chart.record.outputs}
    for _stem, record in sorted(orphans.items()):
        for name in sorted(record.outputs):
            if name in live:  # a shared output another chart still uses
                continue
            if (out / name).exists():
                flag(name, msg.output_orphaned(_display(record.spec, out)))
    records = {c.stem: c.record for c in charts if c.record is not None}
    index_now = file_output_hash(out / INDEX_NAME)
    if index_now is None:
        flag(INDEX_NAME, msg.output_missing())
    elif index_now != manifest.index:
        flag(INDEX_NAME, msg.output_modified())
    elif (manifest.index != output_hash(index_page(_index_entries(records)).encode("utf-8"))
          or orphans or len(records) < len(charts)):
        flag(INDEX_NAME, msg.output_stale(msg.index_charts_changed()))
    for path in leftovers(out) + ([out / LOCK_NAME] if _lock_left_over(out) else []):
        flag(os.path.relpath(path, out), msg.output_leftover())

    report.failed = report.failed or bad > 0
    if report.failed:
        report.problems.append(msg.check_failed(bad, str(out)))
    else:
        report.lines.append(msg.check_passed(len(charts), str(out)))
    return report


# --------------------------------------------------------------------- build

def build_gallery(specs: list[Path], out: Path, *, check: bool = False, force: bool = False,
                  jobs: int | None = None, timeout: float | None = None, pool=None) -> BuildReport:
    """Render every stale chart into `out`, with an index page and the manifest.

    Charts are compiled and rendered in warm worker processes (`workers`), so
    a chart that crashes or hangs the renderer is that chart's failure and
    the rest of the gallery still builds. The bytes do not depend on how
    many workers there are or which chart goes where.

    Args:
        specs: spec files; the gallery also keeps charts already in its manifest
            whose spec file still exists, and drops those whose spec is gone.
        out: the gallery folder.
        check: write nothing; see `check_gallery`.
        force: render every chart even when the manifest says it is up to date.
        jobs: worker processes (default: the number of cores; never more than
            there are charts to render). 0 renders in this process, uncontained.
        timeout: seconds one chart may take (default `workers.DEFAULT_TIMEOUT`).
        pool: a `workers.WorkerPool` to render with; `jobs` and `timeout` are
            then ignored. By default the process's `workers.shared_pool`,
            kept warm between builds.

    Returns:
        A report; `failed` is set when a spec has errors or its chart could
        not be rendered (its previous outputs are kept; every other chart is
        still built).
    """
    if check:
        return check_gallery(specs, out)
    out = Path(out)
    report = BuildReport()
    try:
        out.mkdir(parents=True, exist_ok=True)
        lock = _lock(out)
    except BuildLocked as locked:
        report.problems.append(f"{out}: error: {msg.build_locked(str(out), locked.pid)}")
        report.failed = report.locked = True
        return report
    except OSError as error:
        _write_failed(report, error, error.filename or out)
        return report
    try:
        _build_locked(specs, out, report, force=force, jobs=jobs, timeout=timeout, pool=pool)
    finally:
        _unlock(out, lock)
    return report


def _build_locked(specs: list[Path], out: Path, report: BuildReport, *, force, jobs, timeout, pool) -> None:
    """`build_gallery` once this process holds the folder's lock."""
    try:
        for path in remove_leftovers(out):  # no other build runs: whatever is staged was left by a killed one
            report.lines.append(msg.leftover_removed(str(path)))
    except OSError as error:
        _write_failed(report, error, error.filename or out)
        return
    old = _checked_manifest(specs, out, report)
    if old is None:
        return
    charts, orphans = _plan(specs, out, old, report)

    stale = [chart for chart in charts if force or chart.reasons or chart.output_reasons]
    results, bundle = _render_charts(stale, jobs=jobs, timeout=timeout, pool=pool)
    tools = {**old.tools, **toolchain()}
    records: dict[str, ChartRecord] = {}
    contents: dict[str, bytes] = {}  # file name -> new bytes, for rendered charts
    rendered_lines, rendered_stems = [], []
    for chart in charts:
        if chart.stem not in results:  # up to date
            records[chart.stem] = chart.record
            continue
        rendered = _record_chart(chart, results[chart.stem], bundle, out, report)
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

    index = index_page(_index_entries(records)).encode("utf-8")
    contents[INDEX_NAME] = index
    manifest = Manifest(tools, dict(sorted(records.items())), output_hash(index))
    wanted = manifest.owned_files()
    doomed = sorted(name for name in old.owned_files() - wanted
                    if os.path.lexists(out / name) and not _is_folder(out / name))
    writes = {name: data for name, data in contents.items() if file_output_hash(out / name) != output_hash(data)}
    try:
        staging = StagingArea(out)
    except OSError as error:
        _write_failed(report, error, error.filename or out)
        return
    try:
        _commit(out, staging, writes, doomed, manifest.to_bytes())
    except _CommitFailed as failure:
        _write_failed(report, failure.error, failure.path, partly=failure.partly)
        return
    finally:
        staging.discard()
    report.lines.extend(rendered_lines)
    report.rendered.extend(rendered_stems)
    report.lines.extend(msg.output_removed(str(out / name)) for name in doomed)
    report.removed = doomed
    report.lines.append(msg.build_summary(str(out), len(report.rendered), len(records) - len(report.rendered),
                                          len(orphans)))


def _is_folder(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


def _write_failed(report: BuildReport, error: OSError, path, *, partly: bool = False) -> None:
    """Report a file-system fault (read-only folder, full disk) as what it is: no chartc bug.

    Names `path`: the output or folder that could not be written.
    """
    where = os.fsdecode(path)
    reason = error.strerror or str(error)
    message = msg.gallery_partly_written(where, reason) if partly else msg.gallery_unwritable(where, reason)
    report.problems.append(f"chartc: error: {message}")
    report.failed = True


def _checked_manifest(specs: list[Path], out: Path, report: BuildReport) -> Manifest | None:
    """The folder's manifest, every entry checked (an empty one when there is none).

    None, with the diagnostic reported, when an entry is refused.
    """
    try:
        manifest = load_manifest(out) or Manifest()
        check_manifest_files(manifest, out, project_roots(out, specs))
    except ManifestError as error:
        report.problems.append(manifest_problem(out, error).diagnostic())
        report.failed = True
        return None
    return manifest


# ---------------------------------------------------------------------- lock

class BuildLocked(Exception):
    """Another build holds the folder's lock; `pid` is the one it wrote."""

    def __init__(self, pid: str):
        super().__init__(pid)
        self.pid = pid


# Lock files this process holds open. A worker forked during a build would
# share the lock (flock belongs to the open file, which fork shares) and keep
# it past a killed build: a child closes its copies first thing.
_HELD_LOCKS: set[int] = set()


def _drop_inherited_locks() -> None:
    for handle in _HELD_LOCKS:
        with contextlib.suppress(OSError):
            os.close(handle)
    _HELD_LOCKS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_drop_inherited_locks)


def _lock(out: Path) -> int:
    """Take the folder's build lock (``.chartc-build.lock``, an OS lock) and write this pid in it.

    Never waits: a second build into the same folder stops at once.

    Returns:
        The lock file's descriptor (the lock lasts while it is open).

    Raises:
        BuildLocked: another build holds it.
        OSError: the lock file cannot be made (a read-only folder, a full disk).
    """
    path = out / LOCK_NAME
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) \
        | getattr(os, "O_NONBLOCK", 0)
    while True:
        handle = os.open(path, flags, 0o644)
        try:
            if not _try_lock(handle):
                raise BuildLocked(_holder(handle))
            # The last build removes the file on its way out: a lock taken on a
            # file already unlinked would exclude no one, so take it again.
            with contextlib.suppress(FileNotFoundError):
                if os.path.samestat(os.fstat(handle), os.stat(path, follow_symlinks=False)):
                    os.ftruncate(handle, 0)
                    os.write(handle, f"{os.getpid()}\n".encode())
                    _HELD_LOCKS.add(handle)
                    return handle
        except BaseException:
            os.close(handle)
            raise
        os.close(handle)


def _try_lock(handle: int) -> bool:
    if fcntl is None:  # Windows
        try:
            msvcrt.locking(handle, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _holder(handle: int) -> str:
    """The pid the lock's holder wrote (it writes it just after locking: wait a moment for it)."""
    for _ in range(20):
        text = os.pread(handle, 32, 0).decode("ascii", "replace").strip() if hasattr(os, "pread") else ""
        if text.isdigit():
            return text
        time.sleep(0.01)
    return "unknown"


def _unlock(out: Path, handle: int) -> None:
    """Remove the lock file, then let the lock go (closing the file releases it)."""
    with contextlib.suppress(OSError):
        os.unlink(out / LOCK_NAME)
    _HELD_LOCKS.discard(handle)
    os.close(handle)


def _lock_left_over(out: Path) -> bool:
    """Whether a lock file is there whose build no longer runs (for `check`, which takes no lock)."""
    try:
        text = read_bounded(out / LOCK_NAME, 32, follow=False).decode("ascii", "replace").strip()
    except FileNotFoundError:
        return False
    except OSError:  # not a regular file: not chartc's, and nothing a build would remove
        return False
    return not (text.isdigit() and process_alive(int(text)))


def warm_worker() -> None:
    """A gallery worker's warm-up: import the compiler (`RENDER_MODULES`), then start the renderer's engine.

    What `shared_pool` workers do before their first chart; a pool made for
    a build (`build_gallery(pool=...)`) can be given it as its `warm`.
    """
    preload(RENDER_MODULES)
    warm_renderer()


def render_chart(spec: str) -> dict:
    """Compile one spec and render every gallery output of it, as plain data.

    What a worker process runs for each chart (and a build with ``jobs=0``
    in its own process). Everything in the result pickles: bytes per output
    suffix, the chart's title, the hashes of the spec and data bytes it was
    compiled from (read once: a save meanwhile leaves the chart stale), its
    warnings as diagnostic lines, or its problems as `SpecError` fields.
    """
    # The compiler (YAML, numpy, Altair): loaded in the workers (`RENDER_MODULES`), never by a no-op build.
    from ..pipeline import compile_spec
    from ..stages.data import data_source
    from ..stages.verify import render_refusal

    try:
        compiled = compile_spec(spec)
        outputs = chart_outputs(compiled)
    except SpecError as error:
        return {"problems": [_error_fields(problem) for problem in error.errors]}
    except export.RenderRefused as refusal:
        return {"problems": [_error_fields(render_refusal(refusal.reason, compiled.chart))]}
    block = provenance(compiled.vega_lite)
    kind, where = data_source(compiled.chart.data)
    return {
        "outputs": outputs,
        "title": compiled.chart.title,
        "spec_hash": block["spec_hash"],
        "data": (block["data"], block["data_hash"], str(where) if kind == "path" else None),
        "vega_lite": block.get("vega_lite"),
        "warnings": [warning.diagnostic() for warning in compiled.warnings],
    }


def _error_fields(error: SpecError) -> tuple:
    return (isinstance(error, SpecWarning), error.message, error.path, error.location, error.stage,
            error.hint, error.code)


def _error_from(fields: tuple) -> SpecError:
    warning, message, path, location, stage, hint, code = fields
    kind = SpecWarning if warning else SpecError
    return kind(message, path, location=location, stage=stage, hint=hint, code=code)


def _render_charts(charts: list[_Chart], *, jobs, timeout, pool) -> tuple[dict, object]:
    """stem -> `workers.Outcome` of `render_chart` for every chart, and the bundle's.

    The bundle comes from chartc's cache when it is there; otherwise one
    worker makes it (and caches it) beside the charts.
    """
    if not charts:
        return {}, None
    tasks = [(render_chart, (str(chart.spec),)) for chart in charts]
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


def _record_chart(chart: _Chart, outcome, bundle, out: Path, report: BuildReport):
    """A rendered chart's record and outputs; None (with diagnostics reported) when it failed."""
    if outcome.ok and "problems" in outcome.value:
        error = SpecError.collect([_error_from(fields) for fields in outcome.value["problems"]])
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
    report.problems.extend(result["warnings"])
    outputs = {f"{chart.stem}.{suffix}": content for suffix, content in result["outputs"].items()}
    outputs[BUNDLE_NAME] = bundle.value.encode("utf-8")
    outputs[STYLE_NAME] = PAGE_STYLE.encode("utf-8")
    label, data_hash, data_file = result["data"]
    record = ChartRecord(
        spec=relative_to(chart.spec, out),
        title=(result["title"] or chart.stem)[:MAX_TITLE_CHARS],
        inputs=chart_inputs(chart.spec, result["spec_hash"], label, None if data_file is None else Path(data_file),
                            data_hash, out),
        outputs={name: output_hash(content) for name, content in sorted(outputs.items())},
    )
    return record, outputs, result["vega_lite"]


class _CommitFailed(Exception):
    """Writing `path` failed; `partly` when outputs before it were already replaced."""

    def __init__(self, path: Path, error: OSError, partly: bool):
        super().__init__(str(error))
        self.path, self.error, self.partly = path, error, partly


def _commit(out: Path, staging, writes: dict[str, bytes], removals: list[str], manifest: bytes) -> None:
    """Stage every write and the manifest, then rename them all into place, the manifest last.

    Everything is written in full before the first rename, so a full disk or
    a read-only folder changes nothing. A kill before the renames leaves
    every previous file as it was (the next build removes what was staged);
    the manifest goes last, so after a kill during the renames the next build
    sees which outputs are new.

    Raises:
        _CommitFailed: the path that could not be written and why.
    """
    staged: list[tuple[Path, Path]] = []
    names = sorted(writes)
    if file_output_hash(out / MANIFEST_NAME) != output_hash(manifest):
        writes = {**writes, MANIFEST_NAME: manifest}
        names.append(MANIFEST_NAME)
    for name in names:
        target = out / name
        if _is_folder(target):
            raise _CommitFailed(target, IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR)), False)
        try:
            staged.append((staging.stage(name, writes[name]), target))
        except OSError as error:
            raise _CommitFailed(target, error, False) from None
    last = staged.pop() if names and names[-1] == MANIFEST_NAME else None
    replaced = False
    for temp, target in staged:
        try:
            os.replace(temp, target)
        except OSError as error:
            raise _CommitFailed(target, error, replaced) from None
        replaced = True
    for name in removals:
        try:
            (out / name).unlink(missing_ok=True)
        except OSError as error:
            raise _CommitFailed(out / name, error, True) from None
    if last is not None:
        try:
            os.replace(*last)
        except OSError as error:
            raise _CommitFailed(last[1], error, bool(staged or removals)) from None


# --------------------------------------------------------------------- pages

PAGE_STYLE = """\
  body { font-family: system-ui, sans-serif; margin: 24px; color: #222; background: #fff; }
  a { color: #1f5fa8; }
  nav { margin-bottom: 8px; }
  h1 { margin: 0 0 4px; font-size: 1.5rem; }
  .downloads a { margin-right: 10px; }
  .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); gap: 20px; }
  figure { margin: 0; border: 1px solid #ddd; border-radius: 6px; padding: 12px; }
  figure img { width: 100%; height: 220px; object-fit: contain; }
  figcaption a { margin-right: 8px; }
  .chart-page { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
  .chart-page > section { min-width: 0; }
  .source { flex: 1 1 380px; }
  .source pre { background: #f6f8fa; border: 1px solid #ddd; border-radius: 6px; padding: 12px;
                overflow: auto; max-height: 80vh; font-size: 13px; line-height: 1.4; }
  #chart-error { color: #b00020; white-space: pre-wrap; }
  table.fits { border-collapse: collapse; margin-top: 8px; font-size: 14px; }
  table.fits th, table.fits td { border: 1px solid #ddd; padding: 4px 8px; text-align: left; }
  table.fits td.num { text-align: right; font-variant-numeric: tabular-nums; }
"""

INDEX_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>chartc gallery</title>
<link rel="stylesheet" href="{style}">
</head>
<body>
<h1>chartc gallery</h1>
<p>{count}</p>
<div class="grid">
{figures}
</div>
</body>
</html>
"""

CHART_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
{meta}<title>{title} - chartc gallery</title>
<link rel="stylesheet" href="{style}">
</head>
<body>
<nav><a href="index.html">&larr; gallery</a></nav>
<h1>{title}</h1>
<p class="downloads">Download: {downloads}</p>
<main class="chart-page">
<section class="chart">
<div id="chart"></div>
<pre id="chart-error"></pre>
</section>
<section class="source">
<h2>Spec <code>{spec_name}</code></h2>
<pre><code>{source}</code></pre>
</section>
</main>
{fits}<script src="{bundle}"></script>
<script>
  vegaEmbed("#chart", {spec}, {{"actions": false, "renderer": "svg"}})
    .catch(function (error) {{
      document.getElementById("chart-error").textContent = String(error);
      console.error(error);
    }});
</script>
</body>
</html>
"""


def index_page(entries) -> str:
    """The gallery's index: a thumbnail and title per chart, linking to its page.

    Args:
        entries: ``(stem, title)`` pairs in display order.

    Returns:
        The page's HTML (deterministic: the same entries give the same bytes).
    """
    figures = []
    for stem, title in entries:
        name, href = html.escape(stem, quote=True), _href(stem)
        links = " ".join(
            f'<a href="{href}.{fmt}">{label}</a>'
            for fmt, label in (("html", "chart page"), ("svg", "SVG"), ("png", "PNG"), ("vl.json", "Vega-Lite")))
        figures.append(
            f'<figure id="chart-{name}"><a href="{href}.html"><img src="{href}.png" loading="lazy" '
            f'alt="{html.escape(title, quote=True)}"></a>'
            f'<figcaption><a href="{href}.html"><strong>{html.escape(title)}</strong></a><br>{links}</figcaption>'
            "</figure>")
    count = f"{len(entries)} chart{'s' if len(entries) != 1 else ''}"
    return INDEX_PAGE.format(style=STYLE_NAME, count=count, figures="\n".join(figures))


def _href(stem: str) -> str:
    """A chart's name as a relative link: percent-encoded, so ``#``, ``?`` or ``%`` in it stay part of the path."""
    return html.escape(quote(stem, safe=""), quote=True)


def chart_page(compiled) -> str:
    """One chart's gallery page (its ``.html``).

    The interactive chart (vega-embed, tooltips on) beside its spec source,
    the fitted trends as a table, download links, and the chart's provenance
    as ``<meta>`` tags. Loads ``vega-bundle.js`` from the same folder.

    Args:
        compiled: from `pipeline.compile_spec`.

    Returns:
        The page's HTML; the spec's line endings are normalised, so a CRLF
        checkout gives the same bytes.
    """
    stem = output_stem(Path(compiled.document.file))
    title = compiled.chart.title or stem
    title = " ".join(title) if isinstance(title, (list, tuple)) else str(title)
    name = _href(stem)
    downloads = [(f"{name}.svg", "SVG"), (f"{name}.png", "PNG"), (f"{name}.vl.json", "Vega-Lite JSON")]
    if compiled.fits:
        downloads.append((f"{name}.fits.json", "fits JSON"))
    return CHART_PAGE.format(
        meta=export.html_provenance(provenance(compiled.vega_lite)),
        title=html.escape(title),
        style=STYLE_NAME,
        downloads=" ".join(f'<a href="{href}" download>{label}</a>' for href, label in downloads),
        spec_name=html.escape(Path(compiled.document.file).name),
        source=html.escape(_spec_source(compiled.source), quote=False),
        fits=fits_table(compiled),
        bundle=BUNDLE_NAME,
        spec=html_safe_json(with_hover_tooltips(compiled.vega_lite)),
    )


def with_hover_tooltips(vega_lite: dict) -> dict:
    """The chart as its page embeds it: every mark shows its data on hover.

    Only on the page (the .vl.json is untouched): a channel's own ``tooltip``
    encoding still wins, and so does a ``config.mark.tooltip`` the spec sets.
    """
    config = dict(vega_lite.get("config") or {})
    mark = dict(config.get("mark") or {})
    if "tooltip" in mark:
        return vega_lite
    mark["tooltip"] = {"content": "data"}
    config["mark"] = mark
    return {**vega_lite, "config": config}


def _spec_source(raw: bytes) -> str:
    """The spec as the page shows it: the bytes compiled (not the file as it is now), LF line ends, no BOM."""
    text = raw.decode("utf-8", errors="replace")
    return text.removeprefix("\ufeff").replace("\r\n", "\n")


FITS_COLUMNS = (("layer", "Layer"), ("group", "Group"), ("method", "Method"), ("equation", "Equation"),
                ("r2", "R²"), ("adj_r2", "adj. R²"), ("rse", "RSE"), ("n", "n"))


def fits_table(compiled) -> str:
    """The fitted trends of a chart as an HTML table ('' when it has none)."""
    from ..trends.fitting import line_subset, trend_summary  # numpy: loaded already where charts are compiled

    rows = []
    for path, lines in compiled.fits.items():
        for line in lines:
            summary = {"layer": format_path(path), **trend_summary(line), "group": line_subset(line)}
            rows.append("<tr>" + "".join(_fits_cell(key, summary.get(key)) for key, _ in FITS_COLUMNS) + "</tr>")
    if not rows:
        return ""
    header = "".join(f"<th>{html.escape(label)}</th>" for _, label in FITS_COLUMNS)
    return (f'<section class="fits">\n<h2>Fitted trends</h2>\n<table class="fits">\n<thead><tr>{header}</tr></thead>\n'
            f"<tbody>\n" + "\n".join(rows) + "\n</tbody>\n</table>\n</section>\n")


def _fits_cell(key: str, value) -> str:
    if value is None:
        return "<td>&ndash;</td>"
    if isinstance(value, float):
        return f'<td class="num">{value:.4g}</td>' if key != "r2" and key != "adj_r2" else f'<td class="num">{value:.4f}</td>'
    if isinstance(value, int) and not isinstance(value, bool):
        return f'<td class="num">{value}</td>'
    return f"<td>{html.escape(str(value))}</td>"
