"""Server commands: INFO sections and field names, COMMAND (COUNT/INFO/DOCS/GETKEYS), CONFIG
GET/SET, TIME, DBSIZE, SHUTDOWN, unknown commands and arity errors. Same assertions against
the reference redis-server and against Ruvio."""

import re
import time
import unittest

import itest

# Fields each INFO section must have (Redis's names; Redis has more).
INFO_FIELDS = {
    "server": ["redis_version", "redis_mode", "os", "arch_bits", "process_id", "run_id",
               "tcp_port", "uptime_in_seconds", "uptime_in_days", "hz", "executable",
               "config_file"],
    "clients": ["connected_clients", "blocked_clients", "maxclients"],
    "memory": ["used_memory", "used_memory_human", "used_memory_rss", "used_memory_rss_human",
               "used_memory_peak", "used_memory_peak_human", "maxmemory", "maxmemory_human",
               "maxmemory_policy", "mem_fragmentation_ratio", "mem_allocator"],
    "stats": ["total_connections_received", "total_commands_processed",
              "instantaneous_ops_per_sec", "rejected_connections", "expired_keys",
              "evicted_keys", "keyspace_hits", "keyspace_misses"],
    "cpu": ["used_cpu_sys", "used_cpu_user", "used_cpu_sys_children", "used_cpu_user_children"],
}
SECTION_TITLES = {"server": "Server", "clients": "Clients", "memory": "Memory",
                  "stats": "Stats", "cpu": "CPU", "keyspace": "Keyspace"}

GET_INFO = (
    b"*1\r\n*10\r\n$3\r\nget\r\n:2\r\n*2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n"
    b"*3\r\n+@read\r\n+@string\r\n+@fast\r\n*0\r\n*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RO\r\n"
    b"+access\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n"
    b"*2\r\n$5\r\nindex\r\n:1\r\n$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n"
    b"$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n"
    b"*0\r\n")

SET_INFO = (
    b"*10\r\n$3\r\nset\r\n:-3\r\n*2\r\n+write\r\n+denyoom\r\n:1\r\n:1\r\n:1\r\n*3\r\n+@write\r\n"
    b"+@string\r\n+@slow\r\n*0\r\n*1\r\n*8\r\n$5\r\nnotes\r\n$48\r\nRW and ACCESS due to the "
    b"optional `GET` argument\r\n$5\r\nflags\r\n*4\r\n+RW\r\n+access\r\n+update\r\n"
    b"+variable_flags\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\n"
    b"spec\r\n*2\r\n$5\r\nindex\r\n:1\r\n$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n"
    b"$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n"
    b"*0\r\n")

GET_DOCS = (
    b"*2\r\n$3\r\nget\r\n*10\r\n$7\r\nsummary\r\n$22\r\nGet the value of a key\r\n$5\r\nsince\r\n"
    b"$5\r\n1.0.0\r\n$5\r\ngroup\r\n$6\r\nstring\r\n$10\r\ncomplexity\r\n$4\r\nO(1)\r\n"
    b"$9\r\narguments\r\n*1\r\n*6\r\n$4\r\nname\r\n$3\r\nkey\r\n$4\r\ntype\r\n$3\r\nkey\r\n"
    b"$14\r\nkey_spec_index\r\n:0\r\n")


def info_sections(text):
    """{section title: {field: value}} from INFO's text."""
    out, cur = {}, None
    for line in text.split("\r\n"):
        if line.startswith("# "):
            cur = out.setdefault(line[2:], {})
        elif line and cur is not None:
            k, _, v = line.partition(":")
            cur[k] = v
    return out


def bulk(reply):
    head, _, rest = reply.partition(b"\r\n")
    assert head[:1] in (b"$", b"="), reply[:100]
    return rest[:int(head[1:])].decode()


class ServerCases:
    def test_info_sections(self):
        for section, fields in INFO_FIELDS.items():
            with self.subTest(section=section):
                text = bulk(self.raw_call("INFO", section))
                title = SECTION_TITLES[section]
                self.assertTrue(text.startswith(f"# {title}\r\n"), text[:80])
                self.assertTrue(text.endswith("\r\n"))
                parsed = info_sections(text)
                self.assertEqual(list(parsed), [title])
                for f in fields:
                    self.assertIn(f, parsed[title], f"INFO {section}: no {f}")
        server = info_sections(bulk(self.raw_call("INFO", "server")))["Server"]
        self.assertEqual(server["tcp_port"], str(self.port))
        self.assertRegex(server["redis_version"], r"^\d+\.\d+\.\d+$")
        mem = info_sections(bulk(self.raw_call("INFO", "memory")))["Memory"]
        self.assertEqual(mem["maxmemory"], "0")
        self.assertEqual(mem["maxmemory_policy"], "noeviction")
        self.assertGreater(int(mem["used_memory"]), 0)
        self.assertGreater(int(mem["used_memory_rss"]), 0)
        self.assertEqual(self.raw_call("INFO", "nosuchsection"), b"$0\r\n\r\n")

    def test_info_default_and_all(self):
        for args in [(), ("default",), ("all",), ("everything",)]:
            sections = info_sections(bulk(self.raw_call("INFO", *args)))
            for title in SECTION_TITLES.values():
                self.assertIn(title, sections, args)
        both = info_sections(bulk(self.raw_call("INFO", "clients", "cpu")))
        self.assertEqual(sorted(both), ["CPU", "Clients"])

    def test_info_keyspace_and_stats(self):
        r = self.r
        self.assertEqual(self.raw_call("INFO", "keyspace"), b"$12\r\n# Keyspace\r\n\r\n")
        r.mset({"a": 1, "b": 2, "c": 3})
        r.expire("a", 100)
        r.execute_command("SELECT", 2)
        r.set("x", 1)
        r.execute_command("SELECT", 0)
        ks = info_sections(bulk(self.raw_call("INFO", "keyspace")))["Keyspace"]
        self.assertEqual(sorted(ks), ["db0", "db2"])
        self.assertRegex(ks["db0"], r"^keys=3,expires=1,avg_ttl=\d+$")
        self.assertRegex(ks["db2"], r"^keys=1,expires=0,avg_ttl=0$")
        st0 = r.info("stats")
        r.get("a")
        r.get("nokey")
        st1 = r.info("stats")
        self.assertEqual(st1["keyspace_hits"] - st0["keyspace_hits"], 1)
        self.assertEqual(st1["keyspace_misses"] - st0["keyspace_misses"], 1)
        self.assertGreaterEqual(st1["total_commands_processed"] - st0["total_commands_processed"],
                                3)
        c0 = r.info("clients")["connected_clients"]
        extra = [self.raw() for _ in range(3)]
        for c in extra:
            c.call("PING")
        self.assertEqual(r.info("clients")["connected_clients"], c0 + 3)

    def test_command(self):
        r = self.r
        m = re.match(rb"^:(\d+)\r\n\Z", self.raw_call("COMMAND", "COUNT"))
        self.assertTrue(m)
        self.assertGreater(int(m.group(1)), 50)
        self.assertEqual(self.raw_call("COMMAND", "INFO", "get"), GET_INFO)
        self.assertEqual(self.raw_call("COMMAND", "INFO", "GET"), GET_INFO)
        self.assertEqual(self.raw_call("COMMAND", "INFO", "set", "nosuch"),
                         b"*2\r\n" + SET_INFO + b"$-1\r\n")
        self.assertEqual(self.raw_call("COMMAND", "DOCS", "get"), GET_DOCS)
        self.assertEqual(self.raw_call("COMMAND", "DOCS", "nosuch"), b"*0\r\n")
        names = set(r.command())  # redis-py parses it into {name: info}
        self.assertEqual(len(names), int(m.group(1)))
        for name in ["get", "set", "incr", "expire", "scan", "client", "hello", "info"]:
            self.assertIn(name, names)
        self.assertEqual(self.raw_call("COMMAND", "GETKEYS", "SET", "k", "v"),
                         b"*1\r\n$1\r\nk\r\n")
        self.assertEqual(self.raw_call("COMMAND", "GETKEYS", "MSET", "a", "1", "b", "2"),
                         b"*2\r\n$1\r\na\r\n$1\r\nb\r\n")
        self.assertEqual(self.raw_call("COMMAND", "GETKEYS", "COPY", "a", "b", "DB", "1"),
                         b"*2\r\n$1\r\na\r\n$1\r\nb\r\n")
        self.assertError("ERR Invalid number of arguments specified for command",
                         "COMMAND", "GETKEYS", "GET", "a", "b")
        self.assertError("ERR The command has no key arguments", "COMMAND", "GETKEYS", "PING",
                         "x")
        self.assertError("ERR Invalid command specified", "COMMAND", "GETKEYS", "FOO", "x")
        # Key specs as redis-server walks them: NOT_KEY specs are no keys, a subcommand's spec
        # counts from the container's name, a step-2 range takes a dangling key, and "no key
        # arguments" comes before the arity check.
        self.assertError("ERR The command has no key arguments", "COMMAND", "GETKEYS",
                         "SPUBLISH", "ch", "m")
        self.assertError("ERR The command has no key arguments", "COMMAND", "GETKEYS", "TIME",
                         "x")
        self.assertError("ERR The command has no key arguments", "COMMAND", "GETKEYS",
                         "OBJECT", "HELP")
        self.assertEqual(self.raw_call("COMMAND", "GETKEYS", "OBJECT", "ENCODING", "k"),
                         b"*1\r\n$1\r\nk\r\n")
        self.assertEqual(self.raw_call("COMMAND", "GETKEYS", "MSET", "a", "1", "b"),
                         b"*2\r\n$1\r\na\r\n$1\r\nb\r\n")
        self.assertEqual(self.raw_call("COMMAND", "GETKEYS", "LCS", "a", "b", "LEN"),
                         b"*2\r\n$1\r\na\r\n$1\r\nb\r\n")
        self.assertError("ERR wrong number of arguments for 'command|getkeys' command",
                         "COMMAND", "GETKEYS", "GET")
        self.assertError("ERR wrong number of arguments for 'command|count' command",
                         "COMMAND", "COUNT", "x")
        self.assertError("ERR unknown subcommand 'BOGUS'. Try COMMAND HELP.", "COMMAND", "BOGUS")

    # Commands whose COMMAND INFO / COMMAND DOCS legitimately differ from redis-server's,
    # each with its reason (name -> reason). Their subcommands are still compared one by one.
    _MISSING_SUBS = "Ruvio implements only some of its subcommands"
    _SUB_ORDER = ("same subcommands, listed in table order; Redis lists them in its dict's "
                  "hash order")
    COMMAND_INFO_EXCEPTIONS = {
        "client": _MISSING_SUBS,
        "cluster": _MISSING_SUBS,
        "command": _SUB_ORDER,
        "config": _SUB_ORDER, "memory": _SUB_ORDER, "object": _SUB_ORDER, "pubsub": _SUB_ORDER,
        "xgroup": _SUB_ORDER, "xinfo": _SUB_ORDER,
        "script": _SUB_ORDER, "function": _SUB_ORDER, "acl": _SUB_ORDER,
        "slowlog": _SUB_ORDER, "latency": _SUB_ORDER,
    }
    COMMAND_DOCS_EXCEPTIONS = COMMAND_INFO_EXCEPTIONS

    def test_command_info_docs_match_redis(self):
        """COMMAND INFO and COMMAND DOCS of every command this server declares (and
        Redis has) are byte for byte redis-server's, subcommands included, over RESP2 and
        RESP3 (maps, sets and simple strings where Redis sends them)."""
        if self.kind == "redis":
            self.skipTest("compares against redis-server itself")
        ref = itest.start("redis")
        self.addCleanup(ref.stop)
        names = re.findall(rb"\$\d+\r\n([^\r]+)\r\n", self.raw_call("COMMAND", "LIST"))
        self.assertGreater(len(names), 50)
        for resp in (2, 3):
            rc, mine = itest.Raw(ref.port), self.raw()
            self.addCleanup(rc.close)
            if resp == 3:
                rc.call("HELLO", "3")
                mine.call("HELLO", "3")
            compared = 0
            for name in sorted(n.decode() for n in names):
                if rc.call("COMMAND", "INFO", name) in (b"*1\r\n$-1\r\n", b"*1\r\n_\r\n"):
                    continue  # not a Redis command
                compared += 1
                if name not in self.COMMAND_INFO_EXCEPTIONS:
                    with self.subTest(command=name, what="INFO", resp=resp):
                        self.assertEqual(mine.call("COMMAND", "INFO", name),
                                         rc.call("COMMAND", "INFO", name))
                if name not in self.COMMAND_DOCS_EXCEPTIONS:
                    with self.subTest(command=name, what="DOCS", resp=resp):
                        self.assertEqual(mine.call("COMMAND", "DOCS", name),
                                         rc.call("COMMAND", "DOCS", name))
            self.assertGreater(compared, 50)

    def test_config(self):
        r = self.r
        self.assertEqual(self.raw_call("CONFIG", "GET", "maxmemory"),
                         b"*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n")
        self.assertEqual(self.raw_call("CONFIG", "GET", "databases"),
                         b"*2\r\n$9\r\ndatabases\r\n$2\r\n16\r\n")
        self.assertEqual(self.raw_call("CONFIG", "GET", "maxmemory-policy"),
                         b"*2\r\n$16\r\nmaxmemory-policy\r\n$10\r\nnoeviction\r\n")
        self.assertEqual(self.raw_call("CONFIG", "GET", "nosuch"), b"*0\r\n")
        got = r.config_get("maxmemory*")
        self.assertEqual(got["maxmemory"], "0")
        self.assertEqual(got["maxmemory-policy"], "noeviction")
        try:
            self.assertEqual(self.raw_call("CONFIG", "SET", "maxmemory", "100mb"), b"+OK\r\n")
            self.assertEqual(self.raw_call("CONFIG", "GET", "maxmemory"),
                             b"*2\r\n$9\r\nmaxmemory\r\n$9\r\n104857600\r\n")
            self.assertEqual(self.raw_call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru"),
                             b"+OK\r\n")
            self.assertEqual(r.config_get("maxmemory-policy"),
                             {"maxmemory-policy": "allkeys-lru"})
        finally:
            r.config_set("maxmemory", 0)
            r.config_set("maxmemory-policy", "noeviction")
        self.assertError("ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'",
                         "CONFIG", "SET", "nosuch", "1")
        self.assertError("ERR CONFIG SET failed (possibly related to argument 'maxmemory') - "
                         "argument must be a memory value", "CONFIG", "SET", "maxmemory", "abc")
        self.assertError("ERR CONFIG SET failed (possibly related to argument "
                         "'maxmemory-policy') - argument(s) must be one of the following: "
                         "volatile-lru, volatile-lfu, volatile-random, volatile-ttl, "
                         "allkeys-lru, allkeys-lfu, allkeys-random, noeviction",
                         "CONFIG", "SET", "maxmemory-policy", "bogus")
        self.assertError("ERR CONFIG SET failed (possibly related to argument 'databases') - "
                         "can't set immutable config", "CONFIG", "SET", "databases", "4")
        self.assertError("ERR wrong number of arguments for 'config|get' command",
                         "CONFIG", "GET")
        self.assertError("ERR wrong number of arguments for 'config|set' command",
                         "CONFIG", "SET", "maxmemory")
        self.assertError("ERR unknown subcommand 'BOGUS'. Try CONFIG HELP.", "CONFIG", "BOGUS")
        self.assertEqual(r.config_get("maxmemory"), {"maxmemory": "0"})

    def test_lazyfree(self):
        r = self.r
        names = ["lazyfree-lazy-eviction", "lazyfree-lazy-expire", "lazyfree-lazy-server-del",
                 "lazyfree-lazy-user-del", "lazyfree-lazy-user-flush"]
        self.assertEqual(r.config_get("lazyfree-lazy-*"), {n: "no" for n in names})
        try:
            for n in names:
                self.assertEqual(self.raw_call("CONFIG", "SET", n, "YES"), b"+OK\r\n")
                self.assertEqual(r.config_get(n), {n: "yes"})
            r.mset({f"lz:{i}": "v" * (i % 90) for i in range(200)})
            self.assertEqual(r.delete("lz:0", "lz:1", "nosuch"), 2)
            self.assertEqual(r.unlink("lz:2", "lz:3"), 2)
            self.assertEqual(self.raw_call("FLUSHALL"), b"+OK\r\n")  # lazy-user-flush: async
            self.assertEqual(r.dbsize(), 0)
            r.mset({f"lz:{i}": "v" for i in range(200)})
            self.assertEqual(self.raw_call("FLUSHDB", "ASYNC"), b"+OK\r\n")
            self.assertEqual(r.dbsize(), 0)
            deadline = time.monotonic() + 5
            while r.info("memory")["lazyfree_pending_objects"] != 0:
                self.assertLess(time.monotonic(), deadline, "lazy free queue never drained")
                time.sleep(0.05)
            self.assertGreaterEqual(r.info("memory")["lazyfreed_objects"], 200)
        finally:
            for n in names:
                r.config_set(n, "no")
        self.assertError("ERR CONFIG SET failed (possibly related to argument "
                         "'lazyfree-lazy-expire') - argument must be 'yes' or 'no'",
                         "CONFIG", "SET", "lazyfree-lazy-expire", "maybe")
        self.assertEqual(r.config_get("lazyfree-lazy-*"), {n: "no" for n in names})

    def test_time_dbsize(self):
        reply = self.raw_call("TIME")
        m = re.match(rb"^\*2\r\n\$\d+\r\n(\d+)\r\n\$\d+\r\n(\d+)\r\n\Z", reply)
        self.assertTrue(m, reply)
        secs, usecs = int(m.group(1)), int(m.group(2))
        self.assertLess(abs(secs + usecs / 1e6 - time.time()), 2)
        self.assertLess(usecs, 1000000)
        self.assertError("ERR wrong number of arguments for 'time' command", "TIME", "x")
        self.assertEqual(self.raw_call("DBSIZE"), b":0\r\n")
        self.r.mset({f"k{i}": i for i in range(100)})
        self.assertEqual(self.raw_call("DBSIZE"), b":100\r\n")
        self.assertEqual(self.cli("DBSIZE"), "100\n")

    def test_unknown_and_arity(self):
        self.assertError("ERR unknown command 'foo', with args beginning with: 'a' 'b' ",
                         "foo", "a", "b")
        self.assertError("ERR unknown command 'foo', with args beginning with: ", "foo")
        self.assertError("ERR unknown command 'FOO', with args beginning with: 'x' ", "FOO",
                         "x")
        for cmd, args in [("get", ()), ("set", ("k",)), ("incr", ()), ("expire", ("k",)),
                          ("ttl", ()), ("exists", ()), ("echo", ()), ("select", ()),
                          ("lcs", ("a",)), ("getrange", ("k", "0"))]:
            self.assertError(f"ERR wrong number of arguments for '{cmd}' command", cmd, *args)
        self.assertError("ERR wrong number of arguments for 'get' command", "GET", "a", "b")
        self.assertEqual(self.cli("foo", "a", "b"),
                         "ERR unknown command 'foo', with args beginning with: 'a' 'b' \n\n")

    def test_pipeline(self):
        c = self.raw()
        c.send(b"".join(itest.encode("SET", f"p{i}", i) for i in range(1000)) +
               b"".join(itest.encode("GET", f"p{i}") for i in range(1000)))
        for i in range(1000):
            self.assertEqual(c.reply(), b"+OK\r\n")
        for i in range(1000):
            v = str(i).encode()
            self.assertEqual(c.reply(), b"$%d\r\n%s\r\n" % (len(v), v))


class ShutdownCases:
    """SHUTDOWN stops the whole server: no reply, the connection closes, exit code 0."""

    @classmethod
    def setUpClass(cls):
        pass

    @classmethod
    def tearDownClass(cls):
        pass

    def setUp(self):
        pass

    def tearDown(self):
        pass

    def test_shutdown(self):
        srv = itest.start(self.kind)
        self.addCleanup(srv.stop)
        c = itest.Raw(srv.port)
        self.addCleanup(c.close)
        self.assertEqual(c.call("SHUTDOWN", "BOGUS"), b"-ERR syntax error\r\n")
        c.send(itest.encode("SHUTDOWN"))
        self.assertEqual(c.read_until_closed(timeout=10), b"")
        srv.proc.wait(10)
        self.assertEqual(srv.proc.returncode, 0)


class RedisReference(ServerCases, itest.RedisCase):
    pass


class Ruvio(ServerCases, itest.RuvioCase):
    pass


class RedisReferenceShutdown(ShutdownCases, itest.RedisCase):
    pass


class RuvioShutdown(ShutdownCases, itest.RuvioCase):
    pass


class RuvioProxy(ServerCases, itest.RuvioProxyCase):
    pass


class RuvioProxyShutdown(ShutdownCases, itest.RuvioProxyCase):
    pass


if __name__ == "__main__":
    unittest.main()
