"""The supervisor and its workers (Ruvio only): readiness log line and $NOTIFY_SOCKET, CPU
pinning, restart of a killed worker (also under load and when it keeps dying), clean
SIGTERM, refused flags and config lines, and config-file values."""

import os
import re
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest

import itest
from harness import RUVIO_BIN, Server, free_port, owned_popen, ruvio_built


def cpus_allowed(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("Cpus_allowed_list:"):
                return line.split(":", 1)[1].strip()
    return None


def alive(pid):
    """True if pid exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def ping(port, timeout=0.5):
    try:
        with itest.Raw(port, timeout=timeout) as c:
            return c.call("PING") == b"+PONG\r\n"
    except (OSError, itest.Closed):
        return False


def listening(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


@unittest.skipUnless(ruvio_built(), f"{RUVIO_BIN} not built")
class Process(unittest.TestCase):
    def start(self, *args, env=None):
        srv = Server("ruvio", args=args, env=env)
        self.addCleanup(srv.stop)
        return srv

    def one_worker(self, srv, timeout=5.0):
        pids = itest.wait_for(srv.worker_pids, timeout=timeout)
        self.assertEqual(len(pids), 1, pids)
        return pids[0]

    def test_ready_line(self):
        srv = self.start()
        ready = [line for line in srv.output().splitlines() if "ready" in line]
        self.assertEqual(len(ready), 1, srv.output())
        self.assertTrue(ping(srv.port))
        self.assertEqual(srv.client().execute_command("PING"), True)
        # Not under systemd: INFO says so, as redis-server started by hand does.
        self.assertEqual(srv.client().info("server")["process_supervised"], "no")

    def test_notify_socket(self):
        with tempfile.TemporaryDirectory(prefix="ruvio-notify-") as d:
            path = os.path.join(d, "notify.sock")
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            self.addCleanup(sock.close)
            sock.bind(path)
            sock.settimeout(10)
            srv = self.start(env={"NOTIFY_SOCKET": path})
            msgs = []
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not any(b"READY=1" in m for m in msgs):
                msgs.append(sock.recv(4096))
            self.assertTrue(any(b"READY=1" in m.split(b"\n") for m in msgs), msgs)
            self.assertTrue(ping(srv.port))
            # Reporting to $NOTIFY_SOCKET is being supervised by systemd (Redis's
            # process_supervised:systemd), on every worker's INFO.
            self.assertEqual(srv.client().info("server")["process_supervised"], "systemd")

    def test_pinned_worker(self):
        for cpu in ("1", "0"):
            if cpu == "1" and os.cpu_count() < 2:
                continue
            with self.subTest(cpus=cpu):
                srv = self.start("--cpus", cpu)
                pid = self.one_worker(srv)
                self.assertEqual(cpus_allowed(pid), cpu)
                self.assertTrue(ping(srv.port))
                srv.stop()

    def test_killed_worker_restarts_within_1s(self):
        srv = self.start()
        r = srv.client()
        r.set("before", "1")
        old = self.one_worker(srv)
        survivor = itest.Raw(srv.port)
        self.addCleanup(survivor.close)
        self.assertEqual(survivor.call("PING"), b"+PONG\r\n")
        t0 = time.monotonic()
        os.kill(old, signal.SIGKILL)
        ok = itest.wait_for(lambda: ping(srv.port, timeout=0.2), timeout=3, interval=0.01)
        took = time.monotonic() - t0
        self.assertTrue(ok, f"no PONG 3 s after SIGKILL\n{srv.log_tail(20)}")
        self.assertLess(took, 1.0, f"worker back after {took:.2f}s")
        new = self.one_worker(srv)
        self.assertNotEqual(new, old)
        self.assertTrue(srv.running())
        # The old connection died with its worker; a new one works.
        with self.assertRaises((itest.Closed, OSError)):
            survivor.call("PING")
        with itest.Raw(srv.port) as c:
            self.assertEqual(c.call("PING"), b"+PONG\r\n")
        r = srv.client()  # redis-py reconnects
        self.assertTrue(r.ping())

    def test_crash_under_load(self):
        srv = self.start()
        old = self.one_worker(srv)
        stop = threading.Event()
        stats = {"ok": 0, "errors": 0, "last_ok": 0.0}

        def load():
            c = None
            i = 0
            while not stop.is_set():
                try:
                    if c is None:
                        c = itest.Raw(srv.port, timeout=1)
                    i += 1
                    if c.call("SET", f"k{i % 1000}", i) == b"+OK\r\n":
                        stats["ok"] += 1
                        stats["last_ok"] = time.monotonic()
                except (OSError, itest.Closed, AssertionError):
                    stats["errors"] += 1
                    if c:
                        c.close()
                    c = None
                    time.sleep(0.005)
            if c:
                c.close()

        t = threading.Thread(target=load, daemon=True)
        t.start()
        try:
            self.assertTrue(itest.wait_for(lambda: stats["ok"] > 200, timeout=5))
            t_kill = time.monotonic()
            os.kill(old, signal.SIGKILL)
            back = itest.wait_for(lambda: stats["last_ok"] > t_kill + 0.001 and
                                  stats["errors"] > 0, timeout=3, interval=0.01)
            self.assertTrue(back, f"load did not resume: {stats}\n{srv.log_tail(20)}")
            self.assertLess(stats["last_ok"] - t_kill, 1.0, stats)
        finally:
            stop.set()
            t.join(10)
        self.assertNotEqual(self.one_worker(srv), old)

    def test_repeatedly_killed_worker_is_still_restarted(self):
        srv = self.start()
        pid = self.one_worker(srv)
        for i in range(6):
            os.kill(pid, signal.SIGKILL)
            new = itest.wait_for(lambda: [p for p in srv.worker_pids() if p != pid and alive(p)],
                                 timeout=20, interval=0.01)
            self.assertTrue(new, f"no new worker after kill #{i + 1}\n{srv.log_tail(20)}")
            pid = new[0]
        # It has backed off, not given up: it serves again.
        self.assertTrue(itest.wait_for(lambda: ping(srv.port), timeout=20, interval=0.05),
                        srv.log_tail(20))
        self.assertTrue(srv.running())

    def test_sigterm(self):
        srv = self.start()
        workers = itest.wait_for(srv.worker_pids, timeout=5)
        self.assertTrue(workers)
        srv.proc.send_signal(signal.SIGTERM)
        code = srv.proc.wait(15)
        self.assertEqual(code, 0, srv.log_tail(20))
        self.assertTrue(itest.wait_for(lambda: not any(alive(p) for p in workers), timeout=5),
                        f"worker(s) left after SIGTERM: {workers}")
        self.assertFalse(listening(srv.port))

    def worker_map(self, srv):
        """{worker index: pid} from the proxy port's INFO `# Workers` lines."""
        itest.wait_mesh_up(srv.port)
        with itest.Raw(srv.port) as c:
            info = c.call("INFO").decode()
        return {int(w): int(p) for w, p in re.findall(r"\r\nworker(\d+):status=up,pid=(\d+)",
                                                     info)}

    @unittest.skipUnless((os.cpu_count() or 1) >= 2, "needs 2 CPUs")
    def test_two_workers_pinned(self):
        for cpus, want in (("0,1", ["0", "1"]), ("1,0", ["1", "0"])):
            with self.subTest(cpus=cpus):
                srv = self.start("--workers", "2", "--cpus", cpus)
                pids = itest.wait_for(lambda: len(srv.worker_pids()) == 2 and srv.worker_pids(),
                                      timeout=5)
                self.assertTrue(pids, srv.worker_pids())
                by_worker = self.worker_map(srv)
                self.assertEqual(sorted(by_worker.values()), sorted(pids))
                self.assertEqual([cpus_allowed(by_worker[w]) for w in (0, 1)], want)
                self.assertTrue(ping(srv.port))
                srv.stop()

    def test_two_workers_one_killed_other_serves(self):
        srv = self.start("--workers", "2")
        by_worker = self.worker_map(srv)
        self.assertEqual(sorted(by_worker), [0, 1])
        k0, k1 = itest.keys_of(0, 1, "p0:")[0], itest.keys_of(1, 1, "p1:")[0]
        r = srv.client()
        r.set(k0, "zero")
        r.set(k1, "one")
        # Connections the survivor (worker 0) accepted: they must not notice the kill.
        survivors = []
        while len(survivors) < 3:
            c = itest.Raw(srv.port)
            if b"\r\nworker_id:0\r\n" in c.call("INFO", "server"):
                survivors.append(c)
                self.addCleanup(c.close)
            else:
                c.close()
        os.kill(by_worker[1], signal.SIGKILL)
        t0 = time.monotonic()
        while time.monotonic() - t0 < 0.3:
            for c in survivors:
                self.assertEqual(c.call("PING"), b"+PONG\r\n")
                self.assertEqual(c.call("GET", k0), b"$4\r\nzero\r\n")
        back = itest.wait_for(lambda: set(self.worker_map(srv)) == {0, 1} and
                              self.worker_map(srv)[1] != by_worker[1], timeout=3)
        self.assertTrue(back, srv.log_tail(20))
        after = self.worker_map(srv)
        self.assertEqual(after[0], by_worker[0])  # the survivor was not restarted
        self.assertTrue(alive(after[1]))
        self.assertFalse(alive(by_worker[1]))
        self.assertTrue(srv.running())
        for c in survivors:
            self.assertEqual(c.call("GET", k0), b"$4\r\nzero\r\n")
            self.assertEqual(c.call("SET", k1, "new"), b"+OK\r\n")
            self.assertEqual(c.call("GET", k1), b"$3\r\nnew\r\n")

    def refused(self, *args, names=(), config=None):
        """Starts ruvio with bad arguments: exit code 2, one stderr line naming the problem,
        nothing listening."""
        port = free_port(2)
        with tempfile.TemporaryDirectory(prefix="ruvio-bad-") as d:
            cmd = [RUVIO_BIN, "--port", str(port), "--worker-base-port", str(port + 1),
                   "--admin-port", "0", "--dir", os.path.join(d, "data")]
            if config is not None:
                path = os.path.join(d, "ruvio.conf")
                with open(path, "w") as f:
                    f.write(config)
                cmd += ["--config", path]
            p = owned_popen(cmd + list(args), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
            try:
                out, err = p.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.communicate()
                self.fail(f"ruvio {args} still running after 10 s")
            finally:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        err = err.decode(errors="replace")
        self.assertEqual(p.returncode, 2, f"args {args}: stdout {out!r} stderr {err!r}")
        lines = [line for line in err.splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, f"stderr for {args}: {err!r}")
        for name in names:
            self.assertIn(name, lines[0])
        self.assertFalse(listening(port))
        self.assertFalse(listening(port + 1))
        return lines[0]

    def test_refused_unknown_flag(self):
        self.refused("--bogus", names=["bogus"])

    def test_refused_bad_port(self):
        self.refused("--port", "70000", names=["port", "70000"])

    def test_orphaned_stuck_worker_exits(self):
        # A worker stuck where its loop never turns (a script past the busy threshold with
        # nobody killing it) misses the SIGTERM that its supervisor's death sends; the
        # watchdog thread ends it after the grace (2 s here, 30 s by default).
        srv = self.start("--workers", "1", "--durability", "memory",
                         "--busy-reply-threshold", "100", env={"RUVIO_ORPHAN_GRACE_S": "2"})
        worker = self.one_worker(srv)
        spinner = itest.Raw(srv.port, timeout=60)
        self.addCleanup(spinner.close)
        spinner.send(itest.encode("EVAL", "while true do end", "0"))
        # Past the threshold the loop only answers -BUSY: the SIGTERM is never handled.
        time.sleep(1.5)
        os.kill(srv.pid, signal.SIGKILL)
        srv.proc.wait(timeout=5)
        gone = itest.wait_for(lambda: not alive(worker), timeout=15)
        if not gone:
            os.kill(worker, signal.SIGKILL)
        self.assertTrue(gone, "orphaned worker still running 15 s after its supervisor died")

    def test_refused_bad_durability(self):
        self.refused("--durability", "fast", names=["durability", "fast"])

    def test_refused_unknown_config_key(self):
        self.refused(config="# a comment\nbogus-key 1\n", names=["bogus-key"])

    def test_refused_bad_config_value(self):
        self.refused(config="databases many\n", names=["databases"])

    def test_refused_too_many_workers(self):
        self.refused("--workers", "256", names=["workers"])

    def test_config_file(self):
        with tempfile.TemporaryDirectory(prefix="ruvio-conf-") as d:
            path = os.path.join(d, "ruvio.conf")
            with open(path, "w") as f:
                f.write("# Ruvio test config\n\nrequirepass filepass\ndatabases 4\n"
                        "maxmemory-policy allkeys-lru\n")
            srv = self.start("--config", path)
            with itest.Raw(srv.port) as c:
                self.assertEqual(c.call("PING"), b"-NOAUTH Authentication required.\r\n")
                self.assertEqual(c.call("AUTH", "wrong"),
                                 b"-WRONGPASS invalid username-password pair or user is "
                                 b"disabled.\r\n")
                self.assertEqual(c.call("AUTH", "filepass"), b"+OK\r\n")
                self.assertEqual(c.call("SELECT", "3"), b"+OK\r\n")
                self.assertEqual(c.call("SELECT", "4"), b"-ERR DB index is out of range\r\n")
                self.assertEqual(c.call("CONFIG", "GET", "maxmemory-policy"),
                                 b"*2\r\n$16\r\nmaxmemory-policy\r\n$11\r\nallkeys-lru\r\n")
            self.assertEqual(itest.redis_cli(srv.port, "PING"),
                             "NOAUTH Authentication required.\n\n")


if __name__ == "__main__":
    unittest.main()
