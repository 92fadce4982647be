"""CLIENT KILL (old form and every filter), CLIENT REPLY ON/OFF/SKIP, CLIENT LIST / INFO
fields and filters, CLIENT HELP and the errors of each, against redis-server 7.0 and Ruvio
(1 worker, and a 2-worker proxy port where KILL reaches the clients of every worker and the
replies of forwarded commands are dropped under REPLY OFF as the local ones). CLIENT SETINFO
(Redis 7.2, which redis-py 5 and node-redis send on connect) and KILL MAXAGE (Redis 7.4) are
checked on Ruvio alone: redis-server 7.0 answers them a syntax or unknown-subcommand error."""

import re
import time
import unittest

import itest
from itest import Raw, encode

OK = b"+OK\r\n"

# redis-server 7.0.15's CLIENT LIST fields, in its order.
FIELDS_70 = ["id", "addr", "laddr", "fd", "name", "age", "idle", "flags", "db", "sub", "psub",
             "ssub", "multi", "qbuf", "qbuf-free", "argv-mem", "multi-mem", "rbs", "rbp", "obl",
             "oll", "omem", "tot-mem", "events", "cmd", "user", "redir", "resp"]


def bulk_text(reply):
    """The text of a RESP2 bulk reply."""
    head, _, rest = reply.partition(b"\r\n")
    assert head.startswith(b"$"), reply[:40]
    return rest[:int(head[1:])].decode()


def fields(line):
    return [kv.split("=", 1)[0] for kv in line.split(" ")]


def line_of(text, client_id):
    for line in text.splitlines():
        if line.startswith(f"id={client_id} "):
            return dict(kv.split("=", 1) for kv in line.split(" "))
    return None


def is_closed(conn, timeout=3.0):
    try:
        conn.read_until_closed(timeout)
        return True
    except AssertionError:
        return False


class ClientCases:
    flush = True

    def client(self):
        c = self.raw()
        cid = int(c.call("CLIENT", "ID")[1:-2])
        return c, cid

    def listing(self, *args):
        return bulk_text(self.raw_call("CLIENT", "LIST", *args))

    def test_kill_errors(self):
        for args, err in (
                (("KILL",), "ERR wrong number of arguments for 'client|kill' command"),
                (("KILL", "ID", "x"), "ERR client-id should be greater than 0"),
                (("KILL", "ID", "0"), "ERR client-id should be greater than 0"),
                (("KILL", "ID", "-5"), "ERR client-id should be greater than 0"),
                (("KILL", "USER", "bob"), "ERR No such user 'bob'"),
                (("KILL", "TYPE", "foo"), "ERR Unknown client type 'foo'"),
                (("KILL", "SKIPME", "maybe"), "ERR syntax error"),
                (("KILL", "ID", "5", "TYPE"), "ERR syntax error"),
                (("KILL", "FOO", "bar"), "ERR syntax error"),
                (("KILL", "1.2.3.4:5"), "ERR No such client"),
                (("REPLY",), "ERR wrong number of arguments for 'client|reply' command"),
                (("REPLY", "maybe"), "ERR syntax error"),
                (("REPLY", "on", "x"), "ERR wrong number of arguments for 'client|reply' command"),
                (("LIST", "TYPE", "foo"), "ERR Unknown client type 'foo'"),
                (("LIST", "ID", "x"), "ERR Invalid client ID"),
                (("LIST", "FOO"), "ERR syntax error"),
                (("SETNAME", "a b"), "ERR Client names cannot contain spaces, newlines or "
                                     "special characters.")):
            self.assertError(err, "CLIENT", *args)

    def test_kill_old_form_by_addr(self):
        victim, vid = self.client()
        addr = line_of(self.listing(), vid)["addr"]
        self.assertEqual(self.raw_call("CLIENT", "KILL", addr), OK)
        self.assertTrue(is_closed(victim))
        self.assertEqual(self.raw_call("CLIENT", "KILL", addr), b"-ERR No such client\r\n")

    def test_kill_by_id_and_type(self):
        victim, vid = self.client()
        sub, sid = self.client()
        sub.send(encode("SUBSCRIBE", "ch"))
        sub.reply()
        other, oid = self.client()
        self.assertEqual(self.raw_call("CLIENT", "KILL", "ID", str(vid)), b":1\r\n")
        self.assertTrue(is_closed(victim))
        self.assertEqual(self.raw_call("CLIENT", "KILL", "ID", str(vid)), b":0\r\n")
        self.assertEqual(self.raw_call("CLIENT", "KILL", "TYPE", "master"), b":0\r\n")
        self.assertEqual(self.raw_call("CLIENT", "KILL", "TYPE", "replica"), b":0\r\n")
        self.assertEqual(self.raw_call("CLIENT", "KILL", "TYPE", "pubsub"), b":1\r\n")
        self.assertTrue(is_closed(sub))
        self.assertEqual(other.call("PING"), b"+PONG\r\n")
        # ID and TYPE together: both must match.
        self.assertEqual(self.raw_call("CLIENT", "KILL", "ID", str(oid), "TYPE", "pubsub"),
                         b":0\r\n")
        self.assertEqual(other.call("PING"), b"+PONG\r\n")

    def test_kill_skipme_user_laddr_addr(self):
        me, my_id = self.client()
        others = [self.client()[0] for _ in range(3)]
        self.r.connection_pool.disconnect()  # the harness client would count too
        listed = bulk_text(me.call("CLIENT", "LIST"))
        me_line = line_of(listed, my_id)
        # SKIPME yes (the default): every other client, not me.
        self.assertEqual(me.call("CLIENT", "KILL", "LADDR", me_line["laddr"]),
                         b":%d\r\n" % (len(listed.splitlines()) - 1))
        for o in others:
            self.assertTrue(is_closed(o))
        more = [self.client()[0] for _ in range(2)]
        self.assertEqual(me.call("CLIENT", "KILL", "USER", "default", "SKIPME", "yes"), b":2\r\n")
        for o in more:
            self.assertTrue(is_closed(o))
        self.assertEqual(me.call("CLIENT", "KILL", "ADDR", me_line["addr"]), b":0\r\n")
        # SKIPME no: I am killed too, after the reply.
        self.assertEqual(me.call("CLIENT", "KILL", "ADDR", me_line["addr"], "SKIPME", "no"),
                         b":1\r\n")
        self.assertTrue(is_closed(me))

    def test_kill_old_form_may_kill_itself(self):
        me, my_id = self.client()
        addr = line_of(bulk_text(me.call("CLIENT", "LIST")), my_id)["addr"]
        self.assertEqual(me.call("CLIENT", "KILL", addr), OK)
        self.assertTrue(is_closed(me))

    def test_reply_off_skip_on(self):
        c = self.raw()
        a, b = self.k("a"), self.k("zz")  # through the proxy: one key per worker, likely
        c.send(encode("CLIENT", "REPLY", "OFF") + encode("SET", a, "1") + encode("SET", b, "2")
               + encode("GET", a) + encode("CLIENT", "REPLY", "SKIP") + encode("GET", b)
               + encode("CLIENT", "REPLY", "ON") + encode("GET", a))
        self.assertEqual(c.reply(), OK)  # REPLY ON's
        self.assertEqual(c.reply(), b"$1\r\n1\r\n")
        c.send(encode("CLIENT", "REPLY", "SKIP") + encode("GET", b) + encode("GET", a)
               + encode("CLIENT", "REPLY", "SKIP") + encode("INCR", a) + encode("MGET", a, b))
        self.assertEqual(c.reply(), b"$1\r\n1\r\n")
        self.assertEqual(c.reply(), b"*2\r\n$1\r\n2\r\n$1\r\n2\r\n")
        # Errors are dropped as well; the command still runs.
        c.send(encode("CLIENT", "REPLY", "OFF") + encode("INCR", a, "x") + encode("INCR", a)
               + encode("CLIENT", "REPLY", "bad") + encode("CLIENT", "REPLY", "ON"))
        self.assertEqual(c.reply(), OK)
        self.assertEqual(c.call("GET", a), b"$1\r\n3\r\n")

    def test_list_fields_and_filters(self):
        sub, sid = self.client()
        sub.send(encode("SUBSCRIBE", "ch"))
        sub.reply()
        me, my_id = self.client()
        self.assertEqual(me.call("CLIENT", "SETNAME", "lister"), OK)
        text = bulk_text(me.call("CLIENT", "LIST"))
        for line in text.splitlines():
            self.assertEqual(fields(line), FIELDS_70)
        info = bulk_text(me.call("CLIENT", "INFO"))
        self.assertTrue(info.endswith("\n"))
        self.assertEqual(fields(info.rstrip("\n")), FIELDS_70)
        mine = dict(kv.split("=", 1) for kv in info.rstrip("\n").split(" "))
        self.assertEqual((mine["id"], mine["name"], mine["flags"], mine["cmd"], mine["db"]),
                         (str(my_id), "lister", "N", "client|info", "0"))
        self.assertEqual(line_of(text, sid)["flags"], "P")
        self.assertEqual(line_of(text, sid)["sub"], "1")
        pubsub = bulk_text(me.call("CLIENT", "LIST", "TYPE", "pubsub")).splitlines()
        self.assertEqual([line_of(ln, sid) is not None for ln in pubsub], [True])
        self.assertIsNone(line_of(bulk_text(me.call("CLIENT", "LIST", "TYPE", "normal")), sid))
        self.assertEqual(bulk_text(me.call("CLIENT", "LIST", "TYPE", "master")), "")
        only = bulk_text(me.call("CLIENT", "LIST", "ID", str(sid), str(my_id), "999999999"))
        self.assertEqual(sorted(int(re.match(r"id=(\d+)", ln).group(1))
                                for ln in only.splitlines()), sorted([sid, my_id]))
        me.call("MULTI")
        self.assertEqual(me.call("CLIENT", "INFO"), b"+QUEUED\r\n")
        me.call("DISCARD")

    def test_flags_of_no_evict_and_tracking(self):
        # The flags other areas own (NO-EVICT: e, TRACKING: t, BCAST: B) and redir=, in
        # Redis 7.0's order; RESET ends tracking and keeps NO-EVICT (as 7.0 does).
        me, _ = self.client()

        def mine():
            info = bulk_text(me.call("CLIENT", "INFO")).rstrip("\n")
            d = dict(kv.split("=", 1) for kv in info.split(" "))
            return d["flags"], d["redir"]

        self.assertEqual(mine(), ("N", "-1"))
        self.assertEqual(me.call("CLIENT", "NO-EVICT", "on"), OK)
        self.assertEqual(mine(), ("e", "-1"))
        self.assertEqual(me.call("CLIENT", "TRACKING", "on", "BCAST"), OK)
        self.assertEqual(mine(), ("tBe", "0"))
        self.assertEqual(me.call("CLIENT", "TRACKING", "off"), OK)
        self.assertEqual(mine(), ("e", "-1"))
        self.assertEqual(me.call("CLIENT", "TRACKING", "on"), OK)
        self.assertEqual(mine(), ("te", "0"))
        self.assertEqual(me.call("RESET"), b"+RESET\r\n")
        self.assertEqual(mine(), ("e", "-1"))

    def test_getname_id(self):
        c, cid = self.client()
        self.assertEqual(c.call("CLIENT", "GETNAME"), b"$-1\r\n")
        self.assertEqual(c.call("CLIENT", "SETNAME", "n1"), OK)
        self.assertEqual(c.call("CLIENT", "GETNAME"), b"$2\r\nn1\r\n")
        self.assertEqual(c.call("CLIENT", "SETNAME", ""), OK)
        self.assertEqual(c.call("CLIENT", "GETNAME"), b"$-1\r\n")
        self.assertGreater(cid, 0)

    def test_help(self):
        reply = self.raw_call("CLIENT", "HELP")
        self.assertTrue(reply.startswith(b"*48\r\n+CLIENT <subcommand> [<arg> [value] [opt] ...]."
                                         b" Subcommands are:\r\n"), reply[:80])
        self.assertIn(b"+KILL <option> <value> [<option> <value> [...]]\r\n", reply)
        self.assertIn(b"+REPLY (ON|OFF|SKIP)\r\n", reply)


itest.bind(ClientCases, globals())


class RuvioOnly:
    """Redis 7.2/7.4 additions: 7.0.15 answers them errors (checked here too)."""

    def test_setinfo(self):
        c = self.raw()
        self.assertEqual(c.call("CLIENT", "SETINFO", "LIB-NAME", "redis-py"), OK)
        self.assertEqual(c.call("CLIENT", "SETINFO", "lib-ver", "5.0.1"), OK)
        self.assertEqual(c.call("CLIENT", "SETINFO", "lib-x", "1"),
                         b"-ERR Unrecognized option 'lib-x'\r\n")
        self.assertEqual(c.call("CLIENT", "SETINFO", "lib-name", "a b"),
                         b"-ERR lib-name cannot contain spaces, newlines or special "
                         b"characters.\r\n")
        self.assertEqual(c.call("CLIENT", "SETINFO", "lib-name"),
                         b"-ERR wrong number of arguments for 'client|setinfo' command\r\n")

    def test_redis_py_connects(self):
        import redis
        r = redis.Redis(host="127.0.0.1", port=self.port, lib_name="app", lib_version="1.0") \
            if "lib_name" in redis.Redis.__init__.__code__.co_varnames else \
            redis.Redis(host="127.0.0.1", port=self.port)
        self.assertTrue(r.ping())
        r.close()

    def test_kill_maxage_counts(self):
        self.r.connection_pool.disconnect()
        old = self.raw()
        old.call("PING")
        time.sleep(2.1)
        me, young = self.raw(), self.raw()
        young.call("PING")
        self.assertEqual(me.call("CLIENT", "KILL", "MAXAGE", "x"),
                         b"-ERR value is not an integer or out of range\r\n")
        self.assertEqual(me.call("CLIENT", "KILL", "MAXAGE", "100"), b":0\r\n")
        # Older than 1 second (ages count whole seconds): only `old`.
        listed = bulk_text(me.call("CLIENT", "LIST"))
        self.assertEqual(me.call("CLIENT", "KILL", "MAXAGE", "1"), b":1\r\n", listed)
        self.assertTrue(is_closed(old))
        self.assertEqual(young.call("PING"), b"+PONG\r\n")


class RedisSaysNo(itest.RedisCase):
    def test_70_lacks_setinfo_and_maxage(self):
        self.assertEqual(self.cmd("CLIENT", "SETINFO", "LIB-NAME", "x"),
                         b"-ERR unknown subcommand 'SETINFO'. Try CLIENT HELP.\r\n")
        self.assertEqual(self.cmd("CLIENT", "KILL", "MAXAGE", "5"), b"-ERR syntax error\r\n")


class RuvioExtras(RuvioOnly, itest.RuvioCase):
    pass


class RuvioProxyExtras(RuvioOnly, itest.RuvioProxyCase):
    pass


if __name__ == "__main__":
    unittest.main()
