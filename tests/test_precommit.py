"""The hooks of .pre-commit-hooks.yaml, run by pre-commit itself against a throwaway repository.

pre-commit installs this repository the way a user's pre-commit does (a
virtual environment of its own, `pip install` of the hook repository), then
runs one hook. Each hook gets specs or a gallery that must pass and ones that
must fail with chartc's message. `pre-commit try-repo` (which installs afresh
on every call) tries the validate hook and the `rev:` docs/pre-commit.md tells
users to pin; the gallery check runs from a `.pre-commit-config.yaml` as
docs/pre-commit.md shows it, renderer versions pinned, so the gallery can be
built by the very chartc the hook runs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from chartc import errors as msg
from conftest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("git") is None, reason="needs git")]

GOOD = """\
title: Good
data:
  values: [{k: a, v: 1}, {k: b, v: 3}]
mark: bar
encoding: {x: k, y: v}
"""
BAD = GOOD.replace("mark: bar", "mark: barr")
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """pre-commit's cache, shared by the tests: the hook environment is installed once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def run(args: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(GIT_ENV, PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never")
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)


def try_repo(hook: str, *args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess:
    return run([sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), hook, *args], cwd, home)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env={**os.environ, **GIT_ENV})


@pytest.fixture
def project(tmp_path) -> Path:
    """A user's repository with one good spec, committed."""
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "good.yaml").write_text(GOOD, encoding="utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "a chart")
    return tmp_path


def test_validate_hook_passes_a_good_spec_and_fails_a_bad_one_with_its_diagnostic(project, home):
    done = try_repo("chartc-validate", "--files", "specs/good.yaml", cwd=project, home=home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^chartc validate\.+Passed$", done.stdout, re.MULTILINE), done.stdout

    (project / "specs" / "bad.yaml").write_text(BAD, encoding="utf-8")
    done = try_repo("chartc-validate", "--files", "specs/good.yaml", "specs/bad.yaml", cwd=project, home=home)
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.search(r"^chartc validate\.+Failed$", done.stdout, re.MULTILINE), done.stdout
    assert f"specs/bad.yaml:4:7: error[{msg.not_one_of.code}]: mark: 'barr' is not one of" in done.stdout
    assert "(did you mean 'bar'?)" in done.stdout
    assert "specs/good.yaml" not in done.stdout.split("Failed", 1)[1]


def check_hook_config() -> str:
    """docs/pre-commit.md's configuration of the check hook, at this repository's HEAD, renderer pinned."""
    from test_packaging import locked_versions

    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()
    pins = locked_versions()
    pinned = ", ".join(f"{name}=={pins[name]}" for name in ("altair", "vl-convert-python", "numpy"))
    return (f"repos:\n  - repo: {ROOT}\n    rev: {head}\n    hooks:\n      - id: chartc-check\n"
            f"        additional_dependencies: [{pinned}]\n")


def test_check_hook_fails_until_the_gallery_is_built_and_again_when_a_spec_changes(project, home):
    (project / ".pre-commit-config.yaml").write_text(check_hook_config(), encoding="utf-8")
    git(project, "add", ".pre-commit-config.yaml")  # pre-commit refuses an unstaged configuration
    check = [sys.executable, "-m", "pre_commit", "run", "chartc-check", "--all-files"]
    done = run(check, project, home)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "gallery/good.svg: missing (specs/good.yaml is not built)" in done.stdout

    # Built by the very chartc (and renderer) the hook runs, as a user's `chartc build` would be.
    (chartc, *_) = sorted(home.glob("repo*/py_env-*/bin/chartc"))
    built = run([str(chartc), "build"], project, home)
    assert built.returncode == 0, built.stderr
    done = run(check, project, home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^chartc build --check\.+Passed$", done.stdout, re.MULTILINE), done.stdout

    (project / "specs" / "good.yaml").write_text(GOOD.replace("Good", "Better"), encoding="utf-8")
    done = run(check, project, home)
    assert done.returncode == 1
    assert "gallery/good.svg: stale (specs/good.yaml changed)" in done.stdout


def documented_rev() -> str:
    text = (ROOT / "docs" / "pre-commit.md").read_text(encoding="utf-8")
    (rev,) = set(re.findall(r"^\s+rev: (\S+)", text, re.MULTILINE))
    return rev


def test_the_documented_rev_exists_and_its_hook_works(project, home):
    rev = documented_rev()
    shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=ROOT, capture_output=True,
                             text=True).stdout.strip()
    exists = subprocess.run(["git", "cat-file", "-e", f"{rev}^{{commit}}"], cwd=ROOT, capture_output=True)
    if exists.returncode != 0 and shallow == "true":
        pytest.skip(f"a shallow clone may lack {rev}")
    assert exists.returncode == 0, f"docs/pre-commit.md pins rev {rev}, which is not a commit of this repository"
    done = try_repo("chartc-validate", "--ref", rev, "--files", "specs/good.yaml", cwd=project, home=home)
    assert done.returncode == 0, done.stdout + done.stderr
