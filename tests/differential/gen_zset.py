"""Seeded random command generator for the sorted-set differential test
(test_zset_differential.py), beside cmdgen.py (strings/keys) and in its style: everything
depends only on the seed, never on replies.

It crosses the listpack/skiplist threshold both ways (bulk ZADDs past 128 members, members
longer than 64 bytes, then ZREMRANGEBYRANK/ZPOP back down, and *STORE destinations built
small), -0 / 0 scores around the conversion point checked by ZSCORE and DEBUG DIGEST-VALUE
(both servers run with enable-debug-command yes), mixes integer-looking, binary and long members, edge scores (0.1, 1e300, -0, inf,
NaN, non-numbers), negative and out-of-range indexes, wrong types and bad arguments.

Multi-key commands use the hash-tagged keys only, so a 2-worker proxy port runs them on one
owner. Compare kinds beyond cmdgen's:
  "zrand"  ZRANDMEMBER: same type and length; every member (and score) of both replies is
           one of the key's as redis-server's ZRANGE 0 -1 WITHSCORES reads it right after; a
           positive count gives min(count, size) distinct members, a negative one |count|
  "zscan"  ZSCAN from cursor 0: every (member, score) pair of both replies is one of the
           key's (ZRANGE as above) and matches the MATCH pattern; when both cursors come back
           0 the pairs are compared as sets (cursors differ by hash function)
"""

from cmdgen import Cmd, GenBase

TAGGED = [b"{z}%d" % i for i in range(8)]
LOOSE = [b"za", b"zb", b"zc", b"zd", b"ze", b"zf", b"zset:1", b"zset:2"]
KEYS = TAGGED + LOOSE
# Lex ranges are only defined when all scores are equal (otherwise the order of equal-score
# runs decides, and two redis-servers disagree): these keys only ever get score 0.
LEX_KEYS = [b"{z}lex0", b"{z}lex1", b"lex2"]
STRING_KEYS = [b"{z}str", b"zstr"]

MEMBERS = ([b"m%d" % i for i in range(30)] +
           [b"1", b"-5", b"0", b"12345678901", b"007", b"-0", b"3.5", b"", b"\x00\xff",
            b"bin\r\n\x00", "\u00e9".encode(), b"a", b"b", b"c", b"aa", b"ab",
            b"x" * 64, b"y" * 65, b"L" * 200, b"9223372036854775808"])
SCORES = [b"0", b"1", b"2", b"-1", b"3", b"10", b"100", b"0.1", b"1.5", b"-2.5", b"1e300",
          b"-1e300", b"-0", b"0.0", b"inf", b"-inf", b"+inf", b"1e-300", b"4503599627370496",
          b"4503599627370497", b"9007199254740993", b"0.30000000000000004", b"3.0", b"1e20"]
BAD_SCORES = [b"nan", b"abc", b"", b" 1", b"1 ", b"1e400", b"0x10", b"--1", b"NaN", b"1e"]
RANGE_SCORES = [b"-inf", b"+inf", b"inf", b"0", b"(0", b"1", b"(1", b"2.5", b"(2.5", b"-1",
                b"100", b"(100", b"1e300", b"(-inf", b"(+inf", b"", b"(", b" 1", b"-0"]
BAD_RANGE_SCORES = [b"abc", b"nan", b"(nan", b"1x", b"[1"]
LEX = [b"-", b"+", b"[m1", b"(m1", b"[m2", b"(m20", b"[a", b"(b", b"[", b"(", b"[\x00",
       b"[zz", b"[1", b"(0"]
BAD_LEX = [b"m1", b"", b"+a", b"-a", b"1"]
INTS = [b"0", b"1", b"2", b"-1", b"-2", b"5", b"-5", b"10", b"100", b"127", b"128", b"129",
        b"-129", b"-200", b"200", b"9223372036854775807", b"-9223372036854775808"]
BAD_INTS = [b"1.5", b"abc", b"", b"9223372036854775808", b" 1", b"1e2"]


class ZsetGenerator(GenBase):
    KEY_POOL = KEYS
    TAGGED_POOL = TAGGED

    def __init__(self, seed):
        super().__init__(seed, WEIGHTS)
        self.bulk = 0

    def member(self):
        if self.chance(0.05):
            self.bulk += 1
            return b"u%d" % self.r.randrange(400)
        return self.pick(MEMBERS)

    def score(self):
        if self.chance(0.02):
            return self.pick(BAD_SCORES)
        if self.chance(0.5):
            return b"%d" % self.r.randint(-20, 20)
        return self.pick(SCORES)

    def int_arg(self):
        return self.pick_rare(0.03, BAD_INTS, INTS)

    def smin_max(self):
        if self.chance(0.04):
            return self.pick(BAD_RANGE_SCORES), self.pick(RANGE_SCORES)
        return self.pick(RANGE_SCORES), self.pick(RANGE_SCORES)

    def lex_min_max(self):
        if self.chance(0.04):
            return self.pick(BAD_LEX), self.pick(LEX)
        return self.pick(LEX), self.pick(LEX)

    def lex_key(self):
        return self.pick(LEX_KEYS)

    def g_lex_add(self):
        k = self.lex_key()
        pairs = []
        for _ in range(self.r.randint(1, 8)):
            pairs += [b"0", self.member()]
        return Cmd([b"ZADD", k, *pairs])

    # ---- generators -------------------------------------------------------------------

    def g_zadd(self):
        k = self.key()
        opts = []
        if self.chance(0.3):
            for o in (b"NX", b"XX", b"GT", b"LT", b"CH", b"INCR"):
                if self.chance(0.2):
                    opts.append(o if self.chance(0.5) else o.lower())
        n = 1 if self.chance(0.6) else self.r.randint(1, 6)
        pairs = []
        for _ in range(n):
            pairs += [self.score(), self.member()]
        if self.chance(0.02):
            pairs = pairs[:-1]
        self.pending.append(Cmd([b"OBJECT", b"ENCODING", k]))
        return Cmd([b"ZADD", k, *opts, *pairs])

    def g_zadd_bulk(self):
        """Past the listpack threshold (128) in one go, or close to it."""
        k = self.key()
        n = self.pick([60, 120, 127, 128, 129, 140, 200])
        base = self.r.randrange(1000)
        pairs = []
        for i in range(n):
            pairs += [b"%d" % self.r.randint(-50, 50), b"b%d" % (base + i)]
        self.pending.append(Cmd([b"OBJECT", b"ENCODING", k]))
        self.pending.append(Cmd([b"ZCARD", k]))
        return Cmd([b"ZADD", k, *pairs])

    def g_lex_bulk(self):
        """A lex key past the threshold: equal scores on a skiplist."""
        k = self.lex_key()
        n = self.pick([100, 129, 150])
        base = self.r.randrange(1000)
        pairs = []
        for i in range(n):
            pairs += [b"0", b"b%d" % (base + i)]
        self.pending.append(Cmd([b"OBJECT", b"ENCODING", k]))
        return Cmd([b"ZADD", k, *pairs])

    def g_zincrby(self):
        return Cmd([b"ZINCRBY", self.key(), self.score(), self.member()])

    def g_zrem(self):
        return Cmd([b"ZREM", self.key(), *self.several(self.member, 1, 4)])

    def g_zcard(self):
        return Cmd([b"ZCARD", self.key()])

    def g_zscore(self):
        if self.chance(0.5):
            return Cmd([b"ZSCORE", self.key(), self.member()])
        return Cmd([b"ZMSCORE", self.key(), *self.several(self.member, 1, 4)])

    def g_zrank(self):
        return Cmd([self.pick([b"ZRANK", b"ZREVRANK"]), self.key(), self.member()])

    def g_zcount(self):
        if self.chance(0.5):
            return Cmd([b"ZCOUNT", self.key(), *self.smin_max()])
        return Cmd([b"ZLEXCOUNT", self.lex_key(), *self.lex_min_max()])

    def _limit(self):
        if self.chance(0.3):
            return [b"LIMIT", self.pick([b"0", b"1", b"2", b"-1", b"5", b"200",
                                         b"9223372036854775807", b"x"]),
                    self.pick([b"-1", b"0", b"1", b"3", b"10", b"-5", b"9223372036854775807"])]
        return []

    def g_zrange(self):
        k = self.key()
        kind = self.r.randrange(4)
        opts = []
        if kind == 0:
            a, b = self.int_arg(), self.int_arg()
        elif kind == 1:
            a, b = self.smin_max()
            opts.append(b"BYSCORE")
        else:
            k = self.lex_key()
            a, b = self.lex_min_max()
            opts.append(b"BYLEX")
        if self.chance(0.4):
            opts.append(b"REV")
        if self.chance(0.4):
            opts.append(b"WITHSCORES")
        opts += self._limit()
        self.r.shuffle(opts)
        return Cmd([b"ZRANGE", k, a, b, *opts])

    def g_zrange_old(self):
        k = self.key()
        c = self.r.randrange(5)
        ws = [b"WITHSCORES"] if self.chance(0.4) else []
        if c == 0:
            return Cmd([b"ZREVRANGE", k, self.int_arg(), self.int_arg(), *ws])
        if c in (1, 2):
            a, b = self.smin_max()
            return Cmd([b"ZRANGEBYSCORE" if c == 1 else b"ZREVRANGEBYSCORE", k, a, b, *ws,
                        *self._limit()])
        a, b = self.lex_min_max()
        return Cmd([b"ZRANGEBYLEX" if c == 3 else b"ZREVRANGEBYLEX", self.lex_key(), a, b,
                    *self._limit()])

    def g_zrangestore(self):
        dst, src = self.tkey(), self.tkey()
        kind = self.r.randrange(3)
        opts = []
        if kind == 0:
            a, b = self.int_arg(), self.int_arg()
        elif kind == 1:
            a, b = self.smin_max()
            opts.append(b"BYSCORE")
        else:
            src = self.pick(LEX_KEYS[:2])
            a, b = self.lex_min_max()
            opts.append(b"BYLEX")
        if self.chance(0.3):
            opts.append(b"REV")
        if kind and self.chance(0.3):
            opts += self._limit()
        self.pending.append(Cmd([b"OBJECT", b"ENCODING", dst]))
        return Cmd([b"ZRANGESTORE", dst, src, a, b, *opts])

    def g_sort(self):
        """SORT / SORT_RO of a zset (which converts it to a skiplist, as Redis: the encoding
        is checked after). BY nosort keeps the zset's order with DESC and LIMIT: exact.
        Numeric: exact (equal weights fall back to the members' bytes). ALPHA compares with
        strcoll, so b"" and b"\\x00\\xff" tie in an order that follows each server's table:
        compared sorted, never cut by LIMIT. No BY/GET patterns: at 2 workers their keys
        would be another worker's."""
        k = self.key()
        cmd = [self.pick([b"SORT", b"SORT_RO"]), k]
        form = self.r.randrange(3)
        if form == 0:
            cmd += [b"BY", self.pick([b"nosort", b"x", b"NOSORT"])]
        elif form == 2:
            cmd.append(b"ALPHA")
        if self.chance(0.4):
            cmd.append(self.pick([b"DESC", b"ASC", b"desc"]))
        if form != 2 and self.chance(0.5):
            cmd += [b"LIMIT", self.pick(INTS + [b"3", b"130"]), self.pick(INTS + [b"3"])]
        if self.chance(0.2):
            cmd += [b"GET", b"#"]
        if self.chance(0.05):
            cmd.append(self.pick([b"LIMIT", b"BY", b"FOO", b"STORE"]))
        self.pending.append(Cmd([b"OBJECT", b"ENCODING", k]))
        return Cmd(cmd, kind="sorted" if form == 2 else "exact")

    def g_zremrange(self):
        k = self.key()
        c = self.r.randrange(3)
        self.pending.append(Cmd([b"OBJECT", b"ENCODING", k]))
        if c == 0:
            return Cmd([b"ZREMRANGEBYRANK", k, self.int_arg(), self.int_arg()])
        if c == 1:
            return Cmd([b"ZREMRANGEBYSCORE", k, *self.smin_max()])
        k = self.lex_key()
        self.pending[-1] = Cmd([b"OBJECT", b"ENCODING", k])
        return Cmd([b"ZREMRANGEBYLEX", k, *self.lex_min_max()])

    def g_zpop(self):
        k = self.key()
        cmd = [self.pick([b"ZPOPMIN", b"ZPOPMAX"]), k]
        if self.chance(0.6):
            cmd.append(self.pick([b"0", b"1", b"2", b"5", b"100", b"-1", b"abc",
                                  b"9223372036854775807", b"-9223372036854775808"]))
        if self.chance(0.02):
            cmd.append(b"1")
        return Cmd(cmd)

    def g_zmpop(self):
        n = self.r.randint(1, 3)
        keys = [self.tkey() for _ in range(n)]
        numkeys = b"%d" % n if self.chance(0.95) else self.pick([b"0", b"-1", b"abc", b"99"])
        cmd = [b"ZMPOP", numkeys, *keys, self.pick([b"MIN", b"max", b"MAX", b"middle"])]
        if self.chance(0.5):
            cmd += [b"COUNT", self.pick([b"1", b"2", b"10", b"0", b"-1", b"x",
                                         b"9223372036854775807"])]
        return Cmd(cmd)

    def _setop_tail(self, n, store, diff):
        tail = []
        if not diff and self.chance(0.3):
            tail += [b"WEIGHTS", *[self.pick([b"1", b"2", b"-1", b"0.5", b"0", b"inf", b"x"])
                                  for _ in range(n)]]
        if not diff and self.chance(0.3):
            tail += [b"AGGREGATE", self.pick([b"SUM", b"min", b"MAX", b"avg"])]
        if not store and self.chance(0.4):
            tail.append(b"WITHSCORES")
        return tail

    def g_zsetop(self):
        op = self.pick([b"UNION", b"INTER", b"DIFF"])
        store = self.chance(0.5)
        n = self.r.randint(1, 3)
        keys = [self.tkey() for _ in range(n)]
        numkeys = b"%d" % n if self.chance(0.95) else self.pick([b"0", b"-1", b"x", b"99"])
        tail = self._setop_tail(n, store, op == b"DIFF")
        if store:
            dst = self.tkey()
            self.pending.append(Cmd([b"OBJECT", b"ENCODING", dst]))
            return Cmd([b"Z" + op + b"STORE", dst, numkeys, *keys, *tail])
        return Cmd([b"Z" + op, numkeys, *keys, *tail])

    def g_zintercard(self):
        n = self.r.randint(1, 3)
        cmd = [b"ZINTERCARD", b"%d" % n, *[self.tkey() for _ in range(n)]]
        if self.chance(0.4):
            cmd += [b"LIMIT", self.pick([b"0", b"1", b"3", b"-1", b"x"])]
        return Cmd(cmd)

    def g_zrandmember(self):
        k = self.key()
        if self.chance(0.3):
            return Cmd([b"ZRANDMEMBER", k], kind="zrand")
        cmd = [b"ZRANDMEMBER", k, self.pick([b"1", b"3", b"-3", b"0", b"500", b"-5", b"x",
                                              b"9223372036854775807",
                                              b"-9223372036854775808"])]
        if self.chance(0.4):
            cmd.append(b"WITHSCORES")
        return Cmd(cmd, kind="zrand")

    def g_zscan(self):
        cmd = [b"ZSCAN", self.key(), b"0"]
        if self.chance(0.3):
            cmd += [b"MATCH", self.pick([b"m1*", b"*", b"b*", b"?"])]
        if self.chance(0.3):
            cmd += [b"COUNT", self.pick([b"10", b"1000", b"0"])]
        return Cmd(cmd, kind="zscan")

    def g_generic(self):
        k = self.key()
        c = self.r.randrange(10)
        if c == 9:
            return Cmd([b"TTL", self.tkey()], kind="ttl_s")
        if c == 0:
            return Cmd([b"DEL", k])
        if c == 1:
            return Cmd([b"EXISTS", k])
        if c == 2:
            return Cmd([b"TYPE", k])
        if c == 3:
            return Cmd([b"OBJECT", b"ENCODING", k])
        if c == 4:
            return Cmd([b"EXPIRE", k, b"100000"])
        if c == 5:
            return Cmd([b"RENAME", self.tkey(), self.tkey()])
        if c == 6:
            return Cmd([b"COPY", self.tkey(), self.tkey(), *([b"REPLACE"] if self.chance(0.5)
                                                             else [])])
        if c == 7:
            return Cmd([b"SET", self.pick(STRING_KEYS + [k] if self.chance(0.1) else
                                          STRING_KEYS), b"v"])
        return Cmd([b"ZCARD", self.pick(STRING_KEYS)])

    def g_negzero(self):
        """-0 and 0 around the conversion point. Redis 7.0 sizes a new key by its first member
        and converts a listpack member by member inside one ZADD: the members added before
        the conversion went through the listpack's integer form (0), the later ones keep -0.
        ZSCORE, WITHSCORES and DEBUG DIGEST-VALUE show which; ZINCRBY by -0 and *STORE with
        a -0 weight make more of them."""
        k = self.key()
        c = self.r.randrange(4)
        if c == 0:
            n = self.pick([1, 2, 3, 60, 126, 127, 128, 129, 130, 140])
            pairs = []
            for i in range(n):
                pairs += [self.pick([b"-0", b"0", b"-0.0", b"-0", b"1", b"-1e-320"]),
                          b"n%d" % self.r.randrange(150)]
            self.pending += [Cmd([b"ZSCORE", k, pairs[1]]), Cmd([b"ZSCORE", k, pairs[-1]]),
                             Cmd([b"OBJECT", b"ENCODING", k]),
                             Cmd([b"DEBUG", b"DIGEST-VALUE", k])]
            return Cmd([b"ZADD", k, *pairs])
        if c == 1:
            m = b"n%d" % self.r.randrange(150) if self.chance(0.5) else self.member()
            self.pending += [Cmd([b"ZSCORE", k, m]), Cmd([b"DEBUG", b"DIGEST-VALUE", k])]
            return Cmd([b"ZINCRBY", k, self.pick([b"-0", b"0", b"-0.0"]), m])
        if c == 2:
            dst, keys = self.tkey(), [self.tkey(), self.tkey()]
            self.pending += [Cmd([b"ZRANGE", dst, b"0", b"5", b"WITHSCORES"]),
                             Cmd([b"DEBUG", b"DIGEST-VALUE", dst])]
            return Cmd([self.pick([b"ZUNIONSTORE", b"ZINTERSTORE"]), dst, b"2", *keys,
                        b"WEIGHTS", self.pick([b"-0", b"0", b"1"]), self.pick([b"-0", b"-1"])])
        # Keys of both workers at once through the proxy: each answered by its owner.
        return Cmd([b"DEBUG", b"DIGEST-VALUE", *[self.key() for _ in range(self.r.randint(1, 5))]])

    def g_wrongtype(self):
        k = self.pick(STRING_KEYS)
        return self.pick([Cmd([b"ZADD", k, b"1", b"a"]), Cmd([b"ZRANGE", k, b"0", b"-1"]),
                          Cmd([b"ZSCORE", k, b"a"]), Cmd([b"ZUNIONSTORE", b"{z}0", b"2",
                                                          b"{z}1", b"{z}str"])])

    def g_arity(self):
        return self.pick([Cmd([b"ZADD", self.key()]), Cmd([b"ZADD", self.key(), b"1"]),
                          Cmd([b"ZRANGE", self.key(), b"0"]), Cmd([b"ZCARD"]),
                          Cmd([b"ZINCRBY", self.key(), b"1"]), Cmd([b"ZRANK", self.key()]),
                          Cmd([b"ZPOPMIN"]), Cmd([b"ZMPOP", b"1"]), Cmd([b"ZSCAN", self.key()]),
                          Cmd([b"ZRANGE", self.key(), b"0", b"1", b"LIMIT", b"0", b"1"]),
                          Cmd([b"ZRANGEBYLEX", self.key(), b"-", b"+", b"WITHSCORES"]),
                          Cmd([b"ZADD", self.key(), b"NX", b"XX", b"1", b"a"]),
                          Cmd([b"ZADD", self.key(), b"GT", b"LT", b"1", b"a"]),
                          Cmd([b"ZADD", self.key(), b"INCR", b"1", b"a", b"2", b"b"]),
                          Cmd([b"ZSCAN", self.key(), b"abc"]),
                          Cmd([b"ZSCAN", self.key(), b"0", b"COUNT", b"x"])])


WEIGHTS = {
    "zadd": 22, "zadd_bulk": 2, "zincrby": 5, "zrem": 6, "zcard": 3, "zscore": 5, "zrank": 4,
    "zcount": 5, "zrange": 10, "zrange_old": 6, "zrangestore": 3, "zremrange": 4, "zpop": 4,
    "zmpop": 2, "zsetop": 5, "zintercard": 2, "zrandmember": 3, "zscan": 2, "generic": 6,
    "wrongtype": 1, "arity": 2, "lex_add": 4, "lex_bulk": 1, "sort": 2, "negzero": 3,
}
