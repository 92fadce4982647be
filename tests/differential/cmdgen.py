"""Seeded random command generator for the differential test (strings, keys, TTL, errors).

Everything here depends only on the seed, never on replies, so a seed replays the same
sequence. Choices that would make two correct servers disagree are kept out on purpose:
relative TTLs are at least 1000 s (no key expires during a run), absolute times are either
far in the past (the key is deleted at once) or past the year 2100, and nothing asks for
a random key or a SCAN order. The remaining time-dependent replies (TTL, PTTL,
EXPIRETIME, PEXPIRETIME) carry a tolerance the runner applies.

Each generated command is a `Cmd`: its arguments (bytes) and how to compare its reply:
  "exact"   byte for byte
  "sorted"  an array whose order is unspecified (KEYS): compared after sorting
  "ttl_s"   an integer that may differ by 1 when it is a time in seconds
  "ttl_ms"  an integer that may differ by 1000 when it is a time in milliseconds
  "lcs"     LCS: the runner first checks both keys' lengths with STRLEN and only sends
            it when they are small (LCS allocates len(a)*len(b) cells)
"""

import random
from dataclasses import dataclass, field

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)

# ~30 keys so that commands keep colliding; a few with bytes that stress the protocol
# and the glob matcher.
KEYS = [b"k%d" % i for i in range(21)] + [
    b"", b"key with space", b"bin\x00\xff\r\n", b"{tag}a", b"{tag}b", "\u00fc".encode(),
    b"*", b"k?", b"k[1]",
]

PATTERNS = [b"*", b"k*", b"k?", b"k1*", b"*a*", b"[k]*", b"k[0-5]", b"k[^0-5]", b"k[!0-5]",
            b"\\*", b"{tag}*", b"", b"b*", b"*\\?", b"k[", b"?", b"??", b"k[1-]", b"k\\[1]",
            b"*\xff*", b"K*", b"k[a-z0-9]*", b"*[", b"k[]", b"\\", b"*ey*", b"k1[0-9]"]

NONCANONICAL_INTS = [b"007", b"-0", b"+5", b" 5", b"5 ", b"0x10", b"1e3", b"00", b"-", b"+",
                     b"", b"0", b"-00", b"1_000", b"\x001", b"12\r\n"]
EDGE_INTS = [b"9223372036854775807", b"-9223372036854775808", b"9223372036854775806",
             b"-9223372036854775807", b"9223372036854775808", b"-9223372036854775809",
             b"18446744073709551616", b"4294967296", b"-4294967297", b"2147483647",
             b"-2147483648", b"99999999999999999999999"]
FLOATS = [b"3.14", b"-2.5", b"1e10", b"1.5e308", b"inf", b"-inf", b"nan", b"0.1", b"1e-5",
          b".5", b"5.", b"1e400", b"-1e400", b"0.30000000000000004", b"1.7976931348623157e308",
          b"+inf", b"Infinity", b"1e", b"--1", b"1.0", b"10.50", b"-0.0", b"0x1p3", b" 1.5"]
BAD_NUMBERS = [b"abc", b"1.5", b"", b" 1", b"1 ", b"9223372036854775808",
               b"-9223372036854775809", b"0x1", b"1e2", b"--1", b"+", b"12a"]

# Absolute times: seconds. Past ones delete the key at once; future ones are past 2100.
PAST_S = (1, 1_500_000_000)
FUTURE_S = (4_200_000_000, 9_000_000_000)


@dataclass
class Cmd:
    args: list
    kind: str = "exact"
    extra: dict = field(default_factory=dict)


class GenBase:
    """What every family's generator shares: the seeded Random, the weighted choice among
    its `<prefix><name>` methods (`weights`: name -> weight), the follow-up commands that
    must come right after the last one (`pending`), and the key pools (`KEY_POOL`, with
    `TAGGED_POOL` the hash-tagged keys the multi-key forms use). `next` returns the pending
    commands first, then draws a method by weight; with allow_lcs=False (the runner is
    building a pipeline) it draws again while the command's kind is one of `unpipelined`,
    the kinds the runner must read around one by one."""

    KEY_POOL = ()
    TAGGED_POOL = ()
    unpipelined = ()

    def __init__(self, seed, weights, prefix="g_"):
        self.r = random.Random(seed)
        self.table = [(w, getattr(self, prefix + name)) for name, w in weights.items()]
        self.total = sum(w for w, _ in self.table)
        self.pending = []

    def pick(self, seq):
        return seq[self.r.randrange(len(seq))]

    def chance(self, p):
        return self.r.random() < p

    def pick_rare(self, p, rare, common):
        """From `rare` with probability p, else from `common` (bad input among good)."""
        return self.pick(rare) if self.chance(p) else self.pick(common)

    def several(self, make, lo, hi):
        """lo..hi (a random count) results of make()."""
        return [make() for _ in range(self.r.randint(lo, hi))]

    def key(self):
        return self.pick(self.KEY_POOL)

    def tkey(self):
        return self.pick(self.TAGGED_POOL)

    def draw(self):
        """One generator method by weight (the last one if rounding leaves x >= 0)."""
        x = self.r.random() * self.total
        for w, fn in self.table:
            x -= w
            if x < 0:
                return fn
        return self.table[-1][1]

    def next(self, allow_lcs=True):
        if self.pending:
            return self.pending.pop(0)
        while True:
            cmd = self.draw()()
            if allow_lcs or cmd.kind not in self.unpipelined:
                cmd.args = [a.encode() if isinstance(a, str) else a for a in cmd.args]
                return cmd


class Generator(GenBase):
    KEY_POOL = KEYS
    unpipelined = ("lcs",)

    def __init__(self, seed, weights=None, prefix="g_"):
        super().__init__(seed, WEIGHTS if weights is None else weights, prefix)

    # ---- primitives -------------------------------------------------------------------

    def keys(self, lo=1, hi=5):
        return self.several(self.key, lo, hi)

    def case(self, name):
        """Command names and options in random letter case, mostly as written."""
        if self.chance(0.85):
            return name
        return "".join(c.lower() if self.chance(0.5) else c.upper() for c in name)

    def ascii(self, lo, hi):
        n = self.r.randint(lo, hi)
        return bytes(self.r.choice(b"abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(n))

    def value(self):
        x = self.r.random()
        if x < 0.22:
            return b"%d" % self.r.randint(-100, 10000)
        if x < 0.30:
            return b"%d" % self.r.randint(-(10**12), 10**12)
        if x < 0.35:
            return self.pick(EDGE_INTS)
        if x < 0.42:
            return self.pick(NONCANONICAL_INTS)
        if x < 0.50:
            return self.pick(FLOATS)
        if x < 0.72:
            return self.ascii(1, 20)
        if x < 0.80:
            return self.ascii(38, 50)  # around the 44-byte embstr boundary
        if x < 0.83:
            return self.ascii(100, 4096)
        if x < 0.88:
            return b""
        n = self.r.randint(1, 40)
        return bytes(self.r.randrange(256) for _ in range(n))

    def small_value(self):
        """For APPEND/SETRANGE, so values grow slowly."""
        v = self.value()
        return v if len(v) <= 64 or self.chance(0.1) else v[:64]

    def int_arg(self, lo, hi, bad=0.05, edge=0.03):
        x = self.r.random()
        if x < bad:
            return self.pick(BAD_NUMBERS)
        if x < bad + edge:
            return self.pick(EDGE_INTS)
        return b"%d" % self.r.randint(lo, hi)

    def rel_seconds(self):
        """A relative TTL in seconds: long enough never to expire within a run."""
        x = self.r.random()
        if x < 0.82:
            return b"%d" % self.r.randint(1000, 10_000_000)
        if x < 0.88:
            return self.pick([b"0", b"-1", b"-1000"])
        if x < 0.94:
            return self.pick([b"9223372036854775807", b"9223372036854775",
                              b"-9223372036854775808", b"9223372036854776", b"-9223372036854776"])
        return self.pick(BAD_NUMBERS)

    def rel_millis(self):
        x = self.r.random()
        if x < 0.82:
            return b"%d" % self.r.randint(1_000_000, 10_000_000_000)
        if x < 0.88:
            return self.pick([b"0", b"-1", b"-1000"])
        if x < 0.94:
            return self.pick([b"9223372036854775807", b"-9223372036854775808",
                              b"9223372036854775000"])
        return self.pick(BAD_NUMBERS)

    def abs_seconds(self, past=0.15):
        x = self.r.random()
        if x < past:
            return b"%d" % self.r.randint(*PAST_S)
        if x < 0.86:
            return b"%d" % self.r.randint(*FUTURE_S)
        if x < 0.93:
            return self.pick([b"0", b"-1", b"9223372036854775807", b"9223372036854775",
                              b"-9223372036854775808"])
        return self.pick(BAD_NUMBERS)

    def abs_millis(self, past=0.15):
        x = self.r.random()
        if x < past:
            return b"%d" % (self.r.randint(*PAST_S) * 1000 + self.r.randint(0, 999))
        if x < 0.86:
            return b"%d" % (self.r.randint(*FUTURE_S) * 1000 + self.r.randint(0, 999))
        if x < 0.93:
            return self.pick([b"0", b"-1", b"9223372036854775807", b"-9223372036854775808"])
        return self.pick(BAD_NUMBERS)

    def db_index(self):
        x = self.r.random()
        if x < 0.9:
            return b"%d" % self.r.randint(0, 2)
        if x < 0.95:
            return self.pick([b"15", b"3"])
        return self.pick([b"16", b"-1", b"abc", b"9223372036854775808", b"1.0"])

    def expire_flags(self):
        """Mostly none or one of NX/XX/GT/LT; sometimes invalid combinations."""
        x = self.r.random()
        if x < 0.5:
            return []
        if x < 0.9:
            return [self.case(self.pick(["NX", "XX", "GT", "LT"]))]
        n = self.r.randint(2, 3)
        return [self.case(self.pick(["NX", "XX", "GT", "LT", "FOO"])) for _ in range(n)]

    # ---- strings -----------------------------------------------------------------------

    def g_get(self):
        return Cmd([self.case("GET"), self.key()])

    def g_set(self):
        args = [self.case("SET"), self.key(), self.value()]
        opts = []
        if self.chance(0.5):
            opts.append([self.pick(["NX", "XX"])])
        if self.chance(0.3):
            opts.append(["GET"])
        if self.chance(0.45):
            unit = self.pick(["EX", "PX", "EXAT", "PXAT", "KEEPTTL"])
            if unit == "EX":
                opts.append([unit, self.rel_seconds()])
            elif unit == "PX":
                opts.append([unit, self.rel_millis()])
            elif unit == "EXAT":
                opts.append([unit, self.abs_seconds()])
            elif unit == "PXAT":
                opts.append([unit, self.abs_millis()])
            else:
                opts.append([unit])
        if self.chance(0.06):  # invalid: a second, conflicting or unknown option
            opts.append(self.pick([["NX"], ["XX"], ["EX", b"100000"], ["PX", b"100000000"],
                                   ["KEEPTTL"], ["FOO"], ["EX"], ["PERSIST"], ["GET"],
                                   ["EXAT", self.abs_seconds()]]))
        self.r.shuffle(opts)
        for o in opts:
            args.append(self.case(o[0]))
            args.extend(o[1:])
        if any(o[0] in ("EXAT", "PXAT") for o in opts):
            # Redis 7.0 stores a key SET with a past EXAT/PXAT and leaves it to expiry,
            # so DBSIZE would depend on the active-expiry timing: touch it at once.
            self.pending.append(Cmd([b"EXISTS", args[1]]))
        return Cmd(args)

    def g_setnx(self):
        return Cmd([self.case("SETNX"), self.key(), self.value()])

    def g_setex(self):
        if self.chance(0.5):
            return Cmd([self.case("SETEX"), self.key(), self.rel_seconds(), self.value()])
        return Cmd([self.case("PSETEX"), self.key(), self.rel_millis(), self.value()])

    def g_getset(self):
        return Cmd([self.case("GETSET"), self.key(), self.value()])

    def g_getdel(self):
        return Cmd([self.case("GETDEL"), self.key()])

    def g_getex(self):
        args = [self.case("GETEX"), self.key()]
        x = self.r.random()
        if x < 0.25:
            pass
        elif x < 0.4:
            args += [self.case("EX"), self.rel_seconds()]
        elif x < 0.55:
            args += [self.case("PX"), self.rel_millis()]
        elif x < 0.68:
            args += [self.case("EXAT"), self.abs_seconds()]
        elif x < 0.8:
            args += [self.case("PXAT"), self.abs_millis()]
        elif x < 0.92:
            args += [self.case("PERSIST")]
        else:
            args += self.pick([["EX"], ["PERSIST", "EX", b"100000"], ["EX", b"100000", "PX",
                               b"100000000"], ["FOO"], ["KEEPTTL"], ["PERSIST", "PERSIST"]])
        return Cmd(args)

    def g_mget(self):
        return Cmd([self.case("MGET")] + self.keys(1, 6))

    def g_mset(self):
        name = self.pick(["MSET", "MSETNX"])
        args = [self.case(name)]
        for _ in range(self.r.randint(1, 4)):
            args += [self.key(), self.value()]
        if self.chance(0.04):
            args.append(self.key())  # odd argument count
        return Cmd(args)

    def g_append(self):
        return Cmd([self.case("APPEND"), self.key(), self.small_value()])

    def g_strlen(self):
        return Cmd([self.case("STRLEN"), self.key()])

    def g_getrange(self):
        name = self.pick(["GETRANGE", "SUBSTR"])
        return Cmd([self.case(name), self.key(), self.int_arg(-60, 60), self.int_arg(-60, 60)])

    def g_setrange(self):
        x = self.r.random()
        if x < 0.8:
            off, val = b"%d" % self.r.randint(0, 80), self.small_value()
        elif x < 0.88:
            off, val = b"%d" % self.r.randint(0, 5000), self.ascii(0, 10)
        elif x < 0.94:
            off, val = self.pick([b"-1", b"abc", b"1.5", b"9223372036854775808"]), b"x"
        else:  # past 512 MB: an error, or (empty value) the length, never an allocation
            off, val = self.pick([(b"536870912", b"x"), (b"536870911", b"xy"),
                                  (b"536870912", b""), (b"9223372036854775807", b"x")])
        return Cmd([self.case("SETRANGE"), self.key(), off, val])

    def g_incr(self):
        x = self.r.random()
        if x < 0.3:
            return Cmd([self.case(self.pick(["INCR", "DECR"])), self.key()])
        if x < 0.75:
            name = self.pick(["INCRBY", "DECRBY"])
            y = self.r.random()
            if y < 0.7:
                by = b"%d" % self.r.randint(-1000, 1000)
            elif y < 0.9:
                by = self.pick(EDGE_INTS)
            else:
                by = self.pick(BAD_NUMBERS + NONCANONICAL_INTS)
            return Cmd([self.case(name), self.key(), by])
        y = self.r.random()
        if y < 0.6:
            by = self.pick([b"%d" % self.r.randint(-100, 100),
                            b"%.3f" % (self.r.random() * 200 - 100),
                            b"%de%d" % (self.r.randint(1, 9), self.r.randint(-5, 5))])
        else:
            by = self.pick(FLOATS + BAD_NUMBERS + EDGE_INTS)
        return Cmd([self.case("INCRBYFLOAT"), self.key(), by])

    def g_lcs(self):
        args = [self.case("LCS"), self.key(), self.key()]
        opts = []
        if self.chance(0.3):
            opts.append(["LEN"])
        if self.chance(0.4):
            opts.append(["IDX"])
        if self.chance(0.3):
            opts.append(["MINMATCHLEN", self.int_arg(0, 5)])
        if self.chance(0.3):
            opts.append(["WITHMATCHLEN"])
        if self.chance(0.05):
            opts.append(self.pick([["FOO"], ["MINMATCHLEN"]]))
        self.r.shuffle(opts)
        for o in opts:
            args.append(self.case(o[0]))
            args.extend(o[1:])
        return Cmd(args, "lcs")

    # ---- keys --------------------------------------------------------------------------

    def g_del(self):
        return Cmd([self.case(self.pick(["DEL", "UNLINK"]))] + self.keys(1, 4))

    def g_exists(self):
        return Cmd([self.case(self.pick(["EXISTS", "TOUCH"]))] + self.keys(1, 5))

    def g_type(self):
        return Cmd([self.case("TYPE"), self.key()])

    def g_rename(self):
        return Cmd([self.case(self.pick(["RENAME", "RENAMENX"])), self.key(), self.key()])

    def g_copy(self):
        args = [self.case("COPY"), self.key(), self.key()]
        opts = []
        if self.chance(0.4):
            opts.append(["DB", self.db_index()])
        if self.chance(0.4):
            opts.append(["REPLACE"])
        if self.chance(0.04):
            opts.append(self.pick([["FOO"], ["DB"]]))
        self.r.shuffle(opts)
        for o in opts:
            args.append(self.case(o[0]))
            args.extend(o[1:])
        return Cmd(args)

    def g_move(self):
        return Cmd([self.case("MOVE"), self.key(), self.db_index()])

    def g_keys(self):
        return Cmd([self.case("KEYS"), self.pick(PATTERNS)], "sorted")

    def g_dbsize(self):
        return Cmd([self.case("DBSIZE")])

    def g_expire(self):
        name = self.pick(["EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT"])
        t = {"EXPIRE": self.rel_seconds, "PEXPIRE": self.rel_millis,
             "EXPIREAT": self.abs_seconds, "PEXPIREAT": self.abs_millis}[name]()
        return Cmd([self.case(name), self.key(), t] + self.expire_flags())

    def g_ttl(self):
        name = self.pick(["TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"])
        kind = "ttl_ms" if name.startswith("P") else "ttl_s"
        return Cmd([self.case(name), self.key()], kind)

    def g_persist(self):
        return Cmd([self.case("PERSIST"), self.key()])

    def g_select(self):
        return Cmd([self.case("SELECT"), self.db_index()])

    def g_swapdb(self):
        return Cmd([self.case("SWAPDB"), self.db_index(), self.db_index()])

    def g_flushdb(self):
        args = [self.case("FLUSHDB")]
        if self.chance(0.3):
            args.append(self.case(self.pick(["ASYNC", "SYNC", "FOO"])))
        return Cmd(args)

    def g_object(self):
        if self.chance(0.93):
            return Cmd([self.case("OBJECT"), self.case("ENCODING"), self.key()])
        return Cmd(self.pick([["OBJECT", "FOO", self.key()], ["OBJECT", "ENCODING"],
                              ["OBJECT", "ENCODING", self.key(), self.key()], ["OBJECT"]]))

    def g_ping(self):
        x = self.r.random()
        if x < 0.4:
            return Cmd([self.case("PING")])
        if x < 0.7:
            return Cmd([self.case("PING"), self.value()])
        if x < 0.9:
            return Cmd([self.case("ECHO"), self.value()])
        return Cmd(self.pick([["PING", b"a", b"b"], ["ECHO"], ["ECHO", b"a", b"b"]]))

    # ---- errors ------------------------------------------------------------------------

    def g_arity(self):
        """A known command with too few or too many arguments."""
        cases = [["GET"], ["GET", self.key(), self.key()], ["SET", self.key()], ["SET"],
                 ["SETNX", self.key()], ["SETEX", self.key(), b"100"], ["PSETEX"],
                 ["GETSET", self.key()], ["GETDEL"], ["GETDEL", self.key(), self.key()],
                 ["GETEX"], ["MGET"], ["MSET"], ["MSET", self.key()], ["MSETNX", self.key()],
                 ["APPEND", self.key()], ["STRLEN"], ["GETRANGE", self.key(), b"0"],
                 ["SUBSTR", self.key()], ["SETRANGE", self.key(), b"0"], ["INCR"],
                 ["INCR", self.key(), b"1"], ["DECR"], ["INCRBY", self.key()],
                 ["DECRBY", self.key(), b"1", b"2"], ["INCRBYFLOAT", self.key()], ["LCS"],
                 ["LCS", self.key()], ["DEL"], ["UNLINK"], ["EXISTS"], ["TYPE"],
                 ["TYPE", self.key(), self.key()], ["RENAME", self.key()], ["RENAMENX"],
                 ["COPY", self.key()], ["MOVE", self.key()], ["KEYS"],
                 ["KEYS", b"*", b"*"], ["DBSIZE", self.key()], ["TOUCH"], ["EXPIRE", self.key()],
                 ["PEXPIRE"], ["EXPIREAT", self.key()], ["PEXPIREAT"], ["TTL"],
                 ["PTTL", self.key(), self.key()], ["EXPIRETIME"], ["PEXPIRETIME"],
                 ["PERSIST"], ["SELECT"], ["SELECT", b"0", b"1"], ["SWAPDB", b"0"],
                 ["OBJECT"], ["ECHO"], ["PING", b"a", b"b"]]
        args = self.pick(cases)
        args[0] = self.case(args[0])
        return Cmd(args)

    def g_unknown(self):
        name = self.pick([b"FOOBAR", b"GETT", b"sett", b"", b"x" * 200, b"bin\r\n\x00",
                          b"HGETX", b"EXPIRE_", b"DEL "])
        args = [name]
        for _ in range(self.r.randint(0, 6)):
            args.append(self.pick([self.key(), self.value(), self.ascii(50, 150)]))
        return Cmd(args)

    def g_hello_err(self):
        return Cmd(self.pick([["HELLO", b"4"], ["HELLO", b"abc"], ["HELLO", b"1"],
                              ["HELLO", b"-1"], ["HELLO", b"3", b"FOO"],
                              ["HELLO", b"3", b"AUTH", b"default"]]))


WEIGHTS = {
    "get": 60, "set": 80, "setnx": 10, "setex": 12, "getset": 8, "getdel": 8, "getex": 20,
    "mget": 15, "mset": 15, "append": 20, "strlen": 10, "getrange": 15, "setrange": 15,
    "incr": 50, "lcs": 6, "del": 20, "exists": 15, "type": 8, "rename": 12, "copy": 12,
    "move": 8, "keys": 8, "dbsize": 8, "expire": 45, "ttl": 45, "persist": 8, "select": 6,
    "swapdb": 0.6, "flushdb": 0.3, "object": 12, "ping": 4, "arity": 10, "unknown": 4,
    "hello_err": 1,
}
