"""Differential test: the same seeded random command sequence goes to Ruvio and to a real
redis-server (both started here) over raw sockets; every reply must be byte-identical.

Env:
  RUVIO_DIFF_SEED      the seed (default: random; always printed on failure)
  RUVIO_DIFF_COMMANDS  commands per run (default 20000)
  RUVIO_DIFF_AGAINST   "ruvio" (default) or "redis" (a second redis-server: checks that the
                       harness itself is deterministic)
Replay a failure with RUVIO_DIFF_SEED=<seed> and the same command count.

test_against_redis runs a 1-worker Ruvio; test_against_redis_2_workers the same through the
proxy port of a 2-worker Ruvio. There, RENAME/RENAMENX/COPY/LCS/MSETNX whose keys have
different owners must answer CROSSSLOT (UNSPLIT below): such a command is compared with
that exact error and not sent to redis-server, so both keep the same data.
"""

import abc
import ctypes
import errno
import math
import os
import random
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import cmdgen  # noqa: E402
import harness  # noqa: E402
import sidebyside  # noqa: E402
from resp_raw import RawConn, encode, parse  # noqa: E402

LCS_MAX_LEN = 3000  # LCS allocates len(a)*len(b) cells on both servers
SEGMENT = 2500      # commands per protocol segment; every third segment runs in RESP3
HISTORY = 15        # commands shown before the one that differed


CROSSSLOT = b"-CROSSSLOT Keys in request don't hash to the same slot\r\n"

# Multi-key commands of the generator that a multi-worker Ruvio does not split: when their
# keys have different owners it answers CROSSSLOT instead of running them (as a Redis
# Cluster node does for keys in different slots). Name → the key arguments, given the
# arguments (the same key specs as Redis's command table).
UNSPLIT = {
    b"RENAME": lambda a: a[1:3],
    b"RENAMENX": lambda a: a[1:3],
    b"COPY": lambda a: a[1:3],
    b"LCS": lambda a: a[1:3],
    b"MSETNX": lambda a: a[1::2],  # MSETNX must stay atomic, so it is never split
}



_libc = ctypes.CDLL(None, use_errno=True)
_libc.strtod.restype = ctypes.c_double
_libc.strtod.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]


def clean_strtod(element):
    """Whether redis-server's SORT takes `element` as a number when errno starts cleared: the
    C library's own strtod reads it up to its end or a NUL byte (sds strings end in one), does
    not set ERANGE, and the value is not NaN."""
    end = ctypes.c_char_p()
    ctypes.set_errno(0)
    value = _libc.strtod(element, ctypes.byref(end))
    return ctypes.get_errno() != errno.ERANGE and not math.isnan(value) and not end.value

class Mismatch(AssertionError):
    pass


def _short(b, n=400):
    return repr(b) if len(b) <= n else repr(b[:n]) + f"...(+{len(b) - n} bytes)"


def _int_reply(raw):
    if raw[:1] == b":" and raw.endswith(b"\r\n"):
        try:
            return int(raw[1:-2])
        except ValueError:
            return None
    return None


def replies_match(kind, a, b):
    if a == b:
        return True
    if kind in ("ttl_s", "ttl_ms"):
        x, y = _int_reply(a), _int_reply(b)
        if x is None or y is None or x < 0 or y < 0:
            return False  # -1 / -2 / errors must be exact
        return abs(x - y) <= (1 if kind == "ttl_s" else 1000)
    if kind == "sorted":
        if a[:1] != b[:1]:
            return False
        try:
            pa, pb = parse(a), parse(b)
        except Exception:
            return False
        if isinstance(pa, list) and isinstance(pb, list):
            return sorted(pa) == sorted(pb)
    return False


class DiffRun:
    """Drives one run: a reference (redis-server) and a candidate connection."""

    def __init__(self, seed, ref_port, cand_port, cand_name, count, workers=1):
        self.seed = seed
        self.workers = workers
        self.count = count
        self.cand_name = cand_name
        self.gen = cmdgen.Generator(seed)
        self.sched = random.Random(seed ^ 0x5EED)
        self.ref = RawConn(ref_port)
        self.cand = RawConn(cand_port)
        self.index = 0
        self.proto = 2
        self.history = []
        self.stats = {"sent": 0, "pipelined": 0, "resp3": 0, "lcs_skipped": 0,
                      "crossslot": 0}

    def close(self):
        self.ref.close()
        self.cand.close()

    def fail(self, cmd_args, kind, ref_raw, cand_raw, note=""):
        hist = "\n".join(f"    #{i} {c}" for i, c in self.history[-HISTORY:])
        raise Mismatch(
            f"differential mismatch{note}: seed={self.seed} (replay: RUVIO_DIFF_SEED={self.seed}"
            f" RUVIO_DIFF_COMMANDS={self.count}) command #{self.index} protocol RESP{self.proto}"
            f" compare={kind}\n  command: {_short(b' '.join(cmd_args), 600)}\n"
            f"  args:    {[_short(a, 80) for a in cmd_args]}\n"
            f"  redis-server: {_short(ref_raw)}\n  {self.cand_name}: {_short(cand_raw)}\n"
            f"  previous commands:\n{hist}")

    def _read(self, conn, name, cmd):
        try:
            return conn.read_reply()
        except Exception as e:  # timeout, closed connection, garbage
            self.fail(cmd.args, cmd.kind, b"", f"<{name}: {type(e).__name__}: {e}>".encode(),
                      note=" (no reply)")

    # The multi-key commands this family's stream sends that a multi-worker Ruvio does not
    # split (UNSPLIT's form); a family with more sets its own.
    unsplit = UNSPLIT

    def crossslot(self, cmd):
        """True if a multi-worker Ruvio must refuse `cmd` with CROSSSLOT: an unsplit
        multi-key command whose keys have different owners. Such a command is not sent to
        redis-server (the reply to compare is CROSSSLOT), so both keep the same data."""
        if self.workers == 1:
            return False
        keys = self.unsplit.get(cmd.args[0].upper())
        if keys is None:
            return False
        return len({harness.key_owner(k, self.workers) for k in keys(cmd.args)}) > 1

    def match(self, cmd, ref_raw, cand_raw):
        """Whether the candidate's reply to `cmd` is right; a family with replies that are
        legitimately random or unordered judges those kinds itself."""
        return (replies_match(cmd.kind, ref_raw, cand_raw)
                or self.stale_errno_sort(cmd, ref_raw, cand_raw))

    def stale_errno_sort(self, cmd, ref_raw, cand_raw):
        """redis-server 7.0's SORT (without ALPHA or BY) takes an element as a number when
        strtod stops at a NUL, the value is not NaN and errno is ERANGE, but it never clears
        errno first: after an earlier command left ERANGE behind (a ZADD of 1e400), every
        element it reads as a string ("0" of a skiplist zset as much as an empty one) is
        refused. Ruvio judges each element with a cleared errno. Only that case is let
        through: Redis refused, Ruvio did not, and every element of the key (read back from
        redis-server) is one strtod takes whole with errno cleared (clean_strtod)."""
        name = cmd.args[0].upper() if cmd.args else b""
        if name not in (b"SORT", b"SORT_RO") or len(cmd.args) < 2:
            return False
        words = {a.upper() for a in cmd.args[2:]}
        if b"ALPHA" in words or b"BY" in words:
            return False
        if not ref_raw.startswith(b"-ERR One or more scores can't be converted into double"):
            return False
        if cand_raw.startswith(b"-"):
            return False
        self.ref.send(encode([b"SORT", cmd.args[1], b"BY", b"nosort"]))
        elems = parse(self.ref.read_reply())
        return isinstance(elems, list) and all(
            isinstance(e, bytes) and clean_strtod(e) for e in elems)

    def run_batch(self, cmds):
        """Sends `cmds` pipelined (one write per server), then compares reply by reply."""
        cross = [self.crossslot(c) for c in cmds]
        self.ref.send(b"".join(encode(c.args) for c, x in zip(cmds, cross) if not x))
        self.cand.send(b"".join(encode(c.args) for c in cmds))
        ref_replies = [CROSSSLOT if x else self._read(self.ref, "redis-server", c)
                       for c, x in zip(cmds, cross)]
        self.stats["crossslot"] += sum(cross)
        cand_replies = [self._read(self.cand, self.cand_name, c) for c in cmds]
        for c, a, b in zip(cmds, ref_replies, cand_replies):
            self.history.append((self.index, _short(b" ".join(c.args), 120)))
            if not self.match(c, a, b):
                self.fail(c.args, c.kind, a, b)
            self.index += 1
        self.stats["sent"] += len(cmds)
        if self.proto == 3:
            self.stats["resp3"] += len(cmds)
        return ref_replies

    def run_one(self, cmd):
        return self.run_batch([cmd])[0]

    def switch_proto(self, proto):
        """HELLO's reply names the server and its version, so only its shape is checked."""
        args = [b"HELLO", b"%d" % proto]
        payload = encode(args)
        self.ref.send(payload)
        self.cand.send(payload)
        a = self._read(self.ref, "redis-server", cmdgen.Cmd(args))
        b = self._read(self.cand, self.cand_name, cmdgen.Cmd(args))
        want = b"%" if proto == 3 else b"*"
        if a[:1] != want or b[:1] != want:
            self.fail(args, "shape", a, b)
        self.history.append((self.index, f"HELLO {proto}"))
        self.proto = proto

    def lcs(self, cmd):
        """Checks both keys' lengths (compared like any command) before sending LCS."""
        lens = []
        for k in cmd.args[1:3]:
            raw = self.run_one(cmdgen.Cmd([b"STRLEN", k]))
            lens.append(_int_reply(raw) or 0)
        if max(lens) > LCS_MAX_LEN:
            self.stats["lcs_skipped"] += 1
            return
        self.run_one(cmd)

    def run(self):
        for db in (b"0", b"1", b"2", b"3", b"15"):  # start clean even on a reused server
            self.run_batch([cmdgen.Cmd([b"SELECT", db]), cmdgen.Cmd([b"FLUSHDB"])])
        self.run_one(cmdgen.Cmd([b"SELECT", b"0"]))
        segment = -1
        while self.stats["sent"] < self.count:
            seg = self.stats["sent"] // SEGMENT
            if seg != segment:
                segment = seg
                want = 3 if seg % 3 == 1 else 2
                if want != self.proto:
                    self.switch_proto(want)
            if self.sched.random() < 0.3:
                n = self.sched.randint(1, 50)
                batch = [self.gen.next(allow_lcs=False) for _ in range(n)]
                self.run_batch(batch)
                self.stats["pipelined"] += n
            else:
                for _ in range(self.sched.randint(1, 20)):
                    cmd = self.gen.next()
                    if cmd.kind == "lcs":
                        self.lcs(cmd)
                    else:
                        self.run_one(cmd)
        return self.stats


def run_pair(make_run, against="ruvio", workers=1, ref_args=(), cand_args=()):
    """Starts redis-server (the reference, with `ref_args`) and the candidate: another
    redis-server when `against` is "redis", else Ruvio with `workers` workers (and
    `cand_args`), its mesh up; runs make_run(ref_port, cand_port).run() and closes the run.
    Every family's differential test goes through here."""
    with sidebyside.pair(workers, ref_args, cand_args, against) as (ref, cand):
        run = make_run(ref.port, cand.port)
        try:
            return run.run()
        finally:
            run.close()


def run_differential(seed, count, against="ruvio", workers=1):
    return run_pair(lambda rp, cp: DiffRun(seed, rp, cp, against, count, workers),
                    against, workers)


def diff_seed():
    """RUVIO_DIFF_SEED, or a fresh random seed (always printed by the tests)."""
    env = os.environ.get("RUVIO_DIFF_SEED")
    return int(env) if env else random.SystemRandom().randrange(1, 2**31)



class FamilyDiffTest(abc.ABC):
    """The tests every family's differential test has, mixed into a unittest.TestCase that
    sets `family` (for the messages), `keys` (the generator's keys, which must live on both
    workers), `count_env` (the variable with the command count, default `default_count`) and
    `run_family(seed, count, workers, against)`; `check(stats, workers)` may be extended
    (`self.against` names the candidate there)."""

    family = ""
    keys = ()
    count_env = "RUVIO_DIFF_COMMANDS"
    default_count = 20000

    @abc.abstractmethod
    def run_family(self, seed, count, workers, against):
        """The family's run: its stats (sent, resp3, pipelined, crossslot, ...)."""

    def check(self, stats, workers):
        self.assertGreater(stats["resp3"], 0)
        self.assertGreater(stats["pipelined"], 0)

    def run_checked(self, workers, against="ruvio"):
        if against == "ruvio" and not os.path.exists(harness.RUVIO_BIN):
            self.skipTest(f"{harness.RUVIO_BIN} not built")
        seed, count = diff_seed(), int(os.environ.get(self.count_env, self.default_count))
        self.against = against
        what = f"{self.family} differential vs {against}, {workers} worker(s)"
        print(f"\n{what}: seed={seed}", file=sys.stderr)
        stats = self.run_family(seed, count, workers, against)
        print(f"{what}: seed={seed} {stats}", file=sys.stderr)
        self.assertGreaterEqual(stats["sent"], count)
        self.check(stats, workers)
        return stats

    def test_against_redis(self):
        self.run_checked(1, os.environ.get("RUVIO_DIFF_AGAINST", "ruvio"))

    def test_against_redis_2_workers(self):
        self.assertEqual({harness.key_owner(k) for k in self.keys}, {0, 1})
        self.run_checked(2)

    def test_harness_redis_vs_redis(self):
        """Two redis-servers agree on a short run under the same comparisons: nothing in the
        stream is left to chance, so a mismatch against Ruvio is Ruvio's."""
        stats = self.run_family(diff_seed(), 3000, 1, "redis")
        self.assertGreaterEqual(stats["sent"], 3000)


class DifferentialTest(FamilyDiffTest, unittest.TestCase):
    """At 2 workers through the proxy port: every key of the generator is forwarded or run
    locally by slot, MGET/MSET/DEL/EXISTS/TOUCH are split, KEYS, DBSIZE, FLUSHDB and SWAPDB
    fanned out."""

    family = "string"
    keys = cmdgen.KEYS

    def run_family(self, seed, count, workers, against):
        return run_differential(seed, count, against, workers)

    def check(self, stats, workers):
        super().check(stats, workers)
        if workers > 1:
            self.assertGreater(stats["crossslot"], 0)

    def test_harness_catches_a_difference(self):
        """The comparator itself: a changed byte, a TTL off by more than the tolerance and
        a reordered KEYS reply are judged as they must be."""
        self.assertFalse(replies_match("exact", b"+OK\r\n", b"+Ok\r\n"))
        self.assertTrue(replies_match("ttl_s", b":100\r\n", b":99\r\n"))
        self.assertFalse(replies_match("ttl_s", b":100\r\n", b":98\r\n"))
        self.assertFalse(replies_match("ttl_s", b":-1\r\n", b":-2\r\n"))
        self.assertTrue(replies_match("ttl_ms", b":100000\r\n", b":99100\r\n"))
        self.assertTrue(replies_match("sorted", b"*2\r\n$1\r\na\r\n$1\r\nb\r\n",
                                      b"*2\r\n$1\r\nb\r\n$1\r\na\r\n"))
        self.assertFalse(replies_match("sorted", b"*2\r\n$1\r\na\r\n$1\r\nb\r\n",
                                       b"*2\r\n$1\r\na\r\n$1\r\na\r\n"))


class CleanStrtodTest(unittest.TestCase):
    """What stale_errno_sort lets through: the elements Redis's SORT takes whole when errno
    starts cleared, decided by the C library's strtod as Redis's is."""

    def test_elements(self):
        taken = [b"0", b"", b"\x00ab", b"1.5", b"inf", b" 3", b"0x1p3", b"4\x00x"]
        refused = [b"abc", b"1e400", b"1e-400", b"nan", b"3 "]
        self.assertEqual([e for e in taken if not clean_strtod(e)], [])
        self.assertEqual([e for e in refused if clean_strtod(e)], [])


if __name__ == "__main__":
    unittest.main()
