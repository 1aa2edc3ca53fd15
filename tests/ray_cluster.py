"""A real Ray cluster on this machine, for the tests and ``make bench-ray``: a head node and worker nodes.

Each node is its own ``ray start --block`` process (``--head`` for the first, ``--address`` for the
others), in a session of its own, on free ports (none of Ray's defaults: another Ray on the machine
is left alone), under a temporary folder of its own, with Ray's usage reports off and a token of
its own (Ray's token authentication: ``RAY_AUTH_TOKEN`` in the environment, which Ray takes before
``~/.ray/auth_token``; nothing is written there). :class:`LocalCluster` is a context manager; leaving
it stops every process the cluster started, whatever happened inside:

- each node's session (``ray start`` and what it spawned: GCS, raylet, dashboard, agents, workers,
  each worker in a process group of its own) gets SIGTERM, then SIGKILL for what is left;
- then any process still carrying this cluster's marker in its environment (a job's entrypoint,
  which Ray starts in a session of its own) is killed by its id.

If the process that made the cluster dies without leaving it (SIGKILL), each ``ray start`` gets
SIGTERM from the kernel (``PR_SET_PDEATHSIG``, armed for the thread that started it) and stops its
node; only the temporary folder stays behind then. Nothing here uses ``ray stop``: that would stop
every Ray on the machine.

``env`` is the environment a driver needs (``chunker DIR -o OUT --ray ADDRESS``, ``ray job submit``):
the token, ``PYTHONPATH`` = this checkout, so that the nodes and the drivers import its code, and
this Python's folder first on ``PATH``, as where this environment is active (a job's ``python``).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
# The `ray` of this environment (beside its python), else the one on PATH.
RAY = next((str(p) for p in [Path(sys.executable).with_name("ray")] if p.exists()), shutil.which("ray") or "ray")
MARKER = "CHUNKER_TEST_RAY_CLUSTER"  # in every cluster process's environment: how leftovers are found
STARTED = "Ray runtime started."  # what `ray start` prints once its node is registered with the head
OBJECT_STORE = 100 * 1024 * 1024  # bytes per node: the tests' documents are small (Ray's floor is 75 MiB)


def free_port() -> int:
    """A TCP port nobody listens on now (the OS's pick)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Node:
    """One ``ray start --block`` process: its name, the process, the file its output goes to."""

    name: str
    process: subprocess.Popen[bytes]
    log: Path
    log_file: IO[bytes] = field(repr=False)

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


class ClusterError(RuntimeError):
    """A node did not start; the message holds the end of its output."""


class LocalCluster:
    """A head node (``head_cpus`` CPUs, the dashboard and job server with ``dashboard``), then
    :meth:`add_worker` for each worker node. ``with LocalCluster() as cluster: cluster.add_worker()``.

    ``address`` is the head's ``host:port`` (for ``--ray`` and ``ray.init``), ``dashboard_url`` the job
    server's URL (for ``ray job submit --address``), ``startup_s`` the seconds each node took to start.
    """

    def __init__(self, *, head_cpus: int = 1, dashboard: bool = True, start_timeout: float = 120.0) -> None:
        # Short: Ray's Unix sockets live under it, and their paths are limited to 107 bytes.
        self.root = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))
        self.port = free_port()
        self.dashboard_port = free_port()
        self.dashboard = dashboard
        self.head_cpus = head_cpus
        self.start_timeout = start_timeout
        self.nodes: list[Node] = []
        self.startup_s: dict[str, float] = {}
        self.marker = secrets.token_hex(8)
        self.env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
            # As in a shell where this environment is active: a job's `python` and `chunker` are its own.
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
            "RAY_USAGE_STATS_ENABLED": "0",
            "RAY_AUTH_MODE": "token",
            "RAY_AUTH_TOKEN": secrets.token_hex(32),
            "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S": "0",  # a stopped node goes at once
        }
        self.env.pop("RAY_ADDRESS", None)
        self.env.pop("RAY_AUTH_TOKEN_PATH", None)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def dashboard_url(self) -> str:
        return f"http://127.0.0.1:{self.dashboard_port}"

    def __enter__(self) -> LocalCluster:
        try:
            self._start("head", ["--head", "--port", str(self.port), *self._head_flags()], self.head_cpus)
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _head_flags(self) -> list[str]:
        flags = ["--ray-client-server-port", str(free_port())]
        if not self.dashboard:
            return [*flags, "--include-dashboard", "false"]
        return [
            *flags,
            "--include-dashboard",
            "true",
            "--dashboard-host",
            "127.0.0.1",
            "--dashboard-port",
            str(self.dashboard_port),
        ]

    def add_worker(self, cpus: int = 1) -> Node:
        """Start a worker node joined to the head; returns once the head has it."""
        return self._start(f"worker{len(self.nodes)}", ["--address", self.address], cpus)

    def _start(self, name: str, flags: list[str], cpus: int) -> Node:
        command = [
            RAY,
            "start",
            "--block",
            *flags,
            "--num-cpus",
            str(cpus),
            "--temp-dir",
            str(self.root / name),
            "--object-store-memory",
            str(OBJECT_STORE),
            # Ray's fixed default ports (52365, 10002-19999) would collide with another node or Ray on the machine.
            "--dashboard-agent-listen-port",
            str(free_port()),
            "--min-worker-port",
            "0",
            "--max-worker-port",
            "0",
            "--disable-usage-stats",
        ]
        log = self.root / f"{name}.log"
        log_file = log.open("wb")
        began = time.monotonic()
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env={**self.env, MARKER: self.marker},
            cwd=self.root,
            start_new_session=True,  # its own session: found and stopped as one, apart from ours
            preexec_fn=_stop_with_parent,
        )
        node = Node(name, process, log, log_file)
        self.nodes.append(node)
        while STARTED not in node.output():
            if process.poll() is not None or time.monotonic() - began > self.start_timeout:
                raise ClusterError(f"ray start ({name}) did not start:\n{node.output()[-3000:]}")
            time.sleep(0.2)
        self.startup_s[name] = time.monotonic() - began
        return node

    def kill(self, node: Node) -> None:
        """SIGKILL every process of a node at once, as if its machine were lost; returns once they are gone."""
        _signal_session(node.process.pid, signal.SIGKILL)
        node.process.wait()
        _wait_gone(lambda: session(node.process.pid), 10.0)

    def stop(self) -> None:
        """Stop every process of the cluster (see the module's docstring) and remove its folder."""
        for node in reversed(self.nodes):
            if node.process.poll() is None:
                _signal_session(node.process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15.0
        for node in self.nodes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                node.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        for node in self.nodes:
            _signal_session(node.process.pid, signal.SIGKILL)
            node.process.kill()  # no-op once it is gone; its session is empty by then
            node.process.wait()
            node.log_file.close()
        for pid in self.leftovers():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        _wait_gone(self.leftovers, 10.0)
        shutil.rmtree(self.root, ignore_errors=True)

    def cpu_seconds(self) -> float:
        """CPU seconds (user + system) used so far by the cluster's live processes and the children they
        reaped: a rough figure (a process gone since is no longer counted; Ray keeps its workers)."""
        ticks = 0
        for pid in self.leftovers():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            ticks += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
        return ticks / os.sysconf("SC_CLK_TCK")

    def leftovers(self) -> list[int]:
        """The ids of live processes carrying this cluster's marker (none once :meth:`stop` returns)."""
        needle = f"{MARKER}={self.marker}".encode()
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                environ = (entry / "environ").read_bytes()
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if needle in environ.split(b"\0") and state != "Z":
                found.append(int(entry.name))
        return found


def session(sid: int) -> list[int]:
    """The live processes of session ``sid`` (a node's ``ray start`` and everything it spawned)."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] != "Z":  # the fields after the name: state, ppid, pgrp, session
                members.append(int(entry.name))
    return members


def process_title(pid: int) -> str:
    """What ``ps`` shows for ``pid`` (a Ray worker shows ``ray::<the task it runs>``); empty once it is gone."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace").strip()
    except OSError:
        return ""


def _signal_session(sid: int, sig: signal.Signals) -> None:
    for pid in session(sid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _wait_gone(find: Callable[[], list[int]], timeout: float) -> None:
    """Wait until ``find`` finds no process, for up to ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while find() and time.monotonic() < deadline:
        time.sleep(0.1)


def _stop_with_parent() -> None:
    """In the child before exec: SIGTERM when the process that started it dies (Linux's PR_SET_PDEATHSIG)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)
