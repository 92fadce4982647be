"""Cluster mode on the direct ports: CLUSTER replies (shapes checked against a
--cluster-enabled redis-server), MOVED / CROSSSLOT, the topology file and its refusals, node
ids across restarts, and real cluster clients (redis-py RedisCluster, redis-cli -c, ioredis
Cluster) against a real two-node cluster made of two Ruvio services."""

import json
import os
import re
import subprocess
import tempfile
import textwrap
import time
import unittest

import itest
from itest import Raw, harness

ID = re.compile(rb"[0-9a-f]{40}")
NPM_DIR = os.path.join(harness.BUILD, "npm")


def bulk(s):
    s = s.encode() if isinstance(s, str) else s
    return b"$%d\r\n%s\r\n" % (len(s), s)


def call(port, *args):
    with Raw(port) as c:
        return c.call(*args)


class Node(harness.Server):
    """A Ruvio service on ports chosen by the caller (one worker; its direct port is
    `direct`), so a topology file can name it before it starts."""

    def __init__(self, port, direct, args=(), data_dir=None, wait_ready=True):
        self.kind = "ruvio"
        self.port = port
        self.direct = direct
        self.tmp = harness.temp_dir("ruvio-cluster")
        self.log_path = os.path.join(self.tmp.name, "server.log")
        cmd = [harness.RUVIO_BIN, "--port", str(port), "--worker-base-port", str(direct),
               "--admin-port", "0", "--workers", "1", "--durability", "memory",
               "--dir", data_dir or os.path.join(self.tmp.name, "data"), *args]
        self.log = open(self.log_path, "wb")
        self.proc = harness.owned_popen(cmd, stdout=self.log, stderr=subprocess.STDOUT)
        self.pid = self.proc.pid
        self.final_output = None
        harness.SERVERS.append(self)
        if wait_ready and not self.wait_ready():
            out = self.output()
            self.stop()
            raise RuntimeError(f"ruvio did not become ready:\n{out}")


class TwoWorkerService(unittest.TestCase):
    """One service, two workers, no topology file: the workers' direct ports are a
    two-master cluster splitting the slots as redis-cli --cluster create would."""

    @classmethod
    def setUpClass(cls):
        cls.server = itest.start("ruvio", ("--workers", "2"))

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_cluster_client(self):
        from redis.cluster import RedisCluster
        d0, d1 = self.server.port + 1, self.server.port + 2
        slots = call(d1, "CLUSTER", "SLOTS")
        self.assertTrue(slots.startswith(b"*2\r\n*3\r\n:0\r\n:8191\r\n*4\r\n" +
                                         bulk("127.0.0.1") + b":%d\r\n" % d0), slots)
        self.assertIn(b"*3\r\n:8192\r\n:16383\r\n*4\r\n" + bulk("127.0.0.1") +
                      b":%d\r\n" % d1, slots)
        self.assertEqual(call(d0, "GET", "foo"), b"-MOVED 12182 127.0.0.1:%d\r\n" % d1)
        rc = RedisCluster(host="127.0.0.1", port=d0, socket_timeout=10)
        try:
            for i in range(2000):
                rc.set(f"k{i}", i)
            self.assertEqual(rc.mget_nonatomic([f"k{i}" for i in range(2000)]),
                             [str(i).encode() for i in range(2000)])
        finally:
            rc.close()
        self.assertEqual(int(call(d0, "DBSIZE")[1:-2]) + int(call(d1, "DBSIZE")[1:-2]), 2000)


def two_ports():
    """(proxy, direct) for two services: four distinct free ports."""
    a = harness.free_port(2)
    b = harness.free_port(2, avoid=range(a - 2, a + 3))
    return (a, a + 1), (b, b + 1)


def write_config(directory, text):
    path = os.path.join(directory, "topology.conf")
    with open(path, "w") as f:
        f.write(textwrap.dedent(text))
    return path


def run_ruvio(*args):
    p = subprocess.run([harness.RUVIO_BIN, *args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=20)
    return p.returncode, p.stderr.decode()


# ---------------------------------------------------------------------------------------
# one service, default topology: its worker owns every slot
# ---------------------------------------------------------------------------------------

class SingleNode(itest.RuvioCase):
    server_args = ("--workers", "1")

    @property
    def direct(self):
        return self.server.port + 1

    def dcall(self, *args):
        return call(self.direct, *args)

    def myid(self):
        reply = self.dcall("CLUSTER", "MYID")
        self.assertRegex(reply, rb"^\$40\r\n[0-9a-f]{40}\r\n$")
        return reply[5:45]

    def test_slots(self):
        nid = self.myid()
        self.assertEqual(self.dcall("CLUSTER", "SLOTS"),
                         b"*1\r\n*3\r\n:0\r\n:16383\r\n*4\r\n" + bulk("127.0.0.1") +
                         b":%d\r\n" % self.direct + bulk(nid) + b"*0\r\n")
        with Raw(self.direct) as c:  # RESP3: the hostname metadata is an empty map
            c.call("HELLO", "3")
            self.assertTrue(c.call("CLUSTER", "SLOTS").endswith(bulk(nid) + b"%0\r\n"))

    def test_shards(self):
        nid = self.myid()
        self.assertEqual(
            self.dcall("CLUSTER", "SHARDS"),
            b"*1\r\n*4\r\n" + bulk("slots") + b"*2\r\n:0\r\n:16383\r\n" + bulk("nodes") +
            b"*1\r\n*14\r\n" + bulk("id") + bulk(nid) + bulk("port") +
            b":%d\r\n" % self.direct + bulk("ip") + bulk("127.0.0.1") + bulk("endpoint") +
            bulk("127.0.0.1") + bulk("role") + bulk("master") + bulk("replication-offset") +
            b":0\r\n" + bulk("health") + bulk("online"))

    def test_nodes(self):
        nid = self.myid().decode()
        line = f"{nid} 127.0.0.1:{self.direct}@{self.direct + 10000} myself,master - 0 0 1 " \
               f"connected 0-16383\n"
        self.assertEqual(self.dcall("CLUSTER", "NODES"), bulk(line))

    def test_info(self):
        text = ("cluster_state:ok\r\ncluster_slots_assigned:16384\r\ncluster_slots_ok:16384\r\n"
                "cluster_slots_pfail:0\r\ncluster_slots_fail:0\r\ncluster_known_nodes:1\r\n"
                "cluster_size:1\r\ncluster_current_epoch:1\r\ncluster_my_epoch:1\r\n"
                "cluster_stats_messages_sent:0\r\ncluster_stats_messages_received:0\r\n"
                "total_cluster_links_buffer_limit_exceeded:0\r\n")
        self.assertEqual(self.dcall("CLUSTER", "INFO"), bulk(text))
        with Raw(self.direct) as c:
            c.call("HELLO", "3")
            self.assertEqual(c.call("CLUSTER", "INFO"),
                             b"=%d\r\ntxt:%s\r\n" % (len(text) + 4, text.encode()))

    def test_info_cluster_section(self):
        self.assertEqual(self.dcall("INFO", "cluster"), bulk("# Cluster\r\ncluster_enabled:1\r\n"))
        self.assertEqual(self.cmd("INFO", "cluster"), bulk("# Cluster\r\ncluster_enabled:0\r\n"))

    def test_hello_mode(self):
        self.assertIn(bulk("mode") + bulk("cluster"), self.dcall("HELLO", "3"))
        self.assertIn(bulk("mode") + bulk("standalone"), self.cmd("HELLO", "3"))

    def test_keys_in_slot(self):
        d = self.dcall
        self.assertEqual(d("CLUSTER", "COUNTKEYSINSLOT", "12182"), b":0\r\n")
        for k in ("foo", "{foo}a", "{foo}b", "bar"):
            self.assertEqual(d("SET", k, "1"), b"+OK\r\n")
        self.assertEqual(d("CLUSTER", "COUNTKEYSINSLOT", "12182"), b":3\r\n")
        self.assertEqual(d("CLUSTER", "COUNTKEYSINSLOT", "5061"), b":1\r\n")
        got = d("CLUSTER", "GETKEYSINSLOT", "12182", "10")
        self.assertTrue(got.startswith(b"*3\r\n"))
        for k in ("foo", "{foo}a", "{foo}b"):
            self.assertIn(bulk(k), got)
        self.assertEqual(len(d("CLUSTER", "GETKEYSINSLOT", "12182", "2").split(b"$")), 3)
        self.assertEqual(d("CLUSTER", "GETKEYSINSLOT", "12182", "0"), b"*0\r\n")
        # Counts follow deletes, renames, overwrites, expiry and flushes.
        self.assertEqual(d("DEL", "{foo}a"), b":1\r\n")
        self.assertEqual(d("RENAME", "{foo}b", "{foo}c"), b"+OK\r\n")
        self.assertEqual(d("SET", "foo", "2"), b"+OK\r\n")
        self.assertEqual(d("CLUSTER", "COUNTKEYSINSLOT", "12182"), b":2\r\n")
        self.assertEqual(d("PEXPIRE", "foo", "1"), b":1\r\n")
        time.sleep(0.05)
        self.assertEqual(d("GET", "foo"), b"$-1\r\n")
        self.assertEqual(d("CLUSTER", "COUNTKEYSINSLOT", "12182"), b":1\r\n")
        self.assertEqual(d("FLUSHALL"), b"+OK\r\n")
        self.assertEqual(d("CLUSTER", "COUNTKEYSINSLOT", "12182"), b":0\r\n")
        self.assertEqual(d("CLUSTER", "COUNTKEYSINSLOT", "5061"), b":0\r\n")

    def test_counts_follow_swapdb(self):
        self.assertEqual(self.dcall("SET", "foo", "1"), b"+OK\r\n")
        self.assertEqual(self.dcall("CLUSTER", "COUNTKEYSINSLOT", "12182"), b":1\r\n")
        self.assertEqual(self.cmd("SWAPDB", "0", "1"), b"+OK\r\n")  # the proxy port allows it
        self.assertEqual(self.dcall("CLUSTER", "COUNTKEYSINSLOT", "12182"), b":0\r\n")
        self.assertEqual(self.dcall("SET", "{foo}x", "1"), b"+OK\r\n")
        self.assertEqual(self.cmd("SWAPDB", "0", "1"), b"+OK\r\n")
        self.assertEqual(self.dcall("CLUSTER", "COUNTKEYSINSLOT", "12182"), b":1\r\n")
        self.assertEqual(self.dcall("CLUSTER", "GETKEYSINSLOT", "12182", "5"),
                         b"*1\r\n" + bulk("foo"))

    def test_keyslot_matches_redis(self):
        keys = ["", "a", "foo", "{user1}.a", "{}x", "{x", "x}{y}", "}{", "k" * 300,
                "\xff\x00bin", "123456789"] + [f"key:{i}" for i in range(200)]
        expected = [int(cluster_redis().execute_command("CLUSTER", "KEYSLOT", k)) for k in keys]
        with Raw(self.direct) as c:
            got = [int(c.call("CLUSTER", "KEYSLOT", k)[1:-2]) for k in keys]
        self.assertEqual(got, expected)

    def test_errors_match_redis(self):
        cases = [("CLUSTER", "COUNTKEYSINSLOT", "16384"), ("CLUSTER", "COUNTKEYSINSLOT", "-1"),
                 ("CLUSTER", "COUNTKEYSINSLOT", "x"), ("CLUSTER", "GETKEYSINSLOT", "1", "-1"),
                 ("CLUSTER", "GETKEYSINSLOT", "x", "1"), ("CLUSTER", "KEYSLOT"),
                 ("CLUSTER", "SLOTS", "x"), ("CLUSTER", "NOPE"), ("CLUSTER",), ("ASKING", "x"),
                 ("SELECT", "1"), ("SELECT", "x"), ("SELECT", "0"), ("ASKING",),
                 ("READONLY",), ("READWRITE",), ("MSET", "a", "1", "b", "2"),
                 ("SWAPDB", "0", "1"), ("MOVE", "a", "1"), ("COPY", "a", "{a}b", "DB", "1"),
                 ("COPY", "a", "{a}b", "DB", "0"), ("COPY", "a", "b"),
                 ("SELECT", "4294967296"), ("SELECT", "99999999999999999999"), ("SELECT", "-1"),
                 ("MOVE", "a", "4294967296"), ("COPY", "a", "{a}b", "DB", "-4294967296"), ("SELECT", "99"),
                 ("SWAPDB", "x", "1"), ("MOVE", "a", "x"), ("MOVE", "a", "0"),
                 ("COPY", "a", "{a}b", "DB", "99"), ("COPY", "a", "{a}b", "DB", "x"),
                 ("COPY", "a", "{a}b", "DB", "1", "BOGUS"), ("COPY", "a", "a", "DB", "0")]
        ref = cluster_redis_port()
        for args in cases:
            with self.subTest(args=args):
                self.assertEqual(self.dcall(*args), call(ref, *args))

    def test_db_refusals_inside_multi_match_redis(self):
        """SELECT n / SWAPDB / MOVE / COPY ... DB n are refused when they run (at EXEC), not
        when queued, as redis-server's handlers do."""
        ref = cluster_redis_port()
        script = [("MULTI",), ("SELECT", "1"), ("SWAPDB", "0", "1"), ("MOVE", "a", "1"),
                  ("COPY", "a", "{a}b", "DB", "1"), ("EXEC",)]
        with Raw(self.direct) as c, Raw(ref) as r:
            for args in script:
                with self.subTest(args=args):
                    self.assertEqual(c.call(*args), r.call(*args))

    def test_proxy_port_is_standalone(self):
        plain = standalone_redis_port()
        for args in [("CLUSTER", "INFO"), ("CLUSTER", "SLOTS"), ("CLUSTER", "KEYSLOT", "a"),
                     ("CLUSTER", "HELP"), ("CLUSTER", "NOPE"), ("CLUSTER", "KEYSLOT"),
                     ("ASKING",), ("READONLY",), ("READWRITE",)]:
            with self.subTest(args=args):
                self.assertEqual(self.cmd(*args), call(plain, *args))
        self.assertEqual(self.cmd("SELECT", "1"), b"+OK\r\n")

    def test_crossslot(self):
        self.assertEqual(self.dcall("MGET", "a", "b"),
                         b"-CROSSSLOT Keys in request don't hash to the same slot\r\n")
        self.assertEqual(self.dcall("MSET", "{t}a", "1", "{t}b", "2"), b"+OK\r\n")
        self.assertEqual(self.dcall("MGET", "{t}a", "{t}b"), b"*2\r\n$1\r\n1\r\n$1\r\n2\r\n")

    def test_help(self):
        reply = self.dcall("CLUSTER", "HELP")
        self.assertTrue(reply.startswith(
            b"*21\r\n+CLUSTER <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"))
        self.assertIn(b"+KEYSLOT <key>\r\n+    Return the hash slot for <key>.\r\n", reply)
        self.assertTrue(reply.endswith(b"+HELP\r\n+    Prints this help.\r\n"))


_REFS = {}


def _reference(name, args):
    if name not in _REFS:
        tmp = tempfile.mkdtemp(prefix="redis-cluster-ref-")
        srv = harness.Server(kind="redis", args=args(tmp))
        _REFS[name] = srv
        if name == "cluster":
            import redis
            r = redis.Redis(port=srv.port)
            r.execute_command("CLUSTER", "ADDSLOTSRANGE", "0", "16383")
            deadline = time.monotonic() + 15
            while b"cluster_state:ok" not in r.execute_command("CLUSTER", "INFO"):
                if time.monotonic() > deadline:
                    raise RuntimeError("reference redis cluster never reached cluster_state:ok")
                time.sleep(0.05)
    return _REFS[name]


def cluster_redis_port():
    return _reference("cluster", lambda tmp: ["--cluster-enabled", "yes", "--cluster-config-file",
                                              os.path.join(tmp, "nodes.conf")]).port


def cluster_redis():
    import redis
    return redis.Redis(port=cluster_redis_port())


def standalone_redis_port():
    return _reference("standalone", lambda tmp: []).port


def tearDownModule():
    for srv in _REFS.values():
        srv.stop()
    _REFS.clear()


# ---------------------------------------------------------------------------------------
# topology file, node ids
# ---------------------------------------------------------------------------------------

class TopologyFile(unittest.TestCase):
    def setUp(self):
        itest.require_ruvio()
        self.tmp = tempfile.TemporaryDirectory(prefix="ruvio-topology-")
        self.addCleanup(self.tmp.cleanup)

    def refused(self, text, base=7000):
        path = write_config(self.tmp.name, text)
        code, err = run_ruvio("--port", "6999", "--workers", "1", "--worker-base-port", str(base),
                              "--admin-port", "0", "--cluster-config", path)
        self.assertEqual(code, 2, err)
        self.assertEqual(err.count("\n"), 1, err)
        return err.strip().replace(path, "FILE")

    def test_uncovered(self):
        self.assertEqual(self.refused("node 127.0.0.1:7000 0-8191\n"),
                         "ruvio: cluster config FILE: slots 8192-16383 are not assigned to any node")

    def test_overlap(self):
        self.assertEqual(
            self.refused("node 127.0.0.1:7000 0-8191\nnode 127.0.0.1:7001 8000-16383\n"),
            "ruvio: cluster config FILE: slot 8000 is assigned to both 127.0.0.1:7000 and "
            "127.0.0.1:7001")

    def test_no_entry_for_worker(self):
        self.assertEqual(self.refused("node 127.0.0.1:7001 0-16383\n"),
                         "ruvio: cluster config FILE: lists no node for worker 0 (127.0.0.1:7000)")

    def test_syntax(self):
        self.assertEqual(self.refused("# x\nnode 127.0.0.1:7000 0-16383 x-y\n"),
                         "ruvio: cluster config FILE line 2: bad slot range 'x-y' "
                         "(want FIRST-LAST or SLOT, within 0-16383)")

    def test_missing_file(self):
        code, err = run_ruvio("--port", "6999", "--cluster-config", "/nonexistent/topology")
        self.assertEqual(code, 2)
        self.assertEqual(err, "ruvio: cannot read cluster config '/nonexistent/topology': "
                              "No such file or directory\n")

    def test_node_id_stable_across_restarts(self):
        data = os.path.join(self.tmp.name, "data")
        (p, d), _ = two_ports()
        ids = []
        for _ in range(2):
            with Node(p, d, data_dir=data) as n:
                ids.append(call(n.direct, "CLUSTER", "MYID"))
        self.assertRegex(ids[0], rb"^\$40\r\n[0-9a-f]{40}\r\n$")
        self.assertEqual(ids[0], ids[1])
        with open(os.path.join(data, "worker-0", "node-id"), "rb") as f:
            self.assertEqual(f.read().strip(), ids[0][5:45])


# ---------------------------------------------------------------------------------------
# a real two-node cluster: two Ruvio services, each owning half of the slots
# ---------------------------------------------------------------------------------------

class TwoNodeCluster(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        itest.require_ruvio()
        cls.tmp = tempfile.TemporaryDirectory(prefix="ruvio-2node-")
        (pa, da), (pb, db) = two_ports()
        cls.config = write_config(cls.tmp.name, f"""\
            # two services, one worker each
            node 127.0.0.1:{da} 0-8191
            node 127.0.0.1:{db} 8192-16383
            """)
        cls.a = Node(pa, da, args=["--cluster-config", cls.config])
        try:
            cls.b = Node(pb, db, args=["--cluster-config", cls.config])
        except Exception:
            cls.a.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.a.stop()
        cls.b.stop()
        cls.tmp.cleanup()

    def setUp(self):
        call(self.a.direct, "FLUSHALL")
        call(self.b.direct, "FLUSHALL")

    def test_topology_agrees(self):
        a_slots = call(self.a.direct, "CLUSTER", "SLOTS")
        self.assertEqual(a_slots, call(self.b.direct, "CLUSTER", "SLOTS"))
        ida = call(self.a.direct, "CLUSTER", "MYID")[5:45]
        idb = call(self.b.direct, "CLUSTER", "MYID")[5:45]
        self.assertNotEqual(ida, idb)
        self.assertEqual(
            a_slots,
            b"*2\r\n*3\r\n:0\r\n:8191\r\n*4\r\n" + bulk("127.0.0.1") + b":%d\r\n" % self.a.direct +
            bulk(ida) + b"*0\r\n*3\r\n:8192\r\n:16383\r\n*4\r\n" + bulk("127.0.0.1") +
            b":%d\r\n" % self.b.direct + bulk(idb) + b"*0\r\n")
        nodes = call(self.b.direct, "CLUSTER", "NODES").split(b"\r\n")[1].decode()
        lines = nodes.strip("\n").split("\n")
        self.assertRegex(lines[0], rf"^{ida.decode()} 127\.0\.0\.1:{self.a.direct}@"
                                   rf"{self.a.direct + 10000} master - 0 \d+ 1 connected 0-8191$")
        self.assertEqual(lines[1], f"{idb.decode()} 127.0.0.1:{self.b.direct}@"
                                   f"{self.b.direct + 10000} myself,master - 0 0 2 connected "
                                   f"8192-16383")
        info = call(self.a.direct, "CLUSTER", "INFO")
        self.assertIn(b"cluster_state:ok\r\n", info)
        self.assertIn(b"cluster_known_nodes:2\r\ncluster_size:2\r\n", info)
        self.assertIn(b"cluster_my_epoch:1\r\n", info)

    def test_moved(self):
        # foo → slot 12182 (B), bar → 5061 (A)
        self.assertEqual(call(self.a.direct, "SET", "foo", "1"),
                         b"-MOVED 12182 127.0.0.1:%d\r\n" % self.b.direct)
        self.assertEqual(call(self.b.direct, "GET", "bar"),
                         b"-MOVED 5061 127.0.0.1:%d\r\n" % self.a.direct)
        self.assertEqual(call(self.b.direct, "SET", "foo", "1"), b"+OK\r\n")
        self.assertEqual(call(self.a.direct, "MGET", "bar", "foo"),
                         b"-CROSSSLOT Keys in request don't hash to the same slot\r\n")
        self.assertEqual(call(self.a.direct, "MGET", "{foo}1", "{foo}2"),
                         b"-MOVED 12182 127.0.0.1:%d\r\n" % self.b.direct)
        self.assertEqual(call(self.a.direct, "PING"), b"+PONG\r\n")

    def test_redis_py_cluster(self):
        from redis.cluster import RedisCluster
        rc = RedisCluster(host="127.0.0.1", port=self.a.direct, socket_timeout=10)
        try:
            n = 10_000
            for i in range(n):
                rc.set(f"key:{i}", f"value:{i}")
            for i in range(0, n, 7):
                self.assertEqual(rc.get(f"key:{i}"), f"value:{i}".encode())
            keys = [f"key:{i}" for i in range(n)]
            values = rc.mget_nonatomic(keys)
            self.assertEqual(values, [f"value:{i}".encode() for i in range(n)])
            self.assertEqual(rc.mget("{t}1", "{t}2"), [None, None])
        finally:
            rc.close()
        # Both nodes hold keys, each only its own slots.
        na = int(call(self.a.direct, "DBSIZE")[1:-2])
        nb = int(call(self.b.direct, "DBSIZE")[1:-2])
        self.assertEqual(na + nb, n)
        self.assertGreater(na, 4000)
        self.assertGreater(nb, 4000)
        # Per-slot counts on the owners agree with where the keys hash.
        import redis
        with redis.Redis(port=self.a.direct) as r:
            pipe = r.pipeline(transaction=False)
            for k in keys:
                pipe.execute_command("CLUSTER", "KEYSLOT", k)
            slots = pipe.execute()
        per_slot = {}
        for s in slots:
            per_slot[s] = per_slot.get(s, 0) + 1
        for s in list(range(0, 16384, 331)):
            owner = self.a.direct if s < 8192 else self.b.direct
            self.assertEqual(call(owner, "CLUSTER", "COUNTKEYSINSLOT", str(s)),
                             b":%d\r\n" % per_slot.get(s, 0))

    def test_redis_cli_follows_redirects(self):
        def cli(port, *args):
            p = subprocess.run(["redis-cli", "-c", "-p", str(port), *args],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=20)
            return p.stdout.decode()
        self.assertEqual(cli(self.a.direct, "SET", "foo", "from-cli"), "OK\n")
        self.assertEqual(call(self.b.direct, "GET", "foo"), bulk("from-cli"))
        self.assertEqual(cli(self.a.direct, "GET", "foo"), "from-cli\n")
        # Commands from stdin on one connection: each redirect is followed and announced.
        p = subprocess.run(["redis-cli", "-c", "-p", str(self.a.direct)],
                           input=b"GET foo\nSET bar x\nGET bar\n", stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=20)
        self.assertEqual(p.stdout.decode(),
                         f"-> Redirected to slot [12182] located at 127.0.0.1:{self.b.direct}\n"
                         f"from-cli\n"
                         f"-> Redirected to slot [5061] located at 127.0.0.1:{self.a.direct}\n"
                         f"OK\nx\n")
        self.assertEqual(call(self.a.direct, "GET", "bar"), bulk("x"))

    def test_ioredis_cluster(self):
        if not os.path.isdir(os.path.join(NPM_DIR, "node_modules", "ioredis")):
            self.skipTest(f"ioredis not installed in {NPM_DIR} (deploy/ruvio.sh test installs it)")
        script = textwrap.dedent(f"""\
            const Redis = require("ioredis");
            const out = {{}};
            (async () => {{
              // A plain connection to A sees the redirect itself.
              const plain = new Redis({{ port: {self.a.direct}, host: "127.0.0.1" }});
              try {{ await plain.get("foo"); out.moved = "none"; }}
              catch (e) {{ out.moved = e.message; }}
              plain.disconnect();
              const c = new Redis.Cluster([{{ host: "127.0.0.1", port: {self.a.direct} }}]);
              const n = 10000;
              for (let base = 0; base < n; base += 500) {{
                const ops = [];
                for (let i = base; i < base + 500; i++) ops.push(c.set("key:" + i, "value:" + i));
                await Promise.all(ops);
              }}
              let bad = 0;
              for (let base = 0; base < n; base += 500) {{
                const ops = [];
                for (let i = base; i < base + 500; i++) ops.push(c.get("key:" + i));
                const got = await Promise.all(ops);
                got.forEach((v, j) => {{ if (v !== "value:" + (base + j)) bad++; }});
              }}
              out.bad = bad;
              await c.mset("{{u}}a", "1", "{{u}}b", "2");
              out.mget = await c.mget("{{u}}a", "{{u}}b", "{{u}}c");
              out.nodes = c.nodes("master").length;
              await c.quit();
              console.log(JSON.stringify(out));
            }})().catch((e) => {{ console.log(JSON.stringify({{ error: String(e) }})); process.exit(1); }});
            """)
        path = os.path.join(self.tmp.name, "ioredis_test.js")
        with open(path, "w") as f:
            f.write(script)
        p = subprocess.run(["node", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=120, env={**os.environ,
                                             "NODE_PATH": os.path.join(NPM_DIR, "node_modules")})
        self.assertEqual(p.returncode, 0, p.stdout.decode())
        out = json.loads(p.stdout.decode().strip().split("\n")[-1])
        self.assertEqual(out, {"moved": f"MOVED 12182 127.0.0.1:{self.b.direct}", "bad": 0,
                               "mget": ["1", "2", None], "nodes": 2})
        na = int(call(self.a.direct, "DBSIZE")[1:-2])
        nb = int(call(self.b.direct, "DBSIZE")[1:-2])
        self.assertEqual(na + nb, 10_002)


if __name__ == "__main__":
    unittest.main()
