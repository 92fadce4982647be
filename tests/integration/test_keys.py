"""Key-space commands: normal replies and Redis 7's exact errors, run against the reference
redis-server and against Ruvio with the same assertions."""

import unittest

import itest

NOT_INT = "ERR value is not an integer or out of range"
SYNTAX = "ERR syntax error"
DB_RANGE = "ERR DB index is out of range"

OBJECT_HELP = (
    b"*15\r\n+OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"
    b"+ENCODING <key>\r\n"
    b"+    Return the kind of internal representation used in order to store the value\r\n"
    b"+    associated with a <key>.\r\n"
    b"+FREQ <key>\r\n"
    b"+    Return the access frequency index of the <key>. The returned integer is\r\n"
    b"+    proportional to the logarithm of the recent access frequency of the key.\r\n"
    b"+IDLETIME <key>\r\n"
    b"+    Return the idle time of the <key>, that is the approximated number of\r\n"
    b"+    seconds elapsed since the last access to the key.\r\n"
    b"+REFCOUNT <key>\r\n"
    b"+    Return the number of references of the value associated with the specified\r\n"
    b"+    <key>.\r\n"
    b"+HELP\r\n"
    b"+    Prints this help.\r\n")


def arity(cmd):
    return f"ERR wrong number of arguments for '{cmd}' command"


class KeyCases:
    # The replies of a full SCAN of an empty database, from cursor 0.
    EMPTY_SCAN = [b"*2\r\n$1\r\n0\r\n*0\r\n"]
    def test_scan_cursor_parsing(self):
        """SCAN reads its cursor as redis-server 7.0 does (strtoul, no leading space, no
        overflow, "" is 0), on the proxy port as on a direct one."""
        invalid = b"-ERR invalid cursor\r\n"
        for cursor in ["+5", "-1", "", "0", "00", "-0", "18446744073709551615",
                       "-18446744073709551615", "000000000000000000000000000000000000001"]:
            with self.subTest(cursor=cursor):
                self.assertTrue(self.raw_call("SCAN", cursor).startswith(b"*2\r\n"))
        for cursor in [" 5", "5a", "18446744073709551616", "0x1", "+-1", "-", "+", "5 ", "\t5",
                       "1e3", "99999999999999999999999999999999999"]:
            with self.subTest(cursor=cursor):
                self.assertEqual(self.raw_call("SCAN", cursor), invalid)

    def test_del_unlink_exists(self):
        r = self.r
        r.mset({"a": 1, "b": 2, "c": 3})
        self.assertEqual(self.raw_call("EXISTS", "a", "a", "nokey", "b"), b":3\r\n")
        self.assertEqual(self.raw_call("DEL", "a", "nokey", "a"), b":1\r\n")
        self.assertEqual(self.raw_call("EXISTS", "a"), b":0\r\n")
        self.assertEqual(self.raw_call("UNLINK", "b", "c", "d"), b":2\r\n")
        self.assertEqual(r.dbsize(), 0)
        self.assertError(arity("del"), "DEL")
        self.assertError(arity("unlink"), "UNLINK")
        self.assertError(arity("exists"), "EXISTS")

    def test_type_touch(self):
        r = self.r
        r.set("s", "v")
        self.assertEqual(self.raw_call("TYPE", "s"), b"+string\r\n")
        self.assertEqual(self.raw_call("TYPE", "nokey"), b"+none\r\n")
        self.assertEqual(self.raw_call("TOUCH", "s", "nokey", "s"), b":2\r\n")
        self.assertError(arity("type"), "TYPE")
        self.assertError(arity("touch"), "TOUCH")

    def test_rename_renamenx(self):
        k = self.k
        r = self.r
        r.set(k("a"), "1", ex=100)
        self.assertEqual(self.raw_call("RENAME", k("a"), k("b")), b"+OK\r\n")
        self.assertIsNone(r.get(k("a")))
        self.assertEqual(r.get(k("b")), "1")
        self.assertEqual(r.ttl(k("b")), 100)  # the TTL moves with the key
        r.set(k("c"), "3", ex=50)
        r.rename(k("b"), k("c"))  # overwrites c, and its TTL
        self.assertEqual(r.get(k("c")), "1")
        self.assertEqual(r.ttl(k("c")), 100)
        self.assertEqual(self.raw_call("RENAME", k("c"), k("c")), b"+OK\r\n")
        self.assertEqual(r.get(k("c")), "1")
        self.assertError("ERR no such key", "RENAME", k("nokey"), k("x"))
        self.assertError("ERR no such key", "RENAMENX", k("nokey"), k("x"))
        r.set(k("d"), "4")
        self.assertEqual(self.raw_call("RENAMENX", k("c"), k("d")), b":0\r\n")
        self.assertEqual(self.raw_call("RENAMENX", k("c"), k("e")), b":1\r\n")
        self.assertEqual(self.raw_call("RENAMENX", k("e"), k("e")), b":0\r\n")
        self.assertEqual(r.mget(k("c"), k("d"), k("e")), [None, "4", "1"])
        self.assertError(arity("rename"), "RENAME", k("a"))

    def test_copy(self):
        r = self.r
        r.set("src", "v", ex=100)
        self.assertEqual(self.raw_call("COPY", "src", "dst"), b":1\r\n")
        self.assertEqual(r.get("dst"), "v")
        self.assertEqual(r.ttl("dst"), 100)
        r.set("src", "w")
        self.assertEqual(r.get("dst"), "v")  # a copy, not a reference
        self.assertEqual(self.raw_call("COPY", "src", "dst"), b":0\r\n")
        self.assertEqual(self.raw_call("COPY", "src", "dst", "REPLACE"), b":1\r\n")
        self.assertEqual(r.get("dst"), "w")
        self.assertEqual(r.ttl("dst"), -1)
        self.assertEqual(self.raw_call("COPY", "nokey", "x"), b":0\r\n")
        self.assertEqual(self.raw_call("COPY", "src", "src", "DB", "3"), b":1\r\n")
        r.execute_command("SELECT", 3)
        self.assertEqual(r.get("src"), "w")
        r.execute_command("SELECT", 0)
        self.assertError("ERR source and destination objects are the same", "COPY", "src", "src")
        self.assertError(DB_RANGE, "COPY", "src", "x", "DB", "16")
        self.assertError(NOT_INT, "COPY", "src", "x", "DB", "abc")
        self.assertError(SYNTAX, "COPY", "src", "x", "BOGUS")
        self.assertError(arity("copy"), "COPY", "src")

    def test_move_select_swapdb(self):
        r = self.r
        r.set("k", "v")
        self.assertEqual(self.raw_call("MOVE", "k", "1"), b":1\r\n")
        self.assertEqual(r.exists("k"), 0)
        self.assertEqual(self.raw_call("MOVE", "k", "1"), b":0\r\n")
        self.assertEqual(self.raw_call("SELECT", "1"), b"+OK\r\n")
        self.assertEqual(self.raw_call("GET", "k"), b"$1\r\nv\r\n")
        self.raw_call("SET", "x", "db1")
        self.assertEqual(self.raw_call("MOVE", "x", "0"), b":1\r\n")
        self.raw_call("SET", "x", "db1")
        self.assertEqual(self.raw_call("MOVE", "x", "0"), b":0\r\n")  # exists there
        self.assertError("ERR source and destination objects are the same", "MOVE", "x", "1")
        self.assertError(DB_RANGE, "MOVE", "x", "16")
        self.assertError(NOT_INT, "MOVE", "x", "abc")
        self.assertError(DB_RANGE, "SELECT", "16")
        self.assertError(DB_RANGE, "SELECT", "-1")
        self.assertError(NOT_INT, "SELECT", "abc")
        # An int64 outside int's range has getIntFromObjectOrReply's own text.
        int_range = "ERR value is out of range, value must between -2147483648 and 2147483647"
        self.assertError(int_range, "SELECT", "4294967296")
        self.assertError(int_range, "MOVE", "x", "-4294967296")
        self.assertError(int_range, "COPY", "x", "y", "DB", "4294967296")
        self.assertError(NOT_INT, "SELECT", "99999999999999999999")
        # SWAPDB: db1 has k and x; db0 has x.
        self.assertEqual(self.raw_call("SWAPDB", "0", "1"), b"+OK\r\n")
        self.assertEqual(self.raw_call("DBSIZE"), b":1\r\n")  # this connection is in db1
        self.assertEqual(r.dbsize(), 2)
        self.assertError("ERR invalid first DB index", "SWAPDB", "a", "1")
        self.assertError("ERR invalid second DB index", "SWAPDB", "0", "b")
        self.assertError(DB_RANGE, "SWAPDB", "0", "16")
        self.assertError(arity("swapdb"), "SWAPDB", "0")

    def test_flushdb_flushall(self):
        r = self.r
        r.set("a", 1)
        self.raw_call("SELECT", "2")
        self.raw_call("SET", "b", "2")
        self.assertEqual(self.raw_call("FLUSHDB"), b"+OK\r\n")
        self.assertEqual(self.raw_call("DBSIZE"), b":0\r\n")
        self.assertEqual(r.dbsize(), 1)
        self.raw_call("SET", "b", "2")
        self.assertEqual(self.raw_call("FLUSHALL"), b"+OK\r\n")
        self.assertEqual(r.dbsize(), 0)
        self.assertEqual(self.raw_call("DBSIZE"), b":0\r\n")
        self.assertEqual(self.raw_call("FLUSHALL", "ASYNC"), b"+OK\r\n")
        self.assertEqual(self.raw_call("FLUSHDB", "SYNC"), b"+OK\r\n")
        self.assertError(SYNTAX, "FLUSHALL", "BOGUS")

    def test_keys(self):
        r = self.r
        r.mset({"one": 1, "two": 2, "three": 3, "four": 4, "h?llo": 5, "hallo": 6})
        self.assertEqual(sorted(r.keys("*o*")), ["four", "h?llo", "hallo", "one", "two"])
        self.assertEqual(sorted(r.keys("t??")), ["two"])
        self.assertEqual(sorted(r.keys("[ot]*")), ["one", "three", "two"])
        self.assertEqual(sorted(r.keys("[^o]*")), ["four", "h?llo", "hallo", "three", "two"])
        self.assertEqual(sorted(r.keys("h\\?llo")), ["h?llo"])
        self.assertEqual(sorted(r.keys("*")), sorted(["one", "two", "three", "four", "h?llo",
                                                     "hallo"]))
        self.assertEqual(self.raw_call("KEYS", "nomatch*"), b"*0\r\n")
        self.assertEqual(self.raw_call("KEYS", "one"), b"*1\r\n$3\r\none\r\n")
        self.assertError(arity("keys"), "KEYS")

    def test_scan(self):
        r = self.r
        keys = {f"key:{i}" for i in range(1000)} | {f"other:{i}" for i in range(100)}
        r.mset({k: "v" for k in keys})
        seen, cursor, rounds = set(), 0, 0
        while True:
            cursor, batch = r.scan(cursor, count=50)
            seen.update(batch)
            rounds += 1
            if cursor == 0 or rounds > 10000:
                break
        self.assertEqual(seen, keys)
        matched = set(r.scan_iter(match="other:*", count=100))
        self.assertEqual(matched, {f"other:{i}" for i in range(100)})
        self.assertEqual(set(r.scan_iter(_type="string", match="key:99*")),
                         {"key:99", "key:990", "key:991", "key:992", "key:993", "key:994",
                          "key:995", "key:996", "key:997", "key:998", "key:999"})
        self.assertEqual(set(r.scan_iter(_type="list")), set())
        # An empty database: cursor 0 and no keys, in one round.
        self.raw_call("SELECT", "5")
        cursor = b"0"
        for want in self.EMPTY_SCAN:
            self.assertEqual(self.raw_call("SCAN", cursor), want)
            cursor = b"1"
        self.assertError("ERR invalid cursor", "SCAN", "abc")
        self.assertError(SYNTAX, "SCAN", "0", "COUNT", "0")
        self.assertError(NOT_INT, "SCAN", "0", "COUNT", "x")
        self.assertError(SYNTAX, "SCAN", "0", "BOGUS", "1")
        self.assertError(SYNTAX, "SCAN", "0", "MATCH")
        self.assertError(arity("scan"), "SCAN")

    def test_scan_during_writes(self):
        # Redis's guarantee: every key present for the whole scan is returned, even while
        # the table grows under it.
        r = self.r
        stable = {f"s{i}" for i in range(500)}
        r.mset({k: "v" for k in stable})
        seen, cursor, added, rounds = set(), 0, 0, 0
        while True:
            cursor, batch = r.scan(cursor, count=20)
            seen.update(batch)
            if rounds < 40:  # grows the table through several doublings, then lets it end
                r.mset({f"n{added + j}": "v" for j in range(200)})
                added += 200
            rounds += 1
            if cursor == 0 or rounds > 5000:
                break
        self.assertTrue(stable <= seen, sorted(stable - seen)[:10])

    def test_randomkey_dbsize(self):
        r = self.r
        self.assertEqual(self.raw_call("RANDOMKEY"), b"$-1\r\n")
        self.assertEqual(self.raw_call("DBSIZE"), b":0\r\n")
        r.mset({"a": 1, "b": 2, "c": 3})
        got = {r.randomkey() for _ in range(100)}
        self.assertTrue(got <= {"a", "b", "c"} and got, got)
        self.assertEqual(self.raw_call("DBSIZE"), b":3\r\n")
        self.assertError(arity("dbsize"), "DBSIZE", "x")
        self.assertError(arity("randomkey"), "RANDOMKEY", "x")

    def test_object(self):
        r = self.r
        r.set("int", 12345)
        r.set("short", "hello")
        r.set("long", "x" * 100)
        self.assertEqual(self.raw_call("OBJECT", "ENCODING", "int"), b"$3\r\nint\r\n")
        self.assertEqual(self.raw_call("OBJECT", "ENCODING", "short"), b"$6\r\nembstr\r\n")
        self.assertEqual(self.raw_call("OBJECT", "ENCODING", "long"), b"$3\r\nraw\r\n")
        self.assertEqual(self.raw_call("OBJECT", "ENCODING", "nokey"), b"$-1\r\n")
        self.assertEqual(self.raw_call("OBJECT", "REFCOUNT", "long"), b":1\r\n")
        self.assertEqual(self.raw_call("OBJECT", "REFCOUNT", "nokey"), b"$-1\r\n")
        # The LRU clock ticks in whole seconds: a tick may fall between SET and the query.
        self.assertIn(self.raw_call("OBJECT", "IDLETIME", "long"), (b":0\r\n", b":1\r\n"))
        self.assertEqual(self.raw_call("OBJECT", "IDLETIME", "nokey"), b"$-1\r\n")
        self.assertError(
            "ERR An LFU maxmemory policy is not selected, access frequency not tracked. "
            "Please note that when switching between policies at runtime LRU and LFU data "
            "will take some time to adjust.", "OBJECT", "FREQ", "long")
        self.assertEqual(self.raw_call("OBJECT", "HELP"), OBJECT_HELP)
        self.assertError("ERR unknown subcommand 'BOGUS'. Try OBJECT HELP.", "OBJECT", "BOGUS",
                         "x")
        self.assertError(arity("object|encoding"), "OBJECT", "ENCODING")

    def test_memory_usage(self):
        r = self.r
        r.set("k", "v" * 100)
        n = r.memory_usage("k")
        self.assertIsInstance(n, int)
        self.assertTrue(100 <= n < 1000, n)
        self.assertEqual(self.raw_call("MEMORY", "USAGE", "nokey"), b"$-1\r\n")
        self.assertEqual(self.raw_call("MEMORY", "USAGE", "k", "SAMPLES", "0")[:1], b":")
        self.assertError(SYNTAX, "MEMORY", "USAGE", "k", "BOGUS")


class RedisReference(KeyCases, itest.RedisCase):
    pass


class Ruvio(KeyCases, itest.RuvioCase):
    pass


class RuvioProxy(KeyCases, itest.RuvioProxyCase):
    # The proxy's cursor names the worker being scanned: worker 0's part of an empty
    # database ends with cursor 1 (worker 1, position 0), and only worker 1's part ends
    # with 0. Still a valid full iteration (SCAN promises no number of rounds).
    EMPTY_SCAN = [b"*2\r\n$1\r\n1\r\n*0\r\n", b"*2\r\n$1\r\n0\r\n*0\r\n"]

    def test_rename_renamenx(self):
        # a (slot 15495, worker 1) and b (slot 3300, worker 0): a RENAME across owners is
        # refused as a Redis Cluster node refuses keys of two slots, and nothing changes.
        self.assertEqual((itest.owner("a"), itest.owner("b")), (1, 0))
        self.r.set("a", "1")
        self.assertError(self.CROSSSLOT, "RENAME", "a", "b")
        self.assertError(self.CROSSSLOT, "RENAMENX", "a", "b")
        self.assertError(self.CROSSSLOT, "RENAME", "nokey", "b")  # before "no such key"
        self.assertEqual(self.r.mget("a", "b"), ["1", None])
        self.r.flushall()
        # The whole test again with every key on one owner (worker 1): same replies.
        self.key_prefix = "{a}"
        super().test_rename_renamenx()

    def test_copy(self):
        # COPY across owners: CROSSSLOT (a is worker 1's, b worker 0's).
        self.r.set("a", "1")
        self.assertError(self.CROSSSLOT, "COPY", "a", "b")
        self.assertError(self.CROSSSLOT, "COPY", "a", "b", "DB", "1", "REPLACE")
        self.assertIsNone(self.r.get("b"))
        self.r.flushall()
        super().test_copy()


if __name__ == "__main__":
    unittest.main()
