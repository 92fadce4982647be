"""HRANDFIELD / SRANDMEMBER / ZRANDMEMBER pick every element with the same probability, in
every encoding, as Redis does (its tests run a chi-square over the draws).

200 elements; 10,000 draws three ways: single-element calls, one count=-10000 call (with
repetition) and 500 count=+20 calls (distinct within a call: Redis's "few of many" path);
and 100 count=+150 calls (the "many of the set" path). The χ² of the per-element counts
against uniform must be below the 99.9% critical value for 199 degrees of freedom. A fair
sampler exceeds that one time in a thousand, so a check fails only when a second, independent
batch exceeds it too (one in a million); a biased one (a random bucket, then an element in it:
χ² ~350 here) fails both. The figures go to stderr.

redis-server 7.0.15 passes these on listpack and intset but NOT on hashtable / skiplist: its
dictGetFairRandomKey (a random bucket run, then an element in it) scores χ² ~700-850 at 200
elements. So the reference class asserts only where Redis is uniform and prints the rest;
Redis's own test shape (10 elements, SRANDMEMBER/HRANDFIELD/ZRANDMEMBER -1000, χ² < 40 at 9
degrees of freedom: p = 0.00001) is asserted for both servers.
"""

import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

N = 200
DRAWS = 10_000


def critical_999(df):
    """Wilson-Hilferty approximation of the chi-square 99.9% quantile (z = 3.0902)."""
    z = 3.090232
    a = 2.0 / (9.0 * df)
    return df * (1.0 - a + z * math.sqrt(a)) ** 3


def chi2(counts, members):
    total = sum(counts.get(m, 0) for m in members)
    assert total == sum(counts.values()), "a draw returned something not in the key"
    exp = total / len(members)
    return sum((counts.get(m, 0) - exp) ** 2 / exp for m in members)


# (type, encoding wanted, CONFIG SET pairs, members)
STR = [f"member:{i}" for i in range(N)]
INTS = [str(1000 + i) for i in range(N)]
LAYOUTS = [
    ("hash", "hashtable", [("hash-max-listpack-entries", "0")], STR),
    ("hash", "listpack", [("hash-max-listpack-entries", "512")], STR),
    ("set", "hashtable", [("set-max-intset-entries", "0"), ("set-max-listpack-entries", "0")],
     STR),
    ("set", "intset", [("set-max-intset-entries", "512")], INTS),
    ("set", "listpack", [("set-max-listpack-entries", "512")], STR),  # 7.2; Ruvio only
    ("zset", "skiplist", [("zset-max-listpack-entries", "0")], STR),
    ("zset", "listpack", [("zset-max-listpack-entries", "512")], STR),
]


class FairnessCases:
    def make(self, typ, enc, config, members):
        for name, value in config:
            try:
                self.r.config_set(name, value)
            except Exception:
                if name != "set-max-listpack-entries" or self.kind != "redis":
                    raise
                if enc == "listpack":
                    return False  # redis-server 7.0 has no set listpack
        key = f"{typ}:{enc}"
        if typ == "hash":
            self.r.hset(key, mapping={m: "v" for m in members})
        elif typ == "set":
            self.r.sadd(key, *members)
        else:
            self.r.zadd(key, {m: i for i, m in enumerate(members)})
        got = self.r.object("encoding", key)
        if got != enc:
            return False
        return key

    def draw(self, typ, key, mode):
        cmd = {"hash": "HRANDFIELD", "set": "SRANDMEMBER", "zset": "ZRANDMEMBER"}[typ]
        counts = {}
        if mode == "single":
            p = self.r.pipeline(transaction=False)
            for _ in range(DRAWS):
                p.execute_command(cmd, key)
            got = p.execute()
        elif mode == "repeat":
            got = self.r.execute_command(cmd, key, -DRAWS)
        else:
            n = int(mode)
            p = self.r.pipeline(transaction=False)
            for _ in range(DRAWS // n if n < 100 else 100):
                p.execute_command(cmd, key, n)
            got = []
            for reply in p.execute():
                self.assertEqual(len(reply), n)
                self.assertEqual(len(set(reply)), n, "a count>0 reply repeats an element")
                got.extend(reply)
        for m in got:
            counts[m] = counts.get(m, 0) + 1
        return counts

    def check(self, typ, enc, config, members):
        key = self.make(typ, enc, config, members)
        if not key:
            if self.kind == "ruvio":
                self.fail(f"{typ} did not take the {enc} encoding")
            return
        bound = critical_999(len(members) - 1)
        for mode in ("single", "repeat", "20", "150"):
            # See the module comment: Redis 7.0.15 itself is not uniform on hashtable/skiplist,
            # nor for its distinct draws of 150 of 200 (χ² 277-288 on listpacks, measured):
            # its figures there are printed, not asserted.
            strict = self.kind == "ruvio" or (enc not in ("hashtable", "skiplist") and
                                              mode != "150")
            with self.subTest(mode=mode):
                x = chi2(self.draw(typ, key, mode), members)
                if x >= bound and strict:
                    x2 = chi2(self.draw(typ, key, mode), members)
                    x = min(x, x2)
                print(f"\n  {self.kind} {typ} {enc} {mode}: chi2 {x:.1f} (bound {bound:.1f})",
                      file=sys.stderr, end="")
                if strict:
                    self.assertLess(x, bound, f"{typ} {enc} count mode {mode} is not uniform")

    def test_redis_test_shape(self):
        """tests/unit/type/set.tcl's "SRANDMEMBER histogram distribution": 10 elements."""
        for typ, enc, config, members in LAYOUTS:
            with self.subTest(typ=typ, enc=enc):
                self.r.flushall()
                key = self.make(typ, enc, config, members[:10])
                if not key:
                    if self.kind == "ruvio":
                        self.fail(f"{typ} did not take the {enc} encoding")
                    continue
                cmd = {"hash": "HRANDFIELD", "set": "SRANDMEMBER", "zset": "ZRANDMEMBER"}[typ]
                counts = {}
                for m in self.r.execute_command(cmd, key, -1000):
                    counts[m] = counts.get(m, 0) + 1
                x = chi2(counts, members[:10])
                if x >= 40:  # p = 0.00001 for a fair sampler; once more
                    counts = {}
                    for m in self.r.execute_command(cmd, key, -1000):
                        counts[m] = counts.get(m, 0) + 1
                    x = min(x, chi2(counts, members[:10]))
                print(f"\n  {self.kind} {typ} {enc} 10 elements -1000: chi2 {x:.1f} (bound 40)",
                      file=sys.stderr, end="")
                self.assertLess(x, 40)


for _typ, _enc, _config, _members in LAYOUTS:
    setattr(FairnessCases, f"test_{_typ}_{_enc}",
            lambda self, a=(_typ, _enc, _config, _members): self.check(*a))


class RedisReference(FairnessCases, itest.RedisCase):
    pass


class Ruvio(FairnessCases, itest.RuvioCase):
    pass


if __name__ == "__main__":
    unittest.main()
