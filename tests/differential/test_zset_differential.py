"""Sorted-set differential test: gen_zset.py's seeded stream of ZADD … ZSCAN mixed with
DEL/EXISTS/TYPE/OBJECT ENCODING/EXPIRE/RENAME/COPY goes to Ruvio and to redis-server, and
every reply must match byte for byte (ZRANDMEMBER and ZSCAN by the rules in gen_zset.py), at
1 worker and through the proxy port of a 2-worker Ruvio. The runner is test_differential.py's.

Env (as test_differential.py): RUVIO_DIFF_SEED (printed on every run and on failure),
RUVIO_ZSET_COMMANDS (default 20000), RUVIO_DIFF_AGAINST=redis checks the harness itself.
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import gen_zset  # noqa: E402
import test_differential as td  # noqa: E402
from resp_raw import parse  # noqa: E402


def _flat(v):
    return [x for x in v] if isinstance(v, list) else v


def _zrand_match(args, a, b):
    if a[:1] != b[:1]:
        return False
    if a[:1] in (b"-", b"_") or a.startswith(b"$-1") or b.startswith(b"$-1"):
        return a == b
    if a[:1] == b"$":
        return True
    try:
        pa, pb = parse(a), parse(b)
    except Exception:
        return False
    if not isinstance(pa, list) or not isinstance(pb, list) or len(pa) != len(pb):
        return False
    count = int(args[2])
    if count > 0:
        flat = len(args) > 3 and pa and not isinstance(pa[0], list)  # RESP2 WITHSCORES
        ka = [repr(x) for x in (list(zip(pa[::2], pa[1::2])) if flat else pa)]
        kb = [repr(x) for x in (list(zip(pb[::2], pb[1::2])) if flat else pb)]
        if len(set(kb)) != len(kb):
            return False
        if len(ka) < count:  # fewer than asked: the whole zset
            return sorted(ka) == sorted(kb)
    return True


def _zscan_match(a, b):
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
    if pa[0] == b"0" and pb[0] == b"0":
        ea, eb = pa[1], pb[1]
        return sorted(zip(ea[::2], ea[1::2])) == sorted(zip(eb[::2], eb[1::2]))
    return True


class ZsetDiffRun(td.DiffRun):
    def __init__(self, seed, ref_port, cand_port, cand_name, count, workers=1):
        super().__init__(seed, ref_port, cand_port, cand_name, count, workers)
        self.gen = gen_zset.ZsetGenerator(seed)

    def match(self, cmd, a, b):
        if cmd.kind == "zrand":
            return _zrand_match(cmd.args, a, b)
        if cmd.kind == "zscan":
            return _zscan_match(a, b)
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
