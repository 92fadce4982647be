"""CLIENT PAUSE / UNPAUSE (issue 8, part 5): the replies and the waiting of Redis 7.0, checked
against redis-server, on one Ruvio worker and through a 2-worker proxy port (where a pause
holds the clients of every worker); then the mesh: a request parked on its owner worker does
not hold up the other requests forwarded to that worker, and a client's own order is kept.

Timing asserts are generous (the machine is noisy): a reply that must not wait comes well
under the pause, one that must wait comes after most of it."""

import os
import shutil
import signal
import socket
import struct
import tempfile
import time
import unittest

import itest
from itest import Raw, encode, harness
from test_proxy import conn_on, worker_of

OK = b"+OK\r\n"
NOREPLY_S = 0.3  # how long a test listens to tell that a reply is being held back


def pending(conn, wait=NOREPLY_S):
    """True if nothing arrives on conn within `wait` seconds (the reply is held back)."""
    conn.sock.settimeout(wait)
    try:
        data = conn.sock.recv(65536)
    except (TimeoutError, OSError):
        return True
    finally:
        conn.sock.settimeout(itest.SOCKET_TIMEOUT)
    conn.buf += data
    return False


def timed_reply(conn):
    t0 = time.monotonic()
    r = conn.reply()
    return r, time.monotonic() - t0


class PauseCases:
    """Each assertion holds for redis-server 7.0 and for Ruvio (1 worker and proxy)."""

    def tearDown(self):
        # An ALL pause cannot be lifted early (UNPAUSE itself waits): tests keep them short.
        with Raw(self.port) as c:
            self.assertEqual(c.call("CLIENT", "UNPAUSE"), OK)
        super().tearDown()

    def test_errors(self):
        c = self.raw()
        self.assertEqual(c.call("CLIENT", "PAUSE"),
                         b"-ERR wrong number of arguments for 'client|pause' command\r\n")
        self.assertEqual(c.call("CLIENT", "PAUSE", "abc"),
                         b"-ERR timeout is not an integer or out of range\r\n")
        self.assertEqual(c.call("CLIENT", "PAUSE", "1.5"),
                         b"-ERR timeout is not an integer or out of range\r\n")
        self.assertEqual(c.call("CLIENT", "PAUSE", "-1"), b"-ERR timeout is negative\r\n")
        self.assertEqual(c.call("CLIENT", "PAUSE", "100", "foo"),
                         b"-ERR CLIENT PAUSE mode must be WRITE or ALL\r\n")
        self.assertEqual(c.call("CLIENT", "PAUSE", "abc", "foo"),
                         b"-ERR CLIENT PAUSE mode must be WRITE or ALL\r\n")
        self.assertEqual(c.call("CLIENT", "Pause", "100", "write", "x"),
                         b"-ERR unknown subcommand or wrong number of arguments for 'Pause'. "
                         b"Try CLIENT HELP.\r\n")
        self.assertEqual(c.call("CLIENT", "UNPAUSE", "x"),
                         b"-ERR wrong number of arguments for 'client|unpause' command\r\n")
        self.assertEqual(c.call("CLIENT", "UNPAUSE"), OK)
        # Nothing was paused by any of them.
        self.assertEqual(c.call("SET", self.k("e"), "1"), OK)

    def test_timeouts_that_pause_nothing(self):
        c, other = self.raw(), self.raw()
        for t in ("0", "9223372036854775807"):  # the second wraps into the past (Redis 7.0)
            self.assertEqual(c.call("CLIENT", "PAUSE", t, "WRITE"), OK)
            self.assertEqual(other.call("SET", self.k("z"), t), OK)

    def test_write_pause_holds_writes_not_reads(self):
        c, w, r = self.raw(), self.raw(), self.raw()
        self.assertEqual(c.call("SET", self.k("a"), "old"), OK)
        self.assertEqual(c.call("CLIENT", "PAUSE", "60000", "WRITE"), OK)
        w.send(encode("SET", self.k("a"), "new") + encode("GET", self.k("a")))
        self.assertTrue(pending(w))
        # Another client goes on: reads answer, and see the value from before the pause.
        self.assertEqual(r.call("GET", self.k("a")), b"$3\r\nold\r\n")
        self.assertEqual(r.call("PING"), b"+PONG\r\n")
        self.assertEqual(r.call("EXISTS", self.k("a")), b":1\r\n")
        # Errors found before the pause check answer at once.
        self.assertEqual(r.call("SET", self.k("a")),
                         b"-ERR wrong number of arguments for 'set' command\r\n")
        # INFO counts the held client as blocked.
        self.assertIn(b"\r\nblocked_clients:1\r\n", r.call("INFO", "clients"))
        self.assertEqual(c.call("CLIENT", "UNPAUSE"), OK)
        # The held client's pipeline runs in order: its GET sees its SET.
        self.assertEqual(w.reply(), OK)
        self.assertEqual(w.reply(), b"$3\r\nnew\r\n")
        self.assertIn(b"\r\nblocked_clients:0\r\n", r.call("INFO", "clients"))

    def test_write_pause_holds_these(self):
        c = self.raw()
        self.assertEqual(c.call("SET", self.k("x"), "1"), OK)
        cases = [(("EXPIRE", self.k("x"), "100"), b":1\r\n"),
                 (("PERSIST", self.k("x")), b":1\r\n"),
                 (("PUBLISH", "chan", "m"), b":0\r\n"),
                 (("DEL", self.k("nokey")), b":0\r\n"),
                 (("GETDEL", self.k("nokey")), b"$-1\r\n")]
        for args, want in cases:
            with self.subTest(cmd=args[0]):
                w = self.raw()
                self.assertEqual(c.call("CLIENT", "PAUSE", "60000", "WRITE"), OK)
                w.send(encode(*args))
                self.assertTrue(pending(w, 0.15), args)
                self.assertEqual(c.call("CLIENT", "UNPAUSE"), OK)
                self.assertEqual(w.reply(), want)

    def test_pause_ends_by_itself(self):
        c, w = self.raw(), self.raw()
        self.assertEqual(c.call("CLIENT", "PAUSE", "800", "WRITE"), OK)
        t0 = time.monotonic()
        self.assertEqual(w.call("SET", self.k("t"), "1"), OK)
        self.assertGreater(time.monotonic() - t0, 0.3)

    def test_all_pause_holds_everything_unpause_too(self):
        c, other = self.raw(), self.raw()
        self.assertEqual(c.call("CLIENT", "PAUSE", "800", "ALL"), OK)
        t0 = time.monotonic()
        c.send(encode("CLIENT", "UNPAUSE"))
        other.send(encode("PING"))
        # Unknown commands and arity errors are answered before the pause check.
        fast = self.raw()
        self.assertEqual(fast.call("NOSUCH"),
                         b"-ERR unknown command 'NOSUCH', with args beginning with: \r\n")
        self.assertEqual(fast.call("GET"),
                         b"-ERR wrong number of arguments for 'get' command\r\n")
        self.assertEqual(other.reply(), b"+PONG\r\n")
        self.assertEqual(c.reply(), OK)
        self.assertGreater(time.monotonic() - t0, 0.3)

    def test_pause_under_all_waits_too(self):
        """Under ALL a second CLIENT PAUSE is itself held until the first ends."""
        c, other = self.raw(), self.raw()
        self.assertEqual(c.call("CLIENT", "PAUSE", "800", "ALL"), OK)
        t0 = time.monotonic()
        self.assertEqual(other.call("CLIENT", "PAUSE", "20", "WRITE"), OK)
        self.assertGreater(time.monotonic() - t0, 0.3)

    def test_stricter_pause_wins(self):
        """Two pauses in one transaction (nothing holds the second): the stricter mode and the
        later end win, whichever comes first. (Through the proxy, a pause inside MULTI holds
        the worker that runs the transaction: here the client's own.)"""
        c = self.raw()
        for first, second in ((("800", "ALL"), ("20", "WRITE")), (("800", "WRITE"), ("0", "ALL"))):
            with self.subTest(first=first, second=second):
                self.assertEqual(c.call("MULTI"), OK)
                self.assertEqual(c.call("CLIENT", "PAUSE", *first), b"+QUEUED\r\n")
                self.assertEqual(c.call("CLIENT", "PAUSE", *second), b"+QUEUED\r\n")
                self.assertEqual(c.call("EXEC"), b"*2\r\n+OK\r\n+OK\r\n")
                time.sleep(0.05)
                t0 = time.monotonic()
                self.assertEqual(c.call("GET", self.k("s")), b"$-1\r\n")  # a read: held by ALL
                self.assertGreater(time.monotonic() - t0, 0.3)

    def test_multi_under_write_pause(self):
        c, m = self.raw(), self.raw()
        key = self.k("{t}m")
        self.assertEqual(m.call("MULTI"), OK)
        self.assertEqual(m.call("SET", key, "1"), b"+QUEUED\r\n")
        self.assertEqual(c.call("CLIENT", "PAUSE", "60000", "WRITE"), OK)
        # EXEC of a queue holding a write waits.
        m.send(encode("EXEC"))
        self.assertTrue(pending(m))
        self.assertEqual(c.call("CLIENT", "UNPAUSE"), OK)
        self.assertEqual(m.reply(), b"*1\r\n+OK\r\n")
        # A read-only transaction runs; a write waits before it is even queued.
        self.assertEqual(c.call("CLIENT", "PAUSE", "60000", "WRITE"), OK)
        self.assertEqual(m.call("MULTI"), OK)
        self.assertEqual(m.call("GET", key), b"+QUEUED\r\n")
        self.assertEqual(m.call("EXEC"), b"*1\r\n$1\r\n1\r\n")
        self.assertEqual(m.call("MULTI"), OK)
        m.send(encode("SET", key, "2"))
        self.assertTrue(pending(m))
        self.assertEqual(c.call("CLIENT", "UNPAUSE"), OK)
        self.assertEqual(m.reply(), b"+QUEUED\r\n")
        self.assertEqual(m.call("EXEC"), b"*1\r\n+OK\r\n")

    def test_pause_starts_after_the_transaction(self):
        c, w = self.raw(), self.raw()
        a, b = self.k("{t}1"), self.k("{t}2")
        self.assertEqual(c.call("MULTI"), OK)
        self.assertEqual(c.call("SET", a, "x"), b"+QUEUED\r\n")
        self.assertEqual(c.call("CLIENT", "PAUSE", "60000", "WRITE"), b"+QUEUED\r\n")
        self.assertEqual(c.call("SET", b, "y"), b"+QUEUED\r\n")
        self.assertEqual(c.call("EXEC"), b"*3\r\n+OK\r\n+OK\r\n+OK\r\n")
        self.assertEqual(c.call("GET", b), b"$1\r\ny\r\n")
        w.send(encode("SET", a, "z"))
        self.assertTrue(pending(w))
        self.assertEqual(c.call("CLIENT", "UNPAUSE"), OK)
        self.assertEqual(w.reply(), OK)

    def test_no_key_expires_while_paused(self):
        c = self.raw()
        self.assertEqual(c.call("SET", self.k("ttl"), "v", "PX", "50"), OK)
        self.assertEqual(c.call("CLIENT", "PAUSE", "60000", "WRITE"), OK)
        time.sleep(0.4)  # several active-expiry cycles
        self.assertEqual(c.call("DBSIZE"), b":1\r\n")
        self.assertEqual(c.call("CLIENT", "UNPAUSE"), OK)
        self.assertEqual(c.call("GET", self.k("ttl")), b"$-1\r\n")
        self.assertEqual(c.call("DBSIZE"), b":0\r\n")

    def test_client_that_leaves_while_held_never_runs(self):
        c, w = self.raw(), Raw(self.port)
        self.assertEqual(c.call("CLIENT", "PAUSE", "60000", "WRITE"), OK)
        w.send(encode("SET", self.k("gone"), "1"))
        self.assertTrue(pending(w))
        w.close()
        time.sleep(0.1)
        self.assertEqual(c.call("CLIENT", "UNPAUSE"), OK)
        time.sleep(0.1)
        self.assertEqual(c.call("EXISTS", self.k("gone")), b":0\r\n")

    def test_client_list_flags_a_held_client(self):
        c, w = self.raw(), self.raw()
        wid = int(w.call("CLIENT", "ID")[1:-2])
        self.assertEqual(c.call("CLIENT", "PAUSE", "60000", "WRITE"), OK)
        w.send(encode("SET", self.k("f"), "1"))
        self.assertTrue(pending(w))
        listing = c.call("CLIENT", "LIST", "ID", str(wid))
        self.assertRegex(listing, rb"id=%d .* flags=b " % wid)
        self.assertEqual(c.call("CLIENT", "UNPAUSE"), OK)
        self.assertEqual(w.reply(), OK)


itest.bind(PauseCases, globals())


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class MeshPause(unittest.TestCase):
    """Two workers, A = 0 and B = 1. B is paused through its direct port; clients of the
    proxy port held by A send requests for B's keys over the mesh."""

    PAUSE_MS = 1500

    @classmethod
    def setUpClass(cls):
        cls.srv = harness.Server("ruvio", args=["--workers", "2"])
        itest.wait_mesh_up(cls.srv.port)
        cls.direct_b = cls.srv.port + 1 + 1  # --worker-base-port is port + 1

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def setUp(self):
        self.keys_b = itest.keys_of(1, 3, "kb")
        self.key_a = itest.keys_of(0, 1, "ka")[0]
        self.c1 = conn_on(self.srv.port, 0)
        self.c2 = conn_on(self.srv.port, 0)
        self.b = Raw(self.direct_b)
        for c in (self.c1, self.c2, self.b):
            self.addCleanup(c.close)
        self.assertEqual(worker_of(self.b), 1)
        self.assertEqual(self.c1.call("FLUSHALL"), OK)
        self.assertEqual(self.c1.call("SET", self.keys_b[1], "fast"), OK)
        self.assertEqual(self.c1.call("SET", self.key_a, "local"), OK)

    def tearDown(self):
        with Raw(self.direct_b) as b:
            self.assertEqual(b.call("CLIENT", "UNPAUSE"), OK)

    def pause_b(self):
        self.assertEqual(self.b.call("CLIENT", "PAUSE", str(self.PAUSE_MS), "WRITE"), OK)
        return time.monotonic()

    def test_parked_request_does_not_delay_the_link(self):
        """Client 1's SET of a key of B is parked on B; client 2's GET of another key of B,
        forwarded over the same link right after, is answered at once."""
        t0 = self.pause_b()
        self.c1.send(encode("SET", self.keys_b[0], "v"))
        time.sleep(0.05)  # the SET is on B first
        self.c2.send(encode("GET", self.keys_b[1]))
        self.assertEqual(self.c2.reply(), b"$4\r\nfast\r\n")
        fast = time.monotonic() - t0
        self.assertLess(fast, 0.7, "a request behind a parked one waited")
        self.assertIn(b"\r\nblocked_clients:1\r\n", self.b.call("INFO", "clients"))
        self.assertEqual(self.c1.reply(), OK)
        slow = time.monotonic() - t0
        self.assertGreater(slow, 1.0, "the parked SET ran before the pause ended")
        self.assertEqual(self.c2.call("GET", self.keys_b[0]), b"$1\r\nv\r\n")

    def test_parked_client_keeps_its_order(self):
        """A later request of the parked client waits behind it on B (SET then GET of the same
        key answer OK then the value), and its local command's reply waits in order too."""
        t0 = self.pause_b()
        self.c1.send(encode("SET", self.keys_b[0], "v") + encode("GET", self.keys_b[0]) +
                     encode("GET", self.key_a) + encode("GET", self.keys_b[1]))
        time.sleep(0.05)
        self.assertEqual(self.c2.call("GET", self.keys_b[2]), b"$-1\r\n")
        self.assertLess(time.monotonic() - t0, 0.7)
        self.assertTrue(pending(self.c1, 0.2))
        self.assertEqual(self.c1.reply(), OK)
        self.assertGreater(time.monotonic() - t0, 1.0)
        self.assertEqual(self.c1.reply(), b"$1\r\nv\r\n")
        self.assertEqual(self.c1.reply(), b"$5\r\nlocal\r\n")
        self.assertEqual(self.c1.reply(), b"$4\r\nfast\r\n")

    def test_unpause_releases_parked_requests(self):
        self.pause_b()
        self.c1.send(encode("SET", self.keys_b[0], "v"))
        self.assertTrue(pending(self.c1))
        t0 = time.monotonic()
        self.assertEqual(self.b.call("CLIENT", "UNPAUSE"), OK)
        self.assertEqual(self.c1.reply(), OK)
        self.assertLess(time.monotonic() - t0, 0.7)

    def test_split_command_waits_only_for_the_paused_part(self):
        """MSET over both owners: A's part runs, B's part waits; the client gets one reply
        once both are done."""
        self.pause_b()
        self.c1.send(encode("MSET", self.key_a, "A", self.keys_b[0], "B"))
        self.assertTrue(pending(self.c1))
        self.assertEqual(self.c2.call("GET", self.key_a), b"$1\r\nA\r\n")
        self.assertEqual(self.c2.call("GET", self.keys_b[0]), b"$-1\r\n")
        self.assertEqual(self.b.call("CLIENT", "UNPAUSE"), OK)
        self.assertEqual(self.c1.reply(), OK)
        self.assertEqual(self.c2.call("GET", self.keys_b[0]), b"$1\r\nB\r\n")

    def test_proxy_pause_holds_every_worker(self):
        """CLIENT PAUSE on the proxy port goes to every worker, as CONFIG SET does: a client
        of B writing its own key waits too; UNPAUSE on the proxy port lifts both."""
        b_client = conn_on(self.srv.port, 1)
        self.addCleanup(b_client.close)
        self.assertEqual(self.c1.call("CLIENT", "PAUSE", "60000", "WRITE"), OK)
        b_client.send(encode("SET", self.keys_b[0], "x"))
        self.c2.send(encode("SET", self.key_a, "y"))
        self.assertTrue(pending(b_client))
        self.assertTrue(pending(self.c2, 0.05))
        self.assertEqual(self.c1.call("GET", self.key_a), b"$5\r\nlocal\r\n")
        self.assertEqual(self.c1.call("CLIENT", "UNPAUSE"), OK)
        self.assertEqual(b_client.reply(), OK)
        self.assertEqual(self.c2.reply(), OK)

    def test_disconnect_while_parked(self):
        """A client that leaves while its request is parked on B: as in Redis, the request
        never runs (A tells B to drop it), and both workers serve on."""
        self.pause_b()
        gone = conn_on(self.srv.port, 0)
        gone.send(encode("SET", self.keys_b[0], "late") + encode("SET", self.keys_b[0], "later"))
        self.assertTrue(itest.wait_for(
            lambda: b"\r\nblocked_clients:1\r\n" in self.b.call("INFO", "clients"), timeout=3))
        gone.close()
        self.assertTrue(itest.wait_for(
            lambda: b"\r\nblocked_clients:0\r\n" in self.b.call("INFO", "clients"), timeout=3))
        self.assertEqual(self.b.call("CLIENT", "UNPAUSE"), OK)
        time.sleep(0.1)
        self.assertEqual(self.c2.call("GET", self.keys_b[0]), b"$-1\r\n")
        self.assertEqual(self.c2.call("SET", self.keys_b[0], "now"), OK)


MESH_COMMAND, MESH_FORGET = 0, 3  # proto::MeshKind
# A kCommand names the row that runs by its CommandDef::id (DEBUG COMMAND-ID tells it): the
# owner trusts it as it trusts its peers, so MeshWire fills this in from its server first.
COMMAND_IDS = {}


def mesh_request(kind, db, resp, origin, client_id, request_id, *args):
    """A request frame as proto/mesh_frame.hpp draws it: a kCommand of `args` (no user, not
    tracked), or a kind without payload."""
    body = struct.pack("<BBBBQQ", kind, db, resp, origin, client_id, request_id)
    if kind == MESH_COMMAND:
        body += struct.pack("<HBI", COMMAND_IDS[args[0]], 0, 0) + encode(*args)
    return struct.pack("<I", len(body)) + body


def read_mesh_reply(sock):
    """(request id, reply bytes) of one reply frame."""
    def exact(n):
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise itest.Closed("mesh socket closed")
            data += chunk
        return data
    (n,) = struct.unpack("<I", exact(4))
    frame = exact(n)
    return struct.unpack("<Q", frame[:8])[0], frame[8:]


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class MeshWire(unittest.TestCase):
    """Worker 1's mesh socket driven by hand: replies carry the request id and come back out
    of order around a parked request; a malformed frame closes the link, and the worker
    serves on."""

    @classmethod
    def setUpClass(cls):
        cls.srv = harness.Server("ruvio", args=["--workers", "2", "--enable-debug-command", "yes"])
        itest.wait_mesh_up(cls.srv.port)
        with Raw(cls.srv.port) as c:
            for name in ("PING", "GET", "SET"):
                COMMAND_IDS[name] = int(c.call("DEBUG", "COMMAND-ID", name)[1:-2])
        cls.direct_b = cls.srv.port + 2
        cls.address = b"\0ruvio.%d.%d.1" % (cls.srv.pid, cls.srv.port)

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def link(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(5)
        s.connect(self.address)
        self.addCleanup(s.close)
        return s

    def tearDown(self):
        with Raw(self.direct_b) as b:
            self.assertEqual(b.call("CLIENT", "UNPAUSE"), OK)

    def test_replies_out_of_order_by_request_id(self):
        key_b, other_b = itest.keys_of(1, 2, "wire")
        s = self.link()
        s.sendall(mesh_request(0, 0, 2, 0, 1001, 7, "SET", other_b, "x"))
        self.assertEqual(read_mesh_reply(s), (7, OK))
        with Raw(self.direct_b) as b:
            self.assertEqual(b.call("CLIENT", "PAUSE", "60000", "WRITE"), OK)
        s.sendall(mesh_request(0, 0, 2, 0, 1001, 8, "SET", key_b, "v") +
                  mesh_request(0, 0, 2, 0, 1001, 9, "GET", key_b) +    # same client: waits
                  mesh_request(0, 0, 2, 0, 2002, 10, "GET", other_b) +  # another: at once
                  mesh_request(0, 0, 3, 0, 2002, 11, "GET", key_b))     # RESP3 null
        self.assertEqual(read_mesh_reply(s), (10, b"$1\r\nx\r\n"))
        self.assertEqual(read_mesh_reply(s), (11, b"_\r\n"))
        with Raw(self.direct_b) as b:
            self.assertEqual(b.call("CLIENT", "UNPAUSE"), OK)
        self.assertEqual(read_mesh_reply(s), (8, OK))
        self.assertEqual(read_mesh_reply(s), (9, b"$1\r\nv\r\n"))

    def test_forget_drops_parked_requests(self):
        key_b = itest.keys_of(1, 1, "forget")[0]
        s = self.link()
        with Raw(self.direct_b) as b:
            self.assertEqual(b.call("CLIENT", "PAUSE", "60000", "WRITE"), OK)
        s.sendall(mesh_request(0, 0, 2, 0, 3003, 20, "SET", key_b, "v") +
                  mesh_request(0, 0, 2, 0, 3003, 21, "GET", key_b))
        with Raw(self.direct_b) as b:
            self.assertTrue(itest.wait_for(
                lambda: b"\r\nblocked_clients:1\r\n" in b.call("INFO", "clients"), timeout=3))
        s.sendall(mesh_request(MESH_FORGET, 0, 2, 0, 3003, 22))
        self.assertEqual(read_mesh_reply(s), (20, b"-ERR client gone\r\n"))
        self.assertEqual(read_mesh_reply(s), (21, b"-ERR client gone\r\n"))
        self.assertEqual(read_mesh_reply(s), (22, OK))
        with Raw(self.direct_b) as b:
            self.assertEqual(b.call("CLIENT", "UNPAUSE"), OK)
            self.assertEqual(b.call("EXISTS", key_b), b":0\r\n")

    def test_malformed_frames_close_the_link(self):
        good = mesh_request(0, 0, 2, 0, 1, 1, "PING")
        cases = {
            "short meta": struct.pack("<I", 5) + b"\0" * 5,
            "oversized": struct.pack("<I", 0xFFFFFFFF) + b"\0" * 32,
            "bad kind": good[:4] + b"\xff" + good[5:],  # past the last kind
            # an inline command where the multibulk goes
            "bad body": struct.pack("<I", 20 + 7 + 6) + good[4:31] + b"PING\r\n",
            "bad payload": struct.pack("<I", 20 + 2) + good[4:26],  # ends inside the command id
        }
        for name, frame in cases.items():
            with self.subTest(name):
                s = self.link()
                s.sendall(good + frame + good)
                self.assertEqual(read_mesh_reply(s), (1, b"+PONG\r\n"))
                with self.assertRaises(itest.Closed):
                    read_mesh_reply(s)
                # The worker and its own links are fine: a forwarded command still works.
                with Raw(self.srv.port) as c:
                    self.assertEqual(c.call("SET", itest.keys_of(1, 1, "ok")[0], "1"), OK)
                    self.assertEqual(c.call("PING"), b"+PONG\r\n")


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class PauseDurability(unittest.TestCase):
    """Writes that waited for a pause are journaled like any other: under `always`, the +OK
    a resumed SET answers means it is on disk (a SIGKILL right after loses nothing)."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ruvio-pause-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def start(self):
        srv = harness.Server("ruvio", args=["--workers", "2", "--dir", self.tmp, "--durability",
                                            "always", "--alloc-trace", "off"])
        self.addCleanup(srv.stop)
        itest.wait_mesh_up(srv.port)
        return srv

    def test_resumed_writes_are_durable(self):
        srv = self.start()
        local, remote = itest.keys_of(0, 1, "dl")[0], itest.keys_of(1, 1, "dr")[0]
        c = conn_on(srv.port, 0)
        self.addCleanup(c.close)
        with Raw(srv.port) as p:
            self.assertEqual(p.call("CLIENT", "PAUSE", "60000", "WRITE"), OK)
            c.send(encode("SET", local, "1") + encode("SET", remote, "2"))
            self.assertTrue(pending(c))
            self.assertEqual(p.call("CLIENT", "UNPAUSE"), OK)
        self.assertEqual(c.reply(), OK)
        self.assertEqual(c.reply(), OK)
        for pid in srv.worker_pids():
            os.kill(pid, signal.SIGKILL)
        srv.stop(signal.SIGKILL)
        again = self.start()
        with Raw(again.port) as r:
            self.assertEqual(r.call("MGET", local, remote), b"*2\r\n$1\r\n1\r\n$1\r\n2\r\n")


if __name__ == "__main__":
    unittest.main()
