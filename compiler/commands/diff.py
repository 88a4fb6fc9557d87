"""`chartc diff`: what changed in each chart between two git revisions.

Specs and data are read straight from git (``git ls-tree``, ``git show``),
materialised into a temporary folder that mirrors the repository (so a spec's
relative data path resolves as it did at that revision), and compiled with
the normal pipeline. Per chart the report says what changed in the spec (a
structural diff of the spec's values, not of its text), in the data (rows
added, removed, changed), in the fits (R², coefficients), and which charts
were added, removed or renamed. A chart whose spec and data bytes are the
same on both sides is not compiled at all.

A spec that exists only before and one that exists only after are one
renamed chart when their texts are at least half alike (git's default
threshold for renames); it is compared with its old self, so a moved file
reads as "renamed from", plus whatever changed on the way.

Built only on `pipeline` (and the resolve stage, to read the rows).
"""

from __future__ import annotations

import base64
import difflib
import html
import json
import math
import os
import posixpath
import shutil
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .. import errors as msg
from ..errors import SpecError, format_path
from ..infra.html import page
from ..render.export import render

SPEC_SUFFIXES = (".yaml", ".yml", ".json")
DEFAULT_PATHS = ("specs",)
WORKTREE_LABEL = "working tree"
# Fits are compared at this many significant digits: less is float noise.
FIT_DIGITS = 6
# Above this many rows per side, rows are compared as multisets, not in order.
SEQUENCE_ROW_LIMIT = 20_000
# A removed and an added spec at least this alike (difflib ratio) are one renamed chart.
RENAME_SIMILARITY = 0.5


class DiffUsageError(Exception):
    """Not a git repository, an unknown revision, a path outside the repository, a git failure."""


# --------------------------------------------------------------------- git

def _git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    try:
        # Paths given to git are file names, never patterns (`[draft].yaml`) or pathspec magic.
        result = subprocess.run(["git", "--literal-pathspecs", *args], cwd=root, capture_output=True)
    except FileNotFoundError:
        raise DiffUsageError(msg.diff_no_git()) from None
    if check and result.returncode != 0:
        raise DiffUsageError(msg.diff_git_failed(" ".join(args), result.stderr.decode("utf-8", "replace").strip()))
    return result


def repository_root(cwd: str | os.PathLike = ".") -> tuple[Path, str]:
    """The work tree's top folder and the cwd's path inside it (``""`` or ``"a/b/"``)."""
    result = _git(Path(cwd), "rev-parse", "--show-toplevel", "--show-prefix", check=False)
    if result.returncode != 0:
        raise DiffUsageError(msg.diff_not_a_repository(str(Path(cwd).resolve())))
    lines = result.stdout.decode("utf-8").splitlines()
    return Path(lines[0]), (lines[1] if len(lines) > 1 else "")


def repository_path(root: Path, prefix: str, path: str | os.PathLike) -> str:
    """A path given on the command line as git names it from the repository's top folder.

    Args:
        root: the repository's top folder (`repository_root`).
        prefix: the folder the command runs in, inside `root` (``""`` or ``"a/b/"``).
        path: a file or folder, relative to that folder or absolute.

    Returns:
        A normalised POSIX path relative to `root`: ``"specs/a.yaml"``, or ``"."``
        for `root` itself (a valid git pathspec, unlike ``""``).

    Raises:
        DiffUsageError: `path` is outside the repository.
    """
    # `..` is resolved lexically from the folder git reports, as git resolves it in a pathspec.
    absolute = os.path.normpath(os.path.join(root, prefix, path))
    relative = os.path.relpath(absolute, root)
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        # An absolute path may reach the repository through a symlink (/tmp -> /private/tmp).
        relative = os.path.relpath(os.path.realpath(absolute), root)
        if relative == os.pardir or relative.startswith(os.pardir + os.sep):
            raise DiffUsageError(msg.diff_path_outside_repository(os.fspath(path), str(root)))
    return Path(relative).as_posix()


def is_revision(root: Path, name: str) -> bool:
    """Whether `name` names a commit in the repository at `root`."""
    if not name or name.startswith("-"):
        return False
    return _git(root, "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}", check=False).returncode == 0


def split_arguments(arguments: list[str], cwd: str | os.PathLike = ".") -> tuple[list[str], list[str]]:
    """``[REV_A [REV_B]] [PATHS...]`` -> (revisions, paths).

    Leading arguments that name a commit and no existing file are revisions
    (at most two); everything from the first other argument on is a path.
    """
    root, _ = repository_root(cwd)
    revisions: list[str] = []
    for index, argument in enumerate(arguments):
        if len(revisions) < 2 and not (Path(cwd) / argument).exists() and is_revision(root, argument):
            revisions.append(argument)
        else:
            return revisions, list(arguments[index:])
    return revisions, []


class Tree:
    """The files of one side of the diff: a git revision, or the work tree (rev None)."""

    def __init__(self, root: Path, rev: str | None):
        self.root = root
        self.rev = rev
        self.label = rev if rev is not None else WORKTREE_LABEL

    def list_specs(self, paths: list[str]) -> list[str]:
        """Repository-relative spec files under `paths` (as `chartc build` finds them).

        `paths` are repository-relative (`repository_path`). In the work tree
        these are the files git sees (tracked, or new and not ignored), so
        `.git`, ignored output and submodules stay out as they do at a
        revision; a file named explicitly counts even when ignored.
        """
        if self.rev is None:
            out = _git(self.root, "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                       "--", *paths).stdout
            names = [name for name in _names(out) if (self.root / name).is_file()]  # not deleted
            names.extend(path for path in paths if (self.root / path).is_file())
        else:
            out = _git(self.root, "ls-tree", "-r", "-z", "--name-only", self.rev, "--", *paths).stdout
            names = _names(out)
        return sorted({name for name in names if _is_spec(name, paths)})

    def read(self, path: str) -> bytes | None:
        """A file's bytes on this side, None when it does not exist there."""
        if path.startswith("../") or path == "..":
            return None
        if self.rev is None:
            try:
                return (self.root / path).read_bytes()
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
                return None
        result = _git(self.root, "cat-file", "blob", f"{self.rev}:{path}", check=False)
        return result.stdout if result.returncode == 0 else None


def _names(out: bytes) -> list[str]:
    return [name.decode("utf-8", "surrogateescape") for name in out.split(b"\0") if name]


def _is_spec(name: str, paths: list[str]) -> bool:
    """A spec file: the build's rule (YAML/JSON, not inside a ``data`` folder under the path given)."""
    if posixpath.splitext(name)[1] not in SPEC_SUFFIXES:
        return False
    for path in paths:
        base = path.rstrip("/")
        if name == base:
            return True
        if base == "." or name.startswith(base + "/"):
            inner = name if base == "." else name[len(base) + 1:]
            return "data" not in inner.split("/")[:-1]
    return False


# ------------------------------------------------------------------ one side

@dataclass
class Side:
    """One revision of one chart: its bytes, and (when compiled) what came of them."""

    spec_bytes: bytes | None
    data_path: str | None = None     # repository-relative data file, when the spec names one
    data_bytes: bytes | None = None
    document: object = None          # the loaded spec values (None when it does not load)
    compiled: object = None          # `Compiled`, when it compiles
    rows: list | None = None         # the resolved rows, when they resolve
    errors: list[str] = field(default_factory=list)

    @property
    def identity(self) -> tuple:
        return (self.spec_bytes, self.data_path, self.data_bytes)


def _load_values(path: str, content: bytes):
    """The spec's values (positions dropped), or a SpecError."""
    from ..stages.load import load_text  # the YAML library: only when there is a spec to read

    text = content.decode("utf-8-sig")
    return load_text(text, path, format="json" if path.lower().endswith(".json") else "yaml").data


def _read_side(tree: Tree, path: str) -> Side:
    side = Side(tree.read(path))
    if side.spec_bytes is None:
        return side
    try:
        side.document = _load_values(path, side.spec_bytes)
    except (SpecError, UnicodeDecodeError):
        return side
    data = side.document.get("data") if isinstance(side.document, dict) else None
    if isinstance(data, dict) and isinstance(data.get("path"), str) and "://" not in data["path"]:
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), data["path"]))
        if not joined.startswith("../") and joined != ".." and not posixpath.isabs(data["path"]):
            side.data_path = joined
            side.data_bytes = tree.read(joined)
    return side


def _compile_side(side: Side, tree: Tree, path: str, scratch: Path) -> None:
    """Compile a side in place (work tree) or from a copy of its files (a revision)."""
    from ..pipeline import check_spec, compile_spec  # the compiler: only when a chart changed
    from ..stages.data import read_rows

    if tree.rev is None:
        root, prefix = tree.root, ""
    else:
        root = scratch / f"side{len(list(scratch.iterdir()))}"
        (root / ".git").mkdir(parents=True)  # the project root data paths may not leave
        for name, content in ((path, side.spec_bytes), (side.data_path, side.data_bytes)):
            if name is not None and content is not None:
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_bytes(content)
        prefix = f"{tree.rev}:"
    spec_file = root / path

    def relabel(error: SpecError) -> list[str]:
        return [problem.diagnostic().replace(str(root) + os.sep, prefix) for problem in error.errors]

    try:
        side.compiled = compile_spec(spec_file)
    except SpecError as error:
        side.errors = relabel(error)
    try:  # the rows, even when a later stage fails
        chart = side.compiled.chart if side.compiled else check_spec(spec_file)[0]
        side.rows = read_rows(chart.data).records()
    except SpecError:
        side.rows = None


# --------------------------------------------------------------- structures

def show_value(value) -> str:
    """A spec value as a reader would write it: ``gray``, ``0.95``, ``[6, 4]``."""
    if isinstance(value, str):
        plain = (value and value == value.strip() and " -> " not in value and "\n" not in value
                 and _yaml_scalar(value) is None)
        return value if plain else json.dumps(value, ensure_ascii=False)
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def _yaml_scalar(text: str):
    """The non-string value a YAML reader would make of `text`, else None."""
    lowered = text.lower()
    if lowered in ("true", "false", "null", "~", ".nan", ".inf", "-.inf"):
        return lowered
    try:
        return float(text)
    except ValueError:
        return None


def diff_values(before, after, path: tuple = ()) -> list[str]:
    """Leaf-level differences between two spec values, in reading order.

    Returns:
        Lines ``PATH: OLD -> NEW``, ``PATH: added VALUE``, ``PATH: removed VALUE``.
    """
    if isinstance(before, dict) and isinstance(after, dict):
        lines = []
        for key in before:
            if key not in after:
                lines.append(msg.diff_value_removed(format_path(path + (key,)), show_value(before[key])))
            else:
                lines.extend(diff_values(before[key], after[key], path + (key,)))
        for key in after:
            if key not in before:
                lines.append(msg.diff_value_added(format_path(path + (key,)), show_value(after[key])))
        return lines
    if isinstance(before, list) and isinstance(after, list):
        if len(before) == len(after):
            return [line for index, (a, b) in enumerate(zip(before, after))
                    for line in diff_values(a, b, path + (index,))]
        lines = []
        keys_a = [json.dumps(v, sort_keys=True, default=str) for v in before]
        keys_b = [json.dumps(v, sort_keys=True, default=str) for v in after]
        matcher = difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            paired = min(i2 - i1, j2 - j1) if tag == "replace" else 0
            for offset in range(paired):
                lines.extend(diff_values(before[i1 + offset], after[j1 + offset], path + (j1 + offset,)))
            for index in range(i1 + paired, i2):
                lines.append(msg.diff_value_removed(format_path(path + (index,)), show_value(before[index])))
            for index in range(j1 + paired, j2):
                lines.append(msg.diff_value_added(format_path(path + (index,)), show_value(after[index])))
        return lines
    if before == after and type(before) is type(after):
        return []
    return [msg.diff_value_changed(format_path(path), show_value(before), show_value(after))]


def diff_rows(before: list[dict], after: list[dict]) -> str | None:
    """``1 row changed, 2 added`` (plus column changes), or None when the rows are equal."""
    columns_a = list(before[0]) if before else []
    columns_b = list(after[0]) if after else []
    parts = []
    added_columns = [c for c in columns_b if c not in columns_a]
    removed_columns = [c for c in columns_a if c not in columns_b]
    if added_columns:
        parts.append(msg.diff_columns("added", added_columns))
    if removed_columns:
        parts.append(msg.diff_columns("removed", removed_columns))
    common = [c for c in columns_a if c in columns_b]

    def key(row):
        return json.dumps([row.get(c) for c in common], default=str)

    keys_a, keys_b = [key(r) for r in before], [key(r) for r in after]
    changed = added = removed = 0
    if len(keys_a) <= SEQUENCE_ROW_LIMIT and len(keys_b) <= SEQUENCE_ROW_LIMIT:
        matcher = difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            paired = min(i2 - i1, j2 - j1) if tag == "replace" else 0
            changed += paired
            removed += (i2 - i1) - paired
            added += (j2 - j1) - paired
    else:
        only_a = Counter(keys_a) - Counter(keys_b)
        only_b = Counter(keys_b) - Counter(keys_a)
        removed, added = sum(only_a.values()), sum(only_b.values())
    if changed or added or removed:
        parts.append(msg.diff_rows(changed, added, removed, len(before), len(after)))
    return ", ".join(parts) if parts else None


def _number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def _differs(a, b) -> bool:
    a, b = _number(a), _number(b)
    if a is None or b is None:
        return (a is None) != (b is None)
    return f"{a:.{FIT_DIGITS}g}" != f"{b:.{FIT_DIGITS}g}"


def show_number(a: float | None, b: float | None) -> tuple[str, str]:
    """Both numbers at the fewest significant digits (3 or more) that tell them apart."""
    a, b = _number(a), _number(b)
    for digits in range(3, 13):
        text_a = "none" if a is None else f"{a:.{digits}g}"
        text_b = "none" if b is None else f"{b:.{digits}g}"
        if text_a != text_b:
            return text_a, text_b
    return text_a, text_b


def _fit_summaries(compiled) -> dict[tuple[str, str], dict]:
    from ..trends.fitting import line_subset, trend_summary  # numpy: loaded already by the compile

    summaries = {}
    for path, lines in (compiled.fits or {}).items():
        for line in lines:
            subset = line_subset(line)
            name = format_path(path) + ("" if subset is None else f" ({subset})")
            summaries[name] = trend_summary(line)
    return summaries


def diff_fits(before, after) -> list[str]:
    """``fit layers[1]: r2 0.786 -> 0.801, slope ...`` per trend whose numbers moved."""
    fits_a = _fit_summaries(before) if before is not None else {}
    fits_b = _fit_summaries(after) if after is not None else {}
    lines = []
    for name in [*fits_a, *(n for n in fits_b if n not in fits_a)]:
        a, b = fits_a.get(name), fits_b.get(name)
        if a is None or b is None:
            fit = a or b
            r2 = _number(fit["r2"])
            lines.append(msg.diff_fit_presence(name, "added" if a is None else "removed", fit["method"],
                                               "none" if r2 is None else f"{r2:.3g}"))
            continue
        changes = []
        if a["method"] != b["method"]:
            changes.append(msg.diff_fit_value("method", a["method"], b["method"]))
        if _differs(a["r2"], b["r2"]):
            changes.append(msg.diff_fit_value("r2", *show_number(a["r2"], b["r2"])))
        for coefficient in [*a["coefficients"], *(c for c in b["coefficients"] if c not in a["coefficients"])]:
            old, new = a["coefficients"].get(coefficient), b["coefficients"].get(coefficient)
            if _differs(old, new):
                changes.append(msg.diff_fit_value(coefficient, *show_number(old, new)))
        if a["n"] != b["n"]:
            changes.append(msg.diff_fit_value("n", str(a["n"]), str(b["n"])))
        if changes:
            lines.append(msg.diff_fit_changed(name, changes))
    return lines


def _without_provenance(vega_lite: dict) -> dict:
    usermeta = dict(vega_lite.get("usermeta") or {})
    usermeta.pop("chartc", None)
    stripped = {k: v for k, v in vega_lite.items() if k != "usermeta"}
    if usermeta:
        stripped["usermeta"] = usermeta
    return stripped


# ------------------------------------------------------------------- report

@dataclass
class ChartDiff:
    """What happened to one chart: added, removed, renamed or changed, and how."""

    path: str
    status: str                   # "added", "removed", "renamed" or "changed"
    changes: list[str]
    before: Side
    after: Side
    title: str = ""
    renamed_from: str | None = None  # its path before, when it moved

    def lines(self) -> list[str]:
        changes = [f"{self.path}: {line}" for line in self.changes]
        if self.renamed_from is not None:
            return [f"{self.path}: {msg.diff_renamed_from(self.renamed_from)}", *changes]
        if self.status != "changed":
            return [f"{self.path}: {self.status}", *changes]
        return changes


@dataclass
class DiffReport:
    """Every chart that differs between two sides, in path order."""

    before: str
    after: str
    charts: list[ChartDiff] = field(default_factory=list)
    unchanged: int = 0
    unmatched: list[str] = field(default_factory=list)  # paths asked for that exist on neither side

    @property
    def changed(self) -> bool:
        return bool(self.charts)

    def lines(self) -> list[str]:
        lines = [line for chart in self.charts for line in chart.lines()]
        counts = Counter(chart.status for chart in self.charts)
        renamed = sum(chart.renamed_from is not None for chart in self.charts)
        lines.append(msg.diff_summary(self.before, self.after, counts["changed"] + counts["renamed"] - renamed,
                                      counts["added"], counts["removed"], self.unchanged, renamed))
        return lines


def diff_charts(rev_a: str | None = "HEAD", rev_b: str | None = None, paths=(), *,
                cwd: str | os.PathLike = ".") -> DiffReport:
    """Compare every chart under `paths` between two revisions.

    Args:
        rev_a: the "before" revision (default HEAD).
        rev_b: the "after" revision; None for the working tree.
        paths: spec files or folders, relative to `cwd` or absolute (default
            ``specs``, in `cwd`).
        cwd: where the command runs (any folder of the repository).

    Returns:
        A `DiffReport`; its `changed` is False when no chart differs.

    Raises:
        DiffUsageError: not a repository, a revision that names no commit, a
            path outside the repository, or no `paths` and no ``specs`` folder.
    """
    root, prefix = repository_root(cwd)
    for rev in (rev_a, rev_b):
        if rev is not None and not is_revision(root, rev):
            raise DiffUsageError(msg.diff_unknown_revision(rev))
    given = list(paths) or list(DEFAULT_PATHS)
    wanted = [repository_path(root, prefix, path) for path in given]
    tree_a, tree_b = Tree(root, rev_a), Tree(root, rev_b)
    names = sorted(set(tree_a.list_specs(wanted)) | set(tree_b.list_specs(wanted)))
    report = DiffReport(tree_a.label, tree_b.label)
    for shown, path in zip(given, wanted):
        if not (root / path).exists() and not any(n == path or n.startswith(path + "/") for n in names):
            report.unmatched.append(os.fspath(shown))
    if report.unmatched and not paths:  # the default folder is missing: say what to pass instead
        raise DiffUsageError(msg.diff_no_specs_folder(str(Path(cwd).resolve())))
    renames = _renames(tree_a, tree_b, sorted(set(names) - set(tree_b.list_specs(wanted))),
                       sorted(set(names) - set(tree_a.list_specs(wanted))))
    moved = set(renames.values())
    scratch = Path(tempfile.mkdtemp(prefix="chartc-diff-"))
    try:
        for name in names:
            if name in moved:  # reported under its new path
                continue
            chart = _diff_chart(name, tree_a, tree_b, scratch, renames.get(name))
            if chart is None:
                report.unchanged += 1
            else:
                report.charts.append(chart)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return report


def _renames(tree_a: Tree, tree_b: Tree, removed: list[str], added: list[str]) -> dict[str, str]:
    """New path -> old path of each added spec that is a removed one moved (see `RENAME_SIMILARITY`).

    Each added spec, in path order, takes the most alike removed one left
    (the first in path order on a tie).
    """
    texts_a = {path: (tree_a.read(path) or b"").decode("utf-8", "replace") for path in removed}
    renames: dict[str, str] = {}
    for new in added:
        text = (tree_b.read(new) or b"").decode("utf-8", "replace")
        best, best_ratio = None, RENAME_SIMILARITY
        for old, old_text in texts_a.items():
            matcher = difflib.SequenceMatcher(None, old_text, text, autojunk=False)
            if matcher.real_quick_ratio() < best_ratio or matcher.quick_ratio() < best_ratio:
                continue
            ratio = 1.0 if old_text == text else matcher.ratio()
            if ratio > best_ratio or (best is None and ratio >= best_ratio):
                best, best_ratio = old, ratio
        if best is not None:
            renames[new] = best
            del texts_a[best]
    return renames


def _diff_chart(path: str, tree_a: Tree, tree_b: Tree, scratch: Path,
                old_path: str | None = None) -> ChartDiff | None:
    """How the chart at `path` changed; `old_path` is where it was before, when it moved."""
    before_path = old_path or path
    before, after = _read_side(tree_a, before_path), _read_side(tree_b, path)
    if before.identity == after.identity:
        if old_path is None:
            return None
        return ChartDiff(path, "renamed", [], before, after, _title(before, after, path), renamed_from=old_path)
    for side, tree, side_path in ((before, tree_a, before_path), (after, tree_b, path)):
        if side.spec_bytes is not None:
            _compile_side(side, tree, side_path, scratch)
    if before.spec_bytes is None or after.spec_bytes is None:
        status = "added" if before.spec_bytes is None else "removed"
        present = after if before.spec_bytes is None else before
        label = (tree_b if before.spec_bytes is None else tree_a).label
        changes = [msg.diff_error(label, line) for line in present.errors]
        return ChartDiff(path, status, changes, before, after, _title(before, after, path))

    changes = []
    if before.document is not None and after.document is not None:
        changes.extend(f"spec: {line}" for line in diff_values(before.document, after.document))
    elif before.spec_bytes != after.spec_bytes:
        changes.append(msg.diff_spec_unreadable())
    if (before.data_path, before.data_bytes) != (after.data_path, after.data_bytes) or \
            (before.rows is not None and after.rows is not None and before.rows != after.rows):
        if before.rows is not None and after.rows is not None:
            rows = diff_rows(before.rows, after.rows)
            if rows:
                changes.append(f"data: {rows}")
        elif before.data_bytes != after.data_bytes:
            changes.append(msg.diff_data_unreadable())
    if before.compiled is not None or after.compiled is not None:
        changes.extend(diff_fits(before.compiled, after.compiled))
    if not changes and before.compiled is not None and after.compiled is not None and \
            _without_provenance(before.compiled.vega_lite) != _without_provenance(after.compiled.vega_lite):
        changes.append(msg.diff_output_only())
    if before.errors != after.errors:  # broken or fixed by this change
        for side, tree in ((before, tree_a), (after, tree_b)):
            changes.extend(msg.diff_error(tree.label, line) for line in side.errors)
    if not changes and old_path is None:  # bytes differ, meaning does not (a comment, a reformatted file)
        changes.append(msg.diff_text_only())
    return ChartDiff(path, "changed", changes, before, after, _title(before, after, path), renamed_from=old_path)


def _title(before: Side, after: Side, path: str) -> str:
    for side in (after, before):
        if isinstance(side.document, dict) and isinstance(side.document.get("title"), str):
            return side.document["title"]
    return path


# --------------------------------------------------------------------- html

REPORT_STYLES = """\
  body { font-family: system-ui, sans-serif; margin: 24px; color: #222; }
  section { border-top: 1px solid #ddd; padding: 12px 0 24px; }
  h2 { font-size: 1.1em; margin: 0 0 6px; }
  h2 small { color: #666; font-weight: normal; }
  ul { margin: 6px 0 12px; font-family: ui-monospace, monospace; font-size: 0.9em; }
  .sides { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
  .side { border: 1px solid #ddd; border-radius: 6px; padding: 8px; min-height: 80px; overflow: auto; }
  .side h3 { font-size: 0.9em; margin: 0 0 6px; color: #555; }
  .side img { max-width: 100%; }
  .none { color: #888; font-style: italic; }
  .error { color: #b00020; white-space: pre-wrap; font-family: ui-monospace, monospace; font-size: 0.85em; }
"""
# The report runs no script and loads nothing: its own styles and the charts as data: images only.
REPORT_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def _side_html(side: Side, label: str) -> str:
    heading = f"<h3>{html.escape(label)}</h3>"
    if side.spec_bytes is None:
        return f'<div class="side">{heading}<p class="none">no chart</p></div>'
    if side.compiled is None:
        errors = "\n".join(side.errors) or "the spec does not compile"
        return f'<div class="side">{heading}<pre class="error">{html.escape(errors)}</pre></div>'
    # An <img> with a data: URL cannot run script or load anything, whatever the SVG holds.
    svg = base64.b64encode(render(side.compiled.vega_lite, "svg")).decode("ascii")
    return (f'<div class="side">{heading}<img alt="{html.escape(label, quote=True)}" '
            f'src="data:image/svg+xml;base64,{svg}"></div>')


def _status(chart: ChartDiff) -> str:
    return chart.status if chart.renamed_from is None else msg.diff_renamed_from(chart.renamed_from)


def report_html(report: DiffReport) -> str:
    """A self-contained page: per changed chart, its changes and before/after side by side."""
    sections = []
    for chart in report.charts:
        items = "".join(f"<li>{html.escape(line)}</li>" for line in chart.changes) or ""
        sections.append(
            f'<section><h2>{html.escape(chart.title)} <small>{html.escape(chart.path)} · {_status(chart)}</small></h2>'
            f"<ul>{items}</ul><div class=\"sides\">{_side_html(chart.before, report.before)}"
            f"{_side_html(chart.after, report.after)}</div></section>")
    title = f"chartc diff: {report.before} .. {report.after}"
    body = (f"<h1>{html.escape(title)}</h1>\n<p>{html.escape(report.lines()[-1])}</p>\n"
            + ("\n".join(sections) or "<p>No chart changed.</p>") + "\n")
    return page(title, body, csp=REPORT_CSP, styles=REPORT_STYLES)
