"""The warm renderer: one process per user that keeps the compiler imported and vl-convert started.

A cold `chartc compile spec.yaml -o x.svg` spends most of its second importing
the compiler and starting V8. `chartc daemon start` (or any `chartc validate`
or `chartc compile` run with ``CHARTC_WARM=1``, which starts one when none
runs) keeps both warm in the background; while it runs, `validate` and
`compile` send it their argument list and working folder and print what it
answers (benchmarks/bench_warm.py). It is opt-in, and it is only ever a
shortcut: when it is absent, of another install, stale or dies mid-run, the
command compiles in its own process, with the same output.

What keeps it the user's own:

- It listens on an AF_UNIX socket (no network) in ``$XDG_RUNTIME_DIR/chartc``,
  else in ``chartc-UID`` in the temporary folder, made mode 0700. The folder
  and the socket are read with ``lstat`` (a symbolic link is never followed)
  and refused, with a diagnostic (E520-E522), when they belong to another
  user or are open to the group or others.
- Both ends read the other's user id from the connection (``SO_PEERCRED``)
  and drop a connection from anyone else: Linux only (E523 elsewhere).
- A client says which chartc it is (version, `source_key` of the installed
  source, protocol); a daemon of another install or an older
  checkout answers but runs nothing, and the client compiles itself.
- The client sends paths (its argv and working folder), never file contents:
  the daemon, running as the same user, reads the same files the client could.
  It writes the outputs itself, as the command does (`write_atomic`: a
  temporary file renamed into place, under the client's umask), so a daemon
  killed mid-run leaves the previous file or the new one, never half of it,
  and the client that then compiles itself writes the same bytes again.
- It runs one command at a time, in the client's folder; the renderer runs in
  its warm worker process (`workers.engine_in_worker`'s pool, kept), so a chart
  that crashes or hangs V8 fails as it would in a cold run.
- It exits after `IDLE_MINUTES` without a run (``--idle``), or as soon as its
  socket is removed or replaced (`chartc daemon stop`, or another start).

The wire format is a 4-byte length, then that many bytes of JSON; the reply
carries the command's exit status and its stdout and stderr text, which the
client prints (stderr first: both commands write stdout last).

This module imports only the standard library at its top: the client side runs
on every `validate` and `compile` before the compiler is imported.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import stat
import sys
import time
from pathlib import Path
from typing import Callable

from ..version import __version__

PROTOCOL = 1
# Minutes without a run after which the daemon exits (`chartc daemon start --idle`).
IDLE_MINUTES = 10.0
ENVIRONMENT = "CHARTC_WARM"     # 1: use the warm renderer, starting it when none runs; 0: never use it
WARM_COMMANDS = ("validate", "compile")
SOCKET_NAME, LOCK_NAME, LOG_NAME = "daemon.sock", "daemon.lock", "daemon.log"
MAX_MESSAGE = 1 << 30           # a reply carries `compile -o -`'s Vega-Lite: large, not unbounded
HELLO_TIMEOUT = 5.0             # seconds to connect and be answered, before the run itself
START_TIMEOUT = 60.0            # seconds `chartc daemon start` waits for the daemon to answer
TICK = 5.0                      # seconds between the daemon's idle and socket checks
# Imported (and the renderer's worker started) before the daemon answers: the first run is warm too.
PRELOAD = ("chartc.api", "chartc.pipeline", "chartc.render.export", "chartc.commands.specs")


class Refused(Exception):
    """The runtime folder or the socket is not the user's alone: `line` says why, as printed."""

    def __init__(self, line: str):
        super().__init__(line)
        self.line = line


# ------------------------------------------------------------------ where it listens

def runtime_dir() -> Path:
    """The folder of this user's warm renderer: ``$XDG_RUNTIME_DIR/chartc``, else ``TMP/chartc-UID``."""
    base = os.environ.get("XDG_RUNTIME_DIR", "")
    if base and os.path.isabs(base):
        return Path(base) / "chartc"
    import tempfile  # only without a runtime folder

    return Path(tempfile.gettempdir()) / f"chartc-{os.getuid()}"


def _refused(path: Path, message: str) -> Refused:
    from .. import errors as msg

    return Refused(f"{path}: error[{message.code}]: {message} ({msg.warm_folder_hint(str(path))})")


def check_private(path: Path, folder: bool) -> bool:
    """Whether `path` exists; raises `Refused` unless it is this user's own folder (or socket), closed to others.

    Read with ``lstat``: a symbolic link is refused, never followed.
    """
    from .. import errors as msg  # only when there is something to check

    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    wanted = stat.S_ISDIR if folder else stat.S_ISSOCK
    if not wanted(info.st_mode):
        from ..infra.files import file_kind

        kind = "a file" if stat.S_ISREG(info.st_mode) else file_kind(info.st_mode)
        raise _refused(path, msg.warm_not_plain(str(path), kind, "a folder" if folder else "a socket"))
    if info.st_uid != os.getuid():
        raise _refused(path, msg.warm_not_owned(str(path), info.st_uid, os.getuid()))
    if info.st_mode & 0o077:
        raise _refused(path, msg.warm_shared(str(path), info.st_mode))
    return True


def prepare_dir(create: bool) -> Path | None:
    """The runtime folder, checked (made, mode 0700, when `create`); None when it does not exist."""
    folder = runtime_dir()
    if create:
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
    return folder if check_private(folder, folder=True) else None


@functools.cache
def source_key() -> str:
    """Which source this chartc runs, cheaply: every module's path, size and modification time, hashed.

    A daemon whose key differs (another install, or a checkout edited since it
    started) is never used. Stat-based rather than `manifest.source_hash`
    (which reads every file: ~20 ms, a tenth of a warm run): a file rewritten
    with the same bytes only costs one cold run.
    """
    import hashlib

    from ..infra.paths import PACKAGE_ROOT

    digest = hashlib.sha256(__version__.encode("utf-8"))
    folders = [str(PACKAGE_ROOT)]
    while folders:
        folder = folders.pop()
        with os.scandir(folder) as entries:
            for entry in sorted(entries, key=lambda entry: entry.name):
                if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                    folders.append(entry.path)
                elif entry.name.endswith(".py"):
                    info = entry.stat(follow_symlinks=False)
                    digest.update(f"{entry.path}\0{info.st_size}\0{info.st_mtime_ns}\0".encode("utf-8", "replace"))
    return digest.hexdigest()[:12]


def supported() -> bool:
    import socket

    return hasattr(socket, "AF_UNIX") and hasattr(socket, "SO_PEERCRED")


# ------------------------------------------------------------------ the wire

def send_message(conn, message: dict) -> None:
    data = json.dumps(message).encode("utf-8")
    conn.sendall(len(data).to_bytes(4, "big") + data)


def receive_message(conn) -> dict:
    """One message; raises ConnectionError when the other end is gone or talks nonsense."""
    size = int.from_bytes(_receive(conn, 4), "big")
    if size > MAX_MESSAGE:
        raise ConnectionError("message too large")
    try:
        message = json.loads(_receive(conn, size))
    except ValueError as error:
        raise ConnectionError(f"not a message: {error}") from None
    if not isinstance(message, dict):
        raise ConnectionError("not a message")
    return message


def _receive(conn, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = conn.recv(min(left, 1 << 20))
        if not chunk:
            raise ConnectionError("connection closed")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def peer_uid(conn) -> int:
    """The user id of the process at the other end of an AF_UNIX connection (Linux)."""
    import socket
    import struct

    _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                          struct.calcsize("3i")))
    return uid


def _connect(path: Path):
    """A connection to the daemon at `path`, whose user is checked; raises OSError."""
    import socket

    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(HELLO_TIMEOUT)
        conn.connect(str(path))
        if peer_uid(conn) != os.getuid():
            raise ConnectionRefusedError("the warm renderer runs as another user")
    except BaseException:
        conn.close()
        raise
    return conn


def hello(operation: str, **fields) -> dict:
    return {"protocol": PROTOCOL, "version": __version__, "key": source_key(), "op": operation, **fields}


def compatible(answer: dict, key: str) -> bool:
    return (answer.get("protocol") == PROTOCOL and answer.get("version") == __version__
            and answer.get("key") == key)


def ask(path: Path, operation: str, timeout: float | None = HELLO_TIMEOUT, **fields) -> dict:
    """Send one request to the daemon at `path` and return its answer; raises OSError."""
    conn = _connect(path)
    try:
        send_message(conn, hello(operation, **fields))
        conn.settimeout(timeout)  # a run takes as long as the chart: the daemon's renderer has its own timeout
        return receive_message(conn)
    finally:
        conn.close()


# ------------------------------------------------------------------ the client

def run_warm(argv: list[str]) -> int | None:
    """Run `argv` (``validate ...`` or ``compile ...``) in the warm renderer; None to run it in this process.

    Prints the command's output and returns its exit status. None (and
    nothing printed) when no warm renderer is used: none runs (one is started
    in the background under ``CHARTC_WARM=1``), it is of another install, or it
    died before answering. An unsafe runtime folder is reported (E520-E522),
    under ``CHARTC_WARM=1`` only, and the command then runs in process.
    """
    wanted = os.environ.get(ENVIRONMENT, "")
    if not argv or argv[0] not in WARM_COMMANDS or wanted == "0":
        return None
    wanted = wanted == "1"
    try:
        folder = prepare_dir(create=False)
        running = folder is not None and check_private(folder / SOCKET_NAME, folder=False)
    except Refused as refused:
        if wanted:
            print(refused.line, file=sys.stderr)
        return None
    except OSError:
        return None
    if not running:
        if wanted:
            start_in_background()
        return None
    if not supported():
        return None
    try:
        answer = ask(folder / SOCKET_NAME, "run", timeout=None, argv=list(argv), cwd=os.getcwd(),
                     umask=_umask())
    except KeyboardInterrupt:
        return 130
    except (OSError, ConnectionError, ValueError):  # gone, stale or dying mid-run: compile here
        return None
    if not answer.get("ran") or not compatible(answer, source_key()):
        return None
    status, out, err = answer.get("status"), answer.get("stdout"), answer.get("stderr")
    if not (isinstance(status, int) and isinstance(out, str) and isinstance(err, str)):
        return None
    sys.stderr.write(err)
    sys.stdout.write(out)
    return status


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def start_in_background(idle: float = IDLE_MINUTES):
    """Start ``chartc daemon run`` detached from this process (its own session, no terminal): its Popen, or None."""
    import subprocess  # only to start one

    try:
        folder = prepare_dir(create=True)
        log = os.open(folder / LOG_NAME, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC,
                      0o600)
    except (OSError, Refused):
        return None
    try:
        return subprocess.Popen([sys.executable, "-m", "chartc", "daemon", "run", "--idle", f"{idle:g}"],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                                close_fds=True)
    except OSError:
        return None
    finally:
        os.close(log)


# ------------------------------------------------------------------ chartc daemon start|stop|status|run

def daemon_command(action: str, idle: float, main: Callable[[list[str]], int]) -> int:
    """`chartc daemon ACTION`: its exit status (0 done, 1 refused or not started).

    Args:
        action: start, stop, status, or run (the daemon itself, in the foreground).
        idle: minutes without a run before the daemon exits.
        main: the command line's `main`, which the daemon runs for each client.
    """
    from .. import errors as msg

    if not supported():
        print(f"chartc: error[{msg.warm_unsupported.code}]: {msg.warm_unsupported(sys.platform)}", file=sys.stderr)
        return 1
    try:
        folder = prepare_dir(create=action in ("start", "run"))
        if folder is not None:
            check_private(folder / SOCKET_NAME, folder=False)
    except Refused as refused:
        print(refused.line, file=sys.stderr)
        return 1
    if action == "run":
        return serve(folder, idle, main)
    path = folder / SOCKET_NAME if folder is not None else None
    try:
        answer = ask(path, "status") if path is not None else None
    except (OSError, ConnectionError):
        answer = None
    key = source_key()
    if action == "status":
        if answer is None:
            print(msg.warm_not_running())
            return 1
        if not compatible(answer, key):
            print(msg.warm_incompatible(answer.get("pid"), answer.get("version"), answer.get("key"),
                                        __version__, key))
            return 1
        print(msg.warm_running(answer["pid"], __version__, key, str(path), answer.get("served", 0),
                               answer.get("idle", 0.0), answer.get("minutes", idle)))
        return 0
    if answer is not None and (action == "stop" or not compatible(answer, key)):
        _stop(path, answer)
        if action == "stop":
            print(msg.warm_stopped(answer.get("pid")))
            return 0
    elif action == "stop":
        print(msg.warm_not_running())
        return 0
    elif answer is not None:  # start: already running, and ours
        print(msg.warm_running(answer["pid"], __version__, key, str(path), answer.get("served", 0),
                               answer.get("idle", 0.0), answer.get("minutes", idle)))
        return 0
    return _start(folder, idle)


def _stop(path: Path, answer: dict) -> None:
    """Ask the daemon at `path` to exit, and wait until its socket is gone."""
    try:
        ask(path, "stop")
    except (OSError, ConnectionError):
        pass
    deadline = time.monotonic() + HELLO_TIMEOUT
    while time.monotonic() < deadline and os.path.lexists(path):
        time.sleep(0.02)


def _start(folder: Path, idle: float) -> int:
    from .. import errors as msg

    process = start_in_background(idle)
    path = folder / SOCKET_NAME
    deadline = time.monotonic() + START_TIMEOUT
    while process is not None and time.monotonic() < deadline:
        try:
            answer = ask(path, "status")
            if compatible(answer, source_key()):  # this one, or one started meanwhile by another run
                print(msg.warm_started(answer.get("pid"), str(path), answer.get("minutes", idle)))
                return 0
        except (OSError, ConnectionError):
            pass
        if process.poll() is not None and not os.path.lexists(path):
            break
        time.sleep(0.05)
    reason = f"no answer within {START_TIMEOUT:g} s"
    if process is None:
        reason = "it could not be started"
    elif process.poll() is not None:
        lines = (folder / LOG_NAME).read_text(encoding="utf-8", errors="replace").strip().splitlines()
        reason = lines[-1] if lines else f"it exited with status {process.returncode}"
    print(f"chartc: error[{msg.warm_not_started.code}]: {msg.warm_not_started(reason)}", file=sys.stderr)
    return 1


# ------------------------------------------------------------------ the daemon

def serve(folder: Path, idle: float, main: Callable[[list[str]], int]) -> int:
    """The daemon: warm up, listen on the folder's socket, run commands until idle `idle` minutes.

    One daemon per folder: it holds the folder's lock file for its life, so a
    second start exits at once (status 0) and a socket left by a daemon that
    was killed is replaced safely.
    """
    import fcntl
    import socket

    lock = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(lock)
        return 0
    path = folder / SOCKET_NAME
    key = source_key()  # before the imports: a module edited meanwhile makes this daemon unused
    pool = _warm_up()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ours = None
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # a killed daemon's socket: the lock says none listens on it
        mask = os.umask(0o177)  # the socket is made 0600
        try:
            listener.bind(str(path))
        finally:
            os.umask(mask)
        listener.listen(16)
        listener.settimeout(min(TICK, idle * 60))
        ours = os.lstat(path)
        _listen(listener, path, ours, idle, main, key)
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            now = os.lstat(path)
            if ours is not None and (now.st_dev, now.st_ino) == (ours.st_dev, ours.st_ino):
                os.unlink(path)
        pool.close()
        os.close(lock)
    return 0


WARM_UP_SPEC = {"data": {"values": [{"a": 1, "b": 2}, {"a": 2, "b": 3}]}, "mark": "point",
                "encoding": {"x": {"field": "a"}, "y": {"field": "b"}}}


def _warm_up():
    """Import the compiler, start the renderer's worker (kept: every run renders there), compile one chart."""
    import importlib

    from ..render import export, workers

    for name in PRELOAD:
        importlib.import_module(name)
    pool = workers.WorkerPool(1)
    export.set_engine_stand_in(workers.RemoteEngine(pool))
    from ..api import from_spec

    try:  # the schema validators and Altair's classes built now, not in the first run
        from_spec(WARM_UP_SPEC).render("svg")
    except Exception as error:  # noqa: BLE001  (a run will report it as the command would)
        print(f"chartc daemon: warm-up failed: {error}", file=sys.stderr)
    return pool


def _listen(listener, path: Path, ours: os.stat_result, idle: float, main, key: str) -> None:
    import socket

    started = last = time.monotonic()
    served = 0
    home = os.getcwd()
    while True:
        try:
            conn, _ = listener.accept()
        except socket.timeout:
            try:
                now = os.lstat(path)
                replaced = (now.st_dev, now.st_ino) != (ours.st_dev, ours.st_ino)
            except OSError:
                replaced = True
            if replaced or time.monotonic() - last >= idle * 60:
                return
            continue
        with conn:
            try:
                if peer_uid(conn) != os.getuid():
                    continue
                conn.settimeout(HELLO_TIMEOUT)
                request = receive_message(conn)
                answer = {"protocol": PROTOCOL, "version": __version__, "key": key, "pid": os.getpid(),
                          "served": served, "idle": time.monotonic() - last, "minutes": idle,
                          "uptime": time.monotonic() - started, "ran": False}
                operation = request.get("op")
                if operation == "run" and compatible(request, key):
                    answer.update(ran=True, **_run(request, main, home))
                    served += 1
                    last = time.monotonic()
                conn.settimeout(None)
                send_message(conn, answer)
                if operation == "stop":
                    return
            except (OSError, ConnectionError):
                continue


def _run(request: dict, main, home: str) -> dict:
    """Run one client's command as it would run in the client: its argv, its folder, its umask."""
    import contextlib
    import io

    argv, cwd, umask = request.get("argv"), request.get("cwd"), request.get("umask")
    if not (isinstance(argv, list) and all(isinstance(a, str) for a in argv) and argv[:1] in (["validate"], ["compile"])
            and isinstance(cwd, str) and isinstance(umask, int)):
        raise ConnectionError("not a run")
    os.chdir(cwd)  # OSError: the client compiles itself
    mask = os.umask(umask & 0o777)
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as end:  # argparse: a usage error, --help
                status = end.code if isinstance(end.code, int) else (0 if end.code is None else 2)
                if isinstance(end.code, str):
                    print(end.code, file=sys.stderr)
    finally:
        os.umask(mask)
        os.chdir(home)
    return {"status": status, "stdout": out.getvalue(), "stderr": err.getvalue()}
