"""The harness leaves no server behind: a server dies with the test process that started
it, however that process ends (a SIGKILL runs no tearDownClass, no finally), also when a
short-lived thread started it; and the runner names what a module or the run left alive."""

import contextlib
import importlib.util
import io
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import harness
import itest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The owner: starts a server of kind argv[3] through the harness (from the main thread, or
# from a thread that has ended by the time the pid is printed), prints "pid dir running
# worker,pids" and waits to be killed.
OWNER = """
import sys, threading, time
sys.path.insert(0, sys.argv[1])
import harness
box = []
args = ["--workers", "2"] if sys.argv[3] == "ruvio" else []
start = lambda: box.append(harness.Server(kind=sys.argv[3], args=args))
if sys.argv[2] == "thread":
    t = threading.Thread(target=start)
    t.start()
    t.join()
    time.sleep(0.3)  # a server tied to the thread would be dying now
else:
    start()
srv = box[0]
workers = ",".join(map(str, srv.worker_pids())) if srv.kind == "ruvio" else "-"
print(srv.pid, srv.tmp.name, "running" if srv.running() else "dead", workers, flush=True)
time.sleep(600)
"""


def proc_state(pid):
    """(state, ppid, start time) from /proc/PID/stat, or None once the PID is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    return fields[0], int(fields[1]), int(fields[19])


def ping(srv):
    with socket.create_connection(("127.0.0.1", srv.port), timeout=5) as s:
        return harness._call(s, "PING")


def gone(pid, started, timeout):
    """True once `pid` (the process that started at `started`) has exited; a zombie has."""
    deadline = time.monotonic() + timeout
    while True:
        st = proc_state(pid)
        if st is None or st[2] != started or st[0] in ("Z", "X"):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)


class DiesWithItsOwner(unittest.TestCase):

    def setUp(self):
        # A server of this process that nothing below may touch.
        self.bystander = harness.Server(kind="redis")
        self.addCleanup(self.bystander.stop)

    def owner_killed(self, mode, kind="redis"):
        err = tempfile.TemporaryFile()
        self.addCleanup(err.close)
        owner = harness.owned_popen(["/usr/bin/python3", "-c", OWNER, TESTS, mode, kind],
                                    stdout=subprocess.PIPE, stderr=err)
        self.addCleanup(lambda: owner.poll() is None and (owner.kill(), owner.wait()))
        ready, _, _ = select.select([owner.stdout], [], [], 20)
        self.assertTrue(ready, "owner printed nothing in 20 s")
        line = owner.stdout.readline().decode()
        if not line:
            owner.wait(5)
            err.seek(0)
            self.fail(f"owner exited ({owner.returncode}): {err.read().decode()}")
        pid_text, tmp, alive, workers = line.split()
        pid = int(pid_text)
        self.assertEqual(alive, "running")
        state, ppid, started = proc_state(pid)
        self.assertEqual(ppid, owner.pid)
        if kind == "redis":
            found = [f for f in harness.survivors([tmp]) if f[2] == tmp]
            self.assertEqual([(f[0], f[2]) for f in found], [(pid, tmp)])
            self.assertTrue(found[0][1].startswith("/usr/bin/redis-server"), found)
            workers = []
        else:
            workers = [(int(w), proc_state(int(w))[2]) for w in workers.split(",")]
            self.assertEqual(len(workers), 2)

        os.kill(owner.pid, signal.SIGKILL)
        owner.wait(5)
        self.assertEqual(owner.returncode, -signal.SIGKILL)
        self.assertTrue(gone(pid, started, 5), f"{kind} {pid} outlived its owner")
        for w, w_started in workers:  # the supervisor's PR_SET_PDEATHSIG, then its watchdog
            self.assertTrue(gone(w, w_started, 10), f"worker {w} outlived its supervisor")
        self.assertEqual([f for f in harness.survivors([tmp]) if f[2] == tmp], [])
        self.assertTrue(self.bystander.running())
        self.assertEqual(ping(self.bystander), b"+PONG\r\n")

    def test_sigkilled_owner_takes_its_redis_server_along(self):
        self.owner_killed("main")

    def test_server_started_by_an_ended_thread_lives_until_its_owner_dies(self):
        self.owner_killed("thread")

    def test_sigkilled_owner_takes_ruvio_and_its_workers_along(self):
        itest.require_ruvio()
        self.owner_killed("main", "ruvio")

    def test_server_started_from_a_thread_outlives_the_thread_here(self):
        box = []
        t = threading.Thread(target=lambda: box.append(harness.Server(kind="redis")))
        t.start()
        t.join()
        srv = box[0]
        self.addCleanup(srv.stop)
        time.sleep(0.3)
        self.assertTrue(srv.running())
        self.assertEqual(ping(srv), b"+PONG\r\n")


class Survivors(unittest.TestCase):
    """harness.survivors finds orphans (their parent gone, so not our children) by cwd and by
    the run's mark, and nothing else of the machine."""

    def orphan(self, cwd=None, env=None):
        """A `sleep` whose parent shell has exited: reparented away from us."""
        p = subprocess.run(["/bin/sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!"], cwd=cwd,
                           env=env, capture_output=True, timeout=10, check=True)
        pid = int(p.stdout)
        self.addCleanup(lambda: proc_state(pid) and os.kill(pid, signal.SIGKILL))
        return pid

    def test_found_by_cwd_and_by_mark_only(self):
        mark = harness.new_owner()
        with tempfile.TemporaryDirectory(prefix="redis-test-") as d, \
                tempfile.TemporaryDirectory(prefix=f"redis-test-{mark}-") as named:
            by_cwd = self.orphan(cwd=d)
            by_env = self.orphan(env={**os.environ, harness.OWNER_ENV: mark})
            by_name = self.orphan(cwd=named)
            other = self.orphan(env={**os.environ, harness.OWNER_ENV: mark + "x"})
            me = os.getpid()
            found = [f for f in harness.survivors([d], mark) if proc_state(f[0])[1] != me]
            self.assertEqual(sorted(found), sorted([(by_cwd, "sleep 60", d),
                                                    (by_env, "sleep 60", os.getcwd()),
                                                    (by_name, "sleep 60", named)]))
            self.assertIsNotNone(proc_state(other))


class FailedSetUpClass(unittest.TestCase):
    """A class whose setUpClass raises after its base started the server never runs
    tearDownClass; the base's class cleanup stops the server anyway."""

    def test_server_stopped_when_the_rest_of_setupclass_fails(self):
        started = []

        class Broken(itest.RedisCase):
            @classmethod
            def setUpClass(cls):
                super().setUpClass()
                started.append(cls.server)
                raise RuntimeError("after the server started")

            def test_never_runs(self):
                pass

        result = unittest.TestResult()
        unittest.TestSuite([Broken("test_never_runs")]).run(result)
        self.assertEqual([(type(t).__name__, e.splitlines()[-1]) for t, e in result.errors],
                         [("_ErrorHolder", "RuntimeError: after the server started")])
        self.assertEqual(result.testsRun, 0)
        self.assertEqual(len(started), 1)
        self.assertFalse(started[0].running())


def load_runner():
    spec = importlib.util.spec_from_file_location("run_for_test", os.path.join(TESTS, "run.py"))
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    return run


class RunnerNamesTheModule(unittest.TestCase):
    """tests/run.py's Result: a server a module never stopped is one failure line naming the
    module, and is stopped."""

    def test_module_left_a_server_running(self):
        result = load_runner().Result()
        result.module, result.module_from = "integration.leaky", len(harness.SERVERS)
        srv = harness.Server(kind="redis")
        self.addCleanup(srv.stop)
        stopped = harness.Server(kind="redis")
        stopped.stop()
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            result.check_module(len(harness.SERVERS))
        self.assertEqual(printed.getvalue(),
                         f"integration.leaky (left a server running) ... FAIL (redis pid "
                         f"{srv.pid}, port {srv.port}: no stop() after its last test)\n")
        self.assertEqual(result.leaks, 1)
        self.assertFalse(srv.running())


class RunnerTimesFixtures(unittest.TestCase):
    """The runner's alarm covers a setUpClass: one that hangs is an error of its class, not
    a run that hangs until it is killed (and, before the harness tied servers to their owner,
    left them orphaned)."""

    def test_hanging_setupclass_is_an_error(self):
        run = load_runner()
        run.TEST_TIMEOUT_S = 1

        class Hangs(unittest.TestCase):
            @classmethod
            def setUpClass(cls):
                time.sleep(30)

            def test_never_runs(self):
                pass

        result = run.Result()
        old = signal.signal(signal.SIGALRM, run._alarm)
        outer = signal.alarm(0)  # this test's own alarm, put back below
        t0 = time.monotonic()
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                result.arm()
                unittest.TestSuite([Hangs("test_never_runs")]).run(result)
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
            signal.alarm(max(outer - int(time.monotonic() - t0), 1) if outer else 0)
        self.assertLess(time.monotonic() - t0, 5)
        self.assertEqual([e.splitlines()[-1] for _, e in result.errors],
                         ["run_for_test.Timeout: test exceeded 1 s"])
        self.assertEqual(result.testsRun, 0)


if __name__ == "__main__":
    sys.exit(unittest.main())
