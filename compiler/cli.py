"""The `chartc` command: parse arguments, call the API, print, exit.

Exit codes: 0 OK, 1 a spec has problems (or outputs are stale), 2 usage error.
Problems print as ``FILE:LINE:COL: error: PATH: message (hint)``, never as a
traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import SpecError

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


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


class UsageError(Exception):
    """A command line that cannot be carried out as written."""


def _parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="chartc", description="Compile declarative chart specs to Vega-Lite, SVG, PNG, PDF and HTML.")
    parser.add_argument("--version", action="version", version=f"chartc {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    validate = commands.add_parser("validate", help="check specs and their data; print every problem")
    validate.add_argument("paths", nargs="+", metavar="PATH", help="spec files or folders")
    validate.set_defaults(run=run_validate)

    compile_ = commands.add_parser("compile", help="compile one spec to one export")
    compile_.add_argument("spec", metavar="SPEC")
    compile_.add_argument("-o", "--out", required=True, metavar="OUT",
                          help="output file: .vl.json, .json, .svg, .png, .pdf or .html; '-' for Vega-Lite JSON on stdout")
    compile_.add_argument("--fits", metavar="FILE", help="also write the fitted trends as JSON")
    compile_.set_defaults(run=run_compile)

    build = commands.add_parser("build", help="render every spec and an index page")
    build.add_argument("specs", nargs="*", metavar="SPECS", help="spec files or folders (default: specs/)")
    build.add_argument("--out", default="gallery", metavar="DIR", help="output folder (default: gallery)")
    build.add_argument("--check", action="store_true", help="write nothing; exit 1 if any output is stale")
    build.set_defaults(run=run_build)

    schema = commands.add_parser("schema", help="print the JSON Schema of chart specs")
    schema.set_defaults(run=run_schema)
    return parser


def spec_files(paths: list[str]) -> list[Path]:
    """Spec files named directly, or found (*.yaml, *.yml, *.json) in folders, sorted."""
    found: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml", ".json")
                                and p.is_file() and "data" not in p.relative_to(path).parts[:-1]))
        elif path.exists():
            found.append(path)
        else:
            raise UsageError(f"no such file or folder: {name}")
    return found


def print_problems(error: SpecError) -> None:
    for problem in error.errors:
        print(problem.diagnostic(), file=sys.stderr)


def run_validate(args) -> int:
    from .pipeline import compile_spec

    status = EXIT_OK
    for path in spec_files(args.paths):
        try:
            compiled = compile_spec(path)
        except SpecError as error:
            print_problems(error)
            status = EXIT_INVALID
            continue
        for warning in compiled.warnings:
            print(warning.diagnostic(), file=sys.stderr)
    return status


def run_compile(args) -> int:
    from .export import export_format, render, write_atomic
    from .pipeline import compile_spec
    from .translate import canonical_json

    fmt = "vl.json" if args.out == "-" else export_format(args.out)
    if fmt is None:
        raise UsageError(f"cannot tell the export format of {args.out!r} "
                         "(use .vl.json, .json, .svg, .png, .pdf or .html)")
    if not Path(args.spec).is_file():
        raise UsageError(f"no such spec file: {args.spec}")
    try:
        compiled = compile_spec(args.spec)
    except SpecError as error:
        print_problems(error)
        return EXIT_INVALID
    for warning in compiled.warnings:
        print(warning.diagnostic(), file=sys.stderr)
    if args.out == "-":
        sys.stdout.write(canonical_json(compiled.vega_lite))
    else:
        write_atomic(args.out, render(compiled.vega_lite, fmt))
    if args.fits:
        from .gallery import fits_json

        write_atomic(args.fits, fits_json(compiled).encode("utf-8"))
    return EXIT_OK


def run_build(args) -> int:
    from .gallery import build_gallery

    specs = spec_files(args.specs or ["specs"])
    report = build_gallery(specs, Path(args.out), check=args.check)
    for line in report.lines:
        print(line, file=sys.stderr if report.failed else sys.stdout)
    return EXIT_INVALID if report.failed else EXIT_OK


def run_schema(args) -> int:
    from .validate import SCHEMA_PATH

    sys.stdout.write(SCHEMA_PATH.read_text(encoding="utf-8"))
    return EXIT_OK
