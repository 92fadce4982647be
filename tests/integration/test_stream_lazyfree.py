"""Lazy free of a 1,000,000-entry stream with a consumer group of 100,000 pending entries
(test_lazyfree.py's method): UNLINK answers at once, a second client's PINGs stay fast while
housekeeping frees the nodes in bounded steps (ValueOps::release_some), and used_memory comes
back near where it started within a bounded time."""

import os
import socket
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
from test_lazyfree import FREE_BOUND_S, NEAR_START, PING_BOUND_S, Pinger, info_field, resp  # noqa

N = 1_000_000
PENDING = 100_000


def load_stream(port, key):
    """XADDs N entries in pipelined batches, every reply read (two lines each)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        for start in range(0, N, 2000):
            s.sendall(b"".join(resp("XADD", key, b"%d-1" % (i + 1), "f1", b"v:%d" % i, "f2", i)
                               for i in range(start, start + 2000)))
            lines = 0
            while lines < 4000:
                chunk = s.recv(1 << 16)
                assert chunk, "server closed the connection"
                lines += chunk.count(b"\r\n")
            assert lines == 4000, lines


class StreamLazyFree(itest.RuvioCase):
    def test_unlink_of_a_1m_stream_with_a_pel(self):
        r = self.r
        r.config_set("lazyfree-lazy-user-del", "no")
        start = info_field(r, "memory", "used_memory")
        load_stream(self.port, "big:stream")
        self.assertEqual(r.xlen("big:stream"), N)
        r.execute_command("XGROUP", "CREATE", "big:stream", "g", "0")
        r.execute_command("XREADGROUP", "GROUP", "g", "c", "COUNT", PENDING, "STREAMS",
                          "big:stream", ">")
        self.assertEqual(r.xpending("big:stream", "g")["pending"], PENDING)
        full = info_field(r, "memory", "used_memory")
        self.assertGreater(full - start, N * 10)
        pinger = Pinger(self.port)
        pinger.start()
        time.sleep(0.05)
        t0 = time.monotonic()
        self.assertEqual(r.execute_command("UNLINK", "big:stream"), 1)
        replied = time.monotonic() - t0
        freed_at = None
        while time.monotonic() < t0 + FREE_BOUND_S:
            if (info_field(r, "memory", "used_memory") <= start + NEAR_START
                    and info_field(r, "memory", "lazyfree_pending_objects") == 0):
                freed_at = time.monotonic() - t0
                break
            time.sleep(0.005)
        pinger.finish()
        self.assertIsNotNone(freed_at, f"used_memory did not come back within {FREE_BOUND_S}s")
        print(f"\n    stream 1M + PEL {PENDING}: UNLINK reply {replied * 1000:.1f} ms, memory "
              f"back after {freed_at * 1000:.0f} ms, max PING {pinger.max_rtt * 1000:.1f} ms "
              f"({(full - start) >> 20} MiB freed)", flush=True)
        self.assertLess(replied, PING_BOUND_S)
        self.assertLess(pinger.max_rtt, PING_BOUND_S)


if __name__ == "__main__":
    unittest.main()
