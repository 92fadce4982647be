"""Cross-worker client state when the other worker restarts (issue 14), through a 2-worker
proxy port: the observed clients sit on worker 0, worker 1 is SIGKILLed and restarted by the
supervisor, and what those clients hold on worker 1 must hold again (or they are told):

- tracking: a RESP3 client that read keys of worker 1 gets the null invalidation Redis sends
  on FLUSHALL (`>2 invalidate _`), a client that read only worker 0's keys gets nothing; keys
  read again after the restart are invalidated as before; BCAST prefixes reach the new
  worker; a REDIRECT target of worker 1 that died makes the next message a
  `tracking-redir-broken` push, as a target that left does on one redis-server.
- MONITOR: a monitor on worker 0 sees the commands of clients of the restarted worker.
- pub/sub through the proxy: a subscriber on worker 0 receives what clients of the restarted
  worker publish, and its keyspace notifications (notify-keyspace-events set at run time by
  CONFIG SET reaches the new worker).
- CLIENT PAUSE WRITE in force holds the writes of the restarted worker's clients too.
- scripts (SCRIPT LOAD) and, without a WAL, function libraries are there again for EVALSHA and
  FCALL on the restarted worker's keys."""

import os
import signal
import socket
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "differential"))

import harness  # noqa: E402
import itest  # noqa: E402
from resp_raw import Frames, RawConn, parse  # noqa: E402
from test_tracking_workers import keys_on  # noqa: E402

NULL_INVALIDATE = b">2\r\n$10\r\ninvalidate\r\n_\r\n"


A = keys_on(0, 2, "rs:")  # owned by worker 0: the observed clients' own worker
B = keys_on(1, 2, "rs:")  # owned by worker 1: the one restarted


def invalidate(*keys):
    body = b"".join(b"$%d\r\n%s\r\n" % (len(k), k) for k in keys)
    return b">2\r\n$10\r\ninvalidate\r\n*%d\r\n%s" % (len(keys), body)


def worker_pid(srv, worker):
    with socket.create_connection(("127.0.0.1", srv.port + 1 + worker), timeout=5) as s:
        text = harness._call(s, "INFO", "server").decode(errors="replace")
    i = text.index("process_id:")
    return int(text[i + 11:text.index("\r\n", i)])


def restart_worker(test, srv, worker=1):
    """SIGKILLs `worker` (by its PID) and waits, bounded, until the supervisor's new one
    serves its keys through the proxy again."""
    old = worker_pid(srv, worker)
    os.kill(old, signal.SIGKILL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            if worker_pid(srv, worker) != old:
                break
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    else:
        test.fail("worker not restarted:\n" + srv.log_tail(20))
    test.assertTrue(harness.wait_mesh_up(srv.port, 2, timeout=10), srv.log_tail(20))


def settle():
    time.sleep(0.1)


class TwoWorkerServer:
    """A fresh 2-worker Ruvio per test (`server_args` added), its mesh up; frames(w) opens a
    connection to worker w, closed after the test. A mixin, so that test modules importing it
    do not run this module's tests again."""

    server_args = ()

    def setUp(self):
        itest.require_ruvio()
        self.srv = harness.Server(kind="ruvio", args=["--workers", "2", *self.server_args])
        harness.wait_mesh_up(self.srv.port)
        self.conns = []

    def tearDown(self):
        for c in self.conns:
            c.close()
        self.srv.stop()

    def frames(self, worker):
        f = Frames(self.srv.port, worker)
        self.conns.append(f)
        return f


class RestartedWorkerTest(TwoWorkerServer, unittest.TestCase):
    """Each test restarts worker 1 of its own server (a few seconds each)."""

    def test_tracking_after_owner_restart(self):
        t = self.frames(0)  # read keys of both workers
        only_here = self.frames(0)  # read only keys of its own worker
        bc = self.frames(0)  # BCAST on a prefix of worker 1's keys
        w = self.frames(1)
        for k in A + B:
            w.call(b"SET", k, b"v")
        for c in (t, only_here, bc):
            c.call(b"HELLO", b"3")
        t.call(b"CLIENT", b"TRACKING", b"ON")
        only_here.call(b"CLIENT", b"TRACKING", b"ON")
        bc.call(b"CLIENT", b"TRACKING", b"ON", b"BCAST", b"PREFIX", B[1])
        t.call(b"GET", A[0])
        t.call(b"GET", B[0])
        only_here.call(b"GET", A[0])
        for c in (t, only_here, bc):
            c.frames.clear()
        w.close()
        restart_worker(self, self.srv)
        for c in (t, only_here, bc):
            c.drain(0.3)
        self.assertEqual(t.frames, [NULL_INVALIDATE])
        self.assertEqual(only_here.frames, [])
        self.assertEqual(bc.frames, [NULL_INVALIDATE])
        for c in (t, only_here, bc):
            c.frames.clear()
        # After the restart: keys read again are remembered by the new worker, and its writes
        # of the BCAST prefix reach bc (from a client of the new worker and one of worker 0).
        w = self.frames(1)
        self.assertEqual(t.call(b"GET", B[0]), b"_\r\n")  # memory durability: gone
        t.frames.clear()
        w.call(b"SET", B[0], b"new")
        w.call(b"SET", B[1], b"new")
        settle()
        t.call(b"PING")
        bc.call(b"PING")
        self.assertEqual(t.frames, [invalidate(B[0]), b"+PONG\r\n"])
        self.assertEqual(bc.frames, [invalidate(B[1]), b"+PONG\r\n"])
        only_here.frames.clear()
        bc.frames.clear()
        only_here.call(b"SET", B[1], b"from-worker-0")
        settle()
        bc.call(b"PING")
        self.assertEqual(bc.frames, [invalidate(B[1]), b"+PONG\r\n"])
        self.assertEqual(only_here.frames, [b"+OK\r\n"])

    def test_redirect_target_on_restarted_worker(self):
        t = self.frames(0)
        r = self.frames(1)
        rid = parse(r.call(b"CLIENT", b"ID"))
        r.call(b"SUBSCRIBE", b"__redis__:invalidate")
        t.call(b"HELLO", b"3")
        self.assertEqual(t.call(b"CLIENT", b"TRACKING", b"ON", b"REDIRECT", b"%d" % rid),
                         b"+OK\r\n")
        t.call(b"GET", B[0])
        t.frames.clear()
        restart_worker(self, self.srv)
        t.drain(0.3)
        broken = b">2\r\n$21\r\ntracking-redir-broken\r\n:%d\r\n" % rid
        # The flush-like message for the lost worker's keys finds the target gone.
        self.assertEqual(t.frames, [broken])
        t.frames.clear()
        t.call(b"GET", A[0])
        w = self.frames(1)
        w.call(b"SET", A[0], b"x")
        settle()
        t.call(b"PING")
        self.assertEqual(t.frames, [b"_\r\n", broken, b"+PONG\r\n"])

    def test_monitor_pubsub_and_config_after_restart(self):
        m = RawConn(self.srv.port)
        self.conns.append(m)
        for _ in range(400):
            if parse(m.call(b"CLIENT", b"ID")) % 2 == 0:
                break
            m.close()
            m = RawConn(self.srv.port)
            self.conns.append(m)
        self.assertEqual(m.call(b"MONITOR"), b"+OK\r\n")
        s = self.frames(0)
        # Set at run time (every worker): the restarted worker is told again.
        self.assertEqual(s.call(b"CONFIG", b"SET", b"notify-keyspace-events", b"K$"),
                         b"+OK\r\n")
        s.call(b"SUBSCRIBE", b"news")
        s.call(b"SUBSCRIBE", b"__keyspace@0__:" + B[0])
        restart_worker(self, self.srv)
        w = self.frames(1)
        self.assertEqual(w.call(b"CONFIG", b"GET", b"notify-keyspace-events"),
                         b"*2\r\n$22\r\nnotify-keyspace-events\r\n$2\r\n$K\r\n")
        w.call(b"SET", B[0], b"after")
        w.call(b"PUBLISH", b"news", b"hello")
        s.drain(0.3)
        channel = b"__keyspace@0__:" + B[0]
        self.assertEqual(s.frames[-2:], [
            b"*3\r\n$7\r\nmessage\r\n$%d\r\n%s\r\n$3\r\nset\r\n" % (len(channel), channel),
            b"*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$5\r\nhello\r\n"])
        m.sock.settimeout(5)
        seen = b""
        deadline = time.monotonic() + 5
        want = b'"SET" "%s" "after"' % B[0]
        while want not in seen and time.monotonic() < deadline:
            seen += m.read_reply()
        self.assertIn(want, seen)

    def test_client_pause_reaches_restarted_worker(self):
        c = self.frames(0)
        start = time.monotonic()
        self.assertEqual(c.call(b"CLIENT", b"PAUSE", b"2500", b"WRITE"), b"+OK\r\n")
        restart_worker(self, self.srv)
        w = self.frames(1)
        self.assertEqual(w.call(b"GET", B[0]), b"$-1\r\n")  # reads go on
        self.assertEqual(w.call(b"SET", B[0], b"held"), b"+OK\r\n")
        # The new worker held the write until the pause that worker 0 still had ended.
        self.assertGreaterEqual(time.monotonic() - start, 2.4)

    def test_scripts_and_functions_after_restart(self):
        c = self.frames(0)
        body = b"return {KEYS[1], ARGV[1]}"
        sha = parse(c.call(b"SCRIPT", b"LOAD", body))
        lib = b"#!lua name=rlib\nredis.register_function('rf', function(k, a) return a[1] end)"
        self.assertEqual(c.call(b"FUNCTION", b"LOAD", lib), b"$4\r\nrlib\r\n")
        restart_worker(self, self.srv)
        # Through either worker, a key of the restarted one (memory durability: nothing of
        # it was persisted).
        for w in (c, self.frames(1)):
            self.assertEqual(w.call(b"EVALSHA", sha, b"1", B[0], b"x"),
                             b"*2\r\n$%d\r\n%s\r\n$1\r\nx\r\n" % (len(B[0]), B[0]))
            self.assertEqual(w.call(b"FCALL", b"rf", b"1", B[0], b"y"), b"$1\r\ny\r\n")


if __name__ == "__main__":
    unittest.main()
