"""Files chartc reads and writes safely: bounded reads, atomic writes, a build's staging folder.

Reading: `read_bounded` reads a regular file of at most so many bytes, once,
without blocking on a FIFO; what it refuses is an `UnreadableFile`.
`read_blocks` reads one of any size block by block, for hashing.

Writing: every file is written atomically (`write_atomic`, `write_all`): a
reader sees the old bytes or the new ones, never half a file, and a process
killed half-way leaves the previous file intact. A gallery build stages its
files in a folder of its own (`StagingArea`); what a killed build staged is
found by `leftovers` and removed by `remove_leftovers`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from pathlib import Path


# ------------------------------------------------------------------ reading

class UnreadableFile(OSError):
    """A file `read_bounded` will not read: not a regular file, or too large."""


def read_bounded(path: str | os.PathLike, limit: int, *, follow: bool = True) -> bytes:
    """The bytes of a regular file of at most `limit` bytes, read once.

    Opened without blocking (a FIFO swapped in never stalls the build) and
    checked on the open file, so what is read is what was checked.

    Args:
        path: the file.
        limit: the largest size read.
        follow: follow a symlink at `path` (its last component); when False a
            symlink is refused.

    Returns:
        The file's bytes.

    Raises:
        FileNotFoundError: there is no file at `path`.
        UnreadableFile: a folder, device, FIFO, socket, (unfollowed) symlink,
            or a file larger than `limit`; its ``strerror`` says which.
        OSError: any other failure to open or read it.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
        if os.path.islink(path):
            raise UnreadableFile(0, "a symbolic link, not a regular file", os.fspath(path))
    try:
        handle = os.open(path, flags)
    except IsADirectoryError:
        raise UnreadableFile(0, "a folder, not a regular file", os.fspath(path)) from None
    with os.fdopen(handle, "rb", buffering=0) as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(0, f"{file_kind(info.st_mode)}, not a regular file", os.fspath(path))
        if info.st_size > limit:
            raise UnreadableFile(0, f"larger than {limit // (1024 * 1024)} MB", os.fspath(path))
        chunks, size = [], 0
        while size <= limit:
            chunk = stream.read(min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    if size > limit:  # grew while it was read
        raise UnreadableFile(0, f"larger than {limit // (1024 * 1024)} MB", os.fspath(path))
    return b"".join(chunks)


def read_blocks(path: str | os.PathLike, block: int = 1 << 20, *, reuse: bool = False):
    """The bytes of a regular file of any size, block by block (for hashing a large data file).

    Opened as `read_bounded` opens a file: without blocking, and refused
    unless it is a regular file.

    Args:
        path: the file.
        block: the most bytes yielded at a time.
        reuse: read every block into one buffer and yield a view of it, valid only until the next
            block is asked for: no new bytes object a block (1.7 GB of Parquet hashed in 2.0 s
            rather than 2.9 s, docs/data-engine.md).

    Yields:
        The file's bytes, at most `block` at a time (`memoryview`s with `reuse`).

    Raises:
        FileNotFoundError: there is no file at `path`.
        UnreadableFile: a folder, device, FIFO or socket.
        OSError: any other failure to open or read it.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        handle = os.open(path, flags)
    except IsADirectoryError:
        raise UnreadableFile(0, "a folder, not a regular file", os.fspath(path)) from None
    with os.fdopen(handle, "rb", buffering=0) as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(0, f"{file_kind(info.st_mode)}, not a regular file", os.fspath(path))
        if reuse:
            buffer = bytearray(block)
            view = memoryview(buffer)
            while size := stream.readinto(buffer):
                yield view[:size]
        else:
            while chunk := stream.read(block):
                yield chunk


def file_kind(mode: int) -> str:
    """What a non-regular file is, for messages: 'a FIFO', 'a device', ..."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"



# ------------------------------------------------------------------ writing

def write_atomic(path: str | os.PathLike, content: bytes) -> None:
    """Write `content` to `path` through a temporary file and a rename.

    A process killed half-way leaves the previous file intact. The temporary
    file (`temp_name`: ``.NAME.chartc-TOKEN.tmp``, a name no one else uses)
    is removed on failure; nothing else is ever removed by name pattern.
    """
    write_all({path: content})


def write_all(files: dict) -> None:
    """Write several files atomically, all of them or none.

    Every file is staged beside its target first; only when all are staged
    (a full disk or a read-only folder shows here) are they renamed into
    place. A target that is a folder is refused before anything is renamed,
    so the renames themselves meet no error a program can foresee.

    Args:
        files: path -> content.

    Raises:
        OSError: its ``filename`` is the target that could not be written.
            When staging failed or a target is a folder (what a full disk, a
            read-only folder or a mistyped path give), no target was replaced.
    """
    staged: list[tuple[Path, Path]] = []
    try:
        for path, content in files.items():
            path = Path(path)
            if path.is_dir() and not path.is_symlink():
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
            try:
                staged.append((stage_file(path, content), path))
            except OSError as error:
                raise type(error)(error.errno, error.strerror, str(path)) from None
        for temp, target in staged:
            os.replace(temp, target)
    finally:
        for temp, _ in staged:
            temp.unlink(missing_ok=True)


def temp_name(name: str) -> str:
    """A temporary file's name for `name`: no user file and no other process has it."""
    return f".{name}.chartc-{os.urandom(8).hex()}.tmp"


def stage_file(path: str | os.PathLike, content: bytes) -> Path:
    """Write `content` to a new temporary file beside `path` and return its name.

    The caller renames it over `path` (`os.replace`). Created exclusively
    (never through a symlink or over an existing file), with the mode an
    ordinary file gets.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return _create(path.parent / temp_name(path.name), content)


def _create(temp: Path, content: bytes) -> Path:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    handle = os.open(temp, flags, 0o666)  # the umask applies, as to any file a program writes
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return temp


# A gallery build stages its files in a folder of its own inside the output
# folder (same file system: the renames are atomic), named after its process,
# so nothing outside it is ever taken for a temporary file.
STAGING_DIR = ".chartc-staging"
STAGING_NAME = re.compile(r"^(\d{1,10})-[0-9a-f]{16}$")


class StagingArea:
    """One build's temporary files: ``OUT/.chartc-staging/PID-TOKEN/NAME``.

    Only this build writes there and `discard` removes only what it staged.
    """

    def __init__(self, folder: str | os.PathLike):
        root = Path(folder) / STAGING_DIR
        try:
            root.mkdir()
        except FileExistsError:
            if root.is_symlink() or not root.is_dir():  # not chartc's: never write through it
                raise FileExistsError(errno.EEXIST, "exists and is not chartc's staging folder", str(root)) from None
        self.path = root / f"{os.getpid()}-{os.urandom(8).hex()}"
        self.path.mkdir()
        self.staged: set[Path] = set()

    def stage(self, name: str, content: bytes) -> Path:
        """Write `content` under this build's folder; the caller renames it to OUT/`name`."""
        temp = _create(self.path / name, content)
        self.staged.add(temp)
        return temp

    def discard(self) -> None:
        """Remove every file this build staged and not yet renamed, then its folders when empty."""
        for temp in self.staged:
            temp.unlink(missing_ok=True)
        self.staged.clear()
        for folder in (self.path, self.path.parent):
            try:
                folder.rmdir()
            except OSError:  # another build's folder is still there, or a file no one staged
                break


def process_alive(pid: int) -> bool:
    """Whether a process with this id exists (one owned by another user counts)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists
        return True
    return True


def _left_over_builds(folder: str | os.PathLike, locked: bool) -> list[Path]:
    root = Path(folder) / STAGING_DIR
    if root.is_symlink() or not root.is_dir():
        return []
    builds = []
    for build in sorted(root.iterdir()):
        match = STAGING_NAME.match(build.name)
        if not match or build.is_symlink() or not build.is_dir():
            continue
        pid = int(match.group(1))
        if locked or pid == os.getpid() or not process_alive(pid):
            builds.append(build)
    return builds


def _staged_files(build: Path) -> list[Path]:
    return sorted(p for p in build.iterdir() if p.is_symlink() or not p.is_dir())


def leftovers(folder: str | os.PathLike, *, locked: bool = False) -> list[Path]:
    """Temporary files a killed build left in `folder`'s staging folder, sorted.

    A build's folder is left over when its process no longer exists, or is
    this one (a build that failed in this process before cleaning up). With
    `locked`, the caller holds the folder's build lock, so no other build is
    running and every build's folder is left over (a process id may have
    been reused since). An empty one is listed itself.
    """
    return [path for build in _left_over_builds(folder, locked) for path in (_staged_files(build) or [build])]


def remove_leftovers(folder: str | os.PathLike) -> list[Path]:
    """Delete what killed builds left in `folder`'s staging folder; returns the files removed.

    Call it holding the folder's build lock (see `gallery`): only the staging
    folder is looked at, and only its builds' folders are emptied.
    """
    removed = []
    for build in _left_over_builds(folder, True):
        for path in _staged_files(build):
            path.unlink(missing_ok=True)
            removed.append(path)
        with contextlib.suppress(OSError):  # a folder inside: not staged by chartc, left alone
            build.rmdir()
    with contextlib.suppress(OSError):
        (Path(folder) / STAGING_DIR).rmdir()
    return removed
