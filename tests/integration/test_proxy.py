"""The proxy port of a 2-worker Ruvio (issue 3): reply order in pipelines that mix local,
forwarded, split and fanned-out commands (checked against redis-server), a full SCAN over
both workers while keys come and go, INFO's per-worker lines and summed keyspace, keys
answered by whichever worker accepted the connection, and one worker killed while the other
keeps serving.

Worker 0 owns slots 0-8191, worker 1 slots 8192-16383 (harness.key_owner). Which worker
accepted a connection is the `worker_id` line of its INFO."""

import os
import random
import re
import signal
import time
import unittest

import itest
from itest import Raw, encode, harness
import sidebyside

LOADING = b"-LOADING Ruvio is loading the dataset in memory\r\n"
CROSSSLOT = b"-CROSSSLOT Keys in request don't hash to the same slot\r\n"


def worker_of(conn):
    """The worker that accepted this Raw connection."""
    info = conn.call("INFO", "server")
    m = re.search(rb"\r\nworker_id:(\d+)\r\n", info)
    assert m, info
    return int(m.group(1))


def conn_on(port, worker, tries=200):
    """A Raw connection to the proxy port that worker `worker` accepted (the kernel spreads
    connections over the SO_REUSEPORT listeners, so a few attempts find each)."""
    for _ in range(tries):
        c = Raw(port)
        if worker_of(c) == worker:
            return c
        c.close()
    raise AssertionError(f"no connection accepted by worker {worker} in {tries} tries")


def read_replies(conn, n):
    return [conn.reply() for _ in range(n)]


class Proxy(sidebyside.SideBySideCase):
    """One 2-worker Ruvio (cand) and one redis-server (ref) for the class; each test starts
    empty. The fixture waits out the mesh links still coming up after the ready line: see
    the first test below."""
    workers = 2

    def setUp(self):
        for port in (self.cand.port, self.ref.port):
            with Raw(port) as c:
                self.assertEqual(c.call("FLUSHALL"), b"+OK\r\n")
        self.conns = [conn_on(self.cand.port, w) for w in (0, 1)]
        for c in self.conns:
            self.addCleanup(c.close)

    def test_ready_means_every_worker_reaches_every_key(self):
        """Right after the ready line, a connection on either worker reaches keys of both
        owners: no LOADING while the mesh links are still coming up."""
        with harness.Server("ruvio", args=["--workers", "2"]) as srv:
            got = set()
            for _ in range(20):
                with Raw(srv.port) as c:
                    got |= {c.call("GET", "a"), c.call("GET", "b")}  # workers 1 and 0
            self.assertEqual(got, {b"$-1\r\n"}, srv.log_tail(12))

    def test_keys_of_both_owners_from_both_workers(self):
        """Every single-key command reaches the key's owner, whichever worker accepted the
        connection, also those whose key is not the first argument (subcommands)."""
        a, b = "a", "b"  # a: worker 1, b: worker 0
        self.assertEqual((harness.key_owner(a), harness.key_owner(b)), (1, 0))
        self.assertEqual(self.conns[0].call("SET", a, "123"), b"+OK\r\n")
        self.assertEqual(self.conns[1].call("SET", b, "hello"), b"+OK\r\n")
        for c in self.conns:
            with self.subTest(worker=worker_of(c)):
                self.assertEqual(c.call("GET", a), b"$3\r\n123\r\n")
                self.assertEqual(c.call("GET", b), b"$5\r\nhello\r\n")
                self.assertEqual(c.call("TYPE", a), b"+string\r\n")
                self.assertEqual(c.call("OBJECT", "ENCODING", a), b"$3\r\nint\r\n")
                self.assertEqual(c.call("OBJECT", "ENCODING", b), b"$6\r\nembstr\r\n")
                self.assertEqual(c.call("MEMORY", "USAGE", a)[:1], b":")
                self.assertEqual(c.call("MEMORY", "USAGE", b)[:1], b":")

    def test_client_ids_unique_across_workers(self):
        """CLIENT ID is unique among the clients of the server, as in Redis (CLIENT KILL ID
        and CLIENT LIST name clients by it), whichever worker accepted them."""
        seen = {}  # id reply → worker
        conns = [Raw(self.cand.port) for _ in range(16)]
        try:
            for c in conns:
                w, cid = worker_of(c), c.call("CLIENT", "ID")
                self.assertNotIn(cid, seen, f"worker {w} gave the id of a client of worker "
                                 f"{seen.get(cid)}: {cid!r}")
                seen[cid] = w
        finally:
            for c in conns:
                c.close()
        self.assertEqual(set(seen.values()), {0, 1})

    def pipeline(self, rnd, keys0, keys1):
        """64 commands mixing owners: single-key (local or forwarded depending on the
        connection), MGET/MSET/DEL/EXISTS split over both owners, DBSIZE fanned out."""
        cmds = []
        both = keys0 + keys1

        def mixed(n):
            ks = [rnd.choice(keys0), rnd.choice(keys1)] + [rnd.choice(both)
                                                         for _ in range(n - 2)]
            rnd.shuffle(ks)
            return ks

        for _ in range(64):
            x = rnd.random()
            k = rnd.choice(both)
            if x < 0.2:
                cmds.append(("SET", k, str(rnd.randrange(1000))))
            elif x < 0.35:
                cmds.append(("GET", k))
            elif x < 0.45:
                cmds.append(("INCR", k))
            elif x < 0.5:
                cmds.append(("APPEND", k, "x"))
            elif x < 0.6:
                cmds.append(("MGET", *mixed(rnd.randint(2, 6))))
            elif x < 0.7:
                ks = mixed(rnd.randint(2, 4))
                cmds.append(("MSET", *[a for kk in ks for a in (kk, str(rnd.randrange(99)))]))
            elif x < 0.77:
                cmds.append(("DEL", *mixed(rnd.randint(2, 4))))
            elif x < 0.85:
                cmds.append(("EXISTS", *mixed(rnd.randint(2, 5))))
            elif x < 0.92:
                cmds.append(("DBSIZE",))
            elif x < 0.96:
                cmds.append(("STRLEN", k))
            else:
                cmds.append(("PING", str(len(cmds))))  # answered by the accepting worker
        return cmds

    def test_ordering_100_pipelines_of_64(self):
        seed = (int(os.environ.get("RUVIO_PROXY_SEED", "0")) or
                random.SystemRandom().randrange(1, 2**31))
        rnd = random.Random(seed)
        keys0 = itest.keys_of(0, 12, "ord:")
        keys1 = itest.keys_of(1, 12, "ord:")
        ref = Raw(self.ref.port)
        self.addCleanup(ref.close)
        for i in range(100):
            cmds = self.pipeline(rnd, keys0, keys1)
            payload = b"".join(encode(*c) for c in cmds)
            conn = self.conns[i % 2]
            conn.send(payload)
            ref.send(payload)
            got = read_replies(conn, len(cmds))
            want = read_replies(ref, len(cmds))
            for j, (c, g, w) in enumerate(zip(cmds, got, want)):
                self.assertEqual(g, w, f"pipeline {i} (worker {i % 2}) command {j} {c}; "
                                 f"RUVIO_PROXY_SEED={seed}")
        for k in keys0 + keys1:
            self.assertEqual(self.conns[0].call("GET", k), ref.call("GET", k))

    def test_full_scan_while_keys_change(self):
        """Every key present from start to end is returned (at least once); nothing that was
        never there is; the iteration ends with cursor 0. Other keys are added and removed
        between the calls."""
        c, w = self.conns[0], self.conns[1]
        stable = [f"stable:{i}" for i in range(600)]
        for i in range(0, len(stable), 100):
            w.call("MSET", *[x for k in stable[i:i + 100] for x in (k, "v")])
        self.assertEqual({harness.key_owner(k) for k in stable}, {0, 1})
        volatile = set()
        seen = []
        cursor, rounds, n = b"0", 0, 0
        while True:
            reply = c.call("SCAN", cursor, "COUNT", "25")
            m = re.match(rb"\*2\r\n\$\d+\r\n(\d+)\r\n\*(\d+)\r\n", reply)
            self.assertTrue(m, reply)
            cursor = m.group(1)
            rest = reply[m.end():]
            seen += re.findall(rb"\$\d+\r\n([^\r]*)\r\n", rest)
            rounds += 1
            # Churn: 20 keys added, 10 of the earlier ones removed, on both owners.
            new = [f"churn:{n + j}" for j in range(20)]
            n += 20
            w.call("MSET", *[x for k in new for x in (k, "v")])
            volatile |= set(new)
            gone = random.sample(sorted(volatile), min(10, len(volatile)))
            w.call("DEL", *gone)
            if cursor == b"0":
                break
            self.assertLess(rounds, 2000, "SCAN does not end")
        seen = {s.decode() for s in seen}
        self.assertEqual(set(stable) - seen, set(), "keys present throughout not returned")
        self.assertEqual(seen - set(stable) - volatile, set(), "keys that never existed")

    def test_info_per_worker_and_summed_keyspace(self):
        keys = [f"info:{i}" for i in range(50)]
        self.conns[0].call("MSET", *[x for k in keys for x in (k, "v")])
        self.conns[0].call("SET", "volatile", "v", "EX", "1000")
        per = [sum(1 for k in keys + ["volatile"] if harness.key_owner(k) == w) for w in (0, 1)]
        self.assertTrue(all(per), per)
        pids = self.cand.worker_pids()
        self.assertEqual(len(pids), 2)
        for c in self.conns:
            info = c.call("INFO").decode()
            self.assertIn("\r\n# Workers\r\n", info)
            self.assertIn("\r\ndb0:keys=51,expires=1,", info)
            for w in (0, 1):
                m = re.search(rf"\r\nworker{w}:status=up,pid=(\d+),keys=(\d+),", info)
                self.assertTrue(m, info)
                self.assertIn(int(m.group(1)), pids)
                self.assertEqual(int(m.group(2)), per[w])
            self.assertEqual(c.call("DBSIZE"), b":51\r\n")
            ks = c.call("INFO", "keyspace").decode()
            self.assertIn("\r\ndb0:keys=51,expires=1,", ks)

    def test_killed_worker_loading_then_serving(self):
        """SIGKILL one worker of two: the other's keys keep answering, the victim's keys
        answer exactly LOADING from the survivor, then serve again once it is back."""
        with harness.Server("ruvio", args=["--workers", "2"]) as srv:
            k0, k1 = itest.keys_of(0, 1, "r0:")[0], itest.keys_of(1, 1, "r1:")[0]
            itest.wait_mesh_up(srv.port)  # see test_ready_means_every_worker_reaches_every_key
            with Raw(srv.port) as c:
                self.assertEqual(c.call("SET", k0, "zero"), b"+OK\r\n")
                self.assertEqual(c.call("SET", k1, "one"), b"+OK\r\n")
            pids = itest.wait_for(lambda: len(srv.worker_pids()) == 2 and srv.worker_pids(),
                                  timeout=5)
            self.assertTrue(pids)
            # worker_pids lists the supervisor's children in start order; INFO names them.
            with Raw(srv.port) as c:
                info = c.call("INFO").decode()
            victim_pid = int(re.search(r"\r\nworker1:status=up,pid=(\d+)", info).group(1))
            self.assertIn(victim_pid, pids)
            survivor = conn_on(srv.port, 0)
            self.addCleanup(survivor.close)
            os.kill(victim_pid, signal.SIGKILL)
            replies, t0 = [], time.monotonic()
            while time.monotonic() - t0 < 5:
                self.assertEqual(survivor.call("GET", k0), b"$4\r\nzero\r\n")
                r = survivor.call("GET", k1)
                if not replies or replies[-1] != r:
                    replies.append(r)
                if r != LOADING and LOADING in replies:
                    break
                time.sleep(0.002)
            # Memory durability: the restarted worker comes back empty.
            self.assertEqual(replies[-2:], [LOADING, b"$-1\r\n"],
                             f"{replies}\n{srv.log_tail(12)}")
            self.assertIn(replies[0], (b"$3\r\none\r\n", LOADING))
            self.assertTrue(set(replies) <= {b"$3\r\none\r\n", LOADING, b"$-1\r\n"}, replies)
            self.assertEqual(survivor.call("SET", k1, "again"), b"+OK\r\n")
            self.assertEqual(survivor.call("GET", k1), b"$5\r\nagain\r\n")
            self.assertEqual(survivor.call("DBSIZE"), b":2\r\n")
            self.assertNotIn(victim_pid, srv.worker_pids())


if __name__ == "__main__":
    unittest.main()
