"""Start and stop real servers for the tests: Ruvio (the supervisor binary) and Debian's
redis-server, each on ports picked here, each stopped by its own PID only."""

import os
import signal
import socket
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("RUVIO_BUILD", os.path.join(ROOT, "build"))
RUVIO_BIN = os.path.join(BUILD, "supervisor", "ruvio")
REDIS_BIN = "/usr/bin/redis-server"

# Every Server started in this process, oldest first: the test runner prints their log
# tails on a failure and stops whatever is left at the end (stop_all).
SERVERS = []


def ruvio_built():
    return os.access(RUVIO_BIN, os.X_OK)


def stop_all():
    """Stops every Server this process started that is still running."""
    for srv in SERVERS:
        if srv.running():
            try:
                srv.stop()
            except Exception:  # noqa: BLE001 — best effort at exit
                pass


def free_port(span=1, avoid=()):
    """A port P such that P..P+span-1 and P+10000 are free on 127.0.0.1 right now."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + span + 10000 > 65535 or base in avoid:
            continue
        ok = True
        for p in list(range(base, base + span)) + [base + 10000]:
            with socket.socket() as t:
                t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                try:
                    t.bind(("127.0.0.1", p))
                except OSError:
                    ok = False
                    break
        if ok:
            return base
    raise RuntimeError("no free port range")


def wait_port(port, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.02)
    return False


class Server:
    """A running server. Use as a context manager; `port` is its client port."""

    def __init__(self, kind="ruvio", args=(), env=None, wait_ready=True):
        self.kind = kind
        self.port = free_port(2)
        self.tmp = tempfile.TemporaryDirectory(prefix=f"{kind}-test-")
        self.log_path = os.path.join(self.tmp.name, "server.log")
        if kind == "ruvio":
            cmd = [RUVIO_BIN, "--port", str(self.port), "--worker-base-port",
                   str(self.port + 1), "--admin-port", "0", "--dir",
                   os.path.join(self.tmp.name, "data"), "--durability", "memory",
                   *args]
        else:
            cmd = [REDIS_BIN, "--port", str(self.port), "--bind", "127.0.0.1",
                   "--save", "", "--appendonly", "no", "--daemonize", "no",
                   "--dir", self.tmp.name, *args]
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT,
                                     env={**os.environ, **(env or {})},
                                     start_new_session=True)
        self.pid = self.proc.pid
        self.final_output = None
        SERVERS.append(self)
        if wait_ready and not self.wait_ready():
            out = self.output()
            self.stop()
            raise RuntimeError(f"{kind} did not become ready:\n{out}")

    def wait_ready(self, timeout=15.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            if self.kind == "ruvio":
                if "ready" in self.output():
                    return wait_port(self.port, 2)
            elif "Ready to accept connections" in self.output():
                return True
            time.sleep(0.02)
        return False

    def output(self):
        if self.final_output is not None:
            return self.final_output
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def client(self, **kw):
        import redis
        kw.setdefault("socket_timeout", 10)
        return redis.Redis(host="127.0.0.1", port=self.port, **kw)

    def worker_pids(self):
        """PIDs of the supervisor's worker children (Ruvio only)."""
        try:
            with open(f"/proc/{self.pid}/task/{self.pid}/children") as f:
                return [int(p) for p in f.read().split()]
        except OSError:
            return []

    def stop(self, sig=signal.SIGTERM, timeout=10.0):
        """Stops this server by PID; returns its exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.pid, signal.SIGKILL)
                self.proc.wait(5)
        # Workers are in the supervisor's session: make sure none outlives the test.
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.log.close()
        code = self.proc.returncode
        if self.final_output is None:
            try:
                self.final_output = self.output()
            except OSError:
                self.final_output = ""
            self.tmp.cleanup()
        return code

    def running(self):
        """True while the server process (the supervisor for Ruvio) is alive."""
        return self.proc.poll() is None

    def log_tail(self, n=20):
        """The last n lines of the server's log (also after stop())."""
        try:
            return "\n".join(self.output().splitlines()[-n:])
        except OSError:
            return ""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
