"""The pipeline in one place: a spec file in, a compiled chart out.

    text -load-> Document -validate-> (schema errors) -parse-> ChartSpec
         -resolve-> Table of rows -check-> (field errors, warnings)
         -sample-> the rows drawn (`data.sample`; trends are fitted on every row)
         -fit-> trend lines -translate-> Altair -> Vega-Lite dict
         -verify-> (what the renderer would refuse) -provenance-> usermeta.chartc
         -export-> .vl.json / .svg / .png / .pdf / .html

Each stage takes plain data and returns plain data; problems from every stage
are `SpecError`s that point into the spec file. The stages live in
`chartc.stages` (one module each), the renderer in `chartc.render`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .errors import SpecError, SpecWarning
from .infra.files import write_atomic
from .infra.provenance import add_provenance, input_hash
from .infra.table import sample_rows
from .ir.model import ChartSpec, parse_chart
from .render.export import export_format, render, use_utc
from .stages.limits import apply_mark_limits
from .stages.load import Document, read_spec
from .stages.resolve import check_chart, data_identity, read_columns, resolve_data
from .stages.validate import check_schema_reference, validate_document


@dataclass(frozen=True)
class Compiled:
    """The result of the pipeline: the spec, its fits and its Vega-Lite.

    `source` is the spec file's bytes exactly as compiled (read once); the
    provenance block (``usermeta.chartc``) holds their hash and that of the
    data, taken before the rows were read.
    """

    spec: ChartSpec
    document: Document
    vega_lite: dict
    fits: dict = field(default_factory=dict)
    warnings: tuple = ()
    source: bytes = b""


def check_spec(path: str | os.PathLike) -> tuple[ChartSpec, Document]:
    """Load, validate and parse a spec file without touching its data.

    Args:
        path: the spec file (YAML or JSON).

    Returns:
        The parsed chart and its document.

    Raises:
        SpecError: every schema problem, in file order.
    """
    spec, document, _ = _check_source(path)
    return spec, document


def _check_source(path: str | os.PathLike) -> tuple[ChartSpec, Document, bytes]:
    raw, document = read_spec(path)
    problems = validate_document(document)
    if problems:
        raise SpecError.collect(problems)
    return parse_chart(document.data), document, raw


def validate_spec(path: str | os.PathLike) -> list[SpecError]:
    """Check a spec and the names of its data's columns, without compiling it.

    The light check behind `chartc validate`: schema, structure and every
    field reference through the transforms, with no pandas, Altair or
    renderer import. Checks of the data's values (log scales over zero,
    unstyled marker categories, fits) run when the chart is compiled.

    Args:
        path: the spec file (YAML or JSON).

    Returns:
        Every problem found (errors and `SpecWarning`s), in file order.
    """
    try:
        spec, document = check_spec(path)
        return check_schema_reference(document) + check_chart(spec, None, document,
                                                              columns=read_columns(spec, document))
    except SpecError as error:
        return list(error.errors)


def compile_spec(path: str | os.PathLike) -> Compiled:
    """Compile a chart spec file to Vega-Lite.

    Args:
        path: the spec file (YAML or JSON).

    Returns:
        A `Compiled` with the Vega-Lite dict, the fitted trends and any warnings.

    Raises:
        SpecError: the spec or its data has problems (all of them, in file order).
    """
    spec, document, source = _check_source(path)
    # These stages load numpy and Altair: imported here, so `validate_spec` stays light.
    from .stages.fit import fit_chart
    from .stages.translate import translate_chart
    from .stages.verify import check_vega_lite, scrub_table

    data = data_identity(spec, document)  # hashed before the rows are read: a save meanwhile leaves it stale
    table, scrubbed = scrub_table(resolve_data(spec, document), document)  # text that aborts the renderer
    problems = check_schema_reference(document) + scrubbed + check_chart(spec, table, document)
    errors = [p for p in problems if not isinstance(p, SpecWarning)]
    if errors:
        raise SpecError.collect(errors)
    # `data.sample` draws some of the rows; checks above and fits below see them all.
    drawn = sample_rows(table, spec.data.sample) if spec.data.sample is not None else table
    spec = apply_mark_limits(spec, drawn, document)  # refuse too many marks; no per-mark ARIA labels on many
    fits = fit_chart(spec, table, document)
    use_utc()  # before anything starts vl-convert's engine: temporal axes must not depend on TZ
    vega_lite = translate_chart(spec, drawn, fits, document)
    invalid = check_vega_lite(vega_lite, document, drawn)  # what the chart schema lets through but Vega-Lite refuses
    if invalid:
        raise SpecError.collect(invalid)
    vega_lite = add_provenance(vega_lite, input_hash(source), data)  # usermeta.chartc: versions, hashes
    return Compiled(spec, document, vega_lite, fits,
                    tuple(p for p in problems if isinstance(p, SpecWarning)), source)


def export_chart(compiled: Compiled, out: str | os.PathLike) -> Path:
    """Render a compiled chart to a file; the format follows the suffix.

    Args:
        compiled: from `compile_spec`.
        out: the output path (.vl.json, .json, .svg, .png, .pdf or .html).

    Returns:
        The path written.

    Raises:
        ValueError: the suffix names no export format.
    """
    fmt = export_format(out)
    if fmt is None:
        raise ValueError(f"cannot tell the export format of {str(out)!r}")
    write_atomic(out, render(compiled.vega_lite, fmt))
    return Path(out)
