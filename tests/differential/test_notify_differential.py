"""Keyspace notifications, differential: a subscriber PSUBSCRIBEd to `__key*@*__:*` on
redis-server and on Ruvio (both with notify-keyspace-events AKEn) hears the events of one
seeded random command stream mixing every family's generator (strings and keys, lists, sets,
hashes, sorted sets, geo, streams, bitmaps/HyperLogLogs); the ordered event lists must be
equal. At 1 worker the whole list is compared in order; through the proxy port of a 2-worker
Ruvio events of different workers may interleave differently, so the lists are compared per
key (each key's events leave from its one owner, in order).

Commands whose outcome is random on each server (SPOP, SRANDMEMBER's neighbours don't write)
are left out; "expired" events are compared as a set, since active expiry runs on each
server's own schedule. A command Ruvio refuses with CROSSSLOT (keys of several workers) is not
sent to redis-server, so both keep the same data.

Env: RUVIO_DIFF_SEED (printed; replays a run), RUVIO_NOTIFY_DIFF_COMMANDS (default 6000).
"""

import os
import random
import socket
import sys
import time
import unittest
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import cmdgen  # noqa: E402
import gen_bits  # noqa: E402
import gen_geo  # noqa: E402
import gen_hash  # noqa: E402
import gen_list  # noqa: E402
import gen_set  # noqa: E402
import gen_stream  # noqa: E402
import gen_zset  # noqa: E402
import harness  # noqa: E402
import sidebyside  # noqa: E402
import test_differential as td  # noqa: E402
from resp_raw import RawConn, encode, parse  # noqa: E402

FLAGS = b"AKEn"
CROSSSLOT = td.CROSSSLOT
# Commands whose effect differs run to run on one server (random picks, wall-clock IDs,
# blocking with timeouts, whole-server admin) or that would change the subscriber's view.
SKIP = {b"SPOP", b"DEBUG", b"FLUSHALL", b"SWAPDB", b"SELECT", b"MOVE", b"HELLO", b"RESET",
        b"BLPOP", b"BRPOP", b"BLMOVE", b"BRPOPLPUSH", b"BLMPOP", b"BZPOPMIN", b"BZPOPMAX",
        b"BZMPOP", b"XREAD", b"XREADGROUP", b"WAIT", b"OBJECT", b"RANDOMKEY", b"SRANDMEMBER",
        b"ZRANDMEMBER", b"HRANDFIELD", b"SUBSCRIBE", b"PSUBSCRIBE", b"SSUBSCRIBE"}


class Subscriber:
    """A raw RESP2 connection PSUBSCRIBEd to every keyspace channel: collects (channel,
    message) pairs in arrival order."""

    def __init__(self, port):
        self.conn = RawConn(port)
        self.conn.send(encode([b"PSUBSCRIBE", b"__key*@*__:*"]) +
                       encode([b"SUBSCRIBE", b"notify-diff-mark"]))
        parse(self.conn.read_reply())
        parse(self.conn.read_reply())
        self.events = []
        self.marks = 0

    def drain(self, marks, quiet=0.0, timeout=10.0):
        """Reads until `marks` marker messages arrived (then `quiet` s of silence)."""
        deadline = time.monotonic() + timeout
        sock = self.conn.sock
        while self.marks < marks and time.monotonic() < deadline:
            self._one(deadline - time.monotonic())
        end = time.monotonic() + quiet
        while quiet > 0 and time.monotonic() < end:
            try:
                self._one(max(0.01, end - time.monotonic()))
            except (socket.timeout, TimeoutError):
                break
        sock.settimeout(10.0)

    def _one(self, wait):
        self.conn.sock.settimeout(max(0.01, wait))
        msg = parse(self.conn.read_reply())
        if msg[0] == b"pmessage":
            self.events.append((msg[2], msg[3]))
        elif msg[0] == b"message":
            self.marks += 1

    def close(self):
        self.conn.close()


class Mix:
    """Every family's generator, one picked per command (their seeds derive from ours)."""

    def __init__(self, seed):
        self.r = random.Random(seed)
        self.gens = [cmdgen.Generator(seed + 1), gen_list.Generator(seed + 2),
                     gen_set.SetGenerator(seed + 3), gen_hash.HashGenerator(seed + 4),
                     gen_zset.ZsetGenerator(seed + 5), gen_geo.GeoGenerator(seed + 6),
                     gen_stream.StreamGenerator(seed + 7), gen_bits.Generator(seed + 8)]

    def next(self):
        while True:
            g = self.gens[self.r.randrange(len(self.gens))]
            cmd = g.next(allow_lcs=False)
            name = cmd.args[0].upper()
            if name in SKIP or (name == b"CLIENT") or (name == b"CONFIG"):
                continue
            if name in (b"XADD",) and b"*" in cmd.args[2:]:
                continue  # wall-clock IDs differ between the servers
            return cmd


def split(events):
    """(ordered non-expiry events, set of expired events)."""
    ordered, expired = [], set()
    for ch, msg in events:
        if ch.endswith(b"__:expired") or msg == b"expired":
            expired.add((ch, msg))
        else:
            ordered.append((ch, msg))
    return ordered, expired


def per_key(events):
    out = defaultdict(list)
    for ch, msg in events:
        key = ch.split(b"__:", 1)[1] if ch.startswith(b"__keyspace@") else msg
        out[(ch.startswith(b"__keyspace@"), key)].append((ch, msg))
    return dict(out)


def run_events(seed, count, workers):
    args = ["--notify-keyspace-events", FLAGS.decode()]
    with sidebyside.pair(workers, args, args) as (ref, cand):
        subs = [Subscriber(ref.port), Subscriber(cand.port)]
        rc, cc = RawConn(ref.port), RawConn(cand.port)
        mix = Mix(seed)
        sent = crossslot = marks = 0
        checked = [0, 0]
        try:
            for c in (rc, cc):
                c.call(b"FLUSHALL")
            while sent < count:
                batch = [mix.next() for _ in range(random.Random(seed + sent).randint(1, 40))]
                cc.send(b"".join(encode(c.args) for c in batch))
                replies = [cc.read_reply() for _ in batch]
                keep = [c for c, r in zip(batch, replies) if r != CROSSSLOT]
                crossslot += len(batch) - len(keep)
                if keep:
                    rc.send(b"".join(encode(c.args) for c in keep))
                    for _ in keep:
                        rc.read_reply()
                sent += len(batch)
                if workers == 1:
                    # One worker: each batch's events are checked at once, naming the batch.
                    marks += 1
                    for c, sub in zip((rc, cc), subs):
                        c.call(b"PUBLISH", b"notify-diff-mark", b"%d" % marks)
                        sub.drain(marks)
                    a, b = split(subs[0].events[checked[0]:]), split(subs[1].events[checked[1]:])
                    if a[0] != b[0]:
                        raise AssertionError(
                            f"events differ seed={seed} (replay: RUVIO_DIFF_SEED={seed}) after "
                            f"commands {[b' '.join(c.args)[:80] for c in keep]}:\n redis {a[0]}"
                            f"\n ruvio {b[0]}")
                    checked = [len(subs[0].events), len(subs[1].events)]
            marks += 1
            for c in (rc, cc):
                c.call(b"PUBLISH", b"notify-diff-mark", b"end")
            subs[0].drain(marks)
            subs[1].drain(marks)
            # Through the proxy the other worker's events may still be on the mesh: wait
            # (bounded) until as many arrived as redis-server sent, then a little more.
            deadline = time.monotonic() + 10
            while (workers > 1 and len(subs[1].events) < len(subs[0].events)
                   and time.monotonic() < deadline):
                subs[1].drain(marks, quiet=0.2)
            if workers > 1:
                subs[1].drain(marks, quiet=0.2)
        finally:
            for c in (rc, cc):
                c.close()
            for s in subs:
                s.close()
    return subs[0].events, subs[1].events, {"sent": sent, "crossslot": crossslot}


def compare(test, seed, workers, ref_events, cand_events):
    ref_o, ref_x = split(ref_events)
    cand_o, cand_x = split(cand_events)
    note = f"seed={seed} (replay: RUVIO_DIFF_SEED={seed}) workers={workers}"
    if workers == 1:
        for i, (a, b) in enumerate(zip(ref_o, cand_o)):
            if a != b:
                test.fail(f"event #{i} differs {note}: redis {a} ruvio {b}; before: "
                          f"{ref_o[max(0, i - 8):i]}")
        test.assertEqual(len(ref_o), len(cand_o), note)
    else:
        a, b = per_key(ref_o), per_key(cand_o)
        for k in sorted(set(a) | set(b)):
            test.assertEqual(a.get(k, []), b.get(k, []), f"key {k!r} {note}")
    # Expiry is timed by each server: every key expired on both sides appears on both.
    test.assertTrue(len(ref_x ^ cand_x) <= max(2, len(ref_x) // 10), f"expired {note}: "
                    f"{sorted(ref_x ^ cand_x)[:10]}")


class NotifyDifferentialTest(unittest.TestCase):
    def setUp(self):
        if not os.path.exists(harness.RUVIO_BIN):
            self.skipTest(f"{harness.RUVIO_BIN} not built")

    def run_case(self, workers):
        seed = td.diff_seed()
        count = int(os.environ.get("RUVIO_NOTIFY_DIFF_COMMANDS", "6000"))
        ref, cand, stats = run_events(seed, count, workers)
        print(f"\nnotify differential workers={workers}: seed={seed} {stats} "
              f"events={len(ref)}", file=sys.stderr)
        self.assertGreater(len(ref), count // 4)
        compare(self, seed, workers, ref, cand)

    def test_events_1_worker(self):
        self.run_case(1)

    def test_events_2_workers(self):
        self.run_case(2)


if __name__ == "__main__":
    unittest.main()
