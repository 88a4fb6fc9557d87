"""Starter specs for `chartc new`, and the project files of `chartc init`.

Each template uses a dataset that ships with chartc (vega-datasets), so the
new spec validates and renders anywhere, offline. ``SCHEMA_PATH`` in a
template becomes the path from the new file to the project's copy of the
chart schema, for editor completion (``# yaml-language-server: $schema=...``
and ``$schema:``).

The copy lives in the project (``schemas/chart.schema.json`` under the
project root) because chartc's own schema file sits in site-packages once
chartc is installed: a path to it works on one machine only.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ...infra import paths  # as `paths.SCHEMA_PATH`, read when used
from ...infra.files import write_atomic

TEMPLATE_NAMES = ("scatter", "line", "bar", "trend", "markers")
SCHEMA_TOKEN = "SCHEMA_PATH"
# Where `chartc init` puts the schema and VS Code's settings, under the project root.
SCHEMA_COPY = Path("schemas", "chart.schema.json")
VSCODE_SETTINGS = Path(".vscode", "settings.json")
# The specs VS Code checks against the copy: the layout chartc suggests, and a suffix for elsewhere.
SPEC_GLOBS = ("specs/**/*.yaml", "specs/**/*.yml", "**/*.chart.yaml")


def template_text(name: str) -> str:
    """The raw text of a template (with the ``SCHEMA_PATH`` token).

    Raises:
        KeyError: no template has that name.
    """
    if name not in TEMPLATE_NAMES:
        raise KeyError(name)
    from importlib import resources  # ~10 ms: only for `chartc new`, not for every command's start

    return resources.files(__package__).joinpath(f"{name}.yaml").read_text(encoding="utf-8")


def project_root(start: str | os.PathLike | None = None) -> Path:
    """The folder that holds a project's schema copy.

    Args:
        start: a folder in the project (default: the current directory); it need not exist.

    Returns:
        The top folder of the git work tree containing `start`, else the current directory.
    """
    cwd = Path.cwd()
    folder = Path(start).resolve() if start is not None else cwd
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():  # a folder, or a file in worktrees and submodules
            return candidate
    return cwd


def schema_reference(target: Path, schema: Path | None = None) -> str:
    """The path of a schema as seen from the folder of `target`, ``/``-separated.

    Args:
        target: the spec file.
        schema: the schema file (default: the copy in `target`'s project).

    Returns:
        A relative path, or a ``file:`` URI when there is none (another drive on Windows).
    """
    folder = Path(target).resolve().parent
    if schema is None:
        schema = project_root(folder) / SCHEMA_COPY
    schema = Path(schema).resolve()
    try:
        return Path(os.path.relpath(schema, folder)).as_posix()
    except ValueError:
        return schema.as_uri()


def starter_spec(name: str, target: Path, schema: Path | None = None) -> str:
    """A template's text for a spec written at `target`.

    Args:
        name: one of `TEMPLATE_NAMES`.
        target: where the spec will be written (decides the schema's relative path).
        schema: the schema file `$schema` points at (default: the copy in `target`'s project).

    Returns:
        The spec text.
    """
    return template_text(name).replace(SCHEMA_TOKEN, schema_reference(target, schema))


def write_schema_copy(root: Path) -> str:
    """Copy the schema chartc validates with to ``schemas/chart.schema.json`` under `root`.

    Args:
        root: the project root.

    Returns:
        What happened: ``"written"`` (there was none), ``"updated"`` (it differed:
        another chartc version's), ``"current"`` (the same schema, left alone) or
        ``"source"`` (it is the very file chartc reads: a chartc checkout, left alone).

    Raises:
        OSError: the copy cannot be read or written.
    """
    target = Path(root) / SCHEMA_COPY
    if target.exists() and target.samefile(paths.SCHEMA_PATH):
        return "source"
    content = paths.SCHEMA_PATH.read_bytes()
    outcome = "written"
    if target.is_file():
        if _same_json(target.read_bytes(), content):  # not the bytes: a CRLF checkout holds the same schema
            return "current"
        outcome = "updated"
    write_atomic(target, content)
    return outcome


def _same_json(a: bytes, b: bytes) -> bool:
    try:
        return json.loads(a) == json.loads(b)
    except ValueError:  # not JSON (or not UTF-8): not the schema
        return False


def vscode_settings() -> dict:
    """The VS Code settings that check the project's specs against its schema copy."""
    return {"yaml.schemas": {f"./{SCHEMA_COPY.as_posix()}": list(SPEC_GLOBS)}}


def vscode_settings_snippet() -> str:
    """The ``"yaml.schemas"`` entry to add to an existing settings.json, indented as in one."""
    return "\n".join(json.dumps(vscode_settings(), indent=2).splitlines()[1:-1])


def write_vscode_settings(root: Path) -> str:
    """Write ``.vscode/settings.json`` under `root` unless it exists.

    An existing file is never edited: settings.json may hold comments and
    other settings that a JSON round trip would lose.

    Args:
        root: the project root.

    Returns:
        ``"written"``, ``"configured"`` (it exists and names the schema copy) or
        ``"exists"`` (it exists without it: the caller shows `vscode_settings_snippet`).

    Raises:
        OSError: the file cannot be read or written.
    """
    target = Path(root) / VSCODE_SETTINGS
    if target.exists():
        text = target.read_text(encoding="utf-8", errors="replace")
        return "configured" if SCHEMA_COPY.as_posix() in text else "exists"
    write_atomic(target, (json.dumps(vscode_settings(), indent=2) + "\n").encode("utf-8"))
    return "written"
