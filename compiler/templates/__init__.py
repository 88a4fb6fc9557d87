"""Starter specs for `chartc new`: one commented YAML file per kind of chart.

Each template uses a dataset that ships with chartc (vega-datasets), so the
new spec validates and renders anywhere, offline. ``SCHEMA_PATH`` in a
template becomes the path from the new file to the chart schema, for editor
completion (``# yaml-language-server: $schema=...`` and ``$schema:``).
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

TEMPLATE_NAMES = ("scatter", "line", "bar", "trend", "markers")
SCHEMA_TOKEN = "SCHEMA_PATH"


def template_text(name: str) -> str:
    """The raw text of a template (with the ``SCHEMA_PATH`` token).

    Raises:
        KeyError: no template has that name.
    """
    if name not in TEMPLATE_NAMES:
        raise KeyError(name)
    return resources.files(__package__).joinpath(f"{name}.yaml").read_text(encoding="utf-8")


def schema_reference(target: Path) -> str:
    """The chart schema's path as seen from the folder of `target`, ``/``-separated."""
    from ..validate import SCHEMA_PATH

    folder = Path(target).resolve().parent
    try:
        return Path(os.path.relpath(SCHEMA_PATH, folder)).as_posix()
    except ValueError:  # another drive on Windows: no relative path
        return SCHEMA_PATH.as_uri()


def starter_spec(name: str, target: Path) -> str:
    """A template's text for a spec written at `target`.

    Args:
        name: one of `TEMPLATE_NAMES`.
        target: where the spec will be written (decides the schema's relative path).

    Returns:
        The spec text.
    """
    return template_text(name).replace(SCHEMA_TOKEN, schema_reference(target))
