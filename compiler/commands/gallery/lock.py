"""The build lock: one build per gallery folder at a time.

A build holds an OS lock on ``.chartc-build.lock`` in the folder (the file
holds its pid) and a second build stops at once, writing nothing; the lock
goes with the process, so a killed build leaves no folder locked. ``chartc
build --check`` takes no lock, and only asks whether a lock file was left by
a build that no longer runs (`lock_left_over`).
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: a byte-range lock from msvcrt instead
    fcntl = None
    import msvcrt

from ...infra.files import process_alive, read_bounded

LOCK_NAME = ".chartc-build.lock"


class BuildLocked(Exception):
    """Another build holds the folder's lock; `pid` is the one it wrote."""

    def __init__(self, pid: str):
        super().__init__(pid)
        self.pid = pid


# Lock files this process holds open. A worker forked during a build would
# share the lock (flock belongs to the open file, which fork shares) and keep
# it past a killed build: a child closes its copies first thing.
_HELD_LOCKS: set[int] = set()


def _drop_inherited_locks() -> None:
    for handle in _HELD_LOCKS:
        with contextlib.suppress(OSError):
            os.close(handle)
    _HELD_LOCKS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_drop_inherited_locks)


def take_lock(out: Path) -> int:
    """Take the folder's build lock (``.chartc-build.lock``, an OS lock) and write this pid in it.

    Never waits: a second build into the same folder stops at once.

    Args:
        out: the gallery folder (it exists).

    Returns:
        The lock file's descriptor (the lock lasts while it is open); give it
        back to `release_lock`.

    Raises:
        BuildLocked: another build holds it.
        OSError: the lock file cannot be made (a read-only folder, a full disk).
    """
    path = out / LOCK_NAME
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) \
        | getattr(os, "O_NONBLOCK", 0)
    while True:
        handle = os.open(path, flags, 0o644)
        try:
            if not _try_lock(handle):
                raise BuildLocked(_holder(handle))
            # The last build removes the file on its way out: a lock taken on a
            # file already unlinked would exclude no one, so take it again.
            with contextlib.suppress(FileNotFoundError):
                if os.path.samestat(os.fstat(handle), os.stat(path, follow_symlinks=False)):
                    os.ftruncate(handle, 0)
                    os.write(handle, f"{os.getpid()}\n".encode())
                    _HELD_LOCKS.add(handle)
                    return handle
        except BaseException:
            os.close(handle)
            raise
        os.close(handle)


def _try_lock(handle: int) -> bool:
    if fcntl is None:  # Windows
        try:
            msvcrt.locking(handle, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _holder(handle: int) -> str:
    """The pid the lock's holder wrote (it writes it just after locking: wait a moment for it)."""
    for _ in range(20):
        text = os.pread(handle, 32, 0).decode("ascii", "replace").strip() if hasattr(os, "pread") else ""
        if text.isdigit():
            return text
        time.sleep(0.01)
    return "unknown"


def release_lock(out: Path, handle: int) -> None:
    """Remove the lock file, then let the lock go (closing the file releases it).

    Args:
        out: the gallery folder.
        handle: what `take_lock` returned.
    """
    with contextlib.suppress(OSError):
        os.unlink(out / LOCK_NAME)
    _HELD_LOCKS.discard(handle)
    os.close(handle)


def lock_left_over(out: Path) -> bool:
    """Whether a lock file is there whose build no longer runs (for `check`, which takes no lock)."""
    try:
        text = read_bounded(out / LOCK_NAME, 32, follow=False).decode("ascii", "replace").strip()
    except FileNotFoundError:
        return False
    except OSError:  # not a regular file: not chartc's, and nothing a build would remove
        return False
    return not (text.isdigit() and process_alive(int(text)))
