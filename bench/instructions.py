#!/usr/bin/python3
"""Instructions per request, Ruvio against Debian's redis-server 7.0.15 side by side, counted
by valgrind's callgrind in the server process (Ruvio: its worker) while redis-benchmark runs
a fixed load (50 clients, pipeline 16). A count of executed user-space instructions does not
depend on what else the machine runs, so it is the figure to work with on a shared, loaded
machine where timings are noise (this one has no hardware counters for perf either).

Per server kind: one server under callgrind (Ruvio: RUVIO_WORKER_BIN points at a wrapper that
execs the worker under valgrind; the supervisor runs natively). Per row: FLUSHALL, the row's
data loaded and checked (the loaders and checks of collections_throughput.py, bits.py and
streams.py), one probe request whose reply must not be an error, then

  callgrind_control --zero PID; redis-benchmark -n N ...; callgrind_control --dump PID

and the dump's total Ir, minus the server's idle instructions over the same wall time (its
timers: Redis's serverCron, Ruvio's ticks; measured per server as a zeroed 2 s idle dump),
divided by N. The dump's top functions by self cost are kept per row (--top), which is where
the per-request instructions go: parser, command lookup, routing, executor, reply, write.

Kernel instructions (read/write syscalls, epoll) are not counted: callgrind sees user space.

--cache-sim: callgrind also simulates the caches (--cache-sim=yes) and each row gets its data
cache misses per request (D1: first level, LL: last level; reads + writes, the idle rate
subtracted as for Ir). The simulated LL is --ll (default 1 MiB, 16-way: the eviction row's
4 MB data set is then ~4x the LL, as 100 MB is ~3x this machine's 32 MB L3; the host's LL would
hold the whole row). Software prefetches are not simulated as loads: a change that only
overlaps misses (prefetching) does not show here, only one that removes them.

Usage: bench/instructions.py [--requests 20000] [--servers redis,ruvio] [--rows PING,XLEN]
                             [--worker-bin PATH] [--label after] [--top 25] [--no-write]
                             [--syscalls] [--result-name instructions]
                             [--cache-sim [--ll SIZE,ASSOC,LINE]]
Writes bench/results/<date>-<result-name>.json (--label: one JSON holds several labels, e.g.
a "before" run with --worker-bin of the old worker and an "after" run of the new one).
"""

import argparse
import glob
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import acl  # noqa: E402
import bits  # noqa: E402
import notify  # noqa: E402
import collections_throughput as ct  # noqa: E402
import common  # noqa: E402
import streams  # noqa: E402
from memory import _call  # noqa: E402

harness = common.harness
CLIENTS = 50
PIPELINE = 16
IDLE_SECONDS = 2.0


def nothing(port, requests):
    pass


def find_row(rows, name):
    for r in rows:
        if r[0] == name:
            return r
    raise KeyError(name)


# (our name, (row name, load, [(keyspace, command)], check)) — the rows of the CPU targets,
# plus PING and GET for the shared per-request path.
def rows():
    out = [("PING", ("PING", nothing, [(1, "PING")], nothing)),
           ("GET", ("GET", lambda p, n: _call(p, b"SET", b"k", b"abc"), [(1, "GET k")],
                    nothing)),
           ("SET", ("SET", nothing, [(1, "SET k abc")], nothing))]
    for name in ("SISMEMBER (1000)", "SRANDMEMBER (1000)", "ZSCORE (1000)", "ZRANK (1000)"):
        out.append((name, find_row(ct.ROWS, name)))
    for name in ("PFADD (HLL of 1000)", "PFCOUNT (cached)", "PFCOUNT 3 keys"):
        out.append((name, find_row(bits.ROWS, name)))
    out.append(("XLEN (1000)", find_row(streams.ROWS, "XLEN (1000)")))
    out.append(("XREADGROUP > + XACK", find_row(streams.ROWS, "XREADGROUP > + XACK")))
    # The ACL check: the same GET as the default user and as a user restricted to ~app:*.
    for name in ("GET default", "GET app-user (~app:*)"):
        out.append(("ACL " + name, find_row(acl.ROWS, name)))
    out.append(("SET evicting (allkeys-lru)", ("SET evicting", evict_fill,
                                               [(10_000_000, EVICT_SET)], evict_reset)))
    # Its baseline: the same SETs of new keys with no limit (nothing is evicted).
    out.append(("SET new keys (no limit)", ("SET new", nothing, [(10_000_000, EVICT_SET)],
                                            nothing)))
    # Issue 14: keyspace notifications (a subscriber that reads every message) and tracking.
    # The tracking rows and their baseline run notify.py's client (redis-benchmark cannot turn
    # tracking on): one connection, 64 GETs per write, the same for both rows.
    out.append(("SET KEA, no subscriber", ("SET KEA", kea_on, [(1, "SET k abc")], kea_off)))
    out.append(("SET KEA, 1 subscriber", ("SET KEA sub", kea_subscriber, [(1, "SET k abc")],
                                          kea_off)))
    out.append(("GET 1 client (notify.py)", ("GET py", keys_loaded,
                                             [(1, "GET key:000001", py_get(False))], nothing)))
    out.append(("GET tracking (notify.py)", ("GET tracking", keys_loaded,
                                             [(1, "GET key:000001", py_get(True))], nothing)))
    return out


# The subscriber of the KEA rows: PSUBSCRIBE __key*@*__:* on a thread that drains its socket
# until kea_off stops it, so the server's writes to it are real ones.
_drain = {}


def kea_on(port, requests):
    _call(port, b"CONFIG", b"SET", b"notify-keyspace-events", b"KEA")


def kea_subscriber(port, requests):
    kea_on(port, requests)
    stop = threading.Event()
    th = threading.Thread(target=notify.drain, args=(port, stop), daemon=True)
    th.start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and b":0\r\n" in _call(port, b"PUBSUB", b"NUMPAT"):
        time.sleep(0.1)
    _drain[port] = (stop, th)


def kea_off(port, requests):
    if port in _drain:
        stop, th = _drain.pop(port)
        stop.set()
        th.join(timeout=5)
    _call(port, b"CONFIG", b"SET", b"notify-keyspace-events", b"")


def keys_loaded(port, requests):
    notify.load(port, "SET", notify.KEYS)


def py_get(tracking):
    return lambda port, requests: notify.load(port, "GET", requests, tracking)


# eviction.py's load at a limit callgrind reaches quickly: every SET of a new key (100-byte
# value, 10M key names) is over the limit and evicts, as in the 100 MB run once it is full.
EVICT_LIMIT = 4 * 1024 * 1024
EVICT_SET = "SET key:__rand_int__ " + "v" * 100


def evict_fill(port, requests):
    _call(port, b"CONFIG", b"SET", b"maxmemory-policy", b"allkeys-lru")
    _call(port, b"CONFIG", b"SET", b"maxmemory", str(EVICT_LIMIT).encode())
    with socket.create_connection(("127.0.0.1", port), timeout=120) as s:
        for b in range(60):  # 60,000 distinct keys of ~150 B: past 4 MB on both servers
            s.sendall(b"".join(b"*3\r\n$3\r\nSET\r\n$12\r\nfill:%07d\r\n$100\r\n%s\r\n"
                               % (b * 1000 + i, b"v" * 100) for i in range(1000)))
            got = 0
            while got < 1000:
                got += s.recv(65536).count(b"\r\n")


def evict_reset(port, requests):
    _call(port, b"CONFIG", b"SET", b"maxmemory", b"0")


def wait_port(port, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            time.sleep(0.1)
    return False


class Grinder:
    """One server of `kind` whose measured process runs under callgrind."""

    def __init__(self, kind, worker_bin, cache_args=()):
        self.kind = kind
        self.tmp = tempfile.mkdtemp(prefix=f"instr-{kind}-")
        self.out_pattern = os.path.join(self.tmp, "cg.%p")
        vg = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={self.out_pattern}",
              *cache_args]
        if kind == "ruvio":
            wrapper = os.path.join(self.tmp, "worker.sh")
            with open(wrapper, "w") as f:
                f.write("#!/bin/sh\nexec %s %s \"$@\"\n" % (" ".join(vg), worker_bin))
            os.chmod(wrapper, 0o755)
            self.srv = harness.Server(kind="ruvio", args=["--workers", "1", "--alloc-trace",
                                                          "off"],
                                      env={"RUVIO_WORKER_BIN": wrapper})
            self.port = self.srv.port
            self.pid = None
            deadline = time.monotonic() + 30
            while self.pid is None and time.monotonic() < deadline:
                pids = self.srv.worker_pids()
                self.pid = pids[0] if pids else None
                time.sleep(0.1)
            if self.pid is None:
                raise RuntimeError("no worker pid")
        else:
            self.srv = None
            self.port = harness.free_port(1)
            self.log = open(os.path.join(self.tmp, "redis.log"), "wb")
            self.proc = subprocess.Popen(
                vg + [harness.REDIS_BIN, "--port", str(self.port), "--bind", "127.0.0.1",
                      "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir",
                      self.tmp], stdout=self.log, stderr=subprocess.STDOUT,
                start_new_session=True)
            self.pid = self.proc.pid
        if not wait_port(self.port):
            self.stop()
            raise RuntimeError(f"{kind} under valgrind did not listen")
        # Wait until the server answers (valgrind's start is slow).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if _call(self.port, b"PING") == b"+PONG\r\n":
                    break
            except OSError:
                pass
            time.sleep(0.2)
        self.idle_per_s = None

    def control(self, *args):
        subprocess.run(["callgrind_control", *args, str(self.pid)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def dumps(self):
        return set(glob.glob(os.path.join(self.tmp, f"cg.{self.pid}*")))

    def measure(self, fn):
        """Runs fn() between a zero and a dump: (total events, wall seconds, dump path); the
        events are {"Ir": n} plus the cache simulation's when it is on."""
        before = self.dumps()
        self.control("--zero")
        t0 = time.monotonic()
        fn()
        wall = time.monotonic() - t0
        self.control("--dump")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            new = self.dumps() - before
            if new:
                path = max(new, key=os.path.getmtime)
                time.sleep(0.2)  # written whole before it is read
                return total_events(path), wall, path
            time.sleep(0.1)
        raise RuntimeError("callgrind wrote no dump")

    def idle_rate(self):
        """The idle server's events per second ({"Ir": ..., with --cache-sim "D1mr": ...})."""
        if self.idle_per_s is None:
            ev, wall, _ = self.measure(lambda: time.sleep(IDLE_SECONDS))
            self.idle_per_s = {k: v / wall for k, v in ev.items()}
        return self.idle_per_s

    def stop(self):
        if self.srv is not None:
            self.srv.stop()
        else:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
            self.log.close()


def total_events(path):
    """The dump's totals by event name ("Ir", and with --cache-sim "D1mr", "DLmw" ...)."""
    names = ["Ir"]
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                names = line.split()[1:]
            elif line.startswith(("summary:", "totals:")):
                counts = [int(x) for x in line.split()[1:]]
                counts += [0] * (len(names) - len(counts))  # trailing zero counts are left out
                return dict(zip(names, counts))
    raise RuntimeError(f"no totals in {path}")


def total_ir(path):
    return total_events(path)["Ir"]


def top_functions(path, n):
    """(self Ir, function) of the n most expensive functions of a dump, by self cost. The
    frames that were on the stack when the counters were zeroed (main, the loop) carry the
    whole total in callgrind_annotate's list: they are left out."""
    total = total_ir(path)
    out = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", "--show=Ir",
                          path],
                         capture_output=True, text=True, check=True).stdout
    rows = []
    # One "count (share%)" column per event (Ir first; --cache-sim adds eight more, a zero
    # count has no share), then the function.
    col = r"(?:[\d,]+\s+\(\s*[\d.]+%\)|0|\.)"
    for line in out.splitlines():
        m = re.match(rf"\s*([\d,]+)\s+\(\s*[\d.]+%\)(?:\s+{col})*\s+(\S.*)$", line)
        if m and not m.group(2).startswith("PROGRAM TOTALS"):
            ir = int(m.group(1).replace(",", ""))
            if ir < 0.98 * total:
                rows.append((ir, m.group(2).strip()))
        if len(rows) >= n:
            break
    return rows


# The rows of the kernel side: the shared request path (reads, writes, the loop's waits).
SYSCALL_ROWS = ("PING", "GET", "SET")
# Counted one by one (tracepoints); everything else is in "other" (raw_syscalls total minus
# these). The time-related calls would show a clock read that is a real system call (the
# vDSO serves clock_gettime/gettimeofday without one when the clocksource allows it).
SYSCALLS = ("read", "write", "writev", "sendmsg", "sendto", "recvfrom", "recvmsg",
            "epoll_wait", "epoll_pwait", "epoll_ctl", "accept4", "close", "madvise", "mmap",
            "munmap", "mprotect", "brk", "futex", "getrusage", "getpid", "clock_gettime",
            "gettimeofday", "clock_nanosleep", "timerfd_settime", "eventfd2", "setsockopt")


# Through the proxy port a pipeline of random keys mixes both workers' keys (GET k would
# send every pipeline wholly to k's owner).
PROXY_ROW = ("GET random key", nothing, [(100_000, "GET key:__rand_int__")], nothing)


def perf_usable():
    if shutil.which("perf") is None:
        return False
    r = subprocess.run(["perf", "stat", "-x,", "-e", "raw_syscalls:sys_enter", "true"],
                       capture_output=True, text=True)
    return r.returncode == 0 and "not supported" not in r.stderr


def attached(argv, run, settle, linger=0.0, stdout=subprocess.DEVNULL):
    """Runs the tracer `argv` (perf stat / perf record / strace, attached to the server)
    around run(): `settle` seconds for it to attach, `linger` after run() for the last calls,
    then SIGINT, which makes each of them write its output."""
    tracer = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.DEVNULL)
    time.sleep(settle)
    try:
        run()
    finally:
        time.sleep(linger)
        tracer.send_signal(2)
        tracer.wait(60)


def perf_counts(pid, run):
    """Tracepoint counts (perf stat: counted in the kernel, no stop per call as strace makes,
    so the server batches as it does untraced) of `pid`'s threads while run() runs."""
    events = ["raw_syscalls:sys_enter", "context-switches", "page-faults"] + [
        f"syscalls:sys_enter_{n}" for n in SYSCALLS]
    out = os.path.join(tempfile.mkdtemp(prefix="instr-perf-"), "stat")
    attached(["perf", "stat", "-x,", "-e", ",".join(events), "-p", str(pid), "-o", out],
             run, settle=0.5)
    with open(out) as f:
        stat = common.perf_stat_counts(f.read())
    counts = {}
    for name, n in stat.items():
        name = name.replace("sys_enter_", "")
        counts["all_syscalls" if name == "sys_enter" else name] = int(n)
    return counts


def strace_counts(pid, run):
    """strace -c of `pid` while run() runs (where perf is not available; strace stops the
    server at every call, so it batches more and counts fewer epoll_waits)."""
    out = os.path.join(tempfile.mkdtemp(prefix="instr-strace-"), "strace")
    attached(["strace", "-c", "-f", "-p", str(pid), "-o", out], run, settle=1.0, linger=0.3,
             stdout=None)
    counts = {}
    with open(out) as f:
        for line in f:
            m = re.match(r"\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)$", line)
            if m and m.group(2) != "total":
                counts[m.group(2)] = int(m.group(1))
    counts["all_syscalls"] = sum(counts.values())
    return counts


def cpu_split(pid, run):
    """perf record (cpu-clock samples) of `pid` while run() runs: the sampled on-CPU time (a
    timing, so noise on a busy machine; the shares less so) and its shares in the kernel, in
    the vDSO (clock reads, which callgrind does not count: valgrind hides the vDSO, so its
    clock_gettime is a system call there) and in the server's own code."""
    data = os.path.join(tempfile.mkdtemp(prefix="instr-rec-"), "perf.data")
    attached(["perf", "record", "-e", "cpu-clock", "-F", "4999", "-p", str(pid), "-o", data],
             run, settle=0.5)
    rep = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "dso",
                          "--stdio", "-g", "none"], capture_output=True, text=True).stdout
    split = {"cpu_ns": 0, "kernel": 0.0, "vdso": 0.0, "user_other": 0.0}
    for line in rep.splitlines():
        # cpu-clock's event count is the sampled on-CPU time in ns.
        m = re.match(r"# Event count \(approx.\): (\d+)", line)
        if m:
            split["cpu_ns"] = int(m.group(1))
        m = re.match(r"\s*([\d.]+)%\s+(\S+)", line)
        if m:
            share = float(m.group(1)) / 100
            key = ("kernel" if "kernel" in m.group(2) else
                   "vdso" if "vdso" in m.group(2) else "user_other")
            split[key] = round(split[key] + share, 4)
    return split


def syscalls(kind, requests, worker_bin, names=SYSCALL_ROWS):
    """System calls per request, by kind, of the native (not valgrind) server process while
    redis-benchmark sends `requests` of each row (the rows' loads, 50 clients, pipeline 16):
    the kernel half of the per-request path, which callgrind cannot see. `ruvio-proxy`: two
    workers behind the proxy port (half the keys forwarded over the mesh), both counted."""
    args = ["--alloc-trace", "off"] if kind.startswith("ruvio") else []
    if kind == "ruvio-proxy":
        args += ["--workers", "2"]
    srv = harness.Server(kind=kind.split("-")[0], args=args,
                         env={"RUVIO_WORKER_BIN": worker_bin})
    use_perf = perf_usable()
    try:
        if kind == "ruvio-proxy":
            harness.wait_mesh_up(srv.port)
            pid = ",".join(str(p) for p in srv.worker_pids())
        else:
            pid = srv.worker_pids()[0] if kind == "ruvio" else srv.pid
        out = {"tool": "perf stat (tracepoints)" if use_perf else "strace -c",
               "requests": requests, "rows": {}}
        for name in names:
            _, load, cmds, after = find_row([r for _, r in rows()] + [PROXY_ROW], name)
            ct.flush(srv.port)
            load(srv.port, requests)
            (keyspace, command), = cmds

            def run():
                subprocess.run(bench_line(srv.port, requests, keyspace, command),
                               capture_output=True, check=True)

            counts = (perf_counts if use_perf else strace_counts)(pid, run)
            after(srv.port, requests)
            row = {"calls": counts,
                   "per_request": {k: round(v / requests, 4) for k, v in counts.items() if v},
                   "read_write_per_request": round((counts.get("read", 0) +
                                                    counts.get("write", 0)) / requests, 4)}
            if use_perf:
                row["cpu_split"] = split = cpu_split(pid, run)
                split["cpu_us_per_request"] = round(split["cpu_ns"] / requests / 1000, 3)
            out["rows"][name] = row
        return out
    finally:
        srv.stop()


def syscall_table(counts):
    """Per request, per server, per row: the calls that matter on the request path."""
    cols = ("all_syscalls", "read", "write", "epoll_wait", "epoll_ctl", "madvise",
            "context-switches", "page-faults")
    out = []
    for kind, res in counts.items():
        for name, row in res["rows"].items():
            per = row["per_request"]
            split = row.get("cpu_split", {})
            out.append([kind, name] + [per.get(c, 0) for c in cols] +
                       [split.get("cpu_us_per_request"), split.get("kernel"), split.get("vdso")])
    return common.table(["server", "row", *cols, "sampled CPU µs/req", "kernel share",
                         "vdso share"], out)


def bench_line(port, requests, keyspace, command, clients=CLIENTS, pipeline=None):
    pipeline = pipeline or PIPELINE
    login = []
    if command.startswith(acl.AS_USER):  # the row's requests run as the restricted user
        command = command[len(acl.AS_USER):]
        login = ["--user", acl.USER, "-a", acl.PASS]
    return ["redis-benchmark", *login, "-p", str(port), "-c", str(clients), "-P", str(pipeline),
            "-n", str(requests), "-r", str(keyspace), "--csv", *command.split()]


def run_row(g, name, row, requests, top):
    _, load, cmds, after = row
    ct.flush(g.port)
    load(g.port, requests)
    for _, c, *_ in cmds:
        kind = acl.probe(g.port, c)
        if kind.startswith("error"):
            raise RuntimeError(f"{g.kind} {name}: probe replied {kind}")

    def load_run():
        if len(cmds[0]) == 3:  # a row with its own client instead of redis-benchmark
            cmds[0][2](g.port, requests)
            return
        # Two commands (XREADGROUP + XACK) run as two redis-benchmarks at once sharing the
        # clients and requests, as the throughput benches run them.
        procs = [subprocess.Popen(bench_line(g.port, requests // len(cmds), keyspace, command,
                                             CLIENTS // len(cmds)),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for keyspace, command in cmds]
        for p in procs:
            out, err = p.communicate()
            if p.returncode != 0 or "error" in (out + err).lower():
                raise RuntimeError(f"redis-benchmark failed:\n{out}\n{err}")

    ev, wall, path = g.measure(load_run)
    after(g.port, requests)
    rates = g.idle_rate()
    ir, idle = ev["Ir"], rates["Ir"] * wall
    per = (ir - idle) / requests

    def per_request(*names):
        return round(sum(ev[n] - rates.get(n, 0.0) * wall for n in names) / requests, 2)

    cache = {}
    if "D1mr" in ev:
        cache = {"d1_misses_per_request": per_request("D1mr", "D1mw"),
                 "d1_read_misses_per_request": per_request("D1mr"),
                 "ll_misses_per_request": per_request("DLmr", "DLmw"),
                 "ll_read_misses_per_request": per_request("DLmr"),
                 "data_reads_per_request": per_request("Dr"),
                 "data_writes_per_request": per_request("Dw")}
    return {"instructions_per_request": round(per, 1), **cache, "total_ir": ir,
            "idle_ir_subtracted": round(idle), "wall_s": round(wall, 2),
            "top_self": [{"ir_per_request": round(c / requests, 1), "function": f}
                         for c, f in top_functions(path, top)]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=20000)
    ap.add_argument("--servers", default="redis,ruvio")
    ap.add_argument("--rows", default="")
    ap.add_argument("--worker-bin", default=os.path.join(harness.BUILD, "worker",
                                                         "ruvio-worker"))
    ap.add_argument("--label", default="after")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--result-name", default="instructions",
                    help="writes bench/results/2026-12-01-<name>.json")
    ap.add_argument("--syscalls", action="store_true",
                    help="also count system calls per request (PING, GET, SET; 100,000 each)")
    ap.add_argument("--pipeline", type=int, default=16,
                    help="redis-benchmark -P (1: each request its own loop turn, as "
                         "eviction.py's load)")
    ap.add_argument("--cache-sim", action="store_true",
                    help="also simulate the caches: D1/LL data misses per request")
    ap.add_argument("--ll", default="1048576,16,64",
                    help="the simulated last-level cache with --cache-sim (size,assoc,line)")
    ap.add_argument("--syscalls-only", action="store_true",
                    help="only the system call counts (no callgrind rows)")
    a = ap.parse_args()
    globals()["PIPELINE"] = a.pipeline  # bench_line's default and the result file's field
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        sys.exit("valgrind (callgrind) is needed")
    wanted = [r.strip() for r in a.rows.split(",") if r.strip()]
    names = {n for n, _ in rows()}
    # A wanted name that is a row's whole name selects that row only ("SET"), otherwise every
    # row containing it ("PFCOUNT").
    selected = [(n, r) for n, r in rows()
                if not wanted or any(w == n if w in names else w in n for w in wanted)]
    if a.syscalls_only:
        a.syscalls, selected = True, []
    results = {}
    for kind in a.servers.split(",") if selected else []:
        g = Grinder(kind, a.worker_bin,
                    ("--cache-sim=yes", f"--LL={a.ll}") if a.cache_sim else ())
        try:
            results[kind] = {}
            for name, row in selected:
                res = run_row(g, name, row, a.requests, a.top)
                results[kind][name] = res
                misses = (f", D1 misses {res['d1_misses_per_request']}, LL misses "
                          f"{res['ll_misses_per_request']}" if "d1_misses_per_request" in res
                          else "")
                print(f"  {a.label:6} {kind:5} {name:22} {res['instructions_per_request']:9.1f}"
                      f" instructions/request{misses}", file=sys.stderr, flush=True)
        finally:
            g.stop()
    sys_counts = {}
    if a.syscalls and (shutil.which("perf") or shutil.which("strace")):
        for kind in a.servers.split(","):
            sys_counts[kind] = syscalls(kind, 100_000, a.worker_bin)
            if kind == "ruvio" and shutil.which("perf"):
                sys_counts["ruvio-proxy"] = syscalls("ruvio-proxy", 100_000, a.worker_bin,
                                                     names=("GET random key",))
        print(syscall_table(sys_counts), file=sys.stderr)
    run = {}
    path = os.path.join(common.RESULTS, f"2026-12-01-{a.result_name}.json")
    if (a.rows or a.syscalls_only) and os.path.exists(path):
        # A re-run of some rows replaces those rows of the label and keeps the others.
        with open(path) as f:
            run = json.load(f).get("runs", {}).get(a.label, {})
        for kind, rows_ in results.items():
            run.setdefault("results", {}).setdefault(kind, {}).update(rows_)
        results = run.get("results", results)
        selected = [(n, r) for n, r in rows() if any(n in results.get(k, {}) for k in results)]
    table = []
    for name, _ in selected:
        red = results.get("redis", {}).get(name, {}).get("instructions_per_request")
        ruv = results.get("ruvio", {}).get(name, {}).get("instructions_per_request")
        ratio = round(ruv / red, 3) if red and ruv else None
        table.append([name, red, ruv, ratio])
        if a.cache_sim:
            table[-1] += [results.get(k, {}).get(name, {}).get(f)
                          for f in ("d1_misses_per_request", "ll_misses_per_request")
                          for k in ("redis", "ruvio")]
    cols = ["row", "redis instr/req", "ruvio instr/req", "ratio"]
    if a.cache_sim:
        cols += ["redis D1 miss/req", "ruvio D1 miss/req", "redis LL miss/req",
                 "ruvio LL miss/req"]
    print(common.table(cols, table))
    if a.no_write:
        return
    doc = {}
    if os.path.exists(path):
        with open(path) as f:
            doc = json.load(f)
    head, dirty = common.git_commit()
    doc.setdefault("name", "instructions")
    doc["method"] = __doc__.split("\n\n")[1].replace("\n", " ")
    doc.setdefault("runs", {})[a.label] = {
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "git_commit": head,
        "git_dirty": dirty, "worker_bin": a.worker_bin,
        "command": " ".join(["bench/instructions.py", *sys.argv[1:]]),
        "earlier_commands": run.get("earlier_commands", []) + ([run["command"]]
                                                                if "command" in run else []),
        "requests": a.requests, "clients": CLIENTS, "pipeline": PIPELINE,
        "cache_sim": {"LL": a.ll} if a.cache_sim else None,
        "machine": common.machine(), "versions": common.versions(), "results": results,
        "syscalls_per_request": sys_counts or run.get("syscalls_per_request", {}),
        "table": table}
    os.makedirs(common.RESULTS, exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    print(path)


if __name__ == "__main__":
    main()
