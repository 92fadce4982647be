"""Stream differential test: gen_stream.py's seeded sequence of XADD … XINFO mixed with
DEL/EXISTS/TYPE/OBJECT ENCODING/RENAME/COPY goes to Ruvio and to redis-server, and every
reply must match byte for byte (the "xtime" replies with their wall-clock fields masked, see
gen_stream.py), at 1 worker and through the proxy port of a 2-worker Ruvio.

Env (as test_differential.py): RUVIO_DIFF_SEED (printed on every run and on failure),
RUVIO_STREAM_COMMANDS (default 20000), RUVIO_DIFF_AGAINST=redis checks the harness itself.
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import gen_stream  # noqa: E402
import test_differential as td  # noqa: E402
from resp_raw import parse  # noqa: E402

# Values after these keys are wall-clock times. (radix-tree-nodes is compared: stream_rax.cpp
# counts Redis's rax nodes from the same node masters.)
MASK_KEYS = {b"idle", b"seen-time"}
MASKED = "<masked>"


def _mask(v, parent_key=None, in_consumer=False):
    if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], bytes):  # a RESP3 map pair
        k = v[0]
        return (k, MASKED if k in MASK_KEYS else _mask_value(k, v[1], in_consumer))
    if isinstance(v, list):
        out = []
        skip_next = None
        consumer = in_consumer or any(
            (isinstance(x, bytes) and x == b"seen-time") or
            (isinstance(x, tuple) and x[0] == b"seen-time") for x in v)
        for i, x in enumerate(v):
            if skip_next is not None:
                out.append(MASKED if skip_next in MASK_KEYS else _mask_value(skip_next, x,
                                                                              consumer))
                skip_next = None
                continue
            if isinstance(x, bytes) and (x in MASK_KEYS or x == b"pending") and i % 2 == 0:
                out.append(x)
                skip_next = x
                continue
            out.append(_mask(x, parent_key, consumer))
        return out
    return v


def _mask_value(key, v, in_consumer):
    # XINFO STREAM FULL: a group's pending [id, consumer, delivery-time, count] and a
    # consumer's pending [id, delivery-time, count] carry absolute times.
    if key == b"pending" and isinstance(v, list):
        out = []
        for e in v:
            if isinstance(e, list) and len(e) == 4:
                e = [e[0], e[1], MASKED, e[3]]
            elif isinstance(e, list) and len(e) == 3:
                e = [e[0], MASKED, e[2]]
            out.append(e)
        return out
    return _mask(v, key, in_consumer)


def _xpending_mask(p):
    # XPENDING's extended form: [id, consumer, idle ms, deliveries] per entry.
    if isinstance(p, list) and p and all(isinstance(e, list) and len(e) == 4 for e in p):
        return [[e[0], e[1], MASKED, e[3]] for e in p]
    return p


def xtime_match(args, a, b):
    if a == b:
        return True
    if a[:1] != b[:1] or a[:1] == b"-":
        return False
    try:
        pa, pb = parse(a), parse(b)
    except Exception:
        return False
    if args[0].upper() == b"XPENDING":
        return _xpending_mask(pa) == _xpending_mask(pb)
    return _mask(pa) == _mask(pb)


class StreamDiffRun(td.DiffRun):
    def __init__(self, seed, ref_port, cand_port, cand_name, count, workers=1):
        super().__init__(seed, ref_port, cand_port, cand_name, count, workers)
        self.gen = gen_stream.StreamGenerator(seed)

    def match(self, cmd, a, b):
        if cmd.kind == "xtime":
            return xtime_match(cmd.args, a, b)
        return super().match(cmd, a, b)


def run_stream_differential(seed, count, against="ruvio", workers=1):
    return td.run_pair(lambda rp, cp: StreamDiffRun(seed, rp, cp, against, count, workers),
                       against, workers)


class StreamDifferentialTest(td.FamilyDiffTest, unittest.TestCase):
    family = "stream"
    keys = gen_stream.SKEYS
    count_env = "RUVIO_STREAM_COMMANDS"

    def run_family(self, seed, count, workers, against):
        return run_stream_differential(seed, count, against, workers)

    def test_mask_hides_only_wall_clock_fields(self):
        a = parse(b"*2\r\n*4\r\n$3\r\n1-1\r\n$2\r\nc1\r\n:5\r\n:1\r\n"
                  b"*4\r\n$3\r\n1-2\r\n$2\r\nc1\r\n:7\r\n:2\r\n")
        b = parse(b"*2\r\n*4\r\n$3\r\n1-1\r\n$2\r\nc1\r\n:9\r\n:1\r\n"
                  b"*4\r\n$3\r\n1-2\r\n$2\r\nc1\r\n:3\r\n:2\r\n")
        self.assertEqual(_xpending_mask(a), _xpending_mask(b))
        c = parse(b"*1\r\n*4\r\n$3\r\n1-1\r\n$2\r\nc1\r\n:9\r\n:3\r\n")
        self.assertNotEqual(_xpending_mask(parse(b"*1\r\n*4\r\n$3\r\n1-1\r\n$2\r\nc1\r\n:9\r\n"
                                                 b":1\r\n")), _xpending_mask(c))
        self.assertTrue(xtime_match([b"XINFO"], b"*4\r\n$4\r\nname\r\n$1\r\nc\r\n$4\r\nidle\r\n"
                                    b":5\r\n", b"*4\r\n$4\r\nname\r\n$1\r\nc\r\n$4\r\nidle\r\n"
                                    b":7\r\n"))
        self.assertFalse(xtime_match([b"XINFO"], b"*4\r\n$4\r\nname\r\n$1\r\nc\r\n$4\r\nidle\r\n"
                                     b":5\r\n", b"*4\r\n$4\r\nname\r\n$1\r\nd\r\n$4\r\nidle\r\n"
                                     b":5\r\n"))


if __name__ == "__main__":
    unittest.main()
