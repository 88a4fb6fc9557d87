"""The `chartc` command: parse arguments, call the API, print, exit.

Exit codes: 0 OK, 1 a spec has problems (or outputs are stale), 2 usage error.
Problems print as ``FILE:LINE:COL: error: PATH: message (hint)``, never as a
traceback.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from pathlib import Path

from .. import errors as msg
from ..errors import Location, SpecError, SpecWarning
from ..infra import paths
from ..infra.files import write_atomic
from ..infra.paper import ENGINES, PRESETS
from ..version import __version__
from .daemon import IDLE_MINUTES, run_warm
from .specs import UsageError, spec_files
from .templates import (SCHEMA_COPY, TEMPLATE_NAMES, VSCODE_SETTINGS, project_root, starter_spec,
                        vscode_settings_snippet, write_schema_copy, write_vscode_settings)

# The modules behind each command (the pipeline, the renderer, the gallery, the
# server) are imported when that command runs: `chartc --version` and `chartc
# schema` start without them.

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2
PRESET_NAMES = tuple(PRESETS)

# A fit solves a system of a few unknowns (a loess band's operator is at most 2,000 square), where
# BLAS threads cost more than they save: OpenBLAS starts one per core when numpy is imported, ~25 ms
# of a cold compile's CPU (benchmarks/bench_compile.py), and a build's workers already fill the cores.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS",)  # numpy's wheels bring OpenBLAS; OMP_NUM_THREADS would also narrow Arrow's pool
# A fit's last bits depend on the kernels OpenBLAS picks for the CPU: its AVX-512 ones (SkylakeX) and its AVX2 ones
# (Haswell, which AMD's Zen run too) round a least-squares solve differently, so the same chart had other bytes on
# another machine. Every x86-64 CPU with AVX2 and FMA runs the Haswell kernels; a core the user names is kept.
BLAS_CORE, BLAS_CORE_FLAGS = ("OPENBLAS_CORETYPE", "Haswell"), frozenset({"avx2", "fma"})
# numpy's own loops pick their code by CPU too: where it has AVX-512, a double's exp, log and sine run AVX-512 code,
# a last bit apart from the AVX2 code (a density's curve, an exponential or a loess fit). Those CPUs leave it out,
# so every x86-64 CPU with AVX2 and FMA runs numpy's AVX2 loops (its dispatch targets past X86_V3 disabled).
NUMPY_FEATURES = ("NPY_DISABLE_CPU_FEATURES", "X86_V4 AVX512_ICL AVX512_SPR")

# A cold compile makes ~0.5 M objects that live as long as the process (the classes and schemas of Altair,
# jsonschema and the chart model): at Python's default (a pass every 700 new objects) the cyclic collector
# walks them ~200 times, ~0.1 s of the compile's CPU, and frees almost nothing. A pass every 200,000 (as
# mypy runs) still bounds what cycles can hold in a long `build`, `serve` or `daemon`.
GC_THRESHOLD = 200_000


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return args.run(args)
    except UsageError as error:
        print(f"chartc: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # a bug in chartc: still one line, never a traceback
        print(internal_error(error), file=sys.stderr)
        return EXIT_INVALID


def run() -> None:
    """The `chartc` program: `main`, then an exit that skips the interpreter's teardown.

    A compile loads Altair's ~1,000 schema classes, and freeing them one by
    one at exit takes ~0.1 s of a ~0.6 s cold compile while changing nothing:
    every file chartc writes is written, closed and renamed before `main`
    returns. (mypy ends its runs the same way.)

    BLAS runs one thread and, on x86-64 with AVX2, BLAS and numpy run one
    CPU's kernels unless the user says otherwise (`BLAS_THREADS`,
    `pin_kernels`), and the cyclic garbage collector less often
    (`GC_THRESHOLD`).
    """
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    for name in BLAS_THREADS:
        os.environ.setdefault(name, "1")
    pin_kernels()
    status = run_warm(sys.argv[1:])  # the warm renderer, when one runs (`chartc daemon`)
    if status is None:
        status = main()
    workers = sys.modules.get("chartc.render.workers")
    if workers is not None:  # `chartc serve` keeps a pool: stop it (atexit handlers do not run)
        workers.close_shared_pool()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`chartc compile s.yaml -o - | head`)
            pass
    os._exit(status)


def blas_core(flags: set[str]) -> str | None:
    """The OpenBLAS kernels every CPU with these flags runs alike (`BLAS_CORE`), or None: its own."""
    return BLAS_CORE[1] if BLAS_CORE_FLAGS <= flags else None


def pin_kernels() -> None:
    """On a CPU with AVX2 and FMA, name the kernels OpenBLAS and numpy run on every such CPU (`BLAS_CORE`,
    `NUMPY_FEATURES`), unless the user named others: a fit's bytes are then the same on each. Call it before
    numpy is imported."""
    if blas_core(cpu_flags()) is not None:
        for name, value in (BLAS_CORE, NUMPY_FEATURES):
            os.environ.setdefault(name, value)


def cpu_flags() -> set[str]:
    """The CPU's feature flags, as Linux lists them (none elsewhere: OpenBLAS then picks its own kernels)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("flags"):
                    return set(line.partition(":")[2].split())
    except OSError:
        pass
    return set()


def internal_error(error: BaseException, where: object = None) -> str:
    """The one line printed for an unexpected exception (a bug to report)."""
    prefix = f"{where}: " if where is not None else "chartc: "
    return f"{prefix}error: internal error: {type(error).__name__}: {error} (please report this as a chartc bug)"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chartc", description="Compile declarative chart specs to Vega-Lite, SVG, PNG, PDF and HTML.")
    parser.add_argument("--version", action="version", version=f"chartc {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    validate = commands.add_parser("validate", help="check specs and their data; print every problem")
    validate.add_argument("paths", nargs="+", metavar="PATH", help="spec files or folders")
    validate.add_argument("--full", action="store_true",
                          help="also check the data's values and fit the trends (compiles each spec; slower)")
    validate.set_defaults(run=run_validate)

    compile_ = commands.add_parser("compile", help="compile one spec to one export")
    compile_.add_argument("spec", metavar="SPEC")
    compile_.add_argument("-o", "--out", required=True, metavar="OUT",
                          help="output file: .vl.json, .json, .svg, .png, .pdf or .html; '-' for Vega-Lite JSON on stdout")
    compile_.add_argument("--fits", metavar="FILE", help="also write the fitted trends as JSON")
    compile_.add_argument("--strict", action="store_true",
                          help="report every warning (the scene check's too) as an error: exit 1, write nothing")
    compile_.add_argument("--full", action="store_true",
                          help="for .vl.json: also check what Vega-Lite's own compiler refuses (starts the "
                               "renderer; drawn formats always check it)")
    compile_.add_argument("--preset", choices=PRESET_NAMES, metavar="NAME",
                          help="draw the chart for paper: a venue's size and fonts (over the spec's and chartc.toml's): "
                               + ", ".join(PRESET_NAMES))
    compile_.add_argument("--engine", choices=ENGINES, metavar="NAME",
                          help="where the data is queried: duckdb (default, embedded) or spark (the project's "
                               "chartc.toml [spark] table says where Spark runs); over chartc.toml's engine")
    compile_.set_defaults(run=run_compile)

    build = commands.add_parser("build", help="render every spec and an index page")
    build.add_argument("specs", nargs="*", metavar="SPECS", help="spec files or folders (default: specs/)")
    build.add_argument("--out", default="gallery", metavar="DIR", help="output folder (default: gallery)")
    build.add_argument("--check", action="store_true",
                       help="write nothing; exit 1 listing every stale, missing or orphaned output")
    build.add_argument("--force", action="store_true", help="render every chart, even those up to date")
    build.add_argument("--jobs", "-j", type=int, metavar="N",
                       help="worker processes that render charts (default: the number of cores)")
    build.add_argument("--timeout", type=float, metavar="SECONDS",
                       help="stop a chart that takes longer to render and report it as failed (default: 180)")
    build.add_argument("--strict", action="store_true",
                       help="for CI: render and check every chart; a chart with any warning (the scene check's "
                            "too) fails and keeps its previous outputs")
    build.add_argument("--preset", choices=PRESET_NAMES, metavar="NAME",
                       help="draw every chart for paper with this preset (see compile --preset)")
    build.add_argument("--engine", choices=ENGINES, metavar="NAME",
                       help="where every chart's data is queried (see compile --engine)")
    build.set_defaults(run=run_build)

    diff = commands.add_parser(
        "diff", help="what changed in each chart between two git revisions",
        usage="chartc diff [-h] [--html FILE] [REV_A [REV_B]] [PATHS...]",
        description="Compare the charts of two git revisions (default: HEAD and the working tree). "
                    "Exit 0 when no chart changed, 1 when one did.")
    diff.add_argument("arguments", nargs="*", metavar="REV_OR_PATH",
                      help="revisions (default HEAD, then the working tree), then spec files or folders "
                           "(default: specs/)")
    diff.add_argument("--html", metavar="FILE", help="also write a page with every changed chart before and after")
    diff.set_defaults(run=run_diff)

    schema = commands.add_parser("schema", help="print the JSON Schema of chart specs")
    schema.add_argument("--markdown", action="store_true",
                        help="print the spec reference generated from the schema (docs/reference.md) instead")
    schema.set_defaults(run=run_schema)

    serve = commands.add_parser(
        "serve", help="serve the gallery locally; re-render and reload the page on every save",
        description="Build the gallery into a temporary folder (or --out) and serve it on 127.0.0.1. "
                    "Saving a spec or its data re-renders that chart and reloads the page; a spec with "
                    "problems shows its diagnostics. Ctrl-C stops.")
    serve.add_argument("specs", nargs="*", metavar="SPECS", help="spec files or folders (default: specs/)")
    serve.add_argument("--port", type=int, default=0, metavar="N", help="port to listen on (default: a free one)")
    serve.add_argument("--out", metavar="DIR", help="build into this folder and keep it (default: a temporary one)")
    serve.set_defaults(run=run_serve)

    new = commands.add_parser("new", help="write a commented starter spec",
                              description="Write NAME.yaml from a template: a commented spec that "
                                          "validates and renders as it is (its data ships with chartc). "
                                          "Its $schema points at the project's schemas/chart.schema.json, "
                                          "which is written first when missing (see chartc init).")
    new.add_argument("name", metavar="NAME", help="the spec to write (.yaml is added when missing)")
    new.add_argument("--template", default="scatter", choices=TEMPLATE_NAMES,
                     help="the kind of chart (default: scatter)")
    new.set_defaults(run=run_new)

    init = commands.add_parser(
        "init", help="copy the chart schema into a project, for $schema and editor completion",
        description="Write schemas/chart.schema.json (the schema this chartc validates with) and, when "
                    "there is none, .vscode/settings.json that points VS Code's YAML extension at it. "
                    "Run it again after upgrading chartc to update the copy.")
    init.add_argument("dir", nargs="?", metavar="DIR",
                      help="the project folder (default: the top of the git work tree, else the current folder)")
    init.set_defaults(run=run_init)

    explain = commands.add_parser(
        "explain", help="explain a diagnostic code, such as E451",
        description="Print what a diagnostic code means, its common causes and how to fix them "
                    "(the code's section of docs/diagnostics.md); without a code, list every code.")
    explain.add_argument("code", nargs="?", metavar="CODE", help="a code from a diagnostic, e.g. E451 or W401")
    explain.add_argument("--markdown", action="store_true",
                         help="print every code's explanation as Markdown (docs/diagnostics.md) instead")
    explain.set_defaults(run=run_explain)

    daemon = commands.add_parser(
        "daemon", help="start, stop or ask about the warm renderer that validate and compile reuse",
        description="A background process of yours that keeps the compiler imported and the renderer started: "
                    "while it runs, `chartc validate` and `chartc compile` hand it their work (same output, a "
                    "fraction of a cold start). It listens on a socket in $XDG_RUNTIME_DIR/chartc (else "
                    "chartc-UID in the temporary folder) that only you can use, and exits after --idle minutes "
                    "without a run. CHARTC_WARM=1 starts it on demand; CHARTC_WARM=0 never uses it.")
    daemon.add_argument("action", choices=("start", "stop", "status", "run"),
                        help="start it in the background, stop it, tell whether it runs, or run it here")
    daemon.add_argument("--idle", type=float, default=IDLE_MINUTES, metavar="MINUTES",
                        help=f"exit after this many minutes without a run (default: {IDLE_MINUTES:g})")
    daemon.set_defaults(run=run_daemon)
    return parser


def print_problems(error: SpecError) -> None:
    for problem in error.errors:
        print(problem.diagnostic(), file=sys.stderr)


def run_validate(args) -> int:
    from ..api import load
    from ..pipeline import validate_spec

    status = EXIT_OK
    for path in spec_files(args.paths):
        try:
            if args.full:
                problems = list(load(path).warnings)
            else:
                problems = validate_spec(path)
        except SpecError as error:
            problems = list(error.errors)
        except Exception as error:  # keep checking the other specs
            print(internal_error(error, path), file=sys.stderr)
            status = EXIT_INVALID
            continue
        for problem in problems:
            print(problem.diagnostic(), file=sys.stderr)
            if not isinstance(problem, SpecWarning):
                status = EXIT_INVALID
    return status


def run_compile(args) -> int:
    from ..render.export import export_format

    fmt = "vl.json" if args.out == "-" else export_format(args.out)
    if fmt is None:
        raise UsageError(f"cannot tell the export format of {args.out!r} "
                         "(use .vl.json, .json, .svg, .png, .pdf or .html)")
    if not Path(args.spec).is_file():
        raise UsageError(f"no such spec file: {args.spec}")
    if fmt == "vl.json" and not (args.strict or args.full):  # nothing is drawn: no renderer, no scene check
        return _compile(args, fmt)
    from ..render.workers import RenderFailed, engine_in_worker

    # The renderer starts in a worker while this process compiles; a crash there is an error here.
    try:
        with engine_in_worker():
            return _compile(args, fmt)
    except RenderFailed as failure:
        # args[0]: the failure's message itself, which carries its code (str() would drop it)
        print(SpecError(failure.args[0], (), location=Location(args.spec, 1, 1), stage="render").diagnostic(),
              file=sys.stderr)
        return EXIT_INVALID


def _compile(args, fmt: str) -> int:
    from ..api import load, save_chart

    try:
        # Vega-Lite's compiler checks the chart where it is drawn (`refusals_as_errors`), so a .vl.json
        # starts no renderer for it but under --full.
        chart = load(args.spec, preset=args.preset, full=args.full, engine=args.engine)
    except SpecError as error:
        print_problems(error)
        return EXIT_INVALID
    try:
        # What the renderer drew, against the spec: every rendered format (and .vl.json under --strict).
        out = None if args.out == "-" else args.out
        for warning in save_chart(chart.compiled, out, fmt, fits=args.fits, strict=args.strict):
            print(warning.diagnostic(), file=sys.stderr)
    except SpecError as refused:  # refused by the renderer, or warnings under --strict: placed on the spec
        print_problems(refused)
        return EXIT_INVALID
    except OSError as error:  # a folder that cannot be written, a full disk: the system's fault, not a bug
        where = os.fsdecode(error.filename) if error.filename else args.out
        print(f"chartc: error: {msg.compile_unwritable(where, error.strerror or str(error))}", file=sys.stderr)
        return EXIT_INVALID
    if args.out == "-":
        sys.stdout.write(chart.to_json())
    return EXIT_OK


def run_build(args) -> int:
    from .gallery import build_gallery

    if args.check and (args.force or args.strict):
        raise UsageError(f"--check and --{'force' if args.force else 'strict'} exclude each other")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, not {args.jobs}")
    if args.timeout is not None and not args.timeout > 0:
        raise UsageError(f"--timeout must be a positive number of seconds, not {args.timeout:g}")
    specs = spec_files(args.specs or ["specs"])
    report = build_gallery(specs, Path(args.out), check=args.check, force=args.force, jobs=args.jobs,
                           timeout=args.timeout, strict=args.strict, preset=args.preset, engine=args.engine)
    for line in report.lines:
        print(line)
    for line in report.problems:
        print(line, file=sys.stderr)
    return EXIT_INVALID if report.failed else EXIT_OK


def run_diff(args) -> int:
    from .diff import DiffUsageError, diff_charts, report_html, split_arguments

    try:
        revisions, paths = split_arguments(args.arguments)
        before, after = revisions + ["HEAD", None][len(revisions):]  # defaults: HEAD vs the working tree
        report = diff_charts(before, after, paths)
    except DiffUsageError as error:
        raise UsageError(str(error)) from None
    if report.unmatched:
        raise UsageError(f"neither a revision nor a path at {report.before} or {report.after}: "
                         f"{', '.join(report.unmatched)}")
    for line in report.lines():
        print(line)
    if args.html:
        write_atomic(args.html, report_html(report).encode("utf-8"))
    return EXIT_INVALID if report.changed else EXIT_OK


def run_schema(args) -> int:
    if args.markdown:
        sys.stdout.write(reference_markdown())
        return EXIT_OK
    sys.stdout.write(paths.SCHEMA_PATH.read_text(encoding="utf-8"))
    return EXIT_OK


REFERENCE_TITLE = """\
# chartc spec reference

Every key a chart spec can hold, generated from `schemas/chart.schema.json` by
`chartc schema --markdown` (do not edit: a test fails when this file is stale).

"""


def reference_markdown() -> str:
    """The text of docs/reference.md: a title, then the reference of every schema property."""
    from .reference import schema_reference_markdown

    return REFERENCE_TITLE + schema_reference_markdown()


def run_explain(args) -> int:
    from .explain import close_codes, codes_list, diagnostics_markdown, explain_code

    if args.markdown:
        sys.stdout.write(diagnostics_markdown())
        return EXIT_OK
    if not args.code:
        sys.stdout.write(codes_list())
        return EXIT_OK
    try:
        sys.stdout.write(explain_code(args.code))
    except KeyError:
        raise UsageError(msg.unknown_code(args.code, close_codes(args.code))) from None
    return EXIT_OK


def run_daemon(args) -> int:
    from .daemon import daemon_command

    if not args.idle > 0:
        raise UsageError(f"--idle must be a positive number of minutes, not {args.idle:g}")
    return daemon_command(args.action, args.idle, main)


def run_serve(args) -> int:
    from .serve import serve

    paths = args.specs or ["specs"]
    spec_files(paths)  # a path that does not exist is a usage error
    if not 0 <= args.port <= 65535:
        raise UsageError(msg.serve_port_unavailable(args.port, "not a port number"))
    try:
        return serve(paths, port=args.port, out=args.out)
    except OSError as error:
        raise UsageError(msg.serve_port_unavailable(args.port, error.strerror or str(error))) from None


def run_new(args) -> int:

    path = Path(args.name)
    if path.suffix not in (".yaml", ".yml"):
        path = path.with_name(path.name + ".yaml")
    if path.exists():  # before the schema copy: a refused spec writes nothing
        raise UsageError(msg.new_file_exists(str(path)))
    root = project_root(path.parent)
    schema = root / SCHEMA_COPY
    text = starter_spec(args.template, path, schema)
    if not schema.exists():  # the spec's $schema must resolve; an existing copy is `chartc init`'s to update
        try:
            write_schema_copy(root)
        except OSError as error:
            raise UsageError(_unwritable(error, schema)) from None
        print(msg.new_schema_written(shown_path(schema)))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8", newline="\n") as stream:  # "x": never overwrite
            stream.write(text)
    except FileExistsError:
        raise UsageError(msg.new_file_exists(str(path))) from None
    print(msg.new_written(str(path), args.template))
    return EXIT_OK


def run_init(args) -> int:

    root = Path(args.dir) if args.dir is not None else project_root()
    if root.is_file():
        raise UsageError(msg.init_not_a_folder(args.dir))
    schema_messages = {"written": msg.init_schema_written, "updated": msg.init_schema_updated,
                       "current": msg.init_schema_current, "source": msg.init_schema_is_source}
    settings_messages = {"written": msg.init_settings_written, "configured": msg.init_settings_configured,
                         "exists": lambda path: msg.init_settings_exists(path, vscode_settings_snippet())}
    for write, name, messages in ((write_schema_copy, SCHEMA_COPY, schema_messages),
                                  (write_vscode_settings, VSCODE_SETTINGS, settings_messages)):
        try:
            outcome = write(root)
        except OSError as error:
            raise UsageError(_unwritable(error, root / name)) from None
        print(messages[outcome](shown_path(root / name)))
    return EXIT_OK


def shown_path(path: Path) -> str:
    """A path as printed: relative to the current folder, ``/``-separated on every system."""
    try:
        return Path(os.path.relpath(path)).as_posix()
    except ValueError:  # another drive on Windows
        return str(path)


def _unwritable(error: OSError, path: Path) -> str:
    return msg.project_file_unwritable(str(error.filename or path), error.strerror or str(error))
