"""A data file's hash: streamed in constant memory, of a file of any size, and kept per state of the file.

A compile records it (`stages.data.read.data_identity`) and a gallery's staleness check compares with it
(`commands.manifest.current_input_hash`): both call `data_file_hash`, so the two agree on every file, and
the second look at an unchanged 1.7 GB Parquet file reads nothing of it.

This module imports nothing heavy; keep it that way (a no-op `chartc build` runs on it).
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from .files import read_blocks, read_bounded, write_atomic
from .paths import cache_dir
from .provenance import binary_blocks_hash, input_blocks_hash, is_binary

# Hashing a data file costs about what one scan of it by the engine does (1.7 GB of Parquet: ~2 s of a core).
# A file of `HASHED_ASIDE_BYTES` or more is hashed once per state: its hash is kept in chartc's cache folder
# (`paths.cache_dir`), one small file per data file, beside the file's state when it was hashed:
# (size, modification time, inode, status-change time, device), all in nanoseconds where they are times. The
# status-change time (ctime) is set by the kernel on every write, rename, truncation or `touch`, and no call
# sets it back, so a file whose state is the one recorded has not been written since it was hashed (the test
# git's index makes of a file). Two cases would escape it, and neither is recorded: a file whose times are
# within `SETTLED_NS` of the moment hashing began (its timestamps come from a clock that ticks in
# milliseconds: a second write in the same tick, of the same size, would leave them alone; git calls this
# "racily clean"), and a file whose state changed while it was hashed. What is not covered: a file system
# without inodes or status-change times that report stable values (some network mounts): their state
# changes on every look, so their hash is never taken from the cache, only recomputed.
# The 3: Parquet and Arrow files hashed as their bytes with BLAKE3 (`provenance.binary_hash`), text files by
# `input_blocks_hash` as it is; another hash, another folder (an entry of the 2 holds a Parquet file's SHA-256,
# of the 1 its hash blind to CRLF).
HASH_CACHE_FOLDER = "data-hashes-3"
SETTLED_NS = 2 * 10**9
HASH_ENTRY_BYTES = 4096
# Data files of this many bytes or more have their hash kept (and a compile hashes them on a thread of
# their own while the engine reads them: `stages.data.read.start_identity`).
HASHED_ASIDE_BYTES = 64 * 1024 * 1024
# A binary file is hashed this many bytes at a time. The thread hashing it takes the GIL back after each block
# (hashlib and the read let it go), waiting up to the interpreter's switch interval (5 ms) while the compile runs
# Python beside it: 173 MB hashed in 1.2-1.5 s by 1 MB blocks beside a busy Python thread, 0.6-0.9 s by 4-16 MB
# ones (0.2-0.4 s alone either way; docs/data-engine.md).
HASH_BLOCK_BYTES = 16 * 1024 * 1024


# What makes a data path a glob (`stages.data.read.is_glob`).
GLOB_CHARACTERS = re.compile(r"[*?\[]")


class HashAbandoned(Exception):
    """A hash no longer wanted (its `stop` was set)."""


def data_file_hash(path: Path, stop: threading.Event | None = None) -> str:
    """A data file's `provenance.file_hash` (chosen by the file's name), streamed in constant memory.

    A file of `HASHED_ASIDE_BYTES` or more is taken from the hash cache when its state there is its
    state now (`cached_hash`): then nothing of it is read; else it is hashed and put there
    (`remember_hash`).

    Args:
        path: the data file.
        stop: set, the hash is left unfinished.

    Returns:
        Its SHA-256, as `provenance.file_hash` gives it for the whole file.

    Raises:
        FileNotFoundError: there is no file at `path`.
        UnreadableFile: a folder, device, FIFO or socket.
        OSError: any other failure to read it.
        HashAbandoned: `stop` was set.
    """
    state = file_state(path)
    large = state[0] >= HASHED_ASIDE_BYTES
    cached = cached_hash(path, state) if large else None
    if cached is not None:
        return cached
    started = time.time_ns()
    if is_binary(path.name):  # its bytes, read into one buffer: nothing to look for in them
        digest = binary_blocks_hash(_until(stop, read_blocks(path, HASH_BLOCK_BYTES, reuse=True)))
    else:
        digest = input_blocks_hash(_until(stop, read_blocks(path)))
    if large:
        remember_hash(path, state, started, digest)
    return digest


def glob_matches(folder: Path, pattern: str) -> list[str]:
    """The files a glob matches relative to `folder`, as paths written like the pattern, in path order.

    The compile (`stages.data.read.data_files`) and the gallery's staleness check
    (`commands.manifest.current_input_hash`) both match through here, so they agree on what a glob holds.
    """
    found = glob.glob(pattern, root_dir=folder, recursive=True)
    return sorted(match.replace(os.sep, "/") for match in found if (Path(folder) / match).is_file())


def glob_hash(root: Path, paths: list[Path], hashes: list[str]) -> str:
    """A glob's one hash: of a "path relative to `root` (the spec's folder) \\0 file hash" line per file.

    A file added, removed, renamed or changed changes it.
    """
    listing = "".join(f"{os.path.relpath(path, root)}\0{digest}\n" for path, digest in zip(paths, hashes))
    return hashlib.sha256(listing.encode("utf-8", "surrogateescape")).hexdigest()


def file_state(path: Path) -> tuple[int, int, int, int, int]:
    """(size, modification time, inode, status-change time, device) of a file, times in nanoseconds."""
    info = os.stat(path)
    return info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns, info.st_dev


def hash_entry_path(path: Path) -> Path:
    """Where the hash cache keeps a file's hash: one entry per path."""
    name = hashlib.sha256(os.fsencode(path)).hexdigest()
    return cache_dir() / HASH_CACHE_FOLDER / f"{name}.json"


def cached_hash(path: Path, state: tuple) -> str | None:
    """The hash kept for this file in this state, or None (no entry, another state, an unreadable entry)."""
    try:
        entry = json.loads(read_bounded(hash_entry_path(path), HASH_ENTRY_BYTES))
    except (OSError, ValueError, RecursionError):
        return None
    if (not isinstance(entry, dict) or entry.get("path") != os.fsdecode(path) or entry.get("state") != list(state)
            or not isinstance(entry.get("sha256"), str) or not re.fullmatch(r"[0-9a-f]{64}", entry["sha256"])):
        return None
    return entry["sha256"]


def remember_hash(path: Path, state: tuple, started: int, digest: str) -> None:
    """Keep a file's hash for its state, when that state says the bytes hashed are the file's (see above)."""
    try:
        settled = max(state[1], state[3]) < started - SETTLED_NS and file_state(path) == state
        if settled:
            entry = hash_entry_path(path)
            entry.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(entry, json.dumps({"path": os.fsdecode(path), "state": list(state),
                                            "sha256": digest}).encode("utf-8"))
    except OSError:  # a read-only home, a full disk: the hash is made again next time
        pass


def _until(stop: threading.Event | None, blocks: Iterator) -> Iterator:
    for block in blocks:
        if stop is not None and stop.is_set():
            raise HashAbandoned
        yield block
