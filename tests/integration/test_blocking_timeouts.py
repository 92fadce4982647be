"""Every blocking command with every form of timeout (issue 25, 2 and 3), side by side with
redis-server 7.0.15, at 1 worker and through the proxy port of 2 workers: the same
sequence on both, the exact reply bytes compared, and each short timeout back by its
deadline + 100 ms on Ruvio.

What 7.0.15 does (getTimeoutFromObjectOrReply: (long long) ceill(seconds * 1000), no range
check): a part of a millisecond is a whole one (0.0001 and 0.001 time out after 1 ms);
-0.0001 rounds to 0 and waits for ever; a value past long long (1e20, inf,
9223372036854776) converts to LLONG_MIN: "ERR timeout is negative"; a deadline that
overflows (9223372036854775 s, XREAD BLOCK 9223372036854775807) waits for ever. The for-ever
forms are checked by serving the clients with a push."""

import os
import socket
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import sidebyside  # noqa: E402
from itest import Raw  # noqa: E402

TIMEOUT_LIMIT = 10.0  # seconds any one scenario may take


def commands(t, t_ms):
    """The blocking commands, each on keys of its own (so the order they block in does not
    matter), with the seconds timeout `t` or the milliseconds one `t_ms` (XREAD,
    XREADGROUP)."""
    return [one(t, t_ms, f"{{bt{i}}}")[i] for i in range(10)]


def one(t, t_ms, k):
    return [
        ("BLPOP", k + "l", t),
        ("BRPOP", k + "l", t),
        ("BLMPOP", t, "1", k + "l", "LEFT", "COUNT", "2"),
        ("BLMOVE", k + "l", k + "d", "LEFT", "RIGHT", t),
        ("BRPOPLPUSH", k + "l", k + "d", t),
        ("BZPOPMIN", k + "z", t),
        ("BZPOPMAX", k + "z", t),
        ("BZMPOP", t, "1", k + "z", "MIN", "COUNT", "2"),
        ("XREAD", "BLOCK", t_ms, "STREAMS", k + "s", "$"),
        ("XREADGROUP", "GROUP", "g", "c", "BLOCK", t_ms, "STREAMS", k + "g", ">"),
    ]


def feed(c, cmd):
    """The push that serves `cmd`."""
    k = next(a for a in cmd if isinstance(a, str) and a.startswith("{"))
    kind = k[-1]
    if kind == "l":
        c.call("RPUSH", k, "a", "b", "c")
    elif kind == "z":
        c.call("ZADD", k, "1", "a", "2", "b", "3", "c")
    else:
        c.call("XADD", k, "1-1", "f", "v")


def blocked_clients(c):
    info = c.call("INFO", "clients").decode()
    return int(info.split("blocked_clients:")[1].split("\r\n")[0])


def run(port, t, t_ms, serve=False):
    """Sends every command with timeout (t, t_ms) at once, each from its own connection;
    [(command, reply bytes, seconds taken)]. serve: the commands are expected to wait for
    ever: once all block, a push serves each."""
    with Raw(port) as c:
        c.call("FLUSHALL")
        cmds = commands(t, t_ms)
        for cmd in cmds:
            if cmd[0] == "XREADGROUP":
                c.call("XGROUP", "CREATE", cmd[7], "g", "$", "MKSTREAM")
        out = [None] * len(cmds)

        def send(i, cmd):
            with Raw(port, timeout=TIMEOUT_LIMIT) as b:
                t0 = time.monotonic()
                try:
                    r = b.call(*cmd)
                except (socket.timeout, OSError) as e:
                    r = f"no reply ({e})".encode()
                out[i] = (cmd, r, time.monotonic() - t0)

        threads = [threading.Thread(target=send, args=(i, cmd), daemon=True)
                   for i, cmd in enumerate(cmds)]
        for th in threads:
            th.start()
        if serve:
            deadline = time.monotonic() + 5
            while blocked_clients(c) < len(cmds) and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.05)
            early = [o for o in out if o is not None]
            for cmd in cmds:
                feed(c, cmd)
        for th in threads:
            th.join(TIMEOUT_LIMIT)
        if serve:
            return [(o[0], o[1]) for o in out], early
        return out


class Timeouts:
    """The scenarios, at `workers` Ruvio workers (sidebyside sets ref and cand)."""

    def compare(self, t, t_ms, deadline=None):
        ref = run(self.ref.port, t, t_ms)
        cand = run(self.cand.port, t, t_ms)
        self.assertEqual([(c, r) for c, r, _ in cand], [(c, r) for c, r, _ in ref], (t, t_ms))
        if deadline is not None:
            for cmd, reply, took in cand:
                self.assertEqual(reply, b"*-1\r\n", cmd)
                self.assertLess(took, deadline + 0.1, cmd)
        return cand

    def compare_served(self, t, t_ms):
        ref, ref_early = run(self.ref.port, t, t_ms, serve=True)
        cand, cand_early = run(self.cand.port, t, t_ms, serve=True)
        self.assertEqual(ref_early, [], (t, "redis answered before the push"))
        self.assertEqual(cand_early, [], (t, "ruvio answered before the push"))
        self.assertEqual(cand, ref, (t, t_ms))
        return cand

    # ---- 2: sub-millisecond timeouts time out ----------------------------------------

    def test_sub_millisecond_timeouts_time_out(self):
        for t in ("0.001", "0.0001", "0.0005", "1e-4", "1.5e-3"):
            self.compare(t, "1", deadline=0.002)

    def test_single_empty_list_then_push_delivers_as_redis(self):
        cand = self.compare_served("0", "0")
        self.assertEqual(cand[1][1], b"*2\r\n$6\r\n{bt1}l\r\n$1\r\nc\r\n")  # BRPOP: the tail
        self.assertEqual(cand[2][1],  # BLMPOP LEFT COUNT 2: the head two, as pushed
                         b"*2\r\n$6\r\n{bt2}l\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n")

    # ---- 3: every form ---------------------------------------------------------------

    def test_short_forms_time_out_by_their_deadline(self):
        for t, t_ms, secs in (("0.01", "10", 0.01), (".05", "50", 0.05), ("5e-2", "50", 0.05),
                              ("1", "1000", 1.0), ("0.2", "200", 0.2)):
            cand = self.compare(t, t_ms, deadline=secs)
            for cmd, _, took in cand:
                self.assertGreaterEqual(took, secs - 0.005, cmd)

    def test_bad_forms_answer_the_same_error(self):
        for t, t_ms in (("-1", "-1"), ("-0.5", "-5"), ("abc", "abc"), ("nan", "1.5"),
                        ("1e20", "99999999999999999999"), ("inf", "1e3"),
                        ("9223372036854776", "-9223372036854775808"), ("", "")):
            cand = self.compare(t, t_ms)
            for cmd, reply, took in cand:
                self.assertTrue(reply.startswith(b"-ERR timeout is "), (cmd, reply))
                self.assertLess(took, 0.1, cmd)

    def test_forever_forms_wait_until_served(self):
        for t, t_ms in (("0", "0"), ("-0.0001", "0"), ("1e10", "10000000000000"),
                        ("9223372036854775", "9223372036854775807")):
            self.compare_served(t, t_ms)


class OneWorker(Timeouts, sidebyside.SideBySideCase):
    workers = 1


class Proxy(Timeouts, sidebyside.SideBySideCase):
    workers = 2


if __name__ == "__main__":
    unittest.main()
