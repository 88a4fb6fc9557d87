"""What is installed is what was tested: the lock, the wheel, and a fresh install of it.

The fast tests check that requirements/lock.txt pins every requirement
pyproject.toml declares, and that CI runs the README's test command. The slow
ones build the wheel, install it with its pinned dependencies into a new
virtual environment (no editable install, no source tree on the path), and run
every command there, in a project folder of its own; the charts it compiles
must be the very bytes the checkout compiles.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from chartc import errors as msg
from conftest import ROOT

LOCK = ROOT / "requirements" / "lock.txt"
FORMATS = ("vl.json", "svg", "png", "pdf", "html")
# Every file chartc reads at run time, as it sits in the wheel.
RUNTIME_FILES = ("chartc/schemas/chart.schema.json",
                 *(f"chartc/commands/templates/{name}.yaml" for name in ("scatter", "line", "bar", "trend", "markers")))

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}


# ------------------------------------------------------------------ the lock

def locked_versions() -> dict[str, str]:
    """Package -> version pinned for this interpreter by requirements/lock.txt."""
    pins = {}
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        requirement = Requirement(line.strip())
        if requirement.marker is None or requirement.marker.evaluate():
            (version,) = [spec.version for spec in requirement.specifier if spec.operator == "=="]
            pins[canonicalize_name(requirement.name)] = version
    return pins


def declared_requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
    return [Requirement(line) for line in lines]


def test_the_lock_pins_every_declared_requirement_within_its_range():
    pins = locked_versions()
    environment = default_environment()
    for requirement in declared_requirements():
        if requirement.marker is not None and not requirement.marker.evaluate(environment):
            continue
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is declared in pyproject.toml but not pinned in {LOCK.name}: " \
                             "regenerate the lock (docs/contributing.md)"
        assert requirement.specifier.contains(pins[name], prereleases=True), \
            f"{LOCK.name} pins {name}=={pins[name]}, outside pyproject.toml's {requirement}"


def test_the_tests_run_with_the_locked_versions():
    """The suite itself runs in an environment installed from the lock (the README's command)."""
    from importlib import metadata

    drifted = {name: (version, metadata.version(name)) for name, version in locked_versions().items()
               if _installed(name) and metadata.version(name) != version}
    assert not drifted, f"installed versions differ from {LOCK.name} (locked, installed): {drifted}"


def _installed(name: str) -> bool:
    from importlib import metadata

    try:
        metadata.version(name)
        return True
    except metadata.PackageNotFoundError:
        return False


def readme_commands() -> list[str]:
    """The set-up commands at the top of the README, in order (the ```sh blocks before the first heading)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    head = text.split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", head, re.DOTALL)]


def test_ci_runs_the_readmes_test_command_verbatim():
    install_and_build, test = readme_commands()
    assert "chartc build" in install_and_build and "requirements/lock.txt" in install_and_build
    assert "pytest" in test and "requirements/lock.txt" in test
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.rstrip("\n").splitlines()[-1] == test


# ------------------------------------------------------------------ the wheel

@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel `pip wheel` builds from a copy of the sources (the checkout is left clean)."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for name in ("compiler", "schemas"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(source)],
                   check=True, capture_output=True, timeout=600)
    (built,) = out.glob("chartc-*.whl")
    return built


@pytest.mark.slow
def test_the_wheel_carries_the_package_and_everything_it_reads(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {f"chartc/{p.relative_to(ROOT / 'compiler').as_posix()}" for p in (ROOT / "compiler").rglob("*.py")}
    assert modules <= names
    assert set(RUNTIME_FILES) <= names
    assert (ROOT / "schemas" / "chart.schema.json").read_bytes() == \
        zipfile.ZipFile(wheel).read("chartc/schemas/chart.schema.json")
    assert {name.split("/")[0] for name in names} == {"chartc", wheel.name.split("-py3")[0] + ".dist-info"}
    entry_points = zipfile.ZipFile(wheel).read(wheel.name.split("-py3")[0] + ".dist-info/entry_points.txt")
    assert b"chartc = chartc.commands.cli:run" in entry_points


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A new virtual environment with the wheel and its locked dependencies, nothing else."""
    folder = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=300)
    done = subprocess.run([str(folder / "bin" / "python"), "-m", "pip", "install", "--quiet", "-c", str(LOCK),
                           str(wheel)], capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    return folder


def run_installed(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}"
    return subprocess.run(list(args), cwd=cwd, env={**env, **GIT_ENV}, capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A user's project outside the checkout: a git repository with the seed chart and its data."""
    folder = tmp_path_factory.mktemp("project")
    (folder / "specs" / "data").mkdir(parents=True)
    shutil.copy(ROOT / "specs" / "seed_pretraining.yaml", folder / "specs")
    shutil.copy(ROOT / "specs" / "data" / "attention_variants.csv", folder / "specs" / "data")
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "a chart"]):
        subprocess.run(["git", *args], cwd=folder, check=True, env={**os.environ, **GIT_ENV})
    return folder


@pytest.mark.slow
def test_the_installed_package_is_chartc_from_site_packages(venv, project):
    done = run_installed(venv, "python", "-c", "import chartc, sys; print(chartc.__file__); "
                         "print(any(m == 'compiler' for m in sys.modules))", cwd=project)
    location, leaked = done.stdout.split()
    assert Path(location).is_relative_to(venv) and "site-packages" in location
    assert leaked == "False"
    done = run_installed(venv, "python", "-c", "import compiler", cwd=project)
    assert done.returncode == 1 and "No module named 'compiler'" in done.stderr
    version = run_installed(venv, "python", "-m", "chartc", "--version", cwd=project)
    assert version.returncode == 0 and version.stdout.startswith("chartc ")


@pytest.mark.slow
def test_every_command_works_from_the_installed_wheel(venv, project, tmp_path):
    from chartc.render.export import render
    from chartc.pipeline import compile_spec
    from chartc.infra.jsonout import canonical_json

    spec = "specs/seed_pretraining.yaml"
    schema = run_installed(venv, "chartc", "schema", cwd=project)
    assert schema.returncode == 0 and json.loads(schema.stdout) == json.loads(
        (ROOT / "schemas" / "chart.schema.json").read_text(encoding="utf-8"))

    assert run_installed(venv, "chartc", "validate", spec, cwd=project).returncode == 0
    bad = project / "bad.yaml"
    bad.write_text("title: x\nmark: pointt\n", encoding="utf-8")
    done = run_installed(venv, "chartc", "validate", "bad.yaml", cwd=project)
    assert done.returncode == 1 and f"\nbad.yaml:2:7: error[{msg.not_one_of.code}]: mark: 'pointt' is not one of" in done.stderr
    bad.unlink()

    # The installed chartc draws the same bytes as the checkout under test.
    compiled = compile_spec(project / spec)
    for fmt in FORMATS:
        out = tmp_path / f"chart.{fmt}"
        done = run_installed(venv, "chartc", "compile", spec, "-o", str(out), cwd=project)
        assert done.returncode == 0, done.stderr
        if fmt == "vl.json":
            assert out.read_text(encoding="utf-8") == canonical_json(compiled.vega_lite)
        elif fmt in ("svg", "png"):
            assert out.read_bytes() == render(compiled.vega_lite, fmt)
        else:
            assert out.stat().st_size > 1000

    built = run_installed(venv, "chartc", "build", cwd=project)
    assert built.returncode == 0, built.stderr
    assert (project / "gallery" / "seed_pretraining.svg").read_bytes() == render(compiled.vega_lite, "svg")
    assert run_installed(venv, "chartc", "build", "--check", cwd=project).returncode == 0

    new = run_installed(venv, "chartc", "new", "specs/started", "--template", "trend", cwd=project)
    assert new.returncode == 0, new.stderr
    started = (project / "specs" / "started.yaml").read_text(encoding="utf-8")
    schema_path = re.search(r"^\$schema: (\S+)", started, re.MULTILINE).group(1)
    assert (project / "specs" / schema_path).resolve().is_file()
    assert "site-packages" not in started
    assert run_installed(venv, "chartc", "validate", "specs/started.yaml", cwd=project).returncode == 0

    text = (project / spec).read_text(encoding="utf-8").replace("color: gray", "color: black")
    (project / spec).write_text(text, encoding="utf-8")
    diff = run_installed(venv, "chartc", "diff", ".", cwd=project / "specs")
    assert diff.returncode == 1, diff.stderr
    assert "specs/seed_pretraining.yaml: spec: " in diff.stdout and "gray -> black" in diff.stdout
