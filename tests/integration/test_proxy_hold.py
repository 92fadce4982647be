"""The proxy port holds a pipeline's ready replies while another worker still owes some
(Connection::flush, Server::hold), so the pipeline's answer usually leaves in one write:
the bytes and their order are unchanged, and a slow peer delays the ready ones by no more
than the hold's bound (1 ms, and a loop turn), never until the peer answers."""

import socket
import threading
import time
import unittest

import itest
from itest import Raw, encode, harness
from test_proxy import conn_on


def key_on(worker, prefix):
    i = 0
    while harness.key_owner(f"{prefix}{i}", 2) != worker:
        i += 1
    return f"{prefix}{i}"


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class ProxyHold(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = harness.Server("ruvio", args=["--workers", "2", "--enable-debug-command",
                                                "yes"])
        itest.wait_mesh_up(cls.srv.port)

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def test_mixed_pipeline_answers_in_order(self):
        with conn_on(self.srv.port, 0) as c:
            local, remote = key_on(0, "hl:"), key_on(1, "hr:")
            self.assertEqual(c.call("DEL", local, remote), b":0\r\n")
            cmds = []
            want = []
            for i in range(200):
                k = local if i % 3 else remote
                cmds.append(encode("INCR", k))
                want.append(b":%d\r\n" % (sum(1 for j in range(i + 1)
                                               if (local if j % 3 else remote) == k)))
                if i % 7 == 0:
                    cmds.append(encode("PING"))
                    want.append(b"+PONG\r\n")
            c.send(b"".join(cmds))
            self.assertEqual([c.reply() for _ in want], want)

    def test_ready_replies_do_not_wait_for_a_slow_peer(self):
        local, remote = key_on(0, "sl:"), key_on(1, "sr:")
        with conn_on(self.srv.port, 0) as c, conn_on(self.srv.port, 1) as peer:
            self.assertEqual(c.call("SET", local, "here"), b"+OK\r\n")
            self.assertEqual(c.call("SET", remote, "there"), b"+OK\r\n")
            # The peer's loop sleeps 1.5 s: what it owes waits that long; GET local does not.
            sleeper = threading.Thread(target=peer.call, args=("DEBUG", "SLEEP", "1.5"))
            sleeper.start()
            time.sleep(0.2)
            t0 = time.monotonic()
            c.send(encode("GET", local) + encode("GET", remote))
            c.sock.settimeout(1.0)
            try:
                first = c.reply()
            except socket.timeout:
                first = None
            first_s = time.monotonic() - t0
            c.sock.settimeout(10)
            self.assertEqual(first, b"$4\r\nhere\r\n")
            self.assertLess(first_s, 1.0)
            self.assertEqual(c.reply(), b"$5\r\nthere\r\n")
            sleeper.join(10)


if __name__ == "__main__":
    unittest.main()
