"""A script past busy-reply-threshold (lua-time-limit): the worker keeps reading its other
clients (a Lua count hook) and answers them -BUSY; SCRIPT KILL stops a script that did not
write, a script that wrote is UNKILLABLE, and SHUTDOWN NOSAVE still stops the server. The
same assertions run against redis-server."""

import hashlib
import os
import signal
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
from busy_case import UNKILLABLE, BusyServer, start_busy_on_worker0  # noqa: E402

LOOP = "local i = 0 while true do i = i + 1 end"
WRITE_LOOP = "redis.call('set', 'w', 1) local i = 0 while true do i = i + 1 end"
BUSY = b"-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n"


class BusyCases(BusyServer):
    def start_script(self, script):
        t, result = self.start_busy("EVAL", script, "0")
        with itest.Raw(self.server.port) as c:
            self.assertEqual(c.call("PING"), BUSY)  # SCRIPT KILL's text, not FUNCTION KILL's
        return t, result

    def test_busy_then_script_kill(self):
        t, result = self.start_script(LOOP)
        with itest.Raw(self.server.port) as c:
            self.assertEqual(c.call("GET", "x"), BUSY)
            self.assertEqual(c.call("EVAL", "return 1", "0"), BUSY)
            self.assertEqual(c.call("SCRIPT", "KILL"), b"+OK\r\n")
        t.join(10)
        sha = hashlib.sha1(LOOP.encode()).hexdigest()
        self.assertEqual(result["reply"], b"-ERR Script killed by user with SCRIPT KILL... "
                         b"script: " + sha.encode() + b", on @user_script:1.\r\n")
        with itest.Raw(self.server.port) as c:
            self.assertEqual(c.call("PING"), b"+PONG\r\n")
            self.assertEqual(c.call("SCRIPT", "KILL"),
                             b"-NOTBUSY No scripts in execution right now.\r\n")

    def test_kills_in_sequence(self):
        """Issue 25's sequence on one server and two connections kept open (a runs the
        scripts, b polls and kills): a read-only endless script killed by SCRIPT KILL, a
        pcall loop around redis.call('ping') killed, then a pipeline of FUNCTION LOAD
        REPLACE, FCALL test 0 and PING with FUNCTION KILL from b. Redis answers the library
        name, the kill error and PONG in that order, b sees -BUSY meanwhile. A reply made in
        the loop turn the script started in (b's PING read just before a's script) waited for
        the end of that turn, that is for ever: b never got to send its kill."""
        a = itest.Raw(self.server.port, timeout=10)
        b = itest.Raw(self.server.port, timeout=10)
        self.addCleanup(a.close)
        self.addCleanup(b.close)
        busy_f = BUSY.replace(b"SCRIPT KILL", b"FUNCTION KILL")
        killed = b"-ERR Script killed by user with SCRIPT KILL... script: "

        def poll_busy(text):
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                reply = b.call("PING")
                if reply == text:
                    return
                self.assertEqual(reply, b"+PONG\r\n")
            self.fail("never busy")

        for body, line in (("#!lua flags=no-writes\nwhile true do end", 2),
                           ("local f = function() while 1 do redis.call('ping') end end "
                            "while 1 do pcall(f) end", 1),
                           ("while true do pcall(redis.call, 'ping') end", 1)):
            a.send(itest.encode("EVAL", body, "0"))
            poll_busy(BUSY)
            self.assertEqual(b.call("SCRIPT", "KILL"), b"+OK\r\n")
            sha = hashlib.sha1(body.encode()).hexdigest().encode()
            self.assertEqual(a.reply(), killed + sha + b", on @user_script:%d.\r\n" % line)
        lib = ("#!lua name=test\nredis.register_function('test', function() "
               "while true do redis.call('ping') end end)")
        a.send(itest.encode("FUNCTION", "LOAD", "REPLACE", lib) +
               itest.encode("FCALL", "test", "0") + itest.encode("PING"))
        poll_busy(busy_f)
        self.assertEqual(b.call("FUNCTION", "KILL"), b"+OK\r\n")
        self.assertEqual([a.reply() for _ in range(3)],
                         [b"$4\r\ntest\r\n", killed + b"test, on @user_function:2.\r\n",
                          b"+PONG\r\n"])
        # b's command and a's script read in one loop turn (both wait behind c's script,
        # which holds the server 300 ms under the threshold): b's reply still comes.
        hold = ("local function ms() local t = redis.call('time') return t[1] * 1000 + "
                "t[2] / 1000 end local t0 = ms() while ms() - t0 < 300 do end return 1")
        c, d = itest.Raw(self.server.port, timeout=10), itest.Raw(self.server.port, timeout=10)
        self.addCleanup(c.close)
        self.addCleanup(d.close)
        self.assertEqual(c.call("CONFIG", "SET", "busy-reply-threshold", "100000"), b"+OK\r\n")
        c.send(itest.encode("EVAL", hold, "0"))
        time.sleep(0.1)
        for conn, cmd in ((d, ("CONFIG", "SET", "busy-reply-threshold", "200")), (b, ("PING",)),
                          (a, ("EVAL", LOOP, "0"))):
            conn.send(itest.encode(*cmd))
            time.sleep(0.01)
        self.assertEqual(b.reply(), b"+PONG\r\n")
        self.assertEqual((c.reply(), d.reply()), (b":1\r\n", b"+OK\r\n"))
        poll_busy(BUSY)
        self.assertEqual(b.call("SCRIPT", "KILL"), b"+OK\r\n")
        self.assertTrue(a.reply().startswith(killed))
        self.assertEqual(b.call("PING"), b"+PONG\r\n")

    def test_unkillable_then_shutdown_nosave(self):
        t, result = self.start_script(WRITE_LOOP)
        with itest.Raw(self.server.port) as c:
            self.assertEqual(c.call("SCRIPT", "KILL"), UNKILLABLE)
            self.assertShutdownNosaveStops(c)


@unittest.skipUnless(itest.harness.ruvio_built(), "ruvio not built")
class RuvioOrphan(BusyCases, unittest.TestCase):
    """A worker busy in a script notices its supervisor is gone and stops."""
    kind = "ruvio"

    def test_worker_stops_when_the_supervisor_dies(self):
        self.start_script(LOOP)
        workers = self.server.worker_pids()
        self.assertEqual(len(workers), 1)
        os.kill(self.server.pid, signal.SIGKILL)

        def gone(pid):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    return f.read().split(")")[-1].split()[0] == "Z"
            except OSError:
                return True

        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not gone(workers[0]):
            time.sleep(0.05)
        self.assertTrue(gone(workers[0]), "the worker spins on without its supervisor")

    # the shared cases run in the classes below
    test_busy_then_script_kill = None
    test_unkillable_then_shutdown_nosave = None


class RedisReference(BusyCases, unittest.TestCase):
    kind = "redis"


@unittest.skipUnless(itest.harness.ruvio_built(), "ruvio not built")
class Ruvio(BusyCases, unittest.TestCase):
    kind = "ruvio"


@unittest.skipUnless(itest.harness.ruvio_built(), "ruvio not built")
class RuvioProxy(unittest.TestCase):
    """2 workers: a script runs on worker 0 (started on its direct port); proxy connections,
    whichever worker holds them, get -BUSY for worker 0's keys (worker 1 forwards there and
    worker 0 reads its mesh links while busy), and a SCRIPT KILL from any proxy connection
    reaches it (fan-out). Not covered, because it does not work yet: a script that itself
    came over the mesh link from worker 1 — that link is mid-request, so what worker 1's
    clients send to worker 0 meanwhile waits for the script's end instead of -BUSY."""

    def setUp(self):
        self.server = itest.start("ruvio", ("--workers", "2"))
        self.addCleanup(self.server.stop)
        itest.wait_mesh_up(self.server.port)
        with itest.Raw(self.server.port) as c:
            self.assertEqual(c.call("CONFIG", "SET", "busy-reply-threshold", "200"), b"+OK\r\n")
        self.key = itest.keys_of(0, 1, "busy")[0]

    def test_busy_and_kill_from_any_connection(self):
        t, result = start_busy_on_worker0(self, self.server, LOOP, self.key)
        # New connections land on either worker (SO_REUSEPORT): all get -BUSY for the key.
        for _ in range(6):
            with itest.Raw(self.server.port) as c:
                self.assertEqual(c.call("GET", self.key), BUSY)
        with itest.Raw(self.server.port) as c:
            self.assertEqual(c.call("SCRIPT", "KILL"), b"+OK\r\n")
        t.join(10)
        sha = hashlib.sha1(LOOP.encode()).hexdigest()
        self.assertEqual(result["reply"], b"-ERR Script killed by user with SCRIPT KILL... "
                         b"script: " + sha.encode() + b", on @user_script:1.\r\n")
        with itest.Raw(self.server.port) as c:
            self.assertEqual(c.call("GET", self.key), b"$-1\r\n")


if __name__ == "__main__":
    unittest.main()
