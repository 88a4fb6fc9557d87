"""Which spec files a command works on: paths as given, folders searched, and what is a usage error.

Shared by the commands that take spec paths (`cli`, `serve`), so neither
imports the other.
"""

from __future__ import annotations

from pathlib import Path


class UsageError(Exception):
    """A command line that cannot be carried out as written."""


def spec_files(paths: list[str]) -> list[Path]:
    """Spec files named directly, or found (*.yaml, *.yml, *.json) in folders, sorted.

    Args:
        paths: files or folders, as the user gave them.

    Returns:
        The spec files: each named file, then each folder's in sorted order
        (a folder's ``data`` subfolders are skipped).

    Raises:
        UsageError: a path names no file or folder.
    """
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
