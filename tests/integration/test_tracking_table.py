"""The tracking table beside redis-server: tracking-table-max-keys forgets keys (telling
their reader, as if they changed) so the table never stays over the limit, every key read
is invalidated exactly once (by eviction or by a write), several readers of one key each get
one message, repeated reads of a key by the same client add nothing, and INFO's
tracking_clients / tracking_total_keys / tracking_total_items / tracking_total_prefixes say
what the table holds. Which keys are evicted is random on both servers, so the test compares
counts and sets, not order."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "differential"))

import sidebyside  # noqa: E402
from resp_raw import Frames, parse  # noqa: E402

KEYS = [b"tt:%d" % i for i in range(10)]


def invalidated(frames):
    """Keys named by the RESP3 invalidate pushes among `frames`, in arrival order."""
    out = []
    for f in frames:
        if f.startswith(b">2\r\n$10\r\ninvalidate\r\n"):
            out += parse(f)[1] or []
    return out


def tracking_info(port):
    w = Frames(port)
    try:
        text = parse(w.call(b"INFO", b"everything")).decode()
    finally:
        w.close()
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    return {k: fields[k] for k in ("tracking_clients", "tracking_total_keys",
                                   "tracking_total_items", "tracking_total_prefixes")}


def max_keys_scenario(port):
    t, w = Frames(port), Frames(port)
    try:
        w.call(b"FLUSHALL")
        w.call(b"CONFIG", b"SET", b"tracking-table-max-keys", b"3")
        for k in KEYS:
            w.call(b"SET", k, b"v")
        t.call(b"HELLO", b"3")
        t.call(b"CLIENT", b"TRACKING", b"ON")
        for k in KEYS:
            t.call(b"GET", k)
        t.call(b"PING")
        info = tracking_info(port)
        evicted = invalidated(t.frames)
        for k in KEYS:
            w.call(b"SET", k, b"w")
        t.call(b"PING")
        t.drain()
        everything = invalidated(t.frames)
        after = tracking_info(port)
        w.call(b"CONFIG", b"SET", b"tracking-table-max-keys", b"1000000")
        return info, len(evicted), sorted(everything), after
    finally:
        t.close()
        w.close()


def readers_scenario(port):
    readers = [Frames(port) for _ in range(4)]
    w = Frames(port)
    try:
        w.call(b"FLUSHALL")
        w.call(b"SET", b"shared", b"v")
        for i, r in enumerate(readers):
            r.call(b"HELLO", b"3")
            r.call(b"CLIENT", b"TRACKING", b"ON")
            for _ in range(50):  # repeated reads: one item per reader
                r.call(b"GET", b"shared")
            r.call(b"GET", b"own:%d" % i)
        info = tracking_info(port)
        w.call(b"SET", b"shared", b"w")
        got = []
        for r in readers:
            r.call(b"PING")
            got.append(invalidated(r.frames))
        after = tracking_info(port)
        return info, got, after
    finally:
        for r in readers:
            r.close()
        w.close()


class TrackingTableTest(sidebyside.SideBySideCase):
    def test_max_keys(self):
        want = max_keys_scenario(self.ref.port)
        got = max_keys_scenario(self.cand.port)
        self.assertEqual(want, got)
        info, evicted, everything, after = got
        self.assertEqual(info, {"tracking_clients": "1", "tracking_total_keys": "3",
                                "tracking_total_items": "3", "tracking_total_prefixes": "0"})
        self.assertEqual(evicted, 7)
        self.assertEqual(everything, sorted(KEYS))
        self.assertEqual(after["tracking_total_keys"], "0")

    def test_readers(self):
        want = readers_scenario(self.ref.port)
        got = readers_scenario(self.cand.port)
        self.assertEqual(want, got)
        info, messages, after = got
        self.assertEqual(info["tracking_total_keys"], "5")
        self.assertEqual(info["tracking_total_items"], "8")
        self.assertEqual(messages, [[b"shared"]] * 4)
        self.assertEqual(after, {"tracking_clients": "4", "tracking_total_keys": "4",
                                 "tracking_total_items": "4", "tracking_total_prefixes": "0"})


if __name__ == "__main__":
    unittest.main()
