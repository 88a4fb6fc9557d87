"""The gallery manifest: what each output was built from, and whether it is stale.

Every export carries a provenance block without timestamps
(`infra.provenance`), so the same inputs give the same bytes anywhere. A
gallery keeps ``manifest.json``: per chart, the hashes of its inputs and of every output file, plus the versions
of the tools that rendered them. Comparing hashes against it tells whether a
chart is stale without importing altair, pandas or vl-convert.

The manifest arrives through pull requests like any committed file, so it is
trusted for nothing: `load_manifest` refuses (with `ManifestError`) any entry
that names a file outside the gallery folder or the project, a name chartc
would not have written, or more entries or longer strings than a gallery
holds; every file it names is read only when it is a regular file (never a
device, FIFO or symlink out of the project), and with a size bound unless it
is a data file, which is streamed in constant memory (`current_input_hash`).

This module imports nothing heavy at module level; keep it that way (a no-op
`chartc build` and `chartc build --check` run on it alone).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import posixpath
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path, PureWindowsPath

from .. import errors as msg
from ..errors import Location, SpecError
from ..infra import paths
from ..infra.datahash import GLOB_CHARACTERS, data_file_hash, glob_hash, glob_matches
from ..infra.files import UnreadableFile, file_kind, read_bounded
from ..infra.jsonout import canonical_json
from ..infra.paper import PROJECT_FILE
from ..infra.provenance import MAX_INPUT_BYTES, dataset_hash, dist_version, file_hash, input_hash, output_hash
from ..version import __version__

MANIFEST_NAME = "manifest.json"
MANIFEST_FORMAT = 1
INDEX_NAME = "index.html"
# Distributions whose versions change rendered bytes: a change in any of them
# (or in chartc's own version or source) makes every chart stale.
# (numpy's linear algebra decides the last digits of every fitted number.)
TOOL_DISTRIBUTIONS = {"altair": "altair", "vl_convert": "vl-convert-python", "numpy": "numpy"}
SOURCE_KEY = "chartc source"

# What a gallery folder holds besides the index and the manifest: per chart,
# STEM.SUFFIX for these suffixes, and the files every chart page shares.
CHART_SUFFIXES = ("vl.json", "svg", "png", "html", "fits.json", "pdf")  # a PDF for a chart drawn for paper
BUNDLE_NAME = "vega-bundle.js"
STYLE_NAME = "gallery.css"
SHARED_OUTPUTS = frozenset({BUNDLE_NAME, STYLE_NAME})

# Bounds on what a manifest may hold: ~1 KB per chart, so 10,000 charts stay
# far below the size bound; a record has 1-3 inputs and at most 7 outputs.
MAX_MANIFEST_BYTES = 32 * 1024 * 1024
MAX_CHARTS = 10_000
MAX_RECORD_FILES = 16
MAX_TOOLS = 64
MAX_NAME_CHARS = 1024    # a path, file name, stem or tool version
MAX_TITLE_CHARS = 4096   # titles are cut to this when recorded
# Bounds on the files a build hashes: a spec or project file past `provenance.MAX_INPUT_BYTES`
# is not read at all (a data file, of any size, is streamed: `current_input_hash`), and an output
# beyond any chart's size is stale without being read.
MAX_OUTPUT_BYTES = 512 * 1024 * 1024
HASH = re.compile(r"[0-9a-f]{64}")
DATASET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


# ------------------------------------------------------------------ hashes

def file_output_hash(path: Path) -> str | None:
    """`output_hash` of a file on disk, or None when it does not exist.

    A symlink, a folder, a device or a file over `MAX_OUTPUT_BYTES` at an
    output's name is not read: it hashes to ``""``, which matches no
    recorded hash, so the output counts as changed and is written again.
    """
    try:
        return output_hash(read_bounded(path, MAX_OUTPUT_BYTES, follow=False))
    except FileNotFoundError:
        return None
    except UnreadableFile:
        return ""


def toolchain() -> dict[str, str]:
    """What decides an output's bytes: chartc's version and source, altair's and vl-convert's versions."""
    return {"chartc": __version__, SOURCE_KEY: source_hash(),
            **{key: dist_version(dist) for key, dist in TOOL_DISTRIBUTIONS.items()}}


@functools.cache
def source_hash() -> str:
    """A short hash of chartc's own Python source (every module, in every subfolder), blind to CRLF vs LF.

    The version alone misses every change between two releases (a checkout
    someone works on), and any of them can change any output. ~1 ms.
    """
    package = paths.PACKAGE_ROOT
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode("utf-8") + b"\0")
        digest.update(path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return digest.hexdigest()[:12]


# ---------------------------------------------------------------- manifest

@dataclass
class ChartRecord:
    """One chart of a gallery: its spec, inputs and outputs, by hash.

    Paths are relative to the gallery folder, with ``/`` separators, so the
    manifest is the same on every machine that has the same tree.
    """

    spec: str
    title: str
    inputs: dict[str, str]   # relative path, "glob:PATTERN", "dataset:NAME" or "preset:NAME" (`build --preset`) -> hash
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
        return canonical_json({
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


class ManifestError(Exception):
    """A manifest entry chartc refuses to act on.

    Attributes:
        entry: where it is in the manifest's JSON, as a spec path
            (``("charts", "bars", "outputs", "../x")``).
        message: what is wrong with it (from `errors`).
    """

    def __init__(self, entry: tuple, message: str):
        super().__init__(message)
        self.entry = entry
        self.message = message


def read_manifest(folder: Path) -> Manifest | None:
    """The manifest of a gallery folder; None when absent, unreadable or refused.

    For callers that only look at a manifest (``chartc serve``'s watch
    list); a build uses `load_manifest`, which says why one is refused.
    """
    try:
        return load_manifest(folder)
    except ManifestError:
        return None


def load_manifest(folder: Path) -> Manifest | None:
    """The manifest of a gallery folder, every entry checked; None when absent.

    Text that is not JSON (a merge conflict, a hand edit) or another format
    counts as absent: the next build renders everything again and writes a
    fresh manifest, removing nothing. JSON that is a manifest but holds an
    entry chartc would not have written is refused: acting on it could delete
    or read files outside the gallery.

    Args:
        folder: the gallery folder.

    Returns:
        The manifest, or None.

    Raises:
        ManifestError: the file is not a regular file or is over
            `MAX_MANIFEST_BYTES`, or an entry is malformed: more entries or
            longer strings than the bounds, a path that is absolute or not
            normalised, an output name that is not one of its chart's, a
            hash that is not one.
    """
    try:
        raw = read_bounded(Path(folder) / MANIFEST_NAME, MAX_MANIFEST_BYTES, follow=False)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ManifestError((), msg.manifest_unreadable(error.strerror or str(error))) from None
    try:
        data = json.loads(raw.decode("utf-8"), object_pairs_hook=_unique_keys)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    except _DuplicateKey as duplicate:
        raise ManifestError((), msg.manifest_duplicate_key(duplicate.args[0])) from None
    if not isinstance(data, dict):
        raise ManifestError((), msg.manifest_expected("a JSON object", _kind(data)))
    if data.get("format") != MANIFEST_FORMAT:
        return None
    tools = {key: _text(value, ("tools", key), MAX_NAME_CHARS)
             for key, value in _mapping(data.get("tools", {}), ("tools",), MAX_TOOLS).items()}
    charts = {stem: _record(stem, record)
              for stem, record in _mapping(_required(data, "charts", ()), ("charts",), MAX_CHARTS).items()}
    index = _mapping(data.get("index") or {}, ("index",), 1)
    for name in index:
        if name != INDEX_NAME:
            raise ManifestError(("index", name), msg.manifest_output_refused(name, INDEX_NAME))
    digest = index.get(INDEX_NAME)
    return Manifest(tools, charts, None if digest is None else _hash(digest, ("index", INDEX_NAME)))


class _DuplicateKey(Exception):
    pass


def _unique_keys(pairs: list) -> dict:
    """A JSON object that names no key twice (`json.loads` would keep the last silently)."""
    result = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def _record(stem: str, raw) -> ChartRecord:
    where = ("charts", stem)
    if "/" in stem or "\\" in stem or "." in stem or "\0" in stem:
        raise ManifestError(where, msg.manifest_stem_refused(stem))
    raw = _mapping(raw, where, 8)
    spec = _relative_path(_required(raw, "spec", where), where + ("spec",))
    title = _text(raw.get("title", stem), where + ("title",), MAX_TITLE_CHARS)
    inputs = {}
    for key, value in _mapping(_required(raw, "inputs", where), where + ("inputs",), MAX_RECORD_FILES).items():
        entry = where + ("inputs", key)
        if key.startswith("dataset:"):
            if not DATASET_NAME.fullmatch(key.removeprefix("dataset:")):
                raise ManifestError(entry, msg.manifest_dataset_refused(key))
        elif key.startswith(PRESET_INPUT):
            if not DATASET_NAME.fullmatch(key.removeprefix(PRESET_INPUT)):
                raise ManifestError(entry, msg.manifest_dataset_refused(key))
        elif key.startswith(GLOB_INPUT):
            pattern = _relative_path(key.removeprefix(GLOB_INPUT), entry)
            if not GLOB_CHARACTERS.search(pattern):
                raise ManifestError(entry, msg.manifest_expected("a glob", repr(pattern)))
        else:
            _relative_path(key, entry)
        inputs[key] = _hash(value, entry)
    allowed = {f"{stem}.{suffix}" for suffix in CHART_SUFFIXES} | SHARED_OUTPUTS
    outputs = {}
    for name, value in _mapping(_required(raw, "outputs", where), where + ("outputs",), MAX_RECORD_FILES).items():
        if name not in allowed:
            raise ManifestError(where + ("outputs", name), msg.manifest_output_refused(name, stem))
        outputs[name] = _hash(value, where + ("outputs", name))
    return ChartRecord(spec, title, inputs, outputs)


def _kind(value) -> str:
    kinds = ((bool, "true or false"), (dict, "a JSON object"), (list, "a list"), (str, "a string"),
             (int, "a number"), (float, "a number"))
    return next((name for kind, name in kinds if isinstance(value, kind)), "null")


def _required(raw: dict, key: str, where: tuple):
    if key not in raw:
        raise ManifestError(where, msg.manifest_key_missing(key))
    return raw[key]


def _mapping(value, where: tuple, limit: int) -> dict:
    """A JSON object of at most `limit` entries, whose keys are bounded strings."""
    if not isinstance(value, dict):
        raise ManifestError(where, msg.manifest_expected("a JSON object", _kind(value)))
    if len(value) > limit:
        raise ManifestError(where, msg.manifest_too_many(len(value), limit))
    for key in value:
        if len(key) > MAX_NAME_CHARS:
            raise ManifestError(where, msg.manifest_text_too_long(len(key), MAX_NAME_CHARS))
    return value


def _text(value, where: tuple, limit: int) -> str:
    if not isinstance(value, str):
        raise ManifestError(where, msg.manifest_expected("a string", _kind(value)))
    if len(value) > limit:
        raise ManifestError(where, msg.manifest_text_too_long(len(value), limit))
    return value


def _hash(value, where: tuple) -> str:
    if not isinstance(value, str) or not HASH.fullmatch(value):
        raise ManifestError(where, msg.manifest_hash_refused(_kind(value) if not isinstance(value, str)
                                                             else repr(value[:80])))
    return value


def _relative_path(value, where: tuple) -> str:
    """A path as chartc records one: relative to the gallery folder, ``/``-separated, normalised."""
    path = _text(value, where, MAX_NAME_CHARS)
    if not path or "\0" in path:
        raise ManifestError(where, msg.manifest_expected("a file's path", repr(path)))
    if path.startswith(("/", "\\")) or PureWindowsPath(path).drive:
        raise ManifestError(where, msg.manifest_path_absolute(path))
    normal = posixpath.normpath(path)
    if normal != path or normal == ".":
        raise ManifestError(where, msg.manifest_path_not_normal(path, normal))
    return path


def inside_project(path: str, roots: tuple[str, ...]) -> bool:
    """Whether a resolved path is inside one of the project's folders (`project_roots`)."""
    return any(os.path.commonpath([path, root]) == root for root in roots)


def project_roots(folder: Path, specs=()) -> tuple[str, ...]:
    """The folders a gallery's inputs may be in: "the project".

    The git work tree around the gallery folder (else the folder that holds
    the gallery), the one around the current folder (else the current folder
    itself) and the one around each spec given (else its folder): a data
    file must be inside its spec's project anyway (`stages.data.data_file`).
    """
    gallery = os.path.realpath(folder)
    starts = [(gallery, os.path.dirname(gallery)), (os.path.realpath(os.getcwd()), None)]
    starts += [(os.path.realpath(os.path.dirname(os.path.abspath(spec))), None) for spec in specs]
    roots = []
    for start, otherwise in starts:
        top = next((candidate for candidate in _ancestors(start)
                    if os.path.exists(os.path.join(candidate, ".git"))), None)
        roots.append(top or otherwise or start)
    return tuple(dict.fromkeys(roots))


def _ancestors(path: str):
    while True:
        yield path
        parent = os.path.dirname(path)
        if parent == path:
            return
        path = parent


def check_manifest_files(manifest: Manifest, folder: Path, roots: tuple[str, ...]) -> None:
    """Refuse a manifest whose specs or input files are not regular files inside the project.

    So must the folder a glob looks in (`glob_folder`). Symlinks are
    followed to where they lead: one that leads out of the project is
    refused like ``../../etc/passwd``. A file that is missing is fine here
    (the chart is stale).

    Raises:
        ManifestError: the first such entry.
    """
    for stem, record in manifest.charts.items():
        entries = [(("charts", stem, "spec"), record.spec, record.spec)]
        for key in record.inputs:
            if key.startswith(GLOB_INPUT):  # the folder it looks in: its matches are checked when hashed
                entries.append((("charts", stem, "inputs", key), key, glob_folder(key.removeprefix(GLOB_INPUT))))
            elif not key.startswith(("dataset:", PRESET_INPUT)):
                entries.append((("charts", stem, "inputs", key), key, key))
        for entry, key, path in entries:
            target = os.path.realpath(os.path.join(folder, path))
            if not inside_project(target, roots):
                raise ManifestError(entry, msg.manifest_path_outside(key, target))
            try:
                mode = os.stat(target).st_mode
            except OSError:  # missing (stale) or unreadable (reported when it is hashed)
                continue
            if not stat.S_ISREG(mode) and path == key:  # (a glob's is a folder)
                raise ManifestError(entry, msg.manifest_path_not_regular(key, file_kind(mode)))


def manifest_problem(folder: Path, error: ManifestError):
    """A refused manifest as a diagnostic: ``gallery/manifest.json:LINE:COL: error: ENTRY: ...``.

    Returns:
        A `SpecError` placed at the entry (at line 1 when it cannot be found).
    """
    file = os.path.join(os.fspath(folder), MANIFEST_NAME)
    location = Location(file, 1, 1)
    try:
        from ..stages.load import MAX_SPEC_BYTES, load_text  # the YAML library: only for a refused manifest

        text = read_bounded(file, MAX_SPEC_BYTES, follow=False).decode("utf-8")
        location = load_text(text, file, format="json").locate(error.entry, key=True) or location
    except SpecError as problem:  # the loader's own refusal (a duplicate key) says where
        location = problem.location or location
    except (OSError, ValueError):
        pass
    return SpecError(error.message, error.entry, location=location, stage="manifest",
                     hint=msg.manifest_refused_hint(file))


def relative_to(path: Path, folder: Path) -> str:
    """`path` relative to `folder` (which may be a sibling), ``/``-separated."""
    return Path(os.path.relpath(Path(path).resolve(), Path(folder).resolve())).as_posix()


def chart_inputs(spec_file: Path, spec_hash: str, data_label: str, data_file: Path | None, data_hash: str,
                 folder: Path, project: tuple = (), preset: str | None = None,
                 lookups: tuple = ()) -> dict[str, str]:
    """The inputs a manifest records for one chart, keyed relative to `folder`.

    The hashes are those of the bytes the chart was compiled from (see
    `stages.data.data_identity`), never of the files as they are now: a file saved while
    the chart rendered leaves the chart stale. Inline values are part of the
    spec file, so they add no entry. The project's defaults file (`project`:
    its path and hash) is an input when there is one, and so is a build's
    ``--preset`` (``preset:NAME``). So is each lookup's second source
    (`lookups`: ``(label, hash, file or None)``), recorded as the chart's
    own data is: a file by its path, a dataset by ``dataset:NAME``, a glob
    by ``glob:PATTERN`` (`glob_input`; its hash covers every file it matched);
    a chart without lookups records what it did before.
    """
    inputs = {relative_to(spec_file, folder): spec_hash}
    if project:
        inputs[relative_to(Path(project[0]), folder)] = project[1]
    if preset is not None:
        inputs[PRESET_INPUT + preset] = input_hash(preset.encode("utf-8"))
    for label, digest, file in ((data_label, data_hash, data_file), *lookups):
        if file is not None:
            inputs[relative_to(Path(file), folder)] = digest
        elif label.startswith("dataset:"):
            inputs[label] = digest
        elif is_glob_label(label):
            inputs[glob_input(spec_file, label, folder)] = digest
    return inputs


PRESET_INPUT = "preset:"
GLOB_INPUT = "glob:"


def is_glob_label(label: str) -> bool:
    """Whether a data label (`stages.data.data_identity`'s first item, with no file) is a glob the spec names."""
    return (label != "values" and not label.startswith(("dataset:", "frame:", "table:"))
            and bool(GLOB_CHARACTERS.search(label)))


def glob_input(spec_file: Path, pattern: str, folder: Path) -> str:
    """A glob's manifest key: ``glob:`` and the pattern (written relative to the spec's folder) relative to `folder`.

    The pattern is normalised as a path, like every key: one with ``..`` after a wildcard
    (``runs/*/../x.csv``) may then match other files than the compile did, and its chart is stale at every
    check (never the other way round).
    """
    return GLOB_INPUT + posixpath.normpath(posixpath.join(relative_to(Path(spec_file).parent, folder), pattern))


def glob_folder(pattern: str) -> str:
    """The folder a glob looks in: its path up to the first part with a wildcard (``.`` when that is the first)."""
    parts = pattern.split("/")
    fixed = next((index for index, part in enumerate(parts) if GLOB_CHARACTERS.search(part)), len(parts))
    return "/".join(parts[:fixed]) or "."


def current_glob_hash(pattern: str, folder: Path, spec: str) -> str | None:
    """A recorded glob's hash as the compile would take it now (`stages.data.data_identity`); None: it matches nothing.

    The same matching (`datahash.glob_matches`) and hashes (`datahash.data_file_hash`, a large file's from
    the hash cache), relative to the spec's folder as the compile lists them. A match outside the project
    is not read, nor is anything when a file bears the pattern's very name (the compile would read that
    file instead: `stages.data.read.is_glob`): the chart is stale, and its build says why.
    """
    folder = Path(folder)
    if os.path.lexists(folder / pattern):
        return ""
    matches = glob_matches(folder, pattern)
    if not matches:
        return None
    roots = project_roots(folder, [folder / spec])
    resolved = [Path(os.path.realpath(folder / match)) for match in matches]
    if not all(inside_project(str(path), roots) for path in resolved):
        return ""
    hashes = [data_file_hash(path) for path in resolved]
    return glob_hash(Path(os.path.realpath((folder / spec).parent)), resolved, hashes)


def current_input_hash(key: str, folder: Path, preset: str | None = None, *, data: bool = False,
                       spec: str | None = None) -> str | None:
    """Hash an input named in a manifest as it is now; None when it is gone.

    A ``preset:NAME`` input is there while the build's `preset` is NAME. A
    ``glob:PATTERN`` input is hashed as its chart's compile hashes it
    (`current_glob_hash`; `spec`, the chart's recorded spec, is needed for
    it), gone when it matches no file. A
    data file (`data`: the chart's or a lookup's, `is_data_input`) is hashed
    as a compile hashes it (`datahash.data_file_hash`): streamed, whatever
    its size, and a large one's hash taken from the hash cache while the
    file's state is the one it was hashed in, so nothing of it is read. Any
    other file (the spec, the project's defaults file) is read only up to
    `MAX_INPUT_BYTES`, as the pipeline reads it.

    Raises:
        OSError: it cannot be read (`UnreadableFile`: not a regular file, or
            a spec over `MAX_INPUT_BYTES`; its ``strerror`` says why).
    """
    if key.startswith("dataset:"):
        return dataset_hash(key.split(":", 1)[1])
    if key.startswith(PRESET_INPUT):
        name = key.removeprefix(PRESET_INPUT)
        return input_hash(name.encode("utf-8")) if name == preset else None
    if key.startswith(GLOB_INPUT):
        return current_glob_hash(key.removeprefix(GLOB_INPUT), folder, spec)
    path = Path(folder) / key
    try:
        if data:  # by its resolved path, as the compile named it in the hash cache
            return data_file_hash(Path(os.path.realpath(path)))
        return file_hash(read_bounded(path, MAX_INPUT_BYTES), key)  # as a compile hashed it
    except (FileNotFoundError, NotADirectoryError):
        return None


def is_data_input(record: ChartRecord, key: str) -> bool:
    """Whether a recorded input is a data file (the chart's or a lookup's), by elimination.

    Its spec and the project's defaults file (`paper.PROJECT_FILE`, which
    no data file can be named: chartc reads no ``.toml`` rows) are not; nor
    are a dataset or a preset, which are no files.
    """
    return (key != record.spec and posixpath.basename(key) != PROJECT_FILE
            and not key.startswith(("dataset:", PRESET_INPUT)))


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
