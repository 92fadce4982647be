"""A subscriber under CLIENT REPLY OFF or SKIP (issue 25, 4), side by side with redis-server
7.0.15, RESP2 and RESP3 (HELLO 3), at 1 worker and through the proxy port of 2 workers.

Redis 7 writes pub/sub confirmations and messages as pushes (CLIENT_PUSHING), which CLIENT
REPLY OFF does not silence: the client gets its subscribe/psubscribe/unsubscribe
confirmations and every message, and only the replies of its other commands are dropped
(PING, PUBLISH's count). The bytes the subscriber receives are compared whole."""

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import sidebyside  # noqa: E402
from itest import Raw, encode  # noqa: E402


def scenario(port, resp, mode):
    """What a subscriber gets: it turns replies off (mode OFF, or SKIP for the one
    SUBSCRIBE), subscribes to a channel and a pattern, another client publishes, the
    subscriber pings and (RESP3) publishes itself, then unsubscribes."""
    out = []
    with Raw(port) as s, Raw(port) as p:
        if resp == 3:
            s.call("HELLO", "3")
        s.send(encode("CLIENT", "REPLY", mode))
        s.send(encode("SUBSCRIBE", "ch1", "ch2"))
        if mode == "OFF":
            s.send(encode("PSUBSCRIBE", "c*"))
        time.sleep(0.1)
        out.append(p.call("PUBLISH", "ch1", "hello"))
        out.append(p.call("PUBLISH", "cx", "pattern only"))
        s.send(encode("PING"))
        if resp == 3:
            s.send(encode("PUBLISH", "ch2", "from myself"))
        time.sleep(0.1)
        s.send(encode("UNSUBSCRIBE", "ch1"))
        time.sleep(0.05)
        out.append(p.call("PUBLISH", "ch1", "after unsubscribe"))
        out.append(s.read_quiet(0.3))
    return out


class ReplyOff:
    def test_subscriber_gets_confirmations_and_messages(self):
        for resp in (2, 3):
            for mode in ("OFF", "SKIP"):
                ref = scenario(self.ref.port, resp, mode)
                cand = scenario(self.cand.port, resp, mode)
                self.assertEqual(cand, ref, (resp, mode))
                self.assertIn(b"hello", cand[-1], (resp, mode))

    def test_resp2_off_after_subscribe_is_refused_messages_still_come(self):
        def run(port):
            with Raw(port) as s, Raw(port) as p:
                first = s.call("SUBSCRIBE", "ch")
                s.send(encode("CLIENT", "REPLY", "OFF"))
                time.sleep(0.05)
                n = p.call("PUBLISH", "ch", "m")
                return first, n, s.read_quiet(0.3)

        self.assertEqual(run(self.cand.port), run(self.ref.port))


class OneWorker(ReplyOff, sidebyside.SideBySideCase):
    workers = 1


class Proxy(ReplyOff, sidebyside.SideBySideCase):
    workers = 2


if __name__ == "__main__":
    unittest.main()
