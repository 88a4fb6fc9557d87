"""Messages of the commands (commands/): build, gallery, manifest, diff, serve, new and init.

Each message is a function; one that a diagnostic reads carries its code
(`@code`), and its docstring is the explanation `chartc explain` prints.
"""

from __future__ import annotations

from typing import Sequence

from .registry import code
from .text import quoted_list


@code("E801")
def duplicate_output_stem(stem: str, other: str) -> str:
    """Two specs with the same output name.

    Two specs in different folders have the same file name, so their outputs (name.svg, name.html ...)
    would overwrite each other in the gallery. Rename one.
    """
    return f"its outputs would be named {stem!r}, like those of {other}; rename one of the two specs"


@code("E802")
def reserved_output_stem(stem: str, page: str) -> str:
    """A spec named like a gallery page.

    A spec named index.yaml would write index.html, the gallery's own page. Rename the spec.
    """
    return f"its chart page would be {page}, the gallery's own {stem} page; rename the spec"


def chart_not_built() -> str:
    return "not built yet"


def chart_forced() -> str:
    return "--force"


def chart_spec_moved(old: str) -> str:
    return f"built from {old}"


def chart_tools_changed(change: str) -> str:
    return f"built with {change}"


def toolchain_differs(folder: str, differences: Sequence[tuple[str, str, str]]) -> str:
    listed = ", ".join(f"{tool} {old} (installed: {new})" for tool, old, new in differences)
    return (f"{folder}: rendered by another toolchain than the one installed: {listed}; every output's bytes "
            "depend on these versions: install the versions that rendered it, or run `chartc build` to "
            "render it again with yours")


def chart_input_changed(path: str) -> str:
    return f"{path} changed"


def chart_input_missing(path: str) -> str:
    return f"{path} is gone"


def chart_rendered(spec: str, reason: str) -> str:
    return f"{spec}: rendered ({reason})"


def output_missing() -> str:
    return "missing"


def output_modified() -> str:
    return "stale (changed since it was built)"


def output_stale(reason: str) -> str:
    return f"stale ({reason})"


def output_not_built(spec: str) -> str:
    return f"missing ({spec} is not built)"


def output_untracked(spec: str) -> str:
    return f"stale ({spec} is not in the manifest)"


def output_orphaned(spec: str) -> str:
    return f"orphaned ({spec} was deleted)"


def output_leftover() -> str:
    return "orphaned (left by an interrupted build)"


def output_removed(path: str) -> str:
    return f"{path}: removed"


def leftover_removed(path: str) -> str:
    return f"{path}: removed (left by an interrupted build)"


def index_charts_changed() -> str:
    return "the list of charts changed"


def check_failed(count: int, folder: str) -> str:
    noun = "output is" if count == 1 else "outputs are"
    return f"{folder}: {count} {noun} out of date; run `chartc build` and commit the result"


def check_passed(charts: int, folder: str) -> str:
    return f"{folder}: {charts} chart{'' if charts == 1 else 's'} up to date"


def build_summary(folder: str, rendered: int, unchanged: int, removed: int) -> str:
    text = f"{folder}: {rendered} chart{'' if rendered == 1 else 's'} rendered, {unchanged} up to date"
    return text + (f", {removed} removed" if removed else "")


def chart_input_unreadable(path: str, reason: str) -> str:
    return f"{path} cannot be read ({reason})"


def build_locked(folder: str, pid: str) -> str:
    return (f"another chartc build is writing {folder}/ (pid {pid}); this build stopped without writing "
            "anything: run it again once that one has finished")


def gallery_unwritable(path: str, reason: str) -> str:
    return f"cannot write {path}: {reason}; no output was changed"


def gallery_partly_written(path: str, reason: str) -> str:
    return (f"cannot write {path}: {reason}; the outputs before it were replaced, the manifest was not: "
            "build again once it can be written")


def compile_unwritable(path: str, reason: str) -> str:
    return f"cannot write {path}: {reason}; no output was written"


def manifest_refused_hint(manifest: str) -> str:
    return (f"chartc reads only files inside the project and removes only the outputs it wrote; restore "
            f"{manifest} from git, or delete it to render every chart again")


@code("E811", hint="manifest_refused_hint")
def manifest_unreadable(reason: str) -> str:
    """A gallery manifest that cannot be read.

    The gallery's manifest.json records the hash of every input and output, and arrives through pull
    requests like any file, so chartc checks every value in it before trusting it: a build never reads
    or removes a file because the manifest names it. This one cannot be read as JSON. Restore the
    manifest from git, or delete it: the next build renders every chart and writes a new one.
    """
    return f"the manifest cannot be read: {reason}"


@code("E812", hint="manifest_refused_hint")
def manifest_expected(what: str, got: str) -> str:
    """A manifest value of the wrong type.

    The gallery's manifest.json records the hash of every input and output, and arrives through pull
    requests like any file, so chartc checks every value in it before trusting it: a build never reads
    or removes a file because the manifest names it. A value has the wrong type. Restore the manifest
    from git, or delete it: the next build renders every chart and writes a new one.
    """
    return f"expected {what}, not {got}"


@code("E813", hint="manifest_refused_hint")
def manifest_key_missing(key: str) -> str:
    """A manifest without a required key.

    The gallery's manifest.json records the hash of every input and output, and arrives through pull
    requests like any file, so chartc checks every value in it before trusting it: a build never reads
    or removes a file because the manifest names it. An entry lacks a key every entry has. Restore the
    manifest from git, or delete it: the next build renders every chart and writes a new one.
    """
    return f"the entry has no {key!r}"


@code("E814", hint="manifest_refused_hint")
def manifest_duplicate_key(key: str) -> str:
    """A manifest key written twice.

    The gallery's manifest.json records the hash of every input and output, and arrives through pull
    requests like any file, so chartc checks every value in it before trusting it: a build never reads
    or removes a file because the manifest names it. A key appears twice, so one of the values would be
    silently dropped. Restore the manifest from git, or delete it: the next build renders every chart
    and writes a new one.
    """
    return f"the key {key[:80]!r} appears twice"


@code("E815", hint="manifest_refused_hint")
def manifest_too_many(count: int, limit: int) -> str:
    """A manifest with too many entries.

    The gallery's manifest.json records the hash of every input and output, and arrives through pull
    requests like any file, so chartc checks every value in it before trusting it: a build never reads
    or removes a file because the manifest names it. A list or mapping is longer than any gallery needs.
    Restore the manifest from git, or delete it: the next build renders every chart and writes a new
    one.
    """
    return f"{count:,} entries, more than the {limit:,} a manifest may list here"


@code("E816", hint="manifest_refused_hint")
def manifest_text_too_long(length: int, limit: int) -> str:
    """Manifest text over its limit.

    The gallery's manifest.json records the hash of every input and output, and arrives through pull
    requests like any file, so chartc checks every value in it before trusting it: a build never reads
    or removes a file because the manifest names it. A string is longer than any name or hash chartc
    writes. Restore the manifest from git, or delete it: the next build renders every chart and writes a
    new one.
    """
    return f"a string of {length:,} characters, longer than the {limit:,} a manifest may hold"


@code("E817", hint="manifest_refused_hint")
def manifest_hash_refused(value: str) -> str:
    """A malformed hash in the manifest.

    The gallery's manifest.json records the hash of every input and output, and arrives through pull
    requests like any file, so chartc checks every value in it before trusting it: a build never reads
    or removes a file because the manifest names it. A hash is not the hex digest chartc writes (SHA-256, or
    BLAKE3 for a binary data file: 256 bits each).
    Restore the manifest from git, or delete it: the next build renders every chart and writes a new
    one.
    """
    return f"expected a 256-bit hash (64 lowercase hex digits), not {value}"


@code("E818", hint="manifest_refused_hint")
def manifest_stem_refused(stem: str) -> str:
    """A malformed chart name in the manifest.

    The gallery's manifest.json records the hash of every input and output, and arrives through pull
    requests like any file, so chartc checks every value in it before trusting it: a build never reads
    or removes a file because the manifest names it. A chart name is not one a spec file could have.
    Restore the manifest from git, or delete it: the next build renders every chart and writes a new
    one.
    """
    return f"{stem[:80]!r} is not a chart name (a spec file's name up to its first '.')"


@code("E819", hint="manifest_refused_hint")
def manifest_dataset_refused(key: str) -> str:
    """An unknown dataset in the manifest.

    The gallery's manifest.json records the hash of every input and output, and arrives through pull
    requests like any file, so chartc checks every value in it before trusting it: a build never reads
    or removes a file because the manifest names it. A dataset entry does not name a vega-datasets
    table. Restore the manifest from git, or delete it: the next build renders every chart and writes a
    new one.
    """
    return f"{key[:80]!r} does not name a dataset"


@code("E820", hint="manifest_refused_hint")
def manifest_output_refused(name: str, owner: str) -> str:
    """A manifest output not named after its chart.

    The gallery's manifest.json records the hash of every input and output, and arrives through pull
    requests like any file, so chartc checks every value in it before trusting it: a build never reads
    or removes a file because the manifest names it. An output is not one of the files chartc writes for
    that chart. Restore the manifest from git, or delete it: the next build renders every chart and
    writes a new one.
    """
    return (f"{name[:200]!r} is not a file chartc writes for {owner!r}; a manifest lists only its own outputs "
            "inside the gallery folder")


@code("E821", hint="manifest_refused_hint")
def manifest_path_absolute(path: str) -> str:
    """An absolute path in the manifest.

    The gallery's manifest.json records the hash of every input and output, and arrives through pull
    requests like any file, so chartc checks every value in it before trusting it: a build never reads
    or removes a file because the manifest names it. A path is absolute. Restore the manifest from git,
    or delete it: the next build renders every chart and writes a new one.
    """
    return f"{path[:200]!r} is an absolute path; a manifest names files relative to the gallery folder"


@code("E822", hint="manifest_refused_hint")
def manifest_path_not_normal(path: str, normal: str) -> str:
    """A manifest path not in normal form.

    The gallery's manifest.json records the hash of every input and output, and arrives through pull
    requests like any file, so chartc checks every value in it before trusting it: a build never reads
    or removes a file because the manifest names it. A path is not written the way chartc writes it
    (`./`, `..` or doubled slashes). Restore the manifest from git, or delete it: the next build renders
    every chart and writes a new one.
    """
    return f"{path[:200]!r} is not a normalised path (chartc writes it {normal[:200]!r})"


@code("E823", hint="manifest_refused_hint")
def manifest_path_outside(path: str, target: str) -> str:
    """A manifest path leaving the gallery.

    The gallery's manifest.json records the hash of every input and output, and arrives through pull
    requests like any file, so chartc checks every value in it before trusting it: a build never reads
    or removes a file because the manifest names it. A path (or a symbolic link on it) leads outside the
    project. Restore the manifest from git, or delete it: the next build renders every chart and writes
    a new one.
    """
    return f"{path[:200]!r} leads outside the project (to {target[:200]})"


@code("E824", hint="manifest_refused_hint")
def manifest_path_not_regular(path: str, kind: str) -> str:
    """A manifest path that is not a regular file.

    The gallery's manifest.json records the hash of every input and output, and arrives through pull
    requests like any file, so chartc checks every value in it before trusting it: a build never reads
    or removes a file because the manifest names it. A path names a folder, a device or another file
    that is not a regular file. Restore the manifest from git, or delete it: the next build renders
    every chart and writes a new one.
    """
    return f"{path[:200]!r} is {kind}, not a regular file"


def diff_no_git() -> str:
    return "chartc diff needs git, and no `git` command was found"


def diff_not_a_repository(folder: str) -> str:
    return f"{folder} is not inside a git work tree"


def diff_unknown_revision(rev: str) -> str:
    return f"{rev!r} names no commit"


def diff_git_failed(command: str, reason: str) -> str:
    return f"`git {command}` failed: {reason}" if reason else f"`git {command}` failed"


def diff_path_outside_repository(path: str, root: str) -> str:
    return f"{path} is outside the repository at {root}: only files inside it can be compared"


def diff_no_specs_folder(folder: str) -> str:
    return (f"no specs/ folder in {folder} (what `chartc diff` compares by default): "
            f"pass the spec files or folders to compare, for example `chartc diff .`")


def diff_value_changed(path: str, before: str, after: str) -> str:
    return f"{path}: {before} -> {after}"


def diff_value_added(path: str, value: str) -> str:
    return f"{path}: added {value}"


def diff_value_removed(path: str, value: str) -> str:
    return f"{path}: removed {value}"


def diff_rows(changed: int, added: int, removed: int, before: int, after: int) -> str:
    counts = [(n, label) for n, label in ((changed, "changed"), (added, "added"), (removed, "removed")) if n]
    words = [f"{n} {'row' if n == 1 else 'rows'} {label}" if i == 0 else f"{n} {label}"
             for i, (n, label) in enumerate(counts)]
    return f"{', '.join(words)} ({before} -> {after} rows)"


def diff_columns(change: str, columns: Sequence[str]) -> str:
    noun = "column" if len(columns) == 1 else "columns"
    return f"{noun} {quoted_list(columns)} {change}"


def diff_fit_value(name: str, before: str, after: str) -> str:
    return f"{name} {before} -> {after}"


def diff_fit_changed(layer: str, changes: Sequence[str]) -> str:
    return f"fit {layer}: {', '.join(changes)}"


def diff_fit_presence(layer: str, status: str, method: str, r2: str) -> str:
    return f"fit {layer}: {status} ({method}, r2 {r2})"


def diff_error(side: str, diagnostic: str) -> str:
    return f"does not compile at {side}: {diagnostic}"


def diff_spec_unreadable() -> str:
    return "spec: changed (one side does not load)"


def diff_data_unreadable() -> str:
    return "data: changed (one side does not load)"


def diff_output_only() -> str:
    return "output: the compiled Vega-Lite changed"


def diff_text_only() -> str:
    return "text changed, the chart did not (comments or formatting)"


def diff_summary(before: str, after: str, changed: int, added: int, removed: int, unchanged: int,
                 renamed: int = 0) -> str:
    moved = f", {renamed} renamed" if renamed else ""
    return (f"{before} -> {after}: {changed} changed, {added} added, {removed} removed{moved}, "
            f"{unchanged} unchanged")


def diff_renamed_from(old: str) -> str:
    return f"renamed from {old}"


def serve_listening(url: str) -> str:
    return f"chartc serve: {url}"


def serve_changed(paths: Sequence[str]) -> str:
    return f"chartc serve: changed: {', '.join(paths)}"


def serve_built(specs: int, failing: int, seconds: float) -> str:
    problems = f"; {failing} with problems" if failing else ""
    return f"chartc serve: built {specs} spec{'s' if specs != 1 else ''} in {seconds:.2f} s{problems}"


def serve_build_crashed(reason: str) -> str:
    return f"chartc serve: the build failed: {reason}; still serving the last good gallery"


def serve_stopped() -> str:
    return "chartc serve: stopped"


def serve_problem_count(count: int) -> str:
    return f"{count} problem{'s' if count != 1 else ''}"


def serve_port_unavailable(port: int, reason: str) -> str:
    return f"cannot listen on 127.0.0.1:{port}: {reason}"


def serve_watch_failed(reason: str) -> str:
    return f"chartc serve: could not check the spec files: {reason}; trying again"


def serve_request_failed(reason: str) -> str:
    return f"chartc serve: a request failed: {reason}; still serving"


def serve_http_error(code: int, phrase: str, reason: str) -> str:
    """The plain-text body of every error response of `chartc serve`."""
    return f"{code} {phrase}: {reason}"


def serve_host_refused(port: int) -> str:
    return (f"this server answers only requests for 127.0.0.1:{port}, localhost:{port} or [::1]:{port} "
            "(the Host header)")


def serve_host_missing() -> str:
    return "a request needs exactly one Host header"


def serve_bad_request_line() -> str:
    return "a request line is: METHOD /path HTTP/1.x"


def serve_head_too_large(limit: int) -> str:
    return f"the request line and headers are over {limit} bytes"


def serve_target_too_long(limit: int) -> str:
    return f"the request target is over {limit} characters"


def serve_target_not_a_path() -> str:
    return "the request target must be a path starting with '/' (not a full URL)"


def serve_target_not_ascii() -> str:
    return "the request target may hold only printable ASCII (percent-encode the rest)"


def serve_target_bad_escape() -> str:
    return "'%' in a path must be followed by two hex digits"


def serve_target_not_utf8() -> str:
    return "the path is not UTF-8 once percent-decoded"


def serve_target_control() -> str:
    return "the path holds a control character"


def serve_target_dot_segment() -> str:
    return "'.' and '..' path segments are not served"


def new_file_exists(path: str) -> str:
    return f"{path} already exists; choose another name (chartc new never overwrites a file)"


def new_written(path: str, template: str) -> str:
    return f"wrote {path} from the {template} template; preview it with: chartc serve {path}"


def new_schema_written(path: str) -> str:
    return f"wrote {path}, the chart schema the new spec's $schema points at (commit it with your specs)"


def project_file_unwritable(path: str, reason: str) -> str:
    return f"cannot write {path}: {reason}"


def init_not_a_folder(path: str) -> str:
    return f"{path} is a file; chartc init takes the project's folder"


def init_schema_written(path: str) -> str:
    return f"wrote {path}: the chart schema, for a spec's $schema and editor completion"


def init_schema_updated(path: str) -> str:
    return f"updated {path} from another chartc version"


def init_schema_current(path: str) -> str:
    return f"{path} is up to date"


def init_schema_is_source(path: str) -> str:
    return f"{path} is the schema chartc itself reads (a chartc checkout): left alone"


def init_settings_written(path: str) -> str:
    return f"wrote {path}: VS Code's YAML extension checks specs against the schema"


def init_settings_configured(path: str) -> str:
    return f"{path} already names the schema: left alone"


def init_settings_exists(path: str, snippet: str) -> str:
    return f"{path} exists and is left alone; for completion in VS Code, add to it:\n{snippet}"


def unknown_code(code: str, close: Sequence[str]) -> str:
    guess = f" (did you mean {' or '.join(close)}?)" if close else ""
    return f"unknown diagnostic code {code!r}{guess}; `chartc explain` lists every code"


# ------------------------------------------------------------------ the Python API and the notebook

@code("E825", hint="table_not_passed_hint")
def table_not_passed(name: str) -> str:
    """A spec whose data is a table passed from Python, compiled without one.

    `data: {frame: NAME}` reads the rows of a DataFrame (pandas, Polars), a pyarrow Table or any Arrow
    table that a Python caller passes: `chartc.from_spec(spec, data={NAME: df})`, or a variable of a
    notebook named by the `%%chartc` cell. The command line has no such table: write the rows to a file
    and use `data: {path: ...}` (`Chart.to_yaml(data_path=...)` does both).

    Example:
        data: {frame: runs}
        mark: point
        encoding:
          x: step
          y: loss
    """
    return f"the data is the table {name!r} passed from Python, and no table was passed"


def table_not_passed_hint(name: str = "NAME") -> str:
    return f"chartc.from_spec(spec, data={{{name!r}: df}}), or `%%chartc` in a notebook where {name} is a DataFrame"


@code("E826")
def table_not_named(name: str, names: Sequence[str]) -> str:
    """A spec naming a table that was not passed.

    The spec's `data: {frame: NAME}` names a table the caller did not pass: `data=` maps other names
    (or, in a notebook, no variable of that name holds a DataFrame). The names must match exactly.
    """
    given = f"the tables passed are {quoted_list(names)}" if names else "no table was passed"
    return f"no table named {name!r}: {given}"


@code("E827", hint="table_and_source_hint")
def table_and_source(key: str) -> str:
    """A table passed to a spec that reads its rows from elsewhere.

    A DataFrame was passed (`data=`, or a `%%chartc VARIABLE` cell) to a spec whose data names its own
    source (`path`, `values` or `dataset`). One chart draws one table: remove the spec's source to draw
    the DataFrame, or pass no table.
    """
    return f"a table was passed, and the spec reads its rows from {key!r}"


def table_and_source_hint() -> str:
    return "remove the spec's data (or write data: {frame: NAME}) to draw the table passed"


@code("E828", hint="table_type_hint")
def table_type(name: str, type_name: str) -> str:
    """A table of a type chartc cannot read.

    The object passed as the table is none of those chartc reads: a pandas DataFrame, a Polars
    DataFrame or LazyFrame, a pyarrow Table, RecordBatch, Dataset or RecordBatchReader, a DuckDB
    relation, an Ibis table expression, or any object with the Arrow PyCapsule interface
    (`__arrow_c_stream__`). A list of dicts, say, or a NumPy array: build a DataFrame from it, or give
    the rows inline as `data: {values: [...]}`.
    """
    return f"the table {name!r} is a {type_name}, which is no table chartc can read"


def table_type_hint() -> str:
    return ("pass a pandas DataFrame, a Polars DataFrame or LazyFrame, a pyarrow Table, RecordBatch, Dataset or "
            "RecordBatchReader, a DuckDB relation, an Ibis table expression, or any object with __arrow_c_stream__ "
            "(pandas.DataFrame(rows) turns a list of dicts into one)")


@code("E829")
def table_unreadable(name: str, reason: str) -> str:
    """A table the data engine cannot read.

    The DataFrame passed was handed to the data engine, which refused it: a column of nested values
    (lists, structs, dicts), a column of Python objects of mixed types, or a library the engine needs
    (pyarrow, for Polars and Arrow objects) is not installed. The reason says which.
    """
    return f"the table {name!r} cannot be read: {reason}"


@code("E830")
def notebook_variable_missing(name: str, names: Sequence[str]) -> str:
    """A `%%chartc` cell naming a variable the notebook does not have.

    `%%chartc NAME` draws the DataFrame in the notebook's variable NAME: run the cell that defines it
    first, or fix the name.
    """
    given = f"the DataFrames defined are {quoted_list(names)}" if names else "no DataFrame is defined"
    return f"%%chartc {name}: no variable {name!r} in the notebook ({given})"


def notebook_usage() -> str:
    return ("usage: %%chartc [TABLE] [--name VARIABLE] [--save FILE]  (the cell's body is a YAML spec; "
            "TABLE names a DataFrame to draw)")
