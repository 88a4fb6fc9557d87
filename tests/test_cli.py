"""The `chartc` command: exit codes, output streams, and every diagnostic of tests/cases/invalid.

Each ``tests/cases/invalid/<name>.yaml`` (or ``.json``) has beside it the
exact stderr of ``chartc validate tests/cases/invalid/<name>.yaml`` run from
the repository root (``pytest --update-golden`` rewrites them for review).
Most tests call `cli.main` in-process; a few run ``python -m chartc`` to
check the real process: exit status, streams, no traceback.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys

import pytest

from chartc.commands import cli
from chartc.infra.jsonout import canonical_json
from chartc.infra.paths import SCHEMA_PATH

from conftest import ROOT, assert_golden, label

INVALID = ROOT / "tests" / "cases" / "invalid"
CASES = sorted(p for p in INVALID.iterdir() if p.suffix in (".yaml", ".json"))
GOOD_SPEC = "specs/cars_histogram.yaml"


def chartc(*args: str) -> subprocess.CompletedProcess:
    """Run ``python -m chartc ARGS`` from the repository root."""
    return subprocess.run([sys.executable, "-m", "chartc", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def run(monkeypatch, capsys):
    """Run the CLI in-process from the repository root: (exit code, stdout, stderr)."""
    monkeypatch.chdir(ROOT)

    def call(*args: str):
        code = cli.main(list(args))
        out, err = capsys.readouterr()
        return code, out, err
    return call


# ------------------------------------------------------------------ invalid specs

def test_there_are_enough_invalid_cases():
    assert len(CASES) >= 15
    assert any(p.suffix == ".json" for p in CASES)
    assert [p.name for p in CASES if not p.with_suffix(".txt").exists()] == []


# Problems with the data's values, found by `validate --full` (which compiles)
# but not by the light `validate`, which reads column names only.
VALUE_CASES = {"log_scale_zero.yaml", "pivot_column.yaml"}  # a pivot's columns are values too


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_invalid_spec_diagnostics(case, run, update_golden):
    code, out, err = run("validate", "--full", str(case.relative_to(ROOT)))
    assert (code, out) == (cli.EXIT_INVALID, "")
    assert_golden(case.with_suffix(".txt"), err, update_golden)
    assert "Traceback" not in err
    for line in err.splitlines():
        assert line.startswith(f"{case.relative_to(ROOT)}:") and re.search(r": error\[E[1-8]\d\d\]: ", line)


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_light_validate_finds_the_same_problems(case, run):
    code, out, err = run("validate", str(case.relative_to(ROOT)))
    if case.name in VALUE_CASES:
        assert (code, out, err) == (cli.EXIT_OK, "", "")
    else:
        assert (code, out, err) == (cli.EXIT_INVALID, "", case.with_suffix(".txt").read_text(encoding="utf-8"))


def test_light_validate_imports_no_heavy_module():
    probe = ("import sys; from chartc.commands import cli; cli.main(['validate', 'specs']); "
             "print(sorted(m for m in ('pandas', 'altair', 'vl_convert', 'numpy') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stderr


def compile_loads(output, modules: tuple) -> list:
    """Which of `modules` a fresh process has imported after compiling the seed chart to `output` (exit 0)."""
    probe = ("import sys; from chartc.commands import cli; "
             f"code = cli.main(['compile', 'specs/seed_pretraining.yaml', '-o', {str(output)!r}]); "
             f"print(code, sorted(m for m in {modules!r} if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True)
    code, loaded = result.stdout.strip().split(" ", 1)
    assert code == "0", result.stderr
    return ast.literal_eval(loaded)


def test_compile_to_json_imports_neither_the_renderer_nor_masked_arrays(tmp_path):
    """The Vega-Lite path starts no renderer, and counting a fit's distinct x loads no numpy.ma (np.unique would)."""
    assert compile_loads(tmp_path / "x.vl.json", ("pandas", "scipy", "vl_convert", "numpy.ma")) == []
    assert (tmp_path / "x.vl.json").read_bytes() == (ROOT / "tests/golden/seed_pretraining.vl.json").read_bytes()


@pytest.mark.slow
def test_compile_without_bands_imports_neither_pandas_nor_scipy(tmp_path):
    """A cold compile's own imports are its cost: no pandas (rows are a Table), no scipy (numpy solves)."""
    assert compile_loads(tmp_path / "x.svg", ("pandas", "scipy", "dateutil")) == []
    assert (tmp_path / "x.svg").read_bytes().startswith(b"<svg")


def test_validate_prints_every_problem_in_file_order(run):
    code, _, err = run("validate", "tests/cases/invalid/several_errors.yaml")
    lines = err.splitlines()
    positions = [tuple(int(n) for n in line.split(":")[1:3]) for line in lines]
    assert code == 1 and len(lines) == 7 and positions == sorted(positions)


@pytest.mark.slow
def test_validate_a_folder_in_a_real_process():
    result = chartc("validate", "--full", "tests/cases/invalid")
    assert result.returncode == 1 and result.stdout == ""
    assert "Traceback" not in result.stderr
    expected = "".join(case.with_suffix(".txt").read_text(encoding="utf-8") for case in CASES)
    assert result.stderr == expected


# ------------------------------------------------------------------ validate

def test_validate_valid_specs(run):
    code, out, err = run("validate", GOOD_SPEC, "specs/iris_facets.yaml")
    assert (code, out, err) == (0, "", "")


def test_validate_missing_path_is_a_usage_error(run):
    code, _, err = run("validate", "specs/nope.yaml")
    assert code == cli.EXIT_USAGE and err == "chartc: error: no such file or folder: specs/nope.yaml\n"


def test_an_internal_error_is_one_line_not_a_traceback(run, monkeypatch):
    import chartc.pipeline

    def broken(path):
        raise RuntimeError("boom")

    monkeypatch.setattr(chartc.pipeline, "validate_spec", broken)
    code, _, err = run("validate", GOOD_SPEC)
    assert code == 1
    assert err == cli.internal_error(RuntimeError("boom"), GOOD_SPEC) + "\n"
    assert "internal error: RuntimeError: boom" in err


# ------------------------------------------------------------------ compile

@pytest.mark.slow
def test_compile_to_stdout_in_a_real_process():
    result = chartc("compile", GOOD_SPEC, "-o", "-")
    assert result.returncode == 0 and result.stderr == ""
    from chartc import compile_spec

    assert result.stdout == canonical_json(compile_spec(ROOT / GOOD_SPEC).vega_lite)
    json.loads(result.stdout)


@pytest.mark.parametrize("suffix, magic", [(".svg", b"<svg"), (".png", b"\x89PNG"), (".vl.json", b"{\n")])
def test_compile_writes_the_format_of_the_suffix(run, tmp_path, suffix, magic):
    out = tmp_path / f"chart{suffix}"
    code, stdout, err = run("compile", GOOD_SPEC, "-o", str(out))
    assert (code, stdout, err) == (0, "", "")
    assert out.read_bytes().startswith(magic)


def test_compile_bad_suffix_is_a_usage_error(run, tmp_path):
    code, _, err = run("compile", GOOD_SPEC, "-o", str(tmp_path / "chart.txt"))
    assert code == cli.EXIT_USAGE and err.startswith("chartc: error: cannot tell the export format")
    assert not (tmp_path / "chart.txt").exists()


def test_compile_missing_spec_is_a_usage_error(run, tmp_path):
    code, _, err = run("compile", "specs/nope.yaml", "-o", str(tmp_path / "x.svg"))
    assert code == cli.EXIT_USAGE and "no such spec file" in err


def test_compile_invalid_spec_prints_diagnostics_and_writes_nothing(run, tmp_path):
    out = tmp_path / "x.svg"
    code, stdout, err = run("compile", "tests/cases/invalid/misspelled_mark.yaml", "-o", str(out))
    assert (code, stdout) == (cli.EXIT_INVALID, "")
    assert err == (INVALID / "misspelled_mark.txt").read_text(encoding="utf-8")
    assert not out.exists()


def test_compile_to_stdout_prints_nothing_when_fits_cannot_be_written(run, tmp_path):
    import errno
    import os

    from chartc import errors as msg

    folder = tmp_path / "fits"
    folder.mkdir()
    code, stdout, err = run("compile", GOOD_SPEC, "-o", "-", "--fits", str(folder))
    assert (code, stdout) == (cli.EXIT_INVALID, "")  # the chart and its fits, or neither
    assert err == f"chartc: error: {msg.compile_unwritable(str(folder), os.strerror(errno.EISDIR))}\n"


# ------------------------------------------------------------------ usage

def test_argument_errors_exit_2_in_a_real_process():
    for args in ([], ["frobnicate"], ["compile", GOOD_SPEC]):
        result = chartc(*args)
        assert result.returncode == 2, args
        assert "Traceback" not in result.stderr and result.stderr


def test_schema_prints_the_json_schema(run):
    code, out, _ = run("schema")
    assert code == 0 and out == SCHEMA_PATH.read_text(encoding="utf-8")
    assert json.loads(out)["title"] == "chartc chart spec"


def test_version(monkeypatch, capsys):
    from chartc import __version__

    with pytest.raises(SystemExit) as exited:
        cli.main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"chartc {__version__}\n"


def test_compile_to_vega_lite_json_never_calls_the_renderer(run, tmp_path, monkeypatch):
    """A .vl.json needs no JavaScript engine: the bytes are the chart's, with every renderer call refused."""
    from chartc.render import export

    def no_engine():
        raise AssertionError("the renderer was started for a .vl.json")

    monkeypatch.setattr(export, "engine", no_engine)
    out = tmp_path / "seed.vl.json"
    code, stdout, err = run("compile", "specs/seed_pretraining.yaml", "-o", str(out))
    assert (code, stdout, err) == (0, "", "")
    assert out.read_bytes() == (ROOT / "tests" / "golden" / "seed_pretraining.vl.json").read_bytes()


@pytest.mark.slow
def test_what_vega_lites_compiler_refuses_is_found_where_the_chart_is_drawn_or_under_full(run, tmp_path):
    """Vega-Lite's JSON schema takes a boxplot without a continuous axis; its compiler does not.

    A compile to .vl.json leaves that check out (it would start the renderer): `--full`,
    `validate --full`, every drawn format and the gallery report it, all with the same diagnostic.
    """
    from chartc import compile_spec, errors as msg
    from chartc.commands.gallery.run import render_chart
    from chartc.errors import SpecError

    spec = tmp_path / "box.yaml"
    spec.write_text("data: {values: [{x: 1}]}\nmark: boxplot\n", encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        compile_spec(spec)
    [problem] = caught.value.errors
    assert (problem.path, problem.message) == (("mark",), msg.vega_lite_refused("Need a valid continuous axis for boxplots"))
    expected = problem.diagnostic() + "\n"

    assert run("compile", str(spec), "-o", str(tmp_path / "box.vl.json"))[0] == 0  # not checked: no renderer
    for args in (["compile", "--full", str(spec), "-o", str(tmp_path / "full.vl.json")],
                 ["validate", "--full", str(spec)],
                 ["compile", str(spec), "-o", str(tmp_path / "box.svg")],
                 ["compile", str(spec), "-o", str(tmp_path / "box.png")]):
        assert run(*args) == (cli.EXIT_INVALID, "", expected), args
    assert not (tmp_path / "full.vl.json").exists() and not (tmp_path / "box.svg").exists()
    assert [p.diagnostic() for p in render_chart(str(spec)).problems] == [problem.diagnostic()]


def test_a_chart_the_renderer_refuses_is_a_diagnostic_not_a_stack(run, tmp_path):
    # Vega-Lite compiles this label expression; Vega refuses the bare name `x` only when drawing. (A bare
    # name in a filter or calculate is refused earlier, by the parse stage: tests/test_ir.py.)
    spec = tmp_path / "bare.yaml"
    spec.write_text('data: {values: [{a: 1, b: 2}]}\nmark: point\nencoding: {x: a, y: b}\n'
                    'vega_lite: {encoding: {x: {axis: {labelExpr: "x"}}}}\n')
    out = tmp_path / "bare.svg"
    code, stdout, err = run("compile", str(spec), "-o", str(out))
    from chartc import errors as msg

    reason = 'Unrecognized signal name: "x"'
    expected = (f"{spec}:4:35: {label(msg.render_refused(reason))}: vega_lite.encoding.x.axis.labelExpr: {msg.render_refused(reason)} "
                f"({msg.render_refused_hint()})\n")
    assert (code, stdout, err) == (cli.EXIT_INVALID, "", expected)
    assert not out.exists() and list(tmp_path.iterdir()) == [spec]
