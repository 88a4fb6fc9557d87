"""Warm renderer processes: charts are compiled and rendered outside the main process.

vl-convert runs a JavaScript engine inside the Python process, and some
inputs take the whole process down: it aborts with SIGABRT on some text
(vl-convert#220), runs out of its V8 heap near 10⁶ points (vl-convert#210)
and hangs beyond any Python signal on a ReDoS regex in a filter expression.
A `WorkerPool` contains all three: each chart is one task in a worker
process, a task that kills its worker or outlives the timeout is that
chart's failure (`Outcome.failure` says why), the dead worker is replaced,
and every other chart is still built.

Workers are warm and reused: each imports the modules its caller names
(`preload`: for a gallery build, the compiler and the gallery itself) and
starts the JavaScript engine once, before it takes its first task (so a
task's timeout measures rendering, not start-up), then renders chart after
chart. Results come back as plain data (bytes per output); the caller writes
files. This module knows nothing of what the tasks do: the caller gives the
functions, the modules to load and the warm-up.

Processes are started with ``fork`` only while it is safe: on Linux, from a
single-threaded process that has not loaded vl-convert (whose engine threads
a forked child would inherit half-alive), which is how the command line
starts them. Otherwise with ``spawn`` (``forkserver`` would need a socket in
a temporary folder); `shared_pool` keeps them warm for a long-lived caller
such as ``chartc serve``. A worker dies with the process that started it,
and ignores Ctrl-C (the parent decides).

The pool is chartc's own, not pebble's ProcessPool, which was measured
against it (benchmarks/bench_libraries.py): pebble's pool becomes unusable
when an idle worker is killed (the OOM killer between two builds of
``chartc serve``), reports a warm-up that fails (a broken renderer) as a
broken pool with no reason, forks replacement workers from its manager
thread, and starts no faster (two workers, two tasks: ~0.4 s, ours ~0.1-0.35 s).

Nothing here changes output bytes: every worker sets TZ=UTC before its engine
starts, and SVG ids are renumbered per chart (`export.normalize_svg_ids`), so
a chart rendered alone, tenth in a worker or by another worker is the same.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import os
import signal
import sys
import threading
import time
import traceback
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .. import errors as msg
from . import export

# Seconds one chart (every format of it) may take before its worker is killed.
# A chart at `limits.MAX_MARKS` (2·10⁵ points) compiles and renders to every
# gallery format in ~30 s at ~1.2 GB on one core of the 2-core benchmark
# machine; the rest is headroom for a loaded machine.
DEFAULT_TIMEOUT = 180.0
# Seconds a new worker may take to import the rendering stack and start its engine.
STARTUP_TIMEOUT = 120.0
# A worker that dies this many times in a row before it is ready means the
# rendering stack itself is broken: stop replacing it.
MAX_STARTUP_FAILURES = 3
# Longest single wait for a result (the loop waits again): keeps `wait` within its range.
MAX_WAIT = 3600.0

Task = tuple  # (function, args): a module-level function (pickled by name) and its arguments


@dataclass(frozen=True)
class Outcome:
    """What one task gave: its value, or why it gave none."""

    value: Any = None
    failure: str | None = None  # e.g. "the renderer crashed (SIGABRT)"; None when it ran
    kind: str = "ok"            # ok, crashed, timeout, raised (an exception in the task) or broken

    @property
    def ok(self) -> bool:
        return self.failure is None


def default_jobs() -> int:
    """Worker processes for a build when none is asked for: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


# ------------------------------------------------------------------ processes

def start_method() -> str:
    """How to start a worker from this process right now: fork or spawn."""
    import multiprocessing  # ~10 ms, only when workers start: a build that renders nothing starts none

    if (sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()
            and "vl_convert" not in sys.modules and threading.active_count() == 1):
        return "fork"
    return "spawn"


def _context():
    import multiprocessing  # as in start_method

    return multiprocessing.get_context(start_method())


def _die_with_parent() -> None:
    """Linux: have the kernel kill this worker when its parent dies (even by SIGKILL).

    Strictly, when the parent *thread* that started it ends: pools are made
    and used by one long-lived thread (the main one, or `chartc serve`'s
    builder); a worker lost otherwise is replaced on the next batch.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes  # loads libffi: only in a worker, never in the process that builds

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def preload(modules: Sequence[str]) -> None:
    """Import `modules` (by name) into this process.

    A pool's workers import what their tasks need before they say they are
    ready, and the parent does so before forking them: they then share the
    imported modules instead of each importing them again (~1 s of CPU and
    ~100 MB per worker for the compiler).

    Args:
        modules: absolute module names, given by the pool's caller.
    """
    for name in modules:
        importlib.import_module(name)


def warm_renderer() -> None:
    """Start the JavaScript engine (in UTC) with one small render.

    Runs once in each new worker, before its first task. Calls vl-convert
    directly (not `export.render`), so nothing is counted as a render.
    """
    export.engine().vegalite_to_svg({"mark": "point", "data": {"values": [{"a": 1}]},
                                     "encoding": {"x": {"field": "a", "type": "quantitative"}}},
                                    allowed_base_urls=[])


def warm_engine() -> None:
    """Start only vl-convert's engine (in UTC): enough to render a compiled chart."""
    export.engine().get_themes()


def _serve(conn, warm: Callable[[], None] | None, modules: Sequence[str], parent: int) -> None:
    """A worker's life: load its modules, warm up, say ready, then run tasks until told to stop."""
    _die_with_parent()
    export.set_engine_stand_in(None)  # forked while the parent rendered through a worker: render here
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        preload(modules)
        if warm is not None:
            warm()
    except BaseException as error:  # noqa: BLE001  (reported, never raised in a worker)
        conn.send(("broken", _describe(error)))
        return
    conn.send(("ready", os.getpid()))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        function, args, cwd = message
        if cwd and cwd != os.getcwd():  # relative spec paths read as the caller means them
            os.chdir(cwd)
        try:
            reply = ("ok", function(*args))
        except BaseException as error:  # noqa: BLE001
            reply = ("raised", _describe(error))
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return
        except Exception as error:  # a result that cannot be pickled
            conn.send(("raised", _describe(error)))


def _describe(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    where = f" (at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno})" if frames else ""
    return f"{type(error).__name__}: {error}{where}"


def signal_name(code: int | None) -> str:
    """How a process ended, from its exit code: 'SIGABRT', 'exit status 3'."""
    if code is not None and code < 0:
        try:
            return signal.Signals(-code).name
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"


class Worker:
    """One warm process; tasks go one at a time through a pipe."""

    def __init__(self, context, warm: Callable[[], None] | None, modules: Sequence[str] = ()):
        self.conn, child = context.Pipe(duplex=True)
        self.process = context.Process(target=_serve, args=(child, warm, tuple(modules), os.getpid()),
                                       name="chartc-worker", daemon=True)
        sys.stdout.flush()  # a forked child must not repeat what the parent has buffered
        sys.stderr.flush()
        self.process.start()
        child.close()
        self.ready = False
        self.started = time.monotonic()
        self.task: int | None = None     # index of the task it is running
        self.deadline: float | None = None

    def send(self, index: int, task: Task, timeout: float) -> None:
        function, args = task
        self.conn.send((function, args, os.getcwd()))
        self.task, self.deadline = index, time.monotonic() + timeout

    def stop(self) -> None:
        """End the process now (SIGKILL).

        A worker keeps nothing worth a polite exit (the caller writes every
        file), and tearing down its JavaScript engine takes ~0.3 s.
        """
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()

    def end_reason(self) -> str:
        self.process.join(timeout=5)
        return signal_name(self.process.exitcode)


class WorkerPool:
    """Warm worker processes that run tasks with a timeout each; use as a context manager.

    A pool can run several batches (`run`); its workers stay warm in between
    (`chartc serve` can keep one across rebuilds).
    """

    def __init__(self, jobs: int | None = None, *, timeout: float | None = None,
                 warm: Callable[[], None] | None = warm_renderer, preload: Sequence[str] = ()):
        """
        Args:
            jobs: worker processes at most (default: `default_jobs`); started
                as needed, never more than a batch has tasks.
            timeout: seconds each task may run (default `DEFAULT_TIMEOUT`).
            warm: run in each new worker before its first task (a
                module-level function: a spawned worker imports it by name).
            preload: modules each new worker imports before `warm` (and this
                process before it forks one), so a task's timeout measures
                its own work, not imports.
        """
        self.jobs = max(1, jobs or default_jobs())
        self.timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
        self.warm = warm
        self.preload = tuple(preload)
        self.workers: list[Worker] = []
        self._lock = threading.Lock()  # one batch at a time (`chartc serve` builds from a thread)
        self._context = None
        self._startup_failures = 0
        self._broken: str | None = None  # why workers cannot start at all

    def __enter__(self) -> "WorkerPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Stop every worker."""
        workers, self.workers = self.workers, []
        for worker in workers:
            worker.stop()

    def _start(self) -> Worker:
        if self._context is None:
            self._context = _context()
        if self.preload and self._context.get_start_method() == "fork":
            preload(self.preload)  # before the fork: the workers share what this process imported
        worker = Worker(self._context, self.warm, self.preload)
        self.workers.append(worker)
        return worker

    def _retire(self, worker: Worker) -> None:
        self.workers.remove(worker)
        worker.stop()

    def run(self, tasks: Sequence[Task]) -> list[Outcome]:
        """Run every task in some worker; the outcomes come back in task order.

        See `_run`.
        """
        with self._lock:
            return self._run(tasks)

    def _run(self, tasks: Sequence[Task]) -> list[Outcome]:
        """Run every task in some worker; the outcomes come back in task order.

        A task whose worker dies (a crash, an abort, the kernel's OOM killer)
        or that runs past the timeout fails with the reason; its worker is
        replaced and the other tasks still run. An exception a task raises is
        its failure too (the worker lives on).
        """
        outcomes: list[Outcome | None] = [None] * len(tasks)
        pending = deque(range(len(tasks)))
        want = min(self.jobs, len(tasks))
        while len(self.workers) < want:
            self._start()
        from multiprocessing.connection import wait  # loaded with the first worker already

        while pending or any(w.task is not None for w in self.workers):
            if self._broken:
                for index in pending:
                    outcomes[index] = Outcome(failure=self._broken, kind="broken")
                pending.clear()
                if not any(w.task is not None for w in self.workers):
                    break
            for worker in list(self.workers):
                if worker.ready and worker.task is None and pending:
                    index = pending.popleft()
                    try:
                        worker.send(index, tasks[index], self.timeout)
                    except (OSError, ValueError):  # died while idle: start another, retry the task
                        pending.appendleft(index)
                        self._replace(worker, pending)
            # fewer workers than wanted (one was retired) while work remains
            while pending and not self._broken and len(self.workers) < min(self.jobs, len(pending) + self._busy()):
                self._start()
            if not self.workers:
                break
            now = time.monotonic()
            deadlines = [w.deadline if w.task is not None else w.started + STARTUP_TIMEOUT
                         for w in self.workers if w.task is not None or not w.ready]
            wait_for = min(max(0.0, min(deadlines) - now), MAX_WAIT) if deadlines else None
            ready = wait([w.conn for w in self.workers] + [w.process.sentinel for w in self.workers], wait_for)
            for worker in list(self.workers):
                if worker.conn in ready or (worker.process.sentinel in ready and _poll(worker.conn)):
                    self._receive(worker, outcomes, pending)
                elif worker.process.sentinel in ready:
                    self._died(worker, outcomes, pending)
            now = time.monotonic()
            for worker in list(self.workers):
                if worker.task is not None and worker.deadline is not None and now >= worker.deadline:
                    outcomes[worker.task] = Outcome(failure=timed_out(self.timeout), kind="timeout")
                    worker.task = None
                    self._retire(worker)
                elif not worker.ready and now >= worker.started + STARTUP_TIMEOUT:
                    self._retire(worker)
                    self._startup_failed(f"a worker did not start within {STARTUP_TIMEOUT:.0f} s")
        return [o if o is not None else Outcome(failure=self._broken or "not run", kind="broken") for o in outcomes]

    def _busy(self) -> int:
        return sum(1 for w in self.workers if w.task is not None)

    def _replace(self, worker: Worker, pending) -> None:
        self._retire(worker)
        if pending and not self._broken:
            self._start()

    def _receive(self, worker: Worker, outcomes, pending) -> None:
        try:
            kind, payload = worker.conn.recv()
        except (EOFError, OSError):
            self._died(worker, outcomes, pending)
            return
        except Exception as error:  # noqa: BLE001  (a result the parent cannot unpickle)
            kind, payload = "raised", _describe(error)
        if kind == "ready":
            worker.ready = True
            self._startup_failures = 0
        elif kind == "broken":
            self._retire(worker)
            self._startup_failed(f"the renderer could not start: {payload}")
        else:
            index, worker.task, worker.deadline = worker.task, None, None
            if index is not None:
                outcomes[index] = (Outcome(value=payload) if kind == "ok"
                                   else Outcome(failure=raised(payload), kind="raised"))

    def _died(self, worker: Worker, outcomes, pending) -> None:
        reason = worker.end_reason()
        index = worker.task
        self._retire(worker)
        if index is not None:
            outcomes[index] = Outcome(failure=crashed(reason), kind="crashed")
        elif not worker.ready:
            self._startup_failed(f"the renderer could not start ({reason})")

    def _startup_failed(self, reason: str) -> None:
        self._startup_failures += 1
        if self._startup_failures >= MAX_STARTUP_FAILURES:
            self._broken = reason


def _poll(conn) -> bool:
    try:
        return conn.poll()
    except (OSError, EOFError):
        return False


def crashed(reason: str) -> str:
    """Why a task failed when its worker process died."""
    return msg.render_crashed(reason)


def timed_out(seconds: float) -> str:
    """Why a task failed when it ran past the pool's timeout."""
    return msg.render_timed_out(seconds)


def raised(description: str) -> str:
    """Why a task failed when it raised an exception (`description`: its type, message and place)."""
    return msg.render_raised(description)


_shared: WorkerPool | None = None


def shared_pool(jobs: int | None = None, timeout: float | None = None, preload: Sequence[str] = ()) -> WorkerPool:
    """This process's warm pool for gallery builds, kept between builds.

    A second build (``chartc serve`` after a save, a test) finds its workers
    warm: ~0.1 s instead of ~1 s of imports and engine start. It has `jobs`
    workers at most and loads `preload` (see `WorkerPool`); other values
    start a new pool. Its workers end with the process, or with
    `close_shared_pool`.
    """
    global _shared
    jobs = max(1, jobs or default_jobs())
    if _shared is not None and (_shared.jobs != jobs or _shared.preload != tuple(preload)):
        close_shared_pool()
    if _shared is None:
        _shared = WorkerPool(jobs, preload=preload)
        atexit.register(close_shared_pool)
    _shared.timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
    return _shared


def close_shared_pool() -> None:
    """Stop the workers of `shared_pool` (if any)."""
    global _shared
    pool, _shared = _shared, None
    if pool is not None:
        pool.close()


# ------------------------------------------------------------------ one chart

class RenderFailed(Exception):
    """The renderer's worker died or hung; `outcome.failure` says how."""

    def __init__(self, outcome: Outcome):
        super().__init__(outcome.failure)
        self.outcome = outcome


def call_engine(name: str, args: tuple, kwargs: dict):
    """Run one vl-convert function in this (worker) process.

    A ValueError (how vl-convert refuses a chart) comes back as a value, so
    the caller can raise it again as the same ValueError.
    """
    try:
        return ("ok", getattr(export.engine(), name)(*args, **kwargs))
    except ValueError as error:
        return ("ValueError", str(error))


class RemoteEngine:
    """Stands in for the vl_convert module: each call runs in the worker."""

    def __init__(self, pool: WorkerPool):
        self._pool = pool

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args, **kwargs):
            outcome = self._pool.run([(call_engine, (name, args, kwargs))])[0]
            if not outcome.ok:
                raise RenderFailed(outcome)
            kind, value = outcome.value
            if kind == "ValueError":
                raise ValueError(value)
            return value

        return call


@contextlib.contextmanager
def engine_in_worker(timeout: float | None = None):
    """vl-convert in one warm worker process for the duration of the block.

    For `chartc compile`: the worker starts the JavaScript engine (~0.45 s)
    while this process imports and compiles the chart on another core, and a
    renderer that aborts or hangs raises `RenderFailed` here instead of
    ending chartc. Only while this process has not started vl-convert
    itself (then it is warm already, and used as it is).
    """
    if export.engine_started() or export.engine_stand_in() is not None:
        yield
        return
    try:
        pool = WorkerPool(1, timeout=timeout, warm=warm_engine)
        pool._start()  # now: the engine starts while this process compiles
    except OSError:  # no processes to be had: render here
        yield
        return
    export.set_engine_stand_in(RemoteEngine(pool))
    try:
        yield
    finally:
        export.set_engine_stand_in(None)
        pool.close()
