"""Operations (issue 5): the admin HTTP port (/metrics with promtool, /workers, /alloc, 404,
400, 405, bound to --bind only, never blocking), INFO's per-worker memory lines, and
ruvioctl top/info output."""

import json
import os
import re
import shutil
import socket
import subprocess
import time
import unittest

import itest
import opsutil
from opsutil import ctl, get, get_json, raw_http, wait_for

WORKER_FIELDS = {"id", "pid", "cpu", "port", "up", "rss_bytes", "pss_bytes", "keys",
                 "used_memory_bytes", "restarts"}
METRICS = ["ruvio_worker_rss_bytes", "ruvio_worker_pss_bytes", "ruvio_worker_keys",
           "ruvio_worker_used_memory_bytes", "ruvio_worker_commands_total",
           "ruvio_worker_connected_clients", "ruvio_worker_restarts_total", "ruvio_worker_up"]


def parse_metrics(text):
    """{(name, labels): value} of a Prometheus text exposition."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.fullmatch(r'([a-z_]+)(?:\{(.*)\})? (\S+)', line)
        assert m, f"bad metrics line {line!r}"
        out[(m.group(1), m.group(2) or "")] = float(m.group(3))
    return out


def proc_kb(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return None


class AdminHttp(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = opsutil.ruvio()
        cls.pid = cls.srv.worker_pids()[0]
        c = cls.srv.client()
        c.flushall()
        c.mset({f"key:{i}": "v" * 20 for i in range(1000)})
        c.close()
        # Two sampling ticks: the figures reflect the 1000 keys.
        cls.w = opsutil.fresh_worker(cls.srv)

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def test_workers_json(self):
        status, ctype, body = get(self.srv, "/workers")
        self.assertEqual(status, 200)
        self.assertEqual(ctype, "application/json")
        workers = json.loads(body)
        self.assertEqual(len(workers), 1)
        w = workers[0]
        self.assertTrue(WORKER_FIELDS <= set(w), WORKER_FIELDS - set(w))
        self.assertEqual(w["id"], 0)
        self.assertEqual(w["pid"], self.pid)
        self.assertEqual(w["cpu"], 0 if os.sched_getaffinity(0) & {0} else w["cpu"])
        self.assertEqual(w["port"], self.srv.port + 1)
        self.assertIs(w["up"], True)
        self.assertEqual(w["keys"], 1000)
        self.assertEqual(w["keys_per_db"][0], 1000)
        self.assertEqual(w["restarts"], 0)
        # RSS as /proc says it, give or take what changed since the sample.
        rss = proc_kb(self.pid, "VmRSS")
        self.assertLess(abs(w["rss_bytes"] - rss), rss * 0.25)
        self.assertGreater(w["pss_bytes"], 0)
        self.assertLessEqual(w["pss_bytes"], w["rss_bytes"] * 1.05)
        # used memory as the worker counts it: INFO's used_memory less its 1 MiB base.
        info = self.srv.client().info("memory")
        self.assertEqual(w["used_memory_bytes"] + 1024 * 1024, info["used_memory"])

    def test_metrics_names_values(self):
        status, ctype, body = get(self.srv, "/metrics")
        self.assertEqual(status, 200)
        self.assertTrue(ctype.startswith("text/plain; version=0.0.4"), ctype)
        m = parse_metrics(body)
        w = '{}'.format('worker="0"')
        for name in METRICS:
            self.assertIn((name, w), m, name)
            self.assertIn(f"# TYPE {name} ", body)
        self.assertEqual(m[("ruvio_worker_up", w)], 1)
        self.assertEqual(m[("ruvio_worker_keys", w)], 1000)
        self.assertEqual(m[("ruvio_worker_db_keys", 'worker="0",db="db0"')], 1000)
        self.assertEqual(m[("ruvio_worker_restarts_total", w)], 0)
        self.assertGreaterEqual(m[("ruvio_worker_commands_total", w)], 2)
        self.assertGreater(m[("ruvio_worker_rss_bytes", w)], 1 << 20)
        self.assertGreater(m[("ruvio_worker_pss_bytes", w)], 0)
        self.assertEqual(m[("ruvio_worker_used_memory_bytes", w)], self.w["used_memory_bytes"])
        self.assertIn("# TYPE ruvio_worker_commands_total counter", body)
        self.assertIn("# TYPE ruvio_worker_rss_bytes gauge", body)
        self.assertIn(("ruvio_alloc_tracing", ""), m)

    def test_promtool_check_metrics(self):
        promtool = shutil.which("promtool")
        if promtool is None:
            self.skipTest("promtool not installed (Debian package prometheus)")
        _, _, body = get(self.srv, "/metrics")
        p = subprocess.run([promtool, "check", "metrics"], input=body, capture_output=True,
                           text=True, timeout=30)
        self.assertEqual((p.returncode, p.stdout + p.stderr), (0, ""))

    def test_unknown_path_404(self):
        status, _, body = get(self.srv, "/nope")
        self.assertEqual(status, 404)
        self.assertEqual(body, "not found; try /metrics, /workers or /alloc\n")

    def test_bad_request_400(self):
        for junk in (b"GARBAGE\r\n\r\n", b"GET /metrics HTTP/9.9\r\n\r\n",
                     b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: zz\r\n\r\n",
                     b"GET " + b"a" * 20000 + b" HTTP/1.1\r\n\r\n"):
            out = raw_http(self.srv.admin_port, junk)
            self.assertTrue(out.startswith(b"HTTP/1.1 400 Bad Request\r\n"), (junk[:30], out[:80]))

    def test_post_405(self):
        out = raw_http(self.srv.admin_port,
                       b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        self.assertTrue(out.startswith(b"HTTP/1.1 405 Method Not Allowed\r\n"), out[:80])

    def test_slow_client_does_not_block(self):
        # A client that sends half a request and waits must not hold up anyone else.
        with socket.create_connection(("127.0.0.1", self.srv.admin_port)) as slow:
            slow.sendall(b"GET /metr")
            t0 = time.monotonic()
            status, _, _ = get(self.srv, "/workers", timeout=3)
            self.assertEqual(status, 200)
            self.assertTrue(self.srv.client().ping())
            self.assertLess(time.monotonic() - t0, 2)

    def test_bound_to_bind_address_only(self):
        # --bind is 127.0.0.1: another loopback address must not reach the admin port.
        with self.assertRaises(OSError):
            socket.create_connection(("127.0.0.2", self.srv.admin_port), timeout=1).close()

    def test_info_per_worker_memory_lines(self):
        with itest.Raw(self.srv.port) as c:
            text = c.call("INFO", "memory").decode()
        line = next((l for l in text.split("\r\n") if l.startswith("worker0:")), None)
        self.assertIsNotNone(line, text)
        self.assertRegex(line, r"^worker0:pid=%d,up=1,used_memory=\d+,rss=\d+,rss_anon=\d+,"
                               r"pss=\d+,private_dirty=\d+,keys=1000$" % self.pid)
        fields = dict(kv.split("=") for kv in line.split(":", 1)[1].split(","))
        self.assertGreater(int(fields["rss"]), 1 << 20)
        self.assertGreater(int(fields["pss"]), 0)

    def test_ruvioctl_top_once(self):
        code, out, err = ctl(self.srv, "top", "--once")
        self.assertEqual((code, err), (0, ""))
        lines = out.splitlines()
        self.assertEqual(len(lines), 4, out)
        self.assertRegex(lines[0], r"^ruvio top - 127\.0\.0\.1:%d - \d\d:\d\d:\d\d - 1 workers$"
                         % self.srv.admin_port)
        self.assertEqual(lines[1].split(), ["WORKER", "PID", "CORE", "CPU%", "RSS", "PSS", "KEYS",
                                            "OPS/S", "CLIENTS", "RESTARTS", "STATE"])
        row = lines[2].split()
        self.assertEqual(row[0:2], ["0", str(self.pid)])
        self.assertRegex(row[4], r"^\d+\.\d[KMG]$")
        self.assertEqual(row[6], "1000")
        self.assertEqual(row[9:], ["0", "up"])
        self.assertEqual(lines[3].split()[0], "total")

    def test_ruvioctl_top_json(self):
        code, out, _ = ctl(self.srv, "--json", "top", "--once")
        self.assertEqual(code, 0)
        self.assertEqual(json.loads(out)[0]["pid"], self.pid)

    def test_ruvioctl_info(self):
        code, out, err = ctl(self.srv, "info", "--worker", "0")
        self.assertEqual((code, err), (0, ""))
        lines = out.splitlines()
        self.assertEqual(lines[0], "# worker 0")
        self.assertIn("id:0", lines)
        self.assertIn(f"pid:{self.pid}", lines)
        self.assertIn("up:true", lines)
        self.assertIn("keys:1000", lines)
        code, out, _ = ctl(self.srv, "info", "--worker", "0", "--json")
        self.assertEqual(code, 0)
        self.assertEqual(json.loads(out)["keys"], 1000)
        code, out, err = ctl(self.srv, "info", "--worker", "7")
        self.assertEqual((code, out, err), (1, "", "ruvioctl: no worker 7 (there are 1)\n"))

    def test_ruvioctl_errors(self):
        p = subprocess.run([opsutil.RUVIOCTL, "--admin-port", "1", "top", "--once"],
                           capture_output=True, text=True, timeout=10)
        self.assertEqual(p.returncode, 1)
        self.assertTrue(p.stderr.startswith("ruvioctl: cannot connect to the admin port "
                                            "127.0.0.1:1: Connection refused"), p.stderr)
        p = subprocess.run([opsutil.RUVIOCTL, "frobnicate"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertTrue(p.stderr.startswith("ruvioctl: unknown command 'frobnicate'\n"))


class AllocTraceOff(unittest.TestCase):
    def test_off_says_why_and_rest_works(self):
        with opsutil.ruvio(["--alloc-trace", "off"]) as srv:
            status, body = get_json(srv, "/alloc")
            self.assertEqual(status, 200)
            self.assertEqual((body["state"], body["reason"], body["workers"]),
                             ("off", "disabled by --alloc-trace off", []))
            code, out, _ = ctl(srv, "alloc")
            self.assertEqual((code, out),
                             (0, "allocation tracing: off (disabled by --alloc-trace off)\n"))
            code, out, _ = ctl(srv, "alloc", "--seconds", "1")
            self.assertEqual(code, 1)
            _, _, metrics = get(srv, "/metrics")
            self.assertIn("\nruvio_alloc_tracing{} 0\n", metrics)
            self.assertNotIn("ruvio_alloc_live_bytes", metrics)
            self.assertEqual(srv.client().set("k", "v"), True)
            self.assertEqual(get(srv, "/workers")[0], 200)


if __name__ == "__main__":
    unittest.main()


class WalFigures(unittest.TestCase):
    """The durability figures in /metrics come from the worker's own WAL."""

    def test_wal_bytes_and_lag(self):
        with opsutil.ruvio(["--durability", "everysec", "--sync-interval-ms", "200"]) as srv:
            c = srv.client()
            c.flushall()
            for i in range(100):
                c.set(f"wal:{i}", "v" * 100)

            def grown():
                m = parse_metrics(get(srv, "/metrics")[2])
                return m.get(("ruvio_worker_wal_bytes", 'worker="0"'), 0) > 100 * 100 and m

            m = wait_for(grown, timeout=5)
            self.assertTrue(m, "WAL bytes never reached the metrics")
            # everysec at 200 ms: nothing waits for an fsync once the timer has run.
            time.sleep(0.5)
            m = parse_metrics(get(srv, "/metrics")[2])
            self.assertEqual(m[("ruvio_worker_wal_lag_seconds", 'worker="0"')], 0.0)

    def test_memory_profile_reports_zero(self):
        with opsutil.ruvio(["--durability", "memory"]) as srv:
            srv.client().set("k", "v")
            time.sleep(1.2)
            m = parse_metrics(get(srv, "/metrics")[2])
            self.assertEqual(m[("ruvio_worker_wal_bytes", 'worker="0"')], 0.0)
