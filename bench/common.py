"""Shared pieces of the benchmark scripts: starting a pinned server, reading a process's
VmRSS, the machine description and the result file every script writes."""

import argparse
import csv
import datetime
import hashlib
import io
import json
import os
import platform
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, os.path.join(ROOT, "tests"))

import harness  # noqa: E402

RESULTS = os.path.join(BENCH, "results")
SERVER_CPU = "1"   # the server under test
CLIENT_CPU = "0"   # redis-benchmark / the loader script


def ruvio_available():
    return os.path.exists(harness.RUVIO_BIN)


def start(kind, args=(), worker_bin=None):
    """A fresh server pinned to SERVER_CPU (`args` added to its command line). Returns
    (Server, pid to measure).

    Ruvio is measured in its worker process (the supervisor holds no data); the worker is
    pinned by Ruvio itself through --cpus. redis-server is pinned here, all its threads.
    `worker_bin`: another ruvio-worker binary (RUVIO_WORKER_BIN), e.g. a before/after pair."""
    if kind == "ruvio":
        srv = harness.Server(kind="ruvio", args=["--workers", "1", "--cpus", SERVER_CPU,
                                                 *args],
                             env={"RUVIO_WORKER_BIN": worker_bin} if worker_bin else None)
        pid = None
        for _ in range(100):
            pids = srv.worker_pids()
            if pids:
                pid = pids[0]
                break
            time.sleep(0.05)
        if pid is None:
            srv.stop()
            raise RuntimeError("ruvio worker pid not found")
    else:
        srv = harness.Server(kind="redis", args=list(args))
        pid = srv.pid
        subprocess.run(["taskset", "-a", "-p", "-c", SERVER_CPU, str(pid)],
                       check=True, stdout=subprocess.DEVNULL)
    return srv, pid


def resp(*args):
    """One command as RESP: bytes as they are, anything else as its str()."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def server_command(kind):
    """The command line the harness uses for `kind` (for the result file)."""
    if kind == "ruvio":
        return (f"{harness.RUVIO_BIN} --port PORT --worker-base-port PORT+1 --admin-port 0 "
                f"--dir TMP --durability memory --workers 1 --cpus {SERVER_CPU}")
    return (f"{harness.REDIS_BIN} --port PORT --bind 127.0.0.1 --save '' --appendonly no "
            f"--daemonize no --dir TMP  (then: taskset -a -p -c {SERVER_CPU} PID)")


def vmrss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


def user_system_seconds(pid):
    """(user, system) CPU time of the whole process (all threads) so far (tick-sampled)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def cpu_seconds(pid):
    """User + system CPU time of the whole process (all threads) so far."""
    return sum(user_system_seconds(pid))


def server_cpu_ns(pid):
    """On-CPU ns of all threads of `pid` so far (first field of each task's schedstat): the
    primary figure of the throughput benchmarks."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that exited meanwhile
    return total


def children_cpu_seconds():
    """User + system CPU time of this script's finished children (the benchmark clients)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def benchmark_rows(out):
    """The result rows of `redis-benchmark --csv` output (its header row left out)."""
    return [r for r in csv.reader(io.StringIO(out)) if r and r[0] != "test"]


def perf_stat_counts(text):
    """`perf stat -x,` output as event name (its tracepoint group left off) -> count; events
    perf did not count (<not counted>, <not supported>) are left out."""
    out = {}
    for line in text.splitlines():
        f = line.strip().split(",")
        if len(f) > 2 and f[0].replace(".", "").isdigit():
            out[f[2].split(":")[-1]] = float(f[0])
    return out


def system_busy_seconds():
    """CPU time all processes on the machine have used so far (non-idle, non-iowait)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = v[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def cpus_allowed(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("Cpus_allowed_list:"):
                return line.split(":", 1)[1].strip()
    return "?"


def _run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True,
                              cwd=ROOT).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def machine():
    model = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem_kib = None
    try:
        with open("/proc/meminfo") as f:
            mem_kib = int(f.readline().split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return {"nproc": os.cpu_count(), "cpu_model": model, "kernel": platform.release(),
            "mem_total_kib": mem_kib, "hostname": socket.gethostname()}


def versions():
    out = {"redis_server": _run([harness.REDIS_BIN, "--version"]),
           "redis_benchmark": _run(["redis-benchmark", "--version"]),
           "python": sys.version.split()[0]}
    if ruvio_available():
        h = hashlib.sha256()
        with open(harness.RUVIO_BIN, "rb") as f:
            h.update(f.read())
        out["ruvio_binary"] = harness.RUVIO_BIN
        out["ruvio_binary_sha256"] = h.hexdigest()
        worker = os.path.join(harness.BUILD, "worker", "ruvio-worker")
        if os.path.exists(worker):
            h = hashlib.sha256()
            with open(worker, "rb") as f:
                h.update(f.read())
            out["ruvio_worker_sha256"] = h.hexdigest()
    return out


def git_commit():
    """HEAD's commit, or None before the first commit / outside a work tree. The working
    tree may hold uncommitted changes: `git_dirty` says so."""
    head = _run(["git", "rev-parse", "HEAD"])
    dirty = None
    if head:
        status = _run(["git", "--no-optional-locks", "status", "--porcelain",
                       "--untracked-files=no"])
        dirty = bool(status) if status is not None else None
    return head, dirty


def write_result(name, payload):
    os.makedirs(RESULTS, exist_ok=True)
    today = datetime.date.today().isoformat()
    head, dirty = git_commit()
    doc = {"name": name, "date": today,
           "timestamp": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
           "machine": machine(), "git_commit": head, "git_dirty": dirty,
           "versions": versions(), **payload}
    path = os.path.join(RESULTS, f"{today}-{name}.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=2, sort_keys=False)
        f.write("\n")
    return path


def median(xs):
    return statistics.median(xs) if xs else None


def table(headers, rows):
    """A plain-text table, also valid as a Markdown table."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for n, r in enumerate(cells):
        lines.append("| " + " | ".join(c.rjust(w) if n and i else c.ljust(w)
                                       for i, (c, w) in enumerate(zip(r, widths))) + " |")
        if n == 0:
            lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def compare_memory(sets, servers, measure, per_key=False):
    """RSS side by side: each data set of `sets` (name -> (loader, method text)) measured on
    each server kind by measure(kind, name) (a dict with idle/loaded/delta KiB), the
    Ruvio/Redis ratio of the RSS above idle added; prints the table and returns the results.
    `per_key`: the measurements carry bytes_per_key, shown as a column."""
    results = {}
    for name, (_, method) in sets.items():
        entry = {"method": method}
        for kind in servers:
            print(f"memory {name}: {kind} ...", file=sys.stderr, flush=True)
            entry[kind] = measure(kind, name)
        if "redis" in entry and "ruvio" in entry:
            r, v = entry["redis"]["delta_kib"], entry["ruvio"]["delta_kib"]
            entry["ratio_ruvio_over_redis"] = round(v / r, 3) if r else None
        results[name] = entry
    rows = []
    for name, e in results.items():
        for kind in servers:
            m = e[kind]
            rows.append([name, kind, m["idle_vmrss_kib"], m["loaded_vmrss_kib"], m["delta_kib"]]
                        + ([m["bytes_per_key"]] if per_key else [])
                        + [e.get("ratio_ruvio_over_redis", "") if kind == "ruvio" else ""])
    print(table(["data set", "server", "idle KiB", "loaded KiB", "above idle KiB"]
                + (["bytes/key"] if per_key else []) + ["Ruvio/Redis"], rows))
    return results


def need(tool):
    if shutil.which(tool) is None:
        sys.exit(f"{tool} not found (apt-get install redis-tools)")


def against_redis_parser(doc, requests=300_000):
    """The command line the Ruvio-against-redis-server scripts open with (the script's
    docstring as --help's text, --rounds, --requests, --servers); each adds its own."""
    ap = argparse.ArgumentParser(description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", type=int, default=requests)
    ap.add_argument("--servers", default="redis,ruvio")
    return ap
