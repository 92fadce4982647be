"""Pub/sub: (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE confirmations, message / pmessage / smessage
delivery bytes, PUBLISH receiver counts, the RESP2 subscribed-mode rule, RESP3 pushes and
PUBSUB introspection. The mixin runs against redis-server, Ruvio and a 2-worker Ruvio
through its proxy port; ProxyPubSub then places subscribers on connections accepted by
each worker and checks delivery, counts and the merged PUBSUB replies across workers."""

import socket
import unittest

import itest


def sub(kind, channel, count, push=b"*"):
    """A (un)subscribe confirmation: [kind, channel, count] (channel None → nil)."""
    if channel is None:
        ch = b"$-1\r\n" if push == b"*" else b"_\r\n"
    else:
        ch = b"$%d\r\n%s\r\n" % (len(channel), channel.encode())
    return push + b"3\r\n$%d\r\n%s\r\n%s:%d\r\n" % (len(kind), kind.encode(), ch, count)


def bulk(s):
    s = s.encode() if isinstance(s, str) else s
    return b"$%d\r\n%s\r\n" % (len(s), s)


def message(channel, data, push=b"*"):
    return push + b"3\r\n" + bulk("message") + bulk(channel) + bulk(data)


def pmessage(pattern, channel, data, push=b"*"):
    return push + b"4\r\n" + bulk("pmessage") + bulk(pattern) + bulk(channel) + bulk(data)


def smessage(channel, data, push=b"*"):
    return push + b"3\r\n" + bulk("smessage") + bulk(channel) + bulk(data)


def bulk_array(items):
    return b"*%d\r\n" % len(items) + b"".join(bulk(i) for i in items)


def numsub(pairs):
    return b"*%d\r\n" % (2 * len(pairs)) + b"".join(bulk(c) + b":%d\r\n" % n for c, n in pairs)


def parse_bulk_array(reply):
    """The elements of a flat RESP2 array of bulk strings."""
    lines = reply.split(b"\r\n")
    assert lines[0][:1] == b"*", reply
    n = int(lines[0][1:])
    return [lines[2 + 2 * i].decode() for i in range(n)]


SUBSCRIBED_ONLY = ("ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / "
                   "QUIT / RESET are allowed in this context")


def nothing_pending(testcase, c, wait=0.15):
    """Asserts no further bytes arrive on c within `wait` seconds."""
    c.sock.settimeout(wait)
    try:
        data = c.sock.recv(65536)
    except socket.timeout:
        data = b""
    finally:
        c.sock.settimeout(itest.SOCKET_TIMEOUT)
    testcase.assertEqual(c.buf + data, b"", "unexpected extra bytes")


class PubSubCases:
    def spread_raw(self):
        """Two raw connections; on the 2-worker proxy one accepted by each worker, so the
        merged PUBSUB replies are always checked across workers."""
        if getattr(self, "workers", 1) == 1:
            return self.raw(), self.raw()
        got = {}
        for _ in range(100):
            c = self.raw()
            got.setdefault(int(c.call("CLIENT", "ID")[1:-2]) % 2, c)
            if len(got) == 2:
                return got[0], got[1]
        self.fail("connections did not land on both workers")

    def test_subscribe_confirmations_count(self):
        a = self.raw()
        self.assertEqual(a.call("SUBSCRIBE", "c1", "c2"), sub("subscribe", "c1", 1))
        self.assertEqual(a.reply(), sub("subscribe", "c2", 2))
        # Subscribing again to a channel confirms it without counting it twice.
        self.assertEqual(a.call("SUBSCRIBE", "c1"), sub("subscribe", "c1", 2))
        # Patterns count with channels; shard channels have their own count.
        self.assertEqual(a.call("PSUBSCRIBE", "p*"), sub("psubscribe", "p*", 3))
        self.assertEqual(a.call("PSUBSCRIBE", "p*"), sub("psubscribe", "p*", 3))
        self.assertEqual(a.call("SSUBSCRIBE", "s1"), sub("ssubscribe", "s1", 1))
        self.assertEqual(a.call("UNSUBSCRIBE", "c1"), sub("unsubscribe", "c1", 2))
        # Unsubscribing from a channel never subscribed still confirms, count unchanged.
        self.assertEqual(a.call("UNSUBSCRIBE", "nope"), sub("unsubscribe", "nope", 2))
        self.assertEqual(a.call("PUNSUBSCRIBE", "zz"), sub("punsubscribe", "zz", 2))
        self.assertEqual(a.call("PUNSUBSCRIBE", "p*"), sub("punsubscribe", "p*", 1))
        self.assertEqual(a.call("SUNSUBSCRIBE", "s1"), sub("sunsubscribe", "s1", 0))
        self.assertEqual(a.call("UNSUBSCRIBE", "c2"), sub("unsubscribe", "c2", 0))
        # Count 0: out of subscribed mode, ordinary commands work again.
        self.assertEqual(a.call("GET", "k"), b"$-1\r\n")

    def test_unsubscribe_all_without_arguments(self):
        a = self.raw()
        a.call("SUBSCRIBE", "c1", "c2")
        a.reply()
        a.call("PSUBSCRIBE", "x*", "y*")
        a.reply()
        # The order of an unsubscribe-all is the server's dict order: either channel first.
        first = a.call("UNSUBSCRIBE")
        second = a.reply()
        self.assertIn(first, (sub("unsubscribe", "c1", 3), sub("unsubscribe", "c2", 3)))
        self.assertIn(second, (sub("unsubscribe", "c1", 2), sub("unsubscribe", "c2", 2)))
        self.assertNotEqual(first[:-4], second[:-4])
        first = a.call("PUNSUBSCRIBE")
        second = a.reply()
        self.assertIn(first, (sub("punsubscribe", "x*", 1), sub("punsubscribe", "y*", 1)))
        self.assertIn(second, (sub("punsubscribe", "x*", 0), sub("punsubscribe", "y*", 0)))
        self.assertNotEqual(first[-8:], second[-8:])
        self.assertEqual(a.call("GET", "k"), b"$-1\r\n")

    def test_unsubscribe_with_none_subscribed(self):
        a = self.raw()
        self.assertEqual(a.call("UNSUBSCRIBE"), sub("unsubscribe", None, 0))
        self.assertEqual(a.call("PUNSUBSCRIBE"), sub("punsubscribe", None, 0))
        self.assertEqual(a.call("SUNSUBSCRIBE"), sub("sunsubscribe", None, 0))
        self.assertEqual(a.call("PUNSUBSCRIBE", "a", "b"), sub("punsubscribe", "a", 0))
        self.assertEqual(a.reply(), sub("punsubscribe", "b", 0))
        # Never entered subscribed mode.
        self.assertEqual(a.call("GET", "k"), b"$-1\r\n")
        nothing_pending(self, a)

    def test_publish_delivery_and_counts(self):
        a, b, p = self.raw(), self.raw(), self.raw()
        self.assertEqual(p.call("PUBLISH", "news", "nobody"), b":0\r\n")
        self.assertEqual(a.call("SUBSCRIBE", "news"), sub("subscribe", "news", 1))
        self.assertEqual(b.call("PSUBSCRIBE", "n*"), sub("psubscribe", "n*", 1))
        self.assertEqual(p.call("PUBLISH", "news", "hello"), b":2\r\n")
        self.assertEqual(a.reply(), message("news", "hello"))
        self.assertEqual(b.reply(), pmessage("n*", "news", "hello"))
        # One client matching as channel and as pattern gets both, and counts twice.
        self.assertEqual(a.call("PSUBSCRIBE", "*s"), sub("psubscribe", "*s", 2))
        self.assertEqual(p.call("PUBLISH", "news", "x"), b":3\r\n")
        self.assertEqual(a.reply(), message("news", "x"))
        self.assertEqual(a.reply(), pmessage("*s", "news", "x"))
        self.assertEqual(b.reply(), pmessage("n*", "news", "x"))
        # Binary payload and an empty payload, byte for byte.
        payload = bytes(range(256))
        self.assertEqual(p.call("PUBLISH", "nope", payload), b":1\r\n")  # only n*
        self.assertEqual(b.reply(), pmessage("n*", "nope", payload))
        self.assertEqual(p.call("PUBLISH", "other", ""), b":0\r\n")
        nothing_pending(self, a)
        nothing_pending(self, b)
        self.assertEqual(p.call("PUBLISH", "c"),
                         b"-ERR wrong number of arguments for 'publish' command\r\n")

    def test_ssubscribe_spublish(self):
        a, p = self.raw(), self.raw()
        self.assertEqual(p.call("SPUBLISH", "s1", "x"), b":0\r\n")
        self.assertEqual(a.call("SSUBSCRIBE", "s1"), sub("ssubscribe", "s1", 1))
        self.assertEqual(a.call("SSUBSCRIBE", "s1"), sub("ssubscribe", "s1", 1))
        self.assertEqual(p.call("SPUBLISH", "s1", "hi"), b":1\r\n")
        self.assertEqual(a.reply(), smessage("s1", "hi"))
        # A PUBLISH to the same name is another namespace: not delivered.
        self.assertEqual(p.call("PUBLISH", "s1", "plain"), b":0\r\n")
        nothing_pending(self, a)
        self.assertEqual(a.call("GET", "k"), b"-" + (SUBSCRIBED_ONLY % "get").encode() + b"\r\n")
        self.assertEqual(a.call("SUNSUBSCRIBE"), sub("sunsubscribe", "s1", 0))
        self.assertEqual(a.call("GET", "k"), b"$-1\r\n")

    def test_resp2_subscribed_mode_rule(self):
        a = self.raw()
        a.call("SUBSCRIBE", "c")
        # The error names the full command: container|subcommand for subcommands.
        for name, cmd in (("get", ("GET", "k")), ("set", ("SET", "k", "v")),
                          ("publish", ("PUBLISH", "c", "m")), ("multi", ("MULTI",)),
                          ("pubsub|numsub", ("PUBSUB", "NUMSUB")), ("dbsize", ("DBSIZE",)),
                          ("client|id", ("CLIENT", "ID"))):
            self.assertEqual(a.call(*cmd), b"-" + (SUBSCRIBED_ONLY % name).encode() + b"\r\n")
        # The rejected SET did nothing.
        self.assertEqual(self.cmd("EXISTS", "k"), b":0\r\n")
        # PING in subscribed mode replies as a pubsub-style array.
        self.assertEqual(a.call("PING"), b"*2\r\n$4\r\npong\r\n$0\r\n\r\n")
        self.assertEqual(a.call("PING", "hi"), b"*2\r\n$4\r\npong\r\n$2\r\nhi\r\n")
        self.assertEqual(a.call("QUIT"), b"+OK\r\n")
        self.assertEqual(a.read_until_closed(), b"")

    def test_resp2_subscribed_mode_exec(self):
        # Redis rejects EXEC (like any other command) in subscribed mode, but an EXEC that
        # is refused always answers in the EXECABORT form.
        a = self.raw()
        a.call("SUBSCRIBE", "c")
        self.assertEqual(a.call("EXEC"), b"-EXECABORT Transaction discarded because of: "
                         + (SUBSCRIBED_ONLY % "exec")[4:].encode() + b"\r\n")

    def test_reset_leaves_subscribed_mode(self):
        a, p = self.raw(), self.raw()
        a.call("SUBSCRIBE", "c1")
        a.call("PSUBSCRIBE", "c*")
        a.call("SSUBSCRIBE", "s")
        self.assertEqual(a.call("RESET"), b"+RESET\r\n")
        self.assertEqual(a.call("GET", "k"), b"$-1\r\n")
        self.assertEqual(p.call("PUBLISH", "c1", "m"), b":0\r\n")
        self.assertEqual(p.call("SPUBLISH", "s", "m"), b":0\r\n")
        self.assertEqual(p.call("PUBSUB", "NUMSUB", "c1"), numsub([("c1", 0)]))
        self.assertEqual(p.call("PUBSUB", "NUMPAT"), b":0\r\n")
        self.assertEqual(p.call("PUBSUB", "SHARDCHANNELS"), b"*0\r\n")
        nothing_pending(self, a)
        # And subscribing again starts counting from 1.
        self.assertEqual(a.call("SUBSCRIBE", "c2"), sub("subscribe", "c2", 1))

    def test_resp3_push_messages(self):
        a, p = self.raw(), self.raw()
        self.assertEqual(a.call("HELLO", "3")[:1], b"%")
        self.assertEqual(a.call("UNSUBSCRIBE"), sub("unsubscribe", None, 0, b">"))
        self.assertEqual(a.call("SUBSCRIBE", "c1"), sub("subscribe", "c1", 1, b">"))
        self.assertEqual(a.call("PSUBSCRIBE", "p*"), sub("psubscribe", "p*", 2, b">"))
        self.assertEqual(a.call("SSUBSCRIBE", "s1"), sub("ssubscribe", "s1", 1, b">"))
        # RESP3 has no subscribed-mode restriction: ordinary commands, plain replies.
        self.assertEqual(a.call("GET", "k"), b"_\r\n")
        self.assertEqual(a.call("PING"), b"+PONG\r\n")
        self.assertEqual(a.call("PING", "x"), b"$1\r\nx\r\n")
        self.assertEqual(p.call("PUBLISH", "c1", "m1"), b":1\r\n")
        self.assertEqual(a.reply(), message("c1", "m1", b">"))
        self.assertEqual(p.call("PUBLISH", "pq", "m2"), b":1\r\n")
        self.assertEqual(a.reply(), pmessage("p*", "pq", "m2", b">"))
        self.assertEqual(p.call("SPUBLISH", "s1", "m3"), b":1\r\n")
        self.assertEqual(a.reply(), smessage("s1", "m3", b">"))
        self.assertEqual(a.call("UNSUBSCRIBE", "c1"), sub("unsubscribe", "c1", 1, b">"))
        self.assertEqual(a.call("PUNSUBSCRIBE", "p*"), sub("punsubscribe", "p*", 0, b">"))
        self.assertEqual(a.call("SUNSUBSCRIBE", "s1"), sub("sunsubscribe", "s1", 0, b">"))
        self.assertEqual(a.call("RESET"), b"+RESET\r\n")
        nothing_pending(self, a)

    def test_pubsub_introspection(self):
        p = self.raw()
        self.assertEqual(p.call("PUBSUB", "CHANNELS"), b"*0\r\n")
        self.assertEqual(p.call("PUBSUB", "NUMSUB"), b"*0\r\n")
        self.assertEqual(p.call("PUBSUB", "NUMPAT"), b":0\r\n")
        self.assertEqual(p.call("PUBSUB", "SHARDCHANNELS"), b"*0\r\n")
        self.assertEqual(p.call("PUBSUB", "SHARDNUMSUB"), b"*0\r\n")
        a, b = self.spread_raw()
        a.call("SUBSCRIBE", "news.a", "shared")
        a.reply()
        b.call("SUBSCRIBE", "shared", "other")
        b.reply()
        a.call("PSUBSCRIBE", "n*")
        b.call("PSUBSCRIBE", "n*", "o*")
        b.reply()
        a.call("SSUBSCRIBE", "sh1")
        b.call("SSUBSCRIBE", "sh1")
        b.call("SSUBSCRIBE", "sh2")
        self.assertEqual(sorted(parse_bulk_array(p.call("PUBSUB", "CHANNELS"))),
                         ["news.a", "other", "shared"])
        self.assertEqual(p.call("PUBSUB", "CHANNELS", "n*"), bulk_array(["news.a"]))
        self.assertEqual(p.call("PUBSUB", "CHANNELS", "zz*"), b"*0\r\n")
        self.assertEqual(p.call("PUBSUB", "NUMSUB", "shared", "news.a", "none", "other"),
                         numsub([("shared", 2), ("news.a", 1), ("none", 0), ("other", 1)]))
        # NUMPAT counts distinct patterns, not pattern subscriptions (Redis 7).
        self.assertEqual(p.call("PUBSUB", "NUMPAT"), b":2\r\n")
        self.assertEqual(sorted(parse_bulk_array(p.call("PUBSUB", "SHARDCHANNELS"))),
                         ["sh1", "sh2"])
        self.assertEqual(p.call("PUBSUB", "SHARDCHANNELS", "*2"), bulk_array(["sh2"]))
        self.assertEqual(p.call("PUBSUB", "SHARDNUMSUB", "sh1", "sh2", "x"),
                         numsub([("sh1", 2), ("sh2", 1), ("x", 0)]))
        # Channel subscriptions are not shard subscriptions and vice versa.
        self.assertEqual(p.call("PUBSUB", "SHARDNUMSUB", "shared"), numsub([("shared", 0)]))
        self.assertEqual(p.call("PUBSUB", "NUMSUB", "sh1"), numsub([("sh1", 0)]))

    def test_pubsub_errors(self):
        self.assertError("ERR unknown subcommand 'FOO'. Try PUBSUB HELP.", "PUBSUB", "FOO")
        self.assertError("ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. "
                         "Try PUBSUB HELP.", "PUBSUB", "CHANNELS", "a", "b")
        self.assertError("ERR wrong number of arguments for 'subscribe' command", "SUBSCRIBE")
        self.assertError("ERR wrong number of arguments for 'ssubscribe' command", "SSUBSCRIBE")
        self.assertError("ERR wrong number of arguments for 'psubscribe' command", "PSUBSCRIBE")
        self.assertError("ERR wrong number of arguments for 'spublish' command", "SPUBLISH", "s")

    def test_disconnect_drops_subscriptions(self):
        a, p = self.raw(), self.raw()
        a.call("SUBSCRIBE", "gone")
        a.call("PSUBSCRIBE", "g*")
        self.assertEqual(p.call("PUBSUB", "NUMSUB", "gone"), numsub([("gone", 1)]))
        a.close()
        self.assertTrue(itest.wait_for(lambda: p.call("PUBLISH", "gone", "m") == b":0\r\n"))
        self.assertEqual(p.call("PUBSUB", "NUMSUB", "gone"), numsub([("gone", 0)]))
        self.assertEqual(p.call("PUBSUB", "NUMPAT"), b":0\r\n")


itest.bind(PubSubCases, globals())


class ProxyPubSub(itest.RuvioProxyCase):
    """Subscribers and publishers on connections accepted by each of the 2 workers."""

    def by_worker(self, per_worker=2):
        """{worker: [Raw, ...]} with per_worker connections accepted by each worker. The
        worker is CLIENT ID mod 2, cross-checked against INFO server's worker_id."""
        out = {0: [], 1: []}
        for _ in range(40 * per_worker):
            if all(len(v) >= per_worker for v in out.values()):
                break
            c = itest.Raw(self.port)
            cid = int(c.call("CLIENT", "ID")[1:-2])
            info = c.call("INFO", "server")
            i = info.index(b"\r\nworker_id:") + 12
            self.assertEqual(int(info[i:info.index(b"\r\n", i)]), cid % 2)
            if len(out[cid % 2]) < per_worker:
                out[cid % 2].append(c)
                self.addCleanup(c.close)
            else:
                c.close()
        self.assertTrue(all(len(v) >= per_worker for v in out.values()), "a worker got none")
        return out

    def subscribed_on_both(self, channel):
        """(subscriber, publisher) on worker 0, then on worker 1: the subscribers
        SUBSCRIBEd to `channel`."""
        w = self.by_worker(2)
        (s0, p0), (s1, p1) = w[0], w[1]
        for s in (s0, s1):
            self.assertEqual(s.call("SUBSCRIBE", channel), sub("subscribe", channel, 1))
        return s0, p0, s1, p1

    def test_subscribers_on_both_workers_get_messages_from_either(self):
        s0, p0, s1, p1 = self.subscribed_on_both("ch")
        for i, p in enumerate((p0, p1)):
            self.assertEqual(p.call("PUBLISH", "ch", f"from{i}"), b":2\r\n")
            self.assertEqual(s0.reply(), message("ch", f"from{i}"))
            self.assertEqual(s1.reply(), message("ch", f"from{i}"))
        # Patterns on both workers: every match counts.
        self.assertEqual(s0.call("PSUBSCRIBE", "c*"), sub("psubscribe", "c*", 2))
        self.assertEqual(s1.call("PSUBSCRIBE", "*h"), sub("psubscribe", "*h", 2))
        self.assertEqual(p1.call("PUBLISH", "ch", "both"), b":4\r\n")
        self.assertEqual(s0.reply() + s0.reply(),
                         message("ch", "both") + pmessage("c*", "ch", "both"))
        self.assertEqual(s1.reply() + s1.reply(),
                         message("ch", "both") + pmessage("*h", "ch", "both"))
        self.assertEqual(p0.call("PUBLISH", "cx", "p"), b":1\r\n")
        self.assertEqual(s0.reply(), pmessage("c*", "cx", "p"))
        self.assertEqual(p0.call("PUBLISH", "none", "p"), b":0\r\n")
        nothing_pending(self, s0)
        nothing_pending(self, s1)

    def test_spublish_and_resp3_across_workers(self):
        w = self.by_worker(2)
        s0, p0 = w[0]
        s1, p1 = w[1]
        s1.call("HELLO", "3")
        self.assertEqual(s0.call("SSUBSCRIBE", "sh"), sub("ssubscribe", "sh", 1))
        self.assertEqual(s1.call("SSUBSCRIBE", "sh"), sub("ssubscribe", "sh", 1, b">"))
        self.assertEqual(s1.call("SUBSCRIBE", "ch"), sub("subscribe", "ch", 1, b">"))
        for i, p in enumerate((p0, p1)):
            self.assertEqual(p.call("SPUBLISH", "sh", f"s{i}"), b":2\r\n")
            self.assertEqual(s0.reply(), smessage("sh", f"s{i}"))
            self.assertEqual(s1.reply(), smessage("sh", f"s{i}", b">"))
        self.assertEqual(p0.call("PUBLISH", "ch", "r3"), b":1\r\n")
        self.assertEqual(s1.reply(), message("ch", "r3", b">"))

    def test_pubsub_merges_across_workers(self):
        w = self.by_worker(2)
        s0, p0 = w[0]
        s1, p1 = w[1]
        s0.call("SUBSCRIBE", "only0", "common")
        s0.reply()
        s1.call("SUBSCRIBE", "only1", "common")
        s1.reply()
        s0.call("SSUBSCRIBE", "shard")
        s1.call("SSUBSCRIBE", "shard", "s1only")
        s1.reply()
        for p in (p0, p1):
            self.assertEqual(p.call("PUBSUB", "NUMSUB", "common", "only0", "only1", "x"),
                             numsub([("common", 2), ("only0", 1), ("only1", 1), ("x", 0)]))
            # A union: every channel exactly once, whichever worker answers.
            self.assertEqual(sorted(parse_bulk_array(p.call("PUBSUB", "CHANNELS"))),
                             ["common", "only0", "only1"])
            self.assertEqual(sorted(parse_bulk_array(p.call("PUBSUB", "CHANNELS", "only*"))),
                             ["only0", "only1"])
            self.assertEqual(p.call("PUBSUB", "SHARDNUMSUB", "shard", "s1only"),
                             numsub([("shard", 2), ("s1only", 1)]))
            self.assertEqual(sorted(parse_bulk_array(p.call("PUBSUB", "SHARDCHANNELS"))),
                             ["s1only", "shard"])

    def test_publish_inside_exec_and_script_reaches_both_workers(self):
        # A PUBLISH in a transaction or a script runs on the worker that runs it, not
        # fanned out: the other worker's subscribers must still get the message (Celery's
        # result backend publishes each result in MULTI { SETEX, PUBLISH }; on redis-server
        # every subscriber gets it). Each publisher, each owner of the transaction's key.
        s0, p0, s1, p1 = self.subscribed_on_both("ch")
        keys = {owner: itest.keys_of(owner, 1, "pubkey")[0] for owner in (0, 1)}
        for i, p in enumerate((p0, p1)):
            for owner, key in keys.items():
                data = f"exec-from{i}-on{owner}"
                self.assertEqual(p.call("MULTI"), b"+OK\r\n")
                self.assertEqual(p.call("SET", key, "v"), b"+QUEUED\r\n")
                self.assertEqual(p.call("PUBLISH", "ch", data), b"+QUEUED\r\n")
                self.assertTrue(p.call("EXEC").startswith(b"*2\r\n+OK\r\n:"))
                self.assertEqual(s0.reply(), message("ch", data))
                self.assertEqual(s1.reply(), message("ch", data))
                data = f"eval-from{i}-on{owner}"
                p.call("EVAL", "redis.call('set', KEYS[1], 'v') "
                               "return redis.call('publish', ARGV[1], ARGV[2])",
                       1, key, "ch", data)
                self.assertEqual(s0.reply(), message("ch", data))
                self.assertEqual(s1.reply(), message("ch", data))
            # no key: the transaction runs on the publisher's own worker
            self.assertEqual(p.call("MULTI"), b"+OK\r\n")
            self.assertEqual(p.call("PUBLISH", "ch", f"bare{i}"), b"+QUEUED\r\n")
            self.assertTrue(p.call("EXEC").startswith(b"*1\r\n:"))
            self.assertEqual(s0.reply(), message("ch", f"bare{i}"))
            self.assertEqual(s1.reply(), message("ch", f"bare{i}"))
        nothing_pending(self, s0)
        nothing_pending(self, s1)

    # Known limit (README, proxy port): PUBLISH inside EXEC or a script runs on one worker and
    # counts only that worker's subscribers (Redis: all of them); the other worker's get the
    # message (the test above), uncounted. It runs, and fails while the limit stands; tests/run.py
    # counts an unexpected success as a failure, so the day it passes it must lose this mark.
    @unittest.expectedFailure
    def test_publish_inside_exec_counts_every_worker(self):
        _, p0, _, _ = self.subscribed_on_both("ch")
        self.assertEqual(p0.call("MULTI"), b"+OK\r\n")
        self.assertEqual(p0.call("PUBLISH", "ch", "x"), b"+QUEUED\r\n")
        replies = [p0.call("EXEC"),
                   p0.call("EVAL", "return redis.call('publish', 'ch', 'y')", 0)]
        self.assertEqual(replies, [b"*1\r\n:2\r\n", b":2\r\n"])

    def test_numpat_counts_distinct_patterns_across_workers(self):
        # Redis 7's NUMPAT is the number of distinct patterns (see the mixin's
        # test_pubsub_introspection, proven on redis-server); the same pattern subscribed
        # on both workers is still one pattern.
        w = self.by_worker(1)
        s0, s1 = w[0][0], w[1][0]
        s0.call("PSUBSCRIBE", "c*")
        s1.call("PSUBSCRIBE", "c*", "x*")
        s1.reply()
        self.assertEqual(self.cmd("PUBSUB", "NUMPAT"), b":2\r\n")
