"""Planning a gallery build: which charts, which outputs, and which of them are stale.

A gallery's charts are the specs given plus those already in its manifest
whose spec file still exists; a chart whose spec file is gone is an orphan
(its outputs are removed by the next build). ``manifest.json`` records, per
chart, the hashes of its inputs (spec file, data file or dataset) and of
every output, plus the tool versions: a chart whose inputs, tools and
outputs all match is up to date, so a build that changes nothing imports
neither altair, pandas nor vl-convert. The manifest is checked before it is
trusted (`manifest.load_manifest`): it comes from the repository.

`check_gallery` (``chartc build --check``) writes nothing, takes no lock and
lists every stale, missing or orphaned output, from hashes alone.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ... import errors as msg
from ...errors import SpecError
from ...infra.files import leftovers
from ...infra.paper import project_file
from ...infra.provenance import output_hash
from ..manifest import (GLOB_INPUT, INDEX_NAME, PRESET_INPUT, SHARED_OUTPUTS, ChartRecord, Manifest, ManifestError, check_manifest_files,
                        current_input_hash, file_output_hash, is_data_input, load_manifest, manifest_problem, project_roots,
                        relative_to, tool_differences, toolchain, tools_changed)
from .lock import LOCK_NAME, lock_left_over
from .pages import index_entries, index_page, output_stem

GALLERY_FORMATS = ("vl.json", "svg", "png", "html")
# SHARED_OUTPUTS (the bundle and the stylesheet) are outputs every chart's page
# needs and no chart owns alone: each chart record lists them (so they go only
# with the last chart), `check` reports them once.


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
class PlannedChart:
    """One chart of the gallery being built: where its spec is, what is recorded."""

    stem: str
    spec: Path                   # as the user gave it (for messages)
    record: ChartRecord | None   # from the previous manifest
    reasons: list[str]           # why it is stale; empty when up to date
    output_reasons: dict[str, str] = field(default_factory=dict)  # file -> why that file is stale


def _display(key: str, out: Path) -> str:
    """A manifest input key as the user would type it (relative to the cwd)."""
    if key.startswith("dataset:"):
        return key
    key = key.removeprefix(GLOB_INPUT)  # a glob: its pattern, as a path
    return os.path.relpath(os.path.normpath(out / key))


def plan_charts(specs: list[Path], out: Path, manifest: Manifest,
                report: BuildReport, preset: str | None = None) -> tuple[list[PlannedChart], dict[str, ChartRecord]]:
    """Every chart of the gallery with why it is stale, and the orphaned records.

    Reads and hashes inputs and outputs; imports nothing heavy. A spec whose
    outputs would collide with another's (or with the index) is reported
    and left out.

    Args:
        specs: the spec files given.
        out: the gallery folder.
        manifest: its checked manifest (`checked_manifest`).
        report: where problems go.
        preset: the build's ``--preset``: a chart built without it (or with another) is stale.

    Returns:
        The charts, in spec path order, and stem -> record of every orphan.
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
        chart = PlannedChart(stem, spec, record, [])
        if record is None:
            chart.reasons.append(msg.chart_not_built())
        elif record.spec != relative_to(spec, out):
            chart.reasons.append(msg.chart_spec_moved(_display(record.spec, out)))
        else:
            chart.reasons.extend(f"{msg.chart_tools_changed(change)}" for change in tool_changes)
            for key, recorded in sorted(record.inputs.items()):
                try:
                    now = current_input_hash(key, out, preset, data=is_data_input(record, key), spec=record.spec)
                except OSError as error:  # too large, not a regular file, no permission
                    chart.reasons.append(msg.chart_input_unreadable(_display(key, out), error.strerror or str(error)))
                    continue
                if now is None:
                    chart.reasons.append(msg.chart_input_missing(_display(key, out)))
                elif now != recorded:
                    chart.reasons.append(msg.chart_input_changed(_display(key, out)))
            if preset is not None and PRESET_INPUT + preset not in record.inputs:
                chart.reasons.append(msg.chart_input_missing(PRESET_INPUT + preset))
            project = project_file(spec)
            if project is not None and relative_to(project, out) not in record.inputs:  # a chartc.toml since
                chart.reasons.append(msg.chart_input_changed(_display(relative_to(project, out), out)))
            for name, recorded in sorted(record.outputs.items()):
                now = file_output_hash(out / name)
                if now is None:
                    chart.output_reasons[name] = msg.output_missing()
                elif now != recorded:
                    chart.output_reasons[name] = msg.output_modified()
        charts.append(chart)
    return charts, orphans


def checked_manifest(specs: list[Path], out: Path, report: BuildReport) -> Manifest | None:
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


def check_gallery(specs: list[Path], out: Path, preset: str | None = None) -> BuildReport:
    """List every stale, missing or orphaned output of a gallery; write nothing.

    Renders nothing either: inputs and outputs are compared by hash with the
    manifest, so this is cheap enough for a pre-commit hook.

    Args:
        specs: the spec files the gallery should hold (besides those already in it).
        out: the gallery folder.
        preset: the build's ``--preset`` (`plan_charts`).

    Returns:
        A report whose `problems` name each bad file; `failed` when there is any.
    """
    out = Path(out)
    report = BuildReport()
    manifest = checked_manifest(specs, out, report)
    if manifest is None:
        return report
    charts, orphans = plan_charts(specs, out, manifest, report, preset)
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
    elif (manifest.index != output_hash(index_page(index_entries(records)).encode("utf-8"))
          or orphans or len(records) < len(charts)):
        flag(INDEX_NAME, msg.output_stale(msg.index_charts_changed()))
    for path in leftovers(out) + ([out / LOCK_NAME] if lock_left_over(out) else []):
        flag(os.path.relpath(path, out), msg.output_leftover())

    report.failed = report.failed or bad > 0
    if report.failed:
        report.problems.append(msg.check_failed(bad, str(out)))
    else:
        report.lines.append(msg.check_passed(len(charts), str(out)))
    return report
