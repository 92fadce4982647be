"""Start and stop real servers for the tests: Ruvio (the supervisor binary) and Debian's
redis-server, each on ports picked here, each stopped by its own PID only.

Every process started through owned_popen (each Server is) dies with the test process that
started it, however that process ends: a SIGKILL, a runner's timeout or a failed setUpClass
whose tearDownClass never runs leave no server behind (the supervisor's own workers follow it
the same way, supervisor.cpp + worker/server/orphan_watchdog)."""

import concurrent.futures
import ctypes
import os
import signal
import socket
import subprocess
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("RUVIO_BUILD", os.path.join(ROOT, "build"))
RUVIO_BIN = os.path.join(BUILD, "supervisor", "ruvio")
REDIS_BIN = "/usr/bin/redis-server"

# Every Server started in this process, oldest first: the test runner prints their log
# tails on a failure and stops whatever is left at the end (stop_all).
SERVERS = []


# Marks every process of one test run, children of test subprocesses included (they
# inherit the environment): tests/run.py looks for it in what is still alive at the end, in
# the environment and in the name of the cwd (redis-server chdirs to its --dir, named by
# temp_dir, and its process title overwrites what /proc shows of its environment).
OWNER_ENV = "RUVIO_TEST_OWNER"


def new_owner():
    return f"r{os.getpid()}x{os.urandom(3).hex()}"


os.environ.setdefault(OWNER_ENV, new_owner())


def temp_dir(prefix):
    """A TemporaryDirectory whose name carries the run's mark: /tmp/{prefix}-{mark}-XXXX."""
    return tempfile.TemporaryDirectory(prefix=f"{prefix}-{os.environ[OWNER_ENV]}-")

_PR_SET_PDEATHSIG = 1
_prctl = ctypes.CDLL(None, use_errno=True).prctl
_prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_prctl.restype = ctypes.c_int
_spawner = None
_spawner_lock = threading.Lock()


def _die_with(owner):
    """preexec_fn: SIGKILL when the forking thread ends; if the owner is already gone (it
    died between fork and prctl), end now rather than run orphaned."""
    def preexec():
        if _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0 or os.getppid() != owner:
            os._exit(126)
    return preexec


def owned_popen(cmd, **kw):
    """subprocess.Popen in a new session (so stop() can kill its whole group) whose process
    is SIGKILLed by the kernel when this test process ends.

    PR_SET_PDEATHSIG fires when the *thread* that forked exits, not the process: a Popen
    from a short-lived thread would kill its server as the thread ends. So forks come from
    the main thread, or from one spawner thread that lives as long as the process."""
    kw.setdefault("start_new_session", True)

    def spawn():
        return subprocess.Popen(cmd, preexec_fn=_die_with(os.getpid()), **kw)

    if threading.current_thread() is threading.main_thread():
        return spawn()
    global _spawner
    with _spawner_lock:
        if _spawner is None:
            _spawner = concurrent.futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="harness-spawner")
    return _spawner.submit(spawn).result()


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


def _ephemeral_range():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            lo, hi = (int(x) for x in f.read().split())
            return lo, hi
    except (OSError, ValueError):
        return 32768, 60999


def _ports_free(ports):
    for p in ports:
        with socket.socket() as t:
            t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                t.bind(("127.0.0.1", p))
            except OSError:
                return False
    return True


def free_port(span=1, avoid=()):
    """A port P such that P..P+span-1 and P+10000 are free on 127.0.0.1 right now.

    Candidates come first from below the kernel's ephemeral range: there, no client
    connection of the tests (thousands of them sit in TIME_WAIT after the connection
    tests) can hold the port, so the server can always bind it."""
    import random
    lo, hi = _ephemeral_range()
    top = lo - 10000 - span
    for _ in range(200 if top > 10000 else 0):
        base = random.randrange(10000, top)
        if base not in avoid and _ports_free(list(range(base, base + span)) + [base + 10000]):
            return base
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + span + 10000 > 65535 or base in avoid:
            continue
        if _ports_free(list(range(base, base + span)) + [base + 10000]):
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


def _config_sets_workers(path):
    try:
        with open(path) as f:
            return any(line.split()[:1] == ["workers"] for line in f)
    except OSError:
        return False


def _sets_workers(args):
    """True if the Ruvio arguments choose a worker count: --workers, or a --config file
    with a `workers` line (flags win over the file, so none may be added then)."""
    for i, a in enumerate(args):
        if a == "--workers" or str(a).startswith("--workers="):
            return True
        if a == "--config" and i + 1 < len(args) and _config_sets_workers(args[i + 1]):
            return True
    return False


def _workers_of(args):
    """The worker count the arguments ask for, when it is a plain number (else None)."""
    n = None
    for i, a in enumerate(args):
        if a == "--workers" and i + 1 < len(args):
            n = str(args[i + 1])
        elif str(a).startswith("--workers="):
            n = str(a).split("=", 1)[1]
    return int(n) if n is not None and n.isdigit() else None


def key_slot(key):
    """The Redis Cluster slot of a key: CRC16 (XMODEM) of the key, or of its {hash tag}
    when it has a non-empty one, mod 16384."""
    if isinstance(key, str):
        key = key.encode()
    s = key.find(b"{")
    if s >= 0:
        e = key.find(b"}", s + 1)
        if e > s + 1:
            key = key[s + 1:e]
    crc = 0
    for b in key:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc % 16384


def key_owner(key, workers=2):
    """Which of `workers` workers owns the key: the slots are split into equal ranges in
    worker order (2 workers: 0-8191 → worker 0, 8192-16383 → worker 1)."""
    return key_slot(key) * workers // 16384


def _call(sock, *args):
    """One command on a plain socket; returns the first line of its reply (enough for the
    short replies wait_mesh_up reads)."""
    parts = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a.encode() if isinstance(a, str) else a
        parts.append(b"$%d\r\n%s\r\n" % (len(a), a))
    sock.sendall(b"".join(parts))
    buf = b""
    while b"\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        buf += chunk
    if buf[:1] == b"$":  # a bulk string: read it whole
        n = int(buf[1:buf.index(b"\r\n")])
        while len(buf) < buf.index(b"\r\n") + 2 + max(n, 0) + 2:
            buf += sock.recv(65536)
    return buf


def wait_mesh_up(port, workers=2, timeout=5.0, password=None):
    """Waits until connections accepted by every worker of a multi-worker Ruvio answer keys
    of every worker without LOADING. The ready line comes before all mesh links are up
    (test_proxy's test_ready_means_every_worker_reaches_every_key); tests that are about
    something else wait it out here, bounded."""
    keys = []
    for w in range(workers):
        i = 0
        while key_owner(f"mesh:{i}", workers) != w:
            i += 1
        keys.append(f"mesh:{i}")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seen, ok = set(), True
        for _ in range(50 * workers):
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                if password is not None:
                    _call(s, "AUTH", password)
                if any(_call(s, "EXISTS", k).startswith(b"-LOADING") for k in keys):
                    ok = False
                    break
                info = _call(s, "INFO", "server")
                i = info.find(b"\r\nworker_id:")
                seen.add(int(info[i + 12:info.index(b"\r\n", i + 12)]) if i >= 0 else 0)
            if len(seen) == workers:
                return True
        if ok and len(seen) < workers:
            return False  # some worker never accepted a connection: nothing to wait for
        time.sleep(0.02)
    return False


class Server:
    """A running server. Use as a context manager; `port` is its client port."""

    def __init__(self, kind="ruvio", args=(), env=None, wait_ready=True, admin=False):
        self.kind = kind
        self.port = free_port(2)
        self.tmp = temp_dir(f"{kind}-test")
        self.log_path = os.path.join(self.tmp.name, "server.log")
        # admin=True: the admin HTTP port at port+10000 (free_port checked it is free).
        self.admin_port = self.port + 10000 if admin else 0
        self.workers = None
        if kind == "ruvio":
            args = list(args)
            # The supervisor's default is one worker per CPU; the tests that don't say
            # otherwise were written for one worker, so they keep getting one.
            if not _sets_workers(args):
                args = ["--workers", "1", *args]
            self.workers = _workers_of(args)
            cmd = [RUVIO_BIN, "--port", str(self.port), "--worker-base-port",
                   str(self.port + 1), "--admin-port", str(self.admin_port), "--dir",
                   os.path.join(self.tmp.name, "data"), "--durability", "memory",
                   *args]
        else:
            cmd = [REDIS_BIN, "--port", str(self.port), "--bind", "127.0.0.1",
                   "--save", "", "--appendonly", "no", "--daemonize", "no",
                   "--dir", self.tmp.name, *args]
        self.log = open(self.log_path, "wb")
        self.proc = owned_popen(cmd, stdout=self.log, stderr=subprocess.STDOUT,
                                env={**os.environ, **(env or {})})
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
        # Children are listed per thread: a fork from any of the supervisor's threads counts.
        pids = []
        try:
            tids = os.listdir(f"/proc/{self.pid}/task")
        except OSError:
            return []
        for tid in sorted(tids, key=lambda t: t != str(self.pid)):
            try:
                with open(f"/proc/{self.pid}/task/{tid}/children") as f:
                    pids += [int(p) for p in f.read().split() if int(p) not in pids]
            except OSError:
                pass
        return pids

    def stop(self, sig=signal.SIGTERM, timeout=10.0):
        """Stops this server by PID; returns its exit code. Stopping it again does nothing
        (its PID and group may belong to another process by then)."""
        if self.final_output is not None:
            return self.proc.returncode
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


def _proc_text(pid, name):
    with open(f"/proc/{pid}/{name}", "rb") as f:
        return f.read()


def survivors(dirs, owner=None):
    """(pid, command line, cwd) of every live process other than this one that belongs to a
    test run: its cwd is (or is inside) one of `dirs` — redis-server chdirs to its --dir —,
    its environment or the name of its cwd (temp_dir) carries the run's mark `owner`, or it
    is a child of this process. Zombies are dead already and left out."""
    dirs = [d.rstrip("/") for d in dirs]
    mark = f"{OWNER_ENV}={owner}".encode() if owner else None
    me = os.getpid()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        pid = int(name)
        try:
            stat = _proc_text(pid, "stat").decode(errors="replace")
            state, ppid = stat[stat.rindex(")") + 2:].split()[:2]
            if state in ("Z", "X"):
                continue
            cwd = os.readlink(f"/proc/{pid}/cwd").removesuffix(" (deleted)")
            env = _proc_text(pid, "environ").split(b"\0") if mark else []
            cmd = _proc_text(pid, "cmdline").replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError):
            continue  # gone meanwhile, or not ours to read
        if (int(ppid) == me or (mark is not None and (mark in env or f"-{owner}-" in cwd))
                or any(cwd == d or cwd.startswith(d + "/") for d in dirs)):
            found.append((pid, cmd.strip(), cwd))
    return found
