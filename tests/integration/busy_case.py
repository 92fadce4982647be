"""What the busy-script tests share (test_scripting_busy, test_functions_busy): a fresh
server per test with busy-reply-threshold 200 ms, a script or function started in a thread
that the test waits on until another client is answered -BUSY, and SHUTDOWN NOSAVE
stopping a server whose script cannot be killed; and, at 2 workers, a script started on
worker 0's direct port (start_busy_on_worker0)."""

import threading
import time

import itest

UNKILLABLE = (b"-UNKILLABLE Sorry the script already executed write commands against the "
              b"dataset. You can either wait the script termination or kill the server in a "
              b"hard way using the SHUTDOWN NOSAVE command.\r\n")


class BusyServer:
    kind = None

    def setUp(self):
        self.server = itest.start(self.kind)
        self.addCleanup(self.server.stop)
        with itest.Raw(self.server.port) as c:
            self.assertEqual(c.call("CONFIG", "SET", "busy-reply-threshold", "200"), b"+OK\r\n")

    def start_busy(self, *cmd):
        """Sends `cmd` (a script or function that runs on) from a thread; returns (thread,
        result) once another client is answered -BUSY (bounded: fails after 10 s).
        result['reply'] is cmd's reply, or the error when the server went away."""
        result = {}
        conn = itest.Raw(self.server.port, timeout=30)
        self.addCleanup(conn.close)

        def run():
            try:
                result["reply"] = conn.call(*cmd)
            except Exception as e:  # the server went away (SHUTDOWN NOSAVE)
                result["reply"] = repr(e)

        t = threading.Thread(target=run)
        t.start()
        self.addCleanup(t.join, 30)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with itest.Raw(self.server.port) as c:
                if c.call("PING").startswith(b"-BUSY"):
                    return t, result
            time.sleep(0.05)
        self.fail("never busy")

    def assertShutdownNosaveStops(self, c):
        """SHUTDOWN NOSAVE on connection `c` stops the server (within 15 s)."""
        c.send(itest.encode("SHUTDOWN", "NOSAVE"))
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and self.server.running():
            time.sleep(0.05)
        self.assertFalse(self.server.running())


BUSY_EVAL = (b"-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN "
             b"NOSAVE.\r\n")


def start_busy_on_worker0(case, server, script, key):
    """At 2 workers: EVAL `script` on `key` (a key of worker 0) from worker 0's direct port,
    in a thread; returns (thread, result) once a proxy connection is answered -BUSY for the
    key (bounded: `case` fails after 10 s). result['reply'] is the EVAL's reply."""
    result = {}
    conn = itest.Raw(server.port + 1, timeout=30)  # worker 0's direct port
    case.addCleanup(conn.close)
    t = threading.Thread(target=lambda: result.update(reply=conn.call("EVAL", script, "1", key)))
    t.start()
    case.addCleanup(t.join, 30)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with itest.Raw(server.port) as c:
            if c.call("GET", key) == BUSY_EVAL:
                return t, result
        time.sleep(0.05)
    case.fail("never busy")
