"""Seeded random command generator for the set family's differential test.

Like cmdgen.py, everything depends only on the seed. Each command is a cmdgen.Cmd whose kind
tells test_set_differential.py how to compare:
  "exact"     byte for byte
  "members"   SMEMBERS: exact when redis-server's set is an intset (ordered on both sides),
              else as a sorted multiset
  "sorted"    SINTER/SUNION/SDIFF: a sorted multiset (their order follows each server's table);
              SORT ALPHA too (strcoll ties); numeric SORT/SORT_RO are "exact"
  "encoding"  OBJECT ENCODING: exact, except that redis-server 7.0's "hashtable" may be
              Ruvio's "listpack" (small sets of non-integers, as Redis 7.2)
  "random"    SRANDMEMBER: shape, size, distinctness (positive count), membership
  "pop"       SPOP: as "random"; then the runner makes both servers' sets equal again
  "scan"      SSCAN: a full iteration on each side, compared as sets (exact when intset)

The keys are few so that commands collide; the member pools mix small integers (intset),
integers of every intset width, non-canonical integers (strings), short strings, binary
members, members of 63/64/65/100 bytes (the listpack value limit) and bulk adds that cross
set-max-intset-entries (512) and set-max-listpack-entries (128) both ways.
"""

from cmdgen import Cmd, GenBase

SET_KEYS = [b"s%d" % i for i in range(6)] + [b"{t}a", b"{t}b", b"{t}c", b"s\x00\xff"]
OTHER = b"str"  # a string key: WRONGTYPE
KEYS = SET_KEYS + [OTHER, b"missing"]

INTS = [b"%d" % i for i in range(-3, 25)] + [
    b"32767", b"32768", b"-32769", b"2147483647", b"2147483648", b"-2147483649",
    b"9223372036854775807", b"-9223372036854775808", b"4000000000"]
NONCANON = [b"007", b"+5", b"-0", b" 5", b"5 ", b"1e3", b"00", b"9223372036854775808",
            b"-9223372036854775809", b"0x10"]
STRS = [b"a", b"b", b"c", b"d", b"e", b"foo", b"bar", b"", b"\x00", b"\xff\xfe", b"a\r\nb",
        b"x" * 63, b"y" * 64, b"z" * 65, b"w" * 100, b"*", b"m?", b"m1"]
PATTERNS = [b"*", b"1*", b"*a*", b"?", b"m*", b"[a-c]", b"-*", b"x*", b"*\xff*", b"[", b"\\*"]
BAD_INTS = [b"abc", b"1.5", b"", b" 1", b"9223372036854775808", b"-9223372036854775809",
            b"-9223372036854775808", b"12a"]


KIND_OF = {b"SMEMBERS": "members", b"SINTER": "sorted", b"SUNION": "sorted",
           b"SDIFF": "sorted", b"SPOP": "pop", b"SRANDMEMBER": "random", b"SSCAN": "scan"}


class SetGenerator(GenBase):
    """Draws by cumulative probability in next() (one key per draw), not by weight table."""

    def __init__(self, seed):
        super().__init__(seed, {})

    def key(self):
        r = self.r
        return r.choice(SET_KEYS) if r.random() < 0.9 else r.choice(KEYS)

    def member(self):
        r = self.r
        x = r.random()
        if x < 0.45:
            return r.choice(INTS)
        if x < 0.55:
            return r.choice(NONCANON)
        if x < 0.9:
            return r.choice(STRS)
        return b"m%d" % r.randint(0, 300)

    def members(self, lo=1, hi=5):
        return self.several(self.member, lo, hi)

    def bulk(self):
        """Many members at once: around the intset and listpack entry limits."""
        r = self.r
        if r.random() < 0.5:
            base = r.choice([0, 100, -1000, 1 << 40])
            n = r.choice([r.randint(120, 135), r.randint(505, 520), r.randint(1, 20)])
            return [b"%d" % (base + i) for i in range(n)]
        n = r.choice([r.randint(120, 135), r.randint(1, 20), r.randint(250, 300)])
        return [b"m%d" % i for i in range(n)]

    def keys(self, lo=1, hi=4):
        return self.several(self.key, lo, hi)

    def count(self):
        r = self.r
        return r.choice([b"0", b"1", b"2", b"3", b"5", b"10", b"100", b"600", b"-1", b"-3",
                         b"-20", b"%d" % r.randint(-700, 700)])

    def bad(self):
        r = self.r
        k = self.key()
        choices = [
            [b"SADD", k], [b"SREM", k], [b"SCARD"], [b"SCARD", k, k], [b"SISMEMBER", k],
            [b"SMISMEMBER", k], [b"SMEMBERS"], [b"SRANDMEMBER"], [b"SPOP"],
            [b"SMOVE", k, k], [b"SINTER"], [b"SINTERCARD", b"1"], [b"SINTERSTORE", k],
            [b"SUNION"], [b"SDIFFSTORE", k], [b"SSCAN", k],
            [b"SPOP", k, r.choice(BAD_INTS + [b"-1"])], [b"SPOP", k, b"1", b"2"],
            [b"SRANDMEMBER", k, r.choice(BAD_INTS)], [b"SRANDMEMBER", k, b"1", b"2"],
            [b"SINTERCARD", r.choice([b"0", b"-1", b"x", b""]), k],
            [b"SINTERCARD", b"3", k], [b"SINTERCARD", b"1", k, b"LIMIT"],
            [b"SINTERCARD", b"1", k, b"LIMIT", r.choice([b"-1", b"x"])],
            [b"SINTERCARD", b"1", k, b"FOO", b"1"],
            [b"SSCAN", k, r.choice([b"x", b"-", b"1.5", b" 1"])],
            [b"SSCAN", k, b"0", b"COUNT", r.choice([b"0", b"-1", b"x"])],
            [b"SSCAN", k, b"0", b"TYPE", b"set"], [b"SSCAN", k, b"0", b"MATCH"],
            [b"SADD", OTHER, b"a"], [b"SMEMBERS", OTHER], [b"SINTER", k, OTHER],
            [b"SUNION", OTHER, k], [b"SMOVE", k, OTHER, self.member()],
            [b"SMOVE", OTHER, k, self.member()], [b"SPOP", OTHER], [b"SCARD", OTHER],
            [b"SRANDMEMBER", OTHER, b"2"], [b"SSCAN", OTHER, b"0"], [b"SISMEMBER", OTHER, b"a"],
            [b"SINTERCARD", b"1", OTHER], [b"SPOP", OTHER, b"2"],
        ]
        args = r.choice(choices)
        # OTHER may hold a set by now (RENAME, COPY, *STORE): compare as that command's kind.
        return Cmd(args, KIND_OF.get(args[0], "exact"))

    def next(self, allow_lcs=True):  # every kind may be pipelined: allow_lcs changes nothing
        r = self.r
        x = r.random()
        k = self.key()
        if x < 0.16:
            return Cmd([b"SADD", k] + self.members())
        if x < 0.20:
            return Cmd([b"SADD", k] + self.bulk())
        if x < 0.27:
            return Cmd([b"SREM", k] + self.members(1, 8))
        if x < 0.29:
            return Cmd([b"SREM", k] + self.bulk())
        if x < 0.33:
            return Cmd([b"SCARD", k])
        if x < 0.37:
            return Cmd([b"SISMEMBER", k, self.member()])
        if x < 0.40:
            return Cmd([b"SMISMEMBER", k] + self.members())
        if x < 0.44:
            return Cmd([b"SMEMBERS", k], "members")
        if x < 0.47:
            args = [b"SRANDMEMBER", k] + ([self.count()] if r.random() < 0.7 else [])
            return Cmd(args, "random")
        if x < 0.50:
            args = [b"SPOP", k] + ([self.count()] if r.random() < 0.6 else [])
            return Cmd(args, "pop")
        if x < 0.54:
            return Cmd([b"SMOVE", k, self.key(), self.member()])
        if x < 0.60:
            return Cmd([r.choice([b"SINTER", b"SUNION", b"SDIFF"])] + self.keys(), "sorted")
        if x < 0.63:
            ks = self.keys()
            args = [b"SINTERCARD", b"%d" % len(ks)] + ks
            if r.random() < 0.5:
                args += [b"LIMIT", r.choice([b"0", b"1", b"2", b"5", b"1000"])]
            return Cmd(args)
        if x < 0.68:
            op = r.choice([b"SINTERSTORE", b"SUNIONSTORE", b"SDIFFSTORE"])
            return Cmd([op, self.key()] + self.keys())
        if x < 0.71:
            args = [b"SSCAN", k, b"0"]
            if r.random() < 0.5:
                args += [b"MATCH", r.choice(PATTERNS)]
            if r.random() < 0.5:
                args += [b"COUNT", r.choice([b"1", b"5", b"10", b"1000"])]
            return Cmd(args, "scan")
        if x < 0.76:
            return Cmd([b"OBJECT", b"ENCODING", k], "encoding")
        if x < 0.78:
            return Cmd([b"DEL"] + self.keys(1, 2))
        if x < 0.80:
            return Cmd([b"EXISTS"] + self.keys(1, 3))
        if x < 0.82:
            return Cmd([b"TYPE", k])
        if x < 0.83:
            return Cmd([b"EXPIRE", k, b"%d" % r.randint(1000, 100000)])
        if x < 0.84:
            if r.random() < 0.2:
                return Cmd([b"EXPIRE", k, b"-1"])
            return Cmd([b"TTL", k], "ttl_s")
        if x < 0.86:
            return Cmd([b"RENAME", k, self.key()])
        if x < 0.88:
            return Cmd([b"COPY", k, self.key()] + ([b"REPLACE"] if r.random() < 0.5 else []))
        if x < 0.89:
            return Cmd([b"SET", OTHER, b"v"])
        if x < 0.91:
            return self.sort(k)
        return self.bad()

    def sort(self, k):
        """SORT / SORT_RO without BY/GET patterns (they name keys of other workers at 2
        workers). Numeric sorts are exact (equal weights fall back to the members' bytes);
        ALPHA compares with strcoll, so b"" and b"\\x00" tie in an order that follows each
        server's table: compared as a multiset, and never cut by LIMIT."""
        r = self.r
        args = [r.choice([b"SORT", b"SORT_RO"]), k]
        alpha = r.random() < 0.3
        if alpha:
            args.append(b"ALPHA")
        if r.random() < 0.4:
            args.append(r.choice([b"DESC", b"ASC", b"desc"]))
        if not alpha and r.random() < 0.5:
            args += [b"LIMIT", r.choice([b"0", b"1", b"-1", b"5", b"130", b"600"]),
                     r.choice([b"0", b"1", b"3", b"-1", b"200", b"9223372036854775807"])]
        if r.random() < 0.2:
            args += [b"GET", b"#"]
        if r.random() < 0.05:
            args.append(r.choice([b"LIMIT", b"BY", b"FOO", b"STORE"]))
        return Cmd(args, "sorted" if alpha else "exact")
