"""Seeded random command generator for the list family's differential test.

Same contract as cmdgen.Generator (whose primitives it reuses): `next()` returns a cmdgen.Cmd,
everything depends only on the seed. The stream mixes every non-blocking list command with
DEL/EXISTS/TYPE/OBJECT ENCODING/EXPIRE/TTL/RENAME/COPY, string commands on the same keys
(WRONGTYPE both ways), bad arguments and wrong arities. Lists grow past the 8 KiB node limit
(bulk pushes of up to 400 members, members of 70..9000 bytes: a member above the node limit
sits alone in its node) and shrink back (LTRIM, counted pops, LREM), so every quicklist
boundary is crossed both ways; members include integer-looking, non-canonical integers and
binary bytes, indexes are negative and out of range.
"""

import cmdgen
from cmdgen import EDGE_INTS, BAD_NUMBERS, Cmd

# A few keys so that commands collide; a hash tag pair for multi-key commands on 2 workers.
LIST_KEYS = [b"l%d" % i for i in range(8)] + [b"{q}a", b"{q}b", b"bin\x00\xff\r\n"]
STRING_KEYS = [b"s0", b"s1"]

SMALL = [b"a", b"b", b"c", b"d", b"1", b"2", b"-1", b"0", b"100", b"007", b"-0", b"+5",
         b"3.5", b"", b"9223372036854775807", b"-9223372036854775808",
         b"9223372036854775808", b"12345678901", b"\x00\xff\r\n", b"bin\x00", b"a b",
         b"4095", b"4096", b"-4096", b"-4097", b"127", b"128", b"32767", b"-32769",
         b"8388607", b"-8388609", b"2147483647", b"-2147483649"]


class Generator(cmdgen.Generator):
    def __init__(self, seed):
        super().__init__(seed, WEIGHTS, "l_")

    # ---- primitives -------------------------------------------------------------------

    def key(self):
        if self.chance(0.06):
            return self.pick(STRING_KEYS)
        return self.pick(LIST_KEYS)

    def member(self):
        x = self.r.random()
        if x < 0.7:
            return self.pick(SMALL)
        if x < 0.85:
            return b"%d" % self.r.randint(-100000, 100000)
        if x < 0.97:
            return self.ascii(60, 300)
        return self.ascii(4000, 9000)

    def index(self):
        x = self.r.random()
        if x < 0.6:
            return b"%d" % self.r.randint(-12, 12)
        if x < 0.85:
            return b"%d" % self.r.randint(-600, 600)
        if x < 0.95:
            return self.pick(EDGE_INTS)
        return self.pick(BAD_NUMBERS)

    def end(self):
        if self.chance(0.03):
            return self.pick([b"UP", b"", b"LEFTX"])
        return self.case(self.pick(["LEFT", "RIGHT"]))

    def count(self):
        x = self.r.random()
        if x < 0.7:
            return b"%d" % self.r.randint(0, 6)
        if x < 0.85:
            return b"%d" % self.r.randint(0, 500)
        if x < 0.92:
            return self.pick(EDGE_INTS)
        return self.pick(BAD_NUMBERS + [b"-1", b"-5"])

    # ---- list commands ------------------------------------------------------------------

    def l_push(self):
        name = self.pick(["LPUSH", "RPUSH", "LPUSH", "RPUSH", "LPUSHX", "RPUSHX"])
        n = self.r.randint(1, 6) if self.chance(0.9) else self.r.randint(50, 400)
        return Cmd([self.case(name), self.key()] + [self.member() for _ in range(n)])

    def l_pop(self):
        args = [self.case(self.pick(["LPOP", "RPOP"])), self.key()]
        if self.chance(0.5):
            args.append(self.count())
        return Cmd(args)

    def l_llen(self):
        return Cmd([self.case("LLEN"), self.key()])

    def l_lrange(self):
        return Cmd([self.case("LRANGE"), self.key(), self.index(), self.index()])

    def l_lindex(self):
        return Cmd([self.case("LINDEX"), self.key(), self.index()])

    def l_lset(self):
        return Cmd([self.case("LSET"), self.key(), self.index(), self.member()])

    def l_linsert(self):
        where = self.case(self.pick(["BEFORE", "AFTER"])) if self.chance(0.95) else b"MIDDLE"
        return Cmd([self.case("LINSERT"), self.key(), where, self.member(), self.member()])

    def l_lrem(self):
        c = b"%d" % self.r.randint(-3, 3) if self.chance(0.9) else self.index()
        return Cmd([self.case("LREM"), self.key(), c, self.member()])

    def l_ltrim(self):
        if self.chance(0.5):
            return Cmd([self.case("LTRIM"), self.key(), b"%d" % self.r.randint(0, 30),
                        b"%d" % self.r.randint(-40, 300)])
        return Cmd([self.case("LTRIM"), self.key(), self.index(), self.index()])

    def l_lpos(self):
        args = [self.case("LPOS"), self.key(), self.member()]
        opts = []
        if self.chance(0.5):
            r = self.r.random()
            rank = (b"%d" % self.r.choice([-3, -2, -1, 1, 2, 3]) if r < 0.85 else
                    self.pick([b"0", b"abc", b"-9223372036854775808", b"9223372036854775807"]))
            opts.append([b"RANK", rank])
        if self.chance(0.5):
            opts.append([b"COUNT", self.count()])
        if self.chance(0.3):
            opts.append([b"MAXLEN", self.count()])
        if self.chance(0.03):
            opts.append(self.pick([[b"RANK"], [b"FOO", b"1"], [b"COUNT"]]))
        self.r.shuffle(opts)
        for o in opts:
            args.append(self.case(o[0].decode()))
            args.extend(o[1:])
        return Cmd(args)

    def l_lmove(self):
        if self.chance(0.3):
            return Cmd([self.case("RPOPLPUSH"), self.key(), self.key()])
        return Cmd([self.case("LMOVE"), self.key(), self.key(), self.end(), self.end()])

    def l_lmpop(self):
        n = self.r.randint(1, 3)
        keys = [self.key() for _ in range(n)]
        num = b"%d" % n
        if self.chance(0.05):
            num = self.pick([b"0", b"-1", b"abc", b"%d" % (n + 5)])
        args = [self.case("LMPOP"), num] + keys + [self.end()]
        if self.chance(0.5):
            args += [self.case("COUNT"), self.count()]
        if self.chance(0.03):
            args.append(self.pick([b"COUNT", b"FOO"]))
        return Cmd(args)

    # ---- neighbours -----------------------------------------------------------------------

    def l_generic(self):
        x = self.r.random()
        k = self.key()
        if x < 0.12:
            return Cmd([self.case(self.pick(["DEL", "UNLINK"])), k])
        if x < 0.22:
            return Cmd([self.case("EXISTS"), k, self.key()])
        if x < 0.34:
            return Cmd([self.case("TYPE"), k])
        if x < 0.5:
            return Cmd([self.case("OBJECT"), self.case("ENCODING"), k])
        if x < 0.6:
            return Cmd([self.case("EXPIRE"), k, self.rel_seconds()])
        if x < 0.65:
            return Cmd([self.case("TTL"), k], "ttl_s")
        if x < 0.72:
            return Cmd([self.case(self.pick(["RENAME", "RENAMENX"])), k, self.key()])
        if x < 0.8:
            args = [self.case("COPY"), k, self.key()]
            if self.chance(0.5):
                args.append(self.case("REPLACE"))
            return Cmd(args)
        if x < 0.86:
            return Cmd([self.case("SET"), self.pick(STRING_KEYS + LIST_KEYS[:2]), self.member()])
        if x < 0.92:
            return Cmd([self.case("GET"), k])
        return Cmd([self.case("PERSIST"), k])

    def l_config(self):
        """A new node limit (both servers answer OK): nodes split and fill differently from
        here on, which no reply may show."""
        return Cmd([b"CONFIG", b"SET", self.pick([b"list-max-listpack-size", b"list-max-ziplist-size"]),
                    self.pick([b"-2", b"-2", b"-1", b"-5", b"1", b"2", b"7", b"128"])])

    def l_arity(self):
        cases = [["LPUSH"], ["LPUSH", self.key()], ["RPUSHX", self.key()], ["LPOP"],
                 ["RPOP", self.key(), b"1", b"2"], ["LLEN"], ["LLEN", self.key(), b"x"],
                 ["LRANGE", self.key(), b"0"], ["LINDEX", self.key()], ["LSET", self.key(), b"0"],
                 ["LINSERT", self.key(), b"BEFORE", b"a"], ["LREM", self.key(), b"0"],
                 ["LTRIM", self.key(), b"0"], ["LPOS", self.key()], ["LMOVE", self.key(), b"x"],
                 ["RPOPLPUSH", self.key()], ["LMPOP", b"1"], ["LMPOP", b"1", self.key()]]
        args = self.pick(cases)
        args[0] = self.case(args[0])
        return Cmd(args)


WEIGHTS = {
    "push": 22, "pop": 10, "llen": 5, "lrange": 10, "lindex": 6, "lset": 5, "linsert": 6,
    "lrem": 5, "ltrim": 4, "lpos": 7, "lmove": 6, "lmpop": 4, "generic": 9, "arity": 1,
    "config": 0.2,
}
