"""Provenance and the gallery manifest: what each output was built from.

Every export carries a provenance block without timestamps (chartc version,
Vega-Lite version, a hash of the spec file and one of its data), so the same
inputs give the same bytes anywhere. A gallery keeps ``manifest.json``: per
chart, the hashes of its inputs and of every output file, plus the versions
of the tools that rendered them. Comparing hashes against it tells whether a
chart is stale without importing altair, pandas or vl-convert.

This module imports nothing heavy at module level; keep it that way (a no-op
`chartc build` and `chartc build --check` run on it alone).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

MANIFEST_NAME = "manifest.json"
MANIFEST_FORMAT = 1
INDEX_NAME = "index.html"
# Distributions whose versions change rendered bytes: a change in any of them
# (or in chartc's own version or source) makes every chart stale.
# (numpy's linear algebra decides the last digits of every fitted number.)
TOOL_DISTRIBUTIONS = {"altair": "altair", "vl_convert": "vl-convert-python", "numpy": "numpy"}
SOURCE_KEY = "chartc source"
DATASET_DISTRIBUTION = "vega_datasets"
VEGA_LITE_SCHEMA = re.compile(r"/vega-lite/v([^/]+?)\.json$")


# ------------------------------------------------------------------ hashes

def input_hash(content: bytes) -> str:
    """SHA-256 of a text input (spec or data file), blind to CRLF vs LF.

    A checkout with ``core.autocrlf`` reads the same spec and rows, so it must
    give the same hash, and so the same output bytes.
    """
    return hashlib.sha256(content.replace(b"\r\n", b"\n")).hexdigest()


def output_hash(content: bytes) -> str:
    """SHA-256 of an output file's exact bytes."""
    return hashlib.sha256(content).hexdigest()


def file_output_hash(path: Path) -> str | None:
    """`output_hash` of a file on disk, or None when it does not exist."""
    try:
        return output_hash(path.read_bytes())
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


@functools.cache
def dist_version(name: str) -> str:
    """An installed distribution's version, read without importing it."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "none"


def toolchain() -> dict[str, str]:
    """What decides an output's bytes: chartc's version and source, altair's and vl-convert's versions."""
    from . import __version__

    return {"chartc": __version__, SOURCE_KEY: source_hash(),
            **{key: dist_version(dist) for key, dist in TOOL_DISTRIBUTIONS.items()}}


@functools.cache
def source_hash() -> str:
    """A short hash of chartc's own Python source, blind to CRLF vs LF.

    The version alone misses every change between two releases (a checkout
    someone works on), and any of them can change any output. ~1 ms.
    """
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode("utf-8") + b"\0")
        digest.update(path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return digest.hexdigest()[:12]


def dataset_hash(name: str) -> str:
    """Identity of a vega-datasets table: its name and the package version."""
    return hashlib.sha256(f"{DATASET_DISTRIBUTION} {dist_version(DATASET_DISTRIBUTION)}\0{name}".encode()).hexdigest()


def values_hash(values) -> str:
    """Identity of inline rows (they are part of the spec, hashed for symmetry)."""
    text = json.dumps(values, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical_text(value) -> str:
    """Sorted keys, two-space indent, trailing newline (as `translate.canonical_json`)."""
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


# -------------------------------------------------------------- provenance

def vega_lite_version(vega_lite: dict) -> str | None:
    """The Vega-Lite version a compiled chart targets, from its ``$schema``."""
    match = VEGA_LITE_SCHEMA.search(str(vega_lite.get("$schema", "")))
    return match.group(1) if match else None


def data_identity(spec, doc) -> tuple[str, str, Path | None]:
    """Label, hash and (for files) path of the rows a chart was compiled from.

    Uses `resolve.data_source`, so the hash is of the very file the resolve
    stage read.

    Returns:
        ``("values", hash, None)``, ``("dataset:NAME", hash, None)`` or
        ``(path as written in the spec, hash, resolved path)``.
    """
    from .resolve import data_source

    kind, value = data_source(spec, doc)
    if kind == "values":
        return "values", values_hash(value), None
    if kind == "dataset":
        return f"dataset:{value}", dataset_hash(value), None
    return spec.data.path, input_hash(Path(value).read_bytes()), Path(value)


def add_provenance(vega_lite: dict, spec_file, spec, doc) -> dict:
    """The chart with ``usermeta.chartc`` = versions and input hashes (no timestamps).

    Args:
        vega_lite: the translated chart.
        spec_file: the spec file compiled.
        spec, doc: its parsed chart and document.

    Returns:
        A new dict; any ``usermeta`` the spec declares is kept beside ``chartc``.
    """
    from . import __version__

    label, data_hash, _ = data_identity(spec, doc)
    block = {
        "version": __version__,
        "vega_lite": vega_lite_version(vega_lite),
        "spec_hash": input_hash(Path(spec_file).read_bytes()),
        "data": label,
        "data_hash": data_hash,
    }
    usermeta = dict(vega_lite.get("usermeta") or {})
    usermeta["chartc"] = block
    return {**vega_lite, "usermeta": usermeta}


def provenance(vega_lite: dict) -> dict | None:
    """The ``usermeta.chartc`` block of a compiled chart, if it has one."""
    usermeta = vega_lite.get("usermeta")
    block = usermeta.get("chartc") if isinstance(usermeta, dict) else None
    return block if isinstance(block, dict) else None


# ---------------------------------------------------------------- manifest

@dataclass
class ChartRecord:
    """One chart of a gallery: its spec, inputs and outputs, by hash.

    Paths are relative to the gallery folder, with ``/`` separators, so the
    manifest is the same on every machine that has the same tree.
    """

    spec: str
    title: str
    inputs: dict[str, str]   # relative path or "dataset:NAME" -> hash
    outputs: dict[str, str]  # file name in the gallery -> output hash

    def to_json(self) -> dict:
        return {"spec": self.spec, "title": self.title, "inputs": self.inputs, "outputs": self.outputs}


@dataclass
class Manifest:
    """A gallery's manifest: tool versions, charts by output stem, the index page."""

    tools: dict[str, str] = field(default_factory=dict)
    charts: dict[str, ChartRecord] = field(default_factory=dict)
    index: str | None = None  # hash of index.html

    def to_bytes(self) -> bytes:
        return canonical_text({
            "format": MANIFEST_FORMAT,
            "tools": self.tools,
            "charts": {stem: record.to_json() for stem, record in self.charts.items()},
            "index": {INDEX_NAME: self.index} if self.index else {},
        }).encode("utf-8")

    def owned_files(self) -> set[str]:
        """Every file name this manifest says chartc wrote."""
        names = {name for record in self.charts.values() for name in record.outputs}
        if self.index:
            names.add(INDEX_NAME)
        return names


def read_manifest(folder: Path) -> Manifest | None:
    """The manifest of a gallery folder; None when absent or unreadable.

    An unreadable manifest (a merge conflict, a hand edit) is treated as
    absent: the next build re-renders everything and writes a fresh one.
    """
    try:
        raw = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
        if raw.get("format") != MANIFEST_FORMAT:
            return None
        charts = {
            str(stem): ChartRecord(str(r["spec"]), str(r.get("title", stem)),
                                   {str(k): str(v) for k, v in r["inputs"].items()},
                                   {str(k): str(v) for k, v in r["outputs"].items()})
            for stem, r in raw["charts"].items()
        }
        return Manifest(dict(raw.get("tools", {})), charts, (raw.get("index") or {}).get(INDEX_NAME))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def relative_to(path: Path, folder: Path) -> str:
    """`path` relative to `folder` (which may be a sibling), ``/``-separated."""
    return Path(os.path.relpath(Path(path).resolve(), Path(folder).resolve())).as_posix()


def chart_inputs(spec_file: Path, data_label: str, data_file: Path | None, data_hash: str,
                 folder: Path) -> dict[str, str]:
    """The inputs a manifest records for one chart, keyed relative to `folder`.

    Inline values are part of the spec file, so they add no entry.
    """
    inputs = {relative_to(spec_file, folder): input_hash(Path(spec_file).read_bytes())}
    if data_file is not None:
        inputs[relative_to(data_file, folder)] = data_hash
    elif data_label.startswith("dataset:"):
        inputs[data_label] = data_hash
    return inputs


def current_input_hash(key: str, folder: Path) -> str | None:
    """Hash an input named in a manifest as it is now; None when it is gone."""
    if key.startswith("dataset:"):
        return dataset_hash(key.split(":", 1)[1])
    try:
        return input_hash((folder / key).read_bytes())
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def tool_differences(recorded: dict[str, str], current: dict[str, str]) -> list[tuple[str, str, str]]:
    """``(tool, recorded, current)`` for every tool whose version differs, by tool.

    Tools are named as people install them (``vl-convert-python``, not the
    module ``vl_convert``).
    """
    return [(TOOL_DISTRIBUTIONS.get(name, name), recorded.get(name, "none"), version)
            for name, version in sorted(current.items()) if recorded.get(name) != version]


def tools_changed(recorded: dict[str, str], current: dict[str, str]) -> list[str]:
    """``name old -> new`` for every tool whose version differs."""
    return [f"{name} {old} -> {new}" for name, old, new in tool_differences(recorded, current)]
