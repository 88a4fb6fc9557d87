"""Where chartc's own files are: its package folder, and the chart schema it validates with.

A wheel ships the repository's top-level ``schemas/`` inside the package
(pyproject.toml maps it to ``chartc/schemas/``); a checkout, and an editable
install of one, reads it where it is, beside the package's folder
(``compiler/../schemas/``). Readers look the names up here when they use
them (``paths.SCHEMA_PATH``), so there is one answer in the whole process.
"""

from __future__ import annotations

import os
from pathlib import Path

# chartc's own folder (compiler/ in a checkout, chartc/ installed): this module sits in its infra/ subfolder.
PACKAGE_ROOT = Path(__file__).resolve().parent.parent
SCHEMA_PATH = PACKAGE_ROOT / "schemas" / "chart.schema.json"
if not SCHEMA_PATH.exists():
    SCHEMA_PATH = PACKAGE_ROOT.parent / "schemas" / "chart.schema.json"


def cache_dir() -> Path:
    """chartc's cache folder: ``$XDG_CACHE_HOME/chartc``, else ``~/.cache/chartc``."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "chartc"
