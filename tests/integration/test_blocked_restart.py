"""A client blocked through the proxy on a key of the other worker keeps waiting when that
worker dies (issue 14, DESIGN's "nothing acknowledged is lost"): a 2-worker proxy, the blocked
client on worker 0, worker 1 (the key's owner) SIGKILLed by its PID and restarted by the
supervisor. Worker 1 had told worker 0 the command was parked (nothing popped), so worker 0
sends it again to the new worker 1 with what is left of its timeout:

- BLPOP / BZPOPMIN / XREAD BLOCK with timeout 0: a push after the restart serves the client,
  exact reply;
- BLPOP with a timeout that passes while worker 1 is down (the supervisor held stopped so the
  restart cannot win the race): the exact null reply of its RESP version at ~its deadline,
  answered by worker 0; and one whose timeout passes after the restart, on the new worker;
- a request in flight that worker 1 never said it parked (a GET, and a BLPOP sent while the
  worker was stuck in DEBUG SLEEP) still gets LOADING, as before."""

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
from resp_raw import encode, parse  # noqa: E402
from test_tracking_workers import keys_on  # noqa: E402
from test_worker_restart import TwoWorkerServer, restart_worker, worker_pid  # noqa: E402

B = keys_on(1, 3, "br:")  # owned by worker 1: the one killed
LOADING = b"-LOADING Ruvio is loading the dataset in memory\r\n"


def bulk(b):
    return b"$%d\r\n%s\r\n" % (len(b), b)


class BlockedClientRestartTest(TwoWorkerServer, unittest.TestCase):
    """Each test kills worker 1 of its own server (a few seconds each)."""

    server_args = ("--enable-debug-command", "yes")

    def worker_info(self, worker, field):
        with socket.create_connection(("127.0.0.1", self.srv.port + 1 + worker), timeout=5) as s:
            text = harness._call(s, "INFO", "clients").decode(errors="replace")
        i = text.index(field + ":")
        return int(text[i + len(field) + 1:text.index("\r\n", i)])

    def block(self, c, *args, n=1):
        """Sends a blocking command on `c` without reading, and waits (bounded) until worker 1
        holds `n` clients parked, then a little for the parked notice to reach worker 0.
        Returns when it was sent."""
        sent = time.monotonic()
        c.c.send(encode(args))
        deadline = time.monotonic() + 5
        while self.worker_info(1, "blocked_clients") < n:
            self.assertLess(time.monotonic(), deadline, "never blocked on worker 1")
            time.sleep(0.02)
        time.sleep(0.1)
        return sent

    def read(self, c, timeout):
        c.c.sock.settimeout(timeout)
        try:
            return c.c.read_reply()
        finally:
            c.c.sock.settimeout(10)

    def push(self, *args):
        """A write through worker 0 once its link to the new worker 1 is up (bounded)."""
        p = self.frames(0)
        deadline = time.monotonic() + 10
        while True:
            r = p.call(*args)
            if not r.startswith(b"-LOADING") or time.monotonic() > deadline:
                return r
            time.sleep(0.05)

    def test_blpop_served_after_restart(self):
        c = self.frames(0)
        self.block(c, b"BLPOP", B[0], b"0")
        restart_worker(self, self.srv)
        self.assertEqual(self.push(b"RPUSH", B[0], b"x", b"y"), b":2\r\n")
        self.assertEqual(self.read(c, 5), b"*2\r\n" + bulk(B[0]) + bulk(b"x"))
        # Served once: the other element is still there, and the client goes on as usual.
        self.assertEqual(c.call(b"LRANGE", B[0], b"0", b"-1"), b"*1\r\n" + bulk(b"y"))

    def test_bzpopmin_served_after_restart(self):
        c = self.frames(0)
        c.call(b"HELLO", b"3")
        self.block(c, b"BZPOPMIN", B[0], b"0")
        restart_worker(self, self.srv)
        self.assertEqual(self.push(b"ZADD", B[0], b"1.5", b"m"), b":1\r\n")
        self.assertEqual(self.read(c, 5),
                         b"*3\r\n" + bulk(B[0]) + bulk(b"m") + b",1.5\r\n")

    def test_xread_block_served_after_restart(self):
        c = self.frames(0)
        self.block(c, b"XREAD", b"BLOCK", b"0", b"STREAMS", B[0], b"$")
        restart_worker(self, self.srv)
        self.assertEqual(self.push(b"XADD", B[0], b"5-1", b"f", b"v"), bulk(b"5-1"))
        self.assertEqual(self.read(c, 5),
                         b"*1\r\n*2\r\n" + bulk(B[0]) + b"*1\r\n*2\r\n" + bulk(b"5-1") +
                         b"*2\r\n" + bulk(b"f") + bulk(b"v"))

    def test_restricted_user_blpop_served_after_restart(self):
        # A restricted ACL user's command travels wrapped with the user's name (kAsUser): its
        # timeout, rewritten to what is left, is still the right argument.
        admin = self.frames(0)
        self.assertEqual(admin.call(b"ACL", b"SETUSER", b"u", b"on", b">p", b"~*", b"&*",
                                    b"+@all", b"-flushall"), b"+OK\r\n")
        c = self.frames(0)
        self.assertEqual(c.call(b"AUTH", b"u", b"p"), b"+OK\r\n")
        self.block(c, b"BLPOP", B[0], b"30")
        restart_worker(self, self.srv)
        self.assertEqual(self.push(b"LPUSH", B[0], b"w"), b":1\r\n")
        self.assertEqual(self.read(c, 5), b"*2\r\n" + bulk(B[0]) + bulk(b"w"))

    def test_timeout_while_worker_down(self):
        # The supervisor is stopped, so worker 1 stays dead past the clients' deadlines:
        # worker 0 answers them itself, each in its RESP version, at its deadline.
        c2 = self.frames(0)
        c3 = self.frames(0)
        c3.call(b"HELLO", b"3")
        sent2 = self.block(c2, b"BLPOP", B[0], b"1.5")
        sent3 = self.block(c3, b"BRPOP", B[1], b"1.5", n=2)
        old = worker_pid(self.srv, 1)
        os.kill(self.srv.pid, signal.SIGSTOP)
        try:
            os.kill(old, signal.SIGKILL)
            for c, sent, null in ((c2, sent2, b"*-1\r\n"), (c3, sent3, b"_\r\n")):
                self.assertEqual(self.read(c, 5), null)
                waited = time.monotonic() - sent
                self.assertGreater(waited, 1.45)
                self.assertLess(waited, 4.0)
        finally:
            os.kill(self.srv.pid, signal.SIGCONT)
        self.assertTrue(harness.wait_mesh_up(self.srv.port, 2, timeout=20), self.srv.log_tail(20))
        # Answered once: nothing is sent again to the new worker for them.
        self.assertEqual(self.push(b"RPUSH", B[0], b"late"), b":1\r\n")
        time.sleep(0.2)
        self.assertEqual(c2.call(b"LLEN", B[0]), b":1\r\n")

    def test_timeout_after_restart(self):
        # The timeout outlives the restart: the new worker waits out what is left of it.
        c = self.frames(0)
        sent = self.block(c, b"BLPOP", B[0], b"6")
        restart_worker(self, self.srv)
        # (Should the restart take longer than the timeout on a loaded machine, worker 0
        # answers at the deadline instead: the same reply at the same time.)
        self.assertEqual(self.read(c, 10), b"*-1\r\n")
        waited = time.monotonic() - sent
        self.assertGreater(waited, 5.95)
        self.assertLess(waited, 9.0)

    def test_unacknowledged_requests_get_loading(self):
        # Worker 1 is stuck in DEBUG SLEEP: what reaches it now is never answered nor parked
        # (no notice), so it may or may not have run: LOADING, as before. The BLPOP it parked
        # earlier keeps waiting.
        blocked = self.frames(0)
        self.block(blocked, b"BLPOP", B[0], b"0")
        g = self.frames(0)
        late = self.frames(0)
        old = worker_pid(self.srv, 1)
        with socket.create_connection(("127.0.0.1", self.srv.port + 2), timeout=5) as s:
            s.sendall(encode([b"DEBUG", b"SLEEP", b"20"]))
            time.sleep(0.2)
            g.c.send(encode([b"GET", B[1]]))
            late.c.send(encode([b"BLPOP", B[2], b"0"]))
            time.sleep(0.2)
            os.kill(old, signal.SIGKILL)
            self.assertTrue(harness.wait_mesh_up(self.srv.port, 2, timeout=20),
                            self.srv.log_tail(20))
        self.assertEqual(self.read(g, 5), LOADING)
        self.assertEqual(self.read(late, 5), LOADING)
        self.assertEqual(self.push(b"LPUSH", B[0], b"z"), b":1\r\n")
        self.assertEqual(self.read(blocked, 5), b"*2\r\n" + bulk(B[0]) + bulk(b"z"))

    def test_client_gone_while_worker_down(self):
        # A blocked client that leaves while its command is held is not sent again: the
        # element pushed after the restart stays in the list.
        c = self.frames(0)
        self.block(c, b"BLPOP", B[0], b"0")
        old = worker_pid(self.srv, 1)
        os.kill(self.srv.pid, signal.SIGSTOP)
        try:
            os.kill(old, signal.SIGKILL)
            time.sleep(0.3)
            c.close()
            self.conns.remove(c)
            time.sleep(0.2)
        finally:
            os.kill(self.srv.pid, signal.SIGCONT)
        self.assertTrue(harness.wait_mesh_up(self.srv.port, 2, timeout=20), self.srv.log_tail(20))
        self.assertEqual(self.push(b"RPUSH", B[0], b"kept"), b":1\r\n")
        time.sleep(0.2)
        self.assertEqual(self.push(b"LRANGE", B[0], b"0", b"-1"), b"*1\r\n" + bulk(b"kept"))


if __name__ == "__main__":
    unittest.main()
