"""Differential test of ACL: the same seeded random stream goes to Ruvio and to a real
redis-server 7.0.15 — ACL SETUSER with random rules (passwords, on/off, nopass, categories,
commands, subcommands, first args, key and channel patterns, selectors, reset, malformed
rules), ACL GETUSER / LIST / USERS / DRYRUN / DELUSER / CAT / WHOAMI, and a second connection
authenticated as one of the users running commands of every family (MULTI/EXEC, EVAL with
redis.call, SORT … BY/GET, PUBLISH/SUBSCRIBE) — and compares the replies byte for byte.

Two things are compared by meaning rather than by bytes, and counted apart in the stats:
* the order of single-command rules in a description ("-@all +get +set"): redis-server
  emits them in its command dict's order, which its random hash seed changes every start;
* a description whose category choice differs because redis-server has commands Ruvio does
  not implement yet (they change the category counts Redis's best-fit uses). Then the two
  descriptions must allow exactly the same commands: ACL DRYRUN of a probe list answers the
  same on both.
ACL LOG entries are compared (every field but age-seconds and client-info's values) at one
worker; through the 2-worker proxy a denied command is logged on the worker that holds the
client, so the log is compared only there.

Env: RUVIO_DIFF_SEED (default random, printed), RUVIO_DIFF_COMMANDS (default 20000).
"""

import os
import random
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import harness  # noqa: E402
import test_differential as td  # noqa: E402
from resp_raw import RawConn, encode, parse  # noqa: E402

USERS = ["alice", "bob", "carol"]
PASSWORDS = ["p1", "p2", "secret"]
# Commands both servers implement (rules and probes draw from these).
COMMANDS = ["get", "set", "hset", "hget", "lpush", "lrange", "sadd", "smembers", "zadd",
            "zrange", "del", "exists", "incr", "mget", "mset", "expire", "ttl", "keys", "scan",
            "type", "publish", "subscribe", "psubscribe", "ping", "echo", "eval", "multi", "exec",
            "sort", "select", "xadd", "xrange", "pfadd", "pfcount", "bitcount", "bitfield",
            "geoadd", "copy", "lmove", "flushdb", "dbsize", "info", "config", "client", "object"]
SUBCOMMANDS = ["config|get", "config|set", "client|list", "client|id", "client|setname",
               "object|encoding"]
FIRSTARGS = ["select|0", "select|1", "get|app:1"]
CATEGORIES = ["keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
              "bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
              "blocking", "dangerous", "connection", "transaction", "scripting"]
# One hash tag: every multi-key command stays in one slot through the proxy port.
KEYS = ["app:{t}1", "app:{t}2", "r:{t}1", "w:{t}1", "x{t}", "other{t}", "app:9", "zz"]
KEY_PATTERNS = ["app:*", "r:*", "w:*", "x*", "*", "other?t}", "app:[12]*"]
CHANNELS = ["ch1", "chx", "news.a", "news.*", "*"]
CHANNEL_PATTERNS = ["ch*", "news.*", "ch1", "*x"]
HASH = "a" * 64


def _short(b, n=300):
    return repr(b) if len(b) <= n else repr(b[:n]) + f"...(+{len(b) - n} bytes)"


class Mismatch(AssertionError):
    pass


def rule(rng):
    k = rng.random()
    if k < 0.08:
        return rng.choice(["on", "off", "nopass", "resetpass", "reset", "clearselectors",
                           "allkeys", "resetkeys", "allchannels", "resetchannels",
                           "allcommands", "nocommands", "skip-sanitize-payload",
                           "sanitize-payload"])
    if k < 0.16:
        return rng.choice([">", "<"]) + rng.choice(PASSWORDS)
    if k < 0.19:
        return rng.choice(["#" + HASH, "!" + HASH, "#" + HASH[:10], "#" + HASH.upper()])
    if k < 0.36:
        return rng.choice("+-") + "@" + rng.choice(CATEGORIES + ["all", "nosuch"])
    if k < 0.52:
        return rng.choice("+-") + rng.choice(COMMANDS + SUBCOMMANDS + ["nosuchcmd"])
    if k < 0.55:
        return "+" + rng.choice(FIRSTARGS + ["config|get|x", "select|", "config|nosuch"])
    if k < 0.70:
        return rng.choice(["~", "%R~", "%W~", "%RW~"]) + rng.choice(KEY_PATTERNS)
    if k < 0.80:
        return "&" + rng.choice(CHANNEL_PATTERNS)
    if k < 0.92:
        inner = [rng.choice(["+@read", "+@write", "-@all", "+get", "+set", "+hset",
                             "~app:*", "%R~r:*", "%W~w:*", "&ch*", "allkeys", "+@all",
                             "-@string"]) for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.5:
            return ["(" + " ".join(inner) + ")"]      # one argument
        words = list(inner)
        words[0] = "(" + words[0]
        words[-1] = words[-1] + ")"
        return words                                  # split over several arguments
    return rng.choice(["bad", "%", "%X~a", "~a b", "&a b", "(on)", "(+get", "+", "-"])


def probe(rng):
    k, k2 = rng.choice(KEYS), rng.choice(KEYS)
    ch = rng.choice(CHANNELS)
    return rng.choice([
        ["get", k], ["set", k, "v"], ["set", k, "v", "get"], ["hset", k, "f", "v"],
        ["hget", k, "f"], ["lpush", k, "a"], ["lrange", k, "0", "-1"], ["sadd", k, "m"],
        ["del", k, k2], ["exists", k], ["mget", k, k2], ["mset", k, "1", k2, "2"],
        ["incr", k], ["expire", k, "100"], ["ttl", k], ["type", k], ["keys", "app:*"],
        ["publish", ch, "m"], ["subscribe", ch, rng.choice(CHANNELS)],
        ["psubscribe", rng.choice(CHANNEL_PATTERNS)], ["ping"], ["echo", "x"],
        ["select", "0"], ["select", "1"], ["config", "get", "maxmemory"],
        ["client", "getname"], ["object", "encoding", k], ["copy", k, k2],
        ["lmove", k, k2, "left", "right"], ["bitfield", k, "get", "u8", "0"],
        ["bitfield", k, "set", "u8", "0", "1"], ["sort", k], ["sort", k, "store", k2],
        ["xadd", k, "1-1", "f", "v"], ["pfadd", k, "a"], ["zadd", k, "1", "m"],
        ["eval", "return 1", "1", k], ["multi"], ["dbsize"],
    ])


class AclDiffRun:
    def __init__(self, seed, ref_port, cand_port, count, workers=1):
        self.seed, self.count, self.workers = seed, count, workers
        self.rng = random.Random(seed)
        self.ports = (ref_port, cand_port)
        self.admin = [RawConn(ref_port), RawConn(cand_port)]
        self.user = [RawConn(ref_port), RawConn(cand_port)]
        self.sent = 0
        self.stats = {"sent": 0, "described_exact": 0, "described_by_order": 0,
                      "described_by_dryrun": 0, "nopes": 0, "log_compared": 0}
        self.history = []

    def close(self):
        for c in self.admin + self.user:
            c.close()

    def _fail(self, what, args, a, b):
        hist = "\n".join(self.history[-8:])
        raise Mismatch(f"seed={self.seed} workers={self.workers} #{self.sent} {what}\n"
                       f"command: {args!r}\nredis: {_short(a)}\nruvio: {_short(b)}\n"
                       f"recent:\n{hist}")

    def both(self, conns, args):
        raw = encode([a.encode() if isinstance(a, str) else a for a in args])
        out = []
        for c in conns:
            c.send(raw)
        for c in conns:
            out.append(c.read_reply())
        self.sent += 1
        self.history.append(" ".join(map(str, args)))
        return out

    def same(self, conns, args, what="reply"):
        a, b = self.both(conns, args)
        if args[0] == "keys" and a[:1] == b"*" and b[:1] == b"*":
            if sorted(parse(a)) == sorted(parse(b)):  # KEYS order is the table's own
                return a
        if a != b:
            self._fail(what, args, a, b)
        self.stats["nopes"] += a.startswith(b"-NOPERM")
        return a

    # ---- descriptions -------------------------------------------------------------------

    @staticmethod
    def canon(rules):
        toks = rules.split(" ")
        head, cats, singles = toks[0], [], []
        for t in toks[1:]:
            (cats if t[1:2] == "@" else singles).append(t)
        return head, cats, sorted(singles)

    def rules_equal(self, user, ra, rb, where):
        if ra == rb:
            self.stats["described_exact"] += 1
            return
        if self.canon(ra) == self.canon(rb):
            self.stats["described_by_order"] += 1
            return
        # Category choice differs (commands Ruvio lacks): the permissions must still agree.
        for cmd in [["get", "x"], ["set", "x", "v"], ["hset", "x", "f", "v"], ["lpush", "x", "a"],
                    ["sadd", "x", "m"], ["zadd", "x", "1", "m"], ["del", "x"], ["ping"],
                    ["publish", "ch1", "m"], ["config", "get", "x"], ["client", "id"],
                    ["flushdb"], ["keys", "*"], ["info"], ["eval", "return 1", "0"],
                    ["multi"], ["sort", "x"], ["xadd", "x", "*", "f", "v"], ["select", "0"],
                    ["pfadd", "x", "a"], ["bitcount", "x"], ["geoadd", "x", "1", "1", "m"],
                    ["object", "encoding", "x"], ["dbsize"], ["type", "x"]]:
            self.same(self.admin, ["acl", "dryrun", user, *cmd], f"dryrun for {where} {ra!r}")
        self.stats["described_by_dryrun"] += 1

    def compare_getuser(self, user):
        a, b = self.both(self.admin, ["acl", "getuser", user])
        va, vb = parse(a), parse(b)
        if va is None or vb is None or isinstance(va, tuple):
            if a != b:
                self._fail("getuser", ["acl", "getuser", user], a, b)
            return
        ma, mb = dict(zip(va[::2], va[1::2])), dict(zip(vb[::2], vb[1::2]))
        if list(ma) != list(mb):
            self._fail("getuser fields", user, a, b)
        for f in (b"flags", b"passwords", b"keys", b"channels"):
            if ma[f] != mb[f]:
                self._fail(f"getuser {f!r}", user, a, b)
        self.rules_equal(user, ma[b"commands"].decode(), mb[b"commands"].decode(), "root")
        sa, sb = ma[b"selectors"], mb[b"selectors"]
        if len(sa) != len(sb):
            self._fail("getuser selectors", user, a, b)
        for x, y in zip(sa, sb):
            dx, dy = dict(zip(x[::2], x[1::2])), dict(zip(y[::2], y[1::2]))
            if dx[b"keys"] != dy[b"keys"] or dx[b"channels"] != dy[b"channels"]:
                self._fail("getuser selector", user, a, b)
            self.rules_equal(user, dx[b"commands"].decode(), dy[b"commands"].decode(),
                             "selector")

    @staticmethod
    def split_line(line):
        """An ACL LIST line without its command rules (compared by rules_equal)."""
        out, rules, part = [], [], []
        for t in line.split(" "):
            if t.startswith("(") and part is not None:
                rules.append(" ".join(part))
                part = []
                t = t[1:]
                out.append("(")
            closing = t.endswith(")")
            t = t.rstrip(")")
            if t[:1] in "+-":
                part.append(t)
            else:
                out.append(t)
            if closing:
                rules.append(" ".join(part))
                part = []
                out.append(")")
        if part:
            rules.append(" ".join(part))
        return out, [r for r in rules if r]

    def compare_list(self):
        a, b = self.both(self.admin, ["acl", "list"])
        la, lb = parse(a), parse(b)
        if len(la) != len(lb):
            self._fail("acl list", ["acl", "list"], a, b)
        for x, y in zip(la, lb):
            ox, rx = self.split_line(x.decode())
            oy, ry = self.split_line(y.decode())
            if ox != oy or len(rx) != len(ry):
                self._fail("acl list line", ["acl", "list"], x, y)
            for p, q in zip(rx, ry):
                self.rules_equal(ox[1], p, q, "list")

    # ---- the user's connection ----------------------------------------------------------

    def reconnect_user(self):
        for c in self.user:
            c.close()
        self.user = [RawConn(p) for p in self.ports]

    def as_user(self):
        name = self.rng.choice(USERS)
        if self.rng.random() < 0.7:  # mostly a user that can log in, so its rules apply
            self.same(self.admin, ["acl", "setuser", name, "on", ">p1"])
            self.same(self.user, ["auth", name, "p1"])
        else:
            self.same(self.user, ["auth", name, self.rng.choice(PASSWORDS)])
        for _ in range(self.rng.randint(1, 6)):
            k = self.rng.random()
            if k < 0.1:
                self.same(self.user, ["multi"])
                for _ in range(self.rng.randint(1, 3)):
                    args = probe(self.rng)
                    if args[0] in ("subscribe", "psubscribe", "multi", "object", "keys", "dbsize",
                                   "client"):
                        args = ["get", self.rng.choice(KEYS)]
                    self.same(self.user, args)
                self.same(self.user, [self.rng.choice(["exec", "discard"])])
                self.same(self.user, ["reset"])
                continue
            if k < 0.2:
                key = self.rng.choice(KEYS)
                body = self.rng.choice(["return redis.call('get', KEYS[1])",
                                        "return redis.call('set', KEYS[1], 'v')",
                                        "return redis.pcall('hget', KEYS[1], 'f')",
                                        "return redis.call('publish', 'ch1', 'm')",
                                        "return redis.call('get', 'zz')"])
                self.same(self.user, ["eval", body, "1", key])
                continue
            if k < 0.27:
                self.same(self.user, ["sort", self.rng.choice(KEYS), self.rng.choice(["by", "get"]),
                                      self.rng.choice(["w:{t}*", "nosort", "#"])])
                continue
            args = probe(self.rng)
            if args[0] in ("subscribe", "psubscribe", "multi", "object"):
                args = ["publish", self.rng.choice(CHANNELS), "m"]
            self.same(self.user, args)
        self.same(self.user, ["acl", "whoami"])

    def compare_log(self):
        a, b = self.both(self.admin, ["acl", "log", "5"])
        va, vb = parse(a), parse(b)
        if len(va) != len(vb):
            self._fail("acl log length", ["acl", "log"], a, b)
        for x, y in zip(va, vb):
            dx, dy = dict(zip(x[::2], x[1::2])), dict(zip(y[::2], y[1::2]))
            for f in (b"count", b"reason", b"context", b"object", b"username"):
                if dx[f] != dy[f]:
                    self._fail(f"acl log {f!r}", ["acl", "log"], a, b)
            if list(dx) != list(dy):
                self._fail("acl log fields", ["acl", "log"], a, b)
        self.stats["log_compared"] += 1

    def run(self):
        rng = self.rng
        self.same(self.admin, ["acl", "cat"])
        self.same(self.admin, ["acl", "cat", "nosuch"])
        while self.sent < self.count:
            k = rng.random()
            user = rng.choice(USERS)
            if k < 0.45:
                words = []
                for _ in range(rng.randint(1, 5)):
                    r = rule(rng)
                    words.extend(r if isinstance(r, list) else [r])
                self.same(self.admin, ["acl", "setuser", user, *words])
                self.compare_getuser(user)
            elif k < 0.55:
                self.compare_list()
                self.same(self.admin, ["acl", "users"])
            elif k < 0.70:
                self.same(self.admin, ["acl", "dryrun", user, *probe(rng)])
            elif k < 0.72:
                self.same(self.admin, ["acl", "deluser", user, rng.choice(USERS)])
                self.reconnect_user()  # its clients were closed, on both servers
            elif k < 0.95:
                self.as_user()
                if self.workers == 1 and rng.random() < 0.3:
                    self.compare_log()
            else:
                self.same(self.admin, ["acl", "dryrun", "nouser", "get", "x"])
                self.same(self.admin, ["acl", "dryrun", user, "nosuchcmd"])
                self.same(self.admin, ["acl", "getuser", "nouser"])
                self.same(self.admin, ["acl", "log", "reset"])
        self.stats["sent"] = self.sent
        return self.stats


def run(seed, count, workers=1):
    return td.run_pair(lambda rp, cp: AclDiffRun(seed, rp, cp, count, workers), "ruvio", workers)


class AclDifferentialTest(unittest.TestCase):
    def _run(self, workers):
        if not os.path.exists(harness.RUVIO_BIN):
            self.skipTest(f"{harness.RUVIO_BIN} not built")
        seed = td.diff_seed()
        count = int(os.environ.get("RUVIO_DIFF_COMMANDS", "20000"))
        stats = run(seed, count, workers)
        print(f"\nacl differential ({workers} worker(s)): seed={seed} {stats}", file=sys.stderr)
        self.assertGreaterEqual(stats["sent"], count)
        self.assertGreater(stats["described_exact"], 0)
        self.assertGreater(stats["nopes"], 0)

    def test_against_redis(self):
        self._run(1)

    def test_against_redis_2_workers(self):
        self._run(2)


if __name__ == "__main__":
    unittest.main()
