"""The atomic commit of a build: every new output and the manifest, or nothing.

Writes are staged: every new output and the manifest go to this build's own
folder under ``.chartc-staging/`` (`infra.files.StagingArea`) first and are
renamed into place only once all of them are written (a full disk or a
read-only folder fails there, changing nothing), the manifest last. A build
killed while rendering leaves every previous file byte-identical; the next
build removes what it staged. No other file is ever taken for a temporary one.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from ...infra.files import StagingArea
from ...infra.provenance import output_hash
from ..manifest import MANIFEST_NAME, file_output_hash


class CommitFailed(Exception):
    """Writing `path` failed; `partly` when outputs before it were already replaced."""

    def __init__(self, path: Path, error: OSError, partly: bool):
        super().__init__(str(error))
        self.path, self.error, self.partly = path, error, partly


def commit_outputs(out: Path, writes: dict[str, bytes], removals: list[str], manifest: bytes) -> None:
    """Stage every write and the manifest, then rename them all into place, the manifest last.

    Everything is written in full before the first rename, so a full disk or
    a read-only folder changes nothing. A kill before the renames leaves
    every previous file as it was (the next build removes what was staged);
    the manifest goes last, so after a kill during the renames the next build
    sees which outputs are new.

    Args:
        out: the gallery folder (its lock held).
        writes: file name -> new bytes (only files whose bytes change).
        removals: file names to delete (outputs no chart owns any more).
        manifest: the new manifest's bytes (written only when they change).

    Raises:
        CommitFailed: the path that could not be written and why.
    """
    try:
        staging = StagingArea(out)
    except OSError as error:
        raise CommitFailed(error.filename or out, error, False) from None
    try:
        _stage_and_replace(out, staging, writes, removals, manifest)
    finally:
        staging.discard()


def _stage_and_replace(out: Path, staging: StagingArea, writes: dict[str, bytes], removals: list[str],
                       manifest: bytes) -> None:
    staged: list[tuple[Path, Path]] = []
    names = sorted(writes)
    if file_output_hash(out / MANIFEST_NAME) != output_hash(manifest):
        writes = {**writes, MANIFEST_NAME: manifest}
        names.append(MANIFEST_NAME)
    for name in names:
        target = out / name
        if is_folder(target):
            raise CommitFailed(target, IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR)), False)
        try:
            staged.append((staging.stage(name, writes[name]), target))
        except OSError as error:
            raise CommitFailed(target, error, False) from None
    last = staged.pop() if names and names[-1] == MANIFEST_NAME else None
    replaced = False
    for temp, target in staged:
        try:
            os.replace(temp, target)
        except OSError as error:
            raise CommitFailed(target, error, replaced) from None
        replaced = True
    for name in removals:
        try:
            (out / name).unlink(missing_ok=True)
        except OSError as error:
            raise CommitFailed(out / name, error, True) from None
    if last is not None:
        try:
            os.replace(*last)
        except OSError as error:
            raise CommitFailed(last[1], error, bool(staged or removals)) from None


def is_folder(path: Path) -> bool:
    """Whether `path` is a real folder (not a symlink to one): never an output to replace or remove."""
    return path.is_dir() and not path.is_symlink()
