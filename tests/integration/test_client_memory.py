"""Client memory as Redis 7.0 counts it (getClientMemoryUsage) and client eviction at Redis's
moments and by its memory buckets, side by side with redis-server.

CLIENT LIST's argv-mem / multi-mem / qbuf / omem / tot-mem fields: present, and moving the same
way for the same operations (MULTI queueing and DISCARD, WATCH, SUBSCRIBE/PSUBSCRIBE, a large
argument under way, replies a client does not read). multi-mem and the WATCH / PSUBSCRIBE
steps of tot-mem follow Redis's formulas, so those deltas are equal byte for byte. Exact on
both servers where Redis is deterministic: a client's own CLIENT INFO (qbuf holds the batch the
command came in, argv-mem its arguments), replies not yet written (obl the 16 KB buf, oll/omem
the reply list past it: 20504 bytes per block of small replies; a stuck client's all in the
list), and a 1 MB argument of which 300 KB arrived (argv-mem 4, qbuf 307200).

Eviction: before each command (a client whose own unread replies pass the limit is closed
before its next pipelined command runs, as processCommand -> evictClients does), and by
bucket (of two clients in the same power-of-two bucket, the one that entered it first goes,
though it is the smaller). A 2-worker proxy class checks that each worker enforces its share."""

import os
import re
import socket
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
import harness  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "differential"))
from resp_raw import encode  # noqa: E402
from test_client_eviction import closed  # noqa: E402

FIELDS = ("qbuf", "qbuf-free", "argv-mem", "multi-mem", "rbp", "obl", "oll", "omem", "tot-mem")


def resp(*args):
    return encode(args)


def connect(port, name):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(resp("CLIENT", "SETNAME", name))
    assert s.recv(5) == b"+OK\r\n"
    return s


def info_fields(text):
    """The numeric fields of one CLIENT LIST/INFO line."""
    return {k: int(v) for k, v in re.findall(r"(\S+?)=(-?\d+)(?=\s|$)", text) if k in FIELDS}


def read_reply_then_info(sock, first_len):
    """Reads `first_len` bytes of a first reply, then the CLIENT INFO verbatim/bulk after it."""
    got = b""
    deadline = time.monotonic() + 5
    while (len(got) < first_len or not got.endswith(b"\n\r\n")) and time.monotonic() < deadline:
        got += sock.recv(65536)
    return got[:first_len], got[first_len:].decode()


def call(sock, *args, until=None):
    """Sends one command and reads its reply (one recv, or until `until` is in what came)."""
    sock.sendall(resp(*args))
    if until is None:
        return sock.recv(65536)
    got = b""
    deadline = time.monotonic() + 5
    while not until(got) and time.monotonic() < deadline:
        got += sock.recv(65536)
    return got


class MemoryCases:
    def setUp(self):
        super().setUp()
        self.addCleanup(self.r.config_set, "maxmemory-clients", "0")

    def partial_command(self, name, data, qbuf):
        """A connection `name` sends `data` (a command not yet whole) and is left open: its
        socket and its CLIENT LIST fields once its qbuf shows `qbuf` bytes (or after 5 s)."""
        s = connect(self.port, name)
        self.addCleanup(s.close)
        s.sendall(data)
        deadline = time.monotonic() + 5
        while self.fields(name)["qbuf"] < qbuf and time.monotonic() < deadline:
            time.sleep(0.05)
        return s, self.fields(name)

    def fields(self, name):
        """The CLIENT LIST fields of client `name` (numbers), after its last reply was sent."""
        for line in self.r.execute_command("CLIENT", "LIST").splitlines():
            line = line.decode() if isinstance(line, bytes) else line
            if f" name={name} " in line:
                return {k: int(v) for k, v in re.findall(r"(\S+?)=(-?\d+)(?=\s|$)", line)
                        if k in FIELDS}
        return None

    def test_fields_present_and_argv_of_self(self):
        s = connect(self.port, "self")
        self.addCleanup(s.close)
        line = call(s, "CLIENT", "INFO").decode()
        for f in FIELDS:
            self.assertRegex(line, r"\b%s=\d+" % re.escape(f))
        # Redis counts the running command's arguments ("client" + "info").
        self.assertIn(" argv-mem=10 ", line)

    def test_own_first_client_info_shows_its_query_buffer(self):
        """Redis's query buffer still holds the running command (and the batch it came in):
        26 bytes of CLIENT INFO, 40 with a PING before it in the same read; argv-mem is the
        running command's arguments. qbuf-free is each server's own block (Redis: jemalloc's
        20 KB class for its 16 KB read, 20448 free; Ruvio: its 16 KB block)."""
        s = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        self.addCleanup(s.close)
        line = call(s, "CLIENT", "INFO", until=lambda g: g.endswith(b"\n\r\n")).decode()
        f = info_fields(line)
        self.assertEqual((f["qbuf"], f["argv-mem"], f["multi-mem"]), (26, 10, 0))
        self.assertGreater(f["qbuf-free"], 0)
        self.assertEqual((f["obl"], f["oll"], f["omem"]), (0, 0, 0))
        s.sendall(resp("PING") + resp("CLIENT", "INFO"))
        pong, line = read_reply_then_info(s, 7)
        self.assertEqual(pong, b"+PONG\r\n")
        f = info_fields(line)
        # The PONG waits in the 16 KB buf: obl, not the reply list.
        self.assertEqual((f["qbuf"], f["argv-mem"], f["obl"], f["oll"], f["omem"]),
                         (14 + 26, 10, 7, 0, 0))

    def test_pending_reply_in_buf_then_list(self):
        """Replies not yet written: the first 16 KB are Redis's buf (obl), only what is past it
        is its reply list (oll blocks, omem = 20504 per block of small replies)."""
        s = connect(self.port, "pend")
        self.addCleanup(s.close)
        self.r.set("pend1", "v" * 100)
        self.r.set("pend2", "w" * 20000)
        s.sendall(resp("GET", "pend1") + resp("CLIENT", "INFO"))
        reply, line = read_reply_then_info(s, 108)
        self.assertEqual(reply, b"$100\r\n" + b"v" * 100 + b"\r\n")
        f = info_fields(line)
        self.assertEqual((f["obl"], f["oll"], f["omem"]), (108, 0, 0))
        s.sendall(resp("GET", "pend2") + resp("CLIENT", "INFO"))
        reply, line = read_reply_then_info(s, 20010)
        self.assertEqual(reply, b"$20000\r\n" + b"w" * 20000 + b"\r\n")
        f = info_fields(line)
        self.assertEqual((f["obl"], f["oll"], f["omem"]), (16384, 1, 20504))
        self.assertGreaterEqual(f["tot-mem"], f["omem"])

    def test_stuck_client_replies_in_list(self):
        """A client that stopped reading: its buf went out first, so everything still pending
        is in the reply list (obl 0), 20504 bytes per block of small replies."""
        self.r.set("stuckval", "s" * 1000)
        r = connect(self.port, "stuck")
        self.addCleanup(r.close)
        r.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        r.sendall(resp("GET", "stuckval") * 8000)  # 8 MB of replies, past the socket buffers
        deadline = time.monotonic() + 5
        while self.fields("stuck")["omem"] < 1000000 and time.monotonic() < deadline:
            time.sleep(0.05)
        f = self.fields("stuck")
        self.assertGreaterEqual(f["oll"], 1000000 // 20504)
        self.assertEqual((f["obl"], f["omem"]), (0, 20504 * f["oll"]))
        self.assertGreaterEqual(f["tot-mem"], f["omem"])

    def test_argument_under_way_split_as_redis(self):
        """A 1 MB argument of which 300 KB arrived: the arguments before it are parsed (argv-mem
        4: "SET" and "k"), qbuf holds only the value's bytes so far (Redis trims the parsed
        part, processMultibulkBuffer)."""
        s, f = self.partial_command(
            "under", b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1048576\r\n" + b"z" * 307200, 307200)
        self.assertEqual((f["qbuf"], f["argv-mem"]), (307200, 4))
        # Both servers hold room for the whole value (Redis: jemalloc's 1.25 MB class).
        self.assertGreaterEqual(f["qbuf"] + f["qbuf-free"], 1048576)
        self.assertGreaterEqual(f["tot-mem"], 1048576 + 4 + 2 * 8)
        s.sendall(b"z" * (1048576 - 307200) + b"\r\n")
        self.assertEqual(s.recv(5), b"+OK\r\n")
        f = self.fields("under")
        self.assertEqual((f["qbuf"], f["argv-mem"]), (0, 0))

    def test_watch_on_every_worker_counts(self):
        """WATCHed keys count 56 bytes each in tot-mem, whichever worker holds them (through the
        proxy the connection counts those it forwarded); a key watched twice counts once."""
        a = connect(self.port, "watcher")
        self.addCleanup(a.close)
        base = self.fields("watcher")
        owners = {}
        for i in range(64):
            owners.setdefault(harness.key_owner(f"wk{i}"), []).append(f"wk{i}")
        for keys in owners.values():
            self.assertEqual(call(a, "WATCH", *keys[:3]), b"+OK\r\n")
            self.assertEqual(call(a, "WATCH", keys[0]), b"+OK\r\n")
        self.assertEqual(self.fields("watcher")["tot-mem"] - base["tot-mem"],
                         3 * len(owners) * 56)
        self.assertEqual(call(a, "UNWATCH"), b"+OK\r\n")
        self.assertEqual(self.fields("watcher")["tot-mem"], base["tot-mem"])
        # EXEC drops them (one worker's keys at a time: a transaction spans one worker).
        for keys in owners.values():
            self.assertEqual(call(a, "WATCH", *keys[:2]), b"+OK\r\n")
            self.assertEqual(self.fields("watcher")["tot-mem"] - base["tot-mem"], 2 * 56)
            self.assertEqual(call(a, "MULTI"), b"+OK\r\n")
            self.assertEqual(call(a, "EXEC"), b"*0\r\n")
            self.assertEqual(self.fields("watcher")["tot-mem"], base["tot-mem"])

    def test_reply_peak_and_idle_output(self):
        """rbp (Redis's buf_peak): at least the last reply's size within its 5 s window; an idle
        client holds nothing in obl/oll/omem."""
        a = connect(self.port, "peak")
        self.addCleanup(a.close)
        self.r.set("peakkey", "v" * 100)
        self.assertEqual(call(a, "GET", "peakkey", until=lambda g: len(g) >= 107),
                         b"$100\r\n" + b"v" * 100 + b"\r\n")
        f = self.fields("peak")
        self.assertGreaterEqual(f["rbp"], 107)
        self.assertEqual((f["obl"], f["oll"], f["omem"]), (0, 0, 0))

    def test_multi_watch_pubsub_move_alike(self):
        a = connect(self.port, "a")
        self.addCleanup(a.close)
        base = self.fields("a")
        self.assertEqual((base["multi-mem"], base["argv-mem"]), (0, 0))
        self.assertEqual(call(a, "MULTI"), b"+OK\r\n")
        self.assertEqual(call(a, "SET", "a", "b" * 1000), b"+QUEUED\r\n")
        one = self.fields("a")
        # The arguments plus a pointer each; tot-mem also gains Redis's 2-entry multiCmd array.
        self.assertEqual(one["multi-mem"], 3 + 1 + 1000 + 3 * 8)
        self.assertEqual(one["tot-mem"] - base["tot-mem"], 1028 + 48)
        self.assertEqual(call(a, "GET", "a"), b"+QUEUED\r\n")
        two = self.fields("a")
        self.assertEqual(two["multi-mem"], 1048)
        self.assertEqual(two["tot-mem"] - one["tot-mem"], 20)
        self.assertEqual(call(a, "DISCARD"), b"+OK\r\n")
        after = self.fields("a")
        self.assertEqual(after["multi-mem"], 0)
        self.assertEqual(after["tot-mem"], base["tot-mem"])
        # WATCH: 56 bytes per key (Redis's list node + watchedKey), back on UNWATCH.
        self.assertEqual(call(a, "WATCH", "w1", "w2", "w3"), b"+OK\r\n")
        self.assertEqual(self.fields("a")["tot-mem"] - after["tot-mem"], 3 * 56)
        self.assertEqual(call(a, "UNWATCH"), b"+OK\r\n")
        self.assertEqual(self.fields("a")["tot-mem"], after["tot-mem"])
        # Subscriptions count: channels as dict entries and slots, patterns as list nodes.
        call(a, "SUBSCRIBE", *[f"ch{i}" for i in range(10)], until=lambda g: b":10\r\n" in g)
        sub = self.fields("a")
        self.assertGreaterEqual(sub["tot-mem"] - after["tot-mem"], 10 * 24 + 16 * 8)
        call(a, "PSUBSCRIBE", "p1*", "p2*", until=lambda g: b":12\r\n" in g)
        self.assertEqual(self.fields("a")["tot-mem"] - sub["tot-mem"], 2 * 24)

    def test_big_argument_and_unread_replies(self):
        # A 300 KB argument under way: qbuf and tot-mem hold it, argv-mem is what was parsed.
        s, f = self.partial_command(
            "bulk", b"*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$300000\r\n" + b"y" * 100000, 100000)
        self.assertGreaterEqual(f["qbuf"], 100000)
        self.assertGreaterEqual(f["tot-mem"], 300000)
        s.sendall(b"y" * 200000 + b"\r\n")
        self.assertEqual(s.recv(5), b"+OK\r\n")
        # Replies a client does not read pile up in omem, and tot-mem covers them.
        r = connect(self.port, "slow")
        self.addCleanup(r.close)
        r.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        r.sendall(resp("GET", "x") * 40)  # 12 MB of replies
        deadline = time.monotonic() + 5
        while self.fields("slow")["omem"] < 1000000 and time.monotonic() < deadline:
            time.sleep(0.05)
        f = self.fields("slow")
        self.assertGreaterEqual(f["omem"], 1000000)
        self.assertGreaterEqual(f["tot-mem"], f["omem"])


class EvictionMoments:
    def setUp(self):
        super().setUp()
        self.addCleanup(self.r.config_set, "maxmemory-clients", "0")

    def test_evicted_before_its_next_command(self):
        # Each GET queues 300 KB the client does not read; over 1 MB (per worker) the client
        # is closed before its next command runs, so the pipeline's INCRs stop early.
        self.r.set(self.k("big"), "v" * 300000)
        self.r.delete(self.k("n"))
        self.r.config_set("maxmemory-clients", str(1024 * 1024 * self.workers))
        s = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        self.addCleanup(s.close)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall((resp("GET", self.k("big")) + resp("INCR", self.k("n"))) * 20)
        self.assertTrue(closed(s, timeout=5.0))
        n = int(self.r.get(self.k("n")) or 0)
        self.assertGreaterEqual(n, 1)
        self.assertLessEqual(n, 6)

    def test_bucket_order_not_size(self):
        # Two clients in the same power-of-two bucket (both servers size the query buffer for
        # the whole argument): the one that entered the bucket first goes, though smaller.
        first = connect(self.port, "first")
        self.addCleanup(first.close)
        first.sendall(b"*3\r\n$3\r\nSET\r\n$1\r\na\r\n$600000\r\n" + b"x" * 16)
        self.wait_mem("first", 600000)
        second = connect(self.port, "second")
        self.addCleanup(second.close)
        second.sendall(b"*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$900000\r\n" + b"x" * 16)
        self.wait_mem("second", 900000)
        before = self.evicted()
        self.r.config_set("maxmemory-clients", str(1300 * 1024 * self.workers))
        self.assertTrue(closed(first))
        self.assertFalse(closed(second, timeout=0.3))
        self.assertEqual(self.evicted(), before + 1)

    def wait_mem(self, name, at_least):
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            for c in self.r.client_list():
                if c["name"] == name and int(c["tot-mem"]) >= at_least:
                    return
            time.sleep(0.05)
        self.fail(f"{name} never reached tot-mem {at_least}")

    def evicted(self):
        return int(self.r.info("stats")["evicted_clients"])


class RedisMemory(MemoryCases, itest.RedisCase):
    pass


class RuvioMemory(MemoryCases, itest.RuvioCase):
    pass


class RedisMoments(EvictionMoments, itest.RedisCase):
    workers = 1


class RuvioMoments(EvictionMoments, itest.RuvioCase):
    workers = 1


class RuvioProxyMemory(itest.RuvioProxyCase):
    """The fields through the 2-worker proxy port: the client's line comes from the worker
    holding its connection, which counts its WATCHes on the other worker too."""
    fields = MemoryCases.fields
    partial_command = MemoryCases.partial_command
    test_watch_on_every_worker_counts = MemoryCases.test_watch_on_every_worker_counts
    test_own_first_client_info_shows_its_query_buffer = \
        MemoryCases.test_own_first_client_info_shows_its_query_buffer
    test_argument_under_way_split_as_redis = MemoryCases.test_argument_under_way_split_as_redis


class RuvioProxyShares(itest.RuvioProxyCase):
    """2 workers behind the proxy port: maxmemory-clients is split, each worker measures the
    clients whose connections it holds (forwarded replies count once queued for the client)
    and closes from its own clients."""

    def setUp(self):
        super().setUp()
        self.addCleanup(self.r.config_set, "maxmemory-clients", "0")

    def test_each_worker_enforces_its_share(self):
        before = int(self.r.info("stats")["evicted_clients"])
        keep = connect(self.port, "keep")
        self.addCleanup(keep.close)
        self.assertEqual(call(keep, "CLIENT", "NO-EVICT", "on"), b"+OK\r\n")
        # Eight clients with 400 KB arguments under way, spread by the kernel over the workers.
        socks = []
        for i in range(8):
            s = connect(self.port, f"big{i}")
            self.addCleanup(s.close)
            s.sendall(b"*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$400000\r\n" + b"x" * 16)
            socks.append(s)
        time.sleep(0.3)
        # 2 MB in all: 1 MB per worker, so each worker keeps at most two of its big clients.
        self.r.config_set("maxmemory-clients", str(2 * 1024 * 1024))
        deadline = time.monotonic() + 5
        gone = []
        while time.monotonic() < deadline:
            gone = [s for s in socks if closed(s, timeout=0.05)]
            if len(gone) >= 4:
                break
        self.assertGreaterEqual(len(gone), 4)
        self.assertLessEqual(len(gone), 8)
        self.assertGreaterEqual(int(self.r.info("stats")["evicted_clients"]), before + len(gone))
        # A NO-EVICT client and the test's own client keep working; keys on both workers answer.
        self.assertFalse(closed(keep, timeout=0.2))
        for key in ("k0", "k1", "k2", "k3"):
            self.assertEqual(call(keep, "SET", key, "v"), b"+OK\r\n")
        self.assertEqual(self.r.dbsize(), 4)


if __name__ == "__main__":
    unittest.main()
