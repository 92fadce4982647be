"""Operations (issue 5), systemd side: the unit file passes `systemd-analyze verify`, and
the supervisor speaks sd_notify on a datagram socket standing in for $NOTIFY_SOCKET:
STATUS/READY=1 at start, WATCHDOG=1 at half WATCHDOG_USEC only while every worker's
heartbeat is fresh, RELOADING=1 then READY=1 on SIGHUP (which reloads the config file
without restarting workers), STOPPING=1 on SIGTERM."""

import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

import itest
import opsutil
from harness import ROOT, RUVIO_BIN


class UnitFile(unittest.TestCase):
    def test_systemd_analyze_verify(self):
        tool = shutil.which("systemd-analyze")
        if tool is None:
            self.skipTest("systemd-analyze not installed (Debian package systemd)")
        itest.require_ruvio()
        with open(os.path.join(ROOT, "deploy", "ruvio.service")) as f:
            unit = f.read()
        for key in ("Type=notify", "NotifyAccess=main", "KillMode=mixed", "LimitNOFILE=",
                    "Restart=on-failure", "WatchdogSec=", "ExecReload=/bin/kill -HUP $MAINPID"):
            self.assertIn("\n" + key, unit)
        stop = int(re.search(r"\nTimeoutStopSec=(\d+)", unit).group(1))
        self.assertGreater(stop, 10)  # the supervisor waits 10 s for its workers
        with tempfile.TemporaryDirectory() as tmp:
            # verify checks that ExecStart exists: point it at the build.
            path = os.path.join(tmp, "ruvio.service")
            with open(path, "w") as f:
                f.write(unit.replace("/usr/local/bin/ruvio", RUVIO_BIN))
            p = subprocess.run([tool, "verify", path], capture_output=True, text=True,
                               timeout=60)
        if p.returncode != 0 and "Failed to" in p.stderr and "bus" in p.stderr.lower():
            self.skipTest(f"systemd-analyze cannot run here: {p.stderr.strip()}")
        self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "", ""))


class Notify(unittest.TestCase):
    def setUp(self):
        itest.require_ruvio()
        self.tmp = tempfile.TemporaryDirectory()
        self.sock_path = os.path.join(self.tmp.name, "notify")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.sock_path)
        self.sock.settimeout(0.05)
        self.conf = os.path.join(self.tmp.name, "ruvio.conf")
        self.write_conf("workers 1\nlog-level info\nmaxmemory 0\ndatabases 16\n")
        self.srv = opsutil.ruvio(
            ["--config", self.conf],
            env={"NOTIFY_SOCKET": self.sock_path, "WATCHDOG_USEC": "400000"},
            workers=None)  # from the config file, so a reload can change it
        self.messages = []

    def tearDown(self):
        if self.srv.running():
            self.srv.stop()
        self.sock.close()
        self.tmp.cleanup()

    def write_conf(self, text):
        with open(self.conf, "w") as f:
            f.write(text)

    def drain(self, seconds):
        """Datagrams received within `seconds`."""
        got = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                got.append(self.sock.recv(4096).decode())
            except socket.timeout:
                pass
        self.messages += got
        return got

    def test_ready_watchdog_reload_stopping(self):
        got = self.drain(1.5)
        self.assertEqual(got[0], "STATUS=starting 1 worker(s)")
        ready = [m for m in got if m.startswith("READY=1")]
        self.assertEqual(len(ready), 1, got)
        self.assertRegex(ready[0], r"^READY=1\nSTATUS=ready: 1 worker on 127\.0\.0\.1:%d, "
                                   r"direct ports \d+\.\.\d+, cpus \d+$" % self.srv.port)
        # WATCHDOG_USEC=400000: a ping every 200 ms while the worker answers.
        pings = self.drain(1.0).count("WATCHDOG=1")
        self.assertGreaterEqual(pings, 3)
        self.assertLessEqual(pings, 7)

        # A worker that stops answering (SIGSTOP) stops the pings within ~3 s...
        wpid = self.srv.worker_pids()[0]
        os.kill(wpid, signal.SIGSTOP)
        try:
            self.drain(3.5)
            self.assertEqual(self.drain(1.0).count("WATCHDOG=1"), 0)
        finally:
            os.kill(wpid, signal.SIGCONT)
        # ...and they resume once it answers again.
        self.assertGreater(self.drain(2.5).count("WATCHDOG=1"), 0)

        # SIGHUP: reloadable settings apply in place, restart-only ones are reported.
        self.write_conf("workers 2\nlog-level debug\nmaxmemory 100mb\n"
                        "maxmemory-policy allkeys-lru\nrequirepass s3cret\ndatabases 32\n")
        os.kill(self.srv.pid, signal.SIGHUP)
        got = self.drain(1.0)
        reload_msgs = [m for m in got if not m.startswith("WATCHDOG")]
        self.assertTrue(reload_msgs[0].startswith("RELOADING=1\nSTATUS=reloading configuration\n"
                                                  "MONOTONIC_USEC="), reload_msgs)
        self.assertTrue(reload_msgs[1].startswith("READY=1\nSTATUS=ready: "), reload_msgs)
        log = self.srv.output()
        self.assertIn("SIGHUP: 'workers' changed (1 -> 2); it needs a restart and is not applied",
                      log)
        self.assertIn("SIGHUP: 'databases' changed (16 -> 32); it needs a restart and is not "
                      "applied", log)
        self.assertIn(f"SIGHUP: configuration reloaded from {self.conf}: log-level info -> debug, "
                      "maxmemory 0 -> 104857600, maxmemory-policy noeviction -> allkeys-lru, "
                      "requirepass (changed)", log)
        self.assertTrue(opsutil.wait_for(
            lambda: "configuration reloaded: log-level debug, maxmemory 104857600, "
                    "maxmemory-policy allkeys-lru" in self.srv.output(), 3))
        # Same worker process, new settings.
        self.assertEqual(self.srv.worker_pids(), [wpid])
        with itest.Raw(self.srv.port) as c:
            self.assertEqual(c.call("GET", "x"),
                             b"-NOAUTH Authentication required.\r\n")
            self.assertEqual(c.call("AUTH", "s3cret"), b"+OK\r\n")
            self.assertEqual(c.call("CONFIG", "GET", "maxmemory"),
                             b"*2\r\n$9\r\nmaxmemory\r\n$9\r\n104857600\r\n")
            self.assertEqual(c.call("CONFIG", "GET", "maxmemory-policy"),
                             b"*2\r\n$16\r\nmaxmemory-policy\r\n$11\r\nallkeys-lru\r\n")

        self.assertEqual(self.srv.stop(), 0)
        got = self.drain(0.3)
        self.assertIn("STOPPING=1\nSTATUS=stopping", self.messages)


if __name__ == "__main__":
    unittest.main()
