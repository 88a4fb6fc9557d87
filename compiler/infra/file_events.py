"""Waking up when a file in a folder changes (Linux inotify), so `chartc serve` sees a save at once.

`chartc serve` finds changed files by comparing their stats at each poll; the
poll runs every few tens of milliseconds, so a save waited half a poll on
average before anything happened. `FileEvents.wait` ends that wait as soon as
the kernel reports a write, a rename into, a creation or a removal in one of
the watched folders. It only wakes the poll up: what changed is still decided
by the stats, so an event missed or a system without inotify (`available` is
False: macOS, Windows, a container that forbids it) costs the half poll again,
never a missed save.

May import: the standard library.
"""

from __future__ import annotations

import os
import select

# inotify(7): what counts as a change of a file in a watched folder.
_IN_MODIFY, _IN_CLOSE_WRITE, _IN_MOVED_FROM, _IN_MOVED_TO = 0x2, 0x8, 0x40, 0x80
_IN_CREATE, _IN_DELETE = 0x100, 0x200
_IN_ONLYDIR = 0x01000000
_EVENTS = _IN_MODIFY | _IN_CLOSE_WRITE | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE | _IN_ONLYDIR
_IN_NONBLOCK, _IN_CLOEXEC = 0o4000, 0o2000000
# Watches at most: the kernel's default per user is 8,192, shared with every other program.
MAX_FOLDERS = 256


class FileEvents:
    """Folders watched for changes of their files; `wait` returns early when one changes."""

    def __init__(self) -> None:
        self._fd = -1
        self._folders: set[str] = set()
        self._libc = None
        if not os.uname().sysname == "Linux":
            return
        try:
            import ctypes  # only for `chartc serve`, which imports this module

            libc = ctypes.CDLL(None, use_errno=True)
            fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        except (OSError, AttributeError):
            return
        if fd >= 0:
            self._fd, self._libc = fd, libc

    @property
    def available(self) -> bool:
        """Whether changes wake `wait` up (else it always waits its whole time)."""
        return self._fd >= 0

    def watch(self, folders) -> None:
        """Also watch these folders (each once; a folder that cannot be watched is left to the polls)."""
        if not self.available:
            return
        for folder in folders:
            name = os.path.abspath(os.fspath(folder))
            if name in self._folders or len(self._folders) >= MAX_FOLDERS:
                continue
            if self._libc.inotify_add_watch(self._fd, os.fsencode(name), _EVENTS) >= 0:
                self._folders.add(name)

    def wait(self, seconds: float) -> bool:
        """Wait until a watched folder's file changes or `seconds` passed; True when a change ended the wait."""
        if not self.available:
            return False
        ready, _, _ = select.select([self._fd], [], [], seconds)
        if not ready:
            return False
        try:
            while os.read(self._fd, 65536):  # drain: one wake-up for a burst of events
                pass
        except BlockingIOError:
            pass
        return True

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
