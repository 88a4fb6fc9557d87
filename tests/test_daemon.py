"""The warm renderer (`chartc daemon`, `CHARTC_WARM`): who may use it, and that it changes no output.

The safety checks run in process against folders and sockets made here; the
tests that start a daemon (slow) give it a runtime folder of its own through
``XDG_RUNTIME_DIR``, so they never meet the user's.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from chartc import errors as msg
from chartc.commands import cli, daemon

from conftest import ROOT

SPEC = "specs/seed_pretraining.yaml"
INVALID_SPEC = "tests/cases/invalid/field_not_in_data.yaml"


@pytest.fixture
def runtime(tmp_path, monkeypatch) -> Path:
    """A private XDG_RUNTIME_DIR: the warm renderer's folder is RUNTIME/chartc."""
    base = tmp_path / "run"
    base.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(base))
    monkeypatch.delenv(daemon.ENVIRONMENT, raising=False)
    return base


def refusal(path: Path, message: str) -> str:
    return f"{path}: error[{message.code}]: {message} ({msg.warm_folder_hint(str(path))})"


# ------------------------------------------------------------------ the folder and the socket

def test_the_folder_is_made_private_under_the_runtime_dir(runtime):
    folder = daemon.prepare_dir(create=True)
    assert folder == runtime / "chartc"
    info = os.lstat(folder)
    assert (info.st_mode & 0o777, info.st_uid) == (0o700, os.getuid())


def test_without_a_runtime_dir_the_folder_is_named_with_the_uid(monkeypatch, tmp_path):
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    assert daemon.runtime_dir() == tmp_path / f"chartc-{os.getuid()}"


def test_a_folder_open_to_others_is_refused(runtime, capsys):
    folder = runtime / "chartc"
    folder.mkdir(mode=0o700)
    folder.chmod(0o755)
    with pytest.raises(daemon.Refused) as refused:
        daemon.prepare_dir(create=True)
    assert refused.value.line == refusal(folder, msg.warm_shared(str(folder), os.lstat(folder).st_mode))
    assert "has permissions 0755, open to the group or others" in refused.value.line
    # the command says so, positioned at the folder, and exits 1 without a traceback
    assert cli.main(["daemon", "start"]) == 1
    assert capsys.readouterr().err == refused.value.line + "\n"
    assert sorted(folder.iterdir()) == []  # nothing was made in it


def test_a_folder_of_another_user_is_refused(runtime, monkeypatch):
    folder = runtime / "chartc"
    folder.mkdir(mode=0o700)
    mine = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: mine + 1)  # as another user would see it
    with pytest.raises(daemon.Refused) as refused:
        daemon.prepare_dir(create=False)
    assert refused.value.line == refusal(folder, msg.warm_not_owned(str(folder), mine, mine + 1))
    assert f"belongs to user {mine}, not to you (user {mine + 1})" in refused.value.line


def test_a_symlinked_folder_is_refused_and_not_followed(runtime, tmp_path, capsys):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (runtime / "chartc").symlink_to(elsewhere)
    line = refusal(runtime / "chartc", msg.warm_not_plain(str(runtime / "chartc"), "a symbolic link", "a folder"))
    with pytest.raises(daemon.Refused) as refused:
        daemon.prepare_dir(create=True)
    assert refused.value.line == line
    assert cli.main(["daemon", "status"]) == 1
    assert capsys.readouterr().err == line + "\n"
    assert list(elsewhere.iterdir()) == []


def test_a_socket_that_is_not_one_or_is_open_is_refused(runtime):
    folder = daemon.prepare_dir(create=True)
    path = folder / daemon.SOCKET_NAME
    path.write_text("")
    with pytest.raises(daemon.Refused) as refused:
        daemon.check_private(path, folder=False)
    assert refused.value.line == refusal(path, msg.warm_not_plain(str(path), "a file", "a socket"))
    path.unlink()
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))
        path.chmod(0o666)
        with pytest.raises(daemon.Refused) as refused:
            daemon.check_private(path, folder=False)
        assert refused.value.line == refusal(path, msg.warm_shared(str(path), os.lstat(path).st_mode))


def test_a_client_reports_an_unsafe_folder_only_when_it_asked_for_the_daemon(runtime, monkeypatch, capsys):
    folder = runtime / "chartc"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    assert daemon.run_warm(["compile", SPEC, "-o", "x.svg"]) is None
    assert capsys.readouterr() == ("", "")  # not asked for: no daemon of ours can be there, nothing said
    monkeypatch.setenv(daemon.ENVIRONMENT, "1")
    assert daemon.run_warm(["compile", SPEC, "-o", "x.svg"]) is None  # compiled in process
    assert capsys.readouterr().err == refusal(folder, msg.warm_shared(str(folder), os.lstat(folder).st_mode)) + "\n"
    assert list(folder.iterdir()) == []  # no daemon started in it


def test_without_a_daemon_the_client_compiles_itself_silently(runtime, capsys):
    assert daemon.run_warm(["validate", "--full", SPEC]) is None
    assert daemon.run_warm(["build"]) is None  # only validate and compile are handed over
    assert capsys.readouterr() == ("", "")
    assert not (runtime / "chartc").exists()


def test_the_peer_user_is_read_from_the_connection():
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        assert daemon.peer_uid(left) == os.getuid() == daemon.peer_uid(right)


# ------------------------------------------------------------------ a daemon that is not ours

class FakeDaemon:
    """A listener on the runtime folder's socket that answers every connection with `answer`."""

    def __init__(self, answer: dict | None):
        self.path = daemon.prepare_dir(create=True) / daemon.SOCKET_NAME
        self.listener = socket.socket(socket.AF_UNIX)
        mask = os.umask(0o177)
        self.listener.bind(str(self.path))
        os.umask(mask)
        self.listener.listen(4)
        self.requests: list[dict] = []
        self.answer = answer
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        conn, _ = self.listener.accept()
        with conn, contextlib.suppress(ConnectionError, OSError):
            self.requests.append(daemon.receive_message(conn))
            if self.answer is not None:  # None: dies mid-request, without an answer
                daemon.send_message(conn, self.answer)

    def close(self):
        self.thread.join(5)
        self.listener.close()


@pytest.mark.parametrize("answer", [
    {"protocol": daemon.PROTOCOL, "version": "0.0.0-other", "ran": True, "status": 0, "stdout": "X", "stderr": ""},
    {"protocol": daemon.PROTOCOL + 1, "ran": True, "status": 0, "stdout": "X", "stderr": ""},
    None,
], ids=["other-version", "other-protocol", "dies-mid-request"])
def test_a_daemon_of_another_install_or_dying_is_ignored(runtime, answer, capsys):
    if answer is not None:
        answer = {"key": daemon.source_key(), "version": daemon.__version__, **answer}
    fake = FakeDaemon(answer)
    try:
        assert daemon.run_warm(["compile", SPEC, "-o", "x.svg"]) is None  # the caller compiles in process
    finally:
        fake.close()
    assert capsys.readouterr() == ("", "")
    (request,) = fake.requests  # it was asked, with paths only
    assert request["argv"] == ["compile", SPEC, "-o", "x.svg"] and request["cwd"] == os.getcwd()
    assert (request["version"], request["key"]) == (daemon.__version__, daemon.source_key())


def test_a_daemon_running_as_another_user_is_not_asked(runtime, monkeypatch):
    fake = FakeDaemon({"ran": True})
    mine = os.getuid()
    try:
        # the folder and socket pass as the other user's own, but the connection says who listens
        monkeypatch.setattr(daemon, "check_private", lambda path, folder: True)
        monkeypatch.setattr(os, "getuid", lambda: mine + 1)
        assert daemon.run_warm(["validate", SPEC]) is None
    finally:
        fake.close()
    assert fake.requests == []  # it hung up before sending anything


# ------------------------------------------------------------------ a real daemon (processes)

def chartc(*args: str, env: dict, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "chartc", *args], cwd=cwd, env=env, capture_output=True,
                          timeout=180)


@pytest.fixture
def started(runtime):
    """A daemon started with `chartc daemon start` in a private runtime folder: (env, pid); stopped after."""
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    env.pop(daemon.ENVIRONMENT, None)
    done = chartc("daemon", "start", env=env)
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout.decode().split("(pid ", 1)[1].split(",", 1)[0])
    yield env, pid
    chartc("daemon", "stop", env=env)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def served(env: dict) -> int:
    status = chartc("daemon", "status", env=env)
    assert status.returncode == 0, status.stderr
    return int(status.stdout.decode().split("): ", 1)[1].split(" runs", 1)[0])


@pytest.mark.slow
def test_the_daemon_gives_the_same_bytes_as_a_cold_run(started, tmp_path):
    env, _ = started
    cold_env = {**env, daemon.ENVIRONMENT: "0"}
    runs = [("compile", SPEC, "-o", "{out}/chart.svg"), ("compile", SPEC, "-o", "-"),
            ("compile", SPEC, "-o", "{out}/chart.vl.json", "--fits", "{out}/fits.json"),
            ("validate", "--full", SPEC, INVALID_SPEC), ("compile", INVALID_SPEC, "-o", "{out}/bad.svg"),
            ("compile", SPEC, "-o", "{out}/chart.txt")]  # a usage error: exit 2
    for mode in ("cold", "warm"):
        (tmp_path / mode).mkdir()
    before = served(env)
    for run in runs:
        results = {}
        for mode, run_env in (("cold", cold_env), ("warm", env)):
            done = chartc(*(arg.format(out=tmp_path / mode) for arg in run), env=run_env)
            results[mode] = (done.returncode, done.stdout, done.stderr.replace(str(tmp_path / mode).encode(), b"OUT"))
        assert results["warm"] == results["cold"], run
    assert served(env) == before + len(runs)  # every warm run was the daemon's
    outputs = sorted(p.name for p in (tmp_path / "cold").iterdir())
    assert outputs == ["chart.svg", "chart.vl.json", "fits.json"]
    for name in outputs:
        assert (tmp_path / "warm" / name).read_bytes() == (tmp_path / "cold" / name).read_bytes(), name
    assert (tmp_path / "warm" / "chart.svg").stat().st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.mark.slow
def test_a_daemon_killed_mid_request_leaves_the_client_to_compile(started, tmp_path):
    env, pid = started
    os.kill(pid, signal.SIGSTOP)  # it accepts nothing more: the client's request waits in its socket
    client = subprocess.Popen([sys.executable, "-m", "chartc", "compile", SPEC, "-o", tmp_path / "warm.svg"],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(1.0)
    assert client.poll() is None  # waiting for the daemon's answer
    os.kill(pid, signal.SIGKILL)
    out, err = client.communicate(timeout=180)
    cold = chartc("compile", SPEC, "-o", tmp_path / "cold.svg", env={**env, daemon.ENVIRONMENT: "0"})
    assert (client.returncode, out, err) == (cold.returncode, cold.stdout, cold.stderr) == (0, b"", b"")
    assert (tmp_path / "warm.svg").read_bytes() == (tmp_path / "cold.svg").read_bytes()


@pytest.mark.slow
def test_a_daemon_of_another_source_runs_nothing(started, tmp_path, monkeypatch):
    env, _ = started
    monkeypatch.setattr(daemon, "source_key", lambda: "0123456789ab")  # this client is another checkout
    path = Path(env["XDG_RUNTIME_DIR"]) / "chartc" / daemon.SOCKET_NAME
    answer = daemon.ask(path, "run", timeout=60, argv=["compile", SPEC, "-o", str(tmp_path / "x.svg")],
                        cwd=str(ROOT), umask=0o022)
    assert answer["ran"] is False and answer["key"] != "0123456789ab"
    assert not (tmp_path / "x.svg").exists()
    assert served(env) == 0
    status = chartc("daemon", "status", env=env)  # the real command agrees: same key
    assert status.returncode == 0


@pytest.mark.slow
def test_the_daemon_exits_when_idle_and_removes_its_socket(runtime):
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    done = chartc("daemon", "start", "--idle", "0.02", env=env)  # 1.2 s
    assert done.returncode == 0, done.stderr
    path = runtime / "chartc" / daemon.SOCKET_NAME
    assert path.is_socket()
    deadline = time.monotonic() + 30
    while path.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not path.exists()
    assert chartc("daemon", "status", env=env).stdout.decode() == msg.warm_not_running() + "\n"


@pytest.mark.slow
def test_chartc_warm_starts_a_daemon_and_the_next_run_uses_it(runtime):
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), daemon.ENVIRONMENT: "1"}
    first = chartc("validate", SPEC, env=env)
    assert (first.returncode, first.stderr) == (0, b"")
    path = runtime / "chartc" / daemon.SOCKET_NAME
    deadline = time.monotonic() + 60
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    try:
        second = chartc("validate", SPEC, env=env)
        assert (second.returncode, second.stderr) == (0, b"")
        assert served(env) == 1
    finally:
        chartc("daemon", "stop", env=env)


def test_the_wire_format_refuses_what_is_not_a_message():
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        daemon.send_message(left, {"op": "status"})
        assert daemon.receive_message(right) == {"op": "status"}
        left.sendall((5).to_bytes(4, "big") + b"[1,2]")
        with pytest.raises(ConnectionError, match="not a message"):
            daemon.receive_message(right)
        left.sendall((daemon.MAX_MESSAGE + 1).to_bytes(4, "big"))
        with pytest.raises(ConnectionError, match="too large"):
            daemon.receive_message(right)
        left.sendall((10).to_bytes(4, "big") + b"{}")  # 2 bytes of 10, then the other end closes
        left.close()
        with pytest.raises(ConnectionError, match="closed"):
            daemon.receive_message(right)
