"""Sorted-set differential test: gen_zset.py's seeded stream of ZADD … ZSCAN mixed with
DEL/EXISTS/TYPE/OBJECT ENCODING/EXPIRE/RENAME/COPY goes to Ruvio and to redis-server, and
every reply must match byte for byte (ZRANDMEMBER and ZSCAN by the rules in gen_zset.py:
members of the key as redis-server's ZRANGE reads it right after), at
1 worker and through the proxy port of a 2-worker Ruvio. The runner is test_differential.py's.

Env (as test_differential.py): RUVIO_DIFF_SEED (printed on every run and on failure),
RUVIO_ZSET_COMMANDS (default 20000), RUVIO_DIFF_AGAINST=redis checks the harness itself.
"""

import fnmatch
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import gen_zset  # noqa: E402
import test_differential as td  # noqa: E402
from resp_raw import encode, parse  # noqa: E402


def _score(v):
    """A score as a number, whichever way it came: a bulk string, or a RESP3 double."""
    return float(v[1] if isinstance(v, tuple) else v)


def _pairs(flat_or_nested, withscores):
    """(member, score) pairs (score None without scores) of a ZRANDMEMBER / ZRANGE / ZSCAN
    element list: flat in RESP2 and in ZSCAN, [member, score] arrays in RESP3."""
    items = flat_or_nested
    if not withscores:
        return [(m, None) for m in items]
    if items and isinstance(items[0], list):
        return [(m, _score(sc)) for m, sc in items]
    return [(m, _score(sc)) for m, sc in zip(items[::2], items[1::2])]


def _in_zset(pairs, zset):
    """Every (member, score) is one of the zset's (its score when given)."""
    return all(m in zset and (sc is None or sc == zset[m]) for m, sc in pairs)


def _zrand_match(args, a, b, zset):
    """`zset` gives the key's members and scores as redis-server holds them right after the
    command (a callable: read only when the replies are not errors or nil)."""
    if a[:1] != b[:1]:
        return False
    if a[:1] in (b"-", b"_") or a.startswith(b"$-1") or b.startswith(b"$-1") or \
            a.startswith(b"*-1"):
        return a == b
    try:
        pa, pb = parse(a), parse(b)
    except Exception:
        return False
    members = zset()
    if a[:1] == b"$":  # no count: one member of the zset
        return pa in members and pb in members
    if not isinstance(pa, list) or not isinstance(pb, list) or len(pa) != len(pb):
        return False
    withscores = len(args) > 3
    ka, kb = _pairs(pa, withscores), _pairs(pb, withscores)
    if not (_in_zset(ka, members) and _in_zset(kb, members)):
        return False
    count = int(args[2])
    if count > 0:
        if len(set(kb)) != len(kb) or len(kb) != min(count, len(members)):
            return False
    elif len(kb) != (-count if members else 0):  # negative: that many, repeats allowed
        return False
    return True


def _zscan_match(args, a, b, zset):
    if a[:1] != b[:1]:
        return False
    if a[:1] == b"-":
        return a == b
    try:
        pa, pb = parse(a), parse(b)
    except Exception:
        return False
    if not (isinstance(pa, list) and isinstance(pb, list) and len(pa) == 2 and len(pb) == 2):
        return False
    members = zset()
    ka, kb = _pairs(pa[1], True), _pairs(pb[1], True)
    words = [w.upper() for w in args[3::2]]
    pattern = args[4 + 2 * words.index(b"MATCH")] if b"MATCH" in words else b"*"
    # What one call returns: pairs of the zset that match the pattern (the patterns the
    # generator sends have no brackets or escapes: fnmatch reads them as Redis's glob does).
    if not all(_in_zset(k, members) and all(fnmatch.fnmatchcase(m, pattern) for m, _ in k)
               for k in (ka, kb)):
        return False
    if pa[0] == b"0" and pb[0] == b"0":
        return sorted(ka) == sorted(kb)
    return True


class ZsetDiffRun(td.DiffRun):
    def __init__(self, seed, ref_port, cand_port, cand_name, count, workers=1):
        super().__init__(seed, ref_port, cand_port, cand_name, count, workers)
        self.gen = gen_zset.ZsetGenerator(seed)

    def run_batch(self, cmds):
        """Each ZRANDMEMBER or ZSCAN ends its part of the pipeline, so that redis-server's
        members of its key, read back when its reply is judged, are those it answered from."""
        replies, part = [], []
        for c in cmds:
            part.append(c)
            if c.kind in ("zrand", "zscan"):
                replies += super().run_batch(part)
                part = []
        if part:
            replies += super().run_batch(part)
        return replies

    def zset_of(self, key):
        """{member: score} of `key` on redis-server now (ZRANGE 0 -1 WITHSCORES)."""
        self.ref.send(encode([b"ZRANGE", key, b"0", b"-1", b"WITHSCORES"]))
        reply = parse(self.ref.read_reply())
        if not isinstance(reply, list):
            raise AssertionError(f"ZRANGE {key!r} on redis-server: {reply!r}")
        return dict(_pairs(reply, True))

    def match(self, cmd, a, b):
        if cmd.kind in ("zrand", "zscan"):
            judge = _zrand_match if cmd.kind == "zrand" else _zscan_match
            return judge(cmd.args, a, b, lambda: self.zset_of(cmd.args[1]))
        return super().match(cmd, a, b)


# DEBUG DIGEST-VALUE compares how each score is stored (a -0 kept or made 0).
DEBUG_ON = ["--enable-debug-command", "yes"]


def run_zset_differential(seed, count, against="ruvio", workers=1):
    return td.run_pair(lambda rp, cp: ZsetDiffRun(seed, rp, cp, against, count, workers),
                       against, workers, ref_args=DEBUG_ON, cand_args=DEBUG_ON)


class ZsetDifferentialTest(td.FamilyDiffTest, unittest.TestCase):
    family = "zset"
    keys = gen_zset.KEYS
    count_env = "RUVIO_ZSET_COMMANDS"

    def run_family(self, seed, count, workers, against):
        return run_zset_differential(seed, count, against, workers)


if __name__ == "__main__":
    unittest.main()
