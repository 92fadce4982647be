"""What the SIGKILL recovery tests share. CrashCase: a data dir of the test's own, Ruvio started
on it with a durability mode, a SIGKILL of the workers and the supervisor, BGSAVE checked done,
the WAL's bytes (sets, scripts, functions, DUMP/RESTORE use it). KillRecovery adds the two
scenarios every type proves (zset, geo, stream, bits):

- WAL replay: `rounds` rounds of the workload under --durability always, SIGKILL, restart:
  the snapshot_of() of the data set is the same.
- Snapshot + WAL: one round, BGSAVE (checked done and ok), one more round, SIGKILL, restart.

A test class mixes KillRecovery into unittest.TestCase and defines workload(r, round_),
snapshot_of(r) and, when it checks more, check_wal(want, r) (the live data set, before the
kill) and check_recovered(want, r) (the restarted server, in both scenarios)."""

import abc
import os
import shutil
import signal
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import harness  # noqa: E402
from itest import wait_for  # noqa: E402


class CrashCase:
    """Mixin for a unittest.TestCase: servers on the test's own data dir, crashed by SIGKILL."""
    prefix = "ruvio-dur-"
    args = ()  # more arguments for every server the case starts

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix=self.prefix)
        self.dir = os.path.join(self.tmp, "data")
        self.servers = []

    def tearDown(self):
        for srv in self.servers:
            if srv.running():
                srv.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start(self, mode="always", workers=1):
        srv = harness.Server(kind="ruvio", args=["--dir", self.dir, "--durability", mode,
                                                 "--workers", str(workers),
                                                 "--alloc-trace", "off", *self.args])
        self.servers.append(srv)
        if workers > 1:
            harness.wait_mesh_up(srv.port, workers)
        return srv

    def crash(self, srv, workers=1):
        """SIGKILL of every worker, then of the supervisor (so none is restarted)."""
        self.assertTrue(wait_for(lambda: len(srv.worker_pids()) == workers, 10.0), "no worker")
        for pid in srv.worker_pids():
            os.kill(pid, signal.SIGKILL)
        srv.stop(signal.SIGKILL)

    def bgsave(self, r):
        self.assertTrue(r.bgsave())
        self.assertTrue(wait_for(lambda: r.info("persistence")["rdb_bgsave_in_progress"] == 0,
                                 10.0))
        self.assertEqual(r.info("persistence")["rdb_last_bgsave_status"], "ok")

    def wal_segments(self):
        """The bytes of every WAL segment of worker 0 (for tests of what is logged)."""
        out = b""
        wdir = os.path.join(self.dir, "worker-0")
        for name in sorted(os.listdir(wdir)):
            if name.startswith("wal-"):
                with open(os.path.join(wdir, name), "rb") as f:
                    out += f.read()
        return out


class KillRecovery(CrashCase, abc.ABC):
    """Mixin for a unittest.TestCase; a family's case must define workload and snapshot_of
    (ABCMeta refuses to build a test class that lacks either)."""
    rounds = 3

    @abc.abstractmethod
    def workload(self, r, round_):
        """Writes one round's commands to `r`."""

    @abc.abstractmethod
    def snapshot_of(self, r):
        """The whole data set as comparable Python values."""

    def check_wal(self, want, r):
        """Checks of the recorded data set itself (that the workload did what it means to)."""

    def check_recovered(self, want, r):
        """Checks on the restarted server (both scenarios), after the data set compared."""

    def crash_and_compare(self, srv, want):
        """SIGKILL, restart on the same data dir: the data set is `want`."""
        self.crash(srv)
        srv = self.start("everysec")
        r = srv.client()
        self.assertEqual(self.snapshot_of(r), want)
        self.check_recovered(want, r)
        r.close()

    def test_wal_replay_after_sigkill(self):
        srv = self.start("always")
        r = srv.client()
        for round_ in range(self.rounds):
            self.workload(r, round_)
        want = self.snapshot_of(r)
        self.check_wal(want, r)
        r.close()
        self.crash_and_compare(srv, want)

    def test_snapshot_then_wal_after_sigkill(self):
        srv = self.start("always")
        r = srv.client()
        self.workload(r, 0)
        self.bgsave(r)
        self.workload(r, 1)
        want = self.snapshot_of(r)
        r.close()
        self.crash_and_compare(srv, want)
