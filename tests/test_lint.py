"""The code passes the linter the project configures (ruff, `[tool.ruff]` in pyproject.toml).

It runs here, inside the test command, so CI and a developer's run check the
same thing with the same pinned ruff.
"""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_ruff_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
