"""MULTI/EXEC from another client while a script is past busy-reply-threshold (issue 25, 5),
the same sequence against redis-server 7.0.15 and Ruvio (1 worker), exact bytes; and through
the 2-worker proxy port from a connection held by the busy worker.

Redis 7.0.15 (processCommand): MULTI, DISCARD and WATCH are allowed while busy; any other
command inside MULTI is answered -BUSY instead of QUEUED and flags the transaction; EXEC is
not allowed while busy, so it answers "-EXECABORT Transaction discarded because of: BUSY ..."
(also a bare EXEC, with no MULTI) and ends the transaction. SCRIPT KILL inside MULTI is
queued. Once the script is killed nothing of this remains: a new MULTI/EXEC runs."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
from busy_case import BusyServer, start_busy_on_worker0  # noqa: E402

LOOP = "local i = 0 while true do i = i + 1 end"
BUSY = b"BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
ABORT = b"-EXECABORT Transaction discarded because of: " + BUSY + b"\r\n"
BUSY = b"-" + BUSY + b"\r\n"
OK = b"+OK\r\n"

# (command, Redis 7.0.15's reply) in order, from one connection, while the script runs.
WHILE_BUSY = [
    (("MULTI",), OK),
    (("SET", "x", "2"), BUSY),
    (("GET", "x"), BUSY),
    (("EXEC",), ABORT),
    (("EXEC",), ABORT),  # no MULTI: still refused in EXEC's form
    (("DISCARD",), b"-ERR DISCARD without MULTI\r\n"),
    (("MULTI",), OK),
    (("PING",), BUSY),
    (("EXEC",), ABORT),
    (("MULTI",), OK),
    (("DISCARD",), OK),
    (("WATCH", "x"), OK),
    (("MULTI",), OK),
    (("MULTI",), b"-ERR MULTI calls can not be nested\r\n"),
    (("EXEC",), ABORT),
    (("MULTI",), OK),
    (("SCRIPT", "KILL"), b"+QUEUED\r\n"),
]
AFTER_KILL = [
    (("EXEC",), b"*1\r\n-NOTBUSY No scripts in execution right now.\r\n"),
    (("MULTI",), OK),
    (("SET", "x", "3"), b"+QUEUED\r\n"),
    (("EXEC",), b"*1\r\n+OK\r\n"),
    (("GET", "x"), b"$1\r\n3\r\n"),
    (("MULTI",), OK),
    (("GET", "x"), b"+QUEUED\r\n"),
    (("EXEC",), b"*1\r\n$1\r\n3\r\n"),
    (("PING",), b"+PONG\r\n"),
]


class Cases(BusyServer):
    def test_multi_while_busy_then_after_kill(self):
        with itest.Raw(self.server.port) as c:
            c.call("SET", "x", "1")
        t, result = self.start_busy("EVAL", LOOP, "0")
        with itest.Raw(self.server.port) as b, itest.Raw(self.server.port) as k:
            self.assertEqual([(cmd, b.call(*cmd)) for cmd, _ in WHILE_BUSY], WHILE_BUSY)
            self.assertEqual(k.call("SCRIPT", "KILL"), OK)
            t.join(10)
            self.assertTrue(result["reply"].startswith(b"-ERR Script killed by user"))
            self.assertEqual([(cmd, b.call(*cmd)) for cmd, _ in AFTER_KILL], AFTER_KILL)


class Redis(Cases, unittest.TestCase):
    kind = "redis"


@unittest.skipUnless(itest.harness.ruvio_built(), "ruvio not built")
class Ruvio(Cases, unittest.TestCase):
    kind = "ruvio"


@unittest.skipUnless(itest.harness.ruvio_built(), "ruvio not built")
class RuvioProxy(unittest.TestCase):
    """2 workers, the script on worker 0 (started on its direct port). A proxy connection
    held by worker 0 (it answers PING -BUSY, as every connection in Redis) runs Redis's
    sequence; one held by worker 1 queues worker 0's keys (its own worker is not busy), and
    its EXEC, sent whole to worker 0, is refused there as Redis refuses EXEC while busy."""

    def setUp(self):
        self.server = itest.start("ruvio", ("--workers", "2"))
        self.addCleanup(self.server.stop)
        itest.wait_mesh_up(self.server.port)
        with itest.Raw(self.server.port) as c:
            self.assertEqual(c.call("CONFIG", "SET", "busy-reply-threshold", "100"), OK)
        self.key = itest.keys_of(0, 1, "busy")[0]

    def connection(self, busy):
        """A proxy connection held by the busy worker (busy) or by the other one."""
        for _ in range(40):
            c = itest.Raw(self.server.port)
            if (c.call("PING") == BUSY) == busy:
                return c
            c.close()
        self.fail("no connection on the %s worker" % ("busy" if busy else "other"))

    def test_multi_while_busy_then_after_kill(self):
        seq = [(tuple(self.key if a == "x" else a for a in cmd), r) for cmd, r in WHILE_BUSY]
        after = [(tuple(self.key if a == "x" else a for a in cmd), r) for cmd, r in AFTER_KILL]
        t, result = start_busy_on_worker0(self, self.server, LOOP, self.key)
        b = self.connection(busy=True)
        other = self.connection(busy=False)
        try:
            self.assertEqual([(cmd, b.call(*cmd)) for cmd, _ in seq], seq)
            self.assertEqual(other.call("MULTI"), OK)
            self.assertEqual(other.call("GET", self.key), b"+QUEUED\r\n")
            self.assertEqual(other.call("EXEC"), ABORT)
            with itest.Raw(self.server.port) as k:
                self.assertEqual(k.call("SCRIPT", "KILL"), OK)
            t.join(10)
            self.assertTrue(result["reply"].startswith(b"-ERR Script killed by user"))
            self.assertEqual([(cmd, b.call(*cmd)) for cmd, _ in after], after)
            self.assertEqual(other.call("MULTI"), OK)
            self.assertEqual(other.call("GET", self.key), b"+QUEUED\r\n")
            self.assertEqual(other.call("EXEC"), b"*1\r\n$1\r\n3\r\n")
        finally:
            b.close()
            other.close()


if __name__ == "__main__":
    unittest.main()
